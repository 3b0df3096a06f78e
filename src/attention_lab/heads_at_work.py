"""Lesson 09, what the heads do (from correlation to cause): knock heads out (its section 1), a sliding
window that keeps the sink (section 2), a read of every block (the logit lens, section 3); and, for the
section still to come, sampling.

Each function checks its arguments, then runs real_model's own forward pass (`forward_unchecked`) with one
change: chosen heads' outputs replaced before W_O; a sliding-window mask that keeps the first tokens
(StreamingLLM, Xiao et al. 2023; the tokens keep their positions in the text, where StreamingLLM renumbers
them inside its cache); or the residual stream read after each block (the logit lens).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_count,
    as_kind,
    as_positive,
    as_record,
    distinct_names,
    first_copy_loss,
    knock_rows,
    knocked_heads,
    lens_logits,
    logit_row,
    loss_curves,
    loss_dots,
    model_ids,
    period_fits,
    repeats_after,
    top_k_fits,
)
from .blas import one_blas_thread
from .matrix import softmax_unchecked
from .real_model import RealModel, forward_unchecked, prefix_matching_scores, rms_norm, token_losses

ABLATIONS = ("zero", "mean")

STREAM_TEXT = (
    "The lighthouse keeper on the northern island kept a notebook for every storm. In the first pages "
    "she wrote only the date, the direction of the wind and the height of the waves, because her "
    "teacher had told her that numbers would outlast her memory. Later the notes grew longer. She "
    "described the color of the sky an hour before the rain, the way the gulls flew low over the "
    "harbor, and the sound the old iron door made when the pressure dropped. Fishermen began to visit "
    "her on calm evenings. They asked whether the next week would be safe, and she would turn the pages "
    "slowly, looking for a storm that had started in the same way. Sometimes she found one, and her "
    "answer was careful and short. Sometimes she found nothing, and she said so, which the fishermen "
    "trusted even more. After twenty years the notebooks filled three shelves. A young scientist from "
    "the mainland came to copy them, and she was surprised to see how often the keeper had been right. "
    "The scientist counted the storms, drew the wind on large sheets of paper, and searched for rules. "
    "Some rules were simple: a falling barometer and a western wind meant rain by the morning. Others "
    "were strange, and the keeper could not explain them, although she had written them down with the "
    "same patience. When the scientist asked why she had kept writing for so long, the keeper laughed "
    "and said that a notebook is a conversation with the person you will be next year, and that this "
    "person always wants to know what the sea was doing today. The scientist wrote that sentence on the "
    "first page of her own notebook, and she still reads it before every journey to the islands."
)
"""An original paragraph (written for this lesson) of more than 300 tokens, for the sliding window."""


def _knock_table(knock: Iterable[tuple[int, int]], model: RealModel) -> dict[int, list[int]]:
    """Checked (layer, head) pairs -> {layer: sorted heads}, each head once."""
    table: dict[int, set[int]] = {}
    for layer, head in knocked_heads(knock, model.n_layers, model.n_heads, first_layer=0):
        table.setdefault(layer, set()).add(head)
    return {layer: sorted(heads) for layer, heads in table.items()}


def knockout_forward(model: RealModel, ids: Sequence[int], knock: Iterable[tuple[int, int]],
                     ablation: str = "zero",
                     keep_weights: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """forward with the heads in `knock`, (layer, head) pairs, replaced before W_O: by zeros, or with
    ablation='mean' by that head's mean output over the positions of this text -> (logits, weights)."""
    model = as_record(model, RealModel, "model")
    ids = model_ids(ids, len(model.embedding))
    table = _knock_table(knock, model)
    ablation = as_kind(ablation, ABLATIONS, "ablation")
    with one_blas_thread():
        return forward_unchecked(model, ids, keep_weights=bool(keep_weights), knock=table, ablation=ablation)


def random_heads(model: RealModel, count: int, seed: int = 0) -> list[tuple[int, int]]:
    """`count` distinct (layer, head) pairs drawn from all the model's heads by default_rng(seed), sorted."""
    model = as_record(model, RealModel, "model")
    total = model.n_layers * model.n_heads
    count = as_count(count, "count")
    if count > total:
        raise ValueError(f"count is {count}: expected at most {total}, the model's number of heads")
    picks = np.random.default_rng(as_count(seed, "seed", minimum=0)).choice(total, size=count, replace=False)
    return sorted(divmod(int(i), model.n_heads) for i in picks)


