"""Every input check of the package, in one place: clear messages instead of NumPy errors.

Public functions call these once, at the door, then hand the checked arrays to private
computations that trust them. Every check returns fresh float64 (or bool) arrays, so that no
computation can change what a caller passed in.
"""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np

from .examples import Translation


def shape_of(a) -> str:
    """Shape as students write it: (3, 4). `a` is an array or a shape tuple."""
    shape = a if isinstance(a, tuple) else np.shape(a)
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _to_array(a, name: str) -> np.ndarray:
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
    arr = _to_array(a, name)
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
    arr = _to_array(mask, "mask")
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
        row = str(where[-1]) if len(where) == 1 else f"{where[-1]} (at leading index {where[:-1]})"
        raise ValueError(
            f"mask row {row} allows no key at all (all False): that query would have nothing to "
            "attend to and its softmax would be 0/0 = NaN. Let every row allow a key, or pass "
            "masked_rows='zero' to give such queries zero weights and a zero output (what left "
            "padding plus a causal mask needs)")
    return arr


def as_scale(scale, d_k: int) -> float:
    """`scale`, or 1/sqrt(d_k) when it is None; must be a positive finite real number."""
    from .matrix import default_scale  # here, not at the top: matrix imports this module

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


def as_index(i, n: int) -> int:
    """A token index in 0..n-1 (Python counts from 0: y_2 in the math is index 1)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
        raise TypeError(f"token index i is {i!r} of type {type(i).__name__}: expected a whole number")
    if not 0 <= i < n:
        raise ValueError(f"token index i is {i} but X has {n} tokens: expected 0 <= i <= {n - 1} "
                         "(Python counts from 0, so the math's y_1 is i=0)")
    return int(i)


def as_scores(scores, axis) -> tuple[np.ndarray, int]:
    """Scores for a softmax: real, finite or -inf, non-empty; `axis` a valid whole number."""
    s = _to_array(scores, "scores")
    if s.dtype == bool or np.iscomplexobj(s) or not (
            np.issubdtype(s.dtype, np.integer) or np.issubdtype(s.dtype, np.floating)):
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
    dead = np.isneginf(s).all(axis=axis)
    if dead.any():
        where = tuple(int(v) for v in np.argwhere(np.atleast_1d(dead))[0])
        raise ValueError(f"scores are all -inf along axis {axis} at index {where}: softmax would be "
                         "0/0 = NaN; at least one entry must be finite")
    return s, int(axis)


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
    H = _to_array(heads, "heads")
    if H.ndim < 3:
        raise ValueError(f"heads have shape {shape_of(H)}: expected (n_heads, n, d_k), one (n, d_k) "
                         "output per head")
    return as_array(H, "heads", "(n_heads, n, d_k)", min_ndim=3)


def as_split_input(M, n_heads) -> tuple[np.ndarray, int]:
    """A matrix (..., n, d_model) to cut into heads, and the number of heads."""
    M = as_array(M, "M", "(..., n, d_model)")
    head_width(M.shape[-1], n_heads)
    return M, int(n_heads)


def labels_fit(X: np.ndarray, tokens, features) -> tuple[list, list]:
    """One word per row of X and one feature name per column."""
    if len(tokens) != X.shape[0] or len(features) != X.shape[1]:
        raise ValueError(f"X has shape {shape_of(X)} but there are {len(tokens)} tokens and "
                         f"{len(features)} features: expected one word per row and one name per column")
    return list(tokens), list(features)


def explorer_inputs(X, W_q, W_k, W_v, i, tokens, features):
    """A lesson explorer's data, checked without computing anything."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    return (X, W_q, W_k, W_v, as_index(i, X.shape[0]), *labels_fit(X, tokens, features))


def slider_range(low, high) -> tuple[float, float]:
    """A slider's range: two finite numbers, low < high."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not np.isfinite(v):
            raise TypeError(f"{name} is {v!r}: expected a finite number for the slider's range")
    if not low < high:
        raise ValueError(f"low is {low} and high is {high}: expected low < high")
    return float(low), float(high)


def padding_lengths(lengths, n: int) -> list[int]:
    """One whole-number length per sequence, each at most the padded length n."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths is {lengths!r}: expected a list of whole numbers, one length per sequence")
    out = []
    for b, length in enumerate(lengths):
        length = as_count(length, f"lengths[{b}]")
        if length > n:
            raise ValueError(f"lengths[{b}] is {length} but the padded length n is {n}: "
                             "a sequence cannot be longer than the padded length")
        out.append(length)
    if not out:
        raise ValueError("lengths is empty: expected one length per sequence")
    return out


