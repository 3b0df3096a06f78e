"""The judges' shared tools (every lesson): read a student's numbers, run their function with the
package's shortcuts switched off, and name the wrong version a fixed function agrees with."""

from __future__ import annotations

import inspect
import re

import numpy as np

from .checks import TOLERANCE, ShortcutLocked, differences, in_words, read_numbers, switched_off


def as_numbers(answer, shape: tuple[int, ...], what: str, flat: bool = False) -> np.ndarray | str:
    """The student's answer as a finite float array of `shape`, or a message saying what was expected.

    `what` names the answer with its article ('a W_q', 'the position scores'); with `flat`, an answer
    holding exactly the numbers of `shape` in a row or a column ((1, 3) or (3, 1) for (3,)) counts too."""
    got = read_numbers(answer)
    if isinstance(got, str):
        return f"expected {what} of shape {shape}, got {got}."
    if flat and got.size == int(np.prod(shape)) and np.squeeze(got).shape == shape:
        got = got.reshape(shape)
    if got.shape != shape:
        turned = " (transposed?)" if got.shape == shape[::-1] else ""       # .T reverses the axes
        return f"expected {what} of shape {shape}, got {in_words(got.shape)}{turned}."
    if not np.isfinite(got).all():
        return (f"expected {what} of shape {shape}: yours has that shape, but contains NaN or inf. "
                "Use finite numbers.")
    if got.size and np.abs(got).max() > LARGEST:
        return (f"expected {what} of shape {shape}: yours has that shape, but holds {np.abs(got).max():.3g}; "
                f"keep every number within ±{LARGEST:.0e} (larger ones overflow when the check multiplies "
                "them).")
    return got


LARGEST = 1e12
"""The largest number a design answer may hold: products of a few such numbers stay finite in float64."""


SHORTCUTS = ("attend_one", "scaled_dot_product_attention", "self_attention", "multi_head_attention",
             "cross_attention", "decoder_step", "decode_with_cache", "generate", "transformer_block",
             "rope", "sinusoidal_positions", "numerical_gradient", "attention_backward", "loss_and_grads",
             "attention_unchecked", "multi_head_unchecked", "multi_head_parts", "sinusoidal_unchecked",
             "grouped_attention", "forward")
"""Package functions that would do a debug exercise in one call: switched off while a judge runs the
student's function, each with its twin `<name>_unchecked` (`switched_off`); the inner forms whose name is
not the public one's are listed too (`attention_unchecked`, `multi_head_unchecked`, ...), and lesson 08's
`grouped_attention` and `forward`. An exercise may switch off more, e.g. `softmax` where the bug is in the
softmax."""


def run_student(fn, *args, locked: tuple[str, ...] = SHORTCUTS) -> np.ndarray | str:
    """Call a student's function on copies of fresh inputs, with the `locked` package functions switched
    off: its result as an array, or a message."""
    if not callable(fn) or isinstance(fn, type):
        return f"expected your fixed function itself (no brackets), got {type(fn).__name__}."
    try:
        with np.errstate(all="ignore"), switched_off(fn, locked):
            out = fn(*fresh(args))
    except ShortcutLocked as exc:
        return f"{exc} (the check switches it off while it runs your function)."
    except Exception as exc:     # a student's function may fail in any way: report it, never crash
        return f"your function raised {type(exc).__name__}: {exc}"
    if out is None:
        return "your function returns None: does it end with `return`?"
    got = read_numbers(out)
    return f"your function returns {got}." if isinstance(got, str) else got


def fresh(args: tuple) -> list:
    """Copies of a judge's inputs for one call: arrays copied (a function may change its input in place),
    numbers such as a head count passed as they are (an int stays an int)."""
    return [np.array(a) if isinstance(a, np.ndarray) else a for a in args]


def same_numbers(a, b) -> bool:
    """Whether a student's result `a` is an array of b's shape, equal to b by np.allclose (rtol 1e-5)."""
    return isinstance(a, np.ndarray) and a.shape == np.shape(b) and np.allclose(a, b, equal_nan=True)


def hinted(wrong: dict, hints: dict[str, str]) -> dict:
    """A Trial's known mistakes: each wrong answer (by name) with its hint."""
    answers = {name: w[0] if isinstance(w, tuple) else w for name, w in wrong.items()}
    return {name: (lambda answer=answers[name]: answer, hint) for name, hint in hints.items()}


