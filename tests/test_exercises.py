"""Every exercise: the right answer gets ✓, each listed mistake its own hint, no answer 'not answered yet'."""

import sys
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key, mistakes_of
from attention_lab.checks import TOLERANCE, Exercise
from attention_lab.exercises_00 import lesson00
from attention_lab.exercises_01 import lesson01
from attention_lab.exercises_02 import lesson02
from attention_lab.exercises_03 import lesson03
from attention_lab.exercises_04 import lesson04
from attention_lab.exercises_05 import lesson05
from attention_lab.exercises_06 import lesson06
from attention_lab.exercises_07 import lesson07
from attention_lab.exercises_08 import lesson08
from attention_lab.exercises_09 import lesson09
from attention_lab.exercises_10 import lesson10

# Right answers, computed from scratch by the teachers' worked solutions (solutions/answers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solutions"))
import answers

SOLUTIONS = {key: solve() for key, solve in answers.SOLUTIONS.items()}


def numeric(key):
    """Whether the answer is numbers (a compute exercise judged on its numbers; 09.5 computes on fresh data
    with a function the student writes, judged as a debug fix is)."""
    return isinstance(al.EXERCISES[key], Exercise)


def test_every_exercise_has_an_independent_solution():
    assert set(SOLUTIONS) == set(al.EXERCISES)


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_right_answer_gets_a_tick(key, capsys):
    al.check(key, SOLUTIONS[key])
    said = capsys.readouterr().out.strip()
    if key == "09.5":           # its ✓ adds what a rank cannot show (tests/lessons/test_09_lens.py)
        assert said.startswith(f"Exercise {key}: ✓ correct. (A rank cannot show"), said
    elif key == "03.1":         # its ✓ explains what 4 heads do (tests/lessons/test_03_many_heads.py)
        assert said.startswith(f"Exercise {key}: ✓ correct. Now move `heads h` to 4."), said
    elif key == "10.1":         # its ✓ shows the helper confirming it (tests/lessons/test_10_*.py)
        assert said.startswith(f"Exercise {key}: ✓ correct. Section 1's helper agrees"), said
    else:
        assert said == f"Exercise {key}: ✓ correct."
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
    assert len(mistakes_of(exercise.key)) >= 2
    hints = set()
    for name, (wrong, _hint) in mistakes_of(exercise.key).items():
        answer = wrong()
        if numeric(key):
            answer, right = np.asarray(answer, dtype=float), np.asarray(SOLUTIONS[key], dtype=float)
            assert answer.shape != right.shape or np.abs(answer - right).max() > 2 * TOLERANCE, \
                f"{key}: mistake {name!r} is indistinguishable from the right answer"
        result = exercise.evaluate(answer)
        # a debug exercise's planted function here is the package's own copy, not the lesson's cell: its
        # hint, and it counts as tried (the cell's function, as handed out, counts as none: test_records.py)
        assert result.status == "mistake"
        assert result.mistake == name
        hints.add(result.message)
    assert len(hints) == len(mistakes_of(exercise.key))


def test_typical_mistakes_by_hand():
    # 01.1 without softmax: the raw scores [0, 0, 1, 1]
    assert "softmax" in al.EXERCISES["01.1"].evaluate([0, 0, 1, 1]).message
    # 01.5, tokens (1, 1), (0, 2), (1, 0), by hand. Right: q_1 = M x_1 = (2, 1), scores 3, 2, 2. Without the
    # transpose: q_1 = x_1 M = (1, 2), scores 3, 4, 1. Without M: q_1 = x_1 = (1, 1), scores 2, 2, 1.
    y1 = np.array([0.84776623, 0.94029221])

    def v3(scores):
        w = np.exp(scores) / np.exp(scores).sum()
        return (y1 - w[0] * np.array([0.0, 2.0]) - w[1] * np.array([1.0, 0.0])) / w[2]
    assert al.EXERCISES["01.5"].evaluate(v3(np.array([3.0, 2.0, 2.0]))).status == "correct"
    assert "x @ M.T" in al.EXERCISES["01.5"].evaluate(v3(np.array([3.0, 4.0, 1.0]))).message
    assert al.EXERCISES["01.5"].evaluate(v3(np.array([2.0, 2.0, 1.0]))).mistake == "no M"
    # 01.3 with the lesson's own W_q handed in: small asks only 'noun?', so cats and mice tie
    assert al.EXERCISES["01.3"].evaluate(al.cats_chase_mice().W_q).mistake == "lesson's W_q"


