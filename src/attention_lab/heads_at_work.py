"""Lesson 09, what the heads do (from correlation to cause): knock heads out (its section 1), a sliding
window that keeps the sink (section 2), a read of every block (the logit lens, section 3), and your own
text: one head's weights and the next token with temperature, top-k and a seeded sample (section 4).

Each function checks its arguments, then runs real_model's own forward pass (`forward_unchecked`) with one
change: chosen heads' outputs replaced before W_O; a sliding-window mask that keeps the first tokens
(StreamingLLM, Xiao et al. 2023; the tokens keep their positions in the text, where StreamingLLM renumbers
them inside its cache); or the residual stream read after each block (the logit lens).
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_array,
    as_count,
    as_kind,
    as_positive,
    distinct_names,
    knocked_heads,
    shape_of,
    to_array,
)
from .blas import one_blas_thread
from .explorer_kit import Control, Explorer, Panel
from .heatmaps import thumbnail_gap
from .masks import causal_mask
from .matrix import softmax_unchecked
from .positions import rope_rotate
from .real_model import (
    PagesHeld,
    RealModel,
    as_real_model,
    encode,
    forward_unchecked,
    grouped_attention_unchecked,
    head_picks,
    head_view_size,
    model_ids,
    period_fits,
    prefix_matching_scores,
    rms_norm,
    rope_turn,
    shared_key,
    swiglu,
    token_losses,
    token_strings,
    unembed,
)
from .run_memo import once

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


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def _loss(value, where: str) -> float:
    """A loss in nats: one finite real number, not negative."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} is {value!r}: expected a loss, one number in nats")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{where} is {value!r}: expected a loss, a finite number of nats, 0 or more")
    return float(value)


def knock_rows(table) -> dict[str, tuple[float, float]]:
    """knockout_table's rows: a non-empty dict {name: (loss, score)}: a loss >= 0 and a score in 0..1."""
    if not isinstance(table, dict) or not table:
        raise TypeError(f"table is {table!r}: expected the dict {{name: (loss, score)}} that "
                        "heads_at_work.knockout_table returns")
    rows = {}
    for name, text in zip(table, distinct_names(table, "the table's rows")):
        row = table[name]
        if (isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 2
                or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in row)):
            raise TypeError(f"table row {name!r} is {row!r}: expected (loss, score), two numbers")
        loss = _loss(row[0], f"the loss of table row {name!r}")
        if not 0.0 <= row[1] <= 1.0:
            raise ValueError(f"the score of table row {name!r} is {row[1]!r}: expected a prefix-matching "
                             "score, a mean weight in 0..1")
        rows[text] = (loss, float(row[1]))
    return rows


def loss_dots(others) -> dict[str, list[float]]:
    """None or a dict {name: [loss, ...]} of losses -> {str name: [float, ...]}."""
    if others is None:
        return {}
    if not isinstance(others, dict):
        raise TypeError(f"others is {others!r}: expected None or a dict {{name: [loss, ...]}}")
    dots = {}
    for name, text in zip(others, distinct_names(others, "others")):
        values = others[name]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"others[{name!r}] is {values!r}: expected a list of losses (numbers)")
        dots[text] = [_loss(v, f"a loss in others[{name!r}]") for v in values]
    return dots


def loss_curves(losses, most: int) -> dict[str, np.ndarray]:
    """A dict of 1 to `most` runs {name: per-token losses}: 1-D, real, finite, >= 0, one length >= 2."""
    if not isinstance(losses, dict) or not losses:
        raise TypeError(f"losses is {type(losses).__name__}: expected a dict {{name: per-token losses}}, "
                        "e.g. {'full': rm.token_losses(logits, ids)}")
    if len(losses) > most:
        raise ValueError(f"losses holds {len(losses)} runs: expected at most {most}, one line style each")
    curves = {}
    for name, text in zip(losses, distinct_names(losses, "losses")):
        values = losses[name]
        hint = ("expected one loss per token, e.g. rm.token_losses(logits, ids) (not the (logits, weights) "
                "that window_forward returns)")
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
            raise TypeError(f"losses[{name!r}] is {type(values).__name__}: {hint}")
        try:
            row = np.asarray(values)
        except ValueError:                                   # ragged: a tuple of arrays of other shapes
            raise TypeError(f"losses[{name!r}] is a {type(values).__name__} of parts of different shapes: "
                            f"{hint}") from None
        if row.dtype.kind not in "iuf":
            raise TypeError(f"losses[{name!r}] holds {row.dtype} values: {hint}, real numbers")
        if row.ndim != 1 or len(row) < 2:
            raise ValueError(f"losses[{name!r}] has shape {row.shape}: {hint}, a 1-D list of at least 2")
        row = row.astype(np.float64)
        if not np.isfinite(row).all() or (row < 0).any():
            raise ValueError(f"losses[{name!r}] holds a NaN, an infinity or a negative number: expected "
                             "losses in nats, finite and 0 or more")
        curves[text] = row
    lengths = sorted({len(row) for row in curves.values()})
    if len(lengths) > 1:
        raise ValueError(f"the losses have lengths {lengths}: expected one length, the same text's tokens")
    return curves


