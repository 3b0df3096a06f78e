"""The lessons' pictures of 02-05 (plots.py), as a student sees them: every drawn line's numbers, every
block's numbers and colours, every word, arrow, title, label and size, compared with values written or
worked out here from inputs built by hand (never with the module's own output)."""

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgba

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import attention_lab as al
from attention_lab import alt_text
from attention_lab.plots import is_identity, label_nonzero

QUERY, KEY, VALUE = "#0072B2", "#D55E00", "#009E73"          # the roles' colours, as the lessons name them
DARK, PINK = "#333333", "#CC79A7"                            # lines that are not a role


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def same_colour(a, b) -> bool:
    return np.allclose(to_rgba(a), to_rgba(b))


def near(a, b) -> bool:
    """Two lists of points (or of pairs of points) equal to 1e-9."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, atol=1e-9)


def line_of(line):
    """(x, y, marker, linestyle, colour, label) of a drawn line."""
    return (list(line.get_xdata()), list(line.get_ydata()), line.get_marker(), line.get_linestyle(),
            to_rgba(line.get_color()), line.get_label())


def sizes(ax):
    """The font sizes a student reads on a panel: title, x label, y label, first x and y tick labels."""
    return (ax.title.get_size(), ax.xaxis.label.get_size(), ax.yaxis.label.get_size(),
            ax.get_xticklabels()[0].get_size(), ax.get_yticklabels()[0].get_size())


def test_the_scaling_chart_draws_each_column_of_the_table():
    d = np.array([1.0, 4.0, 16.0])
    table = {"d_k": d, "std_unscaled": np.array([1.0, 2.1, 3.9]), "std_scaled": np.array([1.0, 1.05, 0.98]),
             "max_weight_unscaled": np.array([0.4, 0.7, 0.95]),
             "max_weight_scaled": np.array([0.4, 0.45, 0.44])}
    fig = al.plot_scaling(table)
    a, b = fig.axes
    side_by_side = [(1, 2, 0, 0), (1, 2, 1, 1)]                      # one row, two panels
    assert [ax.get_subplotspec().get_geometry() for ax in (a, b)] == side_by_side
    assert [line_of(ln) for ln in a.lines] == [
        ([1, 4, 16], [1.0, 2.1, 3.9], "o", "-", to_rgba(DARK), "q·k (unscaled)"),
        ([1, 4, 16], [1.0, 1.05, 0.98], "s", "-", to_rgba(PINK), "q·k / √d_k"),
        ([1, 4, 16], [1, 2, 4], "None", ":", to_rgba("0.4"), "√d_k")]
    assert [line_of(ln) for ln in b.lines] == [
        ([1, 4, 16], [0.4, 0.7, 0.95], "o", "-", to_rgba(DARK), "unscaled"),
        ([1, 4, 16], [0.4, 0.45, 0.44], "s", "-", to_rgba(PINK), "scaled by 1/√d_k")]
    assert (a.get_xscale(), a.get_yscale(), b.get_xscale(), b.get_yscale()) == ("log", "log", "log", "linear")
    assert b.get_ylim() == pytest.approx((0, 1.02))
    assert (a.get_xlabel(), a.get_ylabel()) == ("d_k", "spread (std) of the scores")
    assert (b.get_xlabel(), b.get_ylabel()) == ("d_k", "largest softmax weight (mean)")
    assert (a.get_title(), b.get_title()) == ("scores grow like √d_k", "unscaled softmax becomes one-hot")
    for ax in (a, b):
        assert sizes(ax) == (14, 13, 13, 12, 12)
        assert [t.get_size() for t in ax.get_legend().get_texts()] == [12] * len(ax.lines)
    assert [t.get_text() for t in a.get_legend().get_texts()] == ["q·k (unscaled)", "q·k / √d_k", "√d_k"]
    assert list(fig.get_size_inches()) == [11, 3.8]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def test_the_cost_chart_draws_both_forms_and_says_which_is_slower():
    table = {"n": np.array([4, 64, 1024]), "loop_s": np.array([0.01, 0.2, 5.0]),
             "matrix_s": np.array([0.001, 0.002, 0.05])}
    fig = al.plot_cost(table)
    (ax,) = fig.axes
    assert [line_of(ln) for ln in ax.lines] == [
        ([4, 64, 1024], [0.01, 0.2, 5.0], "o", "-", to_rgba(DARK), "loop (attend_one per token)"),
        ([4, 64, 1024], [0.001, 0.002, 0.05], "s", "-", to_rgba(PINK), "matrix form")]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("number of tokens n", "seconds for all n outputs")
    assert ax.get_title() == "the same numbers, computed two ways"
    assert (ax.title.get_size(), ax.xaxis.label.get_size(), ax.yaxis.label.get_size()) == (14, 13, 13)
    assert [t.get_size() for t in ax.get_legend().get_texts()] == [12, 12]
    assert list(fig.get_size_inches()) == [6.5, 4]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert alt_text.describe_figure(fig) == (
        "Figure. “the same numbers, computed two ways”: a line chart on log scales of the seconds for all "
        "n outputs against the number of tokens n, from 4 to 1024, for the loop (attend_one per token) and "
        "the matrix form; at every n the loop takes longer (the times are this computer's, measured when "
        "the lesson ran).")
    tie = al.plot_cost({"n": np.array([4, 64]), "loop_s": np.array([0.5, 1.0]),
                        "matrix_s": np.array([0.5, 0.1])})
    assert "the loop is not slower at every n" in alt_text.describe_figure(tie)   # equal at n = 4


def test_the_decoding_cost_chart_names_its_sizes_when_the_table_has_them():
    table = {"t": np.array([1, 2, 3]), "no_cache": np.array([10, 40, 90]), "cache": np.array([10, 20, 30])}
    fig = al.plot_decoding_cost(table)
    (ax,) = fig.axes
    assert [line_of(ln) for ln in ax.lines] == [
        ([1, 2, 3], [10, 40, 90], "o", "-", to_rgba(DARK), "recompute every step"),
        ([1, 2, 3], [10, 20, 30], "s", "-", to_rgba(PINK), "with a KV cache")]
    assert (ax.get_xscale(), ax.get_yscale()) == ("linear", "log")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("step t (tokens so far)", "multiply-adds in step t")
    assert ax.get_title() == "work per generated token: one head\n(no W_O, no feed-forward network)"
    assert (ax.title.get_size(), ax.xaxis.label.get_size(), ax.yaxis.label.get_size()) == (14, 13, 13)
    assert [t.get_size() for t in ax.get_legend().get_texts()] == [12, 12]
    assert list(fig.get_size_inches()) == [6.5, 4]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    sized = al.plot_decoding_cost({**table, "d": 64, "d_k": 16}).axes[0].get_title()
    assert sized == "work per generated token: one head, d_k = 16, d = 64\n(no W_O, no feed-forward network)"
    assert al.plot_decoding_cost({**table, "d": 64}).axes[0].get_title().startswith(
        "work per generated token: one head\n")                      # d without d_k: no sizes
    assert al.plot_decoding_cost({**table, "d_k": 16}).axes[0].get_title().startswith(
        "work per generated token: one head\n")


def test_a_projection_is_the_identity_only_when_square_and_equal_to_it():
    assert is_identity(np.eye(3)) and is_identity(np.eye(1))
    assert not is_identity(np.eye(3, 4)) and not is_identity(np.eye(4, 3))
    assert not is_identity(2 * np.eye(3)) and not is_identity(np.eye(3)[::-1])
    assert not is_identity(np.eye(2) + np.array([[0, 1e-12], [0, 0]]))


def test_the_block_diagram_boxes_arrows_and_residuals():
    fig = al.plot_block()
    (ax,) = fig.axes
    boxes = [t for t in ax.texts if t.get_bbox_patch() is not None]
    words = ["x\n(n, d)", "LayerNorm", "multi-head\nattention", "+", "LayerNorm", "feed-\nforward", "+",
             "out\n(n, d)"]
    xs = [2 * i for i in range(8)]                                   # 0 to 14, every 2
    assert [t.get_text() for t in boxes] == words
    assert near([t.get_position() for t in boxes], [(x, 0) for x in xs])
    faces = ["0.95", "0.9", "white", "white", "0.9", "0.9", "white", "0.95"]
    for t, face in zip(boxes, faces):
        box = t.get_bbox_patch()
        assert same_colour(box.get_facecolor(), face), t.get_text()
        assert same_colour(box.get_edgecolor(), "0.3")
        assert box.get_linewidth() == 1.5 and t.get_size() == 13
        assert type(box.get_boxstyle()).__name__ == ("Circle" if t.get_text() == "+" else "Round")
        assert (t.get_ha(), t.get_va()) == ("center", "center")
    assert [t.get_bbox_patch().get_boxstyle().pad for t in boxes if t.get_text() != "+"] == [0.5] * 6
    arrows = [t for t in ax.texts if t.get_text() == ""]
    steps = arrows[:7]
    assert near([(a.xy, a.xyann) for a in steps], [((x + 2 - 0.75, 0), (x + 0.75, 0)) for x in xs[:7]])
    for a in steps:
        assert a.arrowprops == {"arrowstyle": "-|>", "color": "0.3"}
    residuals = arrows[7:]
    assert near([(a.xy, a.xyann) for a in residuals], [((6, 0.35), (0, 0.35)), ((12, 0.35), (6, 0.35))])
    for a in residuals:
        assert a.arrowprops == {"arrowstyle": "-|>", "color": PINK, "linewidth": 2,
                                "connectionstyle": "arc3,rad=-0.35"}
    letters = [t for t in ax.texts if t.get_text() in ("Q", "K", "V")]
    assert near([t.get_position() for t in letters], [(3.55, -0.85), (4, -0.85), (4.45, -0.85)])
    for t, colour in zip(letters, (QUERY, KEY, VALUE)):
        assert same_colour(t.get_color(), colour) and t.get_weight() == "bold" and t.get_size() == 13
        assert t.get_ha() == "center"
    said = [t for t in ax.texts if t.get_text() == "residual: add the input back"]
    assert near([t.get_position() for t in said], [(3, 1.45), (9, 1.45)])
    for t in said:
        assert same_colour(t.get_color(), PINK) and (t.get_size(), t.get_ha()) == (12, "center")
    assert len(ax.texts) == 8 + 9 + 3 + 2
    assert (ax.get_xlim(), ax.get_ylim()) == ((-1, 15), (-1.3, 1.9)) and not ax.axison
    assert ax.get_title() == ("one transformer block (pre-LayerNorm): z = x + MHA(LN(x)), "
                              "out = z + FFN(LN(z)); FFN(u) = ReLU(u W₁) W₂")
    assert ax.title.get_size() == 14
    assert list(fig.get_size_inches()) == [11, 3.4]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def test_the_encoder_decoder_picture_draws_one_arrow_per_weight_that_rounds_to_the_threshold():
    """Encoder words a b c at x = 0, 5, 10 (y 0), decoder words x y at x = 1, 9 (y 3). Cross weights: 0.044
    rounds to 0.04 (no arrow), 0.049 to 0.05 (an arrow); each arrow's colour is Purples at 0.35 + 0.65 w and
    its width 0.5 + 5 w (self-attention: 0.5 + 4 w); a word's weight on itself is a loop with its number."""
    S = np.array([[1.0, 0.0], [0.049, 0.951]])                       # 0.049 rounds to 0.05: an arc
    C = np.array([[0.7, 0.256, 0.044], [0.049, 0.0, 0.951]])
    fig = al.plot_encoder_decoder(["a", "b", "c"], ["x", "y"], S, C)
    (ax,) = fig.axes
    purple = plt.get_cmap("Purples")
    words = ax.texts[:5]
    assert [(t.get_text(), *t.get_position()) for t in words] == [("a", 0, 0), ("b", 5, 0), ("c", 10, 0),
                                                                  ("x", 1, 3), ("y", 9, 3)]
    for t, edge in zip(words, [KEY] * 3 + [QUERY] * 2):
        box = t.get_bbox_patch()
        assert same_colour(box.get_edgecolor(), edge) and same_colour(box.get_facecolor(), "white")
        assert box.get_linewidth() == 2 and box.get_boxstyle().pad == 0.4
        assert type(box.get_boxstyle()).__name__ == "Round"
        assert t.get_size() == 14 and (t.get_ha(), t.get_va()) == ("center", "center")
    cross = ax.texts[5:9]
    for arrow, (i, j) in zip(cross, [(0, 0), (0, 1), (1, 0), (1, 2)]):
        assert near([arrow.xy, arrow.xyann], [([0, 5, 10][j], 0.35), ([1, 9][i], 2.65)]), (i, j)
        props = arrow.arrowprops
        assert props["arrowstyle"] == "-|>" and props["shrinkA"] == 0 and props["shrinkB"] == 0
        assert np.allclose(props["color"], purple(0.35 + 0.65 * C[i, j]))
        assert np.isclose(props["linewidth"], 0.5 + 5 * C[i, j]) and arrow.get_text() == ""
    loop_x, arc, loop_y = ax.texts[9], ax.texts[11], ax.texts[12]
    assert near([loop_x.xy, loop_x.xyann, loop_y.xy, loop_y.xyann],
                [(1.22, 3.4), (0.78, 3.4), (9.22, 3.4), (8.78, 3.4)])
    for loop, w in ((loop_x, 1.0), (loop_y, 0.951)):
        assert loop.arrowprops["connectionstyle"] == "arc3,rad=-1.6"
        assert loop.arrowprops["arrowstyle"] == "-|>"
        assert loop.arrowprops["shrinkA"] == 0 and loop.arrowprops["shrinkB"] == 0
        assert np.allclose(loop.arrowprops["color"], purple(0.35 + 0.65 * w))
        assert np.isclose(loop.arrowprops["linewidth"], 0.5 + 4 * w)
    assert near([arc.xy, arc.xyann], [(1, 3.35), (9, 3.35)])        # y looks back at x: an arc above
    assert arc.arrowprops["connectionstyle"] == "arc3,rad=0.4"
    assert np.isclose(arc.arrowprops["linewidth"], 0.5 + 4 * 0.049)
    assert "shrinkA" not in arc.arrowprops
    assert np.allclose(arc.arrowprops["color"], purple(0.35 + 0.65 * 0.049))
    assert [t.get_text() for t in (loop_x, arc, loop_y)] == ["", "", ""]       # arrows only, no words
    numbers = [ax.texts[10], ax.texts[13]]
    assert [(t.get_text(), *t.get_position()) for t in numbers] == [("1.00", 1, 4.0), ("0.95", 9, 4.0)]
    for t in numbers:
        assert (t.get_ha(), t.get_va(), t.get_size()) == ("center", "bottom", 12)
        assert same_colour(t.get_color(), "0.2")
    sides = ax.texts[14:]
    assert [(t.get_text(), *t.get_position()) for t in sides] == [("decoder\n(queries)", -0.6, 3),
                                                                  ("encoder\n(keys, values)", -0.6, 0)]
    for t, colour in zip(sides, (QUERY, KEY)):
        assert (t.get_ha(), t.get_va(), t.get_size()) == ("right", "center", 13)
        assert same_colour(t.get_color(), colour)
    assert (ax.get_xlim(), ax.get_ylim()) == ((-3, 10.8), (-0.6, 5.2)) and not ax.axison
    assert ax.get_title() == ("cross-attention (down), causal self-attention (arcs; a loop = a word's "
                              "weight on itself)\nevery weight that rounds to 0.05 or more drawn, "
                              "thicker = larger")
    assert ax.title.get_size() == 14 and list(fig.get_size_inches()) == [12, 5.2]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    few = al.plot_encoder_decoder(["a", "b", "c"], ["x", "y"], S, C, threshold=0.6).axes[0]
    drawn = [t for t in few.texts if t.get_text() == ""]              # 0.7 and 0.951 down, and two loops
    assert len(drawn) == 4 and few.get_title().endswith("rounds to 0.6 or more drawn, thicker = larger")


