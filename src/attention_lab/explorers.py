"""The lessons' slider explorers, one factory per lesson, each built from the explorer kit.

Inputs are checked once, when an explorer is made; a slider step then runs the lesson's private,
trusting computation. Colour scales are fixed from the sliders' ranges, so that a colour means the
same number at every slider position.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_count, as_index, as_scale, batch_ids, projection_inputs, square
from .examples import Translation, translation
from .explorer_kit import Control, Explorer, Panel
from .heads import multi_head_unchecked
from .heatmaps import labels_fit, subscript
from .loop import attend_one_unchecked
from .masks import decoder_step_unchecked, translation_inputs
from .matrix import attention_unchecked, default_scale, self_attention_unchecked, softmax_unchecked
from .positions import even_width, rope_unchecked, sinusoidal_unchecked
from .training import (
    Run,
    batch_inputs,
    cross_entropy_unchecked,
    forward_unchecked,
    has_attention,
    training_run,
)

TIE = 0.005   # two weights closer than this print the same to two decimals (or nearly): a tie


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def explorer_inputs(X, W_q, W_k, W_v, i, tokens, features):
    """A lesson explorer's data, checked without computing anything."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    return (X, W_q, W_k, W_v, as_index(i, X.shape[0]), *labels_fit(X, tokens, features))


def slider_range(low, high) -> tuple[float, float]:
    """A slider's range: two finite numbers, low < high."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not np.isfinite(v):
            raise TypeError(f"{name} is {v!r}: expected a finite number for the slider's range")
    if not low < high:
        raise ValueError(f"low is {low} and high is {high}: expected low < high")
    return float(low), float(high)


def heads_choice(n_heads, d_model: int) -> int:
    """A whole number of heads that divides d_model."""
    n_heads = as_count(n_heads, "n_heads")
    divisors = tuple(h for h in range(1, d_model + 1) if d_model % h == 0)
    if n_heads not in divisors:
        raise ValueError(f"n_heads is {n_heads!r} but d_model is {d_model}: choose one of {divisors}")
    return n_heads
# pragma: no mutate end


def _fmt(v) -> str:
    return np.array2string(np.asarray(v), precision=4, floatmode="fixed", suppress_small=True)


def _value_bound(X, W_v, edit, low, high) -> np.ndarray:
    """(d_v,) the largest |v_j| per component at any slider position: the other tokens' values as
    they are, and token `edit` anywhere in the box [low, high]^d (|x W_v| <= max(|low|, |high|) Σ|W_v|)."""
    fixed = np.abs(np.delete(X, edit, axis=0) @ W_v).max(axis=0, initial=0.0)   # (d_v,)
    moving = max(abs(low), abs(high)) * np.abs(W_v).sum(axis=0)                 # (d_v,)
    return np.maximum(fixed, moving)


def _colour_limit(bound) -> float:
    """One symmetric colour limit for a panel: the largest bound, rounded up to a whole number."""
    return float(max(np.ceil(np.max(bound)), 1.0))


def anchored_range(start: float, low: float, high: float, step: float) -> tuple[float, float]:
    """The widest [low', high'] inside [low, high] whose grid low' + k * step passes through `start`."""
    below, above = np.floor((start - low) / step + 1e-9), np.floor((high - start) / step + 1e-9)
    return round(start - below * step, 10), round(start + above * step, 10)


def _feature_controls(X, edit, features, low, high, name, step=0.1):
    return [Control(f, f"{name}[{f}]", float(X[edit, c]), low, high, step) for c, f in enumerate(features)]


