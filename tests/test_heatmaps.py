"""heatmaps.py: what a student sees on every heatmap, read back from the drawn picture.

Each figure is rendered to pixels. A cell's colour is compared with the colour its value should have,
worked out here: matplotlib's own "Purples" map at the value itself for weights (the fixed 0-1 scale),
and for a signed map a straight line from grey through white to the role's colour, whose hex codes are
written here as the collection's guide gives them. The colour of each number is checked against the
drawn cell with WCAG 2's contrast formula, written here apart from the package's rule.
"""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb

import attention_lab as al
from attention_lab import heatmaps

PURPLES = matplotlib.colormaps["Purples"]
GREYS = matplotlib.colormaps["Greys"]
ROLE_HEX = {"query": "#0072B2", "key": "#D55E00", "value": "#009E73"}   # Okabe-Ito: blue, vermilion, green
GREY, WHITE, RED = to_rgb("#6b6b6b"), (1.0, 1.0, 1.0), to_rgb("#a9373b")
TOL = 4 / 255          # a drawn colour is stored in 8 bits, and a map has 256 steps


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------ helpers written apart from the package
def signed(t: float, top) -> np.ndarray:
    """The colour at t in [0, 1] of a grey-white-`top` map: straight lines, white at t = 0.5."""
    low, high = (GREY, WHITE) if t <= 0.5 else (WHITE, to_rgb(top))
    s = t / 0.5 if t <= 0.5 else (t - 0.5) / 0.5
    return (1 - s) * np.array(low) + s * np.array(high)


def luminance(colour) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in to_rgb(colour if isinstance(colour, str) else tuple(colour)))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def better_text(cell) -> tuple:
    """Black or white: whichever contrasts more with the cell."""
    return (0.0, 0.0, 0.0) if contrast((0, 0, 0), cell) >= contrast((1, 1, 1), cell) else (1.0, 1.0, 1.0)


def drawn(fig) -> np.ndarray:
    """The figure's pixels, (height, width, 3) in 0-1."""
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3] / 255


def pixel(ax, pixels, x, y) -> np.ndarray:
    """The drawn colour at data point (x, y) of ax."""
    px, py = ax.transData.transform((x, y))
    return pixels[int(pixels.shape[0] - py), int(px)]


def cell(ax, pixels, i, j) -> np.ndarray:
    """The drawn colour of cell (row i, column j) of a heatmap, near its corner (away from the number)."""
    return pixel(ax, pixels, j + 0.15, i + 0.15)


def assert_cells(ax, expected):
    """Every cell of ax is drawn in expected[i][j] (RGB), and its number in the better of black or white."""
    pixels = drawn(ax.figure)
    expected = np.asarray(expected, dtype=float)
    rows, cols = expected.shape[:2]
    assert len(ax.texts) == rows * cols
    for i in range(rows):
        for j in range(cols):
            colour = cell(ax, pixels, i, j)
            np.testing.assert_allclose(colour, expected[i, j], atol=TOL, err_msg=f"cell ({i}, {j})")
            text = ax.texts[i * cols + j]
            assert to_rgb(text.get_color()) == better_text(colour), f"the number in cell ({i}, {j})"
            assert contrast(text.get_color(), colour) >= 4.5


def words(labels) -> list[str]:
    return [t.get_text() for t in labels]


def inside(fig, texts, apart=True):
    """Every text is drawn whole inside the figure, and (apart) none overlaps another."""
    box = fig.bbox
    extents = [t.get_window_extent() for t in texts if t.get_text()]
    for t, e in zip(texts, extents):
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, \
            f"{t.get_text()!r} is cut off at the figure's edge"
    for i, a in enumerate(extents if apart else []):
        assert not any(a.overlaps(b) for b in extents[i + 1:]), "two texts overlap"