def relative_luminance(rgba) -> float:
    """WCAG's relative luminance of a colour, from its definition."""
    def channel(c):
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def readable_on(rgba) -> str:
    """Black or white: whichever contrasts more with the cell's colour (WCAG ratios written out)."""
    lum = relative_luminance(rgba)
    return "k" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "w"


def mesh(ax):
    return np.asarray(ax.collections[0].get_array()).reshape(len(ax.get_yticks()), len(ax.get_xticks()))


def numbers_written(ax):
    """Each number written on a panel's cells: (text, x, y, colour, size)."""
    return [(t.get_text(), *t.get_position(), t.get_color(), t.get_size()) for t in ax.texts]


def test_the_flow_draws_x_q_k_v_scores_weights_and_y_with_the_non_zero_numbers_on_them():
    """X = [[1, 0], [0, 1], [1, 1]] (it, cat, sat), W_q = [[2, 0], [0, 0]], W_k = W_v = I, scale 0.5: Q has
    2 in the first column of 'it' and 'sat', the scores are Q Kᵀ / 2: rows [1, 0, 1], [0, 0, 0], [1, 0, 1]."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W_q = np.array([[2.0, 0.0], [0.0, 0.0]])
    fig = al.plot_flow(X, W_q, np.eye(2), np.eye(2), ["it", "cat", "sat"], ["animal", "verb"], scale=0.5)
    Q = np.array([[2.0, 0.0], [0.0, 0.0], [2.0, 0.0]])
    S = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    e = np.e
    A = np.array([[e, 1, e], [1, 1, 1], [e, 1, e]]) / np.array([[2 * e + 1], [3], [2 * e + 1]])
    top, bottom = fig.subfigs
    panels = top.axes + bottom.axes
    assert [ax.get_title() for ax in panels] == ["X (tokens)", "Q = X W_q", "K = X W_k", "V = X W_v",
                                                 "scores Q Kᵀ·scale", "weights = softmax", "Y = weights · V"]
    for ax, values in zip(panels, [X, Q, X, X, S, A, A @ X]):
        assert np.allclose(mesh(ax), values), ax.get_title()
    for ax, colour in zip(panels, ["0.15", QUERY, KEY, VALUE, "#a9373b", "0.15", VALUE]):
        assert same_colour(ax.title.get_color(), colour), ax.get_title()
    columns = [["animal", "verb"], ["animal?", "verb?"], ["animal", "verb"], ["animal", "verb"],
               ["it", "cat", "sat"], ["it", "cat", "sat"], ["animal", "verb"]]
    for i, (ax, cols) in enumerate(zip(panels, columns)):
        assert [t.get_text() for t in ax.get_xticklabels()] == cols
        assert all(t.get_rotation() == 90 for t in ax.get_xticklabels())
        rows = ["it", "cat", "sat"] if i in (0, 4) else ["", "", ""]  # each row's first panel names the words
        assert [t.get_text() for t in ax.get_yticklabels()] == rows
        assert all(t.get_rotation() == 0 for t in ax.get_yticklabels())   # the words stay upright
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("", "")
    # the numbers: every non-zero entry of every panel but the weights (their 0-1 scale is the legend's)
    assert numbers_written(panels[5]) == []
    for ax, values in zip(panels, [X, Q, X, X, S, None, A @ X]):
        if values is None:
            continue
        m = ax.collections[0]
        expected = [(f"{v:.2g}", c + 0.5, r + 0.5, readable_on(m.cmap(m.norm(v))), 12)
                    for (r, c), v in np.ndenumerate(values) if v != 0]
        assert numbers_written(ax) == expected, ax.get_title()
    assert numbers_written(panels[1])[0][:3] == ("2", 0.5, 0.5)       # two significant digits: 2, not 2.00
    assert numbers_written(panels[6])[0][0] == f"{e / (2 * e + 1) * 2:.2g}" == "0.84"
    assert {t[3] for ax in panels for t in numbers_written(ax)} == {"k", "w"}   # dark cells get white
    assert top._suptitle.get_text() == "X → Q, K, V (one colour per role)"
    assert bottom._suptitle.get_text() == "→ scores → softmax → weights (0–1) → weights · V = Y"
    assert top._suptitle.get_size() == bottom._suptitle.get_size() == 14
    assert list(fig.get_size_inches()) == pytest.approx([14, 2.2 + 0.9 * 3])
    assert top.axes[0].get_subplotspec().get_gridspec().get_width_ratios() == [2.5] * 4
    assert bottom.axes[0].get_subplotspec().get_gridspec().get_width_ratios() == [3.5, 3.5, 2.5]
    assert not any(ax.collections[0].colorbar for ax in panels) and len(fig.axes) == 7   # no colour bar
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def test_the_flow_counts_columns_where_a_projection_is_not_the_identity():
    """W_k (2 × 3) and W_v (a swap) are not the identity: K's, Q's and V's columns are counted from 0, and
    the scale is 1/√d_k = 1/√3 unless given."""
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    W = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    fig = al.plot_flow(X, W, W, np.array([[0.0, 1.0], [1.0, 0.0]]), ["a", "b"], ["f", "g"])
    panels = fig.subfigs[0].axes + fig.subfigs[1].axes
    columns = [["f", "g"], ["0", "1", "2"], ["0", "1", "2"], ["0", "1"], ["a", "b"], ["a", "b"], ["0", "1"]]
    assert [[t.get_text() for t in ax.get_xticklabels()] for ax in panels] == columns
    assert np.allclose(mesh(panels[4]), np.eye(2) / np.sqrt(3))       # Q Kᵀ = I, scaled
    assert fig.subfigs[0].axes[0].get_subplotspec().get_gridspec().get_width_ratios() == [2.5, 3.5, 3.5, 2.5]


def test_label_nonzero_writes_each_non_zero_entry_in_a_readable_colour():
    _, ax = plt.subplots()
    values = np.array([[0.0, -3.0], [0.123456, 250.0]])
    ax.pcolormesh(values, cmap="Greys", vmin=-300, vmax=300)
    label_nonzero(ax, values)
    m = ax.collections[0]
    assert numbers_written(ax) == [("-3", 1.5, 0.5, readable_on(m.cmap(m.norm(-3.0))), 12),
                                   ("0.12", 0.5, 1.5, readable_on(m.cmap(m.norm(0.123456))), 12),
                                   ("2.5e+02", 1.5, 1.5, "w", 12)]
    assert all((t.get_ha(), t.get_va()) == ("center", "center") for t in ax.texts)


def block_of(ax):
    """(first line of the title, the array drawn, colour map's name, vmin, vmax) of a matrix block."""
    image = ax.images[0]
    return (ax.get_title().split("\n")[0], np.asarray(image.get_array()), image.get_cmap().name,
            *image.get_clim())


def test_the_shapes_are_blocks_of_one_square_per_number_each_with_its_colour_bar():
    """Q (2 × 3), K (4 × 3), V (4 × 1), scale 1: QKᵀ (2 × 4) then A V (2 × 1), each block titled with its
    shape in its role's colour, a signed block's colour bar from -bound to bound through 0."""
    Q = np.array([[1.0, 0.0, -1.0], [0.0, 2.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    V = np.array([[1.0], [2.0], [3.0], [4.0]])
    fig = al.plot_shapes(Q, K, V, scale=1.0)
    S = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 2.0, 0.0, 2.0]])        # Q Kᵀ by hand
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    first, second = fig.subfigs
    blocks = [ax for ax in first.axes + second.axes if ax.images]
    drawn = [block_of(ax) for ax in blocks]
    assert [d[0] for d in drawn] == ["Q", "Kᵀ", "scores Q Kᵀ", "A = softmax(scores·scale)", "V", "Y = A V"]
    for d, values in zip(drawn, [Q, K.T, S, A, V, A @ V]):
        assert np.allclose(d[1], values), d[0]
    assert [ax.get_title().split("\n")[1] for ax in blocks] == ["(2, 3)", "(3, 4)", "(2, 4)", "(2, 4)",
                                                                "(4, 1)", "(2, 1)"]
    for ax, colour in zip(blocks, [QUERY, KEY, "0.15", "0.15", VALUE, VALUE]):
        assert same_colour(ax.title.get_color(), colour) and ax.title.get_size() == 14
    bounds = [2.0, 1.0, 2.0, None, 4.0, np.abs(A @ V).max()]          # a signed block: -bound .. bound
    for d, bound in zip(drawn, bounds):
        assert d[3:] == ((0.0, 1.0) if bound is None else pytest.approx((-bound, bound))), d[0]
    assert drawn[3][2] == "Purples"
    for ax, bound in zip(blocks, bounds):
        bar = ax.images[0].colorbar
        ticks = [0.0, 1.0] if bound is None else [-bound, 0.0, bound]
        assert list(bar.get_ticks()) == pytest.approx(ticks) and bar.orientation == "horizontal"
        assert bar.outline.get_linewidth() == 0
        assert bar.ax.xaxis.get_major_formatter()(ticks[-1]) == f"{ticks[-1]:.2g}"
        assert bar.ax.get_xticklabels()[0].get_size() == 11
        # the square cells: a white grid line between every two numbers, no tick labels
        rows, cols = ax.images[0].get_array().shape
        assert list(ax.xaxis.get_minor_locator().locs) == [c - 0.5 for c in range(cols + 1)]
        assert list(ax.yaxis.get_minor_locator().locs) == [r - 0.5 for r in range(rows + 1)]
        for axis, side in ((ax.xaxis, "bottom"), (ax.yaxis, "left")):
            minor = axis.get_tick_params(which="minor")
            assert (minor["length"], minor["label" + side], minor["gridOn"], minor["grid_color"],
                    minor["grid_linewidth"]) == (0, False, True, "white", 1)
            major = axis.get_tick_params(which="major")
            assert major["length"] == 0 and not major["label" + side] and not major["gridOn"]
        assert len(ax.lines) == 0                                    # no head boundaries here
    assert bar.ax.xaxis.get_major_formatter()(0.1234) == "0.12"
    signs = [ax for ax in first.axes + second.axes if ax.texts and not ax.images]
    assert [t.get_text() for ax in signs for t in ax.texts] == ["@", "=", "@", "="]
    assert all(t.get_size() == 22 and not ax.axison for ax in signs for t in ax.texts)
    assert all((t.get_ha(), t.get_va()) == ("center", "center") for ax in signs for t in ax.texts)
    assert near([t.get_position() for ax in signs for t in ax.texts], [(0.5, 0.5)] * 4)
    assert first.axes[0].get_subplotspec().get_gridspec().get_width_ratios() == [3, 0.8, 4, 0.8, 4]
    assert second.axes[0].get_subplotspec().get_gridspec().get_width_ratios() == [4, 0.8, 1, 0.8, 1]
    assert list(fig.get_size_inches()) == pytest.approx([12, 3.4 + 0.9 * (2 + 3)])
    assert fig._suptitle.get_text() == ("shapes: (m, d_k) @ (d_k, n) = (m, n), then (m, n) @ (n, d_v) = "
                                        "(m, d_v)")
    assert fig._suptitle.get_size() == 14
    heights = fig.subfigs[0]._subplotspec.get_gridspec().get_height_ratios()
    assert heights == [3 + 1.2, 2 + 1.2]                               # max(m, d_k) + 1.2, then m + 1.2
    tall = al.plot_shapes(np.ones((3, 1)), np.ones((2, 1)), np.ones((2, 1)))   # m = 3 queries, d_k = 1
    assert tall.subfigs[0]._subplotspec.get_gridspec().get_height_ratios() == [3 + 1.2, 3 + 1.2]


def test_the_heads_picture_cuts_q_k_v_into_heads_one_softmax_each_then_w_o():
    """X (3 words × 4), W_q = W_k = W_v = I, W_O a swap of the two halves, 2 heads of d_k = 2: head h's
    weights are the softmax of X[:, cols] X[:, cols]ᵀ / √2 on its own columns, worked out here."""
    X = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, -1.0]])
    W_O = np.roll(np.eye(4), 2, axis=1)
    fig = al.plot_heads(X, np.eye(4), np.eye(4), np.eye(4), W_O, 2, ["the", "cat", "sat"])
    top, middle, bottom = fig.subfigs
    heads = []
    for cols in (slice(0, 2), slice(2, 4)):
        S = X[:, cols] @ X[:, cols].T / np.sqrt(2)
        A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
        heads.append((A, A @ X[:, cols]))
    concat = np.hstack([out for _, out in heads])
    drawn = [block_of(ax) for ax in top.axes]
    assert [d[0] for d in drawn] == ["Q = X W_q", "K = X W_k", "V = X W_v"]
    assert all(np.array_equal(d[1], X) for d in drawn)
    for ax, colour in zip(top.axes, (QUERY, KEY, VALUE)):
        assert same_colour(ax.title.get_color(), colour) and ax.get_title().endswith("\n(3, 4)")
        assert list(ax.get_xticks()) == [0.5, 2.5]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["h1", "h2"]
        assert ax.get_xticklabels()[0].get_visible() and ax.get_xticklabels()[0].get_size() == 13
        assert [list(ln.get_xdata()) for ln in ax.lines] == [[1.5, 1.5]]     # the boundary between heads
        assert same_colour(ax.lines[0].get_color(), "black") and ax.lines[0].get_linewidth() == 3
    assert top._suptitle.get_text() == "split: head i (h1, h2, …) takes its own d_k = 2 columns"
    assert [ax.get_title() for ax in middle.axes] == ["head 1", "head 2"]
    assert [ax.get_subplotspec().get_geometry()[:2] for ax in middle.axes] == [(1, 2)] * 2   # side by side
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    for i, (ax, (A, _)) in enumerate(zip(middle.axes, heads)):
        assert np.allclose(mesh(ax), A)
        assert [t.get_text() for t in ax.get_yticklabels()] == (["the", "cat", "sat"] if i == 0 else [""] * 3)
        assert [t.get_text() for t in ax.get_xticklabels()] == ["the", "cat", "sat"]
        assert all(t.get_rotation() == 90 for t in ax.get_xticklabels())
        assert all(t.get_rotation() == 0 for t in ax.get_yticklabels())
        assert [t.get_text() for t in ax.texts] == [f"{w:.2f}" for w in A.ravel()]
        assert all(t.get_size() == 11 for t in ax.texts) and (ax.get_xlabel(), ax.get_ylabel()) == ("", "")
    assert middle._suptitle.get_text() == "attend: one softmax per head, on its own columns"
    blocks = [ax for ax in bottom.axes if ax.images]
    assert [block_of(ax)[0] for ax in blocks] == ["Concat(heads)", "W_O", "output"]
    for ax, values in zip(blocks, [concat, W_O, concat @ W_O]):
        assert np.allclose(block_of(ax)[1], values) and same_colour(ax.title.get_color(), VALUE)
    assert [[list(ln.get_xdata()) for ln in ax.lines] for ax in blocks] == [[[1.5, 1.5]], [], []]
    assert [t.get_text() for ax in bottom.axes for t in ax.texts] == ["@", "="]
    assert all(block.images[0].colorbar is None for block in top.axes + blocks)
    assert bottom._suptitle.get_text() == "concatenate in order, then W_O mixes the heads"
    assert top._suptitle.get_size() == middle._suptitle.get_size() == bottom._suptitle.get_size() == 14
    assert list(fig.get_size_inches()) == pytest.approx([13, 6.4])    # 4 + 2.4 · max(1, 3 words / 3)
    assert top._subplotspec.get_gridspec().get_height_ratios() == [1.3, 1.1, 1]


