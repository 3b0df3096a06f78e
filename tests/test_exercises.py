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

SOLUTIONS = {key: np.asarray(solve()) for key, solve in answers.SOLUTIONS.items()}


def test_every_exercise_has_an_independent_solution():
    assert set(SOLUTIONS) == set(al.EXERCISES)


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_right_answer_gets_a_tick(key, capsys):
    al.check(key, SOLUTIONS[key])
    assert capsys.readouterr().out.strip() == f"Exercise {key}: ✓ correct."
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
        answer = np.asarray(wrong(), dtype=float)
        assert answer.shape != SOLUTIONS[key].shape or \
            np.abs(answer - np.asarray(SOLUTIONS[key], dtype=float)).max() > 2 * TOLERANCE, \
            f"{key}: mistake {name!r} is indistinguishable from the right answer"
        result = exercise.evaluate(answer)
        assert result.status == "mistake" and result.mistake == name
        hints.add(result.message)
    assert len(hints) == len(exercise.mistakes)


def test_typical_mistakes_by_hand():
    # 01.1 without softmax: the raw scores [0, 0, 1, 1]
    assert "softmax" in al.EXERCISES["01.1"].evaluate([0, 0, 1, 1]).message
    # 01.3 without the transpose: x_3 @ W_k (column matrix used as a row matrix)
    src = al.source_000()
    assert "x @ W_k.T" in al.EXERCISES["01.3"].evaluate(src["x"][2] @ src["W_k"]).message


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
