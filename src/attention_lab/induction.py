"""Lesson 07: attention learns to look things up: a content task, then induction heads in two layers.

The content task ("every place says the largest digit") is the task "largest" of lesson 06's harness
(training.py: `largest_digit`).

The induction model (row convention, a batch of B sequences of n tokens, h heads of width d_k = d / h,
attention only, causal, no LayerNorm, no feed-forward):

    X0 = E[ids] + P                                  (B, n, d)   token + learned position
    for layer l = 1, 2:
        Q, K, V = split(X W_q_l), split(X W_k_l), split(X W_v_l)   (B, h, n, d_k)
        A = softmax(Q Kᵀ / √d_k, future keys masked) (B, h, n, n)
        X = X + concat(A V) W_O_l                    (B, n, d)   the residual stream
    logits = X W_u                                   (B, n, vocab)  token at place i predicts token i + 1

Every gradient is written by hand in `backward_unchecked` (tests/test_induction.py checks each one against
central finite differences). The residual stream makes the gradient of X the sum over every path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_count,
    as_seeds,
    batch_ids,
    knocked_heads,
    whole_ids,
    wrong_record,
)
from .blas import on_one_blas_thread
from .explorer_kit import Control, Explorer, Panel
from .heads import concat_heads_unchecked, split_heads_unchecked
from .masks import causal_mask_unchecked
from .matrix import attention_unchecked, default_scale, log_softmax_unchecked
from .run_memo import once_each
from .training import (
    adam_step,
    as_rng,
    config_sizes,
    embed,
    enough_snapshots,
    keep_snapshots,
    learning_rate,
    per_seed,
    snapshot_steps,
    weight_dict,
)


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def as_induction_config(cfg) -> InductionConfig:
    """An InductionConfig whose sizes are whole numbers and whose d splits into n_heads."""
    if not isinstance(cfg, InductionConfig):
        raise wrong_record(cfg, "an al.InductionConfig")
    config_sizes(cfg, "InductionConfig", ("vocab_size", "n", "d", "n_heads", "n_layers", "segment"))
    return cfg


def induction_run(run, at_least: int = 2) -> InductionRun:
    """The InductionRun that train_induction() returns, keeping at least `at_least` snapshots."""
    if not isinstance(run, InductionRun):
        raise wrong_record(run, "the InductionRun that train_induction() returns")
    enough_snapshots(run.snapshot_steps, "train_induction", at_least)
    return run


def segment_fits(segment: int, n: int, what: str) -> None:
    """A repeated segment fits twice in a sequence of n tokens."""
    if 2 * segment > n:
        raise ValueError(f"{what}.segment = {segment} does not fit twice in n = {n} "
                         "tokens: expected 2 * segment <= n")


def letter_ids(ids) -> np.ndarray:
    """One sequence of token ids 0..25 (one letter each)."""
    ids = whole_ids(ids)
    if ids.ndim != 1 or ids.max() > 25:
        raise ValueError(f"ids {ids.dtype} of shape {ids.shape}: expected one sequence of token ids 0..25")
    return ids


def two_layers(n_layers: int) -> None:
    """The induction explorer shows two layers."""
    if n_layers < 2:
        raise ValueError("this run has one layer: the explorer shows layer 1 and layer 2")


def one_probe(ids: np.ndarray) -> None:
    """A batch (B, n) holding one sequence."""
    if len(ids) != 1:
        raise ValueError(f"probe has shape {ids.shape}: expected one sequence (n,)")


def kept_step(start, kept: list[int]):
    """A step at which the run kept its weights."""
    if start not in kept:
        raise ValueError(f"start = {start!r} is not a kept step: expected one of {kept}")
    return start


def repeats_a_token(seen: list, words: list[str]) -> None:
    """A probe in which some token comes back, followed by the same token as before."""
    if not seen:
        raise ValueError(f"the probe {' '.join(words)} repeats no two neighbouring tokens: expected a "
                         "sequence with a repeated segment, e.g. repeated_batch(rng, 1, cfg)[0][0]")

# pragma: no mutate end


def places_text(places) -> str:
    """'8-11' for a run of places, '3, 8, 9' otherwise (ascending)."""
    places = sorted(set(int(p) for p in places))
    if places == list(range(places[0], places[-1] + 1)) and len(places) > 1:
        return f"{places[0]}-{places[-1]}"
    return ", ".join(map(str, places))


# ------------------------------------------------------------------ the induction model
@dataclass(frozen=True)
class InductionConfig:
    """Sizes of the attention-only causal model and of its task (a segment repeated at a random offset)."""
    vocab_size: int = 24          # how many different tokens (ids 0..vocab_size-1)
    n: int = 16                   # tokens per sequence
    d: int = 32                   # model width
    n_heads: int = 1              # heads per layer
    n_layers: int = 2
    segment: int = 5              # length of the repeated segment
    fixed_offset: bool = False    # True: the second copy always starts `segment` places after the first

    @property
    def scale(self) -> float:
        return default_scale(self.d // self.n_heads)

    def names(self) -> tuple[str, ...]:
        """The weight matrices, in order: E, P, then W_q, W_k, W_v, W_O of every layer, then W_u."""
        per_layer = [f"{w}{layer}" for layer in range(1, self.n_layers + 1)
                     for w in ("W_q", "W_k", "W_v", "W_O")]
        return ("E", "P", *per_layer, "W_u")


def _config(cfg) -> InductionConfig:
    """The InductionConfig `cfg`, checked at this module's door (`as_induction_config`)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    cfg = as_induction_config(cfg)
    segment_fits(cfg.segment, cfg.n, "InductionConfig")
    # pragma: no mutate end
    return cfg