# ------------------------------------------------------------------ weights: the fixed 0-1 scale
def test_weights_are_drawn_on_the_fixed_0_1_scale_with_the_token_words_and_numbers():
    values = np.array([[0.0, 0.25, 0.5, 0.25], [0.1, 0.2, 0.3, 0.4], [0.9, 0.05, 0.05, 0.0]])
    ax = al.heatmap(values, ["the", "cat", "sat"], ["a", "b", "c", "d"], title="who looks where")
    assert_cells(ax, [[PURPLES(v)[:3] for v in row] for row in values])   # 0.5 is mid purple, not the top
    assert [t.get_text() for t in ax.texts] == ["0.00", "0.25", "0.50", "0.25", "0.10", "0.20", "0.30",
                                                "0.40", "0.90", "0.05", "0.05", "0.00"]
    assert {t.get_fontsize() for t in ax.texts} == {14}
    assert words(ax.get_xticklabels()) == ["a", "b", "c", "d"]
    assert words(ax.get_yticklabels()) == ["the", "cat", "sat"]
    assert {t.get_rotation() for t in ax.get_yticklabels()} == {0}          # query words read across
    assert {t.get_fontsize() for t in (*ax.get_xticklabels(), *ax.get_yticklabels())} == {13}
    assert ax.xaxis.get_major_ticks()[0].tick1line.get_markersize() == 0   # words, no tick marks
    assert ax.yaxis.get_major_ticks()[0].tick1line.get_markersize() == 0
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("key", "query", "who looks where")
    assert [t.get_fontsize() for t in (ax.xaxis.label, ax.yaxis.label, ax.title)] == [13, 13, 14]
    assert ax.get_aspect() == "auto"                                      # cells follow the figure
    np.testing.assert_allclose(ax.figure.get_size_inches(), [1.6 + 3.6 + 1.2, 1.2 + 2.1])


def test_long_words_a_title_and_the_scale_all_fit_in_the_figure():
    ax = al.heatmap(np.full((2, 2), 0.5), ["understanding", "attention"], ["representations", "b"],
                    title="a long title over a small heatmap", xlabel="the key tokens", ylabel="the queries")
    drawn(ax.figure)
    bar = ax.figure.axes[1]
    inside(ax.figure, [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_yticklabels()])
    inside(ax.figure, ax.get_xticklabels())
    inside(ax.figure, bar.get_yticklabels(), apart=False)


def test_the_colour_bar_shows_the_whole_0_1_scale_beside_the_weights():
    ax = al.heatmap(np.array([[0.2, 0.3]]), ["q"], ["a", "b"])
    pixels = drawn(ax.figure)
    bar = [a for a in ax.figure.axes if a is not ax]
    assert len(bar) == 1
    bar = bar[0]
    assert bar.get_ylim() == (0.0, 1.0)
    for y in (0.1, 0.5, 0.9):                           # the bar's colours are the weights' colours
        np.testing.assert_allclose(pixel(bar, pixels, 0.5, y), PURPLES(y)[:3], atol=TOL)
    assert {t.get_fontsize() for t in bar.get_yticklabels()} == {12}
    assert bar.spines["outline"].get_linewidth() == 0
    np.testing.assert_allclose(ax.figure.get_size_inches(), [1.6 + 1.8 + 1.2, 1.2 + 0.7])


def test_no_colour_bar_no_title_and_own_labels_and_number_size():
    ax = al.heatmap(np.array([[0.5, 0.5]]), ["q"], ["a", "b"], cbar=False, xlabel="x", ylabel="y",
                    annot_size=9, fmt=".1f")
    assert ax.figure.axes == [ax]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x", "y", "")
    assert [t.get_text() for t in ax.texts] == ["0.5", "0.5"]
    assert {t.get_fontsize() for t in ax.texts} == {9}
    np.testing.assert_allclose(ax.figure.get_size_inches(), [1.6 + 1.8, 1.2 + 0.7])


def test_cells_are_parted_by_thin_white_lines():
    ax = al.heatmap(np.ones((2, 2)), ["p", "q"], ["a", "b"], cbar=False)
    ax.figure.set_dpi(200)                               # a line of 1 point is 2.8 pixels wide
    pixels = drawn(ax.figure)
    np.testing.assert_allclose(pixel(ax, pixels, 1.0, 0.3), WHITE, atol=TOL)    # between two columns
    np.testing.assert_allclose(pixel(ax, pixels, 0.3, 1.0), WHITE, atol=TOL)    # between two rows
    x, y = ax.transData.transform((1.0, 0.3))            # 2.5 pixels beside the line's middle: the cell
    np.testing.assert_allclose(pixels[int(pixels.shape[0] - y), int(x + 2.5)], PURPLES(1.0)[:3], atol=TOL)
    np.testing.assert_allclose(pixels[int(pixels.shape[0] - y), int(x - 2.5)], PURPLES(1.0)[:3], atol=TOL)
    np.testing.assert_allclose(cell(ax, pixels, 1, 1), PURPLES(1.0)[:3], atol=TOL)