def token_explorer(i: int, X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike,
                   tokens: Sequence[str], features: Sequence[str],
                   scale: float | None = None, low: float = -3.0, high: float = 3.0) -> Explorer:
    """Sliders on the features of token i; heatmaps of its weights w_ij and of its output y_i."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, W_q, W_k, W_v, i, tokens, features = explorer_inputs(X, W_q, W_k, W_v, i, tokens, features)
    low, high = slider_range(low, high)
    scale = as_scale(scale, W_q.shape[1])
    # pragma: no mutate end
    # y_i is a weighted average of the values, so |y_i| <= the values' bound at any slider position
    limit = _colour_limit(_value_bound(X, W_v, i, low, high))
    out_labels = features if W_v.shape[1] == len(features) else [str(c) for c in range(W_v.shape[1])]
    s = subscript(i + 1)

    def compute(values):
        Xi = X.copy()
        Xi[i] = [values[f] for f in features]
        y, w = attend_one_unchecked(i, Xi, W_q, W_k, W_v, scale)   # (d_v,), (n,)
        return {"weights": w[None, :], "output": y[None, :], "x": Xi[i]}

    def describe(values, r):
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"w{s}ⱼ = {_fmt(r['weights'][0])}  (sum {r['weights'].sum():.4f})\n"
                f"y{s} = {_fmt(r['output'][0])}")

    panels = [Panel("weights", [f"{tokens[i]} (y{s})"], tokens, "weights",
                    f"weights w{s}ⱼ: what y{s} listens to", "key token", "query"),
              Panel("output", [f"y{s}"], out_labels, "value", f"output y{s}", "component", "",
                    -limit, limit)]
    return Explorer(_feature_controls(X, i, features, low, high, f"x{s}"), compute, panels,
                    describe=describe, figsize=(10.0, 2.4))


def matrix_explorer(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, tokens: Sequence[str],
                    features: Sequence[str],
                    edit: int = 1, low: float = -3.0, high: float = 3.0, outputs: bool = True) -> Explorer:
    """Sliders on token `edit` and a temperature; heatmaps of all weights (n, n) and, if `outputs`,
    of the outputs (n, d_v)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, W_q, W_k, W_v, edit, tokens, features = explorer_inputs(X, W_q, W_k, W_v, edit, tokens, features)
    low, high = slider_range(low, high)
    # pragma: no mutate end
    limit = _colour_limit(_value_bound(X, W_v, edit, low, high))   # outputs average the values
    out_labels = features if W_v.shape[1] == len(features) else [str(c) for c in range(W_v.shape[1])]
    d_k = W_q.shape[1]
    s = subscript(edit + 1)

    def compute(values):
        Xe = X.copy()
        Xe[edit] = [values[f] for f in features]
        out, w = self_attention_unchecked(Xe, W_q, W_k, W_v, None, default_scale(d_k) / values["tau"])
        return {"weights": w, "output": out, "x": Xe[edit]}

    def describe(values, r):
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"scale = 1/(τ·√d_k) = {default_scale(d_k) / values['tau']:.4f}\n"
                f"row sums = {_fmt(r['weights'].sum(axis=1))}")

    controls = [*_feature_controls(X, edit, features, low, high, f"x{s}"),
                Control("tau", "τ (temp.)", 1.0, 0.1, 3.0, 0.1)]
    panels = [Panel("weights", tokens, tokens, "weights", "weights: row = query, column = key",
                    "key token", "query token"),
              Panel("output", tokens, out_labels, "value", "outputs yᵢ (one row per token)",
                    "component", "", -limit, limit)][:2 if outputs else 1]
    return Explorer(controls, compute, panels, describe=describe, figsize=(10.0 if outputs else 6.0, 3.6))