def lens_logits(lens, token) -> tuple[np.ndarray, int]:
    """logit_lens(..., last_only=True)'s (n_layers, vocab) logits as float64, and a token id inside vocab."""
    shape = np.shape(lens) if isinstance(lens, np.ndarray) else None
    if shape is not None and len(shape) == 3:
        raise ValueError(f"lens has shape {shape}: expected (n_layers, vocab), one row per block for the "
                         "last token: call logit_lens(model, ids, last_only=True), or take lens[:, -1]")
    if shape is not None and len(shape) == 1:
        raise ValueError(f"lens has shape {shape}: expected (n_layers, vocab), one row per block: "
                         "logit_lens(model, ids, last_only=True) gives it")
    lens = as_array(lens, "lens", "(n_layers, vocab), what logit_lens(model, ids, last_only=True) returns",
                    ndim=2)
    if isinstance(token, (bool, np.bool_)) or not isinstance(token, numbers.Integral):
        raise TypeError(f"token is {token!r} of type {type(token).__name__}: expected one token id, a whole "
                        "number, e.g. rm.encode(model, ' Paris')[0]")
    if not 0 <= token < lens.shape[1]:
        raise ValueError(f"token is {token} but the lens scores {lens.shape[1]} tokens: expected an id in "
                         f"0..{lens.shape[1] - 1}")
    return lens, int(token)


def first_copy_loss(value) -> float | None:
    """None, or the first copy's mean loss: one finite number of nats."""
    return None if value is None else _loss(value, "first_copy")


def repeats_after(ids: np.ndarray, period: int) -> None:
    """The text repeats after `period` tokens: token t + period is token t, for every t."""
    differ = np.flatnonzero(ids[period:] != ids[:len(ids) - period])
    if differ.size:
        t = int(differ[0])
        raise ValueError(f"the ids do not repeat after period {period}: token {t + period} is "
                         f"{int(ids[t + period])}, token {t} is {int(ids[t])}; expected a text whose second "
                         "copy starts at token period, e.g. rm.repeated_random_tokens(model, period)")


def logit_row(logits) -> np.ndarray:
    """One row of logits (vocab,), real and finite, as float64."""
    arr = to_array(logits, "logits")
    if arr.ndim != 1:
        raise ValueError(f"logits has shape {shape_of(arr)}: expected one row (vocab,), e.g. the last "
                         "token's logits[-1]")
    return as_array(arr, "logits", "(vocab,)", min_ndim=1)


def top_k_fits(top_k, vocab_size: int) -> int | None:
    """None (every token), or a whole number of tokens 1..vocab_size."""
    if top_k is None:
        return None
    top_k = as_count(top_k, "top_k")
    if top_k > vocab_size:
        raise ValueError(f"top_k is {top_k} but there are {vocab_size} tokens: expected 1..{vocab_size}, "
                         "or None for every token")
    return top_k

# pragma: no mutate end


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
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    table = _knock_table(knock, model)
    ablation = as_kind(ablation, ABLATIONS, "ablation")
    # pragma: no mutate end
    with one_blas_thread():
        return forward_unchecked(model, ids, keep_weights=bool(keep_weights), knock=table, ablation=ablation)


def random_heads(model: RealModel, count: int, seed: int = 0) -> list[tuple[int, int]]:
    """`count` distinct (layer, head) pairs drawn from all the model's heads by default_rng(seed), sorted."""
    return random_head_sets(model, count, 1, seed)[0]