def test_a_heatmap_can_go_on_the_axes_given_and_without_numbers():
    fig, (left, right) = plt.subplots(1, 2)
    ax = al.heatmap(np.array([[1.0, 0.0]]), ["q"], ["a", "b"], ax=right, annot=False, cbar=False)
    assert ax is right and len(ax.texts) == 0 and len(left.collections) == 0
    pixels = drawn(fig)
    np.testing.assert_allclose(cell(ax, pixels, 0, 0), PURPLES(1.0)[:3], atol=TOL)


# ------------------------------------------------------------------ signed maps: grey, white, a colour
@pytest.mark.parametrize("role", ["query", "key", "value"])
def test_a_role_matrix_is_grey_below_zero_white_at_zero_and_its_role_colour_above(role):
    values = np.array([[-2.0, -1.0, 0.0], [1.0, 2.0, 0.5]])            # the largest size, 2, sets the scale
    ax = al.heatmap(values, ["x", "y"], ["a", "b", "c"], kind=role)
    top = ROLE_HEX[role]
    assert_cells(ax, [[signed((v + 2) / 4, top) for v in row] for row in values])
    assert [t.get_text() for t in ax.texts] == ["-2.00", "-1.00", "0.00", "1.00", "2.00", "0.50"]
    assert heatmaps.kind_color(role) == top                              # titles in the role's colour


def test_scores_are_red_above_zero_and_never_a_roles_colour():
    values = np.array([[-3.0, 0.0, 1.5, 3.0]])
    ax = al.heatmap(values, ["q"], list("abcd"), kind="scores")
    assert_cells(ax, [[signed((v + 3) / 6, RED) for v in values[0]]])
    assert heatmaps.kind_color("scores") == "0.15" and heatmaps.kind_color("weights") == "0.15"


def test_a_scale_given_by_hand_is_kept():
    values = np.array([[-1.0, 1.0, 2.0]])
    ax = al.heatmap(values, ["q"], list("abc"), kind="scores", vmin=-4.0, vmax=4.0)
    assert_cells(ax, [[signed((v + 4) / 8, RED) for v in values[0]]])
    ax = al.heatmap(values, ["q"], list("abc"), kind="value", vmax=4.0)      # vmin: -2, the largest size
    assert_cells(ax, [[signed((v + 2) / 6, ROLE_HEX["value"]) for v in values[0]]])   # 1.0: white


def test_all_zero_scores_are_white_and_read_0_00():
    ax = al.heatmap(np.zeros((1, 2)), ["q"], ["a", "b"], kind="scores")
    assert_cells(ax, [[WHITE, WHITE]])
    assert [t.get_text() for t in ax.texts] == ["0.00", "0.00"]
    assert ax.figure.axes[1].get_ylim() == (-1.0, 1.0)                  # the scale: -1 to 1


def test_no_number_reads_minus_zero():
    ax = al.heatmap(np.array([[-0.001, -0.5, 0.004, -0.0]]), ["q"], list("abcd"), kind="scores")
    assert [t.get_text() for t in ax.texts] == ["0.00", "-0.50", "0.00", "0.00"]
    ax = al.heatmap(np.array([[-0.04, -0.06]]), ["q"], ["a", "b"], kind="scores", fmt=".1f")
    assert [t.get_text() for t in ax.texts] == ["0.0", "-0.1"]


# ------------------------------------------------------------------ plain input: greys
def test_input_that_is_never_negative_starts_at_white():
    values = np.array([[0.0, 0.5, 2.0]])                                 # 0 is white, 2 is the darkest
    ax = al.heatmap(values, ["x"], list("abc"), kind="input")
    assert_cells(ax, [[GREYS(v / 2)[:3] for v in values[0]]])
    ax = al.heatmap(values + 0.5, ["x"], list("abc"), kind="input")   # 0.5 to 2.5: 0 is still white
    assert_cells(ax, [[GREYS((v + 0.5) / 2.5)[:3] for v in values[0]]])