def translation_inputs(ex):
    """A Translation whose arrays fit together, as fresh float64 copies."""
    if not isinstance(ex, Translation):
        raise TypeError(f"the example is a {type(ex).__name__}: expected a Translation, "
                        "as attention_lab.translation() returns")
    X_dec, _, sq, sk, sv = projection_inputs(ex.X_dec, ex.self_W_q, ex.self_W_k, ex.self_W_v,
                                             ex.X_dec, names=("X_dec", "X_dec"))
    same(X_dec, "X_dec", 1, sv, "self_W_v", 1, "the residual X_dec + self-attention output needs "
         f"self_W_v to keep the width d = {X_dec.shape[1]}")
    _, X_enc, cq, ck, cv = projection_inputs(X_dec, ex.cross_W_q, ex.cross_W_k, ex.cross_W_v,
                                             X_context=ex.X_enc, names=("X_dec", "X_enc"))
    length = padding_lengths([ex.enc_length], X_enc.shape[0])[0]
    for name, labels, count in (("dec_tokens", ex.dec_tokens, X_dec.shape[0]),
                                ("enc_tokens", ex.enc_tokens, X_enc.shape[0]),
                                ("features", ex.features, X_dec.shape[1])):
        if len(labels) != count:
            raise ValueError(f"there are {len(labels)} {name} but {count} rows or columns to name: "
                             "expected one per row of X_dec/X_enc, or one per feature")
    return replace(ex, X_dec=X_dec, X_enc=X_enc, enc_length=length, self_W_q=sq, self_W_k=sk,
                   self_W_v=sv, cross_W_q=cq, cross_W_k=ck, cross_W_v=cv)


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


def ffn_inputs(X, W_1, W_2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (n, d), W_1 (d, d_ff) and W_2 (d_ff, d): the feed-forward network's matrices chain."""
    X = as_matrix(X, "X", "(n, d)")
    W_1, W_2 = as_matrix(W_1, "W_1", "(d, d_ff)"), as_matrix(W_2, "W_2", "(d_ff, d)")
    if W_1.shape[0] != X.shape[1] or W_2.shape != (W_1.shape[1], X.shape[1]):
        raise ValueError(f"X {shape_of(X)}, W_1 {shape_of(W_1)} and W_2 {shape_of(W_2)} do not chain: "
                         f"expected W_1 of shape ({X.shape[1]}, d_ff) and W_2 of shape (d_ff, {X.shape[1]})")
    return X, W_1, W_2


def block_inputs(X, p):
    """X (n, d_model) and a copy of the BlockWeights p, every matrix checked against d_model."""
    X = as_matrix(X, "X", "(n, d_model)")
    d = X.shape[1]
    square_ones = {name: square(getattr(p, name), name, d) for name in ("W_q", "W_k", "W_v", "W_O")}
    head_width(d, p.n_heads)
    _, W_1, W_2 = ffn_inputs(X, p.W_1, p.W_2)
    return X, replace(p, **square_ones, W_1=W_1, W_2=W_2)


def as_positive(value, name: str, example: str, zero: bool = False) -> float:
    """A positive (or, with zero=True, >= 0) finite number: TypeError if not a number, ValueError if not."""
    sign = "finite number >= 0" if zero else "positive finite number"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is {value!r} of type {type(value).__name__}: "
                        f"expected a {sign} such as {example}")
    if not np.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise ValueError(f"{name} is {value!r}: expected a {sign} such as {example}")
    return float(value)


def as_record(value, cls, what: str):
    """`value` must be an instance of the record `cls` (a dict or anything else: TypeError)."""
    if not isinstance(value, cls):
        raise TypeError(f"{what} is a {type(value).__name__}: expected a {cls.__name__}")
    return value


def as_run(run, cls, maker: str, at_least: int = 2):
    """The run `maker` returns (TypeError otherwise), keeping at least `at_least` snapshots."""
    if not isinstance(run, cls):
        raise TypeError(f"expected the {cls.__name__} that {maker}() returns, got {type(run).__name__}")
    if len(run.snapshot_steps) < at_least:
        raise ValueError(f"the run kept {len(run.snapshot_steps)} snapshot(s): expected at least {at_least}, "
                         f"e.g. {maker}(cfg, snapshots=range(0, 301, 10))")
    return run


