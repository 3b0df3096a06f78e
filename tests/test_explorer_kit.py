"""explorer_kit.py: what a student sees when a slider moves, read back from the repainted picture.

Small explorers made here (2×2 heatmaps, a line, bars, thumbnails) are moved and their pixels read.
The expected picture comes from elsewhere: a cell's colour is matplotlib's own "Purples" at the value,
a bar's number sits where the rule written out by hand below puts it, and a repainted figure must be,
pixel for pixel, the figure a new renderer draws from scratch for the same numbers (all its artists
drawn in one go, none kept or pasted). Which numbers are drawn again and which are pasted from the
kept cells is counted on matplotlib's `Axes.draw_artist`.
"""

import binascii
import io
import json
import zlib

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.text import Text
from PIL import Image

from attention_lab import explorer_kit
from attention_lab.explorer_kit import NAMING_SCRIPT, Control, Explorer, Panel, Renderer, png_bytes
from attention_lab.heatmaps import thumbnail_box

PURPLES = matplotlib.colormaps["Purples"]


# ------------------------------------------------------------------ helpers written apart from the package
def cell_pixel(ax, row: int, col: int, height: int, where=(0.2, 0.2)) -> tuple[int, int]:
    """(row, column) in the buffer of a point inside heatmap cell (row, col), away from its number."""
    x, y = ax.transData.transform((col + where[0], row + where[1]))        # seaborn: cell j spans j..j+1
    return round(height - y), round(x)


def colour_at(pixels, where) -> np.ndarray:
    return pixels[where][:3].astype(int)


def purple(value: float) -> np.ndarray:
    return np.round(np.array(PURPLES(value)[:3]) * 255).astype(int)


def weights(a: float) -> np.ndarray:
    return np.array([[a, 1 - a], [1 - a, a]])


# Without a colour bar (it is static, and drawing it is near half the cost of a build); the figures with one:
# the margins, the narrow panel, the panels in rows and the figure drawn once.
WEIGHTS = Panel("w", ["q1", "q2"], ["k1", "k2"], title="weights", cbar=False)


FRESH: dict = {}


def drawn_from_scratch(panels, result, size) -> tuple:
    """(a renderer that drew `result` from scratch, nothing repainted or pasted, then its PNG; its pixels
    then), made once per process for each panels, numbers and size."""
    key = (repr(panels), repr({k: np.asarray(v).tolist() for k, v in sorted(result.items())}), tuple(size))
    if key not in FRESH:
        r = Renderer(size)
        r.show(panels, result)
        r.png()
        FRESH[key] = r, r.pixels()
    return FRESH[key]


def fresh(panels, result, size=(9.0, 2.6)) -> np.ndarray:
    """The pixels of a renderer that draws `result` from scratch."""
    return drawn_from_scratch(panels, result, size)[1]


def built(panels, result, size=(9.0, 2.6)) -> Renderer:
    """That renderer itself, shared between tests: a test only reads it."""
    return drawn_from_scratch(panels, result, size)[0]


@pytest.fixture
def text_draws(monkeypatch) -> list:
    """The texts drawn one by one (the numbers repainted), appended as they are drawn."""
    drawn = []
    draw_artist = Axes.draw_artist

    def counted(ax, artist):
        if isinstance(artist, Text):
            drawn.append(artist.get_text())
        return draw_artist(ax, artist)
    monkeypatch.setattr(Axes, "draw_artist", counted)
    return drawn


# ------------------------------------------------------------------ heatmap cells, repainted and kept
def test_a_repainted_heatmap_shows_each_cells_colour_and_number():
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    r.png()
    for a in (0.9, 0.3):
        r.show([WEIGHTS], {"w": weights(a)})
        r.png()
        pixels, ax = r.pixels(), r.axes["w"]
        for (i, j), v in np.ndenumerate(weights(a)):
            assert np.abs(colour_at(pixels, cell_pixel(ax, i, j, pixels.shape[0])) - purple(v)).max() <= 1
        assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in weights(a).ravel()]
        assert np.array_equal(pixels, fresh([WEIGHTS], {"w": weights(a)}))


def test_each_number_is_drawn_once_then_pasted_when_it_comes_back(text_draws):
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    r.png()
    seen = []
    for a in (0.2, 0.9, 0.2, 0.9, 0.3):
        text_draws.clear()
        r.show([WEIGHTS], {"w": weights(a)})
        r.png()
        seen.append(sorted(text_draws))
        assert np.array_equal(r.pixels(), fresh([WEIGHTS], {"w": weights(a)}))
    # the build draws the cells in one go, so 0.2's numbers are drawn once more, one by one, then kept
    # the first png() drew 0.2's numbers one by one and kept them
    assert seen == [[], ["0.10", "0.10", "0.90", "0.90"], [], [], ["0.30", "0.30", "0.70", "0.70"]]


def test_a_new_number_on_a_cell_of_the_same_colour_is_drawn_again(text_draws):
    """0.493 and 0.4958 fall in the same one of the map's 256 colours, but read 0.49 and 0.50 (and 1 - a:
    0.507 and 0.5042, one colour, 0.51 and 0.50)."""
    assert int(0.493 * 256) == int(0.4958 * 256) and int(0.507 * 256) == int(0.5042 * 256)
    r = Renderer()
    drawn = []
    for a in (0.493, 0.4958, 0.493, 0.4958):
        text_draws.clear()
        r.show([WEIGHTS], {"w": weights(a)})
        r.png()
        drawn.append(len(text_draws))
        assert np.array_equal(r.pixels(), fresh([WEIGHTS], {"w": weights(a)}))
    assert drawn == [4, 4, 0, 0]                     # each number kept after its first appearance


def test_a_number_whose_colour_changes_on_the_same_text_is_drawn_again():
    """A scores cell reading 0.00 on a cell one colour step apart: the number is pasted only onto the
    colour it was kept with (its pixels' edges blend with the cell)."""
    panel = Panel("s", ["q1", "q2"], ["k1", "k2"], "scores", vmin=-1, vmax=1, fmt=".0f")
    r = Renderer()
    for v in (0.2, -0.2, 0.2, -0.2, 0.45):
        result = {"s": np.array([[v, 0.9], [-0.9, v]])}
        r.show([panel], result)
        r.png()
        assert np.array_equal(r.pixels(), fresh([panel], result))


