"""The plotting core: heatmaps with token words on the axes, one colour per role, a fixed 0-1 scale
for attention weights, and the sizes readable on a projector. The lesson pictures (plots.py,
training_plots.py) and the explorer kit draw with these."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import as_kind, as_matrix, shape_of, weights_in_0_1

# One colour per role across the whole collection (Okabe-Ito, readable by colour-blind students).
ROLE_COLORS = {"query": "#0072B2", "key": "#D55E00", "value": "#009E73"}
WEIGHTS_CMAP = "Purples"          # attention weights: always 0 (white) to 1 (dark purple)
FONT = {"ticks": 13, "labels": 13, "title": 14, "annot": 14}   # sizes readable on a projector
# What a heatmap shows (its `kind`): attention weights, raw scores, a role's matrix, or plain input.
KINDS = ("weights", "scores", "query", "key", "value", "input")
# Lines that are not a role (e.g. 'unscaled' vs 'scaled') use these, never a role colour.
LINE_COLORS = ("#333333", "#CC79A7")


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def labels_per_cell(values: np.ndarray, row_labels, col_labels) -> tuple[list, list]:
    """One label per row and one per column of `values` (as lists): ValueError otherwise."""
    row_labels, col_labels = list(row_labels), list(col_labels)
    if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
        raise ValueError(f"values have shape {shape_of(values)} but there are {len(row_labels)} "
                         f"row labels and {len(col_labels)} column labels: expected one label "
                         "per row and one per column")
    return row_labels, col_labels


def labels_fit(X: np.ndarray, tokens, features) -> tuple[list, list]:
    """One word per row of X and one feature name per column."""
    if len(tokens) != X.shape[0] or len(features) != X.shape[1]:
        raise ValueError(f"X has shape {shape_of(X)} but there are {len(tokens)} tokens and "
                         f"{len(features)} features: expected one word per row and one name per column")
    return list(tokens), list(features)


def framed_picks(picks: dict) -> dict:
    """At most nine picked heads: `thumbnails` has nine (colour, dash pattern) pairs to frame them."""
    if len(picks) > 9:
        raise ValueError(f"{len(picks)} heads picked: expected at most 9, so that each is framed in its own "
                         "colour and dash pattern")
    return picks
# pragma: no mutate end


def role_cmap(role: str) -> LinearSegmentedColormap:
    """Diverging colour map for a role: grey (negative), white (0), the role's colour (positive)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    role = as_kind(role, tuple(ROLE_COLORS), "role")
    # pragma: no mutate end
    return signed_cmap(role, ROLE_COLORS[role])


NEGATIVE_GREY = "#6b6b6b"         # the negative end of every signed map (role_cmap, signed_cmap)
SCORES_RED = "#a9373b"            # the positive end of the scores' map: positive scores are red


def signed_cmap(name: str, colour: str) -> LinearSegmentedColormap:
    """Grey (negative), white (0), `colour` (positive): the role maps' rule for any colour, e.g. the
    scores' red (every kind='scores' heatmap and block), so that no negative score looks like a query."""
    return LinearSegmentedColormap.from_list(name, [NEGATIVE_GREY, "#ffffff", colour])


def kind_color(kind: str) -> str:
    """The colour of a title or label for a kind of matrix: its role's colour, else dark grey."""
    return ROLE_COLORS.get(kind, "0.15")