def heads_choice(n_heads, d_model: int) -> int:
    """A whole number of heads that divides d_model."""
    n_heads = as_count(n_heads, "n_heads")
    divisors = tuple(h for h in range(1, d_model + 1) if d_model % h == 0)
    if n_heads not in divisors:
        raise ValueError(f"n_heads is {n_heads!r} but d_model is {d_model}: choose one of {divisors}")
    return n_heads


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


# --- training (lesson 06), induction (lesson 07), the real model (lesson 08), decoding ---
# The records are passed in as `cls` (or read by their fields), so that this module imports none of
# the modules that call it.

def model_config(cfg, cls, sizes: tuple[str, ...]):
    """A config of class `cls`: each of `sizes` a whole number (vocab_size >= 2), d divisible by n_heads."""
    if not isinstance(cfg, cls):
        raise TypeError(f"expected an al.{cls.__name__}, got {type(cfg).__name__}")
    for name in sizes:
        as_count(getattr(cfg, name), f"{cls.__name__}.{name}", minimum=2 if name == "vocab_size" else 1)
    if cfg.d % cfg.n_heads:
        raise ValueError(f"{cls.__name__}.d = {cfg.d} is not divisible by n_heads = {cfg.n_heads}: "
                         "expected a whole number of columns per head")
    return cfg


def task_name(task, tasks, what: str) -> str:
    """One of the names in `tasks`: TypeError if not a string, ValueError if unknown."""
    if not isinstance(task, str):
        raise TypeError(f"{what} is {task!r} of type {type(task).__name__}: expected one of {sorted(tasks)}")
    if task not in tasks:
        raise ValueError(f"{what} is {task!r}: expected one of {sorted(tasks)}")
    return task


def segment_fits(segment: int, n: int, what: str) -> None:
    """A repeated segment fits twice in a sequence of n tokens."""
    if 2 * segment > n:
        raise ValueError(f"{what}.segment = {segment} does not fit twice in n = {n} "
                         "tokens: expected 2 * segment <= n")


def weight_dict(p, shapes: dict[str, tuple[int, int]], cfg) -> dict[str, np.ndarray]:
    """Float copies of the weights `p`, a dict with exactly the keys of `shapes`, each of its shape."""
    if not isinstance(p, dict):
        raise TypeError(f"expected the weights as a dict with keys {list(shapes)}, got {type(p).__name__}")
    if set(p) != set(shapes):
        raise ValueError(f"expected the weights as a dict with keys {list(shapes)}, got {sorted(p)}")
    p = {k: as_matrix(p[k], k, str(shape)) for k, shape in shapes.items()}
    for k, shape in shapes.items():
        if p[k].shape != shape:
            raise ValueError(f"{k} has shape {p[k].shape}: expected {shape} for {cfg}")
    return p


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


def targets_fit(targets: np.ndarray, ids: np.ndarray) -> None:
    """One target per token id."""
    if targets.shape != ids.shape:
        raise ValueError(f"targets has shape {targets.shape} and ids {ids.shape}: expected one "
                         "target per token")


def backward_inputs(Q, K, V, dY, scale):
    """attention_backward's door: the kernel's inputs, with equal leading dimensions, and dY shaped like Y."""
    Q, K, V, _, scale = attention_inputs(Q, K, V, None, scale)
    dY = as_array(dY, "dY", "(..., m, d_v): one gradient per output number")
    if not Q.shape[:-2] == K.shape[:-2] == V.shape[:-2]:
        raise ValueError(f"Q {Q.shape}, K {K.shape} and V {V.shape} have different batch or head "
                         "dimensions: expected the same leading dimensions (no broadcasting here)")
    expected = Q.shape[:-1] + V.shape[-1:]
    if dY.shape != expected:
        raise ValueError(f"dY has shape {dY.shape}, but the output Y has shape {expected} (Q {Q.shape}, "
                         f"V {V.shape}): expected dY of the same shape as Y")
    return Q, K, V, dY, scale


def as_function(f, what: str):
    """A callable."""
    if not callable(f):
        raise TypeError(f"f must be {what}, got {type(f).__name__}")
    return f