def random_head_sets(model: RealModel, count: int, sets: int, seed: int = 0) -> list[list[tuple[int, int]]]:
    """`sets` draws of `count` distinct (layer, head) pairs, one after another from one default_rng(seed);
    each sorted (the first set is random_heads(model, count, seed))."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    total = model.n_layers * model.n_heads
    count, sets = as_count(count, "count"), as_count(sets, "sets")
    if count > total:
        raise ValueError(f"count is {count}: expected at most {total}, the model's number of heads")
    # pragma: no mutate end
    rng = np.random.default_rng(as_count(seed, "seed", minimum=0))
    return [sorted(divmod(int(i), model.n_heads) for i in rng.choice(total, size=count, replace=False))
            for _ in range(sets)]


def clean_run(model: RealModel, ids: np.ndarray, keep_weights: bool) -> tuple[list[np.ndarray], list]:
    """The clean run's residual stream after each block, and its weights if kept (checked ids)."""
    streams: list[np.ndarray] = []
    _, weights = forward_unchecked(model, ids, keep_weights=keep_weights, streams=streams, release=False)
    return streams, weights


def knocked_losses(model: RealModel, ids: np.ndarray, tables: list[dict[int, list[int]]], ablation: str,
                   keep_weights: bool, clean: tuple[list[np.ndarray], list] | None, start: int
                   ) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """Checked inputs -> knockout_runs' result: the losses of predicting tokens start + 1 on, for each
    knockout table {block: heads} (tables, n - 1 - start), and the weights of every block if kept."""
    key = shared_key(model)
    if key is None:
        return knocked_losses_computed(model, ids, tables, ablation, keep_weights, clean, start)
    tables_key = [sorted((int(k), sorted(int(h) for h in v)) for k, v in table.items()) for table in tables]
    given = None if clean is None else digest([*clean[0], *clean[1]])     # the clean run handed in, itself
    return once("knocked_losses", (key, np.asarray(ids, np.int64).tobytes(), tables_key, ablation,
                                   bool(keep_weights), given, start),                # once per test run
                lambda: knocked_losses_computed(model, ids, tables, ablation, keep_weights, clean, start))


