"""Lesson 05: word order. Attention alone ignores it; sinusoidal, learned and rotary positions add it."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, as_count, as_matrix, as_positive, shape_of


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def even_width(d: int, what: str) -> int:
    """A width that splits into pairs of components (sin/cos pairs, RoPE rotation planes)."""
    if d % 2:
        raise ValueError(f"{what} has width d = {d}, which is odd: expected an even d, because the "
                         "components are used in pairs (0, 1), (2, 3), ...")
    return d


def as_positions(positions, n: int) -> np.ndarray:
    """n whole-number positions, >= 0 (default 0..n-1)."""
    if positions is None:
        return np.arange(n)
    p = np.asarray(positions)
    if p.dtype.kind not in "iu":
        raise TypeError(f"positions {p.tolist()!r} have dtype {p.dtype}: expected {n} whole numbers "
                        ">= 0, one per token (for example np.arange(n))")
    if p.shape != (n,) or (p < 0).any():
        raise ValueError(f"positions {p.tolist()!r} (shape {shape_of(p)}): expected {n} whole numbers "
                         ">= 0, one per token")
    return p.astype(int)


def table_fits(table: np.ndarray, X: np.ndarray) -> None:
    """A learned position table (max_len, d) has a row for every token of X (n, d)."""
    if table.shape[1] != X.shape[1]:
        raise ValueError(f"the position table has shape {shape_of(table)} but X has shape "
                         f"{shape_of(X)}: expected the same width d = {X.shape[1]}")
    if X.shape[0] > table.shape[0]:
        raise ValueError(f"X has {X.shape[0]} tokens but the position table has rows for positions "
                         f"0..{table.shape[0] - 1} only: position {table.shape[0]} is past the table. "
                         "A learned table has max_len rows and no more: shorten X, or use a longer "
                         "table (rows past the training length exist but are untrained)")


# pragma: no mutate end
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


def rope_angles(positions: np.ndarray, d: int, base: float, kind) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of p * w_i for each position p and pair i -> two (n, d/2) arrays of dtype `kind`."""
    angles = positions[:, None] * _frequencies(d, base)[None, :]   # (n, d/2), float64
    return np.cos(angles).astype(kind), np.sin(angles).astype(kind)


def rope_rotate(M: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Each pair (2i, 2i+1) of M's rows (..., n, d) turned by the angles of rope_angles (n, d/2)."""
    even, odd = M[..., 0::2], M[..., 1::2]                        # (..., n, d/2) each
    out = np.empty(M.shape, np.result_type(M, cos))
    out[..., 0::2] = even * cos - odd * sin                       # rotate each pair by p * w_i
    out[..., 1::2] = even * sin + odd * cos
    return out                                                    # (..., n, d)


def rope_unchecked(M: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    kind = np.result_type(M.dtype, np.float32)                    # float32 stays float32 (lesson 08's model)
    return rope_rotate(M, *rope_angles(positions, M.shape[-1], base, kind))


def rope(M: ArrayLike, positions: ArrayLike | None = None, base: float = 10000.0) -> np.ndarray:
    """Rotary embedding: rotate each adjacent pair (2i, 2i+1) of every row by position * base^(-2i/d).

    Adjacent pairs, as RoFormer and Meta's LLaMA; GPT-NeoX's `rotate_half` pairs i with i + d/2 instead.
    """
    M = as_array(M, "M (queries or keys)", "(..., n, d)")
    base = as_positive(base, "base", "10000.0")
    even_width(M.shape[-1], "M (queries or keys)")
    return rope_unchecked(M, as_positions(positions, M.shape[-2]), base)