def as_flag(value, name: str) -> bool:
    """A yes/no argument: True or False (NumPy's bool too), never a string or a number."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def one_number(value, name: str) -> float:
    """What a function of an array returned, as the one real number it must be (a loss)."""
    if value is None:
        raise ValueError(f"{name} returned None: did the function forget to `return` its loss? It must "
                         "return one number (a loss)")
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)                  # int, float, np.float64, fractions.Fraction, ...
    if isinstance(value, (tuple, list)):
        raise ValueError(f"{name} returned a {type(value).__name__} of {len(value)}: it must return the loss "
                         "alone, one number (e.g. write `return loss`, or wrap it: lambda x: f(x)[0])")
    if isinstance(value, (bool, np.bool_)) or np.dtype(getattr(value, "dtype", object)) == np.bool_:
        raise ValueError(f"{name} returned {_short(value)}, a truth value: it must return a loss, one "
                         "real number")
    try:
        arr = np.asarray(value) if not isinstance(value, (str, bytes)) else np.asarray(None)
    except ValueError:                      # ragged nesting
        arr = np.asarray(None)
    if arr.dtype != object and np.iscomplexobj(arr):
        raise ValueError(f"{name} must return one real number (a loss), got {type(value).__name__} "
                         f"{_short(value)}, which is complex: a loss has no imaginary part")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must return one number (a loss), got {type(value).__name__} "
                         f"{_short(value)}")
    if arr.size != 1:
        raise ValueError(f"{name} must return one number (a loss), got {type(value).__name__} of shape "
                         f"{arr.shape}: sum or average it to one number")
    return float(arr.reshape(()))


def _short(value) -> str:
    """A value's repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def small_step(eps) -> float:
    """A finite-difference step strictly between 0 and 1."""
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps = {eps!r} of type {type(eps).__name__}: expected a small positive step "
                        "such as 1e-6")
    if not 0 < eps < 1:
        raise ValueError(f"eps = {eps!r}: expected a small positive step such as 1e-6")
    return float(eps)


def same_shape(a: np.ndarray, a_name: str, b: np.ndarray, b_name: str) -> None:
    """Two arrays of one shape."""
    if a.shape != b.shape:
        raise ValueError(f"{a_name} has shape {a.shape} and {b_name} has shape {b.shape}: "
                         "expected the same shape")


def baseline_ids(a, b, c, d) -> None:
    """Training ids and targets of one shape (B, n), test ids and targets of one shape (B', n)."""
    if not (a.shape == b.shape and c.shape == d.shape and a.ndim == c.ndim == 2 and a.shape[1] == c.shape[1]):
        raise ValueError(f"shapes {a.shape}, {b.shape}, {c.shape}, {d.shape}: expected training ids "
                         "and targets of one shape (B, n), test ids and targets of one shape (B', n)")


def paired_ids(ids: np.ndarray, targets: np.ndarray) -> None:
    """Token ids and targets of one shape (B, n)."""
    if ids.ndim != 2 or ids.shape != targets.shape:
        raise ValueError(f"ids {ids.dtype} {ids.shape} and targets {targets.dtype} {targets.shape}: "
                         "expected two arrays of token ids (whole numbers >= 0) of one shape (B, n)")


def sequences_of_two(ids: np.ndarray) -> None:
    """Token ids (B, n) with n >= 2."""
    if ids.ndim != 2 or ids.shape[1] < 2:
        raise ValueError(f"ids {ids.dtype} {ids.shape}: expected token ids (whole numbers >= 0) of shape "
                         "(B, n) with n >= 2")


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


def head_picks(picks, n_layers: int, n_heads: int) -> dict[str, tuple[int, int]]:
    """{name: (layer, head)} with whole numbers inside the model (layers and heads counted from 0)."""
    if picks is None:
        return {}
    if not isinstance(picks, dict):
        raise TypeError(f"picks is {type(picks).__name__}: expected a dict {{name: (layer, head)}}, "
                        "e.g. {'sink head': (5, 3)}")
    out = {}
    for name, pick in picks.items():
        if isinstance(pick, (str, bytes)) or not hasattr(pick, "__len__") or len(pick) != 2 or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in pick):
            raise TypeError(f"picks[{name!r}] is {pick!r}: expected a (layer, head) pair of whole numbers")
        layer, head = (int(v) for v in pick)
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ValueError(f"picks[{name!r}] is head {head} of layer {layer}: expected layers "
                             f"0..{n_layers - 1} and heads 0..{n_heads - 1}")
        out[str(name)] = (layer, head)
    return out