def init_induction(cfg: InductionConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Random weights: E and P N(0, 1), matrices N(0, 1/d), W_u zero (the untrained model guesses
    uniformly)."""
    cfg = _config(cfg)
    rng = np.random.default_rng(seed)
    p = {"E": rng.standard_normal((cfg.vocab_size, cfg.d)), "P": rng.standard_normal((cfg.n, cfg.d))}
    for name in cfg.names()[2:-1]:
        p[name] = rng.standard_normal((cfg.d, cfg.d)) / np.sqrt(cfg.d)
    p["W_u"] = np.zeros((cfg.d, cfg.vocab_size))
    return p


def forward_unchecked(p, ids, cfg, knock=(), from_x0=""):
    """Logits (B, n, vocab) and the cache of every layer. `knock`: (layer, head) pairs whose output is
    zeroed; `from_x0`: which of "q", "k", "v" the layers above 1 compute from X0 instead of the stream
    (what layer 1 wrote is then unseen on that path: an ablation). The weights may carry a leading seed axis
    (S, rows, cols), and the ids then (S, B, n): S models, each on its own batch (shapes below without it)."""
    n, h = ids.shape[-1], cfg.n_heads
    X0 = embed(p["E"], ids) + per_seed(p["P"][..., :n, :])           # (B, n, d)
    mask = causal_mask_unchecked(n)                                   # (n, n) True: may attend
    X, layers = X0, []
    for layer in range(1, cfg.n_layers + 1):
        Xq, Xk, Xv = (X0 if layer > 1 and part in from_x0 else X for part in "qkv")
        Q = split_heads_unchecked(Xq @ per_seed(p[f"W_q{layer}"]), h)  # (B, h, n, d_k)
        K = split_heads_unchecked(Xk @ per_seed(p[f"W_k{layer}"]), h)  # (B, h, n, d_k)
        V = split_heads_unchecked(Xv @ per_seed(p[f"W_v{layer}"]), h)  # (B, h, n, d_k)
        Y, A = attention_unchecked(Q, K, V, mask, cfg.scale)          # (B, h, n, d_k), (B, h, n, n)
        for kl, kh in knock:
            if kl == layer:
                Y[..., kh, :, :] = 0.0
        C = concat_heads_unchecked(Y)                                 # (B, n, d)
        layers.append({"X": X, "Xq": Xq, "Xk": Xk, "Xv": Xv, "Q": Q, "K": K, "V": V, "A": A, "C": C})
        X = X + C @ per_seed(p[f"W_O{layer}"])                        # (B, n, d) the residual stream
    return X @ per_seed(p["W_u"]), {"ids": ids, "layers": layers, "X_out": X}


def next_token_loss_unchecked(logits, ids):
    """Mean cross-entropy of predicting token i + 1 at place i (places 0..n-2), per place (B, n-1),
    and dL/dlogits (zero at the last place); with a leading seed axis (S, B, n), each seed's mean is over
    its own batch."""
    logp = log_softmax_unchecked(logits[..., :-1, :])               # (B, n-1, vocab)
    targets = ids[..., 1:]
    per_place = -np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]    # (B, n-1)
    grad = np.exp(logp)
    np.put_along_axis(grad, targets[..., None], np.take_along_axis(grad, targets[..., None], -1) - 1, -1)
    dlogits = np.zeros_like(logits)
    dlogits[..., :-1, :] = grad / (targets.shape[-2] * targets.shape[-1])
    return per_place, dlogits


def _wgrad(X, dZ):
    """Xᵀ dZ summed over the batch, as B small products: one large product would start OpenBLAS's
    threads, which on a busy machine made a step up to 20 times slower (measured), and would add up the
    batch in another order. With a leading seed axis, seed by seed: the same products and sums as one seed
    alone, and B products of one seed at a time stay in the core's cache (all seeds' (S, B, d, d) at once
    would not)."""
    if X.ndim == 3:
        return (_t(X) @ dZ).sum(axis=0)                               # (d_in, d_out)
    return np.stack([(_t(x) @ dz).sum(axis=0) for x, dz in zip(X, dZ)])   # (S, d_in, d_out)


def _t(M):
    return np.swapaxes(M, -1, -2)                                     # every matrix of a stack transposed


def backward_unchecked(p, c, dlogits, cfg):
    """Every gradient by hand. Each layer adds to the stream, so dX of a layer's input is the sum of
    the gradient arriving straight through the residual and the gradient through the layer's Q, K, V.
    With a leading seed axis, one set of gradients per seed."""
    g = {"W_u": _wgrad(c["X_out"], dlogits)}                 # (d, vocab)
    dX = dlogits @ per_seed(_t(p["W_u"]))                             # (B, n, d) at the top of the stream
    dX0_cut = 0.0                                                     # what parts read from X0 directly
    for layer in range(cfg.n_layers, 0, -1):
        L = c["layers"][layer - 1]
        g[f"W_O{layer}"] = _wgrad(L["C"], dX)                # (d, d)
        dY = split_heads_unchecked(dX @ per_seed(_t(p[f"W_O{layer}"])), cfg.n_heads)  # (B, h, n, d_k)
        A = L["A"]
        dA = dY @ _t(L["V"])                                          # (B, h, n, n)
        dV = _t(A) @ dY                                               # (B, h, n, d_k)
        # dL/dS through the softmax (masked places: A = 0), then the scale: dL/dR, R = Q Kᵀ unscaled
        dR = cfg.scale * A * (dA - (A * dA).sum(axis=-1, keepdims=True))   # (B, h, n, n)
        dQ = concat_heads_unchecked(dR @ L["K"])                      # (B, n, d)
        dK = concat_heads_unchecked(_t(dR) @ L["Q"])                  # (B, n, d)
        dV = concat_heads_unchecked(dV)
        dX_in = dX                                                    # the straight path
        for part, dZ in (("q", dQ), ("v", dV), ("k", dK)):           # and the paths through the head
            W = f"W_{part}{layer}"
            g[W] = _wgrad(L[f"X{part}"], dZ)
            if L[f"X{part}"] is L["X"]:
                dX_in = dX_in + dZ @ per_seed(_t(p[W]))
            else:                                                     # this part read X0 (an ablation)
                dX0_cut = dX0_cut + dZ @ per_seed(_t(p[W]))
        dX = dX_in
    dX = dX + dX0_cut
    one_hot = np.eye(p["E"].shape[-2])[c["ids"]]                      # (B, n, vocab)
    g["E"] = _wgrad(one_hot, dX)                                      # a token's row: sum over its places
    g["P"] = np.zeros_like(p["P"])
    g["P"][..., : dX.shape[-2], :] = dX.sum(axis=-3)
    return g


def _inputs(cfg, p, ids):
    """Check the config, the weights and the token ids once, at the door."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    cfg = _config(cfg)
    special = {"E": (cfg.vocab_size, cfg.d), "P": (cfg.n, cfg.d), "W_u": (cfg.d, cfg.vocab_size)}
    p = weight_dict(p, {k: special.get(k, (cfg.d, cfg.d)) for k in cfg.names()}, cfg)
    return cfg, p, batch_ids(ids, "ids", cfg.vocab_size, cfg.n, shortest=2)
    # pragma: no mutate end


