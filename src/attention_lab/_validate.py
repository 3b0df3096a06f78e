"""Input checks shared by every public function: clear messages instead of NumPy errors."""

from __future__ import annotations

import numbers

import numpy as np


def shape_of(a: np.ndarray) -> str:
    """Shape as students write it: (3, 4)."""
    return "(" + ", ".join(str(s) for s in a.shape) + ("," if a.ndim == 1 else "") + ")"


def _to_array(a, name: str) -> np.ndarray:
    """Any array-like to a fresh NumPy array, or a TypeError/ValueError naming `name`."""
    if a is None:
        raise TypeError(f"{name} is None: expected an array of numbers")
    try:
        arr = np.array(a, copy=True)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} is not a rectangular array ({exc}); every row needs the same length"
        ) from None
    return arr


def as_matrix(a, name: str, expected: str = "(n, d)") -> np.ndarray:
    """A float64 copy of `a`, checked to be a finite, non-empty 2-D array of real numbers."""
    arr = _to_array(a, name)
    if arr.dtype == bool:
        raise TypeError(
            f"{name} holds booleans: expected real numbers of shape {expected} "
            "(booleans belong in `mask`)"
        )
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} holds complex numbers: expected real numbers of shape {expected}")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(
            f"{name} has dtype {arr.dtype}: expected real numbers (int or float) of shape {expected}"
        )
    if arr.ndim != 2:
        hint = ""
        if arr.ndim == 1:
            hint = f"; for a single token write it as one row, e.g. np.reshape({name}, (1, -1))"
        elif arr.ndim > 2:
            hint = "; batches are not supported: pass one sequence at a time"
        raise ValueError(
            f"{name} has shape {shape_of(arr)} ({arr.ndim}-D): expected a 2-D array {expected}{hint}"
        )
    if arr.size == 0:
        raise ValueError(
            f"{name} has shape {shape_of(arr)}: expected at least one row and one column {expected}"
        )
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} contains {arr[r, c]} at row {r}, column {c}: every entry must be a finite number"
        )
    return arr


def same(a: np.ndarray, a_name: str, a_axis: int, b: np.ndarray, b_name: str, b_axis: int,
         why: str) -> None:
    """Raise if a.shape[a_axis] != b.shape[b_axis], naming both shapes and why they must agree."""
    if a.shape[a_axis] != b.shape[b_axis]:
        raise ValueError(
            f"{a_name} has shape {shape_of(a)} but {b_name} has shape {shape_of(b)}: {why}"
        )


def as_mask(mask, m: int, n: int) -> np.ndarray | None:
    """A boolean (m, n) copy of `mask` (True = may attend); every row must allow some key."""
    if mask is None:
        return None
    arr = _to_array(mask, "mask")
    if arr.dtype != bool:
        raise TypeError(
            f"mask has dtype {arr.dtype}: expected booleans, True where the query may attend to "
            "the key (for a 0/1 array use mask.astype(bool); for an additive 0/-inf mask use "
            "additive == 0)"
        )
    if arr.shape != (m, n):
        raise ValueError(
            f"mask has shape {shape_of(arr)}: expected ({m}, {n}), one row per query and one "
            "column per key"
        )
    empty = np.flatnonzero(~arr.any(axis=1))
    if empty.size:
        raise ValueError(
            f"mask row {empty[0]} allows no key at all (all False): query {empty[0]} would have "
            "nothing to attend to and its softmax would be 0/0 = NaN; every row needs at least "
            "one True"
        )
    return arr


def as_scale(scale, d_k: int) -> float:
    """`scale`, or 1/sqrt(d_k) when it is None; must be a positive finite real number."""
    if scale is None:
        return 1.0 / np.sqrt(d_k)
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(
            f"scale is {scale!r} of type {type(scale).__name__}: expected a positive number, "
            f"or None for 1/sqrt(d_k) = {1.0 / np.sqrt(d_k):.4g}"
        )
    value = float(scale)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(
            f"scale is {scale!r}: expected a positive finite number, or None for "
            f"1/sqrt(d_k) = {1.0 / np.sqrt(d_k):.4g}"
        )
    return value


def as_count(value, name: str, minimum: int = 1) -> int:
    """A whole number >= minimum (bools and floats are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} is {value!r} of type {type(value).__name__}: expected a whole number")
    if value < minimum:
        raise ValueError(f"{name} is {value}: expected a whole number >= {minimum}")
    return int(value)


def as_index(i, n: int) -> int:
    """A token index in 0..n-1 (Python counts from 0: y_2 in the math is index 1)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
        raise TypeError(f"token index i is {i!r} of type {type(i).__name__}: expected a whole number")
    if not 0 <= i < n:
        raise ValueError(
            f"token index i is {i} but X has {n} tokens: expected 0 <= i <= {n - 1} "
            "(Python counts from 0, so the math's y_1 is i=0)"
        )
    return int(i)
