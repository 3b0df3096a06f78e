"""Every exercise: the right answer gets ✓, each listed mistake its own hint, no answer 'not answered yet'."""

import math

import numpy as np
import pytest

import attention_lab as al
from attention_lab.checks import TOLERANCE

# Right answers derived independently of the checker (by hand or by the matrix form).
e = math.e
ex = al.cats_chase_mice()
cat = al.the_cat_sat()
tr = al.translation()
SOLUTIONS = {
    # scores x_3 . x_j = [0, 0, 1, 1]
    "01.1": np.array([1, 1, e, e]) / (2 + 2 * e),
    # matrix form, row 2 = y_3
    "01.2": al.self_attention(ex["X"], ex["W_q"], ex["W_k"], ex["W_v"], scale=1.0)[0][2],
    # column convention k = W_k x, by hand
    "01.3": al.source_000()["W_k"] @ al.source_000()["x"][2],
    # weights by the loop form, one query at a time
    "02.1": np.array([al.attend_one(i, ex["X"], ex["W_q"], ex["W_k"], ex["W_v"])[1] for i in range(4)]),
    # scores [2, 4, 4] (the source's, verified) over sqrt 3, by hand
    "02.2": np.exp(np.array([2, 4, 4]) / math.sqrt(3)) / np.exp(np.array([2, 4, 4]) / math.sqrt(3)).sum(),
    # the loop form, one token at a time
    "02.3": np.array([al.attend_one(i, [[1, 0], [0, 1], [1, 1]], np.eye(2), np.eye(2), np.eye(2))[0]
                      for i in range(3)]),
    # multi_head_attention with W_O = I returns the concatenation itself
    "03.1": al.multi_head_attention(cat["X"], cat["X"], cat["W_q"], cat["W_k"], cat["W_v"], np.eye(4), 2)[0],
    "03.2": al.multi_head_attention(cat["X"], cat["X"], cat["W_q"], cat["W_k"], cat["W_v"],
                                    al.exercise_03_output_weights(), 2)[0],
    # head 2's own weight matrix W_q^(2), then X W_q^(2)
    "03.3": cat["X"] @ al.split_weights(cat["W_q"], 2)[1],
    # the package's masked attention (masks by hand below)
    "04.1": al.self_attention(tr["X_dec"], tr["self_W_q"], tr["self_W_k"], tr["self_W_v"],
                              mask=np.tril(np.ones((4, 4), bool)))[1],
    "04.2": al.cross_attention(tr["X_dec"], tr["X_enc"], tr["cross_W_q"], tr["cross_W_k"], tr["cross_W_v"],
                               mask=np.array([[True] * 5 + [False]] * 4))[1],
    "04.3": np.array([[j <= i and j < 4 for j in range(5)] for i in range(5)]),
}


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
