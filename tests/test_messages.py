"""The judges' generic messages say what the answer is, and never diagnose a mistake the student could
not have made: a wrong shape is said in words, with what the exercise asks for; a NaN is blamed on a
softmax only in an exercise that has one; a design judge never writes "your a W_q"."""

import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Exercise, in_words, read_numbers

COMPUTE = sorted(k for k, e in al.EXERCISES.items() if isinstance(e, Exercise))   # answered with numbers

# The compute exercises whose computation has a softmax, read off their questions (not off the code):
# weights (01.1), an output of attention (01.5, 02.4, 03.4, 04.4, 10.3), a gradient through one (06.4).
# 00.1-00.3 (shapes, a layout, an index), 05.4 (RoPE scores), 07.4 (paths, the weights given), 08.4
# (bytes) and 10.2 (one dot product) have none.
WITH_SOFTMAX = {"01.1", "01.5", "02.4", "03.4", "04.4", "06.4"}


def test_shapes_in_words_by_hand():
    assert in_words(()) == "one number"
    assert in_words((1,)) == "a list of 1 number"
    assert in_words((4,)) == "a list of 4 numbers"
    assert in_words((3, 2)) == "a 3 × 2 array"
    assert in_words((2, 3, 4)) == "an array of shape (2, 3, 4)"


def test_what_an_answer_is_instead_of_numbers():
    assert read_numbers([6, 0, [6]]).startswith("a ragged list")
    assert read_numbers([None, 2]) == "a list with None in it: replace every None by a number"
    assert read_numbers("abc") == "text, 'abc': give numbers, without quotes"
    assert read_numbers(np.array([1j])) == "complex numbers: give real ones"
    assert read_numbers(10 ** 400) == "a number too large for a float (more than 1.8e308)"
    assert read_numbers({"a": 1}) == "a dict" and read_numbers([{1}, 2]) == "a list holding int, set"
    assert read_numbers(len).startswith("a function (len)")
    assert np.array_equal(read_numbers([True, False]), [1.0, 0.0])     # a 0/1 mask is numbers


@pytest.mark.parametrize("key", COMPUTE)
def test_every_compute_exercise_says_what_its_answer_is(key):
    ex = al.EXERCISES[key]
    assert ex.expects, f"{key}: no expects=... (what the answer is, in words)"
    right = np.asarray(answer_key(key), dtype=float)
    wrong_shape = np.zeros((*right.shape, 2))                     # one axis too many: never the right shape
    message = ex.evaluate(wrong_shape).message
    assert message == f"Exercise {key}: expected {ex.expects}; got {in_words(wrong_shape.shape)}."
    assert "per token or per component" not in message


@pytest.mark.parametrize("key", COMPUTE)
def test_a_softmax_is_named_only_where_there_is_one(key):
    right = np.asarray(answer_key(key), dtype=float)
    message = al.EXERCISES[key].evaluate(np.full(right.shape, np.nan)).message
    assert "NaN or inf" in message
    assert ("softmax" in message) == (key in WITH_SOFTMAX), message
    assert al.EXERCISES[key].softmax == (key in WITH_SOFTMAX)


def test_the_reviews_quotes_are_gone():
    """lessons-00-03 defect 9, lessons-04-06-09 defect 19, lesson-07 defect 7: each quoted message."""
    said = {key: al.EXERCISES[key].evaluate(answer).message for key, answer in
            [("00.1", 50), ("00.3", al.cats_chase_mice().X[2]), ("05.4", [[1.0, 2.0]]), ("10.2", [3.0]),
             ("07.4", 5.0)]}
    assert said["00.1"].endswith("expected two numbers, the shape of Q Kᵀ as [rows, columns]; got one "
                                 "number.")
    assert said["00.3"].endswith("expected one index, the row of X that holds x₃; got a list of 4 numbers.")
    assert said["05.4"].endswith("; got a 1 × 2 array.") and "two scores" in said["05.4"]
    assert said["10.2"].endswith("expected one number, the dot product the tutorial prints; got a list of 1 "
                                 "number.")
    assert "one per path" in said["07.4"] and "token" not in said["07.4"]
    for key in ("00.1", "00.2", "00.3"):                       # a NaN in an exercise without a softmax
        assert "softmax" not in al.EXERCISES[key].evaluate([None, None]).message
    assert "your a " not in al.EXERCISES["03.2"].evaluate(np.full((4, 4), np.nan)).message
    assert "your a " not in al.EXERCISES["02.2"].evaluate([np.nan, 0, 1]).message
    # 02.2 reports the shape it was given, not the shape after flattening
    assert "got one number." in al.EXERCISES["02.2"].evaluate(6.0).message
    assert "got a 2 × 2 array." in al.EXERCISES["02.2"].evaluate(np.eye(2)).message
    assert al.EXERCISES["02.2"].evaluate([[6.0, 0.0, 6.0]]).status == "correct"   # a row still counts


def test_a_fresh_exercise_without_words_falls_back_to_its_shape():
    ex = Exercise("99.1", "a test", lambda: np.zeros((2, 3)))
    assert ex.evaluate([1.0]).message == ("Exercise 99.1: expected numbers of shape (2, 3); got a list of 1 "
                                          "number.")
    assert ex.evaluate(np.full((2, 3), np.inf)).message.endswith("(the first at index [0, 0]). Give finite "
                                                                 "numbers.")