def test_without_kept_cells_every_number_is_drawn_every_time(text_draws):
    r = Renderer()
    r.keep_cells = False
    r.show([WEIGHTS], {"w": weights(0.2)})
    r.png()
    for a in (0.9, 0.2):
        text_draws.clear()
        r.show([WEIGHTS], {"w": weights(a)})
        r.png()
        assert len(text_draws) == 4
        assert np.array_equal(r.pixels(), fresh([WEIGHTS], {"w": weights(a)}))


def test_no_cell_is_kept_once_the_budget_is_spent(monkeypatch, text_draws):
    monkeypatch.setattr(explorer_kit, "_PATCH_BUDGET", 0)
    r = Renderer()
    for a in (0.2, 0.9, 0.2):
        text_draws.clear()
        r.show([WEIGHTS], {"w": weights(a)})
        r.png()
        assert len(text_draws) == 4
    assert r._patch_bytes == 0


def test_cells_are_kept_while_the_budget_lasts_and_counted_in_bytes(monkeypatch):
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    r.png()
    sizes = [(rows.stop - rows.start) * (cols.stop - cols.start) * 4       # RGBA bytes of each cell
             for (rows, cols), _, _ in (r._cells[t] for t in r.axes["w"].texts)]
    assert r._patch_bytes == sum(sizes)
    monkeypatch.setattr(explorer_kit, "_PATCH_BUDGET", sum(sizes) + 1)      # room for one more only
    r.show([WEIGHTS], {"w": weights(0.9)})
    r.png()
    assert r._patch_bytes == sum(sizes) + sizes[0]


def test_a_number_wider_than_its_cell_is_not_kept():
    """A cell's kept pixels hold only what lies inside the cell; a number spilling out is drawn again."""
    panel = Panel("w", ["q"], ["k1", "k2"], fmt=".6f", width=1.0)
    r = Renderer((2.5, 1.5))
    r.show([panel], {"w": np.array([[0.25, 0.75]])})
    r.png()
    assert r._patch_bytes == 0
    narrow = Panel("w", ["q"], ["k1", "k2"], fmt=".1f")
    r = Renderer()
    r.show([narrow], {"w": np.array([[0.25, 0.75]])})
    r.png()
    assert r._patch_bytes > 0


def test_the_kept_pixels_of_a_cell_lie_inside_it():
    """Two pixels in from the white lines between cells, every kept patch the colour of its own cell
    at its corners."""
    r = built([WEIGHTS], {"w": weights(0.2)})
    pixels, ax = r.pixels(), r.axes["w"]
    assert len(r._cells) == 4
    for text, ((rows, cols), mesh, i) in r._cells.items():
        assert mesh is ax.collections[0] and ax.texts[i] is text
        v = weights(0.2).ravel()[i]
        for y in (rows.start, rows.stop - 1):
            for x in (cols.start, cols.stop - 1):
                assert np.abs(pixels[y, x, :3].astype(int) - purple(v)).max() <= 1
        # one pixel further out on every side is still the cell; two further is the white line's edge
        row, col = divmod(i, 2)
        x0, y0 = ax.transData.transform((col, row))
        x1, y1 = ax.transData.transform((col + 1, row + 1))
        h = pixels.shape[0]
        assert cols.start == int(np.ceil(min(x0, x1))) + 2 and cols.stop == int(np.floor(max(x0, x1))) - 2
        assert rows.start == int(np.ceil(h - max(y0, y1))) + 2
        assert rows.stop == int(np.floor(h - min(y0, y1))) - 2


# ------------------------------------------------------------------ the PNG a student's browser shows
def test_the_png_decodes_to_the_canvas_and_without_cells_shows_no_cells():
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.9)})
    decoded = np.asarray(Image.open(io.BytesIO(r.png())))
    assert np.array_equal(decoded, r.pixels()[..., :3])
    empty = np.asarray(Image.open(io.BytesIO(r.png(cells=False))))
    where = cell_pixel(r.axes["w"], 0, 0, empty.shape[0])
    assert (empty[where] == 255).all() and abs(decoded[where].astype(int) - purple(0.9)).max() <= 1
    assert all(t.get_text() for t in r.axes["w"].texts)                    # the numbers are kept


def test_png_bytes_by_hand():
    rgba = np.zeros((2, 3, 4), np.uint8)
    rgba[..., 0] = [[1, 2, 3], [4, 5, 6]]
    rgba[..., 1], rgba[..., 2], rgba[..., 3] = 7, 8, 255
    data = png_bytes(rgba)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    assert image.mode == "RGB" and image.size == (3, 2)
    assert np.array_equal(np.asarray(image), rgba[..., :3])
    assert data.endswith(b"IEND\xaeB`\x82")                                   # IEND and its CRC
    # byte for byte as the PNG specification lays it out: each chunk its length, type, data and CRC-32; the
    # scanlines each a filter byte 0 then R G B per pixel, deflated at zlib's quickest level (1)
    scanlines = bytes([0, 1, 7, 8, 2, 7, 8, 3, 7, 8,  0, 4, 7, 8, 5, 7, 8, 6, 7, 8])

    def chunk(kind, body):
        return len(body).to_bytes(4, "big") + kind + body + binascii.crc32(kind + body).to_bytes(4, "big")
    ihdr = (3).to_bytes(4, "big") + (2).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])   # 8 bits, RGB
    assert data == (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(scanlines, 1))
                    + chunk(b"IEND", b""))


def test_full_redraw_gives_the_picture_of_a_new_figure():
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    r.png()
    r.show([WEIGHTS], {"w": weights(0.9)})
    assert np.array_equal(r.full_redraw(), fresh([WEIGHTS], {"w": weights(0.9)}))


# ------------------------------------------------------------------ a line, bars and thumbnails
LINE = Panel("c", [], [10, 20, 30, 40], "curve", "loss so far", "step", "loss", vmin=0.5, vmax=2.0)


