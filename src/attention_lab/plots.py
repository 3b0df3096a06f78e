"""Heatmaps with token words on the axes, one colour per role, and a fixed 0-1 scale for weights."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import (
    as_matrix,
    as_run,
    as_scale,
    as_table,
    attention_inputs,
    labels_fit,
    multi_head_inputs,
    projection_inputs,
    shape_of,
)
from .heads import multi_head_parts
from .matrix import attention_scores, attention_unchecked, project_unchecked, softmax_unchecked
from .training import ModelConfig, Run, accuracy, batch_inputs, forward_unchecked

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
    set_heatmap(ax, values, fmt)   # same text-contrast rule at creation as after every update
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


def set_heatmap(ax, values: np.ndarray, fmt: str) -> None:
    """New values for a heatmap of the same shape: cell colours, annotation text and its contrast."""
    mesh = ax.collections[0]
    mesh.set_array(values)
    colours = mesh.cmap(mesh.norm(values.ravel()))
    for text, value, colour in zip(ax.texts, values.ravel(), colours):
        shown = format(value, fmt)
        text.set_text(shown[1:] if shown.startswith("-") and not shown.strip("-0.") else shown)  # no "-0"
        text.set_color(text_color(colour))


def subscript(n: int) -> str:
    """12 -> '₁₂', for math names such as y₂ in labels."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def plot_scaling(table: dict[str, np.ndarray]) -> Figure:
    """Two panels: score spread vs d_k, and how peaked the softmax gets, with and without 1/sqrt(d_k)."""
    table = as_table(table, ("d_k", "std_unscaled", "std_scaled", "max_weight_unscaled", "max_weight_scaled"),
                     "scaling_experiment()")
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
    table = as_table(table, ("n", "loop_s", "matrix_s"), "time_forms()")
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
    Q, K, V = project_unchecked(X, X, W_q, W_k, W_v)                      # (n, d_k), (n, d_k), (n, d_v)
    S = attention_scores(Q, K, scale)                                     # (n, n) drawn before softmax
    Y, A = attention_unchecked(Q, K, V, None, scale)                               # (n, d_v), (n, n)
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