def dk_explorer(n_keys: int = 8, max_dk: int = 128, seed: int = 0) -> Explorer:
    """Slider on d_k: weights of one random query over random keys, unscaled and divided by sqrt(d_k)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    n_keys = as_count(n_keys, "n_keys", minimum=2)
    max_dk = as_count(max_dk, "max_dk", minimum=2)
    # pragma: no mutate end
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(max_dk)               # (max_dk,) unit-variance entries
    K = rng.standard_normal((n_keys, max_dk))     # (n_keys, max_dk)
    keys = [f"k{subscript(j + 1)}" for j in range(n_keys)]

    def compute(values):
        d_k = int(values["d_k"])
        scores = K[:, :d_k] @ q[:d_k]             # (n_keys,) first d_k features only
        scaled = softmax_unchecked(scores * default_scale(d_k))
        return {"weights": np.vstack([softmax_unchecked(scores), scaled]),
                "scores": scores, "d_k": d_k}

    def describe(values, r):
        w = r["weights"]
        return (f"d_k = {r['d_k']}, √d_k = {np.sqrt(r['d_k']):.2f}\n"
                f"spread (std) of the scores q·kⱼ = {r['scores'].std():.2f}\n"
                f"largest weight: unscaled {w[0].max():.2f}, scaled {w[1].max():.2f}")

    controls = [Control("d_k", "d_k", min(16, max_dk), 1, max_dk, 1, integer=True)]
    panels = [Panel("weights", ["÷ 1 (unscaled)", "÷ √d_k (scaled)"], keys, "weights",
                    "weights of one query over random keys", "key", "")]
    return Explorer(controls, compute, panels, describe=describe, figsize=(9.0, 2.4))


def numbered(tokens: Sequence[str]) -> list[str]:
    """The tokens as a summary names them: a word that occurs more than once gets its count as a subscript
    (the₁ ... the₂), so that a reader can tell which one is meant; a word that occurs once stays as it is."""
    total = {t: list(tokens).count(t) for t in tokens}
    seen: dict[str, int] = {}
    names = []
    for t in tokens:
        seen[t] = seen.get(t, 0) + 1
        names.append(f"{t}{subscript(seen[t])}" if total[t] > 1 else t)
    return names


def heads_explorer(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_O: ArrayLike,
                   tokens: Sequence[str], features: Sequence[str], edit: int = 2, n_heads: int = 2,
                   low: float = -3.0, high: float = 3.0) -> Explorer:
    """Sliders on token `edit`, the number of heads (divisors of d_model) and the head shown;
    one weight heatmap per head, the selected head marked ▶, and the output Concat(heads) W_O."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, W_q, W_k, W_v, edit, tokens, features = explorer_inputs(X, W_q, W_k, W_v, edit, tokens, features)
    low, high = slider_range(low, high)
    d_model = X.shape[1]
    W_q, W_k, W_v, W_O = (square(W, name, d_model) for W, name in
                          ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v"), (W_O, "W_O")))
    n_heads = heads_choice(n_heads, d_model)
    # pragma: no mutate end
    divisors = tuple(h for h in range(1, d_model + 1) if d_model % h == 0)
    # every concatenated entry averages values, so |output_c| <= Σ_r bound_r |W_O[r, c]|
    limit = _colour_limit(_value_bound(X, W_v, edit, low, high) @ np.abs(W_O))
    s = subscript(edit + 1)
    out_labels = [str(c) for c in range(d_model)]         # output columns from 0, as the lesson counts
    named = numbered(tokens)                  # the₁, the₂ told apart: in the summary and on every map

    def adjust(explorer):
        explorer.sliders["head"].max = explorer.sliders["n_heads"].value   # clamps 'head' too

    def compute(values):
        Xe = X.copy()
        Xe[edit] = [values[f] for f in features]
        h = values["n_heads"]
        out, w = multi_head_unchecked(Xe, Xe, W_q, W_k, W_v, W_O, h, None, default_scale(d_model // h))
        shown = min(values["head"], h)
        return {**{f"head{i}": w[i] for i in range(len(w))}, "shown": w[shown - 1],
                "output": out, "x": Xe[edit]}

    def panels(values):
        # every head as a small map of colours, the selected head with its numbers, the output
        h, shown = values["n_heads"], min(values["head"], values["n_heads"])
        blank = ["" for _ in tokens]
        thumbs = [Panel(f"head{i}", blank if i else named, named if h <= 2 else blank, "weights",
                        ("▶ " if i + 1 == shown else "") + f"head {i + 1}", "", "",
                        annot=False, cbar=False, width=7.0 / h)   # all heads share one width
                  for i in range(h)]
        shown_panel = Panel("shown", named, named, "weights", f"head {shown} of {h} (d_k = {d_model // h})",
                            "key", "query", annot_size=11)
        output_panel = Panel("output", named, out_labels, "value", "Concat(heads) · W_O",
                             "column", "", -limit, limit, annot_size=10, width=len(out_labels) + 1.6)
        return [*thumbs, shown_panel, output_panel]

    def describe(values, r):
        h, shown = values["n_heads"], min(values["head"], values["n_heads"])
        w = r[f"head{shown - 1}"]
        best = ", ".join(f"{named[q]}→{strongest(w[q])}" for q in range(len(tokens)))
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"h = {h} head{'s' if h > 1 else ''} of width d_k = d_model/h = {d_model // h}\n"
                f"head {shown}: each query's strongest key\n  {best}")

    def strongest(row):
        """The key a row of weights favours; '(flat)' if no key stands out, 'a/b (tie)' if several do."""
        if np.ptp(row) < TIE:
            return "(flat)"
        top = np.flatnonzero(row >= row.max() - TIE)
        return "/".join(named[k] for k in top) + (" (tie)" if len(top) > 1 else "")

    # positions on a circle (cos, sin) are not on a 0.1 grid, and a slider starts on its grid: each
    # feature's grid is anchored at the lesson's value to the 3 decimals it prints (start - k * 0.1), so
    # the explorer starts at the lesson's x, the readout shows every value exactly, and every arrow key
    # still moves it by a visible 0.1
    starts = [round(float(v), 3) for v in X[edit]]
    controls = [*(Control(f, f"x{s}[{f}]", v, *anchored_range(v, low, high, 0.1), 0.1, decimals=3)
                  for f, v in zip(features, starts)),
                Control("n_heads", "heads h", n_heads, options=divisors),
                Control("head", "show head", 1, 1, n_heads, 1, integer=True)]
    return Explorer(controls, compute, panels, describe=describe, figsize=(12.0, 3.4), adjust=adjust)


def cross_explorer(ex: Translation | None = None, edit: int = 2, low: float = -3.0,
                   high: float = 3.0) -> Explorer:
    """A decoder step (masked self-attention, then cross-attention over the encoder) with sliders on
    decoder token `edit` and buttons for the causal and the padding mask."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    ex = translation_inputs(translation() if ex is None else ex)
    edit = as_index(edit, ex.X_dec.shape[0])
    low, high = slider_range(low, high)
    # pragma: no mutate end
    features, dec, enc = ex.features, ex.dec_tokens, ex.enc_tokens
    s = subscript(edit + 1)

    def compute(values):
        X_dec = ex.X_dec.copy()
        X_dec[edit] = [values[f] for f in features]
        step = decoder_step_unchecked(replace(ex, X_dec=X_dec), values["causal"], values["padding"])
        return {"self_weights": step.self_weights, "cross_weights": step.cross_weights, "x": X_dec[edit]}

    def describe(values, r):
        on = {True: "on", False: "off"}
        sums = [f"{t} {v:.2f}" for t, v in zip(enc, r["cross_weights"].sum(axis=0))]
        half = (len(sums) + 1) // 2
        return (f"{dec[edit]}: x{s} = {_fmt(r['x'])}\n"
                f"causal mask {on[values['causal']]}, padding mask {on[values['padding']]}\n"
                f"cross-attention rows sum to 1; columns sum to:\n"
                f"  {'  '.join(sums[:half])}\n  {'  '.join(sums[half:])}")

    controls = [*_feature_controls(ex.X_dec, edit, features, low, high, dec[edit]),
                Control("causal", "causal mask", True, toggle=True),
                Control("padding", "padding mask", True, toggle=True)]
    panels = [Panel("self_weights", dec, dec, "weights", "decoder self-attention", "key (French, so far)",
                    "query (French)"),
              Panel("cross_weights", dec, enc, "weights", "cross-attention: French → English",
                    "key (English, encoder)", "query (French)")]
    return Explorer(controls, compute, panels, describe=describe, figsize=(11.0, 3.4))


def position_explorer(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, tokens: Sequence[str],
                      base: float = 10.0, max_shift: int = 40) -> Explorer:
    """Sliders: swap the first and last word, shift every position, scale the added positions.

    Three weight maps of the same sentence: no positions, sinusoidal positions added to X, RoPE.
    Positions and places are counted from 0, as in the lesson.
    """
    # pragma: no mutate start  (the door: input checks are not mutated)
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    tokens, _ = labels_fit(X, tokens, [""] * X.shape[1])
    even_width(X.shape[1], "X (for the added positions)")
    even_width(W_q.shape[1], "the queries and keys (for RoPE)")
    max_shift = as_count(max_shift, "max_shift", minimum=1)
    # pragma: no mutate end
    scale = default_scale(W_q.shape[1])
    n = len(X)

    def compute(values):
        order = np.arange(n)
        if values["swap"]:
            order[[0, -1]] = order[[-1, 0]]                            # 'mice chase cats'
        Xo = X[order]                                                  # (n, d) the words in this order
        p = int(values["shift"]) + np.arange(n)                        # (n,) positions
        none = self_attention_unchecked(Xo, W_q, W_k, W_v, None, scale)[1]
        added = self_attention_unchecked(Xo + values["strength"] * sinusoidal_unchecked(p, X.shape[1], base),
                                         W_q, W_k, W_v, None, scale)[1]
        Q, K = rope_unchecked(Xo @ W_q, p, base), rope_unchecked(Xo @ W_k, p, base)   # (n, d_k) each, rotated
        rotary = attention_unchecked(Q, K, Xo @ W_v, None, scale)[1]  # (n, n) the same kernel
        return {"none": none, "added": added, "rope": rotary, "words": [tokens[i] for i in order],
                "p": p}

    def describe(values, r):
        head = f"row 1 ({r['words'][1]}):  "                          # the middle word's weights
        return (f"sentence: {' '.join(r['words'])}   positions {r['p'][0]}..{r['p'][-1]}\n"
                f"{head}none  {_fmt(r['none'][1])}\n"
                f"{'':{len(head)}}added {_fmt(r['added'][1])}\n"
                f"{'':{len(head)}}RoPE  {_fmt(r['rope'][1])}")

    def panels(values):
        """Rows and columns named by position (from 0, as in the lesson, plus the shift: the positions
        the summary gives) and by the word there now."""
        order = list(range(n))
        if values["swap"]:
            order[0], order[-1] = order[-1], order[0]
        shift = int(values["shift"])
        rows = [f"{shift + i}: {tokens[j]}" for i, j in enumerate(order)]
        cols = [f"{shift + i}:\n{tokens[j]}" for i, j in enumerate(order)]    # two lines: side by side
        return [Panel("none", rows, cols, "weights", "no positions", "key", "query", cbar=False),
                Panel("added", rows, cols, "weights", "sinusoidal added to X", "key", "", cbar=False),
                Panel("rope", rows, cols, "weights", "RoPE on q and k", "key", "")]

    controls = [Control("shift", "shift positions", 0, 0, max_shift, 1, integer=True),
                Control("strength", "strength", 1.0, 0.0, 3.0, 0.1),
                Control("swap", f"swap words 0 and {n - 1}", False, toggle=True)]
    return Explorer(controls, compute, panels, describe=describe, figsize=(12.0, 3.2))


def training_explorer(run: Run, held_ids: ArrayLike, held_targets: ArrayLike, probe: int = 0) -> Explorer:
    """A slider over the training steps kept in `run`: the attention of one held-out sequence, the
    position scores (P W_q)(P W_k)ᵀ/√d_k that W_q and W_k have learned so far, and the loss curve."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    run = training_run(run)
    cfg = run.cfg
    has_attention(cfg)
    ids, targets = batch_inputs(cfg, run.params, held_ids, held_targets)[2:]
    batch_ids(ids, "held_ids", cfg.vocab_size, cfg.n, shortest=cfg.n)    # the position scores are (n, n)
    probe = as_index(probe, len(ids))
    # pragma: no mutate end
    d_k = cfg.d // cfg.n_heads
    frames = {}
    for t, p in zip(run.snapshot_steps, run.snapshot_params):
        logits, c = forward_unchecked(p, ids, cfg)
        PQ, PK = p["P"] @ p["W_q"][:, :d_k], p["P"] @ p["W_k"][:, :d_k]       # (n, d_k) head 1's
        frames[t] = {"weights": c["A"][probe, 0], "positions": cfg.scale * PQ @ PK.T,
                     "loss": np.where(np.arange(len(run.losses)) <= t, run.losses, np.nan),  # up to step t
                     "held_loss": cross_entropy_unchecked(logits, targets)[0],
                     "accuracy": float((logits.argmax(-1) == targets).mean()),
                     "said": " ".join(map(str, logits[probe].argmax(-1)))}
        if np.ptp(logits[probe]) == 0:
            frames[t]["said"] += "  (a tie: every digit equally likely)"
    bound = max(np.abs(f["positions"]).max() for f in frames.values())
    n = ids.shape[1]
    places = np.arange(n)
    mirror = n - 1 - places

    def compute(values):
        return frames[values["step"]]

    def peaks(scores):                                       # rows whose one largest score is the mirror
        top = scores.max(axis=1, keepdims=True)
        return int(((scores.argmax(axis=1) == mirror) & ((scores == top).sum(axis=1) == 1)).sum())

    def describe(values, r):
        return (f"step {values['step']}: held-out loss {r['held_loss']:.2f}, "
                f"held-out accuracy {r['accuracy']:.2f}\n"
                f"input      {' '.join(map(str, ids[probe]))}\n"
                f"predicted  {r['said']}\n"
                f"target     {' '.join(map(str, targets[probe]))}\n"
                f"weight on mirror: {' '.join(f'{w:.2f}' for w in r['weights'][places, mirror])}\n"
                f"position scores: {peaks(r['positions'])} of {n} rows peak on the mirror place")

    words = [str(t) for t in ids[probe]]
    place_labels = [str(i) for i in range(n)]
    head = "" if cfg.n_heads == 1 else f" (head 1 of {cfg.n_heads})"
    steps = np.arange(len(run.losses))                                     # loss of step t: before update t
    panels = [Panel("weights", words, words, "weights", f"attention{head}", "key token",
                    "query token", annot_size=11, cbar=False),
              Panel("positions", place_labels, place_labels, "scores", "position scores", "key place",
                    "query place", vmin=-bound, vmax=bound, fmt=".1f", annot_size=10, cbar=False),
              Panel("loss", [], list(steps), "curve", "training loss so far", "step", "loss",
                    vmin=0.0, vmax=float(np.max(run.losses)) * 1.05, width=10.0)]
    controls = [Control("step", "training step", run.snapshot_steps[0], options=tuple(run.snapshot_steps))]
    return Explorer(controls, compute, panels, describe=describe, figsize=(13.0, 3.6))