def test_design_and_debug_checks_run_the_students_work():
    design, debug = al.EXERCISES["01.3"], al.EXERCISES["01.4"]
    W = np.zeros((4, 4))
    W[3, 0], W[3, 1], W[3, 3] = 3.0, -1.0, 3.0        # another valid design: noun & small, not verb
    assert design.evaluate(W).status == "correct"
    W[3, 0], W[3, 2] = 0.0, 3.0                        # animal & small: refused, the small noun need
    assert design.evaluate(W).status != "correct"      # not be an animal (a fresh sentence shows it)
    assert "got a 3 × 3 array." in design.evaluate(np.zeros((3, 3))).message
    assert design.evaluate(lambda q, K: q).status == "wrong"
    assert "raised ZeroDivisionError" in debug.evaluate(lambda q, K: 1 / 0).message
    assert debug.evaluate(al.softmax.__call__).status == "wrong"      # softmax(q, K) is not weights_of


@pytest.mark.parametrize("lesson", ["01", "02", "03", "04", "05", "06"])
def test_lessons_01_to_06_have_every_kind_of_exercise(lesson):
    exercises = [e for k, e in al.EXERCISES.items() if k.startswith(lesson + ".")]
    assert len(exercises) >= 4
    assert {e.kind for e in exercises} == {"compute", "predict", "design", "debug"}


def test_other_valid_answers_pass_and_broken_ones_get_a_message():
    # another query for 02.2: apple and cherry equal and large, banana pushed down
    assert al.EXERCISES["02.2"].evaluate([10.0, -5.0, 10.0]).status == "correct"
    assert "shape (3,)" in al.EXERCISES["02.2"].evaluate([1.0, 2.0]).message
    # another fix for 02.3: the softmax written out along the last axis
    def attention(Q, K, V):
        S = Q @ K.T / np.sqrt(K.shape[1])
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return E / E.sum(axis=1, keepdims=True) @ V
    assert al.EXERCISES["02.3"].evaluate(attention).status == "correct"
    # another fix for 03.3: stack the column blocks
    def split(M, h):
        k = M.shape[1] // h
        return np.stack([M[:, i * k:(i + 1) * k] for i in range(h)])
    assert al.EXERCISES["03.3"].evaluate(split).status == "correct"
    assert "raised" in al.EXERCISES["03.3"].evaluate(lambda M, h: M.reshape(7, -1)).message
    # 04.2: a 0/1 integer mask is accepted; a mask with an empty row is explained
    assert al.EXERCISES["04.2"].evaluate(SOLUTIONS["04.2"].astype(int)).status == "correct"
    empty = SOLUTIONS["04.2"].copy()
    empty[4] = False
    assert "row 4 of your mask is all False" in al.EXERCISES["04.2"].evaluate(empty).message
    # 04.3: a large negative fill gives the same weights
    fix = lambda S, m: al.softmax(np.where(m, S, -1e9))   # noqa: E731
    assert al.EXERCISES["04.3"].evaluate(fix).status == "correct"
    assert "expected your fixed function" in al.EXERCISES["04.3"].evaluate(np.eye(3)).message