def induction_loss_and_grads(p: dict, ids: ArrayLike, cfg: InductionConfig) -> tuple[float, dict]:
    """Mean next-token cross-entropy over places 0..n-2 of `ids` (B, n), and its gradient for every weight."""
    cfg, p, ids = _inputs(cfg, p, ids)
    logits, c = forward_unchecked(p, ids, cfg)
    per_place, dlogits = next_token_loss_unchecked(logits, ids)
    return float(per_place.mean()), backward_unchecked(p, c, dlogits, cfg)


def induction_loss(p: dict, ids: ArrayLike, cfg: InductionConfig, knock: Sequence = (),
                   keys_from_tokens: bool = False, queries_from_tokens: bool = False,
                   values_from_tokens: bool = False) -> np.ndarray:
    """Next-token loss at every place (B, n-1); `knock` zeroes heads given as (layer, head) pairs.
    Three ablations: `keys_from_tokens` makes the keys of the layers above 1 read X0 instead of the
    stream (what layer 1 wrote is unseen by them), `queries_from_tokens` their queries,
    `values_from_tokens` their values."""
    cfg, p, ids = _inputs(cfg, p, ids)
    knock = knocked_heads(knock, cfg.n_layers, cfg.n_heads)
    cut = {"q": queries_from_tokens, "k": keys_from_tokens, "v": values_from_tokens}
    logits, _ = forward_unchecked(p, ids, cfg, knock, "".join(part for part, on in cut.items() if on))
    return next_token_loss_unchecked(logits, ids)[0]