def test_a_line_panel_moves_its_line_and_the_dot_to_the_last_point():
    r = Renderer()
    y0 = np.array([1.5, np.nan, np.nan, np.nan])
    r.show([LINE], {"c": y0})
    ax = r.axes["c"]
    assert ax.get_xlim() == (10.0, 40.0) and ax.get_ylim() == (0.5, 2.0)
    assert ax.get_title() == "loss so far" and ax.title.get_fontsize() == 14
    assert ax.get_xlabel() == "step" and ax.get_ylabel() == "loss" and ax.xaxis.label.get_fontsize() == 13
    assert ax.yaxis.label.get_fontsize() == 13 and ax.xaxis.get_ticklabels()[0].get_fontsize() == 13
    for y, dot in ((np.array([1.5, 1.0, 0.75, np.nan]), (30.0, 0.75)), (y0, (10.0, 1.5)),
                   (np.array([1.5, 1.0, 0.75, 0.6]), (40.0, 0.6))):
        r.show([LINE], {"c": y})
        r.png()
        line, marker = ax.lines[:2]
        assert np.array_equal(line.get_ydata(), y, equal_nan=True)
        assert line.get_xdata().tolist() == [10, 20, 30, 40]
        assert list(np.ravel(marker.get_data())) == list(dot)
        pixels = r.pixels()
        x, yy = ax.transData.transform(dot)
        assert (pixels[round(pixels.shape[0] - yy), round(x), :3] == [0xB0, 0x00, 0x20]).all()
        if np.isfinite(y[1]):                                   # the line, half-way from the first point on
            x, yy = ax.transData.transform((15.0, (y[0] + y[1]) / 2))
            assert (pixels[round(pixels.shape[0] - yy), round(x), :3] < 0x80).all()
        assert np.array_equal(pixels, fresh([LINE], {"c": y}))
    r.show([LINE], {"c": np.full(4, np.nan)})
    assert np.ravel(ax.lines[1].get_data()).size == 0                     # nothing yet: no dot


def test_a_line_panel_without_a_title_has_none():
    r = Renderer()
    r.show([Panel("c", [], [0, 1], "curve", None, vmin=0.0, vmax=1.0)], {"c": np.array([0.5, 0.2])})
    ax = r.axes["c"]
    assert ax.get_title() == "" and ax.lines[0].get_color() == "#333333" and ax.lines[0].get_linewidth() == 2
    assert ax.lines[1].get_color() == "#b00020" and ax.lines[1].get_markersize() == 8
    assert ax.lines[1].get_marker() == "o"


BARS = Panel("b", ["first", "second", "third", "fourth"], [], "bars", "bars", "share", vmin=-1.0, vmax=1.0)


def bar_text(v: float, dot: float) -> tuple:
    """Where a bar's number goes, worked out for vmin = -1, vmax = 1 (a range of 2): just after the bar
    (or the dot, if that lies further, 0.04 clear of it), 0.03 away; inside the bar, right-aligned in white,
    if that end lies in the last 15 % of the axis (beyond 0.7)."""
    end = v if np.isnan(dot) else max(v, dot + 0.04)
    if end > 0.7:
        start = v if np.isnan(dot) else min(v, dot - 0.04)
        return start - 0.03, "right", "white"
    return end + 0.03, "left", "black"


def test_bars_show_their_lengths_dots_and_numbers_where_they_fit():
    r = Renderer((9.0, 3.0))
    r.show([BARS], {"b": np.array([0.1, 0.2, 0.3, 0.4])})
    ax = r.axes["b"]
    assert ax.get_xlim() == (-1.0, 1.0) and ax.get_ylim() == (3.5, -0.5)      # the first bar on top
    assert [t.get_text() for t in ax.get_yticklabels()] == BARS.row_labels
    assert ax.get_title() == "bars" and ax.get_xlabel() == "share"
    for values in (np.array([0.3, 0.95, -0.5, 0.7]),                 # 0.7: the last 15 % starts after it
                   np.array([[0.3, 0.9, 0.2, 0.5], [0.5, 0.5, 0.7, np.nan]])):
        r.show([BARS], {"b": values})
        r.png()
        ax = r.axes["b"]
        lengths = np.atleast_2d(values)[0]
        dots = values[1] if values.ndim == 2 else np.full(4, np.nan)
        assert [b.get_width() for b in ax.patches] == list(lengths)
        assert np.array_equal(ax.lines[0].get_xdata(), dots, equal_nan=True)
        for text, v, dot in zip(ax.texts, lengths, dots):
            x, align, colour = bar_text(v, dot)
            assert text.get_text() == f"{v:.2f}"
            assert text.get_position()[0] == pytest.approx(x)
            assert (text.get_horizontalalignment(), text.get_color()) == (align, colour)
        assert np.array_equal(r.pixels(), fresh([BARS], {"b": values}, (9.0, 3.0)))


def test_bars_are_drawn_in_grey_with_dark_dots_top_down():
    r = Renderer((9.0, 3.0))
    values = np.array([[0.5, -0.5, 0.25, 0.0], [-0.8, np.nan, np.nan, np.nan]])
    r.show([BARS], {"b": values})
    r.png()
    pixels, ax = r.pixels(), r.axes["b"]
    h = pixels.shape[0]

    def at(x, y):
        px, py = ax.transData.transform((x, y))
        return pixels[round(h - py), round(px), :3]
    assert (at(0.1, 0) == 0x66).all() and (at(-0.1, 1) == 0x66).all()      # bars 1 and 2, #666666
    assert (at(-0.1, 0) == 255).all() and (at(0.1, 1) == 255).all()       # nothing on the other side
    assert (at(-0.8, 0) == 0x33).all()                                     # the dot, #333333
    assert (at(0.1, 0.3) == 0x66).all() and (at(0.1, 0.4) == 255).all()  # bars 0.7 high
    assert ax.lines[0].get_marker() == "D" and ax.lines[0].get_markersize() == 9
    assert all(t.get_fontsize() == 13 and t.get_verticalalignment() == "center" for t in ax.texts)
    assert [t.get_position()[1] for t in ax.texts] == [0, 1, 2, 3]


def thumbs(open_head, level=0.5):
    w = np.full((3, 2, 2, 2), level)
    w[1, 1] = [[0.9, 0.1], [0.1, 0.9]]
    return {"t": w, "open": open_head}


THUMBS = Panel("t", [], [], "thumbnails", "every head", picks=(("copy", (2, 0)), ("prev", (0, 1))),
               mark="open")