def _loss(value, where: str) -> float:
    """A loss in nats: one finite real number, not negative."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} is {value!r}: expected a loss, one number in nats")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{where} is {value!r}: expected a loss, a finite number of nats, 0 or more")
    return float(value)


def distinct_names(names, what: str) -> list[str]:
    """Names as text, none repeated once written as text (1 and '1' would share a row)."""
    text = [str(name) for name in names]
    twice = sorted({t for t in text if text.count(t) > 1})
    if twice:
        raise ValueError(f"{what} use the name(s) {twice} more than once (1 and '1' count as the same "
                         "name): expected one row per name")
    return text


def knock_rows(table) -> dict[str, tuple[float, float]]:
    """knockout_table's rows: a non-empty dict {name: (loss, score)}: a loss >= 0 and a score in 0..1."""
    if not isinstance(table, dict) or not table:
        raise TypeError(f"table is {table!r}: expected the dict {{name: (loss, score)}} that "
                        "heads_at_work.knockout_table returns")
    rows = {}
    for name, text in zip(table, distinct_names(table, "the table's rows")):
        row = table[name]
        if (isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 2
                or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in row)):
            raise TypeError(f"table row {name!r} is {row!r}: expected (loss, score), two numbers")
        loss = _loss(row[0], f"the loss of table row {name!r}")
        if not 0.0 <= row[1] <= 1.0:
            raise ValueError(f"the score of table row {name!r} is {row[1]!r}: expected a prefix-matching "
                             "score, a mean weight in 0..1")
        rows[text] = (loss, float(row[1]))
    return rows


def loss_dots(others) -> dict[str, list[float]]:
    """None or a dict {name: [loss, ...]} of losses -> {str name: [float, ...]}."""
    if others is None:
        return {}
    if not isinstance(others, dict):
        raise TypeError(f"others is {others!r}: expected None or a dict {{name: [loss, ...]}}")
    dots = {}
    for name, text in zip(others, distinct_names(others, "others")):
        values = others[name]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"others[{name!r}] is {values!r}: expected a list of losses (numbers)")
        dots[text] = [_loss(v, f"a loss in others[{name!r}]") for v in values]
    return dots


def loss_curves(losses, most: int) -> dict[str, np.ndarray]:
    """A dict of 1 to `most` runs {name: per-token losses}: 1-D, real, finite, >= 0, one length >= 2."""
    if not isinstance(losses, dict) or not losses:
        raise TypeError(f"losses is {type(losses).__name__}: expected a dict {{name: per-token losses}}, "
                        "e.g. {'full': rm.token_losses(logits, ids)}")
    if len(losses) > most:
        raise ValueError(f"losses holds {len(losses)} runs: expected at most {most}, one line style each")
    curves = {}
    for name, text in zip(losses, distinct_names(losses, "losses")):
        values = losses[name]
        hint = ("expected one loss per token, e.g. rm.token_losses(logits, ids) (not the (logits, weights) "
                "that window_forward returns)")
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
            raise TypeError(f"losses[{name!r}] is {type(values).__name__}: {hint}")
        try:
            row = np.asarray(values)
        except ValueError:                                   # ragged: a tuple of arrays of other shapes
            raise TypeError(f"losses[{name!r}] is a {type(values).__name__} of parts of different shapes: "
                            f"{hint}") from None
        if row.dtype.kind not in "iuf":
            raise TypeError(f"losses[{name!r}] holds {row.dtype} values: {hint}, real numbers")
        if row.ndim != 1 or len(row) < 2:
            raise ValueError(f"losses[{name!r}] has shape {row.shape}: {hint}, a 1-D list of at least 2")
        row = row.astype(np.float64)
        if not np.isfinite(row).all() or (row < 0).any():
            raise ValueError(f"losses[{name!r}] holds a NaN, an infinity or a negative number: expected "
                             "losses in nats, finite and 0 or more")
        curves[text] = row
    lengths = sorted({len(row) for row in curves.values()})
    if len(lengths) > 1:
        raise ValueError(f"the losses have lengths {lengths}: expected one length, the same text's tokens")
    return curves


def lens_logits(lens, token) -> tuple[np.ndarray, int]:
    """logit_lens(..., last_only=True)'s (n_layers, vocab) logits as float64, and a token id inside vocab."""
    shape = np.shape(lens) if isinstance(lens, np.ndarray) else None
    if shape is not None and len(shape) == 3:
        raise ValueError(f"lens has shape {shape}: expected (n_layers, vocab), one row per block for the "
                         "last token: call logit_lens(model, ids, last_only=True), or take lens[:, -1]")
    if shape is not None and len(shape) == 1:
        raise ValueError(f"lens has shape {shape}: expected (n_layers, vocab), one row per block: "
                         "logit_lens(model, ids, last_only=True) gives it")
    lens = as_array(lens, "lens", "(n_layers, vocab), what logit_lens(model, ids, last_only=True) returns",
                    ndim=2)
    if isinstance(token, (bool, np.bool_)) or not isinstance(token, numbers.Integral):
        raise TypeError(f"token is {token!r} of type {type(token).__name__}: expected one token id, a whole "
                        "number, e.g. rm.encode(model, ' Paris')[0]")
    if not 0 <= token < lens.shape[1]:
        raise ValueError(f"token is {token} but the lens scores {lens.shape[1]} tokens: expected an id in "
                         f"0..{lens.shape[1] - 1}")
    return lens, int(token)


