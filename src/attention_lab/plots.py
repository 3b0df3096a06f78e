"""Heatmaps with token words on the axes, one colour per role, and a fixed 0-1 scale for weights."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import as_matrix, as_scale, labels_fit, projection_inputs, shape_of
from .matrix import _attention, _project

# One colour per role across the whole collection (Okabe-Ito, readable by colour-blind students).
ROLE_COLORS = {"query": "#0072B2", "key": "#D55E00", "value": "#009E73"}
WEIGHTS_CMAP = "Purples"          # attention weights: always 0 (white) to 1 (dark purple)
FONT = {"ticks": 13, "labels": 13, "title": 14, "annot": 14}   # sizes readable on a projector
KINDS = ("weights", "scores", "query", "key", "value", "input")
# Lines that are not a role (e.g. 'unscaled' vs 'scaled') use these, never a role colour.
LINE_COLORS = ("#333333", "#CC79A7")


def role_cmap(role: str) -> LinearSegmentedColormap:
    """Diverging colour map for a role: grey (negative), white (0), the role's colour (positive)."""
    if role not in ROLE_COLORS:
        raise ValueError(f"role is {role!r}: expected one of {sorted(ROLE_COLORS)}")
    return LinearSegmentedColormap.from_list(role, ["#6b6b6b", "#ffffff", ROLE_COLORS[role]])


def _style(kind: str, values: np.ndarray, vmin, vmax):
    """(cmap, vmin, vmax) for a kind of matrix; weights always use the fixed 0-1 scale."""
    if kind not in KINDS:
        raise ValueError(f"kind is {kind!r}: expected one of {KINDS}")
    if kind == "weights":
        if values.min() < -1e-12 or values.max() > 1 + 1e-12:
            raise ValueError(f"weights range from {values.min():.3g} to {values.max():.3g}: "
                             "attention weights lie in 0..1 (did you pass the scores? "
                             "use kind='scores')")
        return WEIGHTS_CMAP, 0.0, 1.0
    bound = float(np.abs(values).max()) or 1.0
    vmin = -bound if vmin is None else vmin
    vmax = bound if vmax is None else vmax
    cmap = {"scores": "vlag", "input": "Greys"}.get(kind) or role_cmap(kind)
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
    row_labels, col_labels = list(row_labels), list(col_labels)
    if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
        raise ValueError(f"values have shape {shape_of(values)} but there are {len(row_labels)} "
                         f"row labels and {len(col_labels)} column labels: expected one label "
                         "per row and one per column")
    cmap, vmin, vmax = _style(kind, values, vmin, vmax)
    if ax is None:
        width = 1.6 + 0.9 * values.shape[1] + (1.2 if cbar else 0)
        _, ax = plt.subplots(figsize=(width, 1.2 + 0.7 * values.shape[0]), layout="constrained")
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
    ax._attention_lab_fmt = fmt  # remembered for update_heatmap
    _set_heatmap(ax, values)   # same text-contrast rule at creation as after every update
    return ax


def add_colorbar(ax) -> None:
    """The colour scale of a heatmap, beside it (added after the layout engine is chosen)."""
    bar = ax.figure.colorbar(ax.collections[0], ax=ax)
    bar.outline.set_linewidth(0)
    bar.ax.tick_params(labelsize=FONT["ticks"] - 1)


def text_color(background) -> str:
    """Dark or white annotation text, whichever has the higher WCAG contrast on `background`."""
    lum = sns.utils.relative_luminance(background)
    dark = 0.0194   # relative luminance of the dark text grey '.15'
    return ".15" if (lum + 0.05) / (dark + 0.05) >= 1.05 / (lum + 0.05) else "w"


def _set_heatmap(ax, values: np.ndarray) -> None:
    """update_heatmap on a trusted array of the heatmap's own shape."""
    mesh = ax.collections[0]
    mesh.set_array(values)
    fmt = getattr(ax, "_attention_lab_fmt", ".2f")
    colours = mesh.cmap(mesh.norm(values.ravel()))
    for text, value, colour in zip(ax.texts, values.ravel(), colours):
        text.set_text(format(value, fmt))
        text.set_color(text_color(colour))


def update_heatmap(ax, values) -> None:
    """Put new values into an existing heatmap: cell colours, annotation text and its contrast."""
    old = ax.collections[0].get_array()
    values = as_matrix(values, "values", "(rows, columns)")
    if values.shape != old.shape:
        raise ValueError(f"values have shape {shape_of(values)} but the heatmap shows {old.shape}: "
                         "build a new heatmap for a new shape")
    _set_heatmap(ax, values)