def test_thumbnails_move_only_the_open_heads_frame():
    r = Renderer((6.0, 4.0))
    r.show([THUMBS], thumbs((0, 0)))
    ax = r.axes["t"]
    assert ax.get_title() == "every head"
    for open_head in ((1, 1), (2, 0), (0, 1)):
        r.show([THUMBS], thumbs(open_head))
        r.png()
        assert r.axes["t"] is ax                                           # moved, not drawn anew
        assert ax.patches[-1].get_xy() == thumbnail_box(*open_head, 2, 2)[0]
        assert ax.patches[0].get_xy() == thumbnail_box(2, 0, 2, 2)[0]     # the picks stay
        assert ax.patches[1].get_xy() == thumbnail_box(0, 1, 2, 2)[0]
        assert np.array_equal(r.pixels(), fresh([THUMBS], thumbs(open_head), (6.0, 4.0)))


def test_thumbnails_with_other_weights_are_drawn_anew_and_equal_ones_are_not():
    r = Renderer((6.0, 4.0))
    first = thumbs((0, 0))
    r.show([THUMBS], first)
    ax = r.axes["t"]
    r.show([THUMBS], {"t": first["t"].copy(), "open": (1, 0)})            # equal, another array
    assert r.axes["t"] is ax
    r.show([THUMBS], {**thumbs((1, 0), level=0.2)})
    assert r.axes["t"] is not ax
    r.png()
    assert np.array_equal(r.pixels(), fresh([THUMBS], thumbs((1, 0), level=0.2), (6.0, 4.0)))


def test_an_untitled_thumbnails_panel_gets_the_default_title():
    r = Renderer((6.0, 4.0))
    r.show([Panel("t", [], [], "thumbnails", mark="open")], thumbs((0, 0)))
    assert r.axes["t"].get_title().startswith("every head's weights, 2 queries × 2 keys")


def test_a_line_bars_thumbnails_and_a_heatmap_share_one_figure_and_take_lists():
    """Every kind of panel in one figure (each after one of another kind), filled from plain lists as a
    compute() may return them: each is drawn, then repainted in place, as a new renderer draws it. (The bars
    keep their numbers: the layout computed at the build depends on them, and a figure built for other bar
    numbers here is laid out a little differently.)"""
    panels = [LINE, BARS, THUMBS, WEIGHTS]
    size = (14.0, 3.0)
    r = Renderer(size)
    first = {"c": [1.5, 1.0, np.nan, np.nan], "b": [0.3, 0.95, -0.5, 0.7], **thumbs((0, 0)),
             "w": [[0.2, 0.8], [0.8, 0.2]]}
    r.show(panels, first)
    r.png()
    axes = dict(r.axes)
    assert list(axes) == ["c", "b", "t", "w"] and len(set(map(id, axes.values()))) == 4
    moved = {"c": [1.5, 1.0, 0.75, np.nan], "b": [0.3, 0.95, -0.5, 0.7], **thumbs((1, 1)),
             "w": [[0.9, 0.1], [0.1, 0.9]]}
    r.show(panels, moved)
    r.png()
    assert r.axes == axes                                                  # repainted in place
    pixels, h = r.pixels(), r.pixels().shape[0]
    x, y = axes["c"].transData.transform((30.0, 0.75))                     # the dot at the last point
    assert (pixels[round(h - y), round(x), :3] == [0xB0, 0x00, 0x20]).all()
    assert [t.get_text() for t in axes["b"].texts] == ["0.30", "0.95", "-0.50", "0.70"]
    assert axes["t"].patches[-1].get_xy() == thumbnail_box(1, 1, 2, 2)[0]
    for (i, j), v in np.ndenumerate(weights(0.9)):
        assert np.abs(colour_at(pixels, cell_pixel(axes["w"], i, j, h)) - purple(v)).max() <= 1
    assert np.array_equal(pixels, fresh(panels, moved, size))


