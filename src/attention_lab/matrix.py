"""Lesson 02: attention for all tokens at once, in matrix form (row convention: Q = X @ W_q).

`scaled_dot_product_attention` is the one kernel of the collection: every other form of
attention (one head, many heads, masked, cross, batched) calls its trusting twin
`attention_unchecked` (inputs checked at the door).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_mask,
    as_scale,
    attention_inputs,
    default_scale,
    projection_inputs,
    shape_of,
    to_array,
)


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def as_scores(scores, axis) -> tuple[np.ndarray, int]:
    """Scores for a softmax: real, finite or -inf, non-empty; `axis` a valid whole number."""
    s = to_array(scores, "scores")
    if s.dtype == bool or np.iscomplexobj(s) or not (
            np.issubdtype(s.dtype, np.integer) or np.issubdtype(s.dtype, np.floating)):
        raise TypeError(f"scores have dtype {s.dtype}: expected real numbers (int or float)")
    if s.ndim == 0 or s.size == 0:
        raise ValueError(f"scores have shape {shape_of(s)}: expected a non-empty array of at least 1-D")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis is {axis!r}: expected a whole number")
    if not -s.ndim <= axis < s.ndim:
        raise ValueError(f"axis is {axis} but scores have shape {shape_of(s)} ({s.ndim}-D)")
    s = s.astype(np.float64)
    if np.isnan(s).any() or np.isposinf(s).any():
        where = tuple(int(v) for v in np.argwhere(np.isnan(s) | np.isposinf(s))[0])
        raise ValueError(f"scores contain {s[where]} at index {where}: expected finite numbers "
                         "(or -inf for 'no weight')")
    dead = np.isneginf(s).all(axis=axis)
    if dead.any():
        where = tuple(int(v) for v in np.argwhere(np.atleast_1d(dead))[0])
        raise ValueError(f"scores are all -inf along axis {axis} at index {where}: softmax would be "
                         "0/0 = NaN; at least one entry must be finite")
    return s, int(axis)


def no_overflow(scores: np.ndarray, Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Scores Q·Kᵀ that stayed finite: inputs too large for float64 are refused here."""
    if not np.isfinite(scores).all():
        raise ValueError(f"the scores Q·Kᵀ overflowed (largest |Q| = {np.abs(Q).max():.3g}, largest "
                         f"|K| = {np.abs(K).max():.3g}): expected inputs small enough for float64")
    return scores


# pragma: no mutate end
def softmax_unchecked(s: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(s - max) / sum along `axis`; trusts that every slice has a finite entry."""
    e = s - s.max(axis=axis, keepdims=True)           # a new array: the largest entry becomes 0 ...
    np.exp(e, out=e)                                   # ... and exp(0) = 1 (in place: no second array)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def log_softmax_unchecked(z: np.ndarray, picks: np.ndarray | None = None) -> np.ndarray:
    """log softmax(z) along the last axis, computed as z - max - log(sum exp(z - max)): never overflows.
    With `picks` (one column per row of a 2-D z): only those entries (m,), the same numbers to the last bit,
    without a second array the size of z (a cross-entropy over 49,152 tokens needs one entry a row)."""
    z = z - z.max(axis=-1, keepdims=True)                # the largest entry becomes 0 (a new array)
    kept = z if picks is None else z[np.arange(len(z)), picks][:, None]      # (..., n) or (m, 1)
    e = np.exp(z) if picks is None else np.exp(z, out=z)                     # picks: z is no longer needed
    out = kept - np.log(e.sum(axis=-1, keepdims=True))
    return out if picks is None else out[:, 0]


def attention_scores(Q, K, scale):
    """scale · Q Kᵀ on trusted float arrays (..., m, d_k), (..., n, d_k) -> (..., m, n), refusing overflow."""
    with np.errstate(over="ignore", invalid="ignore"):    # overflow is reported just below
        scores = scale * (Q @ np.swapaxes(K, -1, -2))    # (..., m, n)
    return no_overflow(scores, Q, K)


def attention_unchecked(Q, K, V, mask, scale):
    """softmax(scale Q Kᵀ, masked) V on trusted float arrays (..., m, d_k), (..., n, d_k), (..., n, d_v)."""
    scores = attention_scores(Q, K, scale)               # (..., m, n)
    if mask is None:
        weights = softmax_unchecked(scores)              # (..., m, n), rows sum to 1
    else:
        empty = ~mask.any(axis=-1, keepdims=True)        # (..., m, 1) queries with no key at all
        if np.broadcast_shapes(mask.shape, scores.shape) == scores.shape:
            np.copyto(scores, -np.inf, where=~mask)      # masked keys: exp(-inf) = 0 (scores: our own array)
        else:                                            # a mask with more leading axes than the scores
            scores = np.where(mask, scores, -np.inf)
        if empty.any():
            weights = softmax_unchecked(np.where(empty, 0.0, scores))  # empty rows: a harmless dummy
            weights = np.where(empty, 0.0, weights)      # softmax, then zero weights (masked_rows='zero')
        else:
            weights = softmax_unchecked(scores)          # (..., m, n), rows sum to 1
    return weights @ V, weights                          # (..., m, d_v), (..., m, n)


def softmax(scores: ArrayLike, axis: int = -1) -> np.ndarray:
    """Softmax along `axis`, stable for huge scores: exp(s - max) / sum. -inf means 'no weight'."""
    s, axis = as_scores(scores, axis)
    return softmax_unchecked(s, axis)


def scaled_dot_product_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None,
                                 scale: float | None = None,
                                 masked_rows: str = "refuse") -> tuple[np.ndarray, np.ndarray]:
    """softmax(scale · Q Kᵀ, masked) @ V -> (output (..., m, d_v), weights (..., m, n)).

    Any leading batch or head dimensions broadcast, as in PyTorch; `mask` (True = may attend)
    broadcasts against (..., m, n); `scale` defaults to 1/sqrt(d_k). A query whose mask row allows
    no key is refused, unless masked_rows='zero': then its weights and its output are zero.
    """
    return attention_unchecked(*attention_inputs(Q, K, V, mask, scale, masked_rows))


def project_unchecked(X, C, W_q, W_k, W_v):
    """Q = X W_q, K = C W_k, V = C W_v on trusted arrays."""
    return X @ W_q, C @ W_k, C @ W_v                     # (m, d_k), (n, d_k), (n, d_v)


def project(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike,
            W_v: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q = X W_q, K = X W_k, V = X W_v -> (Q (n, d_k), K (n, d_k), V (n, d_v))."""
    X, C, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    return project_unchecked(X, C, W_q, W_k, W_v)


def self_attention_unchecked(X, W_q, W_k, W_v, mask=None, scale=None):
    """self_attention on trusted arrays; scale None means 1/sqrt(d_k)."""
    scale = default_scale(W_q.shape[1]) if scale is None else scale
    return attention_unchecked(*project_unchecked(X, X, W_q, W_k, W_v), mask, scale)


def self_attention(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike,
                   mask: ArrayLike | None = None,
                   scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every token of X attends to every token of X -> (output (n, d_v), weights (n, n))."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    n = X.shape[0]
    return self_attention_unchecked(X, W_q, W_k, W_v, as_mask(mask, (n, n)), as_scale(scale, W_q.shape[1]))
