"""The lessons' pictures (02-05): cost and scaling charts, the data flow of one attention, products
drawn as blocks of cells, the heads, the encoder-decoder arrows and the transformer block. They draw
with the plotting core (heatmaps.py); lesson 06's training charts are in training_plots.py."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import (
    as_matrix,
    as_scale,
    as_table,
    attention_inputs,
    projection_inputs,
    shape_of,
    weights_in_0_1,
)
from .alt_text import say
from .heads import multi_head_inputs, multi_head_parts
from .heatmaps import (
    FONT,
    LINE_COLORS,
    ROLE_COLORS,
    SCORES_RED,
    WEIGHTS_CMAP,
    heatmap,
    kind_color,
    kind_style,
    labels_fit,
    text_color,
)
from .matrix import attention_scores, attention_unchecked, project_unchecked


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def one_word_per_row(X: np.ndarray, tokens) -> list:
    """The tokens as a list, one word per row of X: ValueError otherwise."""
    tokens = list(tokens)
    if len(tokens) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but there are {len(tokens)} tokens: "
                         "expected one word per row")
    return tokens


def one_sequence(Q: np.ndarray, who: str) -> np.ndarray:
    """Q of one sequence, (m, d_k): ValueError for a batch."""
    if Q.ndim != 2:
        raise ValueError(f"Q has shape {shape_of(Q)}: {who} draws one sequence, (m, d_k)")
    return Q


def encoder_decoder_weights(enc_tokens, dec_tokens, self_weights, cross_weights):
    """(enc, dec, S, C): the words as lists, S (m, m) and C (m, n) attention weights fitting them."""
    enc, dec = list(enc_tokens), list(dec_tokens)
    S = as_matrix(self_weights, "self_weights", "(m, m)")
    C = as_matrix(cross_weights, "cross_weights", "(m, n)")
    if S.shape != (len(dec), len(dec)) or C.shape != (len(dec), len(enc)):
        raise ValueError(f"self_weights {shape_of(S)} and cross_weights {shape_of(C)} do not fit "
                         f"{len(dec)} decoder and {len(enc)} encoder words: expected "
                         f"({len(dec)}, {len(dec)}) and ({len(dec)}, {len(enc)})")
    return enc, dec, weights_in_0_1(S, "self_weights"), weights_in_0_1(C, "cross_weights")
# pragma: no mutate end


def plot_scaling(table: dict[str, np.ndarray]) -> Figure:
    """Two panels: score spread vs d_k, and how peaked the softmax gets, with and without 1/sqrt(d_k)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    table = as_table(table, ("d_k", "std_unscaled", "std_scaled", "max_weight_unscaled", "max_weight_scaled"),
                     "scaling_experiment()")
    # pragma: no mutate end
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    table = as_table(table, ("n", "loop_s", "matrix_s"), "time_forms()")
    # pragma: no mutate end
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    ax.plot(table["n"], table["loop_s"], "o-", color=LINE_COLORS[0],
            label="loop (attend_one per token)")
    ax.plot(table["n"], table["matrix_s"], "s-", color=LINE_COLORS[1], label="matrix form")
    ax.set(xscale="log", yscale="log", xlabel="number of tokens n", ylabel="seconds for all n outputs")
    ax.set_title("the same numbers, computed two ways", fontsize=FONT["title"])
    ax.legend(fontsize=FONT["ticks"] - 1)
    ax.xaxis.label.set_size(FONT["labels"])
    ax.yaxis.label.set_size(FONT["labels"])
    n = table["n"]
    slower = "at every n the loop takes longer" if np.all(table["loop_s"] > table["matrix_s"]) else \
        "the loop is not slower at every n"
    return say(fig, "Figure. “the same numbers, computed two ways”: a line chart on log scales of the "
                    "seconds for all n outputs against the number of tokens n, from "
                    f"{n[0]} to {n[-1]}, for the loop (attend_one per token) and the matrix form; "
                    f"{slower} (the times are this computer's, measured when the lesson ran).")


def is_identity(W: np.ndarray) -> bool:
    """Whether a projection leaves every feature as it is (square, and equal to the identity)."""
    return W.shape[0] == W.shape[1] and np.array_equal(W, np.eye(len(W)))