def _block(ax, values: np.ndarray, kind: str, title: str, edges: Sequence[int] = ()) -> None:
    """One matrix as a block of square cells in its role's colour, titled with its shape."""
    cmap, vmin, vmax = _style(kind, values, None, None)
    ax.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(np.arange(values.shape[1] + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(values.shape[0] + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    for edge in edges:                                   # head boundaries: thick black lines
        ax.axvline(edge - 0.5, color="black", linewidth=3)
    colour = ROLE_COLORS.get(kind, "0.15")
    ax.set_title(f"{title}\n{shape_of(values)}", fontsize=FONT["title"], color=colour)


def _operator(ax, symbol: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, symbol, ha="center", va="center", fontsize=FONT["title"] + 8)


def _product_row(sub, row, edges: Sequence[int] = ()) -> None:
    """A row such as A @ B = C: (matrix, kind, title) blocks with '@' and '=' between them."""
    widths = [item[0].shape[1] if isinstance(item, tuple) else 0.8 for item in row]
    for ax, item in zip(sub.subplots(1, len(row), width_ratios=widths), row):
        if isinstance(item, str):
            _operator(ax, item)
        else:
            _block(ax, *item, edges if item is row[0] else ())


def plot_shapes(Q: ArrayLike, K: ArrayLike, V: ArrayLike, scale: float | None = None) -> Figure:
    """QKᵀ and AV as blocks whose sizes are the arrays' shapes (one square per number)."""
    Q, K, V, _, scale = attention_inputs(Q, K, V, None, scale)
    if Q.ndim != 2:
        raise ValueError(f"Q has shape {shape_of(Q)}: plot_shapes draws one sequence, (m, d_k)")
    Y, A = attention_unchecked(Q, K, V, None, scale)                              # (m, d_v), (m, n)
    rows = [[(Q, "query", "Q"), "@", (K.T, "key", "Kᵀ"), "=", (Q @ K.T, "scores", "scores Q Kᵀ")],
            [(A, "weights", "A = softmax(scores·scale)"), "@", (V, "value", "V"), "=",
             (Y, "value", "Y = A V")]]
    fig = plt.figure(figsize=(12, 2.2 + 0.9 * (Q.shape[0] + K.shape[1])), layout="constrained")
    for sub, row in zip(fig.subfigures(2, 1, height_ratios=[max(Q.shape[0], K.shape[1]), Q.shape[0]]), rows):
        _product_row(sub, row)
    fig.suptitle("shapes: (m, d_k) @ (d_k, n) = (m, n), then (m, n) @ (n, d_v) = (m, d_v)",
                 fontsize=FONT["title"])
    return fig


def plot_heads(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_O: ArrayLike,
               n_heads: int, tokens: Sequence[str]) -> Figure:
    """Multi-head attention as column blocks: Q, K, V cut into heads, one softmax each, concat @ W_O."""
    X, _, W_q, W_k, W_v, W_O, h, _, scale = multi_head_inputs(X, X, W_q, W_k, W_v, W_O, n_heads)
    tokens = list(tokens)
    if len(tokens) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but there are {len(tokens)} tokens: "
                         "expected one word per row")
    d_k = X.shape[1] // h
    edges = [i * d_k for i in range(1, h)]
    parts = multi_head_parts(X, X, W_q, W_k, W_v, W_O, h, None, scale)  # the kernel, every part kept
    Q, K, V, weights, concat = parts.Q, parts.K, parts.V, parts.weights, parts.concat  # (n, d), (h, n, n)
    fig = plt.figure(figsize=(13, 4 + 2.4 * max(1.0, len(X) / 3)), layout="constrained")
    top, middle, bottom = fig.subfigures(3, 1, height_ratios=[1.3, 1.1, 1])
    for ax, (M, kind, name) in zip(top.subplots(1, 3), ((Q, "query", "Q = X W_q"), (K, "key", "K = X W_k"),
                                                         (V, "value", "V = X W_v"))):
        _block(ax, M, kind, name, edges)
        ax.set_xticks([i * d_k + (d_k - 1) / 2 for i in range(h)], [f"h{i + 1}" for i in range(h)])
        ax.tick_params(labelbottom=True, labelsize=FONT["ticks"])
    top.suptitle(f"split: head i (h1, h2, …) takes its own d_k = {d_k} columns", fontsize=FONT["title"])
    for i, ax in enumerate(np.atleast_1d(middle.subplots(1, h))):
        heatmap(weights[i], tokens if i == 0 else [""] * len(tokens), tokens, ax=ax, title=f"head {i + 1}",
                xlabel="", ylabel="", cbar=False, annot=h <= 2, annot_size=FONT["annot"] - 3)
        ax.tick_params(axis="x", labelrotation=90)
    middle.suptitle("attend: one softmax per head, on its own columns", fontsize=FONT["title"])
    row = [(concat, "value", "Concat(heads)"), "@", (W_O, "value", "W_O"), "=",
           (parts.output, "value", "output")]
    _product_row(bottom, row, edges)                                     # head boundaries on Concat
    bottom.suptitle("concatenate in order, then W_O mixes the heads", fontsize=FONT["title"])
    return fig


def plot_encoder_decoder(enc_tokens: Sequence[str], dec_tokens: Sequence[str], self_weights: ArrayLike,
                         cross_weights: ArrayLike, *, threshold: float = 0.05) -> Figure:
    """Decoder words (queries) above encoder words (keys, values); arrows as thick as the weights."""
    enc, dec = list(enc_tokens), list(dec_tokens)
    S = as_matrix(self_weights, "self_weights", "(m, m)")
    C = as_matrix(cross_weights, "cross_weights", "(m, n)")
    if S.shape != (len(dec), len(dec)) or C.shape != (len(dec), len(enc)):
        raise ValueError(f"self_weights {shape_of(S)} and cross_weights {shape_of(C)} do not fit "
                         f"{len(dec)} decoder and {len(enc)} encoder words: expected "
                         f"({len(dec)}, {len(dec)}) and ({len(dec)}, {len(enc)})")
    for M, name in ((S, "self_weights"), (C, "cross_weights")):
        if M.min() < 0 or M.max() > 1:
            raise ValueError(f"{name} range from {M.min():.3g} to {M.max():.3g}: expected attention "
                             "weights, which lie in 0..1")
    fig, ax = plt.subplots(figsize=(12, 5.2), layout="constrained")
    xe = np.linspace(0, 10, len(enc))
    xd = np.linspace(1, 9, len(dec))
    box = {"boxstyle": "round,pad=0.4", "linewidth": 2}
    for x, word in zip(xe, enc):
        ax.text(x, 0, word, ha="center", va="center", fontsize=FONT["ticks"] + 1,
                bbox={**box, "facecolor": "white", "edgecolor": ROLE_COLORS["key"]})
    for x, word in zip(xd, dec):
        ax.text(x, 3, word, ha="center", va="center", fontsize=FONT["ticks"] + 1,
                bbox={**box, "facecolor": "white", "edgecolor": ROLE_COLORS["query"]})
    purple = plt.get_cmap(WEIGHTS_CMAP)
    for i, j in zip(*np.nonzero(C >= threshold)):          # cross-attention: query i -> key j
        ax.annotate("", xy=(xe[j], 0.35), xytext=(xd[i], 2.65),
                    arrowprops={"arrowstyle": "-|>", "color": purple(0.35 + 0.65 * C[i, j]),
                                "linewidth": 0.5 + 5 * C[i, j], "shrinkA": 0, "shrinkB": 0})
    for i, j in zip(*np.nonzero(S >= threshold)):          # masked self-attention: arcs above
        style = {"arrowstyle": "-|>", "color": purple(0.35 + 0.65 * S[i, j]), "linewidth": 0.5 + 4 * S[i, j]}
        if i != j:
            ax.annotate("", xy=(xd[j], 3.35), xytext=(xd[i], 3.35),
                        arrowprops={**style, "connectionstyle": "arc3,rad=0.4"})
        else:                                              # a word's weight on itself: a loop, its number
            ax.annotate("", xy=(xd[i] + 0.22, 3.4), xytext=(xd[i] - 0.22, 3.4),
                        arrowprops={**style, "connectionstyle": "arc3,rad=-1.6", "shrinkA": 0, "shrinkB": 0})
            ax.text(xd[i], 4.0, f"{S[i, i]:.2f}", ha="center", va="bottom", fontsize=FONT["ticks"] - 1,
                    color="0.2")
    ax.text(-0.6, 3, "decoder\n(queries)", ha="right", va="center", fontsize=FONT["labels"],
            color=ROLE_COLORS["query"])
    ax.text(-0.6, 0, "encoder\n(keys, values)", ha="right", va="center", fontsize=FONT["labels"],
            color=ROLE_COLORS["key"])
    ax.set(xlim=(-3, 10.8), ylim=(-0.6, 5.2))
    ax.set_axis_off()
    ax.set_title(f"cross-attention (down), causal self-attention (arcs; a loop = a word's weight on itself)\n"
                 f"every weight ≥ {threshold} drawn, thicker = larger", fontsize=FONT["title"])
    return fig


def plot_decoding_cost(table: dict[str, np.ndarray]) -> Figure:
    """Multiply-adds per decoding step, recomputing everything vs. with a KV cache."""
    table = as_table(table, ("t", "no_cache", "cache"), "decoding_cost()")
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    ax.plot(table["t"], table["no_cache"], "o-", color=LINE_COLORS[0], label="recompute every step")
    ax.plot(table["t"], table["cache"], "s-", color=LINE_COLORS[1], label="with a KV cache")
    ax.set(yscale="log", xlabel="step t (tokens so far)", ylabel="multiply-adds in step t")
    ax.set_title("work per generated token", fontsize=FONT["title"])
    ax.legend(fontsize=FONT["ticks"] - 1)
    ax.xaxis.label.set_size(FONT["labels"])
    ax.yaxis.label.set_size(FONT["labels"])
    return fig


def plot_block() -> Figure:
    """The pre-LayerNorm transformer block as a diagram: two sub-layers, each with its residual."""
    fig, ax = plt.subplots(figsize=(11, 3.4), layout="constrained")
    steps = [("x\n(n, d)", "0.95"), ("LayerNorm", "0.9"), ("multi-head\nattention", None), ("+", "white"),
             ("LayerNorm", "0.9"), ("feed-\nforward", "0.9"), ("+", "white"), ("out\n(n, d)", "0.95")]
    xs = np.linspace(0, 14, len(steps))
    for x, (label, face) in zip(xs, steps):
        ax.text(x, 0, label, ha="center", va="center", fontsize=FONT["ticks"],
                bbox={"boxstyle": "circle" if label == "+" else "round,pad=0.5",
                      "facecolor": face or "white", "edgecolor": "0.3", "linewidth": 1.5})
    for a, b in itertools.pairwise(xs):
        ax.annotate("", xy=(b - 0.75, 0), xytext=(a + 0.75, 0),
                    arrowprops={"arrowstyle": "-|>", "color": "0.3"})
    for role, dx in zip(("query", "key", "value"), (-0.45, 0, 0.45)):   # Q, K, V feed the attention box
        ax.text(xs[2] + dx, -0.85, role[0].upper(), ha="center", fontsize=FONT["ticks"],
                fontweight="bold", color=ROLE_COLORS[role])
    for start, end in ((0, 3), (3, 6)):                                 # residual connections around
        ax.annotate("", xy=(xs[end], 0.35), xytext=(xs[start], 0.35),
                    arrowprops={"arrowstyle": "-|>", "color": LINE_COLORS[1], "linewidth": 2,
                                "connectionstyle": "arc3,rad=-0.35"})
        ax.text((xs[start] + xs[end]) / 2, 1.45, "residual: add the input back", ha="center",
                fontsize=FONT["ticks"] - 1, color=LINE_COLORS[1])
    ax.set(xlim=(-1, 15), ylim=(-1.3, 1.9))
    ax.set_axis_off()
    ax.set_title("one transformer block (pre-LayerNorm): z = x + MHA(LN(x)), out = z + FFN(LN(z));"
                 " FFN(u) = ReLU(u W₁) W₂",
                 fontsize=FONT["title"])
    return fig


def plot_model_flow(params: dict, cfg: ModelConfig, ids: ArrayLike, title: str = "the model") -> Figure:
    """Lesson 06's model on one sequence, left to right, from its real numbers: X = E[ids] + P ->
    attention weights -> H = X + attention output -> probabilities of each output token.
    `title` names the weights shown (e.g. "the untrained model")."""
    cfg, params, ids, _ = batch_inputs(cfg, params, ids, None)
    if len(ids) != 1 or not cfg.attention:
        raise ValueError(f"ids has shape {ids.shape} for a model with attention={cfg.attention}: "
                         "expected one sequence (n,) and a model with an attention layer")
    logits, c = forward_unchecked(params, ids, cfg)
    probs = softmax_unchecked(logits[0])                                             # (n, vocab)
    words, d = [str(t) for t in ids[0]], cfg.d
    dims = [str(j) if j % 8 == 0 else "" for j in range(d)]
    panels = [(c["X"][0], "input", "X = E[token] + P", dims, d / 3),
              (c["A"][0, 0], "weights", "attention weights", words, len(words)),
              (c["H"][0], "input", "H = X + attention output", dims, d / 3),
              (probs, "weights", "softmax(H W_u)", [str(v) for v in range(cfg.vocab_size)], cfg.vocab_size)]
    fig, axes = plt.subplots(1, 4, figsize=(15, 4.2), layout="constrained",
                             width_ratios=[p[4] for p in panels])
    for i, (ax, (values, kind, name, cols, _)) in enumerate(zip(axes, panels)):
        heatmap(values, words, cols, ax=ax, kind=kind, title=name, xlabel=["feature", "key token", "feature",
                "output token"][i], ylabel="token" if i == 0 else "", cbar=False, annot=False)
        ax.tick_params(axis="x", labelrotation=0)
    fig.suptitle(f"one held-out sequence through {title} →", fontsize=FONT["title"])
    return fig


def plot_learning_curve(run: Run, held_ids: ArrayLike, held_targets: ArrayLike, baseline: float) -> Figure:
    """Training loss at every step, and held-out accuracy at every snapshot against a baseline."""
    run = as_run(run, Run, "train")
    acc = [accuracy(p, held_ids, held_targets, run.cfg) for p in run.snapshot_params]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.6), layout="constrained")
    left.plot(run.losses, color="#333333", lw=2)
    left.axhline(np.log(run.cfg.vocab_size), color="0.5", ls=":", lw=1.5)
    left.text(len(run.losses) - 1, np.log(run.cfg.vocab_size) * 1.03,
              f"ln {run.cfg.vocab_size}: a uniform guess", ha="right", va="bottom", fontsize=FONT["ticks"])
    left.set(xlabel="step", ylabel="training loss", ylim=(0, np.log(run.cfg.vocab_size) * 1.2))
    right.plot(run.snapshot_steps, acc, "o-", color=ROLE_COLORS["query"], lw=2, label="model")
    right.axhline(baseline, color=ROLE_COLORS["key"], ls="--", lw=2, label="best guess without attention")
    right.set(xlabel="step", ylabel="held-out accuracy", ylim=(0, 1.05))
    right.legend(fontsize=FONT["ticks"], loc="center right")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.xaxis.label.set_size(FONT["labels"])
        ax.yaxis.label.set_size(FONT["labels"])
        ax.tick_params(labelsize=FONT["ticks"])
    return fig


