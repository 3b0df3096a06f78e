"""Small numerical experiments: lesson 02 (why divide by sqrt(d_k), what matrices buy) and lesson 06
(what the 1/sqrt(d_k) does to training)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ._validate import as_count, as_positive, batch_ids
from .heads import split_heads_unchecked
from .loop import attend_one
from .matrix import default_scale, self_attention, softmax
from .training import (
    ModelConfig,
    cross_entropy_unchecked,
    forward_unchecked,
    init_params,
    predict,
    softmax_backward_unchecked,
    train,
)


def scaling_experiment(d_ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), n_keys: int = 8,
                       n_trials: int = 2000, seed: int = 0) -> dict[str, np.ndarray]:
    """For random unit-variance q, k: score spread and softmax peakedness vs d_k, with and without scaling.

    Returns a dict of arrays, one entry per d_k: 'd_k', 'std_unscaled', 'std_scaled',
    'max_weight_unscaled', 'max_weight_scaled' (mean over trials of the largest weight).
    """
    # pragma: no mutate start  (the door: input checks are not mutated)
    n_keys = as_count(n_keys, "n_keys", minimum=2)
    n_trials = as_count(n_trials, "n_trials")
    d_ks = [as_count(d, "d_k") for d in d_ks]
    # pragma: no mutate end
    rng = np.random.default_rng(seed)
    rows = []
    for d_k in d_ks:
        q = rng.standard_normal((n_trials, 1, d_k))        # (trials, 1, d_k)
        K = rng.standard_normal((n_trials, n_keys, d_k))   # (trials, n_keys, d_k)
        s = (q * K).sum(axis=-1)                           # (trials, n_keys) the scores q·k
        scaled = s * default_scale(d_k)                    # (trials, n_keys) the scores q·k / √d_k
        rows.append((d_k, s.std(), scaled.std(),
                     softmax(s).max(axis=-1).mean(), softmax(scaled).max(axis=-1).mean()))
    names = ("d_k", "std_unscaled", "std_scaled", "max_weight_unscaled", "max_weight_scaled")
    return {name: np.array(col) for name, col in zip(names, zip(*rows))}


def time_forms(ns: Sequence[int] = (4, 16, 64, 256, 1024), d: int = 16, sample: int = 16, repeats: int = 3,
               seed: int = 0) -> dict[str, np.ndarray]:
    """Seconds for all n outputs: the per-token loop (attend_one) vs the matrix form (self_attention).

    The loop is timed on `sample` tokens and scaled by n / sample (every token costs the same);
    each time is the best of `repeats`. Returns a dict of arrays 'n', 'loop_s', 'matrix_s'.
    """
    rng = np.random.default_rng(seed)
    W_q, W_k, W_v = rng.standard_normal((3, d, d)) / np.sqrt(d)
    out = {"n": [], "loop_s": [], "matrix_s": []}
    for n in ns:
        # pragma: no mutate start  (the door: input checks are not mutated)
        n = as_count(n, "n")
        # pragma: no mutate end
        X = rng.standard_normal((n, d))
        tokens = range(min(n, sample))
        loop, matrix = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for i in tokens:
                attend_one(i, X, W_q, W_k, W_v)
            t1 = time.perf_counter()
            self_attention(X, W_q, W_k, W_v)
            t2 = time.perf_counter()
            loop.append((t1 - t0) * n / len(tokens))
            matrix.append(t2 - t1)
        out["n"].append(n)
        out["loop_s"].append(min(loop))
        out["matrix_s"].append(min(matrix))
    return {k: np.array(v) for k, v in out.items()}


def score_matrix_bytes(n: int) -> int:
    """Memory of one (n, n) float64 score matrix: 8 n² bytes."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    n = as_count(n, "n")
    # pragma: no mutate end
    return 8 * n * n


# (name, scaled?, W_q and W_k resized so that the step-0 scores are the other model's?)
SATURATION_RUNS = (("scaled", True, False), ("unscaled", False, False),
                   ("unscaled, W_q and W_k shrunk", False, True),
                   ("scaled, W_q and W_k enlarged", True, True))


