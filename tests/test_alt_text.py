"""alt_text.py: what a screen reader says for each kind of figure a lesson draws, word for word.

Every figure is built here, as the package's plotting functions and the lessons build them (token
heatmaps, line charts, bar charts, diagrams of words), and its whole alt text is compared with a text
written by hand from the numbers drawn. tests/test_accessibility.py holds the first examples and the
stored lessons' check; this file covers each function's branches.
"""

import base64
import io
import sys
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.image import imread

import attention_lab as al
from attention_lab import alt_text


def said(fig) -> str:
    """The figure's alt text; the figure is closed."""
    try:
        return alt_text.describe_figure(fig)
    finally:
        plt.close(fig)


def image(values, rows=None, cols=None, ylabel="", xlabel="", ax=None):
    """An imshow picture of a matrix with the given tick labels (none: no ticks at all)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(2, 2))
    ax.imshow(values)
    ax.set_yticks(range(len(rows or [])), rows or [])
    ax.set_xticks(range(len(cols or [])), cols or [])
    ax.set(ylabel=ylabel, xlabel=xlabel)
    return ax


# ------------------------------------------------------------------ heatmaps
def test_numbered_rows_and_columns_are_named_by_their_axis_with_signs_and_decimals():
    ax = al.heatmap(np.array([[0.2, 0.6], [0.9, 0.1]]), ["-1", "0"], ["0.5", "1.0"], kind="input",
                    xlabel="temperature", ylabel="offset (tokens)", cbar=False)
    assert said(ax.figure) == (
        "Figure. A heatmap of 2 rows (offset (tokens): -1, 0) by 2 columns (temperature: 0.5, 1.0); the "
        "largest entry in each row: offset -1 → temperature 1.0 0.60; offset 0 → temperature 0.5 0.90; "
        "values from 0.10 to 0.90.")


def test_values_set_later_as_one_flat_array_are_read_by_the_rows_and_columns():
    ax = al.heatmap(np.zeros((2, 3)), ["it", "cat"], ["a", "b", "c"], annot=False, cbar=False)
    ax.collections[0].set_array(np.array([0.1, 0.7, 0.2, 0.5, 0.5, 0.0]))
    assert said(ax.figure) == (
        "Figure. A heatmap of 2 rows (query: it, cat) by 3 columns (key: a, b, c); the largest entry in each "
        "row: it → b 0.70; cat → a, b 0.50 (tie); values from 0.00 to 0.70.")


def test_a_masked_matrix_of_whole_numbers_without_names():
    _, ax = plt.subplots(figsize=(2, 2))
    image(np.ma.masked_array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]]), ax=ax)
    assert said(ax.figure) == (
        "Figure. A heatmap of 2 rows by 2 columns; 1 cell masked (blank); the largest entry in each row: "
        "row 0 → column 0 1.00; row 1 → column 1 4.00; values from 1.00 to 4.00.")


def test_a_label_left_empty_leaves_the_rows_unnamed_and_an_empty_matrix_says_so():
    ax = image(np.array([[0.1, 0.2], [0.3, 0.4]]), ["a", ""], ["x", "y"], ylabel="query")
    assert said(ax.figure) == (
        "Figure. A heatmap of 2 rows (query) by 2 columns (x, y); the largest entry in each row: row 0 → y "
        "0.20; row 1 → y 0.40; values from 0.10 to 0.40.")
    ax = image(np.full((2, 2), np.nan), ["a", "b"], ["c", "d"])
    ax.set_title("padding only")
    assert said(ax.figure) == \
        "Figure. “padding only”: a heatmap of 2 rows (a, b) by 2 columns (c, d); every cell is empty."


def test_a_colour_scale_is_one_row_of_more_than_20_values_that_never_fall():
    ax = image(np.r_[0.0, np.linspace(0, 1, 20)][None, :])                  # 21 values, the first two equal
    assert said(ax.figure) == "Figure. A colour scale from 0.00 to 1.00."
    ax = image(np.linspace(0, 0.95, 20)[None, :])                            # 20 values: a heatmap
    assert said(ax.figure) == (
        "Figure. A heatmap of 1 row by 20 columns; the largest entry in each row: row 0 → column 19 0.95; "
        "values from 0.00 to 0.95.")


def test_twelve_rows_are_read_row_by_row_and_more_than_twelve_names_are_cut():
    w = np.tile([[1.0, 0.0], [0.0, 1.0]], (6, 1))
    ax = al.heatmap(w, [f"r{i}" for i in range(12)], ["a", "b"], annot=False, cbar=False)
    best = "; ".join(f"r{i} → {'ab'[i % 2]} 1.00" for i in range(12))
    assert said(ax.figure) == (
        "Figure. A heatmap of 12 rows (query: r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11) by 2 columns "
        f"(key: a, b); the largest entry in each row: {best}; values from 0.00 to 1.00.")
    w = np.zeros((2, 13))
    w[0, 3], w[1, 12] = 0.9, 0.8
    ax = al.heatmap(w, ["p", "q"], [f"c{j}" for j in range(13)], annot=False, cbar=False)
    assert said(ax.figure) == (
        "Figure. A heatmap of 2 rows (query: p, q) by 13 columns (key: c0, c1, c2, c3, c4, c5, c6, c7, c8, "
        "c9, c10, … (13 in all)); the largest entry in each row: p → c3 0.90; q → c12 0.80; values from 0.00 "
        "to 0.90.")


def test_a_big_masked_matrix_names_its_five_largest_entries_unless_it_is_a_grid_of_small_ones():
    w = np.full((101, 100), 0.01)                       # a causal map over 101 tokens, named on the rows
    w[np.triu_indices(101, 1, 100)] = np.nan            # 99 + 98 + … + 1 = 4950 cells above the diagonal
    w[100, 99] = 0.9
    ax = image(w, [f"t{i}" for i in range(101)], ylabel="query", xlabel="key")
    assert said(ax.figure) == (
        "Figure. A heatmap of 101 rows (query: t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, … (101 in all)) "
        "by 100 columns (key); 4950 cells masked (blank); the largest entries: t100 → column 99 0.90; t0 → "
        "column 0 0.01; t1 → column 0 0.01; t1 → column 1 0.01; t2 → column 0 0.01; values from 0.01 to "
        "0.90.")
    w = np.full((100, 101), 0.01)                       # named on the columns; the first one masked
    w[:, 0], w[0, 100] = np.nan, 0.9
    ax = image(w, cols=[f"c{j}" for j in range(101)], ylabel="query", xlabel="key")
    assert said(ax.figure) == (
        "Figure. A heatmap of 100 rows (query) by 101 columns (key: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, "
        "c10, … (101 in all)); 100 cells masked (blank); the largest entries: row 0 → c100 0.90; row 0 → c1 "
        "0.01; row 0 → c2 0.01; row 0 → c3 0.01; row 0 → c4 0.01; values from 0.01 to 0.90.")
    w = np.full((100, 100), 0.01)                       # 10,000 cells, no names: not yet a grid
    w[np.diag_indices(100)], w[99, 0] = np.nan, 0.9
    ax = image(w)
    assert said(ax.figure) == (
        "Figure. A heatmap of 100 rows by 100 columns; 100 cells masked (blank); the largest entries: row 99 "
        "→ column 0 0.90; row 0 → column 1 0.01; row 0 → column 2 0.01; row 0 → column 3 0.01; row 0 → "
        "column 4 0.01; values from 0.01 to 0.90.")
    w = np.full((73, 137), 0.5)                         # 73 · 137 = 10,001 cells, no names: a grid
    w[:, 60:70] = np.nan
    w[0, 0] = 0.25
    assert said(image(w).figure) == ("Figure. A grid of small heatmaps with blank gaps between them "
                                     "(73 × 137 pixels in all); values from 0.25 to 0.50.")


def test_images_without_numbers_are_passed_over_for_the_heatmap_drawn_with_them():
    from matplotlib.image import AxesImage
    expected = ("Figure. A heatmap of 2 rows by 2 columns; the largest entry in each row: row 0 → column 1 "
                "0.60; row 1 → column 0 0.90; values from 0.10 to 0.90.")
    w = np.array([[0.2, 0.6], [0.9, 0.1]])
    for before in ("a picture", "an empty image", "a mesh of the wrong size"):
        _, ax = plt.subplots(figsize=(2, 2))
        if before == "a picture":
            ax.imshow(np.ones((2, 2, 3)))               # an RGB picture: colours, not numbers
        elif before == "an empty image":
            ax.add_image(AxesImage(ax))                 # no values yet
        else:
            ax.pcolormesh(np.zeros((2, 3))).set_array(np.zeros(6))    # flat, and no ticks to shape it by
        image(w, ax=ax)
        assert said(ax.figure) == expected, before


def test_a_panel_without_row_names_takes_those_of_the_panel_beside_it():
    fig, axes = plt.subplots(1, 3, figsize=(4, 2))
    al.heatmap(np.array([[0.9, 0.1], [0.2, 0.8]]), ["the", "cat"], ["a", "b"], ax=axes[0], cbar=False,
               title="one", annot=False)
    al.heatmap(np.array([[0.3, 0.7], [0.6, 0.4]]), ["sat", "on"], ["a", "b"], ax=axes[1], cbar=False,
               title="two", annot=False)
    al.heatmap(np.array([[0.25, 0.5], [0.1, 0.2]]), ["?", "?"], ["a", "b"], ax=axes[2], cbar=False,
               title="three", annot=False)
    axes[2].set_yticks([])
    fig.suptitle("three heads")
    assert said(fig) == (
        "Figure “three heads” with 3 panels. 1) “one”: a heatmap of 2 rows (query: the, cat) by 2 columns "
        "(key: a, b); the largest entry in each row: the → a 0.90; cat → b 0.80; values from 0.10 to 0.90. "
        "2) “two”: a heatmap of 2 rows (query: sat, on) by 2 columns (key: a, b); the largest entry in each "
        "row: sat → b 0.70; on → a 0.60; values from 0.30 to 0.70. 3) “three”: a heatmap of 2 rows (query: "
        "the, cat) by 2 columns (key: a, b); the largest entry in each row: the → b 0.50; cat → b 0.20; "
        "values from 0.10 to 0.50.")


def test_four_panels_are_said_briefly_with_ties_cut_after_five_and_a_left_title():
    fig, axes = plt.subplots(1, 4, figsize=(6, 2))
    al.heatmap(np.array([[0.5, 0.5]]), ["q"], ["a", "b"], ax=axes[0], cbar=False, annot=False)
    eye = [f"p{i}" for i in range(7)]
    al.heatmap(np.eye(7), eye, eye, ax=axes[1], cbar=False, annot=False)
    al.heatmap(np.array([[0.2, 0.9]]), ["q"], ["a", "b"], ax=axes[2], cbar=False, annot=False)
    axes[3].plot([0, 1], [1, 0], label="train")
    axes[3].plot([0, 1], [2, 1], label="held out")
    axes[3].set_title("loss", loc="left")
    axes[3].legend()
    assert said(fig) == (
        "Figure with 4 panels. 1) a heatmap of 1 row (query: q) by 2 columns (key: a, b); every entry 0.50; "
        "values from 0.50 to 0.50. 2) a heatmap of 7 rows (query: p0, p1, p2, p3, p4, p5, p6) by 7 columns "
        "(key: p0, p1, p2, p3, p4, p5, p6); 7 entries tie for the largest, 1.00: p0 → p0, p1 → p1, p2 → p2, "
        "p3 → p3, p4 → p4, … (7 in all); values from 0.00 to 1.00. 3) a heatmap of 1 row (query: q) by 2 "
        "columns (key: a, b); the largest entry: q → b 0.90; values from 0.20 to 0.90. 4) “loss”: a line "
        "chart of 2 lines; train: from 1.00 at 0.00 to 0.00 at 1.00 (lowest 0.00, highest 1.00); held out: "
        "from 2.00 at 0.00 to 1.00 at 1.00 (lowest 1.00, highest 2.00); legend: train; held out.")


def test_one_panel_said_on_its_own_is_read_row_by_row():
    ax = al.heatmap(np.array([[0.9, 0.1], [0.2, 0.8]]), ["the", "cat"], ["a", "b"], cbar=False, annot=False)
    row_by_row = ("a heatmap of 2 rows (query: the, cat) by 2 columns (key: a, b); the largest entry in each "
                  "row: the → a 0.90; cat → b 0.80; values from 0.10 to 0.90")
    assert alt_text.describe_axes(ax) == row_by_row
    assert alt_text.describe_matrix(ax, np.array([[0.9, 0.1], [0.2, 0.8]])) == row_by_row
    plt.close(ax.figure)


# ------------------------------------------------------------------ line charts
def test_a_line_chart_with_tex_a_broken_title_and_two_points():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0.5, 0.25], label="$d_k$ = 16")
    ax.set(title="multi-\nhead  attention", xlabel="step", ylabel="$W_Q$ norm")
    assert said(fig) == (
        "Figure. “multi-head attention”: a line chart of 1 line, W_Q norm against step; d_k = 16: from 0.50 "
        "at 0.00 to 0.25 at 1.00 (lowest 0.25, highest 0.50).")


def test_a_line_chart_names_its_labelled_lines_and_skips_gaps_and_single_points():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1, 2], [np.nan] * 3, label="diverged")           # every value missing: nothing to say
    ax.plot([0, 1, 2], [np.nan, 2.0, 1.0], label="loss")          # the first value missing
    ax.plot([0, 1, 2], [3.0, 3.0, 3.0])                           # unlabelled: counted, not described
    ax.plot([2], [1.0], "o", label="you are here")                # one point: a mark, not a line
    ax.set_xlabel("step")
    assert said(fig) == ("Figure. A line chart of 3 lines, y against step; loss: from 2.00 at 1.00 to 1.00 "
                         "at 2.00 (lowest 1.00, highest 2.00).")


def test_unlabelled_lines_are_said_up_to_three_and_labelled_ones_up_to_six():
    fig, (left, right) = plt.subplots(1, 2, figsize=(4, 2))
    for i in range(4):
        left.plot([0, 1], [i, i + 1])
    left.set_ylabel("loss")
    for k in range(7):
        right.plot([0, 1], [k, 0], label=f"h{k}")
    first_three = "; ".join(f"from {i}.00 at 0.00 to {i + 1}.00 at 1.00 (lowest {i}.00, highest {i + 1}.00)"
                            for i in range(3))
    first_six = "; ".join(f"h{k}: from {k}.00 at 0.00 to 0.00 at 1.00 (lowest 0.00, highest {k}.00)"
                          for k in range(6))
    assert said(fig) == (f"Figure with 2 panels. 1) a line chart of 4 lines, loss against x; {first_three}. "
                         f"2) a line chart of 7 lines; {first_six}.")


def test_a_panel_with_only_a_mark_is_no_line_chart():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([1], [2], "o")
    ax.text(1, 2, "you are here")
    assert said(fig) == "Figure. A diagram with the words: you are here."


# ------------------------------------------------------------------ bar charts
def test_bars_under_a_shared_axis_take_its_tick_words_with_error_bars_and_missing_ones():
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(3, 3))
    top.bar([0, 1, 2], [0.5, np.nan, np.nan], yerr=0.1)
    top.set_ylabel("weight")
    bottom.bar([0, 1, 2], [1.0, 2.0, 3.0])
    bottom.set_xticks([0, 1, 2], ["sink", "prev", "self"])
    bottom.set(xlabel="head", ylabel="loss")
    assert said(fig) == (
        "Figure with 2 panels. 1) a bar chart of 3 bars (weight), 2 of them missing (no value): sink 0.50. "
        "2) a bar chart of 3 bars (loss): sink 1.00, prev 2.00, self 3.00.")


def test_numbered_bars_are_named_by_the_axis_label_of_the_panel_they_share_it_with():
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(3, 3))
    top.bar([0, 1], [0.5, 1.5])
    top.set_ylabel("weight")
    bottom.bar([0, 1], [2.0, 3.0])
    bottom.set_xticks([0, 1])
    bottom.set(xlabel="head", ylabel="loss")
    assert said(fig) == ("Figure with 2 panels. 1) a bar chart of 2 bars (weight): head 0 0.50, head 1 1.50. "
                         "2) a bar chart of 2 bars (loss): head 0 2.00, head 1 3.00.")
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(4, 2))
    left.barh([-1, 0], [0.25, 0.75])
    left.set_yticks([-1, 0])                            # drawn as "−1" (a minus sign) and "0"
    left.set(ylabel="layer (from 0)", xlabel="weight")
    right.barh([-1, 0, 2], [1.5, 2.5, 0.5])             # no tick at 2: named by the axis and the place
    right.set_xlabel("loss")
    assert said(fig) == ("Figure with 2 panels. 1) a bar chart of 2 bars (weight): layer −1 0.25, layer 0 "
                         "0.75. 2) a bar chart of 3 bars (loss): layer −1 1.50, layer 0 2.50, layer 2 0.50.")
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.bar([0.5, 1.0], [0.3, 0.7], width=0.2)
    ax.set_xticks([0.5, 1.0])                           # drawn as "0.5" and "1.0"
    ax.set(xlabel="temperature", ylabel="loss")
    assert said(fig) == "Figure. A bar chart of 2 bars (loss): temperature 0.5 0.30, temperature 1.0 0.70."


def test_twelve_bars_are_all_named_and_thirteen_by_their_five_longest():
    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 2))
    twelve = list("abcdefghijkl")
    left.bar(twelve, [*range(1, 12), 1000])
    left.set_ylabel("tokens seen")
    words = [f"w{i}" for i in range(13)]
    right.bar(words, [0.1, 0.9, 0.3, 0.9, 0.2, 0.8, 0.05, 0.7, 0.4, 0.6, 0.15, 0.5, 0.25])
    right.set_ylabel("weight")
    listed = ", ".join(f"{name} {i + 1}.00" for i, name in enumerate(twelve[:11]))
    assert said(fig) == (
        f"Figure with 2 panels. 1) a bar chart of 12 bars (tokens seen): {listed}, l 1,000. 2) a bar chart "
        "of 13 bars (weight); the longest: w1 0.90, w3 0.90, w5 0.80, w7 0.70, w9 0.60.")


# ------------------------------------------------------------------ diagrams, swatches, empty panels
def test_a_diagrams_words_are_read_in_rows_from_the_top_and_cut_after_23():
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.set_axis_off()
    for i in range(21, 0, -1):                          # written right to left, read left to right
        ax.text(i / 100, 0.05, f"w{i:02d}")
    ax.text(0.9, 0.7004, "second")                      # the same row as "first" to 3 decimals
    ax.text(0.1, 0.7, "first")
    ax.text(0.9, 0.4, "top")
    ax.text(0.1, 0.2, "bottom")
    ax.text(0.5, 0.5, "")                               # an empty text says nothing
    words = ", ".join(f"w{i:02d}" for i in range(1, 20))
    assert said(fig) == \
        f"Figure. A diagram with the words: first, second, top, bottom, {words}, … (25 in all)."


def test_a_swatch_of_a_colour_the_collection_does_not_name_and_empty_panels():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, color="#abcdef"))
    ax.set_axis_off()
    ax.set_title("mystery")
    assert said(fig) == "Figure. “mystery”: a swatch of #abcdef."
    assert said(plt.subplots(figsize=(2, 2))[0]) == "Figure. A diagram."
    assert said(plt.subplots(1, 2, figsize=(2, 2))[0]) == "Figure. A diagram."
    fig, (left, _) = plt.subplots(1, 2, figsize=(3, 2))     # a heatmap beside an empty panel
    al.heatmap(np.array([[1.0]]), ["q"], ["k"], ax=left, cbar=False)
    assert said(fig) == ("Figure. A heatmap of 1 row (query: q) by 1 column (key: k); the largest entry: q → "
                         "k 1.00; values from 1.00 to 1.00.")
    assert said(plt.figure(figsize=(2, 2))).strip() == "Figure."


# ------------------------------------------------------------------ the image IPython shows
def test_figure_png_is_the_tight_png_in_the_figures_own_colour_whatever_the_settings_say():
    fig = plt.figure(figsize=(3, 3), dpi=50, facecolor="#336699")
    fig.text(0.5, 0.5, "Q")
    with plt.rc_context({"savefig.facecolor": "white", "savefig.format": "svg"}):
        png = alt_text.figure_png(fig)
    plt.close(fig)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pixels = imread(io.BytesIO(png))
    assert pixels.shape[0] < 150 and pixels.shape[1] < 150          # cut to the text, not 3 × 50 pixels
    assert np.allclose(pixels[0, 0, :3], [0x33 / 255, 0x66 / 255, 0x99 / 255], atol=1 / 255)


def test_install_finds_the_running_ipython_and_only_it(monkeypatch):
    from IPython.core.formatters import DisplayFormatter
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    assert alt_text.install() is True
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.set_title("empty")
    data, _ = shell.display_formatter.format(fig)
    plt.close(fig)
    assert 'alt="Figure. “empty”: a diagram." style="max-width:100%">' in data["text/html"]
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: None))
    assert alt_text.install() is False                  # IPython loaded, but no shell running
    monkeypatch.delitem(sys.modules, "IPython")
    assert alt_text.install() is False                  # a plain Python process


def test_an_alt_image_with_and_without_a_caption():
    png = b"\x89PNG\r\n\x1a\n"                           # the 8-byte signature: "iVBORw0KGgo=" in base64
    plain = alt_text.AltImage(png, 'the "weights" <2×2>')
    assert plain._repr_png_() == png and repr(plain).startswith("<attention_lab.alt_text.AltImage object")
    img = '<img src="data:image/png;base64,iVBORw0KGgo=" alt="the &quot;weights&quot; &lt;2×2&gt;" ' \
          'style="max-width:100%">'
    assert plain._repr_html_() == img
    captioned = alt_text.AltImage(png, 'the "weights" <2×2>', caption="Step 3 & after")
    assert repr(captioned) == "Step 3 & after"
    assert captioned._repr_html_() == (
        '<figure style="margin:0"><figcaption class="al-still-caption" style="font-style:italic; '
        f'margin:0.3em 0 0.5em">Step 3 &amp; after</figcaption>{img}</figure>')
    assert base64.b64decode("iVBORw0KGgo=") == png
    with pytest.raises(ValueError, match="caption with words"):
        alt_text.AltImage(png, "x", caption=" ")


# ------------------------------------------------------------------ numbers
def test_a_number_that_rounds_to_a_thousand_is_said_as_a_thousand():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.bar(["a", "b", "c"], [999.994, 999.996, -999.996])
    assert said(fig) == "Figure. A bar chart of 3 bars: a 999.99, b 1,000, c -1,000."   # never "1000.00"


# ------------------------------------------------------------------ one drawing for every format
def shown(shell, fig) -> tuple[bytes, bytes]:
    """The PNG inside the <img> of IPython's HTML and IPython's own PNG of a figure."""
    data, _ = shell.display_formatter.format(fig)
    html_png = base64.b64decode(data["text/html"].split("base64,")[1].split('"')[0])
    return html_png, base64.b64decode(data["image/png"])


def draws_counted(monkeypatch) -> list:
    """Every Figure.draw from now on, counted."""
    from matplotlib.figure import Figure
    seen, draw = [], Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, renderer: (seen.append(fig), draw(fig, renderer))[1])
    return seen


@pytest.mark.parametrize("installed_first", [True, False])
def test_a_figure_is_drawn_once_for_its_html_and_its_png(monkeypatch, installed_first):
    """The inline backend's PNG formatter and the <img> with alt text get one drawing, in the time of one
    figure_png (not two), whether or not the inline backend set its formats after install()."""
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.pylabtools import select_figure_formats
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    if not installed_first:
        select_figure_formats(shell, {"png"})
    assert alt_text.install(shell) and alt_text.install(shell)      # twice: wrapped once
    select_figure_formats(shell, {"png"})
    fig = al.heatmap(np.array([[0.25, 0.75], [0.5, 0.5]]), ["q1", "q2"], ["a", "b"], title="first").figure
    seen = draws_counted(monkeypatch)
    alt_text.figure_png(fig)
    one = len(seen)
    assert one >= 1
    html_png, png = shown(shell, fig)
    assert len(seen) == 2 * one and html_png == png                  # one more figure_png's worth of draws
    fig.axes[0].set_title("second")                                  # a changed figure is drawn anew
    html_again, png_again = shown(shell, fig)
    assert len(seen) == 3 * one and html_again == png_again != png
    plt.close(fig)


def test_a_png_asked_for_with_other_settings_is_drawn_with_them():
    """Retina PNGs (twice the dpi) are not the <img>'s: IPython draws them itself."""
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.pylabtools import select_figure_formats
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    alt_text.install(shell)
    select_figure_formats(shell, {"retina"})
    fig = al.heatmap(np.array([[0.25, 0.75]]), ["q"], ["a", "b"]).figure
    html_png, png = shown(shell, fig)
    assert imread(io.BytesIO(png)).shape[1] > 1.9 * imread(io.BytesIO(html_png)).shape[1]
    with io.BytesIO() as buffer:                                      # the canvas's own method is back
        fig.canvas.print_figure(buffer, format="png")
        assert "print_figure" not in vars(fig.canvas) and buffer.getvalue().startswith(b"\x89PNG")
    plt.close(fig)