def test_input_with_negatives_is_centred_on_grey():
    values = np.array([[-1.0, 0.0, 2.0]])                                # -2 white, 0 mid grey, 2 darkest
    ax = al.heatmap(values, ["x"], list("abc"), kind="input")
    assert_cells(ax, [[GREYS((v + 2) / 4)[:3] for v in values[0]]])


# ------------------------------------------------------------------ the colour of a number (WCAG 2)
def test_the_number_takes_black_or_white_whichever_contrasts_more():
    rng = np.random.default_rng(1)
    greys = [(g, g, g) for g in np.linspace(0, 1, 101)]
    for colour in [*greys, *rng.random((300, 3))]:
        assert to_rgb(heatmaps.text_color(tuple(colour))) == better_text(colour), colour


def test_the_switch_from_white_to_black_numbers_is_at_luminance_0_179():
    # black and white contrast equally where (L + 0.05)² = 1.05 × 0.05, at L = 0.1791
    for lum, expected in ((0.170, "w"), (0.175, "w"), (0.183, "k"), (0.19, "k")):
        g = 1.055 * lum ** (1 / 2.4) - 0.055                       # the grey of that luminance
        assert abs(luminance((g, g, g)) - lum) < 1e-9
        assert to_rgb(heatmaps.text_color((g, g, g))) == to_rgb(expected), lum


def test_new_values_repaint_the_cells_the_numbers_and_their_colours():
    ax = al.heatmap(np.zeros((2, 2)), ["p", "q"], ["a", "b"])
    new = np.array([[1.0, 0.0], [0.3, 0.7]])
    heatmaps.set_heatmap(ax, new, ".2f")
    assert_cells(ax, [[PURPLES(v)[:3] for v in row] for row in new])
    assert [t.get_text() for t in ax.texts] == ["1.00", "0.00", "0.30", "0.70"]
    heatmaps.set_heatmap(ax, -new / 10, ".1f")
    assert [t.get_text() for t in ax.texts] == ["-0.1", "0.0", "0.0", "-0.1"]


# ------------------------------------------------------------------ panels side by side, the legend
def test_panels_side_by_side_share_the_rows_and_have_no_colour_bars():
    weights = np.array([[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]])
    query = np.array([[1.0, -1.0], [0.5, 0.0]])
    fig = al.heatmap_row([(weights, "weights", "w", ["a", "b", "c"]), (query, "query", "Q", ["d₁", "d₂"])],
                         ["it", "because"])
    assert len(fig.axes) == 2
    left, right = fig.axes
    np.testing.assert_allclose(fig.get_size_inches(), [0.8 * (3.6 + 2.6) + 1, 1.3 + 0.55 * 2])
    np.testing.assert_allclose(left.get_subplotspec().get_gridspec().get_width_ratios(), [3.6, 2.6])
    assert [(a.get_title(), a.get_xlabel(), a.get_ylabel()) for a in fig.axes] == [("w", "", ""),
                                                                                   ("Q", "", "")]
    assert words(left.get_yticklabels()) == ["it", "because"]
    assert words(right.get_xticklabels()) == ["d₁", "d₂"]
    assert_cells(left, [[PURPLES(v)[:3] for v in row] for row in weights])
    assert_cells(right, [[signed((v + 1) / 2, ROLE_HEX["query"]) for v in row] for row in query])
    pixels = drawn(fig)
    assert left.get_window_extent().x1 < min(t.get_window_extent().x0 for t in right.get_yticklabels())
    assert pixels.shape[0] - 1 > fig.axes[0].title.get_window_extent().y1   # the titles are not cut off
    fig = al.heatmap_row([(weights, "weights", "w", ["a", "b", "c"])], ["it", "cat"], height=5)
    np.testing.assert_allclose(fig.get_size_inches(), [0.8 * 3.6 + 1, 5])


