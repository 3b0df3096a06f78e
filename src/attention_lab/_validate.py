"""The generic door helpers: arrays, shapes, whole numbers, scales, masks, names and records.

Every public function checks its own arguments once, at its door, with these helpers and with the
domain checks of its own module or of the module that owns the record or data it checks (training
configs and runs in `training`, the real model's inputs in `real_model`, ...). It then hands the
checked arrays to computations that trust them. The array checks (`as_array`, `as_matrix`,
`as_mask`) return fresh float64 or bool copies, so that no computation can change what a caller
passed in; the token-id checks return the ids as given (whole numbers, never written to).
This module imports only the standard library and NumPy.
"""

from __future__ import annotations

import numbers

import numpy as np


def shape_of(a) -> str:
    """Shape as students write it: (3, 4). `a` is an array or a shape tuple."""
    shape = a if isinstance(a, tuple) else np.shape(a)
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def to_array(a, name: str) -> np.ndarray:
    """Any array-like to a fresh NumPy array, or a TypeError/ValueError naming `name`."""
    if a is None:
        raise TypeError(f"{name} is None: expected an array of numbers")
    try:
        return np.array(a, copy=True)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} is not a rectangular array ({exc}); every row needs the same length"
        ) from None


def _real(arr: np.ndarray, name: str, expected: str) -> None:
    """Refuse booleans, complex numbers, strings and objects."""
    if arr.dtype == bool:
        raise TypeError(f"{name} holds booleans: expected real numbers of shape {expected} "
                        "(booleans belong in `mask`)")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} holds complex numbers: expected real numbers of shape {expected}")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} has dtype {arr.dtype}: expected real numbers (int or float) of "
                        f"shape {expected}")


def _finite(arr: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(v) for v in np.argwhere(bad)[0])
        place = f"row {where[0]}, column {where[1]}" if len(where) == 2 else f"index {where}"
        raise ValueError(f"{name} contains {arr[where]} at {place}: every entry must be a finite number")


def as_array(a, name: str, expected: str, min_ndim: int = 2, ndim: int | None = None) -> np.ndarray:
    """A finite float64 copy of `a` with at least `min_ndim` (or exactly `ndim`) dimensions, none empty."""
    arr = to_array(a, name)
    _real(arr, name, expected)
    if ndim is not None and arr.ndim != ndim:
        hint = ""
        if arr.ndim == 1:
            hint = f"; for a single token write it as one row, e.g. np.reshape({name}, (1, -1))"
        elif arr.ndim > ndim:
            hint = "; this function takes one sequence at a time"
        raise ValueError(f"{name} has shape {shape_of(arr)} ({arr.ndim}-D): expected a {ndim}-D array "
                         f"{expected}{hint}")
    if arr.ndim < min_ndim:
        hint = ""
        if arr.ndim == 1 and min_ndim == 2:
            hint = f"; for a single token write it as one row, e.g. np.reshape({name}, (1, -1))"
        raise ValueError(f"{name} has shape {shape_of(arr)} ({arr.ndim}-D): expected at least "
                         f"{min_ndim}-D {expected}{hint}")
    if arr.size == 0:
        raise ValueError(f"{name} has shape {shape_of(arr)}: expected at least one row and one "
                         f"column {expected}")
    arr = arr.astype(np.float64)
    _finite(arr, name)
    return arr


def as_matrix(a, name: str, expected: str = "(n, d)") -> np.ndarray:
    """A finite float64 copy of `a`, checked to be a non-empty 2-D array of real numbers."""
    return as_array(a, name, expected, ndim=2)


def same(a: np.ndarray, a_name: str, a_axis: int, b: np.ndarray, b_name: str, b_axis: int,
         why: str) -> None:
    """Raise if a.shape[a_axis] != b.shape[b_axis], naming both shapes and why they must agree."""
    if a.shape[a_axis] != b.shape[b_axis]:
        raise ValueError(f"{a_name} has shape {shape_of(a)} but {b_name} has shape {shape_of(b)}: {why}")


