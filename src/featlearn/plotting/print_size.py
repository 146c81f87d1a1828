"""The size a figure's text has where it is printed.

A figure is drawn at its natural size (``figsize``, saved with a tight bounding box) and placed in the
manuscript scaled to the text width, or to the page's height cap (paper/manuscript.typ, ``fig``).
Text of s pt in a figure of natural width W pt printed at width P pt reads

    s_printed = s · P / W.                                                                   (P1)

``save`` records in each PNG the smallest text the renderer drew (``text_record``); the page check
(tests/test_workflow.py) reads it with the printed width that the Typst layout reports and requires
every figure's smallest text to print at ``MIN_PRINTED_PT`` or more.  The PNG and the PDF share the
bounding box, so W is the PNG's width in pixels over ``DPI``, in points.
"""

import json

DPI = 150
"""Resolution of the saved PNG (dots per inch)."""
TEXT_KEY = "featlearn-text"
"""PNG text chunk holding ``text_record``."""
MIN_PRINTED_PT = 7.0
"""The smallest text size a printed figure may have (legends, ticks, labels, titles, notes)."""
TEXT_WIDTH_IN = 6.5
"""The manuscript's text width (A4, 2.2 cm margins: 16.6 cm), the width every manuscript figure is
drawn at, so that its text prints at the size it is set in (P1 with P ≈ W)."""
STYLE = {
    "font.size": 8.0,
    "axes.titlesize": 8.5,
    "axes.labelsize": 8.0,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "figure.titlesize": 9.0,
}
"""Matplotlib's text sizes for every figure (pt): at least ``MIN_PRINTED_PT`` with room for a tight
bounding box a little wider than ``TEXT_WIDTH_IN``."""


def drawn_text(fig):
    """[(size in pt, string)] of every non-blank string the Agg renderer draws for ``fig``: what a
    reader sees, hidden artists and tick labels outside the axes' view left out by the renderer."""
    renderer = fig.canvas.get_renderer()
    drawn = []
    draw_text = renderer.draw_text

    def record(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if s.strip():
            drawn.append((float(prop.get_size_in_points()), s))
        return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = record
    try:
        fig.draw(renderer)
    finally:
        del renderer.draw_text
    return drawn


def text_record(fig):
    """The PNG metadata entry of ``fig``: {TEXT_KEY: JSON of the smallest drawn text's size in pt and
    its string} (size NaN-free: a figure without text records none)."""
    drawn = drawn_text(fig)
    if not drawn:
        return {}
    size, text = min(drawn, key=lambda pair: pair[0])
    return {TEXT_KEY: json.dumps({"min_pt": size, "min_text": text[:60]})}


def printed_text(png_path, printed_width_pt):
    """(smallest text size as printed (P1), its string) of the figure saved at ``png_path`` when
    printed ``printed_width_pt`` wide; (inf, "") for a figure without a record."""
    from PIL import Image

    with Image.open(png_path) as image:
        natural_width_pt = image.width / DPI * 72.0
        record = image.text.get(TEXT_KEY)
    if record is None:
        return float("inf"), ""
    record = json.loads(record)
    return record["min_pt"] * printed_width_pt / natural_width_pt, record["min_text"]