# ------------------------------------------------------------ the layout: built once, relabelled, rebuilt
def test_new_labels_of_the_same_length_are_written_on_the_same_figure():
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    ax = r.axes["w"]
    shifted = Panel("w", ["q3", "q4"], ["k3", "k4"], title="weights", cbar=False)
    r.show([shifted], {"w": weights(0.6)})
    r.png()
    assert r.axes["w"] is ax and r.panels == [shifted]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["k3", "k4"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["q3", "q4"]
    assert np.array_equal(r.pixels(), fresh([shifted], {"w": weights(0.6)}))
    r.show([WEIGHTS], {"w": weights(0.2)})                                  # and back
    r.png()
    assert r.axes["w"] is ax and np.array_equal(r.pixels(), fresh([WEIGHTS], {"w": weights(0.2)}))


@pytest.mark.parametrize("other", [
    Panel("w", ["q1", "q2"], ["k1", "key2"], title="weights", cbar=False),      # a longer label
    Panel("w", ["q1", "q2"], ["k12", "k"], title="weights", cbar=False),        # the same letters, moved
    Panel("w", ["q1", "q2"], ["k1", "k2"], title="other weights", cbar=False),  # another title
    Panel("w", ["q1", "q2", "q3"], ["k1", "k2"], title="weights", cbar=False),  # another shape
])
def test_any_other_change_of_a_heatmap_draws_a_new_figure(other):
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    ax = r.axes["w"]
    values = np.full((len(other.row_labels), 2), 0.5)
    r.show([other], {"w": values})
    r.png()
    assert r.axes["w"] is not ax
    assert np.array_equal(r.pixels(), fresh([other], {"w": values}))


def test_a_new_label_on_a_line_or_another_number_of_panels_draws_a_new_figure():
    r = Renderer()
    r.show([LINE], {"c": np.ones(4)})
    ax = r.axes["c"]
    r.show([Panel("c", [], [10, 20, 30, 40], "curve", "loss so far", "step", "loss", vmin=0.5, vmax=2.0)],
           {"c": np.ones(4)})
    assert r.axes["c"] is ax                                               # the same panel: kept
    relabelled = Panel("c", [], [50, 60, 70, 80], "curve", "loss so far", "step", "loss", vmin=0.5, vmax=2.0)
    r.show([relabelled], {"c": np.ones(4)})
    assert r.axes["c"] is not ax and r.axes["c"].get_xlim() == (50.0, 80.0)
    r = Renderer()
    r.show([WEIGHTS], {"w": weights(0.2)})
    two = [replace_labels(WEIGHTS, ["q3", "q4"], ["k3", "k4"]), Panel("v", ["q1", "q2"], ["k1", "k2"])]
    r.show(two, {"w": weights(0.2), "v": weights(0.4)})
    assert set(r.axes) == {"w", "v"}


def test_panels_side_by_side_and_in_rows():
    r = Renderer((9.0, 5.0))
    panels = [Panel("a", ["q"], ["k1", "k2"]), Panel("b", ["q"], ["k1", "k2", "k3", "k4", "k5", "k6"]),
              Panel("c", ["q"], ["k1"], width=4.0, row=1, height=2.0)]
    r.show(panels, {"a": np.array([[0.5, 0.5]]), "b": np.full((1, 6), 1 / 6), "c": np.array([[1.0]])})
    a, c = (r.axes[k].get_subplotspec() for k in "ac")
    assert list(a.get_gridspec().get_width_ratios()) == [3.5, 7.5]          # columns + 1.5
    assert list(c.get_gridspec().get_width_ratios()) == [4.0]
    rows = a.get_gridspec()._subplot_spec.get_gridspec()
    assert list(rows.get_height_ratios()) == [1.0, 2.0]
    boxes = {k: r.axes[k].get_position() for k in "abc"}
    assert boxes["a"].x1 < boxes["b"].x0 and boxes["c"].y1 < boxes["a"].y0   # a then b; c below
    assert len(r.figure.axes) == 6                                           # three heatmaps, three bars


def test_a_narrow_panel_turns_its_column_labels_and_a_panel_without_a_colour_bar_has_none():
    r = Renderer()
    panels = [Panel("a", ["q"], ["k1", "k2", "k3"], width=2.0, cbar=False), Panel("b", ["q"], ["k1", "k2"])]
    r.show(panels, {"a": np.full((1, 3), 1 / 3), "b": np.array([[0.5, 0.5]])})
    assert [t.get_rotation() for t in r.axes["a"].get_xticklabels()] == [90.0] * 3
    assert [t.get_rotation() for t in r.axes["b"].get_xticklabels()] == [0.0] * 2
    assert [t.get_rotation() for t in r.axes["a"].get_yticklabels()] == [0.0]          # rows stay level
    assert len(r.figure.axes) == 3
    panels = [Panel("a", ["q"], ["k1", "k2", "k3"], width=3.0)]
    r.show(panels, {"a": np.full((1, 3), 1 / 3)})
    assert [t.get_rotation() for t in r.axes["a"].get_xticklabels()] == [0.0] * 3


def test_building_draws_the_figure_once_and_leaves_no_renderer_behind(monkeypatch):
    from matplotlib.figure import Figure
    draws = []
    original = Figure.draw
    hinting = matplotlib.rcParams

    def draw(self, renderer):
        draws.append(hinting["text.hinting"])
        return original(self, renderer)
    monkeypatch.setattr(Figure, "draw", draw)
    r = Renderer()
    r.show([WEIGHTS, Panel("s", ["q1", "q2"], ["k1", "k2"], "scores")], {"w": weights(0.2), "s": weights(1)})
    assert draws == ["none"] and "_get_renderer" not in vars(r.figure)      # once, glyphs unhinted (quicker)
    assert r.figure.get_layout_engine() is None or type(r.figure.get_layout_engine()).__name__ == \
        "PlaceHolderLayoutEngine"
    assert r.panels == [WEIGHTS, Panel("s", ["q1", "q2"], ["k1", "k2"], "scores")]
    r.show([WEIGHTS], {"w": weights(0.2)})                  # another layout: built anew, drawn once more
    assert draws == ["none", "none"] and r.panels == [WEIGHTS]


def test_dots_per_inch_and_a_new_size():
    assert Renderer((9.0, 2.6)).figure.dpi == 100
    assert Renderer((9.0, 2.6), dpi=50).figure.dpi == 50
    wide = Renderer((20.0, 2.0))
    assert wide.figure.dpi == 80                                           # 1600 pixels across at most
    wide.show([WEIGHTS], {"w": weights(0.2)})
    wide.png()
    assert wide.pixels().shape == (160, 1600, 4)
    assert wide.resize((20.0, 2.0)) is False and wide.resize([20, 2]) is False
    ax = wide.axes["w"]
    assert wide.resize((8.0, 3.0)) is True and wide.figure.dpi == 100
    wide.show([WEIGHTS], {"w": weights(0.2)})                               # drawn anew at the new size
    wide.png()
    assert wide.axes["w"] is not ax and wide.pixels().shape == (300, 800, 4)
    assert np.array_equal(wide.pixels(), fresh([WEIGHTS], {"w": weights(0.2)}, (8.0, 3.0)))


# ------------------------------------------------------------------ the explorer: sliders, readout, errors
def explorer(**kw) -> Explorer:
    controls = [Control("a", "share a", 0.25, 0.0, 1.0, 0.25), Control("n", "rows", 2, 1, 3, 1, integer=True)]

    def compute(values):
        if values["a"] == 1.0:
            raise ValueError('a = 1 leaves <"nothing"> for k2')
        return {"w": np.tile([values["a"], 1 - values["a"]], (values["n"], 1))}

    def panels(values):
        return [Panel("w", [f"q{i}" for i in range(values["n"])], ["k1", "k2"], title="weights", cbar=False)]
    return Explorer(controls, compute, kw.pop("panels", panels),
                    describe=lambda v, result: f'a = {v["a"]:.2f} & k2 gets "{1 - v["a"]:.2f}"',
                    **kw)


def test_a_slider_moves_the_picture_and_the_numbers_beside_it():
    e = explorer()
    e.sliders["a"].value = 0.75
    assert e.result["w"].tolist() == [[0.75, 0.25], [0.75, 0.25]]
    assert np.asarray(Image.open(io.BytesIO(e.image.value))).shape[:2] == e.renderer.pixels().shape[:2]
    assert e.image.value == png_bytes(fresh(e.panels, e.result))
    assert e.numbers.value.endswith(">a = 0.75 &amp; k2 gets &quot;0.25&quot;</pre>")
    assert e.summary() == 'a = 0.75 & k2 gets "0.25"'
    state = e.numbers.value.split('data-state="')[1].split('"')[0]
    assert json.loads(state.replace("&quot;", '"')) == {"a": 0.75, "n": 2}
    assert e.numbers.value.startswith("<pre class='al-numbers' ")
    assert "font-size:15px; line-height:1.4; margin:0 1em; white-space: pre-wrap;" in e.numbers.value
    e.sliders["n"].value = 3                                                # the layout follows: 3 rows
    assert [t.get_text() for t in e.axes["w"].get_yticklabels()] == ["q0", "q1", "q2"]
    assert e.image.value == png_bytes(fresh(e.panels, e.result))
    assert e.alt_text().endswith('The numbers beside it: a = 0.75 & k2 gets "0.25"')
    alt = e.numbers.value.split('data-alt="')[1].split('"')[0]
    assert alt.replace("&amp;", "&").replace("&quot;", '"').replace("&#x27;", "'") == e.alt_text()


def test_an_impossible_input_empties_the_picture_and_says_why():
    e = explorer()
    e.set(a=1.0)
    assert e.error == 'a = 1 leaves <"nothing"> for k2' and e.summary() == e.error
    assert e.numbers.value == (
        "<pre class='al-error' data-alt=\"The heatmaps are empty: this input is impossible. a = 1 leaves "
        "&lt;&quot;nothing&quot;&gt; for k2\" style='color:#b00020; font-size:15px; white-space: pre-wrap; "
        "word-break: normal; overflow-wrap: break-word'>"
        "a = 1 leaves &lt;&quot;nothing&quot;&gt; for k2</pre>")
    empty = np.asarray(Image.open(io.BytesIO(e.image.value)))
    assert (empty[cell_pixel(e.axes["w"], 0, 0, empty.shape[0])] == 255).all()
    assert e.image.layout.display is None                                   # shown, empty
    e.set(a=0.5)
    assert e.error is None and e.summary() == 'a = 0.50 & k2 gets "0.50"'
    assert e.image.value == png_bytes(fresh(e.panels, e.result))


def test_hide_on_error_hides_the_figure_until_the_input_is_possible_again():
    e = explorer(hide_on_error=True)
    e.set(a=1.0)
    assert e.image.layout.display == "none"
    e.set(a=0.0)
    assert e.image.layout.display is None and e.error is None


# The controls of the three tests below, in one explorer built once for the module (they only read it).
ON_GRID = [Control("a", "a", 0.33, 0.05, 1.0, 0.1), Control("b", "b", 1.7, 0.0, 1.0, 0.5),
           Control("c", "c", -0.4, 0.0, 1.0, 0.5), Control("d", "d", 2.6, 1, 5, 1, integer=True),
           Control("e", "e", 0.3, 0.0, 1.0, 0.1)]
KINDS = [Control("f", "float", 0.5, 0.0, 1.0, 0.05), Control("g", "coarse", 1.0, 0.0, 4.0, 2.0),
         Control("h", "fine", 0.5, 0.0, 1.0, 0.001, decimals=1),
         Control("i", "whole", 3, 1, 9, 2, integer=True),
         Control("o", "pick", 2, options=(1, 2, ("four", 4))),
         Control("t", "mask", True, toggle=True), Control("x", "text", "the cat", text=True)]
STEPS = {0.1: ".1f", 0.01: ".2f", 0.001: ".3f", 0.25: ".1f", 1.0: ".1f", 5.0: ".1f"}   # step: readout
BY_STEP = [Control(f"v{n}", f"v{n}", 0.0, 0.0, 10.0, step) for n, step in enumerate(STEPS)]


@pytest.fixture(scope="module")
def controls_explorer() -> Explorer:
    """An explorer holding every control above (a student's explorer, built once: the tests only read it)."""
    return Explorer([*ON_GRID, *KINDS, *BY_STEP], lambda v: {"w": np.array([[0.5, 0.5]])},
                    [Panel("w", ["q"], ["k1", "k2"])], describe=lambda v, r: "")


def test_sliders_start_on_their_grid_within_their_range(controls_explorer):
    e = controls_explorer
    assert {k: e.values[k] for k in "abcde"} == {"a": 0.35, "b": 1.0, "c": 0.0, "d": 3, "e": 0.3}
    assert [c.value for c in e.controls[:5]] == [0.35, 1.0, 0.0, 3, 0.3]
    assert isinstance(e.values["d"], int) and type(e.controls[3].value) is int
    assert e.at_start()


def test_each_kind_of_control_gets_its_widget(controls_explorer):
    import ipywidgets as widgets
    s = controls_explorer.sliders
    assert type(s["f"]) is widgets.FloatSlider and s["f"].readout_format == ".2f"
    assert (s["f"].min, s["f"].max, s["f"].step, s["f"].value) == (0.0, 1.0, 0.05, 0.5)
    assert s["g"].readout_format == ".1f" and s["h"].readout_format == ".1f"
    assert type(s["i"]) is widgets.IntSlider
    assert (s["i"].min, s["i"].max, s["i"].step, s["i"].value) == (1, 9, 2, 3)
    assert type(s["o"]) is widgets.SelectionSlider
    assert s["o"].options == (("1", 1), ("2", 2), ("four", 4)) and s["o"].value == 2 and s["o"].label == "2"
    assert type(s["t"]) is widgets.ToggleButton and s["t"].value is True and s["t"].icon == "check"
    assert s["t"].tooltip == "switch mask on or off" and s["t"].layout.width == "14em"
    assert type(s["x"]) is widgets.Text and s["x"].value == "the cat" and s["x"].continuous_update is False
    assert s["x"].layout.width == "40em" and s["x"].style.description_width == "7em"
    for key in "fghio":
        assert s[key].continuous_update is True and s[key].layout.width == "26em"
        assert s[key].style.description_width == "7em"
    every = [*ON_GRID, *KINDS, *BY_STEP]
    assert [(k, w.description) for k, w in s.items()] == [(c.key, c.label) for c in every]   # in order


def test_readout_decimals_follow_the_step(controls_explorer):
    for c, shown in zip(BY_STEP, STEPS.values()):
        assert controls_explorer.sliders[c.key].readout_format == shown, c.step


def test_set_moves_sliders_in_order_keeping_them_consistent_and_redraws_once(monkeypatch):
    calls = []

    def adjust(e):                                        # rows never more than 1 + 4a
        calls.append(dict(e.values))
        e.sliders["n"].value = min(e.sliders["n"].value, 1 + round(4 * e.sliders["a"].value))
    e = explorer(adjust=adjust)
    shows = []
    original = Renderer.show
    monkeypatch.setattr(Renderer, "show", lambda self, *a: shows.append(1) or original(self, *a))
    calls.clear()
    e.set(n=3, a=0.25)
    assert e.values == {"a": 0.25, "n": 2} and len(shows) == 1
    assert calls == [{"a": 0.25, "n": 2}, {"a": 0.25, "n": 3}, {"a": 0.25, "n": 2}]   # a, n, then refresh
    e.set(a=0.75, n=3)
    assert e.values == {"a": 0.75, "n": 3} and len(shows) == 2
    e.sliders["a"].value = 0.0                             # a slider moved by hand: adjust, then one redraw
    assert e.values == {"a": 0.0, "n": 1} and len(shows) == 3
    assert e.result["w"].tolist() == [[0.0, 1.0]]
    e.reset()
    assert e.values == {"a": 0.25, "n": 2} and e.at_start()


def test_an_adjust_that_fails_releases_the_sliders():
    def adjust(e):
        if e.sliders["n"].value == 3:
            raise RuntimeError("broken")
    e = explorer(adjust=adjust)
    with pytest.raises(RuntimeError):
        e.set(n=3)
    assert not e._holding
    e.sliders["n"].value = 1
    assert e.result["w"].shape == (1, 2)
    with pytest.raises(RuntimeError):
        e.sliders["n"].value = 3
    assert not e._holding


def test_at_start_and_the_caption_of_the_still_copy():
    e = explorer()
    assert e.at_start()
    assert e.still_caption() == (
        "Static copy of the explorer above, at its start position: it stays as it is, so you can compare "
        "(the course site and the tests use it too). To explore, move the sliders above.")
    e.sliders["a"].value = 0.25 + 0.9e-6 * 0.25                             # the browser's float noise
    assert e.at_start()
    e.sliders["a"].value = 0.25 - 0.9e-6 * 0.25
    assert e.at_start()
    e.sliders["a"].value = 0.25 + 1.1e-6 * 0.25
    assert not e.at_start()
    assert e.still_caption() == (
        "Static copy of the explorer above, as its sliders stood when this cell ran: it stays as it is, so "
        "you can compare (the course site and the tests use it too). To explore, move the sliders above.")
    e.reset()
    e.sliders["n"].value = 3
    assert not e.at_start()
    one = Explorer([Control("t", "on", False, toggle=True)], lambda v: {"w": np.array([[0.5, 0.5]])},
                   [Panel("w", ["q"], ["k1", "k2"])], describe=lambda v, r: "")
    assert one.still_caption().endswith("To explore, move the slider above.")
    one.sliders["t"].value = True
    assert "as its slider stood when this cell ran" in one.still_caption() and not one.at_start()
    snap = one.snapshot()
    assert snap.data == one.image.value and snap.caption == one.still_caption()


def test_a_figure_that_grows_with_the_input_is_drawn_anew_at_its_size():
    e = explorer(figsize=lambda values: (4.0 + 2 * values["n"], 2.0))
    assert e.image.layout.max_width == "800px" and e.figure.get_size_inches().tolist() == [8.0, 2.0]
    e.sliders["a"].value = 0.5
    assert e.image.layout.max_width == "800px"
    e.sliders["n"].value = 3
    assert e.image.layout.max_width == "1000px" and e.renderer.pixels().shape[:2] == (200, 1000)
    assert e.image.value == png_bytes(fresh(e.panels, e.result, (10.0, 2.0)))
    fixed = explorer(figsize=(7.0, 2.0), dpi=50)
    assert fixed.image.layout.max_width == "350px" and fixed.renderer.pixels().shape[:2] == (100, 350)


def test_the_widget_holds_sliders_reset_numbers_picture_and_the_naming_script():
    import ipywidgets as widgets
    e = explorer(panels=[WEIGHTS])
    box = e.widget
    assert "attention-lab-explorer" in box._dom_classes
    controls, picture, naming = box.children
    assert controls.children[0].children == (*e.sliders.values(), e.reset_button)
    assert controls.children[0].layout.flex == "0 0 auto" and controls.children[1] is e.numbers
    assert picture is e.image and e.image.layout.width == "100%" and e.image.format == "png"
    assert (e.image.layout.height, e.image.layout.margin) == ("auto", "0px")   # flush, in proportion
    assert isinstance(naming, widgets.Output) and naming.layout.display == "none"
    assert naming.outputs[0]["data"]["text/html"] == NAMING_SCRIPT
    assert e.reset_button.description == "Reset" and e.reset_button.icon == "undo"
    assert e.reset_button.tooltip == "Put every slider back where it started"
    e.sliders["a"].value = 0.75
    e.reset_button.click()
    assert e.values["a"] == 0.25
    assert e._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]["model_id"] == box.model_id
    assert e.figure is e.renderer.figure and e.axes is e.renderer.axes