def saturation_experiment(held_ids: np.ndarray, seeds: Sequence[int] = (0, 1, 2), steps: int = 100,
                          threshold: float = 0.1) -> dict[str, np.ndarray]:
    """Lesson 06's controlled run on 1/sqrt(d_k): four models trained from the same random weights of
    each seed, scaled or not, with W_q and W_k multiplied by d_k^(-1/4) ("shrunk": the scores at step 0
    are the scaled model's) or by d_k^(1/4) ("enlarged": the unscaled model's).

    Returns 'names' (4,), 'losses' (4, seeds, steps), and per model and seed (4, seeds):
    'reach', the first step whose training loss is below `threshold` (-1 if never); at step 0 on
    `held_ids`, 'max_weight', the mean largest weight of a row, and 'mirror_below_001', the fraction of
    weights on the key the task needs (the mirror place) that are below 0.01; after the first step
    (at step 0 no gradient reaches the scores: W_u = 0), 'grad_S', the size (Frobenius norm) of the
    score gradient dL/dS on `held_ids` (S = the scores the softmax takes, after any scale); and
    'score_move', the mean |change| of a score of `held_ids` from step 1 to step 6 (the first five
    steps that move W_q and W_k).
    """
    # pragma: no mutate start  (the door: input checks are not mutated)
    steps = as_count(steps, "steps")
    threshold = as_positive(threshold, "threshold", "0.1 (a loss)")
    cfg = ModelConfig()
    held_ids = batch_ids(held_ids, "held_ids", cfg.vocab_size, cfg.n, shortest=cfg.n)   # the mirror of n
    # pragma: no mutate end
    n = cfg.n
    places = np.arange(n)
    d_k = cfg.d // cfg.n_heads
    keys = ("reach", "max_weight", "mirror_below_001", "grad_S", "score_move")
    out = {"names": np.array([r[0] for r in SATURATION_RUNS]), "losses": []} | {k: [] for k in keys}
    for _, scaled, resized in SATURATION_RUNS:
        c = ModelConfig(scaled=scaled)
        factor = d_k ** (0.25 if scaled else -0.25) if resized else 1.0   # scores scale by factor²
        losses, row = [], {k: [] for k in keys[1:]}
        for seed in seeds:
            p = init_params(c, as_count(seed, "seed", minimum=0))
            p |= {"W_q": p["W_q"] * factor, "W_k": p["W_k"] * factor}
            A = predict(p, held_ids, c)[1][:, 0]                        # (B, n, n) at step 0
            row["max_weight"].append(A.max(axis=-1).mean())
            row["mirror_below_001"].append((A[:, places, n - 1 - places] < 0.01).mean())
            run = train(c, steps=steps, seed=seed, start=p, snapshots=[t for t in (1, 6) if t <= steps])
            losses.append(run.losses)
            S1, dS = _score_gradient(run.snapshot_params[0], held_ids, c)
            row["grad_S"].append(np.linalg.norm(dS))
            S6 = _score_gradient(run.snapshot_params[-1], held_ids, c)[0]   # S1 if steps < 6
            row["score_move"].append(np.abs(S6 - S1).mean())
        losses = np.array(losses)                                       # (seeds, steps)
        below = losses < threshold
        out["losses"].append(losses)
        out["reach"].append(np.where(below.any(axis=1), below.argmax(axis=1), -1))
        for k, v in row.items():
            out[k].append(v)
    return {key: np.array(v) for key, v in out.items()}


def _score_gradient(p: dict, ids: np.ndarray, cfg: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
    """Lesson 06's model on `ids` with the reversal targets: the scores S the softmax takes (after any
    scale), (B, h, n, n), and the loss's gradient with respect to them, dL/dS (same shape)."""
    logits, c = forward_unchecked(p, ids, cfg)
    dlogits = cross_entropy_unchecked(logits, ids[..., ::-1])[1]
    dY = split_heads_unchecked(dlogits @ p["W_u"].T @ p["W_O"].T, cfg.n_heads)   # (B, h, n, d_k)
    dA = dY @ np.swapaxes(c["V"], -1, -2)                                       # (B, h, n, n)
    return cfg.scale * c["Q"] @ np.swapaxes(c["K"], -1, -2), softmax_backward_unchecked(c["A"], dA)