def first_copy_loss(value) -> float | None:
    """None, or the first copy's mean loss: one finite number of nats."""
    return None if value is None else _loss(value, "first_copy")


def repeats_after(ids: np.ndarray, period: int) -> None:
    """The text repeats after `period` tokens: token t + period is token t, for every t."""
    differ = np.flatnonzero(ids[period:] != ids[:len(ids) - period])
    if differ.size:
        t = int(differ[0])
        raise ValueError(f"the ids do not repeat after period {period}: token {t + period} is "
                         f"{int(ids[t + period])}, token {t} is {int(ids[t])}; expected a text whose second "
                         "copy starts at token period, e.g. rm.repeated_random_tokens(model, period)")


def letter_ids(ids) -> np.ndarray:
    """One sequence of token ids 0..25 (one letter each)."""
    ids = whole_ids(ids)
    if ids.ndim != 1 or ids.max() > 25:
        raise ValueError(f"ids {ids.dtype} of shape {ids.shape}: expected one sequence of token ids 0..25")
    return ids


def two_layers(n_layers: int) -> None:
    """The induction explorer shows two layers."""
    if n_layers < 2:
        raise ValueError("this run has one layer: the explorer shows layer 1 and layer 2")


def one_probe(ids: np.ndarray) -> None:
    """A batch (B, n) holding one sequence."""
    if len(ids) != 1:
        raise ValueError(f"probe has shape {ids.shape}: expected one sequence (n,)")


def kept_step(start, kept: list[int]):
    """A step at which the run kept its weights."""
    if start not in kept:
        raise ValueError(f"start = {start!r} is not a kept step: expected one of {kept}")
    return start


def repeats_a_token(seen: list, words: list[str]) -> None:
    """A probe in which some token comes back."""
    if not seen:
        raise ValueError(f"the probe {' '.join(words)} repeats no token: expected a sequence with a "
                         "repeated segment, e.g. repeated_batch(rng, 1, cfg)[0][0]")


def has_attention(cfg) -> None:
    """A training run whose model has an attention layer."""
    if not cfg.attention:
        raise ValueError("this run has no attention layer (ModelConfig(attention=False)): nothing to show")


def known_tokens(tokens, vocab: list[str]) -> list[str]:
    """One or more tokens, each in the vocabulary."""
    unknown = [t for t in tokens if t not in vocab]
    if unknown or not len(tokens):
        raise ValueError(f"tokens {list(tokens)!r}: expected one or more of the vocabulary {vocab}")
    return list(tokens)


def fits_positions(n_prompt: int, n_new: int, room: int) -> None:
    """A prompt and the tokens to write fit in the decoder's `room` positions."""
    if n_prompt + n_new > room:
        raise ValueError(f"{n_prompt} prompt tokens + {n_new} new ones = {n_prompt + n_new}: this decoder's "
                         f"circle of positions has room for at most {room} tokens")


