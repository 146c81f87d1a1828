"""Which catalogue loss a model's conventions name (docs/model.md, eq. (M3a)); free of numba, so that
the workflow's planning code can read it."""


def loss_name(settings):
    """The loss a settings object trains on: its ``loss``, else ``huber`` when it has Huber's
    threshold ``huber``, else ``square`` (settings without such fields: the square loss)."""
    name = getattr(settings, "loss", None)
    if name is not None:
        return name
    return "square" if getattr(settings, "huber", None) is None else "huber"