def digest(arrays: list[np.ndarray]) -> str:
    """A fingerprint of arrays (each one's shape, type and bytes): what names a clean run in a shared key."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype.str}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def knocked_losses_computed(model: RealModel, ids: np.ndarray, tables: list[dict[int, list[int]]],
                            ablation: str, keep_weights: bool,
                            clean: tuple[list[np.ndarray], list] | None, start: int
                            ) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """knocked_losses, computed in this process (its caller holds the weight pages: knockout_runs)."""
    final, weights = knocked_blocks_computed(model, ids, tables, ablation, keep_weights, clean)
    losses = np.stack([token_losses(unembed(rms_norm(X[start:], model.final_norm, model.eps),
                                            model.embedding), ids[start:])
                       for X in final])                                  # (tables, n - 1 - start)
    return losses, weights


def knocked_blocks_computed(model: RealModel, ids: np.ndarray, tables: list[dict[int, list[int]]],
                            ablation: str, keep_weights: bool,
                            clean: tuple[list[np.ndarray], list] | None = None
                            ) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """Checked inputs -> for each knockout table {block: heads}: (the final stream (n, d), the weights of
    every block if kept). One clean run gives the stream up to the first knocked block of each table
    (those blocks are the clean run's); from there the tables' streams go through each block together,
    stacked into one (tables * n, d) array, so that each weight matrix is read once per block. Every row is
    computed as forward_unchecked computes it: the results are the same to the last bit."""
    n, L, h, d_k = len(ids), model.n_layers, model.n_heads, model.head_width
    streams, clean_w = clean if clean is not None else clean_run(model, ids, keep_weights)
    before = [model.embedding[ids], *streams]                            # before[i]: the stream into block i
    starts = [min(table, default=L) for table in tables]                 # the first knocked block
    final: list = [streams[-1] if start == L else None for start in starts]
    weights = [list(clean_w[:start]) for start in starts] if keep_weights else [[] for _ in tables]
    turn, mask = rope_turn(model, np.arange(n)), causal_mask(n)
    active: list[int] = []
    X = np.zeros((0, model.d), np.float32)
    for i, b in enumerate(model.blocks):
        joining = [k for k, start in enumerate(starts) if start == i]
        if joining:
            active += joining
            X = np.concatenate([X, *[before[i]] * len(joining)])         # (len(active) n, d)
        if not active:
            continue
        H = rms_norm(X, b.attn_norm, model.eps)                          # (len(active) n, d)
        Qs, Ks, Vs = H @ b.W_q, H @ b.W_k, H @ b.W_v
        outs = []
        for row, k in enumerate(active):
            part = slice(row * n, (row + 1) * n)
            Q = rope_rotate(Qs[part].reshape(n, h, d_k).transpose(1, 0, 2), *turn)   # (h, n, d_k)
            K = rope_rotate(Ks[part].reshape(n, -1, d_k).transpose(1, 0, 2), *turn)  # (g, n, d_k)
            V = Vs[part].reshape(n, -1, d_k).transpose(1, 0, 2)          # (g, n, d_k)
            out, w = grouped_attention_unchecked(Q, K, V, mask)          # (h, n, d_k), (h, n, n)
            for head in tables[k].get(i, ()):
                out[head] = out[head].mean(axis=0) if ablation == "mean" else 0.0
            outs.append(out.transpose(1, 0, 2).reshape(n, -1))
            if keep_weights:
                weights[k].append(w.astype(np.float32))
        X = X + np.concatenate(outs) @ b.W_O                             # residual 1
        X = X + swiglu(rms_norm(X, b.ffn_norm, model.eps), b.W_gate, b.W_up, b.W_down)   # residual 2
    for row, k in enumerate(active):
        final[k] = X[row * n:(row + 1) * n]
    return final, weights


def knockout_runs(model: RealModel, ids: Sequence[int], sets: Sequence[Iterable[tuple[int, int]]],
                  ablation: str = "zero", keep_weights: bool = False, start: int = 0,
                  clean: tuple[list[np.ndarray], list] | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """Many knockouts of one text at once: for each set of (layer, head) pairs, knockout_forward's result
    -> (the losses of predicting tokens start + 1 on (sets, n - 1 - start), each set's weights (layers,
    heads, n, n) if kept). The logits of earlier tokens are not computed. The residual streams are
    knockout_forward's to the last bit; the losses to float32's rounding (below 16 rows, the output head's
    product rounds a row's logits by how many rows it multiplies at once: unembed, up to 3e-5 nats).
    `clean`: clean_run's result for these ids (with weights if kept), to share one clean run between
    calls."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    if isinstance(sets, (str, bytes, dict)) or not hasattr(sets, "__len__") or not len(sets):
        raise TypeError(f"sets is {sets!r}: expected a list of knockouts, each a list of (layer, head) "
                        "pairs, e.g. [[], [(16, 0)], [(1, 5), (17, 3)]]")
    tables = [_knock_table(knock, model) for knock in sets]
    ablation = as_kind(ablation, ABLATIONS, "ablation")
    start = as_count(start, "start", minimum=0)
    if start > len(ids) - 2:
        raise ValueError(f"start is {start} with {len(ids)} tokens: expected 0..{len(ids) - 2}")
    # pragma: no mutate end
    with one_blas_thread(), PagesHeld(model):                           # one run, the unembedding too
        losses, weights = knocked_losses(model, ids, tables, ablation, bool(keep_weights), clean, start)
    return losses, [np.stack(w) for w in weights] if keep_weights else []


def second_copy_loss(model: RealModel, ids: Sequence[int], knock: Iterable[tuple[int, int]], period: int,
                     ablation: str = "zero") -> float:
    """Mean loss (nats) on the second copy of a text that repeats after `period` tokens (predicting tokens
    period + 1 on), with the heads in `knock` knocked out."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    period = period_fits(period, len(ids))
    repeats_after(ids, period)
    # pragma: no mutate end
    logits, _ = knockout_forward(model, ids, knock, ablation)
    return float(token_losses(logits, ids)[period:].mean())


def knockout_table(model: RealModel, ids: Sequence[int], sets: dict[str, Iterable[tuple[int, int]]],
                   period: int, watch: Iterable[tuple[int, int]],
                   ablation: str = "zero") -> dict[str, tuple[float, float]]:
    """For each named set of heads knocked out: (the second-copy loss, the mean prefix-matching score of the
    heads in `watch`) -> {name: (loss, score)}."""
    rows = knockout_rows(model, ids, sets, period, watch, (ablation,))
    return {name: (row[f"second copy, {ablation}"], row["prefix score, " + ablation])
            for name, row in rows.items()}


def knockout_rows(model: RealModel, ids: Sequence[int], sets: dict[str, Iterable[tuple[int, int]]],
                  period: int, watch: Iterable[tuple[int, int]], ablations: Sequence[str] = ABLATIONS
                  ) -> dict[str, dict[str, Any]]:
    """For each named set of heads knocked out and each ablation: the mean loss on the first copy (tokens
    1..period - 1) and on the second (period + 1 on), and the mean prefix-matching score of the heads in
    `watch`, and each watched head's own score -> {name: {"first copy, zero": ..., "second copy, zero": ...,
    "prefix score, zero": ..., "prefix score by head, zero": {(layer, head): ...}}}."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    period = period_fits(period, len(ids))
    repeats_after(ids, period)
    watch = knocked_heads(watch, model.n_layers, model.n_heads, first_layer=0)
    if not watch:
        raise ValueError("watch is empty: expected the (layer, head) pairs whose prefix score to report")
    if not isinstance(sets, dict) or not sets:
        raise TypeError(f"sets is {sets!r}: expected a dict {{name: [(layer, head), ...]}}, e.g. "
                        "{'none': [], 'one head': [(16, 0)]}")
    if isinstance(ablations, str) or not ablations:
        raise TypeError(f"ablations is {ablations!r}: expected a list of 'zero' and/or 'mean'")
    ablations = [as_kind(a, ABLATIONS, "ablation") for a in ablations]
    # pragma: no mutate end
    names = distinct_names(sets, "sets")
    knocks = [list(knock) for knock in sets.values()]
    layers, heads = [layer for layer, _ in watch], [head for _, head in watch]
    rows: dict[str, dict[str, Any]] = {name: {} for name in names}
    with one_blas_thread(), PagesHeld(model):                           # one run: clean, then each ablation
        clean = clean_run(model, ids, keep_weights=True)                 # shared by the ablations
        for ablation in ablations:
            losses, weights = knockout_runs(model, ids, knocks, ablation, keep_weights=True, clean=clean)
            for name, loss, w in zip(names, losses, weights):
                rows[name][f"first copy, {ablation}"] = float(loss[:period - 1].mean())
                rows[name][f"second copy, {ablation}"] = float(loss[period:].mean())
                by_head = prefix_matching_scores(w, period)[layers, heads]  # (len(watch),)
                rows[name][f"prefix score, {ablation}"] = float(by_head.mean())
                rows[name][f"prefix score by head, {ablation}"] = dict(zip(watch, by_head.tolist()))
    return rows


