"""The search of tests/test_exercises_on_screen.py: no exercise is passed by a value a lesson has computed
or printed. `scan` takes what the lesson's code left behind (its namespace) and the lesson's stored outputs.

It runs where the lesson ran: in the test's own process (a named test file), or in the kernel that nbval
ran the lesson in (a bare `python -m pytest`: conftest.py adds one item after the lesson's last cell, so
that the lesson is executed once per run, not once more for this search). So it needs NumPy and the
package only, no pytest.
"""

import dataclasses
import json
import re
from pathlib import Path

import numpy as np

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Choice, Exercise, Trial


def arrays_in(value, depth=0):
    """Every numeric array reachable from a value: arrays, lists, records' fields, dicts' values."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        yield value
    elif isinstance(value, (list, tuple)) and depth < 2:
        try:
            arr = np.array(value, dtype=float)
            yield arr
        except (TypeError, ValueError):
            for item in value:
                yield from arrays_in(item, depth + 1)
    elif isinstance(value, dict) and depth < 2:
        for item in value.values():
            yield from arrays_in(item, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type) and depth < 2:
        for f in dataclasses.fields(value):
            yield from arrays_in(getattr(value, f.name), depth + 1)
    elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        yield np.array(float(value))


NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?(?![\w.])")   # not y_2, x₃, 10⁻⁶


def printed_arrays(path: Path):
    """What the lesson's stored outputs print, as arrays: each printed vector (a bracketed group, or a
    line's numbers where it has no brackets), each printed matrix (the vectors at one place on lines that
    follow each other, one row per line: `[[1 0]` / ` [0 1]]`, or `k = [...]   v = [...]` line after
    line), and each output's numbers in reading order."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code" or "al.check(" in "".join(cell["source"]):
            continue
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", "")) + "\n" + "".join(out.get("data", {}).get("text/plain", ""))
            lines = []
            for line in text.splitlines():
                groups = re.findall(r"\[([^\[\]]*)\]", line) or [line]
                vectors = [[float(x.replace("−", "-")) for x in NUMBER.findall(g)] for g in groups]
                lines.append([v for v in vectors if v])
            flat = [x for vectors in lines for v in vectors for x in v]
            if flat:
                yield np.array(flat)
            yield from (np.array(v) for vectors in lines for v in vectors)
            block: list[list[list[float]]] = []
            for vectors in [*lines, []]:
                if vectors and (not block or [len(v) for v in vectors] == [len(v) for v in block[0]]):
                    block.append(vectors)
                    continue
                if len(block) > 1:
                    yield from (np.array([vectors_[g] for vectors_ in block]) for g in range(len(block[0])))
                block = [vectors] if vectors else []


def pieces(arr: np.ndarray, shape: tuple):
    """The array and its transpose, its rows, columns and slices, and all its blocks of `shape`."""
    if arr.size > 100_000:
        return
    if arr.ndim >= 3:
        for sub in arr.reshape(-1, *arr.shape[-2:]):
            yield from pieces(sub, shape)
        return
    for a in (arr, arr.T):
        yield a
        if a.ndim == 2:
            yield from a
            yield from a.T
            if len(shape) == 2:
                r, c = shape
                for i in range(a.shape[0] - r + 1):
                    for j in range(a.shape[1] - c + 1):
                        yield a[i:i + r, j:j + c]
        if a.ndim == 1 and len(shape) == 1 and a.shape[0] > shape[0]:
            for i in range(a.shape[0] - shape[0] + 1):
                yield a[i:i + shape[0]]
        if a.ndim == 1 and shape == ():
            yield from a                                   # one printed number
        if a.ndim == 1 and len(shape) == 2 and a.size == int(np.prod(shape)):
            yield a.reshape(shape)                         # as many numbers as the answer, in reading order


def unique(candidates):
    """Each array once (by shape, type and bytes; the first place it was seen names it): the same
    block is cut from many values, and judging it again cannot change the verdict."""
    seen = set()
    for where, a in candidates:
        key = (a.shape, a.dtype.str, np.ascontiguousarray(a).tobytes())
        if key not in seen:
            seen.add(key)
            yield where, a


def scan(ns: dict, number: str, notebook: Path, only: str | None = None) -> dict:
    """Hand every piece of every value in `ns` and every printed array of `notebook` to each exercise of
    lesson `number` (or to exercise `only`): {"tried": how many candidates, "accepted": what an exercise
    said ✓ to}."""
    exercises = [e for key, e in al.EXERCISES.items() if key.startswith(number + ".") and only in (None, key)]
    own = {name: v for name, v in ns.items() if not name.startswith("__")}
    values = [(f"the value {name}", a) for name, v in own.items() for a in arrays_in(v)]
    values += [("a printed output", a) for a in printed_arrays(notebook)]
    functions = [(name, v) for name, v in own.items() if callable(v) and not isinstance(v, type)]
    functions += [(f"al.{name}", getattr(al, name)) for name in al.__all__ if callable(getattr(al, name))]
    tried, accepted = 0, []
    for ex in exercises:
        if isinstance(ex, Choice):
            continue
        solution = answer_key(ex.key)
        if callable(solution):
            candidates = functions
        else:
            shape = np.shape(solution)
            candidates = unique((where, p) for where, a in values
                                for p in pieces(a, shape) if p.shape == shape)
        candidates = list(candidates)
        tried += len(candidates)
        numbers = [i for i, (_, c) in enumerate(candidates)
                   if isinstance(c, np.ndarray) and c.dtype.kind in "biuf" and type(ex) in (Exercise, Trial)]
        ticks = [False] * len(candidates)
        for i in set(range(len(candidates))) - set(numbers):      # text, functions and the like: one by one
            ticks[i] = ex.evaluate(candidates[i][1]).status == "correct"
        if numbers:
            # evaluate's ✓ (the hints are not looked for), asked of every array of numbers at once: a
            # compute exercise compares them with its solution; a design exercise rules out at once those
            # that cannot be right and judges the rest one by one
            for i, tick in zip(numbers, ex.accepts_each(np.stack([candidates[i][1] for i in numbers]))):
                ticks[i] = bool(tick)
        for (where, candidate), tick in zip(candidates, ticks):
            if tick:
                shown = np.round(candidate, 3).tolist() if isinstance(candidate, np.ndarray) else ""
                accepted.append(f"{ex.key} accepts {where} {shown}")
    return {"exercises": len(exercises), "tried": tried, "accepted": sorted(set(accepted))}


MARK = "exercise-leaks: "


def kernel_code(number: str, notebook: Path) -> str:
    """What a kernel that has run the lesson executes: the scan of the lesson's names (not those IPython
    keeps for itself: In, Out, get_ipython, ...; `_` stays, a lesson may assign it), printed as one line."""
    tests = Path(__file__).resolve().parent
    return (f"import sys as _s, json as _j\n"
            f"_s.path.insert(0, {str(tests)!r})\n"
            f"import exercise_leaks as _leaks\n"
            f"_own = {{k: v for k, v in globals().items()\n"
            f"        if k == '_' or k not in get_ipython().user_ns_hidden}}\n"
            f"print({MARK!r} + _j.dumps(_leaks.scan(_own, {number!r}, _leaks.Path({str(notebook)!r}))))\n")