def plot_saturation(table: dict[str, np.ndarray], show_steps: int = 100) -> Figure:
    """The training losses of saturation_experiment(): colour = how the model starts (grey: spread
    weights, red: nearly one-hot rows at step 0), line style = scaled (solid) or unscaled (dashed)."""
    table = as_table(table, ("names", "losses", "max_weight"), "saturation_experiment()")
    fig, ax = plt.subplots(figsize=(10, 4.6), layout="constrained")
    for name, runs, peak in zip(table["names"], table["losses"], table["max_weight"]):
        colour = "#b00020" if peak > 0.75 else "#333333"
        style = "--" if str(name).startswith("unscaled") else "-"
        for i, L in enumerate(runs):
            ax.plot(L[:show_steps], color=colour, ls=style, lw=1.8, alpha=0.8,
                    label=f"{name} (step 0: largest weight {peak:.2f})" if i == 0 else None)
    ax.set_xlabel("step", fontsize=FONT["labels"])
    ax.set_ylabel("training loss", fontsize=FONT["labels"])
    ax.set_title(f"{table['losses'].shape[1]} seeds each. Red: rows start nearly one-hot; grey: spread out",
                 fontsize=FONT["title"])
    ax.tick_params(labelsize=FONT["ticks"])
    ax.legend(fontsize=FONT["ticks"] - 1, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.grid(alpha=0.3)
    return fig