def test_at_start_for_every_kind_of_control():
    """Exact for a whole number, a choice, a switch or a text; within a millionth of its step for a float."""
    controls = [Control("f", "f", 0.0, 0.0, 10.0, 1.0), Control("o", "pick", "b", options=("a", "b")),
                Control("t", "on", True, toggle=True), Control("x", "words", "the cat", text=True)]
    e = Explorer(controls, lambda v: {"w": np.array([[0.5, 0.5]])}, [Panel("w", ["q"], ["k1", "k2"])],
                 describe=lambda v, r: "")
    assert e.at_start()
    for key, moved in (("o", "a"), ("t", False), ("x", "the dog"), ("f", 1.0), ("f", 1e-6 + 1e-12)):
        e.sliders[key].value = moved
        assert not e.at_start(), (key, moved)
        e.reset()
        assert e.at_start()
    e.sliders["f"].value = 1e-6                       # exactly a millionth of the step: still the start
    assert e.at_start()


# ------------------------------------------------------------------ what the build passes on, checked apart
def test_a_heatmap_panel_is_the_heatmap_that_heatmaps_draws_with_its_settings():
    """Title, axis names, scale, number format and size, colours: as `heatmaps.heatmap` draws them itself."""
    import matplotlib.pyplot as plt

    from attention_lab.heatmaps import heatmap
    values = np.array([[-1.5, 0.25], [2.0, 0.75]])
    settings = dict(kind="scores", title="scores by hand", xlabel="keys here", ylabel="queries here",
                    vmin=-2.0, vmax=3.0, fmt=".1f", annot_size=9)
    r = Renderer()
    r.show([Panel("s", ["q1", "q2"], ["k1", "k2"], **settings, cbar=False)], {"s": values})
    r.png()
    ours = r.axes["s"]
    theirs = heatmap(values, ["q1", "q2"], ["k1", "k2"], ax=plt.figure().add_subplot(), **settings,
                     cbar=False)
    assert (ours.get_title(), ours.get_xlabel(), ours.get_ylabel()) == \
        ("scores by hand", "keys here", "queries here")
    assert (ours.collections[0].norm.vmin, ours.collections[0].norm.vmax) == (-2.0, 3.0)
    assert [t.get_text() for t in ours.texts] == ["-1.5", "0.2", "2.0", "0.8"]
    assert [t.get_text() for t in ours.texts] == [t.get_text() for t in theirs.texts]
    assert [t.get_color() for t in ours.texts] == [t.get_color() for t in theirs.texts]
    assert [t.get_fontsize() for t in ours.texts] == [9] * 4
    pixels = r.pixels()
    for (i, j), v in np.ndenumerate(values):
        mesh = theirs.collections[0]
        expected = np.round(np.array(mesh.cmap(mesh.norm(v))[:3]) * 255)
        assert np.abs(colour_at(pixels, cell_pixel(ours, i, j, pixels.shape[0])) - expected).max() <= 1
    r.show([Panel("c", ["q"], ["k1", "k2"], annot=False)], {"c": np.array([[0.2, 0.8]])})
    assert len(r.axes["c"].texts) == 0 and r._cells == {}