def random_control(model: RealModel, ids: Sequence[int], count: int, sets: int, period: int, seed: int = 0,
                   ablation: str = "zero") -> tuple[list[list[tuple[int, int]]], np.ndarray]:
    """`sets` random sets of `count` heads (random_head_sets) knocked out one set at a time, all in one
    batched run -> (the sets, their second-copy losses (sets,))."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    period = period_fits(period, len(ids))
    repeats_after(ids, period)
    # pragma: no mutate end
    drawn = random_head_sets(model, count, sets, seed)
    losses, _ = knockout_runs(model, ids, drawn, ablation, start=period)
    return drawn, losses.mean(axis=1)


def percentile_of(value: float, others: ArrayLike) -> float:
    """The share of `others` (in percent) strictly below `value`."""
    others = np.asarray(others, dtype=float).ravel()
    # pragma: no mutate start  (the door: input checks are not mutated)
    if not others.size:
        raise ValueError("others is empty: expected the losses to compare with")
    # pragma: no mutate end
    return float(100.0 * (others < float(value)).mean())


def chance_at_least(below: int, sets: int) -> float:
    """The base rate of a random control: the chance that one more set, drawn as the `sets` random sets were,
    costs more than at least `below` of them, when every order of the sets + 1 losses is equally likely
    (no ties): (sets - below + 1) / (sets + 1). Beside 'more than 50 of 50', it says how often chance alone
    gives that (1 in 51)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    sets = as_count(sets, "sets")
    below = as_count(below, "below", minimum=0)
    if below > sets:
        raise ValueError(f"below is {below}: expected 0..{sets}, how many of the {sets} sets cost less")
    # pragma: no mutate end
    return (sets - below + 1) / (sets + 1)