def no_overflow(scores: np.ndarray, Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Scores Q·Kᵀ that stayed finite: inputs too large for float64 are refused here."""
    if not np.isfinite(scores).all():
        raise ValueError(f"the scores Q·Kᵀ overflowed (largest |Q| = {np.abs(Q).max():.3g}, largest "
                         f"|K| = {np.abs(K).max():.3g}): expected inputs small enough for float64")
    return scores


def model_file(p) -> None:
    """A path to an existing file (p is a pathlib.Path)."""
    if not p.is_file():
        raise ValueError(f"no file at {p}: expected the path of a llama-architecture .gguf file")


def llama_file(arch, file_name: str, tied: bool) -> None:
    """A GGUF file of the llama architecture whose output head is the embedding (tied)."""
    if arch != "llama":
        raise ValueError(f"{file_name} holds a {arch!r} model: expected the llama architecture")
    if not tied:
        raise ValueError(f"{file_name} has its own output head: expected a tied head (output = embedding)")


def norm_inputs(X, gain) -> tuple[np.ndarray, np.ndarray]:
    """X (..., d) and a gain (d,), as float32."""
    X, gain = np.asarray(X, dtype=np.float32), np.asarray(gain, dtype=np.float32)
    if X.ndim < 1 or gain.shape != X.shape[-1:]:
        raise ValueError(f"X has shape {X.shape} and the gain {gain.shape}: expected X (..., d) and a "
                         "gain (d,)")
    return X, gain


def swiglu_inputs(X, W_gate, W_up, W_down) -> tuple[np.ndarray, ...]:
    """X (n, d), W_gate and W_up (d, d_ff), W_down (d_ff, d)."""
    X, W_gate, W_up, W_down = (np.asarray(a) for a in (X, W_gate, W_up, W_down))
    d = X.shape[-1] if X.ndim else 0
    if W_gate.shape != W_up.shape or W_gate.ndim != 2 or W_gate.shape[0] != d \
            or W_down.shape != W_gate.shape[::-1]:
        raise ValueError(f"X {X.shape}, W_gate {W_gate.shape}, W_up {W_up.shape}, W_down {W_down.shape}: "
                         "expected X (n, d), W_gate and W_up (d, d_ff), W_down (d_ff, d)")
    return X, W_gate, W_up, W_down


def grouped_inputs(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q (h, m, d_k) and K, V (g, n, d_k) with g dividing h."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.ndim != 3 or K.ndim != 3 or V.ndim != 3 or K.shape[0] != V.shape[0] or Q.shape[0] % K.shape[0]:
        raise ValueError(f"Q {Q.shape}, K {K.shape}, V {V.shape}: expected Q (h, m, d_k) and "
                         "K, V (g, n, d_k) with g dividing h")
    return Q, K, V


def model_ids(ids, vocab_size: int) -> np.ndarray:
    """One sequence of token ids, each in 0..vocab_size-1 (floats: TypeError)."""
    ids = np.asarray(ids)
    if ids.size:
        ids = whole_ids(ids, "token ids")
    if ids.ndim != 1 or not len(ids) or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(f"token ids {ids.tolist()!r}: expected one or more whole numbers in "
                         f"0..{vocab_size - 1}")
    return ids


def logit_row(logits) -> np.ndarray:
    """One row of logits (vocab,), real and finite, as float64."""
    arr = _to_array(logits, "logits")
    if arr.ndim != 1:
        raise ValueError(f"logits has shape {shape_of(arr)}: expected one row (vocab,), e.g. the last "
                         "token's logits[-1]")
    return as_array(arr, "logits", "(vocab,)", min_ndim=1)


def top_k_fits(top_k, vocab_size: int) -> int | None:
    """None (every token), or a whole number of tokens 1..vocab_size."""
    if top_k is None:
        return None
    top_k = as_count(top_k, "top_k")
    if top_k > vocab_size:
        raise ValueError(f"top_k is {top_k} but there are {vocab_size} tokens: expected 1..{vocab_size}, "
                         "or None for every token")
    return top_k


def period_fits(period, n: int) -> int:
    """A whole-number repeat period with a second copy to score: n > period + 1."""
    period = as_count(period, "period")
    if n <= period + 1:
        raise ValueError(f"period {period} with {n} tokens: expected a sequence longer than period + 1")
    return period


def period_count(period, most: int) -> int:
    """A whole number of distinct tokens, 1..most."""
    period = as_count(period, "period")
    if period > most:
        raise ValueError(f"period {period}: expected 1 to {most} distinct ordinary tokens")
    return period


def logits_fit(logits: np.ndarray, n_ids: int) -> None:
    """Logits (n, vocab): one row per token id."""
    if logits.ndim != 2 or len(logits) != n_ids:
        raise ValueError(f"logits of shape {logits.shape} for {n_ids} tokens: expected (n, vocab), "
                         "one row per token")


def tokens_fit(tokens, n: int) -> None:
    """One token word per row of the weights."""
    if len(tokens) != n:
        raise ValueError(f"{len(tokens)} tokens for weights over {n}: expected one token per row")


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


def learning_rate(lr, example: str) -> float:
    """A learning rate strictly between 0 and 1: TypeError if not a number, ValueError if outside."""
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"lr = {lr!r} of type {type(lr).__name__}: expected a learning rate between 0 and 1, "
                        f"such as {example}")
    if not 0 < lr < 1:
        raise ValueError(f"lr = {lr!r}: expected a learning rate between 0 and 1, such as {example}")
    return float(lr)


def snapshot_steps(snapshots, steps: int) -> list[int]:
    """The sorted distinct steps to keep, each a whole number between 0 and `steps`."""
    keep = sorted({as_count(t, "a snapshot step", minimum=0) for t in snapshots})
    if keep and keep[-1] > steps:
        raise ValueError(f"snapshot step {keep[-1]} is after the last step ({steps}): expected "
                         f"steps between 0 and {steps}")
    return keep


def as_rng(rng) -> np.random.Generator:
    """A NumPy random Generator."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a np.random.Generator (np.random.default_rng(seed)), got "
                        f"{type(rng).__name__}")
    return rng


