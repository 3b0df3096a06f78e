"""No exercise is passed by a value the lesson has already computed or printed: a whole array, a row, a
column, a block, a transpose, or a function the lesson defines or the package offers.

Each lesson's code is run (every code cell, as a student's Run All); every value it leaves behind, and
every array its stored outputs print (a printed matrix, row by row; any run of printed numbers), is cut
into every piece that has the answer's shape, and each piece is handed to the exercise's check. The
search is tests/exercise_leaks.py. A lesson is run once per test run: named alone, this file runs it
here; a bare `python -m pytest` searches in the kernel nbval ran it in (conftest.py).
"""

import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from exercise_leaks import printed_arrays, scan

matplotlib.use("Agg")
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb") if not p.name.startswith("00"))


def lesson_namespace(path: Path) -> dict:
    """Run the lesson's code cells, as Run All does, and return what they leave behind."""
    import matplotlib.pyplot as plt
    ns: dict = {"__name__": "__lesson__"}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "code":
            exec(compile(src, f"{path.name}", "exec"), ns)
            plt.close("all")
    return ns


lesson_file = {p.name[:2]: p.name for p in LESSONS}


@pytest.fixture(scope="module", params=LESSONS, ids=lambda p: p.name[:2])
def lesson(request):
    return request.param.name[:2], lesson_namespace(request.param)


def test_no_exercise_accepts_an_on_screen_value(lesson):
    """Run here when this file is named; a bare `python -m pytest` runs the same search in the kernel that
    nbval ran the lesson in (conftest.py: the item after the lesson's last cell), and leaves this one out."""
    number, ns = lesson
    assert_no_leak(scan(ns, number, NOTEBOOKS / lesson_file[number]), number)


def assert_no_leak(found: dict, number: str) -> None:
    assert found["exercises"] >= 3
    assert found["tried"] > 50          # the search really ran over the lesson's values
    assert not found["accepted"], f"lesson {number}: " + "\n".join(found["accepted"][:20])


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


@pytest.mark.parametrize("key", ["06.2", "07.2", "08.2"])
def test_the_search_finds_a_design_answer_on_screen(key, tmp_path):
    """A right answer to a design exercise, left on screen as a block of a larger matrix or printed, is
    found: the quick test that rules out most pieces at once lets it through to the judge."""
    import attention_lab as al
    from attention_lab.answer_keys import answer_key
    right = np.asarray(answer_key(key), dtype=float)
    r, c = right.shape
    shown = np.random.default_rng(3).normal(0, 1, (r + 3, c + 2))
    shown[2:2 + r, 1:1 + c] = right * 1.5                         # another right answer: stronger
    notebook = tmp_path / "lesson.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["print(M)"], "outputs": [
        {"output_type": "stream", "name": "stdout", "text": str(right * 2).splitlines(True)}]}]}))
    found = scan({"M": shown, "M_wrong": shown * 0.1}, key[:2], notebook, only=key)   # 0.1: too weak
    assert found["exercises"] == 1 and found["tried"] > 10
    assert al.EXERCISES[key].evaluate(right * 1.5).status == "correct"
    assert f"{key} accepts the value M {np.round(right * 1.5, 3).tolist()}" in found["accepted"]
    assert f"{key} accepts a printed output {np.round(right * 2, 3).tolist()}" in found["accepted"]
    assert not [a for a in found["accepted"] if "M_wrong" in a or not a.startswith(key)], found["accepted"]


def test_a_bare_run_searches_each_lesson_once_in_its_nbval_kernel():
    """The README's command (no paths named): one search per lesson 01-10, as the item after the lesson's
    last cell (its kernel still holds what the lesson computed), and the searches of this file left out,
    so that no lesson is run a second time for them. The collection of such a run is read here."""
    import subprocess
    import sys
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-o", "testpaths=notebooks tests/test_exercises_on_screen.py"],
                         cwd=NOTEBOOKS.parent, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    for path in LESSONS:
        items = [i for i in ids if i.startswith(f"notebooks/{path.name}::")]
        assert len(items) > 5, path.name
        assert items[-1] == f"notebooks/{path.name}::no exercise accepts an on-screen value"
        assert sum("on-screen" in i for i in items) == 1, path.name
    assert not [i for i in ids if "test_no_exercise_accepts_an_on_screen_value" in i]
    assert "tests/test_exercises_on_screen.py::test_printed_arrays_by_hand" in ids
    assert f"{len(LESSONS)} deselected" in run.stdout