def test_the_figure_keeps_its_margins():
    """Constrained layout with 0.12 inch of room at the sides and 0.08 above and below: at 100 dpi the
    outermost ink lies 8 pixels from the top and the bottom, 12 to 16 from the sides (a label's own
    spacing adds up to 4)."""
    r = Renderer((5.0, 3.0))
    r.show([Panel("w", ["q1", "q2"], ["k1", "k2"], title="weights")], {"w": weights(0.2)})   # a colour bar
    r.png()
    ink = (r.pixels()[..., :3] < 250).any(axis=-1)
    cols, rows = np.flatnonzero(ink.any(axis=0)), np.flatnonzero(ink.any(axis=1))
    assert (rows[0], 299 - rows[-1]) == (8, 8)
    assert 12 <= cols[0] <= 16 and 12 <= 499 - cols[-1] <= 16


def test_only_heatmaps_take_new_labels_in_place():
    """Bars and thumbnails show their labels differently (bars on the y axis, thumbnails the layer and
    head numbers): new labels of the same length draw them anew."""
    bars = Panel("b", ["aa", "bb"], [], "bars", vmin=0.0, vmax=1.0)
    r = Renderer()
    r.show([bars], {"b": np.array([0.2, 0.4])})
    ax = r.axes["b"]
    r.show([replace_labels(bars, ["cc", "dd"], [])], {"b": np.array([0.2, 0.4])})
    assert r.axes["b"] is not ax
    assert [t.get_text() for t in r.axes["b"].get_yticklabels()] == ["cc", "dd"]
    r = Renderer((6.0, 4.0))
    named = Panel("t", [], ["a", "b", "c"], "thumbnails", "heads", mark="open")
    r.show([named], thumbs((0, 0)))
    ax = r.axes["t"]
    r.show([replace_labels(named, [], ["d", "e", "f"])], thumbs((0, 0)))
    assert r.axes["t"] is not ax
    assert [t.get_text() for t in r.axes["t"].get_xticklabels()] == ["0", "1", "2"]    # the layers


