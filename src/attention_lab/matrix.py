"""Lesson 02: attention for all tokens at once, in matrix form (row convention: Q = X @ W_q)."""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import _to_array, as_mask, as_matrix, as_scale, same, shape_of


def softmax(scores, axis=-1):
    """Softmax along `axis`, stable for huge scores: exp(s - max) / sum. -inf means 'no weight'."""
    s = _to_array(scores, "scores")
    if s.dtype == bool or np.iscomplexobj(s) or not (
        np.issubdtype(s.dtype, np.integer) or np.issubdtype(s.dtype, np.floating)
    ):
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
    top = s.max(axis=axis, keepdims=True)
    if np.isneginf(top).any():
        where = tuple(int(v) for v in np.argwhere(np.isneginf(top))[0])
        raise ValueError(f"scores are all -inf along axis {axis} at index {where}: softmax would be "
                         "0/0 = NaN; at least one entry must be finite")
    e = np.exp(s - top)  # largest entry becomes exp(0) = 1: never overflows
    return e / e.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None):
    """softmax(scale * Q K^T, masked) @ V -> (output (m, d_v), weights (m, n))."""
    Q = as_matrix(Q, "Q", "(m, d_k)")
    K = as_matrix(K, "K", "(n, d_k)")
    V = as_matrix(V, "V", "(n, d_v)")
    same(Q, "Q", 1, K, "K", 1, "queries and keys need the same width d_k")
    same(K, "K", 0, V, "V", 0, "there must be one value row per key row (same n)")
    m, n = Q.shape[0], K.shape[0]
    mask = as_mask(mask, m, n)
    scale = as_scale(scale, Q.shape[1])
    scores = scale * (Q @ K.T)                       # (m, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)     # masked keys: exp(-inf) = 0
    weights = softmax(scores, axis=-1)               # (m, n), rows sum to 1
    return weights @ V, weights                      # (m, d_v), (m, n)


def project(X, W_q, W_k, W_v, X_context=None):
    """Q = X W_q, K = C W_k, V = C W_v with C = X_context or X; returns (Q, K, V)."""
    X = as_matrix(X, "X", "(n, d)")
    C = X if X_context is None else as_matrix(X_context, "X_context", "(n, d)")
    c_name = "X" if X_context is None else "X_context"
    W_q = as_matrix(W_q, "W_q", "(d, d_k)")
    W_k = as_matrix(W_k, "W_k", "(d, d_k)")
    W_v = as_matrix(W_v, "W_v", "(d, d_v)")
    if X_context is not None:
        same(X, "X_query", 1, C, "X_context", 1,
             "queries and context tokens need the same embedding width d")
    same(X, "X" if X_context is None else "X_query", 1, W_q, "W_q", 0,
         f"W_q needs one row per feature of the tokens ({X.shape[1]} rows)")
    same(C, c_name, 1, W_k, "W_k", 0, f"W_k needs one row per feature of the tokens ({C.shape[1]} rows)")
    same(C, c_name, 1, W_v, "W_v", 0, f"W_v needs one row per feature of the tokens ({C.shape[1]} rows)")
    same(W_q, "W_q", 1, W_k, "W_k", 1, "queries and keys need the same width d_k (columns)")
    return X @ W_q, C @ W_k, C @ W_v                 # (m, d_k), (n, d_k), (n, d_v)


def self_attention(X, W_q, W_k, W_v, mask=None, scale=None):
    """Every token of X attends to every token of X -> (output (n, d_v), weights (n, n))."""
    Q, K, V = project(X, W_q, W_k, W_v)
    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)