def test_with_four_heads_the_weights_carry_no_numbers_and_the_picture_grows_with_the_words():
    X = np.arange(16.0).reshape(4, 4) / 16
    fig = al.plot_heads(X, np.eye(4), np.eye(4), np.eye(4), np.eye(4), 4, list("abcd"))
    top, middle, _ = fig.subfigs
    assert [ax.get_title() for ax in middle.axes] == ["head 1", "head 2", "head 3", "head 4"]
    assert not any(ax.texts for ax in middle.axes)                    # more than 2 heads: colours only
    assert [list(ln.get_xdata()) for ln in top.axes[0].lines] == [[0.5, 0.5], [1.5, 1.5], [2.5, 2.5]]
    assert list(top.axes[0].get_xticks()) == [0, 1, 2, 3]
    assert top._suptitle.get_text() == "split: head i (h1, h2, …) takes its own d_k = 1 columns"
    assert list(fig.get_size_inches()) == pytest.approx([13, 7.2])    # 4 + 2.4 · 4 words / 3


def test_each_blocks_colour_bar_is_nine_tenths_its_width_twelve_times_longer_than_thick_close_under_it():
    """Drawn and laid out: under each block of the shapes picture, a bar 0.9 of the block's width (where the
    block fills its cell, centred), 12 times as long as it is thick, below the block by 0.04 of the block's
    height and a little more (the layout measures the pad on the block's whole cell); matplotlib's defaults
    (shrink 1, aspect 20, pad 0.15) would show otherwise."""
    Q = np.array([[1.0, 0.0, -1.0], [0.0, 2.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    fig = al.plot_shapes(Q, K, np.array([[1.0], [2.0], [3.0], [4.0]]), scale=1.0)
    fig.canvas.draw()
    blocks = [ax for ax in fig.axes if ax.images]
    assert len(blocks) == 6
    full = [ax.get_window_extent().width == pytest.approx(ax.get_position(original=True).transformed(
        ax.figure.transSubfigure).width) for ax in blocks]
    assert full == [True, True, True, False, False, False]              # the first row fills its cells
    for ax in blocks:
        bar = ax.images[0].colorbar.ax.get_window_extent()              # pixels at the figure's dpi
        cell = ax.get_position(original=True).transformed(ax.figure.transSubfigure)
        block = ax.get_window_extent()
        if block.width == pytest.approx(cell.width):                  # a block as wide as its cell
            assert bar.width == pytest.approx(0.9 * cell.width, rel=1e-6)
            assert (bar.x0 + bar.x1) / 2 == pytest.approx((cell.x0 + cell.x1) / 2, abs=1e-6)   # centred
        assert bar.width / bar.height == pytest.approx(12, rel=1e-6)
        assert 0.04 * cell.height <= block.y0 - bar.y1 <= 0.06 * cell.height


def test_with_three_heads_the_weights_carry_no_numbers_either():
    X = np.arange(9.0).reshape(3, 3) / 9
    fig = al.plot_heads(X, np.eye(3), np.eye(3), np.eye(3), np.eye(3), 3, list("abc"))
    _, middle, _ = fig.subfigs
    assert [ax.get_title() for ax in middle.axes] == ["head 1", "head 2", "head 3"]
    assert not any(ax.texts for ax in middle.axes)                    # more than 2 heads: colours only