def plot_knockouts(table: dict[str, tuple[float, float]], others: dict[str, Sequence[float]] | None = None,
                   first_copy: float | None = None, title: str = ""):
    """knockout_table's rows as bars (second-copy loss, candidates' prefix score); others: losses as dots,
    spread up and down a little so that equal losses stay apart."""
    import matplotlib.pyplot as plt
    # pragma: no mutate start  (the door: input checks are not mutated)
    rows, others, first_copy = knock_rows(table), loss_dots(others), first_copy_loss(first_copy)
    names = distinct_names([*rows, *others], "table and others together")
    # pragma: no mutate end
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    n, window = as_count(n, "n (number of tokens)"), as_count(window, "window")
    keep = as_count(keep, "keep", minimum=0)
    # pragma: no mutate end
    return window_mask_unchecked(n, window, keep)


def window_forward(model: RealModel, ids: Sequence[int], window: int, keep: int = 0,
                   keep_weights: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """forward in which each token sees only the last `window` tokens and the first `keep` ones (a
    sliding-window KV cache that keeps the sink) -> (logits (n, vocab), weights (h, n, n) per block)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    window, keep = as_count(window, "window"), as_count(keep, "keep", minimum=0)
    # pragma: no mutate end
    mask = window_mask_unchecked(len(ids), window, keep)
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    curves = loss_curves(losses, most=len(WINDOW_STYLES))
    window, smooth = as_count(window, "window"), as_count(smooth, "smooth")
    n = len(next(iter(curves.values())))
    if smooth > n:
        raise ValueError(f"smooth is {smooth} but the losses cover {n} tokens: expected at most {n}")
    if window >= n:
        raise ValueError(f"window is {window} but the losses cover {n} predictions: a window that long "
                         f"drops nothing here; expected at most {n - 1}")
    # pragma: no mutate end
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    z = logit_row(logits)                                                # (vocab,) float64 copy
    tau = as_positive(tau, "tau", "0.7", zero=True)
    top_k = top_k_fits(top_k, len(z))
    # pragma: no mutate end
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
    # pragma: no mutate start  (the door: input checks are not mutated)
    seed = as_count(seed, "seed", minimum=0)
    # pragma: no mutate end
    rng = np.random.default_rng(seed)
    return int(rng.choice(len(p), p=p))


def logit_lens(model: RealModel, ids: Sequence[int], last_only: bool = False) -> np.ndarray:
    """The final RMSNorm and the tied output head applied to the residual stream after each block:
    logits (n_layers, n, vocab), or (n_layers, vocab) for the last token only."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    ids = model_ids(ids, len(model.embedding))
    # pragma: no mutate end
    streams: list[np.ndarray] = []
    with one_blas_thread(), PagesHeld(model):                           # one run, the lens too
        forward_unchecked(model, ids, streams=streams)
        X = np.stack(streams)                                            # (n_layers, n, d)
        if last_only:
            X = X[:, -1]                                                 # (n_layers, d)
        return unembed(rms_norm(X, model.final_norm, model.eps), model.embedding)   # (n_layers, [n,] vocab)


def lens_rank(lens: ArrayLike, token: int) -> tuple[np.ndarray, np.ndarray]:
    """For each block's row of logit_lens(..., last_only=True): the token's rank (1 + how many tokens
    score strictly more: 1 = top) and its probability (softmax of the row) -> ((n_layers,), (n_layers,))."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    lens, token = lens_logits(lens, token)
    # pragma: no mutate end
    ranks = 1 + (lens > lens[:, [token]]).sum(axis=1)                    # (n_layers,)
    probs = softmax_unchecked(lens - lens.max(axis=1, keepdims=True))[:, token]   # (n_layers,)
    return ranks, probs


def plot_lens(lens: ArrayLike, token: int, word: str, title: str = ""):
    """A token's probability (left) and rank (right, log scale, rank 1 = top, drawn at the top, a tick at
    each power of 10 and at the vocabulary's size, the lowest rank) after each block, as the logit lens
    reads them."""
    import matplotlib.pyplot as plt
    ranks, probs = lens_rank(lens, token)
    blocks = np.arange(len(ranks))
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.6), layout="constrained")
    left.bar(blocks, probs, color="#333333")
    left.set_ylim(0, 1)
    left.set_ylabel(f"probability of {str(word)!r}", fontsize=13)
    right.plot(blocks, ranks, "o-", color="#CC79A7", lw=2, ms=6)
    right.set_yscale("log")
    vocab = np.shape(lens)[-1]                                           # the lowest rank there is
    right.set_yticks(sorted({*(10 ** k for k in range(int(np.log10(vocab)) + 1)), vocab}))
    right.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))   # 1, 10, 100, not 10^0
    right.yaxis.set_minor_formatter(plt.NullFormatter())
    right.set_ylim(vocab * 1.5, 0.7)                                     # inverted: rank 1 (top guess) on top
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


# ---------------------------------------------------------------------------- section 4: your own text
TEXT_MOST = 64
"""The most tokens the text explorer shows (64 tokens: a head view 19 inches tall, every word legible)."""

DRAWS = 100
"""How many tokens the text explorer draws with each seed."""

TOP_K_OPTIONS = (("all", 0), 50, 20, 10, 5, 3, 2, 1)
"""The top-k slider, from every token (left) to greedy (right)."""


def text_run(model: RealModel, text: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """One forward pass over a text -> (its tokens as words, every head's weights (layers, heads, n, n),
    the last token's logits (vocab,)); at most TEXT_MOST tokens."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    if not isinstance(text, str):
        raise TypeError(f"text is {type(text).__name__}: expected a string, e.g. 'The capital of France is'")
    ids = encode(model, text)
    if not ids:
        raise ValueError("the text is empty: type a few words, and the model predicts the next token")
    if len(ids) > TEXT_MOST:
        raise ValueError(f"the text has {len(ids)} tokens: the explorer shows at most {TEXT_MOST}; shorten "
                         "it (rm.head_view and rm.attention_weights take longer texts)")
    # pragma: no mutate end
    with one_blas_thread():
        logits, weights = forward_unchecked(model, model_ids(ids, len(model.embedding)), keep_weights=True)
    return token_strings(model, ids), np.stack(weights), logits[-1]      # (L, h, n, n), (vocab,)


def draw_counts(p: np.ndarray, tokens: np.ndarray, draws: int, seed: int) -> tuple[np.ndarray, int]:
    """`draws` tokens drawn from p by np.random.default_rng(seed) (its first draw is sample_token's)
    -> (how many times each of `tokens` came, the first draw)."""
    drawn = np.random.default_rng(seed).choice(len(p), size=draws, p=p)   # (draws,) token ids
    return (drawn[:, None] == tokens[None, :]).sum(axis=0), int(drawn[0])


def model_view_height(n: int, width: float, layers: int = 30, heads: int = 9) -> float:
    """The model view's height in inches for n tokens across `width` inches: the thumbnails keep their
    shape, plus room for the title, the layer numbers and the legend."""
    gap = thumbnail_gap(n)
    return (heads * (n + gap) - gap) / (layers * (n + gap) - gap) * (width - 1.2) + 1.1


def text_explorer(model: RealModel, text: str = "The capital of France is", layer: int = 16, head: int = 0,
                  bars: int = 10, picks: dict[str, tuple[int, int]] | None = None, seed: int = 0) -> Explorer:
    """A text box drives every head's weights over your text (the model view, picks framed), the head the
    layer and head sliders open (framed in red), and the next token's `bars` most likely tokens after
    temperature τ and top-k, with how often each came in 100 draws (the sample-seed slider starts at
    `seed`, any whole number from 0 up; it runs 0 to 99, or to `seed` if that is larger)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    model = as_real_model(model)
    seed = as_count(seed, "seed", minimum=0)
    L, h = model.n_layers, model.n_heads
    layer, head = as_count(layer, "layer", minimum=0), as_count(head, "head", minimum=0)
    if layer >= L or head >= h:
        raise ValueError(f"layer {layer}, head {head}: the model has layers 0..{L - 1} and heads 0..{h - 1}")
    bars = as_count(bars, "bars")
    picks = tuple(head_picks(picks, L, h).items())
    # pragma: no mutate end
    runs: dict = {}                                                      # text -> its run, the last 4 kept

    def run(text):
        if text not in runs:
            words, weights, logits = text_run(model, text)
            top = np.argsort(-logits, kind="stable")[:bars]              # (bars,) ids, largest logit first
            runs[text] = words, weights, logits, top, token_strings(model, top)
            while len(runs) > 4:
                runs.pop(next(iter(runs)))
        return runs[text]

    run(text)
    controls = [Control("tau", "τ (temp.)", 1.0, 0.0, 3.0, 0.05),
                Control("top_k", "top-k", 0, options=TOP_K_OPTIONS),
                Control("seed", "sample seed", seed, 0, max(99, seed), 1, integer=True),
                Control("layer", "layer", layer, 0, L - 1, 1, integer=True),
                Control("head", "head", head, 0, h - 1, 1, integer=True),
                Control("text", "your text", text, text=True)]

    def compute(values):
        words, weights, logits, top, _ = run(values["text"])
        p = next_token_probs(logits, values["tau"], values["top_k"] or None)   # (vocab,)
        counts, first = draw_counts(p, top, DRAWS, values["seed"])
        a = weights[values["layer"], values["head"]]                          # (n, n)
        return {"every": weights, "open": (values["layer"], values["head"]),
                "weights": a, "next": np.stack([p[top], counts / DRAWS]), "first": first,
                "greedy": int(top[0]), "outside": DRAWS - int(counts.sum()), "p1": float(
                    softmax_unchecked(logits - logits.max())[top[0]]), "looks": words[int(a[-1].argmax())]}

    def panels(values):
        words, *_, top_words = run(values["text"])
        n = len(words)
        w, side = head_view_size(n)
        return [Panel("weights", words, words, vmin=0.0, vmax=1.0, annot=False, width=n - 0.5,
                      title="the open head's weights (0 to 1)"),
                Panel("next", top_words, [], kind="bars", vmin=0.0, vmax=1.0, fmt=".2f",
                      xlabel="probability (bars); share of 100 draws (◆)",
                      title="the next token", width=(n - 0.5) * 5.0 / side),
                Panel("every", [], [], kind="thumbnails", picks=picks, mark="open", row=1,   # below them
                      height=model_view_height(n, w + 5.4, L, h) / side,
                      title=f"the model view: every head's weights, {n} × {n} each (0 to 1)")]

    def figsize(values):
        w, side = head_view_size(len(run(values["text"])[0]))
        return (w + 5.4, side + model_view_height(len(run(values["text"])[0]), w + 5.4, L, h))

    def describe(values, r):
        words, *_, top, top_words = run(values["text"])
        k = values["top_k"] or "all"
        counts = sorted(zip(np.round(r["next"][1] * DRAWS).astype(int), range(len(top)), top_words),
                        key=lambda c: (-c[0], c[1]))                       # most drawn first; ties: by bar
        drawn = ", ".join(f"{word} {count}" for count, _, word in counts[:3] if count > 0)
        first = token_strings(model, [r["first"]])[0]
        tokens = f"{len(words)} token{'s' if len(words) > 1 else ''}"
        most = r["weights"][-1].max()                                       # the last token's largest weight
        return (f"{tokens}; open: layer {values['layer']}, head {values['head']}\n"    # lines of at most
                f"  '{words[-1]}' looks most at '{r['looks']}' ({most:.2f})\n"          # about 45 characters,
                f"greedy: '{top_words[0]}', {r['p1']:.2f} at τ = 1\n"                     # the width of the
                f"τ = {values['tau']:.2f}, top-k {k}: '{top_words[0]}' {r['next'][0][0]:.2f}\n"   # column
                f"{DRAWS} draws, seed {values['seed']}: {r['outside']} off the bars\n"
                f"  most drawn: {drawn}\n"
                f"first draw (hw.sample_token): '{first}'")

    return Explorer(controls, compute, panels, describe=describe, figsize=figsize, hide_on_error=True)