def _batch(arrays: dict[str, np.ndarray]) -> tuple[int, ...]:
    """The broadcast of the leading (batch, head) dimensions of every array."""
    try:
        return np.broadcast_shapes(*(a.shape[:-2] for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {shape_of(a)}" for k, a in arrays.items())
        raise ValueError(f"the leading (batch or head) dimensions do not broadcast: {shapes}; "
                         "expected equal sizes, or 1, in each leading dimension") from None


MASKED_ROWS = ("refuse", "zero")


def as_masked_rows(masked_rows) -> str:
    """What to do with a query whose mask row allows no key: 'refuse' (the default) or 'zero'."""
    if masked_rows not in MASKED_ROWS:
        raise ValueError(f"masked_rows is {masked_rows!r}: expected one of {MASKED_ROWS}")
    return masked_rows


def as_mask(mask, shape: tuple[int, ...], masked_rows: str = "refuse") -> np.ndarray | None:
    """A boolean copy of `mask` broadcast to `shape` = (..., m, n); with masked_rows='refuse'
    every row must allow a key."""
    if mask is None:
        return None
    arr = to_array(mask, "mask")
    if arr.dtype != bool:
        raise TypeError(
            f"mask has dtype {arr.dtype}: expected booleans, True where the query may attend to "
            "the key (for a 0/1 array use mask.astype(bool); for an additive 0/-inf mask use "
            "additive == 0)")
    m, n = shape[-2:]
    try:
        arr = np.broadcast_to(arr, shape).copy()
    except ValueError:
        want = f"({m}, {n})" if len(shape) == 2 else f"a shape that broadcasts to {shape_of(shape)}"
        raise ValueError(f"mask has shape {shape_of(arr)}: expected {want}, one row per query and "
                         "one column per key") from None
    empty = np.argwhere(~arr.any(axis=-1))
    if empty.size and masked_rows == "refuse":
        where = tuple(int(v) for v in empty[0])
        row = (f"{where[-1]} (counting from 0)" if len(where) == 1
               else f"{where[-1]} (counting from 0, at leading index {where[:-1]})")
        raise ValueError(
            f"mask row {row} allows no key at all (all False): that query would have nothing to "
            "attend to and its softmax would be 0/0 = NaN. Let every row allow a key, or pass "
            "masked_rows='zero' to give such queries zero weights and a zero output (what left "
            "padding plus a causal mask needs)")
    return arr


def default_scale(d_k: int) -> float:
    """The default scale of the scores, 1/sqrt(d_k), with d_k the width of one head's queries and keys."""
    return 1.0 / np.sqrt(d_k)


def as_scale(scale, d_k: int) -> float:
    """`scale`, or 1/sqrt(d_k) when it is None; must be a positive finite real number."""
    if scale is None:
        return default_scale(d_k)
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale is {scale!r} of type {type(scale).__name__}: expected a positive "
                        f"number, or None for 1/sqrt(d_k) = {default_scale(d_k):.4g}")
    value = float(scale)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"scale is {scale!r}: expected a positive finite number, or None for "
                         f"1/sqrt(d_k) = {default_scale(d_k):.4g}")
    return value


def as_count(value, name: str, minimum: int = 1) -> int:
    """A whole number >= minimum (bools and floats are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} is {value!r} of type {type(value).__name__}: expected a whole number")
    if value < minimum:
        raise ValueError(f"{name} is {value}: expected a whole number >= {minimum}")
    return int(value)


def as_seeds(seeds, name: str = "seeds") -> list[int]:
    """Random seeds in order: a non-empty list, tuple, range or 1-D array of whole numbers >= 0."""
    if not (isinstance(seeds, (list, tuple, range)) or (isinstance(seeds, np.ndarray) and seeds.ndim == 1)):
        raise TypeError(f"{name} is {seeds!r} of type {type(seeds).__name__}: expected a list of seeds "
                        "(whole numbers >= 0), e.g. [0, 1, 2]")
    if len(seeds) == 0:
        raise ValueError(f"{name} is empty: expected at least one seed, e.g. [0, 1, 2]")
    return [as_count(seed, f"a seed in {name}", minimum=0) for seed in seeds]


def one_per_seed(values, seeds: list[int], name: str) -> list:
    """A list or tuple with one entry per seed of `seeds`."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} is a {type(values).__name__}: expected a list with one entry per seed "
                        f"({len(seeds)} seeds: {seeds})")
    if len(values) != len(seeds):
        raise ValueError(f"{name} has {len(values)} entries for {len(seeds)} seeds {seeds}: expected one "
                         "per seed")
    return list(values)