def test_while_a_figure_is_formatted_it_is_saved_to_a_file_or_printed_positionally_as_asked(tmp_path):
    """Only a print to memory with keywords alone is the one drawing shared; a file, or a dpi given by
    position, is drawn as asked (2 × 1 inches: width and height in pixels are 2 and 1 times the dpi)."""
    fig = plt.figure(figsize=(2, 1), dpi=100)
    fig.text(0.5, 0.5, "Q")
    with alt_text.one_render(fig):
        fig.savefig(tmp_path / "path.png", dpi=40)
        fig.savefig(str(tmp_path / "name.png"), dpi=80)
        with io.BytesIO() as buffer:
            fig.canvas.print_figure(buffer, 30, format="png")
            positional = imread(io.BytesIO(buffer.getvalue()))
    plt.close(fig)
    assert imread(tmp_path / "path.png").shape[:2] == (40, 80)
    assert imread(tmp_path / "name.png").shape[:2] == (80, 160)
    assert positional.shape[:2] == (30, 60)


def test_other_outputs_and_chosen_formats_pass_through_the_wrapped_formatter(monkeypatch):
    """install() wraps IPython's DisplayFormatter.format: what is not a figure, and the formats a caller
    includes or excludes, come out as IPython's own formatter gives them."""
    from IPython.core.formatters import DisplayFormatter
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    assert alt_text.install(shell)
    show = shell.display_formatter.format
    picture = alt_text.AltImage(b"\x89PNG\r\n\x1a\n", "a picture")
    assert show("word")[0] == {"text/plain": "'word'"}
    assert sorted(show(picture)[0]) == ["image/png", "text/html", "text/plain"]
    assert sorted(show(picture, include={"image/png"})[0]) == ["image/png"]
    assert sorted(show(picture, exclude={"image/png"})[0]) == ["text/html", "text/plain"]
    fig = al.heatmap(np.array([[0.25, 0.75]]), ["q"], ["a", "b"]).figure
    assert sorted(show(fig, include={"text/html"})[0]) == ["text/html"]
    assert sorted(show(fig, exclude={"text/html"})[0]) == ["text/plain"]     # no PNG formatter set here
    plt.close(fig)
    monkeypatch.delitem(sys.modules, "matplotlib.figure")                    # a kernel without matplotlib
    assert show("word")[0] == {"text/plain": "'word'"}