def outcome_of(f, args):
    """What a reference or wrong version gives on `args`: an array, or 'raised <Error>'."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(f(*fresh(args)), dtype=float)
    except Exception as exc:     # a wrong version (like a student's) may fail on some inputs
        return f"raised {type(exc).__name__}"


def judge_fix(reference, wrong: dict, inputs: list[tuple], expected: str,
               locked: tuple[str, ...] = SHORTCUTS, close=same_numbers, atol: float = TOLERANCE):
    """The judge of a debug exercise: run the student's function on every fresh input (with the `locked`
    package functions switched off); right if it agrees with `reference` on all of them (by `close`),
    else the name of the wrong version it agrees with (the same numbers, or an error on the same
    inputs), else a message saying what differs (`what_differs`: near, within `atol`, or how many
    numbers `close` refused)."""
    def agrees(outs, f, same=close):
        for out, args in zip(outs, inputs):
            theirs = outcome_of(f, args)
            if isinstance(theirs, str):
                if not (isinstance(out, str) and out.startswith(f"your function {theirs}")):
                    return False
            elif isinstance(out, str) or not same(out, theirs):
                return False
        return True

    def judge(fn):
        outs = [run_student(fn, *args, locked=locked) for args in inputs]
        if not any(isinstance(out, str) for out in outs) and agrees(outs, reference):
            return None
        named = [name for name, f in wrong.items()
                 if agrees(outs, *(f if isinstance(f, tuple) else (f, same_numbers)))]
        if named:
            return named[0]
        failed = [out for out in outs if isinstance(out, str)]
        if failed:
            return failed[0]
        for out, args in zip(outs, inputs):
            ref = outcome_of(reference, args)
            if out.shape != ref.shape:
                return f"on fresh inputs your function returns shape {out.shape}, not {ref.shape}: {expected}"
            if not close(out, ref):
                return (f"on fresh inputs your function returns the right shape {out.shape}, "
                        f"{what_differs(out, ref, close, atol)}: {expected}")
        return f"on fresh inputs your function does not agree with the reference: {expected}"
    return judge


def still_planted(fn, line: str) -> bool:
    """Whether `fn`'s own code still holds the planted `line` as the lesson printed it (spaces and comments
    aside): the debug exercise's function, run as it was handed out. Its hint then says what to look for,
    not the fix. False where the code cannot be read (a function made by exec), so that such a function
    gets the hint written for a changed one."""
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    wanted = re.sub(r"\s+", "", line)
    return any(re.sub(r"\s+", "", code.split("#", 1)[0]) == wanted for code in source.splitlines())


def what_differs(out: np.ndarray, ref: np.ndarray, close, atol: float) -> str:
    """Why `close` refused a result of the right shape, in the terms of the test that refused it: the
    numbers that differ, counted by np.allclose's own rtol 1e-5 and atol 1e-8 when `close` is
    same_numbers (by `atol` for another test); or, when every number is within `atol` of the reference,
    that they are near but not equal, which a function that rounds gives."""
    if np.isfinite(out).all() and np.allclose(out, ref, rtol=0, atol=atol):
        largest = float(np.abs(out - ref).max())
        every = "its number is" if out.size == 1 else f"all {out.size} of its numbers are"
        return (f"and {every} within {largest:.2g} of the right ones, but not all equal to them: does "
                "your function round, or compute in low precision (float16)? Return the numbers unrounded")
    rtol, atol = (1e-5, 1e-8) if close is same_numbers else (0.0, atol)
    return f"but {differences(out, ref, atol, rtol)}"


def rounded_right(got: np.ndarray, expected: np.ndarray, decimals: int = 1) -> bool:
    """Whether `got` is `expected` rounded to `decimals` (too few to count as right): each number a
    multiple of 10^-decimals and within half of one of the right number, so every step was right."""
    half = 0.5 * 10.0 ** -decimals + 1e-9                 # 1e-9: the float error of a typed 0.3
    return (got.shape == expected.shape and np.allclose(got, np.round(got, decimals), rtol=0, atol=1e-9)
            and bool((np.abs(got - expected) <= half).all()))