def as_index(i, n: int) -> int:
    """A token index in 0..n-1 (Python counts from 0: y_2 in the math is index 1)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
        raise TypeError(f"token index i is {i!r} of type {type(i).__name__}: expected a whole number")
    if not 0 <= i < n:
        raise ValueError(f"token index i is {i} but X has {n} tokens: expected 0 <= i <= {n - 1} "
                         "(Python counts from 0, so the math's y_1 is i=0)")
    return int(i)


def attention_inputs(Q, K, V, mask=None, scale=None, masked_rows="refuse"):
    """The kernel's door: Q (..., m, d_k), K (..., n, d_k), V (..., n, d_v), a mask and a scale."""
    Q = as_array(Q, "Q", "(..., m, d_k)")
    K = as_array(K, "K", "(..., n, d_k)")
    V = as_array(V, "V", "(..., n, d_v)")
    same(Q, "Q", -1, K, "K", -1, "queries and keys need the same width d_k")
    same(K, "K", -2, V, "V", -2, "there must be one value row per key row (same n)")
    batch = _batch({"Q": Q, "K": K, "V": V})
    mask = as_mask(mask, (*batch, Q.shape[-2], K.shape[-2]), as_masked_rows(masked_rows))
    return Q, K, V, mask, as_scale(scale, Q.shape[-1])


def projection_inputs(X, W_q, W_k, W_v, X_context=None, names=("X_query", "X_context")):
    """Token matrices and projection weights whose shapes fit together (row convention).

    Without X_context the keys and values come from X itself; `names` name the two token
    matrices in messages when they differ (e.g. ("X_dec", "X_enc")).
    """
    x_name, c_name = ("X", "X") if X_context is None else names
    X = as_matrix(X, x_name, "(n, d)")
    C = X if X_context is None else as_matrix(X_context, c_name, "(n, d)")
    W_q = as_matrix(W_q, "W_q", "(d, d_k)")
    W_k = as_matrix(W_k, "W_k", "(d, d_k)")
    W_v = as_matrix(W_v, "W_v", "(d, d_v)")
    if X_context is not None:
        same(X, x_name, 1, C, c_name, 1, "queries and context tokens need the same embedding width d")
    same(X, x_name, 1, W_q, "W_q", 0, f"W_q needs one row per feature of the tokens ({X.shape[1]} rows)")
    same(C, c_name, 1, W_k, "W_k", 0, f"W_k needs one row per feature of the tokens ({C.shape[1]} rows)")
    same(C, c_name, 1, W_v, "W_v", 0, f"W_v needs one row per feature of the tokens ({C.shape[1]} rows)")
    same(W_q, "W_q", 1, W_k, "W_k", 1, "queries and keys need the same width d_k (columns)")
    return X, C, W_q, W_k, W_v


def head_width(d_model: int, n_heads) -> int:
    """Width d_k = d_model // n_heads of one head; n_heads must divide d_model."""
    n_heads = as_count(n_heads, "n_heads")
    if d_model % n_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        raise ValueError(f"n_heads is {n_heads} but d_model is {d_model}: n_heads must divide "
                         f"d_model evenly (choose one of {divisors})")
    return d_model // n_heads


def square(W, name: str, d_model: int) -> np.ndarray:
    """A (d_model, d_model) weight matrix."""
    W = as_matrix(W, name, "(d_model, d_model)")
    if W.shape != (d_model, d_model):
        raise ValueError(f"{name} has shape {shape_of(W)}: expected ({d_model}, {d_model}) = "
                         "(d_model, d_model), with d_model the width of the tokens")
    return W


def as_positive(value, name: str, example: str, zero: bool = False) -> float:
    """A positive (or, with zero=True, >= 0) finite number: TypeError if not a number, ValueError if not."""
    sign = "finite number >= 0" if zero else "positive finite number"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is {value!r} of type {type(value).__name__}: "
                        f"expected a {sign} such as {example}")
    if not np.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise ValueError(f"{name} is {value!r}: expected a {sign} such as {example}")
    return float(value)


def wrong_record(value, expected: str, what: str | None = None) -> TypeError:
    """The TypeError for a value that is not the record `expected` ("a RealModel", "an al.ModelConfig").

    The caller tests isinstance against its own record class; this only words the message.
    """
    if what is None:
        return TypeError(f"expected {expected}, got {type(value).__name__}")
    return TypeError(f"{what} is a {type(value).__name__}: expected {expected}")


def whole_ids(ids, name: str = "ids") -> np.ndarray:
    """Token ids: TypeError unless whole numbers (no floats, no booleans); ValueError if negative or empty."""
    arr = np.asarray(ids)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} has dtype {arr.dtype}: expected token ids, whole numbers >= 0 "
                        "(for example np.array(ids, dtype=int))")
    if arr.size == 0:
        raise ValueError(f"{name} has shape {shape_of(arr)}: expected at least one token id")
    if arr.min() < 0:
        raise ValueError(f"{name} holds {arr.min()}: expected token ids, whole numbers >= 0")
    return arr