def replace_labels(p: Panel, rows, cols) -> Panel:
    from dataclasses import replace
    return replace(p, row_labels=rows, col_labels=cols)


def test_numbers_kept_in_cells_of_every_width_paste_back_what_a_full_redraw_draws():
    """Twelve one-cell panels, each a little wider than the last, around the width of their number: the
    narrow ones keep nothing (the number would not fit), the wide ones keep it; pasted, every one gives
    the pixels of drawing every number again."""
    panels = [Panel(f"p{i}", ["q"], ["k"], "weights", None, "", "", cbar=False, width=1.0 + 0.02 * i)
              for i in range(12)]
    r = Renderer((10.5, 1.2))
    for v in (0.111, 0.777, 0.111):
        r.show(panels, {p.key: np.array([[v]]) for p in panels})
        r.png()
    kept = [bool(r._patches.get(r.axes[p.key].texts[0])) for p in panels]
    assert not kept[0] and kept[-1]
    assert np.array_equal(r.pixels(), r.full_redraw())


def test_one_move_of_a_choice_slider_redraws_once(monkeypatch):
    """A selection slider changes its value, index and label at once: the picture is drawn once."""
    shows = []
    original = Renderer.show
    monkeypatch.setattr(Renderer, "show", lambda self, *a: shows.append(1) or original(self, *a))
    e = Explorer([Control("o", "pick", 0.25, options=(0.25, 0.5, 0.75))],
                 lambda v: {"w": np.array([[v["o"], 1 - v["o"]]])}, [WEIGHTS_ROW], describe=lambda v, r: "")
    shows.clear()
    e.sliders["o"].value = 0.75
    assert len(shows) == 1 and e.result["w"].tolist() == [[0.75, 0.25]]


WEIGHTS_ROW = Panel("w", ["q"], ["k1", "k2"])


def test_a_number_taller_than_its_cell_is_not_kept():
    """Six rows in a short figure: each cell is lower than its number, so nothing is kept, and every
    repaint gives the pixels of drawing every number again."""
    panel = Panel("w", [f"q{i}" for i in range(6)], ["k1", "k2", "k3"], "weights", None, "", "", cbar=False)
    r = Renderer((6.0, 1.2))
    for a in (0.2, 0.7, 0.2):
        r.show([panel], {"w": np.tile([a, 1 - a, 0.0], (6, 1))})
        r.png()
    assert r._patch_bytes == 0
    assert np.array_equal(r.pixels(), r.full_redraw())