def kind_style(kind: str, values: np.ndarray, vmin: float | None = None,
               vmax: float | None = None) -> tuple:
    """(cmap, vmin, vmax) for a kind of matrix; weights always use the fixed 0-1 scale."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    kind = as_kind(kind, KINDS)
    # pragma: no mutate end
    if kind == "weights":
        # pragma: no mutate start  (the door)
        weights_in_0_1(values, "weights", "did you pass the scores? use kind='scores'", tol=1e-12)
        # pragma: no mutate end
        return WEIGHTS_CMAP, 0.0, 1.0
    bound = float(np.abs(values).max()) or 1.0
    vmin = -bound if vmin is None else vmin
    vmax = bound if vmax is None else vmax
    cmap = {"scores": signed_cmap("scores", SCORES_RED), "input": "Greys"}.get(kind) or role_cmap(kind)
    if kind == "input":
        vmin = 0.0 if values.min() >= 0 else vmin
    return cmap, vmin, vmax


def heatmap(values: ArrayLike, row_labels: Sequence[str], col_labels: Sequence[str], *,
            ax: Axes | None = None, kind: str = "weights", title: str | None = None,
            xlabel: str = "key", ylabel: str = "query", fmt: str = ".2f", vmin: float | None = None,
            vmax: float | None = None, cbar: bool = True, annot_size: float | None = None,
            annot: bool = True) -> Axes:
    """Annotated heatmap of a 2-D array, labelled with token words; returns the Axes."""
    values = as_matrix(values, "values", "(rows, columns)")
    row_labels, col_labels = labels_per_cell(values, row_labels, col_labels)
    cmap, vmin, vmax = kind_style(kind, values, vmin, vmax)
    if ax is None:
        width = 1.6 + 0.9 * values.shape[1] + (1.2 if cbar else 0)
        _, ax = plt.subplots(figsize=(width, 1.2 + 0.7 * values.shape[0]), layout="constrained")
    with layout_only(ax.get_figure(root=True)):
        sns.heatmap(values, ax=ax, cmap=cmap, vmin=vmin, vmax=vmax, annot=annot, fmt=fmt,
                    annot_kws={"fontsize": annot_size or FONT["annot"]}, cbar=False, linewidths=1,
                    linecolor="white", xticklabels=col_labels, yticklabels=row_labels, square=False)
    ax.tick_params(labelsize=FONT["ticks"], length=0)
    if cbar:
        add_colorbar(ax)
    ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
    ax.set_xlabel(xlabel, fontsize=FONT["labels"])
    ax.set_ylabel(ylabel, fontsize=FONT["labels"])
    if title:
        ax.set_title(title, fontsize=FONT["title"])
    set_heatmap(ax, values, fmt)   # same text-contrast rule at creation as after every update
    return ax


@contextlib.contextmanager
def layout_only(fig: Figure):
    """seaborn draws the whole figure inside every heatmap() to see whether the tick labels overlap; that
    needs the layout (where each label is), not the pixels: meanwhile the canvas lays the figure out
    without painting it (Figure.draw_without_rendering), and the numbers of the panels already drawn,
    which the layout leaves out (set_heatmap), are hidden, so that nothing measures them either. A canvas
    that draws nothing (the explorers') stays as it is."""
    from matplotlib.backend_bases import FigureCanvasBase
    canvas = fig.canvas
    if type(canvas).draw is FigureCanvasBase.draw:
        yield
        return
    hidden = [t for ax in fig.axes for t in ax.texts if t.get_visible() and not t.get_in_layout()]
    for text in hidden:
        text.set_visible(False)
    canvas.draw = fig.draw_without_rendering
    try:
        yield
    finally:
        del canvas.draw                          # the canvas's own draw again
        for text in hidden:
            text.set_visible(True)


def add_colorbar(ax) -> None:
    """The colour scale of a heatmap, beside it (added after the layout engine is chosen)."""
    bar = ax.figure.colorbar(ax.collections[0], ax=ax)
    bar.outline.set_linewidth(0)
    bar.ax.tick_params(labelsize=FONT["ticks"] - 1)


# the head that the model view has open in the head view ("where you are now", as a curve panel's dot)
OPEN_COLOR = "#b00020"


def thumbnail_gap(n: int) -> int:
    """The blank cells between two thumbnails of n tokens in `thumbnails` (a quarter of one, at least 2)."""
    return max(2, round(0.25 * n))


def thumbnail_box(layer: int, head: int, m: int, n: int) -> tuple[tuple[float, float], int, int]:
    """The frame around one (m, n) thumbnail of `thumbnails`: its corner (x, y), width and height."""
    gap = thumbnail_gap(n)
    return (layer * (n + gap) - 0.5 - gap / 2, head * (m + gap) - 0.5 - gap / 2), n + gap, m + gap


def thumbnails(ax, w: np.ndarray, picks: dict, open_head: tuple[int, int] | None = None, title: str = ""):
    """Every head's weights w (layers, heads, m, n) on ax, one thumbnail each (bertviz's model view):
    heads down, layers across, on the fixed 0-1 scale; picks {name: (layer, head)}, at most nine, framed in
    their own colours and dash patterns, open_head by a thick solid line in OPEN_COLOR -> (the image, the open
    head's frame or None). Thumbnails narrower than their cells are averaged in colour (antialiased), so
    that no cell is skipped."""
    from matplotlib.patches import Rectangle
    picks = framed_picks(picks)
    L, h, m, n = w.shape
    gap = thumbnail_gap(n)
    mosaic = np.full((h * (m + gap) - gap, L * (n + gap) - gap), np.nan)   # (h rows, L columns) of (m, n)
    for layer in range(L):
        for head in range(h):
            r, c = head * (m + gap), layer * (n + gap)
            mosaic[r:r + m, c:c + n] = w[layer, head]
    image = ax.imshow(mosaic, cmap=WEIGHTS_CMAP, vmin=0.0, vmax=1.0, interpolation="antialiased",
                      interpolation_stage="rgba")
    ax.set_xticks([layer * (n + gap) + (n - 1) / 2 for layer in range(L)], [str(i) for i in range(L)],
                  fontsize=FONT["ticks"] - 3)
    ax.set_yticks([head * (m + gap) + (m - 1) / 2 for head in range(h)], [str(j) for j in range(h)],
                  fontsize=FONT["ticks"] - 1)
    ax.set_xlabel("layer", fontsize=FONT["labels"])
    ax.set_ylabel("head", fontsize=FONT["labels"])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    colours, styles = (*LINE_COLORS, "#E69F00"), ("--", ":", "-.")       # no role colour here; solid: open
    frames = [(colours[i % 3], styles[(i + i // 3) % 3]) for i in range(9)]   # nine pairs, each its own
    for (name, (layer, head)), (colour, style) in zip(picks.items(), frames):
        ax.add_patch(Rectangle(*thumbnail_box(layer, head, m, n), fill=False, edgecolor=colour,
                               linestyle=style, linewidth=1.8, label=f"{name}: layer {layer}, head {head}"))
    opened = None
    if open_head is not None:
        opened = Rectangle(*thumbnail_box(*open_head, m, n), fill=False, edgecolor=OPEN_COLOR, linewidth=4.0,
                           label="open: the heatmap above")
        ax.add_patch(opened)
    edge = 0.5 + gap / 2 + 0.5                                 # room for a frame around an outer thumbnail
    ax.set_xlim(-edge, L * (n + gap) - gap - 1 + edge)
    ax.set_ylim(h * (m + gap) - gap - 1 + edge, -edge)
    if ax.patches:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(ax.patches),
                  fontsize=FONT["ticks"] - 1, frameon=False)
    ax.set_title(title or f"every head's weights, {m} queries × {n} keys each (0 to 1)",
                 fontsize=FONT["title"])
    return image, opened


def text_color(background) -> str:
    """Black or white annotation text, whichever has the higher WCAG contrast on `background`.

    One of the two always reaches 4.58:1 (the worst case is a cell of relative luminance 0.179),
    above the 4.5:1 that WCAG AA asks of text; a dark grey instead of black fell to 3.9:1."""
    lum = sns.utils.relative_luminance(background)
    return "k" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "w"


def set_heatmap(ax, values: np.ndarray, fmt: str) -> None:
    """New values for a heatmap of the same shape: cell colours, annotation text and its contrast. The
    numbers sit inside their cells, so the layout leaves them out: it no longer measures every number at
    every draw (seaborn lays out the whole figure inside each heatmap call), and no pixel moves (every
    lesson's figures, compared byte for byte: 00-05 and 08 then ran in 7.5 s of CPU in place of 8.9)."""
    mesh = ax.collections[0]
    mesh.set_array(values)
    colours = mesh.cmap(mesh.norm(values.ravel()))
    for text, value, colour in zip(ax.texts, values.ravel(), colours):
        shown = format(value, fmt)
        text.set_text(shown[1:] if shown.startswith("-") and not shown.strip("-0.") else shown)  # no "-0"
        text.set_color(text_color(colour))
        text.set_in_layout(False)


def subscript(n: int) -> str:
    """12 -> '₁₂', for math names such as y₂ in labels."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def heatmap_row(panels: Sequence[tuple], row_labels: Sequence[str], *, height: float | None = None) -> Figure:
    """Several heatmaps side by side; panels = [(values, kind, title, column_labels), ...]."""
    panels = list(panels)
    widths = [as_matrix(v, "values").shape[1] + 0.6 for v, *_ in panels]
    n_rows = len(list(row_labels))
    fig, axes = plt.subplots(1, len(panels), figsize=(0.8 * sum(widths) + 1, height or 1.3 + 0.55 * n_rows),
                             layout="constrained", width_ratios=widths, squeeze=False)
    for ax, (values, kind, title, cols) in zip(axes[0], panels):   # numbers annotated: no colour bars
        heatmap(values, row_labels, cols, ax=ax, kind=kind, title=title, xlabel="", ylabel="", cbar=False)
    return fig


def role_legend() -> Figure:
    """The collection's colours: one per role (query, key, value), the scores' red (a positive score) and
    the fixed 0-1 weight scale."""
    fig, axes = plt.subplots(1, 5, figsize=(10, 1.3), layout="constrained", width_ratios=[1, 1, 1, 1, 3])
    swatches = ((ROLE_COLORS["query"], "query Q"), (ROLE_COLORS["key"], "key K"),
                (ROLE_COLORS["value"], "value V"), (SCORES_RED, "scores S"))
    for ax, (colour, name) in zip(axes, swatches):
        ax.add_patch(plt.Rectangle((0, 0), 1, 1, color=colour))
        ax.set_title(name, fontsize=FONT["title"])
        ax.set_axis_off()
    axes[4].imshow(np.linspace(0, 1, 101)[None, :], cmap=WEIGHTS_CMAP, aspect="auto", vmin=0, vmax=1,
                   extent=(0, 1, 0, 1))
    axes[4].set_title("attention weight: 0 … 1", fontsize=FONT["title"])
    axes[4].set_xticks([0, 0.5, 1])
    axes[4].tick_params(labelsize=FONT["ticks"] - 1, left=False, labelleft=False)
    return fig
