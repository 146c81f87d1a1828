"""Which layers GD trains (``train``, docs/model.md, eq. (M4a)): Θ always, a and b optionally.

Plain Python (no numba, no NumPy), so that the settings of the workflow can use it at parse time.
"""

LAYERS = ("theta", "a", "b")


def check_train(train):
    """Raise ValueError unless ``train`` names Θ ("theta") and possibly "a" and/or "b"."""
    if "theta" not in train or not set(train) <= set(LAYERS):
        raise ValueError(f"train must hold 'theta' and may add 'a' and 'b', got {tuple(train)}")


def trained_layers(train):
    """The second-layer parameters ``train`` names, in the order of a trained point: a before b."""
    return [name for name in LAYERS[1:] if name in train]


def trains_second_layer(train):
    """Whether ``train`` trains a or b beside Θ."""
    return bool(trained_layers(train))
