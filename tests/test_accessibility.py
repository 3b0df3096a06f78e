"""Lessons everyone can use: figures in words (alt text), and numbers on heatmaps readable at 4.5:1.

The expected texts below are written by hand from the matrices they describe; the contrast rule is
checked with WCAG 2's own formula, written here apart from the package's choice of colour.
"""

import html
import json
import re
from pathlib import Path
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb

import attention_lab as al
from attention_lab import alt_text
from attention_lab.heatmaps import WEIGHTS_CMAP, kind_style, role_cmap, text_color

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


# ------------------------------------------------------------------ contrast (WCAG 2, by its formula)
def luminance(colour) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


CMAPS = {"weights": plt.get_cmap(WEIGHTS_CMAP), "scores": kind_style("scores", np.array([[-1.0, 1.0]]))[0],
         "input": plt.get_cmap("Greys"), **{role: role_cmap(role) for role in ("query", "key", "value")}}


@pytest.mark.parametrize("kind", sorted(CMAPS))
def test_numbers_reach_4_5_to_1_over_the_whole_colour_map(kind):
    cmap = CMAPS[kind]
    worst = min(contrast(text_color(cmap(x)), cmap(x)) for x in np.linspace(0, 1, 1001))
    assert worst >= 4.5, f"{kind}: a number on a heatmap cell falls to {worst:.2f}:1"


def test_the_rule_holds_for_any_cell_colour_not_only_these_maps():
    rng = np.random.default_rng(0)
    cells = [*rng.random((2000, 3)), (0.46, 0.46, 0.46), (0.5, 0.5, 0.5)]   # grey 0.46: the worst case
    assert min(contrast(text_color(c), c) for c in cells) >= 4.5


def test_every_number_drawn_on_a_heatmap_is_readable():
    values = np.linspace(0, 1, 12).reshape(3, 4)
    ax = al.heatmap(values, ["a", "b", "c"], list("wxyz"))
    mesh = ax.collections[0]
    cells = mesh.cmap(mesh.norm(values.ravel()))
    assert len(ax.texts) == 12
    assert min(contrast(t.get_color(), c) for t in ax.texts for c in [cells[ax.texts.index(t)]]) >= 4.5
    plt.close(ax.figure)


# ------------------------------------------------------------------ alt text: what a figure says in words
def test_a_heatmap_in_words_names_rows_columns_and_each_rows_largest_entry():
    ax = al.heatmap(np.array([[0.1, 0.7, 0.2], [0.5, 0.5, 0.0]]), ["it", "cat"], ["a", "b", "c"],
                    title="who listens to whom")
    assert alt_text.describe_figure(ax.figure) == (
        "Figure. “who listens to whom”: a heatmap of 2 rows (query: it, cat) by 3 columns (key: a, b, c); "
        "the largest entry in each row: it → b 0.70; cat → a, b 0.50 (tie); values from 0.00 to 0.70.")
    plt.close(ax.figure)


def test_a_masked_heatmap_says_how_many_cells_are_blank():
    w = np.array([[1.0, np.nan], [0.25, 0.75]])
    ax = al.heatmap(np.nan_to_num(w), ["x", "y"], ["x", "y"], annot=False)
    ax.collections[0].set_array(np.ma.masked_invalid(w))
    said = alt_text.describe_figure(ax.figure)
    assert "; 1 cell masked (blank);" in said and "y → y 0.75" in said and "x → x 1.00" in said
    plt.close(ax.figure)


def test_a_line_chart_in_words():
    fig, ax = plt.subplots()
    ax.plot([0, 10, 20], [2.3, 0.9, 0.1], label="training loss")
    ax.set(xlabel="step", ylabel="loss", title="learning")
    assert alt_text.describe_figure(fig) == (
        "Figure. “learning”: a line chart of 1 line, loss against step; training loss: from 2.30 at 0.00 "
        "to 0.10 at 20.00 (lowest 0.10, highest 2.30).")
    plt.close(fig)


def test_a_bar_chart_and_a_sign_in_words():
    fig, (left, right) = plt.subplots(1, 2)
    left.barh(["sink", "previous"], [0.8, 0.05])
    right.text(0.5, 0.5, "@")
    right.set_axis_off()
    assert alt_text.describe_figure(fig) == (
        "Figure with 2 panels. 1) a bar chart of 2 bars: sink 0.80, previous 0.05. 2) the sign @.")
    plt.close(fig)


