"""Lesson 05: word order. Attention alone ignores it; sinusoidal, learned and rotary positions add it."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, as_count, as_matrix, as_positions, as_positive, even_width, table_fits


def _frequencies(d: int, base: float) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)                     # (d/2,) one angle per pair


def sinusoidal_unchecked(positions: np.ndarray, d: int, base: float) -> np.ndarray:
    angles = positions[:, None] * _frequencies(d, base)[None, :]  # (n, d/2)
    P = np.empty((len(positions), d))
    P[:, 0::2], P[:, 1::2] = np.sin(angles), np.cos(angles)      # pair i: (sin, cos) of p * w_i
    return P                                                      # (n, d)


def sinusoidal_positions(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """(n, d): row p holds sin(p w_i), cos(p w_i) in components 2i, 2i+1, with w_i = base^(-2i/d)."""
    n, d = as_count(n, "n (number of positions)"), as_count(d, "d (width)")
    return sinusoidal_unchecked(np.arange(n), even_width(d, "the position encoding"),
                                as_positive(base, "base", "10000.0"))


def add_positions(X: ArrayLike, table: ArrayLike) -> np.ndarray:
    """X + table[:n]: learned absolute positions, one trained row per position (n <= max_len)."""
    X = as_matrix(X, "X", "(n, d)")
    table = as_matrix(table, "table", "(max_len, d)")
    table_fits(table, X)
    return X + table[:len(X)]                                     # (n, d)


def rope_unchecked(M: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    angles = positions[:, None] * _frequencies(M.shape[-1], base)[None, :]   # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = M[..., 0::2], M[..., 1::2]                        # (..., n, d/2) each
    out = np.empty_like(M)
    out[..., 0::2] = even * cos - odd * sin                       # rotate each pair by p * w_i
    out[..., 1::2] = even * sin + odd * cos
    return out                                                    # (..., n, d)


def rope(M: ArrayLike, positions: ArrayLike | None = None, base: float = 10000.0) -> np.ndarray:
    """Rotary embedding: rotate each adjacent pair (2i, 2i+1) of every row by position * base^(-2i/d).

    Adjacent pairs, as RoFormer and Meta's LLaMA; GPT-NeoX's `rotate_half` pairs i with i + d/2 instead.
    """
    M = as_array(M, "M (queries or keys)", "(..., n, d)")
    base = as_positive(base, "base", "10000.0")
    even_width(M.shape[-1], "M (queries or keys)")
    return rope_unchecked(M, as_positions(positions, M.shape[-2]), base)
