"""Lesson 03: multi-head attention: split d_model into heads, attend, concatenate, project with W_O."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, as_mask, as_matrix, as_scale, head_width, same, shape_of, square, to_array
from .matrix import attention_unchecked


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def multi_head_inputs(X_query, X_context, W_q, W_k, W_v, W_O, n_heads, mask=None, scale=None):
    """Everything multi-head attention needs, checked: arrays, head width, mask and scale."""
    Xq = as_matrix(X_query, "X_query", "(m, d_model)")
    Xc = as_matrix(X_context, "X_context", "(n, d_model)")
    same(Xq, "X_query", 1, Xc, "X_context", 1, "queries and context tokens need the same width d_model")
    d_model = Xq.shape[1]
    k = head_width(d_model, n_heads)
    Ws = [square(W, name, d_model) for W, name in ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v"), (W_O, "W_O"))]
    n_heads = d_model // k
    mask = as_mask(mask, (n_heads, Xq.shape[0], Xc.shape[0]))
    return (Xq, Xc, *Ws, n_heads, mask, as_scale(scale, k))


def as_heads(heads) -> np.ndarray:
    """Per-head outputs (..., n_heads, n, d_k)."""
    H = to_array(heads, "heads")
    if H.ndim < 3:
        raise ValueError(f"heads have shape {shape_of(H)}: expected (n_heads, n, d_k), one (n, d_k) "
                         "output per head")
    return as_array(H, "heads", "(n_heads, n, d_k)", min_ndim=3)


def as_split_input(M, n_heads) -> tuple[np.ndarray, int]:
    """A matrix (..., n, d_model) to cut into heads, and the number of heads."""
    M = as_array(M, "M", "(..., n, d_model)")
    head_width(M.shape[-1], n_heads)
    return M, int(n_heads)


# pragma: no mutate end
def split_heads_unchecked(M, n_heads):
    """(..., n, d_model) -> (..., h, n, d_k) on a trusted array: head i gets columns i*d_k:(i+1)*d_k."""
    *lead, n, d_model = M.shape
    d_k = d_model // n_heads
    return np.swapaxes(M.reshape(*lead, n, n_heads, d_k), -3, -2)   # (..., h, n, d_k)


def concat_heads_unchecked(H):
    """(..., h, n, d_k) -> (..., n, h*d_k) on a trusted array: head 0's columns first."""
    *lead, h, n, d_k = H.shape
    return np.swapaxes(H, -3, -2).reshape(*lead, n, h * d_k)        # (..., n, h*d_k)


def split_heads(M: ArrayLike, n_heads: int) -> np.ndarray:
    """(..., n, d_model) -> (..., n_heads, n, d_k): head i gets columns i*d_k:(i+1)*d_k."""
    return split_heads_unchecked(*as_split_input(M, n_heads))


def split_weights(W: ArrayLike, n_heads: int) -> np.ndarray:
    """(d_model, d_model) -> (n_heads, d_model, d_k): head i's own W^(i) = columns i*d_k:(i+1)*d_k."""
    W = as_matrix(W, "W", "(d_model, d_model)")
    head_width(W.shape[1], n_heads)
    return split_heads_unchecked(W, n_heads)


def concat_heads(heads: ArrayLike) -> np.ndarray:
    """(..., n_heads, n, d_k) -> (..., n, n_heads * d_k): head 0's columns first, then head 1's, and so on."""
    return concat_heads_unchecked(as_heads(heads))


@dataclass(frozen=True, eq=False)
class MultiHeadParts:
    """Every intermediate of one multi-head attention, for the pictures that draw them."""
    Q: np.ndarray          # (m, d_model) all heads' queries, head i in columns i*d_k:(i+1)*d_k
    K: np.ndarray          # (n, d_model)
    V: np.ndarray          # (n, d_model)
    heads: np.ndarray      # (h, m, d_k) each head's output
    weights: np.ndarray    # (h, m, n) each head's weights
    concat: np.ndarray     # (m, d_model) the heads side by side, head 0's columns first
    output: np.ndarray     # (m, d_model) concat @ W_O


def multi_head_parts(Xq, Xc, W_q, W_k, W_v, W_O, n_heads, mask, scale) -> MultiHeadParts:
    """The four steps of lesson 03 on trusted arrays, keeping every part (inner API: no checks)."""
    Q, K, V = Xq @ W_q, Xc @ W_k, Xc @ W_v               # (m, d_model), (n, d_model), (n, d_model)
    Qh, Kh, Vh = (split_heads_unchecked(M, n_heads) for M in (Q, K, V))   # 1. split: (h, m, d_k), (h, n, d_k)
    heads, weights = attention_unchecked(Qh, Kh, Vh, mask, scale)  # 2. attend: (h, m, d_k), (h, m, n)
    concat = concat_heads_unchecked(heads)                        # 3. concat:  (m, d_model)
    return MultiHeadParts(Q, K, V, heads, weights, concat, concat @ W_O)   # 4. project: (m, d_model)


def multi_head_unchecked(Xq, Xc, W_q, W_k, W_v, W_O, n_heads, mask, scale):
    """The four steps of lesson 03 on trusted arrays -> (output (m, d_model), weights (h, m, n))."""
    parts = multi_head_parts(Xq, Xc, W_q, W_k, W_v, W_O, n_heads, mask, scale)
    return parts.output, parts.weights


def multi_head_attention(X_query: ArrayLike, X_context: ArrayLike, W_q: ArrayLike, W_k: ArrayLike,
                         W_v: ArrayLike, W_O: ArrayLike, n_heads: int, mask: ArrayLike | None = None,
                         scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Concat(head_1..head_h) @ W_O -> (output (m, d_model), weights (n_heads, m, n)).

    `mask` (True = may attend) broadcasts against (n_heads, m, n); `scale` defaults to 1/sqrt(d_k)
    with d_k = d_model / n_heads, the width of one head's queries and keys.
    """
    checked = multi_head_inputs(X_query, X_context, W_q, W_k, W_v, W_O, n_heads, mask, scale)
    return multi_head_unchecked(*checked)