def test_reference_lines_bars_by_their_ticks_and_legends_in_words():
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([1, 2, 3], [3.0, 2.0, 1.0])
    left.axhline(3.18, label="uniform guess")
    left.axvline(2, label="_hidden")
    left.set(ylabel="loss")
    right.barh([1, 0], [0.5, 2.25])
    right.set_yticks([1, 0], ["none", "all seven"])
    right.set_xlabel("loss")
    right.barh([2], [1.0], label="seven")
    right.legend()
    assert alt_text.describe_figure(fig) == (
        "Figure with 2 panels. 1) a line chart of 1 line, loss against x; from 3.00 at 1.00 to 1.00 at "
        "3.00 (lowest 1.00, highest 3.00); a horizontal line at 3.18 (uniform guess); a vertical line at "
        "2.00. 2) a bar chart of 3 bars (loss): none 0.50, all seven 2.25, at 2 1.00; legend: seven.")
    plt.close(fig)


def test_swatches_a_colour_scale_equal_rows_and_a_grid_of_heatmaps_in_words():
    fig = al.role_legend()
    assert alt_text.describe_figure(fig) == (
        "Figure with 5 panels. 1) “query Q”: a swatch of blue. 2) “key K”: a swatch of red-orange. "
        "3) “value V”: a swatch of green. 4) “scores S”: a swatch of dark red. "
        "5) “attention weight: 0 … 1”: a colour scale from 0.00 to 1.00.")
    plt.close(fig)
    ax = al.heatmap(np.full((2, 2), 0.5), ["a", "b"], ["c", "d"])
    assert "the largest entry in each row: a: every entry 0.50; b: every entry 0.50" in \
        alt_text.describe_figure(ax.figure)
    plt.close(ax.figure)
    fig, ax = plt.subplots()
    grid = np.full((120, 120), np.nan)
    grid[:50, :50], grid[60:, 60:] = 0.25, 0.75
    ax.imshow(np.ma.masked_invalid(grid))
    ax.set_axis_off()
    assert alt_text.describe_figure(fig) == ("Figure. A grid of small heatmaps with blank gaps between them "
                                             "(120 × 120 pixels in all); values from 0.25 to 0.75.")
    plt.close(fig)


def test_every_panel_of_a_big_figure_names_its_largest_entry_only():
    fig, axes = plt.subplots(1, 4)
    for i, ax in enumerate(axes):
        w = np.eye(2) if i == 3 else np.array([[0.9, 0.1], [0.3, 0.7]]) * (i + 1) / 4
        al.heatmap(w, ["p", "q"], ["p", "q"], ax=ax, cbar=False, title=f"h{i}")
    said = alt_text.describe_figure(fig)
    assert said.startswith("Figure with 4 panels. 1) “h0”")
    assert said.count("the largest entry:") == 3 and "in each row" not in said
    assert "3) “h2”: a heatmap of 2 rows (query: p, q) by 2 columns (key: p, q); the largest entry: " \
           "p → p 0.68" in said                                              # 0.9 · 3/4 = 0.675
    assert "4) “h3”: a heatmap of 2 rows (query: p, q) by 2 columns (key: p, q); 2 entries tie for the " \
           "largest, 1.00: p → p, q → q; values from 0.00 to 1.00." in said  # a tie is never one winner
    plt.close(fig)


def test_ties_are_judged_as_they_are_spoken_and_repeated_words_get_their_place():
    ax = al.heatmap(np.array([[0.1333, 0.1286, 0.7381], [0.1254, 0.1258, 0.7488]]), ["the", "cat"],
                    ["the", "cat", "the"], kind="weights", title="t")
    said = alt_text.describe_figure(ax.figure)
    assert "3 columns (key: 0: the, 1: cat, 2: the)" in said and "the → 2: the 0.74" in said
    assert "cat → 2: the 0.75" in said
    plt.close(ax.figure)
    assert alt_text.row_best("q", np.array([0.1333, 0.1286, 0.05]), ["a", "b", "c"]) == "q → a, b 0.13 (tie)"
    assert [alt_text.number(v) for v in (-0.001, 0.000361, 98_400.0, 1190.4, -0.0)] == \
        ["-0.001", "0.00036", "98,400", "1,190", "0.00"]


def test_numbered_rows_and_columns_are_named_by_their_axis():
    ax = al.heatmap(np.array([[0.2, 0.9], [0.4, 0.1]]), ["0", "1"], ["0", "1"], kind="input",
                    xlabel="head", ylabel="layer")
    assert "the largest entry in each row: layer 0 → head 1 0.90; layer 1 → head 0 0.40" in \
        alt_text.describe_figure(ax.figure)
    plt.close(ax.figure)


def test_bars_either_way_with_a_missing_one_and_an_area_is_no_swatch():
    fig, (up, side_, area) = plt.subplots(1, 3)
    up.bar(["only"], [3.0])
    side_.barh(["a", "b", "c"], [np.nan, 2.0, 0.5], left=1.0)
    area.fill_between([0, 1, 2], [0, 1, 0])
    said = alt_text.describe_figure(fig)
    assert "1) a bar chart of 1 bar: only 3.00." in said
    assert "2) a bar chart of 3 bars, 1 of them missing (no value): b 2.00, c 0.50." in said
    assert "swatch" not in said
    plt.close(fig)


