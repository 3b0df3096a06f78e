"""Lesson 01: one output y_i computed with explicit loops over the tokens (the teaching version)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_index, as_scale, projection_inputs


def attend_one_unchecked(i, X, W_q, W_k, W_v, scale):
    """The loop of lesson 01 on trusted arrays."""
    q_i = X[i] @ W_q                                   # (d_k,) the query of token i
    scores = []
    for j in range(len(X)):
        k_j = X[j] @ W_k                               # (d_k,) the key of token j
        scores.append(scale * float(np.dot(q_i, k_j)))
    top = max(scores)                                  # subtract the max: exp never overflows
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    weights = [e / total for e in exps]
    y_i = np.zeros(W_v.shape[1])                       # (d_v,)
    for j in range(len(X)):
        v_j = X[j] @ W_v                               # (d_v,) the value of token j
        y_i = y_i + weights[j] * v_j
    return y_i, np.array(weights)


def attend_one(i: int, X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike,
               scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Output y_i of token i (0-based) by a plain loop over tokens -> (y_i (d_v,), weights_i (n,))."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    return attend_one_unchecked(as_index(i, X.shape[0]), X, W_q, W_k, W_v, as_scale(scale, W_q.shape[1]))