def subscript(n: int) -> str:
    """12 -> '₁₂', for math names such as y₂ in labels."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def plot_scaling(table: dict[str, np.ndarray]) -> Figure:
    """Two panels: score spread vs d_k, and how peaked the softmax gets, with and without 1/sqrt(d_k)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    d = table["d_k"]
    a.plot(d, table["std_unscaled"], "o-", color=LINE_COLORS[0], label="q·k (unscaled)")
    a.plot(d, table["std_scaled"], "s-", color=LINE_COLORS[1], label="q·k / √d_k")
    a.plot(d, np.sqrt(d), ":", color="0.4", label="√d_k")
    a.set(xscale="log", yscale="log", xlabel="d_k", ylabel="spread (std) of the scores")
    b.plot(d, table["max_weight_unscaled"], "o-", color=LINE_COLORS[0], label="unscaled")
    b.plot(d, table["max_weight_scaled"], "s-", color=LINE_COLORS[1], label="scaled by 1/√d_k")
    b.set(xscale="log", ylim=(0, 1.02), xlabel="d_k", ylabel="largest softmax weight (mean)")
    for ax, title in ((a, "scores grow like √d_k"), (b, "unscaled softmax becomes one-hot")):
        ax.set_title(title, fontsize=FONT["title"])
        ax.legend(fontsize=FONT["ticks"] - 1)
        ax.tick_params(labelsize=FONT["ticks"] - 1)
        ax.xaxis.label.set_size(FONT["labels"])
        ax.yaxis.label.set_size(FONT["labels"])
    return fig


def plot_cost(table: dict[str, np.ndarray]) -> Figure:
    """Seconds for all outputs vs n, loop form against matrix form, log-log."""
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    ax.plot(table["n"], table["loop_s"], "o-", color=LINE_COLORS[0],
            label="loop (attend_one per token)")
    ax.plot(table["n"], table["matrix_s"], "s-", color=LINE_COLORS[1], label="matrix form")
    ax.set(xscale="log", yscale="log", xlabel="number of tokens n", ylabel="seconds for all n outputs")
    ax.set_title("the same numbers, computed two ways", fontsize=FONT["title"])
    ax.legend(fontsize=FONT["ticks"] - 1)
    ax.xaxis.label.set_size(FONT["labels"])
    ax.yaxis.label.set_size(FONT["labels"])
    return fig


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
    """The collection's colours: one per role (query, key, value) and the fixed 0-1 weight scale."""
    fig, axes = plt.subplots(1, 4, figsize=(10, 1.3), layout="constrained", width_ratios=[1, 1, 1, 3])
    for ax, (role, name) in zip(axes, (("query", "query Q"), ("key", "key K"), ("value", "value V"))):
        ax.add_patch(plt.Rectangle((0, 0), 1, 1, color=ROLE_COLORS[role]))
        ax.set_title(name, fontsize=FONT["title"])
    axes[3].imshow(np.linspace(0, 1, 101)[None, :], cmap=WEIGHTS_CMAP, aspect="auto", vmin=0, vmax=1,
                   extent=(0, 1, 0, 1))
    axes[3].set_title("attention weight: 0 … 1", fontsize=FONT["title"])
    axes[3].set_xticks([0, 0.5, 1])
    axes[3].tick_params(labelsize=FONT["ticks"] - 1, left=False, labelleft=False)
    for ax in axes[:3]:
        ax.set_axis_off()
    return fig


def plot_flow(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, tokens: Sequence[str],
              features: Sequence[str], scale: float | None = None) -> Figure:
    """The data flow X -> Q, K, V -> scores -> weights -> Y, each panel drawn from the real numbers."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    tokens, features = labels_fit(X, tokens, features)
    scale = as_scale(scale, W_q.shape[1])
    Q, K, V = _project(X, X, W_q, W_k, W_v)                               # (n, d_k), (n, d_k), (n, d_v)
    S = scale * Q @ K.T                                                   # (n, n) drawn before softmax
    Y, A = _attention(Q, K, V, None, scale)                               # (n, d_v), (n, n)
    cols = [str(c + 1) for c in range(W_q.shape[1])]
    vcols = list(features) if W_v.shape[1] == len(features) else [str(c + 1) for c in range(W_v.shape[1])]
    panels = [(X, "input", "X (tokens)", list(features)), (Q, "query", "Q = X W_q", cols),
              (K, "key", "K = X W_k", cols), (V, "value", "V = X W_v", vcols),
              (S, "scores", "scores Q Kᵀ·scale", list(tokens)),
              (A, "weights", "weights = softmax", list(tokens)),
              (Y, "value", "Y = weights · V", vcols)]
    fig = plt.figure(figsize=(14, 2.2 + 0.9 * len(tokens)), layout="constrained")
    top, bottom = fig.subfigures(2, 1)
    rows = [(top, panels[:4], [p[0].shape[1] + 0.5 for p in panels[:4]]),
            (bottom, panels[4:], [p[0].shape[1] + 0.5 for p in panels[4:]])]
    for sub, row, widths in rows:
        axes = sub.subplots(1, len(row), width_ratios=widths)
        for i, (ax, (values, kind, title, col_labels)) in enumerate(zip(axes, row)):
            heatmap(values, tokens if i == 0 else [""] * len(tokens), col_labels, ax=ax, kind=kind,
                    title=title, xlabel="", ylabel="", cbar=False, annot=False)
            ax.tick_params(axis="x", labelrotation=90)
            ax.title.set_color(ROLE_COLORS.get(kind, "0.15"))
    top.suptitle("X → Q, K, V (one colour per role)", fontsize=FONT["title"])
    bottom.suptitle("→ scores → softmax → weights (0–1) → weights · V = Y", fontsize=FONT["title"])
    return fig
