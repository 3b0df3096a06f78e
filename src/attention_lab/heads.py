"""Lesson 03: multi-head attention: split d_model into heads, attend, concatenate, project with W_o."""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_mask, as_matrix, same, shape_of
from .matrix import softmax


def _square(W, name: str, d_model: int) -> np.ndarray:
    W = as_matrix(W, name, "(d_model, d_model)")
    if W.shape != (d_model, d_model):
        raise ValueError(f"{name} has shape {shape_of(W)}: expected ({d_model}, {d_model}) = "
                         "(d_model, d_model), with d_model the width of the tokens")
    return W


def head_width(d_model: int, n_heads) -> int:
    """Width k = d_model // n_heads of one head; n_heads must divide d_model."""
    n_heads = as_count(n_heads, "n_heads")
    if d_model % n_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        raise ValueError(f"n_heads is {n_heads} but d_model is {d_model}: n_heads must divide "
                         f"d_model evenly (choose one of {divisors})")
    return d_model // n_heads


def split_heads(M, n_heads):
    """(n, d_model) -> (n_heads, n, k): head i gets columns i*k:(i+1)*k."""
    M = as_matrix(M, "M", "(n, d_model)")
    n, d_model = M.shape
    k = head_width(d_model, n_heads)
    return M.reshape(n, n_heads, k).transpose(1, 0, 2)


def split_weights(W, n_heads):
    """(d_model, d_model) -> (n_heads, d_model, k): head i's own W^(i) = columns i*k:(i+1)*k."""
    W = as_matrix(W, "W", "(d_model, d_model)")
    k = head_width(W.shape[1], n_heads)
    return W.reshape(W.shape[0], n_heads, k).transpose(1, 0, 2)


def concat_heads(heads):
    """(n_heads, n, k) -> (n, n_heads * k): head 0's columns first, then head 1's, and so on."""
    H = np.array(heads, dtype=float, copy=True)
    if H.ndim != 3 or H.size == 0:
        raise ValueError(f"heads have shape {shape_of(H)}: expected (n_heads, n, k), one (n, k) "
                         "output per head")
    h, n, k = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * k)


def multi_head_attention(X_query, X_context, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Concat(head_1..head_h) @ W_o -> (output (m, d_model), weights (n_heads, m, n))."""
    Xq = as_matrix(X_query, "X_query", "(m, d_model)")
    Xc = as_matrix(X_context, "X_context", "(n, d_model)")
    same(Xq, "X_query", 1, Xc, "X_context", 1, "queries and context tokens need the same width d_model")
    m, d_model = Xq.shape
    n = Xc.shape[0]
    k = head_width(d_model, n_heads)
    W_q, W_k, W_v, W_o = (_square(W, name, d_model) for W, name in
                          ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v"), (W_o, "W_o")))
    mask = as_mask(mask, m, n)
    Q = (Xq @ W_q).reshape(m, n_heads, k).transpose(1, 0, 2)   # (h, m, k)
    K = (Xc @ W_k).reshape(n, n_heads, k).transpose(1, 0, 2)   # (h, n, k)
    V = (Xc @ W_v).reshape(n, n_heads, k).transpose(1, 0, 2)   # (h, n, k)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(k)             # (h, m, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)               # same mask for every head
    weights = softmax(scores, axis=-1)                         # (h, m, n)
    heads = weights @ V                                        # (h, m, k)
    concat = heads.transpose(1, 0, 2).reshape(m, d_model)      # (m, d_model), head 0 first
    return concat @ W_o, weights                               # (m, d_model), (h, m, n)