def test_a_chart_of_timings_says_what_holds_not_the_times():
    table = {"n": np.array([4, 1024]), "loop_s": np.array([0.001, 9.0]), "matrix_s": np.array([0.002, 0.1])}
    fig = al.plot_cost(table)
    assert alt_text.describe_figure(fig) == (
        "Figure. “the same numbers, computed two ways”: a line chart on log scales of the seconds for all "
        "n outputs against the number of tokens n, from 4 to 1024, for the loop (attend_one per token) and "
        "the matrix form; the loop is not slower at every n (the times are this computer's, measured when "
        "the lesson ran).")
    plt.close(fig)
    with pytest.raises(ValueError, match="non-empty alt text"):
        alt_text.say(plt.figure(), " ")
    plt.close("all")


def test_figure_html_is_the_png_with_its_words():
    ax = al.heatmap(np.array([[0.25, 0.75]]), ["q"], ["a", "b"], title='"quoted" & <odd>')
    page = alt_text.figure_html(ax.figure)
    alt = html.unescape(re.search(r'alt="([^"]*)"', page).group(1))
    assert alt == alt_text.describe_figure(ax.figure) and '“"quoted" & <odd>”' in alt
    assert page.startswith('<img src="data:image/png;base64,iVBORw0KGgo')   # the PNG signature, base64
    plt.close(ax.figure)


def test_install_survives_the_inline_backend_setting_its_formats():
    """IPython's select_figure_formats (run when the inline backend starts) clears every printer
    registered for Figure: the alt text must still be there after it."""
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.pylabtools import select_figure_formats
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    assert alt_text.install(shell)
    select_figure_formats(shell, {"png"})
    ax = al.heatmap(np.array([[1.0]]), ["q"], ["k"])
    data, _ = shell.display_formatter.format(ax.figure)
    assert 'alt="Figure. A heatmap of 1 row (query: q) by 1 column (key: k); the largest entry: q → k 1.00' \
        in data["text/html"]
    plt.close(ax.figure)


def test_install_outside_ipython_does_nothing():
    assert alt_text.install(SimpleNamespace()) is False


@pytest.mark.parametrize("bad, error", [((b"GIF89a", "x"), TypeError), ((b"\x89PNG", "  "), ValueError),
                                        (("\x89PNG", "x"), TypeError)])
def test_alt_image_refuses_what_is_not_a_png_with_words(bad, error):
    with pytest.raises(error, match=r"PNG|alt text"):
        alt_text.AltImage(*bad)


def test_describe_figure_refuses_what_is_not_a_figure():
    with pytest.raises(TypeError, match="expected a matplotlib Figure, got Axes"):
        alt_text.describe_figure(plt.subplots()[1])
    plt.close("all")


# ------------------------------------------------------------------ the explorers
def test_an_explorers_snapshot_and_live_image_say_what_they_show():
    ex = al.the_cat_sat()
    explorer = al.matrix_explorer(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    words = explorer.alt_text()
    assert words.startswith("Figure") and "heatmap" in words
    assert words.endswith("The numbers beside it: " + explorer.summary())
    page = explorer.snapshot()._repr_html_()
    assert html.unescape(re.search(r'alt="([^"]*)"', page).group(1)) == words
    assert f'data-alt="{html.escape(words, quote=True)}"' in explorer.numbers.value   # copied in the browser
    explorer.set(**{next(iter(explorer.sliders)): explorer.controls[0].high})
    assert explorer.alt_text() != words and "data-alt" in explorer.numbers.value     # redrawn, re-said
    naming = explorer.widget.children[-1]
    assert naming.layout.display == "none" and "aria-label" in naming.outputs[0]["data"]["text/html"]
    plt.close("all")


# ------------------------------------------------------------------ the stored lessons
def figure_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                yield i, out["data"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_stored_figure_has_words_not_a_file_name(path):
    count = 0
    for i, data in figure_outputs(path):
        count += 1
        page = "".join(data.get("text/html", ""))
        m = re.search(r'<img src="data:image/png;base64,[^"]+" alt="([^"]+)"', page)
        assert m, f"{path.name}, cell {i}: a figure is stored without alt text (an <img> with alt)"
        alt = html.unescape(m.group(1))
        assert alt.startswith("Figure") and len(alt) > 40 and not re.search(r"\.(png|jpg|svg)\b", alt), \
            f"{path.name}, cell {i}: its alt text does not say what the figure shows: {alt[:120]!r}"
    assert count > 0, f"{path.name} shows no figure"