def plot_flow(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, tokens: Sequence[str],
              features: Sequence[str], scale: float | None = None) -> Figure:
    """The data flow X -> Q, K, V -> scores -> weights -> Y, each panel drawn from the real numbers."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    tokens, features = labels_fit(X, tokens, features)
    scale = as_scale(scale, W_q.shape[1])
    # pragma: no mutate end
    Q, K, V = project_unchecked(X, X, W_q, W_k, W_v)                      # (n, d_k), (n, d_k), (n, d_v)
    S = attention_scores(Q, K, scale)                                     # (n, n) drawn before softmax
    Y, A = attention_unchecked(Q, K, V, None, scale)                      # (n, d_v), (n, n)
    # a column is named by its feature only where it is that feature (W = I): K's columns then, and Q's
    # column c asks "feature c?" (it meets K's column c in q·k); else columns are counted from 0
    kcols = list(features) if is_identity(W_k) else [str(c) for c in range(W_k.shape[1])]
    qcols = [f"{f}?" for f in features] if is_identity(W_k) else kcols
    vcols = list(features) if is_identity(W_v) else [str(c) for c in range(W_v.shape[1])]
    panels = [(X, "input", "X (tokens)", list(features)), (Q, "query", "Q = X W_q", qcols),
              (K, "key", "K = X W_k", kcols), (V, "value", "V = X W_v", vcols),
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
            ax.title.set_color(SCORES_RED if kind == "scores" else kind_color(kind))
            if kind != "weights":       # the weights have the legend's fixed 0-1 scale; every other
                label_nonzero(ax, values)  # panel has its own, so its numbers are written on it
    top.suptitle("X → Q, K, V (one colour per role)", fontsize=FONT["title"])
    bottom.suptitle("→ scores → softmax → weights (0–1) → weights · V = Y", fontsize=FONT["title"])
    return fig


def label_nonzero(ax, values: np.ndarray) -> None:
    """Write each non-zero entry of the heatmap on `ax` on its cell (2 significant digits), in black or
    white, whichever reads better on the cell's colour (text_color)."""
    mesh = ax.collections[0]
    for (r, c), value in np.ndenumerate(values):
        if value != 0:
            ax.text(c + 0.5, r + 0.5, f"{value:.2g}", ha="center", va="center", fontsize=FONT["annot"] - 2,
                    color=text_color(mesh.cmap(mesh.norm(value))))