def test_the_legend_shows_each_roles_colour_the_scores_red_and_the_weight_scale():
    """Lesson 00 §4's key: one swatch per role, one in the red of a positive score (RED, the top of every
    kind='scores' map), and the fixed 0-1 weight scale."""
    fig = al.role_legend()
    pixels = drawn(fig)
    np.testing.assert_allclose(fig.get_size_inches(), [10, 1.3])
    swatches, scale = fig.axes[:4], fig.axes[4]
    titles = ("query Q", "key K", "value V", "scores S")
    for ax, top, title in zip(swatches, [*ROLE_HEX.values(), RED], titles):
        np.testing.assert_allclose(pixel(ax, pixels, 0.5, 0.5), to_rgb(top), atol=TOL)
        assert ax.get_title() == title and ax.title.get_fontsize() == 14 and not ax.axison, title
    for x in (0.05, 0.5, 0.95):
        np.testing.assert_allclose(pixel(scale, pixels, x, 0.5), PURPLES(x)[:3], atol=TOL)
    assert scale.get_title() == "attention weight: 0 … 1" and scale.title.get_fontsize() == 14
    assert list(scale.get_xticks()) == [0, 0.5, 1] and scale.get_xlim() == (0, 1)
    assert {t.get_fontsize() for t in scale.get_xticklabels()} == {12}
    left = scale.yaxis.get_major_ticks()[0]
    assert not left.tick1line.get_visible() and not left.label1.get_visible()   # no marks beside the scale
    assert scale.axison and words(scale.get_xticklabels()) == ["0.0", "0.5", "1.0"]
    inside(fig, [a.title for a in fig.axes] + scale.get_xticklabels())
    assert abs(scale.get_window_extent().width / swatches[0].get_window_extent().width - 3) < 0.1   # 3 : 1
    ratios = fig.axes[0].get_subplotspec().get_gridspec().get_width_ratios()
    np.testing.assert_allclose(ratios, [1, 1, 1, 1, 3])


def test_subscripts():
    assert heatmaps.subscript(12) == "₁₂"
    assert heatmaps.subscript(3456789) == "₃₄₅₆₇₈₉"
    assert heatmaps.subscript(0) == "₀"


# ------------------------------------------------------------------ thumbnails: every head at once
def test_thumbnails_lay_heads_down_and_layers_across_with_gaps_between():
    w = np.random.default_rng(0).random((2, 3, 2, 3))                       # 2 layers, 3 heads, 2 × 3
    _, ax = plt.subplots(figsize=(4, 4))
    image, opened = heatmaps.thumbnails(ax, w, {})
    assert opened is None and ax.get_legend() is None and len(ax.patches) == 0
    mosaic = np.asarray(image.get_array(), dtype=float)
    assert mosaic.shape == (3 * 2 + 2 * 2, 2 * 3 + 2)                         # gaps of 2 cells
    for layer in range(2):
        for head in range(3):
            r, c = 4 * head, 5 * layer
            np.testing.assert_array_equal(mosaic[r:r + 2, c:c + 3], w[layer, head])
    assert np.isnan(mosaic[2:4]).all() and np.isnan(mosaic[:, 3:5]).all()
    assert image.get_clim() == (0.0, 1.0) and image.get_cmap().name == "Purples"
    assert list(ax.get_xticks()) == [1, 6] and words(ax.get_xticklabels()) == ["0", "1"]
    assert list(ax.get_yticks()) == [0.5, 4.5, 8.5] and words(ax.get_yticklabels()) == ["0", "1", "2"]
    assert {t.get_fontsize() for t in ax.get_xticklabels()} == {10}
    assert {t.get_fontsize() for t in ax.get_yticklabels()} == {12}
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("layer", "head")
    assert ax.xaxis.label.get_fontsize() == 13 and ax.yaxis.label.get_fontsize() == 13
    assert ax.xaxis.get_major_ticks()[0].tick1line.get_markersize() == 0
    assert not any(side.get_visible() for side in ax.spines.values())
    assert ax.get_xlim() == (-2, 9) and ax.get_ylim() == (11, -2)      # half a gap and a cell of room
    assert ax.get_title() == "every head's weights, 2 queries × 3 keys each (0 to 1)"
    assert ax.title.get_fontsize() == 14
    pixels = drawn(ax.figure)
    np.testing.assert_allclose(pixel(ax, pixels, 5, 4), PURPLES(w[1, 1, 0, 0])[:3], atol=TOL)
    np.testing.assert_allclose(pixel(ax, pixels, 3.5, 4), WHITE, atol=TOL)    # a gap is blank