def test_the_predictions_are_true():
    """The right letters of the predict exercises, checked by experiment (not by the checks' code)."""
    rng = np.random.default_rng(5)
    # 02.1: identical rows of X give equal rows and equal columns of A, and A need not be symmetric
    X = rng.standard_normal((4, 3))
    X[3] = X[1]
    Wq, Wk = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(3)
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    assert np.allclose(A[1], A[3]) and np.allclose(A[:, 1], A[:, 3]) and not np.allclose(A, A.T)
    assert al.EXERCISES["02.1"].evaluate("c").status == "correct"
    # 03.1: 4 heads instead of 2, same four 4 x 4 matrices: the outputs change
    ex = al.the_cat_sat()
    two = al.multi_head_attention(ex.X, ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 2)[0]
    four = al.multi_head_attention(ex.X, ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 4)[0]
    assert np.abs(two - four).max() > 0.1 and al.EXERCISES["03.1"].evaluate("b").status == "correct"
    # 04.1: replace 'dort': with the causal mask only the last row of the weights changes
    tr = al.translation()
    X2 = tr.X_dec.copy()
    X2[3] = [0.0, 1.0, 0.5, 0.0, 0.0]
    w1 = al.self_attention(tr.X_dec, tr.self_W_q, tr.self_W_k, tr.self_W_v, mask=al.causal_mask(4))[1]
    w2 = al.self_attention(X2, tr.self_W_q, tr.self_W_k, tr.self_W_v, mask=al.causal_mask(4))[1]
    assert np.array_equal(w1[:3], w2[:3]) and not np.allclose(w1[3], w2[3])
    assert al.EXERCISES["04.1"].evaluate("a").status == "correct"
    # 10.1: softmax of [1.2, 1.2, 0.3] (by hand: e^1.2 = 3.3201, e^0.3 = 1.3499) rounds to option (a)
    assert np.allclose(np.array([3.3201, 3.3201, 1.3499]) / 7.9901, [0.42, 0.42, 0.17], atol=5e-3)
    assert al.EXERCISES["10.1"].evaluate("a").status == "correct"


@pytest.mark.parametrize("answer, fragment", [
    ([1, 2], "; got a list of 2 numbers."),
    ("a string", "; got text, 'a string': give numbers, without quotes."),
    ([[np.nan] * 4] * 2, "NaN or inf"),
    ([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], "Not right yet"),
])
def test_wrong_answers_get_a_useful_message(answer, fragment):
    assert fragment in al.EXERCISES["01.1"].evaluate(answer).message


def test_unknown_exercise():
    with pytest.raises(ValueError, match=r"no exercise '9.9'.*01.1"):
        al.check("9.9", 1)
    with pytest.raises(TypeError, match=r"exercise key is a float: expected a string such as '01.2'"):
        al.check(1.2, 1)                 # was a silent "no exercise 1.2"
    with pytest.raises(TypeError, match=r"exercise key is a list"):
        al.check(["01.2"], 1)            # was a bare "unhashable type" TypeError


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


def test_each_lesson_keeps_its_exercises_in_its_own_module():
    import importlib
    registered = []
    for lesson in sorted({key[:2] for key in al.EXERCISES}):
        module = importlib.import_module(f"attention_lab.exercises_{lesson}")
        assert module.__doc__.startswith(f"Lesson {lesson}'s exercises"), module.__name__
        keys = [e.key for e in getattr(module, f"lesson{lesson}")()]
        assert keys and all(key.startswith(lesson + ".") for key in keys), (lesson, keys)
        registered += keys
    assert sorted(registered) == sorted(al.EXERCISES)


@pytest.mark.parametrize("lesson", [lesson00, lesson01, lesson02, lesson03, lesson04, lesson05, lesson06,
                                    lesson07, lesson08, lesson09, lesson10])
def test_a_fresh_build_ticks_its_key_and_names_each_listed_mistake(lesson, monkeypatch):
    """As test_each_mistake_gets_its_own_hint, on a build made in the test (`al.EXERCISES` is built at import,
    before a mutant of lesson00() to 10() is switched on): what a teacher reads in
    answer_keys, the key, gets ✓, and each listed wrong answer its own verdict."""
    for exercise in lesson():
        monkeypatch.setitem(al.EXERCISES, exercise.key, exercise)
        assert exercise.evaluate(answer_key(exercise.key)).status == "correct", exercise.key
        for name, (wrong, _hint) in mistakes_of(exercise.key).items():
            result = exercise.evaluate(wrong())
            assert (result.status, result.mistake) == ("mistake", name), result.message
