"""Which catalogue loss a model's conventions name (docs/model.md, eq. (M3a)); free of numba, so that
the workflow's planning code can read it."""


def chosen_loss(loss, huber):
    """The loss of the conventions ``loss`` and ``huber``: ``loss`` when given, else ``huber`` when
    Huber's threshold ``huber`` is set, else ``square``."""
    if loss is not None:
        return loss
    return "square" if huber is None else "huber"


def loss_name(settings):
    """:func:`chosen_loss` of a settings object (settings without such fields: the square loss)."""
    return chosen_loss(getattr(settings, "loss", None), getattr(settings, "huber", None))