def inline_shell(monkeypatch) -> SimpleNamespace:
    """A shell with IPython's own display formatter and events, the one get_ipython() returns."""
    from IPython.core.events import EventManager, available_events
    from IPython.core.formatters import DisplayFormatter
    shell = SimpleNamespace(display_formatter=DisplayFormatter(),
                            showtraceback=lambda *_, **__: pytest.fail("a callback failed"))
    shell.events = EventManager(shell, available_events)
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    return shell


def test_before_each_cell_the_inline_backend_shows_its_figures_before_pyplot_redraws_them(monkeypatch):
    """pyplot registers its draw of every changed figure (post_execute) before the inline backend its
    show-and-close: install() moves the draw after the show, before every cell. Other callbacks, of any
    kind, stay where they were."""
    import functools

    from matplotlib_inline.backend_inline import flush_figures
    shell = inline_shell(monkeypatch)
    draw = plt._draw_all_if_interactive                     # what pyplot registers (install_repl_displayhook)
    assert (draw.__module__, draw.__name__) == ("matplotlib.pyplot", "_draw_all_if_interactive")
    other = functools.partial(print, end="")                # no __name__
    wrapper = print.__call__                                # no __module__
    for step in (draw, other, flush_figures, wrapper):
        shell.events.register("post_execute", step)
    assert alt_text.install() and alt_text.install()
    assert shell.events.callbacks["pre_run_cell"] == [alt_text.shown_before_redrawn]   # registered once
    shell.events.trigger("pre_run_cell", None)
    assert shell.events.callbacks["post_execute"] == [other, flush_figures, wrapper, draw]
    shell.events.trigger("pre_run_cell", None)                                        # already in order
    assert shell.events.callbacks["post_execute"] == [other, flush_figures, wrapper, draw]


@pytest.mark.parametrize("steps", [["draw", "other"], ["other", "show"], ["other"], []])
def test_callbacks_are_left_alone_where_the_draw_or_the_show_is_missing(monkeypatch, steps):
    import functools

    from matplotlib_inline.backend_inline import flush_figures
    shell = inline_shell(monkeypatch)
    named = {"draw": plt._draw_all_if_interactive, "show": flush_figures, "other": functools.partial(print)}
    shell.events.callbacks["post_execute"][:] = [named[s] for s in steps]
    alt_text.shown_before_redrawn(None)
    assert shell.events.callbacks["post_execute"] == [named[s] for s in steps]


def test_the_reordering_does_nothing_outside_a_shell_with_events(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: SimpleNamespace()))
    assert alt_text.shown_before_redrawn(None) is None       # a shell without events
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: None))
    assert alt_text.shown_before_redrawn(None) is None       # IPython loaded, but no shell running
    monkeypatch.delitem(sys.modules, "IPython")
    assert alt_text.shown_before_redrawn() is None           # a plain Python process