def batch_ids(a, name: str, vocab_size: int, longest: int, shortest: int = 1) -> np.ndarray:
    """Token ids as a batch (B, n) (one sequence (n,) becomes (1, n)), shortest <= n <= longest,
    each id in 0..vocab_size-1."""
    arr = np.asarray(a)
    if arr.ndim == 1:
        arr = arr[None, :]
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be whole numbers of shape (B, n) (a batch of sequences), got "
                        f"{arr.dtype} of shape {arr.shape}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be whole numbers of shape (B, n) (a batch of sequences), got "
                         f"{arr.dtype} of shape {arr.shape}")
    if arr.shape[0] == 0 or not shortest <= arr.shape[1] <= longest:
        n = f"n = {longest}" if shortest == longest else f"{shortest} <= n <= {longest}"
        raise ValueError(f"{name} has shape {arr.shape}: expected (B, n) with {n}")
    if arr.min() < 0 or arr.max() >= vocab_size:
        raise ValueError(f"{name} holds {arr.min()}..{arr.max()}: expected token ids 0..{vocab_size - 1}")
    return arr


def as_flag(value, name: str) -> bool:
    """A yes/no argument: True or False (NumPy's bool too), never a string or a number."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def knocked_heads(knock, n_layers: int, n_heads: int, first_layer: int = 1) -> list[tuple[int, int]]:
    """(layer, head) pairs: whole numbers, layers first_layer.. (n_layers of them), heads 0..n_heads-1."""
    if isinstance(knock, (str, bytes)) or not hasattr(knock, "__iter__"):
        raise TypeError(f"knock is {knock!r}: expected a list of (layer, head) pairs, e.g. [(2, 0)]")
    pairs = []
    for pair in knock:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2 or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in pair):
            raise TypeError(f"knock holds {pair!r}: expected (layer, head) pairs of whole numbers, "
                            "e.g. [(2, 0)]")
        layer, head = (int(v) for v in pair)
        last = first_layer + n_layers - 1
        if not (first_layer <= layer <= last and 0 <= head < n_heads):
            raise ValueError(f"cannot knock out head {head} of layer {layer}: expected layers {first_layer}.."
                             f"{last} and heads 0..{n_heads - 1}")
        pairs.append((layer, head))
    return pairs


def distinct_names(names, what: str) -> list[str]:
    """Names as text, none repeated once written as text (1 and '1' would share a row)."""
    text = [str(name) for name in names]
    twice = sorted({t for t in text if text.count(t) > 1})
    if twice:
        raise ValueError(f"{what} use the name(s) {twice} more than once (1 and '1' count as the same "
                         "name): expected one row per name")
    return text


def as_table(table, keys: tuple[str, ...], made_by: str) -> dict:
    """A dict of columns holding `keys`: TypeError if not a dict, ValueError if a key is missing."""
    if not isinstance(table, dict):
        raise TypeError(f"table is a {type(table).__name__}: expected the dict that {made_by} returns, "
                        f"with keys {list(keys)}")
    missing = [k for k in keys if k not in table]
    if missing:
        raise ValueError(f"table has keys {sorted(table)} but lacks {missing}: expected the dict that "
                         f"{made_by} returns")
    return table


def as_kind(kind, kinds: tuple[str, ...], name: str = "kind") -> str:
    """One of `kinds` (such as a heatmap's kind or a role): TypeError if not a str, ValueError if unknown."""
    if not isinstance(kind, str):
        raise TypeError(f"{name} is {kind!r} of type {type(kind).__name__}: expected a str, "
                        f"one of {list(kinds)}")
    if kind not in kinds:
        raise ValueError(f"{name} is {kind!r}: expected one of {list(kinds)}")
    return kind


def weights_in_0_1(values: np.ndarray, name: str, hint: str = "", tol: float = 0.0) -> np.ndarray:
    """Attention weights: ValueError unless every value lies in 0..1 (within `tol`)."""
    if values.size and (values.min() < -tol or values.max() > 1 + tol):
        raise ValueError(f"{name} range from {values.min():.3g} to {values.max():.3g}: expected attention "
                         f"weights, which lie in 0..1{f' ({hint})' if hint else ''}")
    return values
