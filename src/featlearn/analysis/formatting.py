"""Numbers as text, one format for the claims table and the manuscript."""

import math


def significant(x, digits=3, missing="—"):
    """``x`` with ``digits`` significant digits (format ``g``), except that a number ``g`` would
    write with a positive exponent is written whole, rounded to an integer (2810, not 2.81e+03);
    ``missing`` for None, NaN or ±∞."""
    if x is None or not math.isfinite(x):
        return missing
    text = f"{x:.{digits}g}"
    return f"{x:.0f}" if "e+" in text else text


def interval(low, high, digits=3):
    """ "[low, high]" with ``significant`` numbers; a side that is open (NaN: a profile interval that
    does not close there) or infinite is written −∞ or ∞."""
    ends = []
    for x, side in ((low, "−∞"), (high, "∞")):
        finite = x is not None and math.isfinite(x)
        ends.append(significant(x, digits) if finite else side)
    return f"[{ends[0]}, {ends[1]}]"