def second_copy_loss(model: RealModel, ids: Sequence[int], knock: Iterable[tuple[int, int]], period: int,
                     ablation: str = "zero") -> float:
    """Mean loss (nats) on the second copy of a text that repeats after `period` tokens (predicting tokens
    period + 1 on), with the heads in `knock` knocked out."""
    model = as_record(model, RealModel, "model")
    ids = model_ids(ids, len(model.embedding))
    period = period_fits(period, len(ids))
    repeats_after(ids, period)
    logits, _ = knockout_forward(model, ids, knock, ablation)
    return float(token_losses(logits, ids)[period:].mean())


def knockout_table(model: RealModel, ids: Sequence[int], sets: dict[str, Iterable[tuple[int, int]]],
                   period: int, watch: Iterable[tuple[int, int]],
                   ablation: str = "zero") -> dict[str, tuple[float, float]]:
    """For each named set of heads knocked out: (the second-copy loss, the mean prefix-matching score of the
    heads in `watch`) -> {name: (loss, score)}."""
    model = as_record(model, RealModel, "model")
    ids = model_ids(ids, len(model.embedding))
    period = period_fits(period, len(ids))
    repeats_after(ids, period)
    watch = knocked_heads(watch, model.n_layers, model.n_heads, first_layer=0)
    if not watch:
        raise ValueError("watch is empty: expected the (layer, head) pairs whose prefix score to report")
    if not isinstance(sets, dict) or not sets:
        raise TypeError(f"sets is {sets!r}: expected a dict {{name: [(layer, head), ...]}}, e.g. "
                        "{'none': [], 'one head': [(16, 0)]}")
    rows, layers, heads = {}, [layer for layer, _ in watch], [head for _, head in watch]
    for name, knock in zip(distinct_names(sets, "sets"), sets.values()):
        logits, weights = knockout_forward(model, ids, knock, ablation, keep_weights=True)
        scores = prefix_matching_scores(np.stack(weights), period)       # (layers, heads)
        loss = float(token_losses(logits, ids)[period:].mean())
        rows[name] = (loss, float(scores[layers, heads].mean()))
    return rows


def plot_knockouts(table: dict[str, tuple[float, float]], others: dict[str, Sequence[float]] | None = None,
                   first_copy: float | None = None, title: str = ""):
    """knockout_table's rows as bars (second-copy loss, candidates' prefix score); others: losses as dots,
    spread up and down a little so that equal losses stay apart."""
    import matplotlib.pyplot as plt
    rows, others, first_copy = knock_rows(table), loss_dots(others), first_copy_loss(first_copy)
    names = distinct_names([*rows, *others], "table and others together")
    y = dict(zip(names, np.arange(len(names))[::-1]))                   # the first row on top
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 0.8 * len(names) + 1.7), layout="constrained",
                                      sharey=True)
    for ax, col, xlabel, color in ((left, 0, "loss on the second copy (nats)", "#333333"),
                                   (right, 1, "prefix-matching score of the candidates", "#CC79A7")):
        for name, row in rows.items():
            ax.barh(y[name], row[col], color=color, height=0.6)
            ax.text(row[col], y[name], f" {row[col]:.2f}", va="center", fontsize=13)
        ax.set_xlabel(xlabel, fontsize=13)
        ax.tick_params(labelsize=13)
    for name, values in others.items():
        spread = np.linspace(-0.25, 0.25, len(values)) if len(values) > 1 else np.zeros(1)
        left.plot(values, y[name] + spread, "o", color="#333333", ms=9, alpha=0.7)
        right.text(0.02, y[name], "not measured", va="center", fontsize=13, color="#777777")
    losses = [row[0] for row in rows.values()] + [v for vs in others.values() for v in vs]
    left.set_xlim(0, 1.2 * max(*losses, first_copy or 0.0))
    right.set_xlim(0, 1.0)
    left.set_yticks(list(y.values()), names)
    left.set_ylabel("heads knocked out", fontsize=13)
    if first_copy is not None:
        left.axvline(first_copy, color="#0072B2", ls="--")
        left.text(first_copy, y[names[-1]] + 0.5, "first copy ", color="#0072B2", fontsize=13, ha="right",
                  va="center")
    if title:
        fig.suptitle(str(title), fontsize=14)
    return fig


