"""No exercise is passed by a value the lesson has already computed: a whole array, a row, a column,
a block, a transpose, or a function the lesson defines or the package offers.

Each lesson's code is run here (exercise cells left out); every value it leaves behind is cut into
every piece that has the answer's shape, and each piece is handed to the exercise's check.
"""

import dataclasses
import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Choice

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


@pytest.fixture(scope="module", params=LESSONS, ids=lambda p: p.name[:2])
def lesson(request):
    return request.param.name[:2], lesson_namespace(request.param)


def test_no_exercise_accepts_an_on_screen_value(lesson):
    number, ns = lesson
    exercises = [e for key, e in al.EXERCISES.items() if key.startswith(number + ".")]
    assert len(exercises) >= 3
    values = [a for name, v in ns.items() if not name.startswith("__") for a in arrays_in(v)]
    functions = [v for name, v in ns.items() if callable(v) and not isinstance(v, type)]
    functions += [getattr(al, name) for name in al.__all__ if callable(getattr(al, name))]
    tried = 0
    for ex in exercises:
        if isinstance(ex, Choice):
            continue
        solution = answer_key(ex.key)
        if callable(solution):
            candidates = functions
        else:
            shape = np.shape(solution)
            candidates = (p for a in values for p in pieces(a, shape) if p.shape == shape)
        for candidate in candidates:
            tried += 1
            result = ex.evaluate(candidate)
            assert result.status != "correct", f"{ex.key} accepts a value lesson {number} computed"
    assert tried > 50          # the search really ran over the lesson's values
