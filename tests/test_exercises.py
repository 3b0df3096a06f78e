"""Every exercise: the right answer gets ✓, each listed mistake its own hint, no answer 'not answered yet'."""

import sys
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al
from attention_lab.checks import TOLERANCE

# Right answers, computed from scratch by the teachers' worked solutions (solutions/answers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solutions"))
import answers

SOLUTIONS = {key: solve() for key, solve in answers.SOLUTIONS.items()}


def numeric(key):
    return al.EXERCISES[key].kind == "compute"


def test_every_exercise_has_an_independent_solution():
    assert set(SOLUTIONS) == set(al.EXERCISES)


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_right_answer_gets_a_tick(key, capsys):
    al.check(key, SOLUTIONS[key])
    assert capsys.readouterr().out.strip() == f"Exercise {key}: ✓ correct."
    if numeric(key):
        al.check(key, np.round(np.asarray(SOLUTIONS[key], dtype=float), 2).tolist())   # rounded, as a list
        assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_unanswered_does_not_fail(key, capsys):
    al.check(key, None)
    assert capsys.readouterr().out.strip() == f"Exercise {key}: not answered yet."


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_each_mistake_gets_its_own_hint(key):
    exercise = al.EXERCISES[key]
    assert len(exercise.mistakes) >= 2
    hints = set()
    for name, (wrong, _hint) in exercise.mistakes.items():
        answer = wrong()
        if numeric(key):
            answer, right = np.asarray(answer, dtype=float), np.asarray(SOLUTIONS[key], dtype=float)
            assert answer.shape != right.shape or np.abs(answer - right).max() > 2 * TOLERANCE, \
                f"{key}: mistake {name!r} is indistinguishable from the right answer"
        result = exercise.evaluate(answer)
        assert result.status == "mistake" and result.mistake == name
        hints.add(result.message)
    assert len(hints) == len(exercise.mistakes)


def test_typical_mistakes_by_hand():
    # 01.1 without softmax: the raw scores [0, 0, 1, 1]
    assert "softmax" in al.EXERCISES["01.1"].evaluate([0, 0, 1, 1]).message
    # 01.5 without the transpose: the column-form matrices used as row matrices, computed by hand
    X = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
    s = X @ (X[0] @ np.array([[1.0, 1.0], [0.0, 1.0]]))          # q_1 = x_1 @ Wq_col = (2, 2)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    assert "x @ W.T" in al.EXERCISES["01.5"].evaluate(w @ (X @ np.array([[0.0, 1.0], [1.0, 0.0]]))).message
    # 01.3 with the lesson's own W_q handed in: small asks only 'noun?', so cats and mice tie
    assert al.EXERCISES["01.3"].evaluate(al.cats_chase_mice().W_q).mistake == "noun only"


def test_design_and_debug_checks_run_the_students_work():
    design, debug = al.EXERCISES["01.3"], al.EXERCISES["01.4"]
    W = np.zeros((4, 4))
    W[3, 1], W[3, 2], W[3, 3] = -1.0, 3.0, 3.0        # another valid design: animal & small, not verb
    assert design.evaluate(W).status == "correct"
    assert "shape (3, 3)" in design.evaluate(np.zeros((3, 3))).message
    assert design.evaluate(lambda q, K: q).status == "wrong"
    assert "raised ZeroDivisionError" in debug.evaluate(lambda q, K: 1 / 0).message
    assert debug.evaluate(al.softmax.__call__).status == "wrong"      # softmax(q, K) is not weights_of


def test_lesson_01_has_every_kind_of_exercise():
    kinds = {e.kind for k, e in al.EXERCISES.items() if k.startswith("01.")}
    assert kinds == {"compute", "predict", "design", "debug"}


@pytest.mark.parametrize("answer, fragment", [
    ([1, 2], "expected shape (4,)"),
    ("a string", "expected numbers"),
    ([np.nan] * 4, "NaN or inf"),
    ([0.1, 0.2, 0.3, 0.4], "Not right yet"),
])
def test_wrong_answers_get_a_useful_message(answer, fragment):
    assert fragment in al.EXERCISES["01.1"].evaluate(answer).message


def test_unknown_exercise():
    with pytest.raises(ValueError, match=r"no exercise '9.9'.*01.1"):
        al.check("9.9", 1)


def test_every_lesson_ends_with_at_least_three_checked_exercises():
    import json
    import re
    for nb_path in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        keys = re.findall(r'al\.check\("(\d\d\.\d)"', code)
        lesson = nb_path.name[:2]
        assert len(keys) >= 3 and all(k.startswith(lesson) and k in al.EXERCISES for k in keys), nb_path.name
        assert {k for k in al.EXERCISES if k.startswith(lesson)} == set(keys)