def test_thumbnail_gaps_and_frames():
    assert [heatmaps.thumbnail_gap(n) for n in (1, 4, 10, 12, 16, 40)] == [2, 2, 2, 3, 4, 10]
    # layer 1, head 2 of (3, 4) thumbnails with gaps of 2: the cells span x 5.5..9.5 and y 9.5..12.5
    assert heatmaps.thumbnail_box(1, 2, 3, 4) == ((4.5, 8.5), 6, 5)
    assert heatmaps.thumbnail_box(0, 0, 12, 12) == ((-2.0, -2.0), 15, 15)


def test_picked_heads_are_framed_each_in_its_own_way_and_the_open_head_in_red():
    w = np.full((3, 3, 4, 4), 0.25)
    picks = {f"p{i}": (i % 3, i // 3) for i in range(9)}
    _, ax = plt.subplots(figsize=(5, 5))
    _, opened = heatmaps.thumbnails(ax, w, picks, open_head=(2, 1), title="all heads")
    frames = ax.patches[:9]
    expected = [("#333333", "--"), ("#CC79A7", ":"), ("#E69F00", "-."), ("#333333", ":"), ("#CC79A7", "-."),
                ("#E69F00", "--"), ("#333333", "-."), ("#CC79A7", "--"), ("#E69F00", ":")]
    drawn_as = [(f.get_edgecolor()[:3], f.get_linestyle()) for f in frames]
    assert drawn_as == [(to_rgb(c), s) for c, s in expected]
    for i, frame in enumerate(frames):
        layer, head = i % 3, i // 3                                     # gaps of 2 around 4 × 4 cells
        assert (frame.get_xy(), frame.get_width(), frame.get_height()) == (
            (6 * layer - 1.5, 6 * head - 1.5), 6, 6)
        assert not frame.get_fill() and frame.get_linewidth() == 1.8
    assert opened is ax.patches[9] and len(ax.patches) == 10
    assert to_rgb(opened.get_edgecolor()) == to_rgb("#b00020") and opened.get_linestyle() == "solid"
    assert (opened.get_xy(), opened.get_linewidth(), opened.get_fill()) == ((10.5, 4.5), 4.0, False)
    legend = ax.get_legend()
    assert words(legend.get_texts()) == [f"p{i}: layer {i % 3}, head {i // 3}" for i in range(9)] + [
        "open: the heatmap above"]
    assert {t.get_fontsize() for t in legend.get_texts()} == {12} and not legend.get_frame_on()
    assert ax.get_title() == "all heads"
    ax.figure.canvas.draw()
    boxes = [t.get_window_extent() for t in legend.get_texts()]
    assert len({round(b.y0) for b in boxes}) == 1                          # one row of entries
    below = ax.get_window_extent().y0 - 0.1 * ax.get_window_extent().height   # a tenth of the axes below,
    pad = 0.5 * 12 * 100 / 72                                     # less its pad: half a 12-pt font, in pixels
    assert abs(legend.get_window_extent().y1 - (below - pad)) < 1
    centre = (ax.get_window_extent().x0 + ax.get_window_extent().x1) / 2
    assert abs((legend.get_window_extent().x0 + legend.get_window_extent().x1) / 2 - centre) < 2


# ------------------------------------------------------------------ the doors' words
def test_a_matrix_of_the_wrong_shape_is_named_in_the_error():
    with pytest.raises(ValueError, match=r"^values has shape \(3,\) \(1-D\): expected a 2-D array \(rows, "):
        al.heatmap(np.full(3, 0.5), ["q"], ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"^values has shape \(3,\) \(1-D\): expected a 2-D array"):
        al.heatmap_row([(np.full(3, 0.5), "weights", "w", ["a", "b", "c"])], ["q"])


def test_a_tenth_picked_head_is_refused_not_left_unframed():
    # nine (colour, dash) pairs frame nine picks; a tenth pick was silently left without frame or legend entry
    w = np.full((2, 5, 2, 2), 0.5)
    picks = {f"p{i}": (i % 2, i // 2) for i in range(10)}
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"^10 heads picked: expected at most 9"):
        heatmaps.thumbnails(ax, w, picks)


# ------------------------------------------------------------------ built without painting
def test_a_heatmap_is_laid_out_but_not_painted_while_seaborn_checks_its_labels(monkeypatch):
    """seaborn's check of overlapping tick labels still turns crowded word labels upright and leaves
    sparse ones level, with no word painted while the figure is built; the canvas's draw is its own
    again afterwards."""
    from matplotlib.backends.backend_agg import RendererAgg
    painted = []
    paint = RendererAgg.draw_text

    def counted(renderer, gc, x, y, s, *args, **kwargs):
        painted.append(s)
        return paint(renderer, gc, x, y, s, *args, **kwargs)

    monkeypatch.setattr(RendererAgg, "draw_text", counted)
    words = [f"token{i:02d}" for i in range(24)]
    fig, (crowded, sparse) = plt.subplots(2, 1, figsize=(6, 6))
    heatmaps.heatmap(np.eye(24), words, words, ax=crowded, cbar=False, annot=False)
    heatmaps.heatmap(np.eye(2), ["a", "b"], ["a", "b"], ax=sparse, cbar=False)
    assert painted == []
    assert {t.get_rotation() for t in crowded.get_xticklabels()} == {90.0}
    assert {t.get_rotation() for t in sparse.get_xticklabels()} == {0.0}
    assert "draw" not in vars(fig.canvas)
    fig.canvas.draw()
    assert "token23" in painted and "1.00" in painted


def test_the_numbers_stay_in_their_cells_and_out_of_the_layout():
    """The layout leaves the numbers out (they are not measured at every draw): each number's box lies
    inside its own cell, so the laid-out figure and its pixels are those of a layout that measures them."""
    words = ["the", "cat", "sat"]
    values = np.array([[0.25, 0.5, 0.25], [1.0, 0.0, 0.0], [0.1, 0.2, 0.7]])
    pictures = []
    for measured in (False, True):
        fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
        heatmaps.heatmap(values, words, words, ax=ax)
        assert len(ax.texts) == 9 and not any(t.get_in_layout() for t in ax.texts)
        heatmaps.set_heatmap(ax, values[::-1], ".2f")
        assert not any(t.get_in_layout() for t in ax.texts)        # and after new values
        if measured:
            for t in ax.texts:
                t.set_in_layout(True)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for k, t in enumerate(ax.texts):                                # cell (k // 3, k % 3), in pixels
            cell = ax.transData.transform([(k % 3, k // 3), (k % 3 + 1, k // 3 + 1)])
            box = t.get_window_extent(renderer)
            assert cell[:, 0].min() < box.x0 < box.x1 < cell[:, 0].max(), (t.get_text(), box, cell)
            assert cell[:, 1].min() < box.y0 < box.y1 < cell[:, 1].max(), (t.get_text(), box, cell)
        pictures.append(np.asarray(fig.canvas.buffer_rgba()).copy())
        plt.close(fig)
    assert np.array_equal(*pictures)


def test_while_a_panel_is_added_the_numbers_already_drawn_are_not_measured(monkeypatch):
    """seaborn lays the figure out inside each heatmap call: the numbers of the panels already there sit
    out of the layout, so they are hidden meanwhile (never measured) and shown again afterwards."""
    import matplotlib.text
    measured = []
    layout = matplotlib.text.Text._get_layout

    def counted(text, renderer):
        measured.append(text.get_text())
        return layout(text, renderer)

    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 3), layout="constrained")
    fig.canvas.draw()                                   # an Agg canvas, as in a notebook
    heatmaps.heatmap(np.array([[0.25, 0.75], [0.5, 0.5]]), ["a", "b"], ["a", "b"], ax=left, cbar=False)
    left.texts[3].set_visible(False)                    # a number hidden on purpose stays hidden
    monkeypatch.setattr(matplotlib.text.Text, "_get_layout", counted)
    heatmaps.heatmap(np.array([[0.125, 0.875], [1.0, 0.0]]), ["a", "b"], ["c", "d"], ax=right, cbar=False,
                     fmt=".3f")
    assert measured and "c" in measured                 # seaborn's layout ran, with the new panel's labels
    assert not {"0.25", "0.75", "0.50"} & set(measured), measured   # the first panel's numbers: not measured
    assert [t.get_visible() for t in (*left.texts, *right.texts)] == [True] * 3 + [False] + [True] * 4
    measured.clear()
    fig.canvas.draw()
    assert {"0.25", "0.75", "0.50", "0.125", "0.875"} <= set(measured)    # painted: every number shown
