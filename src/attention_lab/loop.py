"""Lesson 01: one output y_i computed with explicit loops over the tokens (the teaching version)."""

from __future__ import annotations

import math

import numpy as np

from ._validate import as_index, as_matrix, as_scale
from .matrix import project


def attend_one(i, X, W_q, W_k, W_v, scale=None):
    """Output y_i of token i (0-based) by a plain loop over tokens -> (y_i (d_v,), weights_i (n,))."""
    project(X, W_q, W_k, W_v)  # validates every shape; the loop below recomputes by hand
    X, W_q, W_k, W_v = (as_matrix(a, name) for a, name in
                        ((X, "X"), (W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v")))
    n = X.shape[0]
    i = as_index(i, n)
    scale = as_scale(scale, W_q.shape[1])
    q_i = X[i] @ W_q                                   # (d_k,) the query of token i
    scores = []
    for j in range(n):
        k_j = X[j] @ W_k                               # (d_k,) the key of token j
        scores.append(scale * float(np.dot(q_i, k_j)))
    top = max(scores)                                  # subtract the max: exp never overflows
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    weights = [e / total for e in exps]
    y_i = np.zeros(W_v.shape[1])                       # (d_v,)
    for j in range(n):
        v_j = X[j] @ W_v                               # (d_v,) the value of token j
        y_i = y_i + weights[j] * v_j
    return y_i, np.array(weights)
