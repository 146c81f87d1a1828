"""featlearn.plotting.print_size: the text a figure draws, and its size where printed (P1)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from featlearn.plotting import figures, print_size  # noqa: E402


def test_drawn_text_is_what_the_renderer_draws_at_its_set_size():
    """Legend, title and tick labels at the sizes set; a hidden text and an empty label are not
    drawn, so they are not counted."""
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(fontsize=6.5)
    ax.set_title("title", fontsize=9)
    ax.tick_params(labelsize=7.25)
    ax.text(0.5, 0.5, "hidden", fontsize=3).set_visible(False)
    ax.set_xlabel("")
    drawn = print_size.drawn_text(fig)
    plt.close(fig)
    sizes = dict((text, size) for size, text in drawn)
    assert sizes["a line"] == 6.5 and sizes["title"] == 9
    assert "hidden" not in sizes
    ticks = [size for size, text in drawn if text not in ("a line", "title")]
    assert ticks and set(ticks) == {7.25}


def test_printed_size_scales_with_the_printed_width(tmp_path):
    """(P1) against its closed form: a figure whose smallest text is 6 pt, saved with the project's
    ``save`` (tight box), printed at its own width reads 6 pt, at half of it 3 pt; the smallest string
    is named."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1], label="smallest")
    ax.legend(fontsize=6)
    paths = [tmp_path / "f.png", tmp_path / "f.pdf"]
    figures.save(fig, paths)
    from PIL import Image

    with Image.open(paths[0]) as image:
        natural = image.width / print_size.DPI * 72
    assert print_size.printed_text(paths[0], natural) == (pytest.approx(6.0), "smallest")
    assert print_size.printed_text(paths[0], natural / 2)[0] == pytest.approx(3.0)


def test_a_figure_without_text_records_none(tmp_path):
    fig = plt.figure(figsize=(2, 2))
    figures.save(fig, [tmp_path / "blank.png"])
    assert print_size.printed_text(tmp_path / "blank.png", 100.0) == (float("inf"), "")