def window_mask_unchecked(n: int, window: int, keep: int) -> np.ndarray:
    """window_mask on checked whole numbers."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]                 # (n, 1) queries, (1, n) keys
    return (j <= i) & ((i - j < window) | (j < keep))                    # (n, n)


def window_mask(n: int, window: int, keep: int = 0) -> np.ndarray:
    """(n, n) boolean: query i sees keys i-window+1..i (itself included) and the first `keep` tokens."""
    n, window = as_count(n, "n (number of tokens)"), as_count(window, "window")
    return window_mask_unchecked(n, window, as_count(keep, "keep", minimum=0))


def window_forward(model: RealModel, ids: Sequence[int], window: int, keep: int = 0,
                   keep_weights: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """forward in which each token sees only the last `window` tokens and the first `keep` ones (a
    sliding-window KV cache that keeps the sink) -> (logits (n, vocab), weights (h, n, n) per block)."""
    model = as_record(model, RealModel, "model")
    ids = model_ids(ids, len(model.embedding))
    mask = window_mask_unchecked(len(ids), as_count(window, "window"), as_count(keep, "keep", minimum=0))
    with one_blas_thread():
        return forward_unchecked(model, ids, keep_weights=bool(keep_weights), mask=mask)


# one look per run, none a role colour: dark grey, pink, orange, then dotted, dash-dotted and grey lines
WINDOW_STYLES = (("-", "#333333"), ("-", "#CC79A7"), ("--", "#E69F00"), (":", "#333333"), ("-.", "#CC79A7"),
                 ("--", "#999999"))


def plot_window(losses: dict[str, ArrayLike], window: int, smooth: int = 32, title: str = ""):
    """Left, which keys each of 12 queries sees with a window of 4 that keeps the first token; right, each
    run's per-token loss (a running mean over `smooth` tokens) by position, a line where the window
    starts to drop tokens."""
    import matplotlib.pyplot as plt

    from .heatmaps import heatmap
    curves = loss_curves(losses, most=len(WINDOW_STYLES))
    window, smooth = as_count(window, "window"), as_count(smooth, "smooth")
    n = len(next(iter(curves.values())))
    if smooth > n:
        raise ValueError(f"smooth is {smooth} but the losses cover {n} tokens: expected at most {n}")
    if window >= n:
        raise ValueError(f"window is {window} but the losses cover {n} predictions: a window that long "
                         f"drops nothing here; expected at most {n - 1}")
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.6), layout="constrained", width_ratios=[1, 1.9])
    places = [str(i) for i in range(12)]
    heatmap(window_mask_unchecked(12, 4, 1).astype(float), places, places, ax=left, kind="input", fmt=".0f",
            cbar=False, title="window 4, first token kept:\n1 = the query sees that key")
    x = np.arange(smooth - 1, n)                                         # the last token of each average
    means = {name: np.convolve(row, np.ones(smooth) / smooth, mode="valid") for name, row in curves.items()}
    for (name, mean), (style, color) in zip(means.items(), WINDOW_STYLES):   # (n - smooth + 1,) each
        right.plot(x, mean, style, color=color, lw=2.5, label=f"{name}: mean {curves[name].mean():.2f}")
    right.axvline(window, color="0.5", lw=1)
    rows = -(-len(curves) // 2) if len(curves) > 3 else 1                # legend rows
    top = (1.2 + 0.12 * rows) * max(float(mean.max()) for mean in means.values())   # room for the legend
    right.set_ylim(0, top)
    right.text(window, 0.02 * top, f" token {window}: token 0 leaves a window of {window}", fontsize=12,
               color="0.35")
    right.set_xlabel("position t in the text", fontsize=13)
    right.set_ylabel(f"loss (nats), mean over t − {smooth - 1} … t", fontsize=13)
    right.tick_params(labelsize=13)
    right.legend(fontsize=12, loc="upper center", ncol=3 if len(curves) <= 3 else 2)
    if title:
        fig.suptitle(str(title), fontsize=14)
    return fig


def next_token_probs(logits: ArrayLike, tau: float = 1.0, top_k: int | None = None) -> np.ndarray:
    """softmax(logits / tau) over the top_k largest logits, zero elsewhere: (vocab,). tau = 0 puts all
    the probability on the largest logit (greedy); top_k None keeps every token."""
    z = logit_row(logits)                                                # (vocab,) float64 copy
    tau = as_positive(tau, "tau", "0.7", zero=True)
    top_k = top_k_fits(top_k, len(z))
    if top_k is not None:
        order = np.argsort(-z, kind="stable")                            # largest first; ties: lower id
        z[order[top_k:]] = -np.inf                                       # the rest can never be drawn
    p = np.zeros_like(z)
    if tau == 0.0:
        p[np.argmax(z)] = 1.0                                            # the limit tau -> 0: greedy
        return p
    with np.errstate(over="ignore", under="ignore"):                     # tiny tau: exp(-huge) = 0
        return softmax_unchecked((z - z.max()) / tau)                    # (vocab,) the lessons' softmax


def sample_token(logits: ArrayLike, tau: float = 1.0, top_k: int | None = None, seed: int = 0) -> int:
    """One token id drawn from next_token_probs(logits, tau, top_k) by np.random.default_rng(seed)."""
    p = next_token_probs(logits, tau, top_k)
    rng = np.random.default_rng(as_count(seed, "seed", minimum=0))
    return int(rng.choice(len(p), p=p))


def logit_lens(model: RealModel, ids: Sequence[int], last_only: bool = False) -> np.ndarray:
    """The final RMSNorm and the tied output head applied to the residual stream after each block:
    logits (n_layers, n, vocab), or (n_layers, vocab) for the last token only."""
    model = as_record(model, RealModel, "model")
    ids = model_ids(ids, len(model.embedding))
    streams: list[np.ndarray] = []
    with one_blas_thread():
        forward_unchecked(model, ids, streams=streams)
        X = np.stack(streams)                                            # (n_layers, n, d)
        if last_only:
            X = X[:, -1]                                                 # (n_layers, d)
        return rms_norm(X, model.final_norm, model.eps) @ model.embedding.T   # (n_layers, [n,] vocab)


def lens_rank(lens: ArrayLike, token: int) -> tuple[np.ndarray, np.ndarray]:
    """For each block's row of logit_lens(..., last_only=True): the token's rank (1 + how many tokens
    score strictly more: 1 = top) and its probability (softmax of the row) -> ((n_layers,), (n_layers,))."""
    lens, token = lens_logits(lens, token)
    ranks = 1 + (lens > lens[:, [token]]).sum(axis=1)                    # (n_layers,)
    probs = softmax_unchecked(lens - lens.max(axis=1, keepdims=True))[:, token]   # (n_layers,)
    return ranks, probs


def plot_lens(lens: ArrayLike, token: int, word: str, title: str = ""):
    """A token's probability (left) and rank (right, log scale, rank 1 = top, drawn at the top) after
    each block, as the logit lens reads them."""
    import matplotlib.pyplot as plt
    ranks, probs = lens_rank(lens, token)
    blocks = np.arange(len(ranks))
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.6), layout="constrained")
    left.bar(blocks, probs, color="#333333")
    left.set_ylim(0, 1)
    left.set_ylabel(f"probability of {str(word)!r}", fontsize=13)
    right.plot(blocks, ranks, "o-", color="#CC79A7", lw=2, ms=6)
    right.set_yscale("log")
    right.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))   # 1, 10, 100, not 10^0
    right.invert_yaxis()                                                 # rank 1, the top guess, on top
    right.set_ylabel(f"rank of {str(word)!r} (1 = top guess)", fontsize=13)
    ticks = [*range(0, len(ranks) - 1, 5), len(ranks) - 1]                # 0, 5, ..., the last block
    for ax in (left, right):
        ax.set_xlabel("block (the residual stream after it)", fontsize=13)
        ax.set_xticks(ticks)
        ax.set_xlim(-0.7, len(ranks) - 0.3)
        ax.tick_params(labelsize=13)
    top = np.flatnonzero(ranks == 1)
    if top.size:
        left.text(top[0], probs[top[0]], f"{probs[top[0]]:.2f}", ha="center", va="bottom", fontsize=13)
    if title:
        fig.suptitle(str(title), fontsize=14)
    return fig