def induction_attention(p: dict, ids: ArrayLike, cfg: InductionConfig) -> np.ndarray:
    """The attention weights of every layer and head: (n_layers, B, h, n, n)."""
    cfg, p, ids = _inputs(cfg, p, ids)
    return np.stack([L["A"] for L in forward_unchecked(p, ids, cfg)[1]["layers"]])


def hardest_keys(A: ArrayLike, rows: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Where each query place of `rows` looks hardest in one attention pattern A (n, n), rows = queries: the
    key place given the largest weight, and that weight (two arrays of len(rows)). Before lesson 07's phase
    change, layer 2 stares at one or two fixed places from every query; where such a place happens to be
    the key a lookup would pick, the slider's number rises with no lookup at all."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A has shape {A.shape}: expected one attention pattern (n, n), queries as rows")
    rows = np.asarray(rows)
    if rows.ndim != 1 or rows.dtype.kind not in "iu" or (rows.size and not (0 <= rows.min() and
                                                                              rows.max() < len(A))):
        raise ValueError(f"rows = {rows.tolist()}: expected a list of query places, whole numbers from 0 to "
                         f"{len(A) - 1}")
    # pragma: no mutate end
    return A[rows].argmax(axis=1), A[rows].max(axis=1)


# ------------------------------------------------------------------ the task: a segment seen twice
def letters(ids: ArrayLike) -> list[str]:
    """Token ids as the letters the lesson prints: 0 -> A, 1 -> B, ... (up to 26 tokens)."""
    ids = letter_ids(ids)
    return [chr(ord("A") + int(t)) for t in ids]


def repeated_batch(rng: np.random.Generator, batch: int,
                   cfg: InductionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`batch` random sequences (B, n) in which a random segment appears twice, the second copy at a
    random distance after the first (fixed at `segment` places if cfg.fixed_offset); and two boolean
    masks (B, n-1) of the places whose next token lies inside the first copy and inside the second
    copy (its first token excluded: nothing announces it)."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    rng = as_rng(rng)
    cfg, batch = _config(cfg), as_count(batch, "batch")
    # pragma: no mutate end
    n, s = cfg.n, cfg.segment
    ids = rng.integers(0, cfg.vocab_size, size=(batch, n))
    starts = np.array([(a, b) for a in range(n - 2 * s + 1) for b in range(a + s, n - s + 1)])
    if cfg.fixed_offset:
        starts = starts[starts[:, 1] - starts[:, 0] == s]
    a, b = starts[rng.integers(0, len(starts), size=batch)].T         # (B,) first and second copy
    offsets = np.arange(s)
    rows = np.arange(batch)[:, None]
    ids[rows, b[:, None] + offsets] = ids[rows, a[:, None] + offsets]
    place = np.arange(n - 1)[None, :]                                  # place i predicts token i + 1
    first = (place >= a[:, None]) & (place < a[:, None] + s - 1)
    second = (place >= b[:, None]) & (place < b[:, None] + s - 1)
    return ids, first, second


# ------------------------------------------------------------------ training
@dataclass
class InductionRun:
    """One training run: final weights, training loss and loss on the second copy at every step, snapshots."""
    cfg: InductionConfig
    params: dict
    losses: np.ndarray                                     # (steps,) mean next-token loss of each batch
    second_losses: np.ndarray                              # (steps,) the same, on the second copy only
    first_losses: np.ndarray                               # (steps,) the same, on the first copy only
    snapshot_steps: list = field(default_factory=list)
    snapshot_params: list = field(default_factory=list)


@on_one_blas_thread
def train_induction(cfg: InductionConfig, steps: int = 600, batch: int = 32, lr: float = 0.01,
                    seed: int = 0, snapshots: Sequence[int] = ()) -> InductionRun:
    """Adam (β₁ = 0.9, β₂ = 0.999, ε = 1e-8) on fresh batches of repeated-segment sequences;
    a copy of the weights before each step in `snapshots` (step 0 = untrained, `steps` = the end).
    The run of train_induction_seeds with this one seed."""
    return train_induction_seeds(cfg, [as_count(seed, "seed", minimum=0)], steps, batch, lr, snapshots)[0]


@on_one_blas_thread
def train_induction_seeds(cfg: InductionConfig, seeds: Sequence[int], steps: int = 600, batch: int = 32,
                          lr: float = 0.01, snapshots: Sequence[int] = ()) -> list[InductionRun]:
    """train_induction(cfg, seed=s, ...) for every seed s in `seeds`, trained side by side: every weight
    carries a leading seed axis, and each step runs the forward pass, the backward pass and Adam once for
    all seeds (each seed on its own batches, from its own data stream). Each run is the one
    train_induction returns with that seed, to the last bit. In a test run, each seed's run is made once and
    shared (run_memo), whether it was asked for alone or with other seeds."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    cfg = _config(cfg)
    seeds = as_seeds(seeds)
    steps, batch = as_count(steps, "steps"), as_count(batch, "batch")
    lr, keep = learning_rate(lr, "0.01"), snapshot_steps(snapshots, steps)
    # pragma: no mutate end
    return once_each("train_induction", [(cfg, seed, steps, batch, lr, tuple(keep)) for seed in seeds],
                     lambda missing: side_by_side(cfg, [seeds[i] for i in missing], steps, batch, lr, keep))


def side_by_side(cfg: InductionConfig, seeds: list[int], steps: int, batch: int, lr: float,
                 keep: list[int]) -> list[InductionRun]:
    """train_induction_seeds with its arguments checked: one batched run of every seed."""
    inits = [init_induction(cfg, seed) for seed in seeds]
    p = {k: np.stack([w[k] for w in inits]) for k in cfg.names()}     # (S, rows, cols) each
    rngs = [np.random.default_rng(seed + 1) for seed in seeds]        # the data, apart from the weights
    state = {k: (np.zeros_like(w), np.zeros_like(w)) for k, w in p.items()}   # Adam's moments
    runs = [InductionRun(cfg, {}, np.zeros(steps), np.zeros(steps), np.zeros(steps)) for _ in seeds]
    for t in range(steps + 1):
        keep_snapshots(runs, keep, t, p)
        if t == steps:
            break
        drawn = zip(*(repeated_batch(rng, batch, cfg) for rng in rngs))  # each seed's batch, from its stream
        ids, first, second = (np.stack(part) for part in drawn)         # (S, B, n), (S, B, n-1) twice
        logits, c = forward_unchecked(p, ids, cfg)                      # every seed at once
        per_place, dlogits = next_token_loss_unchecked(logits, ids)     # (S, B, n-1)
        for i, run in enumerate(runs):                                  # each seed's means over its own batch
            run.losses[t] = per_place[i].mean()
            run.second_losses[t] = per_place[i][second[i]].mean()
            run.first_losses[t] = per_place[i][first[i]].mean()
        g = backward_unchecked(p, c, dlogits, cfg)
        adam_step(p, g, state, t + 1, lr)                      # Adam, as lesson 06
    for i, run in enumerate(runs):
        run.params = {k: w[i].copy() for k, w in p.items()}
    return runs


# ------------------------------------------------------------------ reading the heads
def head_scores(p: dict, cfg: InductionConfig, seed: int = 0, batch: int = 200) -> dict[str, np.ndarray]:
    """Three scores per head, each (n_layers, h), measured on fresh sequences:
    previous-token (mean weight from place i to i - 1 on random tokens), prefix-matching (mean weight,
    on a half of distinct random tokens repeated once, from a token in the second half to the token after
    its first occurrence)
    and copying (fraction of tokens whose own logit is the largest in their row of E W_v W_O W_u).
    The sequences come from a child stream of SeedSequence(seed), which no training run draws
    (train_induction(seed=s) draws default_rng(s) and default_rng(s + 1)): the scores of a model trained
    with any seed are measured on sequences it never trained on."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    cfg, p, _ = _inputs(cfg, p, np.zeros((1, 2), dtype=int))
    # pragma: no mutate end
    rng = np.random.default_rng(np.random.SeedSequence(as_count(seed, "seed", minimum=0)).spawn(1)[0])
    half = cfg.n // 2
    rand = rng.integers(0, cfg.vocab_size, size=(batch, cfg.n))
    A = induction_attention(p, rand, cfg)                            # (L, B, h, n, n)
    i = np.arange(1, cfg.n)
    previous = A[..., i, i - 1].mean(axis=(1, 3))                    # (L, h)
    # pragma: no mutate start  (the door: input checks are not mutated)
    if half > cfg.vocab_size:
        raise ValueError(f"head_scores repeats a half of {half} distinct tokens: it needs vocab_size >= "
                         f"n // 2, got vocab_size {cfg.vocab_size} and n {cfg.n}")
    # pragma: no mutate end
    first = np.argsort(rng.random((batch, cfg.vocab_size)), axis=1)[:, :half]   # (B, half) distinct tokens
    rep = np.concatenate([first, first], axis=1)                     # (B, 2 half)
    A = induction_attention(p, rep, cfg)
    j = np.arange(half, 2 * half)
    prefix = A[..., j, j - half + 1].mean(axis=(1, 3))               # (L, h)
    d_k = cfg.d // cfg.n_heads
    copying = np.zeros((cfg.n_layers, cfg.n_heads))
    for layer in range(1, cfg.n_layers + 1):
        for head in range(cfg.n_heads):
            cols = slice(head * d_k, (head + 1) * d_k)
            ov = p["E"] @ p[f"W_v{layer}"][:, cols] @ p[f"W_O{layer}"][cols] @ p["W_u"]   # (vocab, vocab)
            copying[layer - 1, head] = (ov.argmax(axis=1) == np.arange(cfg.vocab_size)).mean()
    return {"previous-token": previous, "prefix-matching": prefix, "copying": copying}


def phase_change(run: InductionRun, window: int = 20) -> tuple[int, int]:
    """The steps (first, last) over which the loss on the second copy, smoothed over `window` steps,
    falls from 80 % to 20 % of the way between its start and its end."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    run = induction_run(run, at_least=0)
    window = as_count(window, "window")
    # pragma: no mutate end
    curve = np.convolve(run.second_losses, np.ones(window) / window, mode="valid")
    start, end = curve[:window].mean(), curve[-window:].mean()
    high, low = end + 0.8 * (start - end), end + 0.2 * (start - end)
    return int(np.argmax(curve < high)) + window // 2, int(np.argmax(curve < low)) + window // 2


# ------------------------------------------------------------------ a claim about a training run, on this run
def on_this_run(holds: bool | np.bool_, claim: str, further: str) -> str:
    """One line comparing a claim about a training run across runs: whether it holds on this run, that it
    holds with seed 0 (the run the text describes), and how often on further seeds (`further`, e.g.
    'further seeds: 14 of 16')."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    if not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"on_this_run needs holds as True or False (a comparison), "
                        f"got {type(holds).__name__}")
    for name, text in (("claim", claim), ("further", further)):
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"on_this_run needs {name} as a non-empty str, got {text!r}")
    # pragma: no mutate end
    return f"{claim}? this run: {'yes' if holds else 'NO'} (seed 0, the text's run: yes; {further})"


