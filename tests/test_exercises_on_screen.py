"""No exercise is passed by a value the lesson has already computed or printed: a whole array, a row, a
column, a block, a transpose, or a function the lesson defines or the package offers.

Each lesson's code is run here (exercise cells left out); every value it leaves behind, and every array
its stored outputs print (a printed matrix, row by row; any run of printed numbers), is cut into every
piece that has the answer's shape, and each piece is handed to the exercise's check.
"""

import dataclasses
import json
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Choice, Exercise

matplotlib.use("Agg")
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb") if not p.name.startswith("00"))


def lesson_namespace(path: Path) -> dict:
    """Run the lesson's code cells, except the exercises, and return what they leave behind."""
    import matplotlib.pyplot as plt
    ns: dict = {"__name__": "__lesson__"}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "code" and "al.check(" not in src:
            exec(compile(src, f"{path.name}", "exec"), ns)
            plt.close("all")
    return ns


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


lesson_file = {p.name[:2]: p.name for p in LESSONS}


@pytest.fixture(scope="module", params=LESSONS, ids=lambda p: p.name[:2])
def lesson(request):
    return request.param.name[:2], lesson_namespace(request.param)


def unique(candidates):
    """Each array once (by shape, type and bytes; the first place it was seen names it): the same
    block is cut from many values, and judging it again cannot change the verdict."""
    seen = set()
    for where, a in candidates:
        key = (a.shape, a.dtype.str, np.ascontiguousarray(a).tobytes())
        if key not in seen:
            seen.add(key)
            yield where, a


def test_no_exercise_accepts_an_on_screen_value(lesson):
    number, ns = lesson
    exercises = [e for key, e in al.EXERCISES.items() if key.startswith(number + ".")]
    assert len(exercises) >= 3
    values = [(f"the value {name}", a) for name, v in ns.items() if not name.startswith("__")
              for a in arrays_in(v)]
    values += [("a printed output", a) for a in printed_arrays(NOTEBOOKS / f"{lesson_file[number]}")]
    functions = [(name, v) for name, v in ns.items() if callable(v) and not isinstance(v, type)]
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
        # a compute exercise's ✓ is its `accepts` (evaluate's first answer; the hints are not looked for)
        def right(candidate, ex=ex):
            if type(ex) is Exercise:
                return ex.accepts(candidate)
            return ex.evaluate(candidate).status == "correct"
        for where, candidate in candidates:
            tried += 1
            if right(candidate):
                shown = np.round(candidate, 3).tolist() if isinstance(candidate, np.ndarray) else ""
                accepted.append(f"{ex.key} accepts {where} {shown}")
    assert tried > 50          # the search really ran over the lesson's values
    assert not accepted, f"lesson {number}: " + "\n".join(sorted(set(accepted))[:20])


def test_printed_arrays_by_hand(tmp_path):
    """A printed matrix, two vectors on each line, a bare line of numbers, and labels that are no numbers."""
    outputs = [{"output_type": "stream", "name": "stdout",
                "text": ["[[ 1.5 -2. ]\n", " [ 0.   3. ]]\n", "cats: k = [1. 0.]   v = [2. 0.5]\n",
                         "mice: k = [0. 1.]   v = [1. 0.]\n", "y_2 : 0.25 0.75\n"]}]
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["print(...)"],
                                           "outputs": outputs}]}), encoding="utf-8")
    found = [a.tolist() for a in printed_arrays(path)]
    assert [[1.5, -2.0], [0.0, 3.0]] in found                        # the printed matrix
    assert [[1.0, 0.0], [0.0, 1.0]] in found and [[2.0, 0.5], [1.0, 0.0]] in found   # k rows, v rows
    assert [0.25, 0.75] in found                                     # y_2's label is not a number
    assert [1.5, -2.0, 0.0, 3.0, 1.0, 0.0, 2.0, 0.5, 0.0, 1.0, 1.0, 0.0, 0.25, 0.75] in found   # in order
