"""Judges never raise: whatever a student hands in, `al.check` prints one message and the notebook goes on.

Every exercise's check gets the same malformed answers (ragged lists, None inside lists, text, NaN and
inf, complex, bool, object and text arrays, 0-d and huge arrays, empty lists, dicts, sets, functions
where numbers are expected and numbers where a function is expected), and, shaped like its own answer,
arrays of NaN, inf, huge numbers, complex numbers, text and objects; a debug exercise also gets functions
that raise, return None, text, a dict, NaN, complex numbers or the wrong shape. The test runs with every
warning turned into an error (pyproject.toml), so a judge that only warns fails here too.
"""

import fractions
import math

import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Result


def raises(*args):
    raise ValueError("the student's own error")


class Unreadable:
    """An object NumPy cannot read: its __array__ raises, as a PyTorch tensor that requires grad does."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")


class NoFloat:
    """A number-like object whose float() raises something other than TypeError or ValueError."""

    def __float__(self):
        raise ZeroDivisionError("no value yet")


def malformed() -> list:
    """Answers no exercise asks for, of every odd type a student can type."""
    return [
        [6, 0, [6]], [[1.0, 2.0], [3.0]], [[1, 2], "3"], [None, 1.0], [None], [[None] * 4] * 4,
        "abc", "b c", "0.5", b"bytes", "", "(e)",
        np.nan, float("inf"), -math.inf, [np.nan, np.inf], 10 ** 400, [10 ** 400, 1],
        np.array(True), np.ones((6, 6), dtype=bool), np.array([1 + 2j, 3j]), np.array(2j),
        np.empty((2, 2), dtype=object), np.array(["x", "y"]), np.array(3.0), np.array([[[[1.0]]]]),
        np.zeros(1_000_000), np.zeros((1000, 1000)), np.full((3, 3), 1e308), np.full((4, 4), -1e300),
        [], [[]], np.zeros((0, 3)), {"a": 1}, {1, 2}, (x for x in range(3)), [..., 1], Ellipsis is None,
        fractions.Fraction(1, 3), np.datetime64("2024-01-01"), np.ma.masked_array([1.0, 2.0], mask=[0, 1]),
        int, np, al.softmax, lambda *a: None, raises, np.eye(3),
        Unreadable(), [Unreadable()], [NoFloat(), 1.0],
    ]


def shaped_like(right) -> list:
    """Answers of the right answer's shape, filled with what a student must not hand in."""
    shape = np.shape(right)
    return [np.full(shape, np.nan), np.full(shape, np.inf), np.full(shape, -np.inf), np.full(shape, 1e300),
            np.full(shape, -1e300), np.full(shape, 1e-300), np.full(shape, 2 + 1j), np.full(shape, "1"),
            np.full(shape, None), np.zeros(shape, dtype=bool), np.ones(shape, dtype=np.int8),
            np.full(shape, 10 ** 30, dtype=object), np.zeros(shape).tolist(), np.full(shape, 1e300).tolist()]


def broken_functions(reference) -> list:
    """Fixes that run but hand back nonsense, built around a right one."""
    def around(change):
        def fixed(*args):
            return change(np.asarray(reference(*args), dtype=float))
        return fixed
    return [raises, lambda *a: None, lambda *a: Unreadable(), lambda *a: [NoFloat()],
            lambda *a: "text", lambda *a: {"a": 1}, lambda *a: [1, [2]],
            lambda: 1.0, lambda a: a, lambda *a, **k: a, lambda *a: a[0], lambda *a: reference,
            around(lambda y: y * np.nan), around(lambda y: y + np.inf), around(lambda y: y + 1j),
            around(lambda y: y.astype(str)), around(lambda y: y[..., None]), around(lambda y: y * 1e300),
            around(lambda y: np.zeros(0)), around(lambda y: y > 0), around(lambda y: [y, y[:1]]),
            around(lambda y: np.full(y.shape, None)), around(lambda y: y.astype(complex)),
            lambda *a: 1 / 0, lambda *a: [][1], lambda *a: np.zeros(1_000_000)]


def odd_but_right(reference) -> list:
    """The right numbers in another dress (a list, objects, a flat or transposed copy of a 1-d result):
    a judge may accept them, but must not raise."""
    def around(change):
        def fixed(*args):
            return change(np.asarray(reference(*args), dtype=float))
        return fixed
    return [around(lambda y: y.tolist()), around(lambda y: y.astype(object)), around(lambda y: y.T),
            around(lambda y: y.ravel()), around(lambda y: y.astype(np.float32))]


def answers_for(key: str) -> list:
    right = answer_key(key)
    if callable(right):                                     # a debug exercise: its fix is a function
        return malformed() + broken_functions(right)
    if isinstance(right, str):                              # a prediction: one letter
        return [*malformed(), right.upper() * 2, right + right, [right], ord(right), 1.0]
    return malformed() + shaped_like(right)


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_every_check_prints_a_message_whatever_it_gets(key, capsys):
    right = answer_key(key)
    answers = answers_for(key) + (odd_but_right(right) if callable(right) else [])
    assert len(answers) >= 30
    for answer in answers:
        result = al.EXERCISES[key].evaluate(answer)
        assert isinstance(result, Result) and result.message.startswith(f"Exercise {key}: ")
        assert len(result.message) > len(f"Exercise {key}: ") + 5, result.message
        assert result.status in ("correct", "unanswered", "mistake", "wrong")
        al.check(key, answer)
        printed = capsys.readouterr().out
        assert printed.endswith(result.message + "\n"), (printed, result.message)   # after its own prints


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_no_malformed_answer_is_taken_for_right(key):
    for answer in answers_for(key):
        assert al.EXERCISES[key].evaluate(answer).status != "correct", (key, answer)