def _matrix_block(ax, values: np.ndarray, kind: str, title: str, edges: Sequence[int] = (), cmap=None,
                  key: bool = False) -> None:
    """One matrix as a block of square cells, coloured by its kind (or by `cmap`), titled with its shape;
    with `key`, a colour bar under it."""
    kind_cmap, vmin, vmax = kind_style(kind, values)
    image = ax.imshow(values, cmap=cmap or kind_cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(np.arange(values.shape[1] + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(values.shape[0] + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    for edge in edges:                                   # head boundaries: thick black lines
        ax.axvline(edge - 0.5, color="black", linewidth=3)
    ax.set_title(f"{title}\n{shape_of(values)}", fontsize=FONT["title"], color=kind_color(kind))
    if key:
        bar = ax.figure.colorbar(image, ax=ax, location="bottom", shrink=0.9, aspect=12, pad=0.04,
                                 ticks=[vmin, 0.0, vmax] if vmin < 0 else [vmin, vmax])
        bar.outline.set_linewidth(0)
        bar.ax.tick_params(labelsize=FONT["ticks"] - 2)
        bar.ax.xaxis.set_major_formatter("{x:.2g}")


def _operator(ax, symbol: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, symbol, ha="center", va="center", fontsize=FONT["title"] + 8)


def _product_row(sub, row, edges: Sequence[int] = (), key: bool = False) -> None:
    """A row such as A @ B = C: (matrix, kind, title) blocks, or (matrix, kind, title, cmap), with '@' and
    '=' between them; with `key`, each block has its colour bar."""
    widths = [item[0].shape[1] if isinstance(item, tuple) else 0.8 for item in row]
    for ax, item in zip(sub.subplots(1, len(row), width_ratios=widths), row):
        if isinstance(item, str):
            _operator(ax, item)
        else:
            _matrix_block(ax, *item[:3], edges if item is row[0] else (), *item[3:], key=key)


def plot_shapes(Q: ArrayLike, K: ArrayLike, V: ArrayLike, scale: float | None = None) -> Figure:
    """QKᵀ and AV as blocks whose sizes are the arrays' shapes (one square per number), each with its
    colour bar. Every signed block is grey (negative), white (0) and a colour (positive): its role's for Q,
    Kᵀ, V and Y, red for the scores (never the query's blue)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    Q, K, V, _, scale = attention_inputs(Q, K, V, None, scale)
    Q = one_sequence(Q, "plot_shapes")
    # pragma: no mutate end
    Y, A = attention_unchecked(Q, K, V, None, scale)  # (m, d_v), (m, n)
    rows = [[(Q, "query", "Q"), "@", (K.T, "key", "Kᵀ"), "=", (Q @ K.T, "scores", "scores Q Kᵀ")],
            [(A, "weights", "A = softmax(scores·scale)"), "@", (V, "value", "V"), "=",
             (Y, "value", "Y = A V")]]
    fig = plt.figure(figsize=(12, 3.4 + 0.9 * (Q.shape[0] + K.shape[1])), layout="constrained")
    for sub, row in zip(fig.subfigures(2, 1, height_ratios=[max(Q.shape[0], K.shape[1]) + 1.2,
                                                            Q.shape[0] + 1.2]), rows):
        _product_row(sub, row, key=True)
    fig.suptitle("shapes: (m, d_k) @ (d_k, n) = (m, n), then (m, n) @ (n, d_v) = (m, d_v)",
                 fontsize=FONT["title"])
    return fig


def plot_heads(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_O: ArrayLike,
               n_heads: int, tokens: Sequence[str]) -> Figure:
    """Multi-head attention as column blocks: Q, K, V cut into heads, one softmax each, concat @ W_O."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, _, W_q, W_k, W_v, W_O, h, _, scale = multi_head_inputs(X, X, W_q, W_k, W_v, W_O, n_heads)
    tokens = one_word_per_row(X, tokens)
    # pragma: no mutate end
    d_k = X.shape[1] // h
    edges = [i * d_k for i in range(1, h)]
    parts = multi_head_parts(X, X, W_q, W_k, W_v, W_O, h, None, scale)  # the kernel, every part kept
    Q, K, V, weights, concat = parts.Q, parts.K, parts.V, parts.weights, parts.concat  # (n, d), (h, n, n)
    fig = plt.figure(figsize=(13, 4 + 2.4 * max(1.0, len(X) / 3)), layout="constrained")
    top, middle, bottom = fig.subfigures(3, 1, height_ratios=[1.3, 1.1, 1])
    for ax, (M, kind, name) in zip(top.subplots(1, 3), ((Q, "query", "Q = X W_q"), (K, "key", "K = X W_k"),
                                                         (V, "value", "V = X W_v"))):
        _matrix_block(ax, M, kind, name, edges)
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    enc, dec, S, C = encoder_decoder_weights(enc_tokens, dec_tokens, self_weights, cross_weights)
    # pragma: no mutate end
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
    C2, S2 = np.round(C, 2), np.round(S, 2)                # the weights as the heatmaps print them
    for i, j in zip(*np.nonzero(C2 >= threshold)):         # cross-attention: query i -> key j
        ax.annotate("", xy=(xe[j], 0.35), xytext=(xd[i], 2.65),
                    arrowprops={"arrowstyle": "-|>", "color": purple(0.35 + 0.65 * C[i, j]),
                                "linewidth": 0.5 + 5 * C[i, j], "shrinkA": 0, "shrinkB": 0})
    for i, j in zip(*np.nonzero(S2 >= threshold)):         # masked self-attention: arcs above
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
                 f"every weight that rounds to {threshold} or more drawn, thicker = larger",
                 fontsize=FONT["title"])
    return fig


def plot_decoding_cost(table: dict[str, np.ndarray]) -> Figure:
    """Multiply-adds per decoding step, recomputing everything vs. with a KV cache."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    table = as_table(table, ("t", "no_cache", "cache"), "decoding_cost()")
    # pragma: no mutate end
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    ax.plot(table["t"], table["no_cache"], "o-", color=LINE_COLORS[0], label="recompute every step")
    ax.plot(table["t"], table["cache"], "s-", color=LINE_COLORS[1], label="with a KV cache")
    ax.set(yscale="log", xlabel="step t (tokens so far)", ylabel="multiply-adds in step t")
    scope = (f": one head, d_k = {table['d_k']}, d = {table['d']}" if "d" in table and "d_k" in table
             else ": one head")
    ax.set_title(f"work per generated token{scope}\n(no W_O, no feed-forward network)",
                 fontsize=FONT["title"])
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
