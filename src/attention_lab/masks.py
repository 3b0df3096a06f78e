"""Lesson 04: cross-attention (queries from one sequence, keys/values from another) and masks."""

from __future__ import annotations

import numpy as np

from ._validate import as_count
from .matrix import project, scaled_dot_product_attention


def causal_mask(n):
    """(n, n) boolean, True on and below the diagonal: token i may attend to tokens 0..i."""
    n = as_count(n, "n (number of tokens)")
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths, n):
    """(len(lengths), n) boolean: row b is True for the first lengths[b] keys, False on padding."""
    n = as_count(n, "n (padded length)")
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths is {lengths!r}: expected a list of whole numbers, one length per sequence")
    out = []
    for b, length in enumerate(lengths):
        length = as_count(length, f"lengths[{b}]")
        if length > n:
            raise ValueError(f"lengths[{b}] is {length} but the padded length n is {n}: "
                             "a sequence cannot be longer than the padded length")
        out.append(np.arange(n) < length)
    if not out:
        raise ValueError("lengths is empty: expected one length per sequence")
    return np.array(out)


def cross_attention(X_query, X_context, W_q, W_k, W_v, mask=None, scale=None):
    """Queries from X_query (m rows), keys and values from X_context (n rows) -> ((m, d_v), (m, n))."""
    Q, K, V = project(X_query, W_q, W_k, W_v, X_context=X_context)
    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)
