"""Small numerical experiments of lesson 02: why divide by sqrt(d_k), and what matrices buy."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ._validate import as_count
from .loop import attend_one
from .matrix import default_scale, self_attention, softmax


def scaling_experiment(d_ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), n_keys: int = 8,
                       n_trials: int = 2000, seed: int = 0) -> dict[str, np.ndarray]:
    """For random unit-variance q, k: score spread and softmax peakedness vs d_k, with and without scaling.

    Returns a dict of arrays, one entry per d_k: 'd_k', 'std_unscaled', 'std_scaled',
    'max_weight_unscaled', 'max_weight_scaled' (mean over trials of the largest weight).
    """
    n_keys = as_count(n_keys, "n_keys", minimum=2)
    n_trials = as_count(n_trials, "n_trials")
    d_ks = [as_count(d, "d_k") for d in d_ks]
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
        n = as_count(n, "n")
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
    n = as_count(n, "n")
    return 8 * n * n