# ------------------------------------------------------------------ the explorer
def induction_explorer(run: InductionRun, probe: ArrayLike, start: int | None = None) -> Explorer:
    """A slider over the training steps kept in `run`, starting at `start` (default: the first kept step):
    layer 1's and layer 2's attention on one probe sequence (head 0 of each), and the loss on the second
    copy so far. The numbers: layer 1's mean weight on the previous token over places 1 to n - segment - 1
    (where the keys of an induction head can lie), layer 2's mean weight on the token after the earlier
    copy of the query's token, at the places whose next token came after that copy too (in a repeated
    segment, every place of the second copy but its last, whose next token the copy does not hold); each
    beside its value for weights spread evenly over the visible tokens."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    run = induction_run(run)
    cfg = run.cfg
    two_layers(cfg.n_layers)
    ids = _inputs(cfg, run.params, probe)[2]
    one_probe(ids)
    # pragma: no mutate end
    start = run.snapshot_steps[0] if start is None else kept_step(start, run.snapshot_steps)
    frames = {}
    for t, w in zip(run.snapshot_steps, run.snapshot_params):
        logits, c = forward_unchecked(w, ids, cfg)
        frames[t] = {"layer1": c["layers"][0]["A"][0, 0], "layer2": c["layers"][1]["A"][0, 0],
                     "loss": np.where(np.arange(len(run.second_losses)) < t, run.second_losses, np.nan),
                     "said": [int(x) for x in logits[0].argmax(-1)],
                     "tie": bool(np.ptp(logits[0]) == 0)}
    words = letters(ids[0])
    n = len(words)

    def compute(values):
        return frames[values["step"]]

    # query q, key j + 1: q's token stood at j before, and q's next token came after it there too
    seen = [(q, j + 1) for q in range(n - 1) for j in range(q - 1)
            if ids[0, j] == ids[0, q] and ids[0, j + 1] == ids[0, q + 1]]
    repeats_a_token(seen, words)
    q_seen, k_seen = np.array(seen).T                                # query place, key after the earlier copy
    last = cfg.n - cfg.segment - 1                                   # a first copy ends by this place
    keys = np.arange(1, min(last, n - 1) + 1)                        # where layer 2 may read a key
    even1, even2 = np.mean(1 / (keys + 1)), np.mean(1 / (q_seen + 1))   # weights spread evenly (causal)

    label1 = f"  places 1-{keys[-1]} (where the keys of an induction head can lie):"
    label2 = f"  places {places_text(q_seen)} (whose next token came after that copy too):"
    label3 = "  the places they look at hardest:"
    nbsp = "\N{NO-BREAK SPACE}"          # a list of places wraps as a whole in a narrow column, never inside
    width = max(len(label1), len(label2)) + 1

    def describe(values, r):
        return (f"step {values['step']}\n"
                f"probe      {' '.join(words)}\n"
                f"predicted  _ {' '.join(letters(np.array(r['said'][:-1])))}"
                f"{'  (a tie: every token equally likely)' if r['tie'] else ''}\n"
                f"layer 1, mean weight on the previous token,\n"
                f"{label1:{width}}{r['layer1'][keys, keys - 1].mean():.2f}   (spread evenly: {even1:.2f})\n"
                f"layer 2, mean weight on the token after the earlier copy of the query's token,\n"
                f"{label2:{width}}{r['layer2'][q_seen, k_seen].mean():.2f}   (spread evenly: {even2:.2f})\n"
                f"{label3:{width}}{nbsp.join(map(str, hardest_keys(r['layer2'], q_seen)[0]))}   "
                f"(after the earlier copy: {nbsp.join(map(str, k_seen))})")

    steps = np.arange(len(run.second_losses))
    panels = [Panel("layer1", words, words, "weights", "layer 1 (previous token?)", "key token",
                    "query token", vmin=0.0, vmax=1.0, fmt=".1f", annot_size=8, cbar=False),
              Panel("layer2", words, words, "weights", "layer 2 (induction?)", "key token",
                    "query token", vmin=0.0, vmax=1.0, fmt=".1f", annot_size=8, cbar=False),
              Panel("loss", [], list(steps), "curve", "loss on the second copy", "step", "loss",
                    vmin=0.0, vmax=float(np.max(run.second_losses)) * 1.05, width=12.0)]
    controls = [Control("step", "training step", start, options=tuple(run.snapshot_steps))]
    return Explorer(controls, compute, panels, describe=describe, figsize=(15.0, 5.0))