# --- plots ---
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


def labels_per_cell(values: np.ndarray, row_labels, col_labels) -> tuple[list, list]:
    """One label per row and one per column of `values` (as lists): ValueError otherwise."""
    row_labels, col_labels = list(row_labels), list(col_labels)
    if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
        raise ValueError(f"values have shape {shape_of(values)} but there are {len(row_labels)} "
                         f"row labels and {len(col_labels)} column labels: expected one label "
                         "per row and one per column")
    return row_labels, col_labels


def one_word_per_row(X: np.ndarray, tokens) -> list:
    """The tokens as a list, one word per row of X: ValueError otherwise."""
    tokens = list(tokens)
    if len(tokens) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but there are {len(tokens)} tokens: "
                         "expected one word per row")
    return tokens


def one_sequence(Q: np.ndarray, who: str) -> np.ndarray:
    """Q of one sequence, (m, d_k): ValueError for a batch."""
    if Q.ndim != 2:
        raise ValueError(f"Q has shape {shape_of(Q)}: {who} draws one sequence, (m, d_k)")
    return Q


def encoder_decoder_weights(enc_tokens, dec_tokens, self_weights, cross_weights):
    """(enc, dec, S, C): the words as lists, S (m, m) and C (m, n) attention weights fitting them."""
    enc, dec = list(enc_tokens), list(dec_tokens)
    S = as_matrix(self_weights, "self_weights", "(m, m)")
    C = as_matrix(cross_weights, "cross_weights", "(m, n)")
    if S.shape != (len(dec), len(dec)) or C.shape != (len(dec), len(enc)):
        raise ValueError(f"self_weights {shape_of(S)} and cross_weights {shape_of(C)} do not fit "
                         f"{len(dec)} decoder and {len(enc)} encoder words: expected "
                         f"({len(dec)}, {len(dec)}) and ({len(dec)}, {len(enc)})")
    return enc, dec, weights_in_0_1(S, "self_weights"), weights_in_0_1(C, "cross_weights")


def one_sequence_with_attention(ids: np.ndarray, attention: bool) -> np.ndarray:
    """Token ids of one sequence, (1, n), for a model with an attention layer: ValueError otherwise."""
    if len(ids) != 1 or not attention:
        raise ValueError(f"ids has shape {ids.shape} for a model with attention={attention}: "
                         "expected one sequence (n,) and a model with an attention layer")
    return ids


# sources (lesson 10)
def printout_rows(scores, weights) -> tuple[np.ndarray, np.ndarray]:
    """A source's printed scores and weights: the same shape, one row (n,) or rows (m, n)."""
    S = as_array(scores, "scores", "(n,) or (m, n)", min_ndim=1)
    W = as_array(weights, "weights", "(n,) or (m, n)", min_ndim=1)
    if S.shape != W.shape or S.ndim not in (1, 2):
        raise ValueError(f"scores have shape {shape_of(S)} and weights {shape_of(W)}: expected the "
                         "same shape, one row (n,) or rows (m, n)")
    return S, W


# --- names: an exercise, the sliders of an explorer ---
def exercise_key(key, known) -> str:
    """`key` if it names one of the `known` exercises ('01.2'): TypeError or ValueError otherwise."""
    if not isinstance(key, str):
        raise TypeError(f"the exercise key is a {type(key).__name__}: expected a string such as '01.2'")
    if key not in known:
        raise ValueError(f"no exercise {key!r}: the exercises are {sorted(known)}")
    return key


def slider_names(values: dict, sliders) -> dict:
    """`values` if every name in it is one of the `sliders`: ValueError naming the unknown ones otherwise."""
    unknown = set(values) - set(sliders)
    if unknown:
        raise ValueError(f"no slider called {sorted(unknown)}: the sliders are {list(sliders)}")
    return values
