"""The kinds of exercise (compute, predict, design, debug) printing ✓ or a hint, and the shortcut lock."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

TOLERANCE = 5e-3   # answers rounded to 2 decimals still count


def differences(got: np.ndarray, expected: np.ndarray, atol: float = TOLERANCE) -> str:
    """Where two arrays of one shape differ: how many entries (by more than `atol`), and the largest
    difference and its place."""
    broken = ~np.isfinite(got)
    if broken.any():                                   # a nan is no distance: say where it is instead
        where = np.unravel_index(np.argmax(broken), got.shape)
        place = f", the first at index {list(map(int, where))}" if got.ndim else ""
        return f"{int(broken.sum())} of its {got.size} numbers are nan or inf{place}"
    off = ~np.isclose(got, expected, rtol=0, atol=atol)
    where = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    place = f" at index {list(map(int, where))}" if got.ndim else ""
    return (f"{int(off.sum())} of its {got.size} numbers differ, the largest by "
            f"{float(np.abs(got - expected).max()):.3g}{place}")


@dataclass(frozen=True)
class Result:
    """Outcome of a check: status is 'correct', 'unanswered', 'mistake' or 'wrong'."""
    status: str
    message: str
    mistake: str | None = None


class _Checked:
    """What every kind of exercise shares: printing its verdict."""

    def check(self, answer) -> None:
        """Print ✓, a hint, or 'not answered yet' (never raises, so the notebook keeps running)."""
        print(self.evaluate(answer).message)


@dataclass
class Exercise(_Checked):
    """An exercise with its right answer and the typical wrong answers, each with its hint."""
    key: str
    question: str
    solution: Callable[[], np.ndarray]
    mistakes: dict[str, tuple[Callable[[], np.ndarray], str]] = field(default_factory=dict)
    fallback: str = "Not right yet: go through the steps of the lesson again, one at a time."
    kind: str = "compute"

    def evaluate(self, answer) -> Result:
        """Compare an answer with the solution and with each known mistake."""
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        expected = np.asarray(self.solution(), dtype=float)
        try:
            got = np.array(answer, dtype=float)
        except (TypeError, ValueError):
            return Result("wrong", f"Exercise {self.key}: expected numbers of shape "
                                   f"{expected.shape}, got {type(answer).__name__} {answer!r}.")
        if got.dtype == object or not np.isfinite(got).all():
            return Result("wrong", f"Exercise {self.key}: your answer contains NaN or inf; "
                                   "did a softmax overflow? Subtract the maximum score first.")
        if got.shape == expected.shape and np.allclose(got, expected, rtol=0, atol=TOLERANCE):
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        for name, (wrong, hint) in self.mistakes.items():   # a known mistake may have its own shape
            mistaken = np.asarray(wrong(), dtype=float)
            if got.shape == mistaken.shape and np.allclose(got, mistaken, rtol=0, atol=TOLERANCE):
                return Result("mistake", f"Exercise {self.key}: not yet. Hint: {hint}", name)
        if got.shape != expected.shape:
            return Result("wrong", f"Exercise {self.key}: expected shape {expected.shape}, got "
                                   f"{got.shape}. One number per token or per component.")
        return Result("wrong", f"Exercise {self.key}: the shape {got.shape} is right, but "
                               f"{differences(got, expected)}. {self.fallback}")



@dataclass
class Choice(_Checked):
    """Predict before you run: one letter, and for each wrong letter the reason it is wrong."""
    key: str
    question: str
    answer: str
    reasons: dict[str, str]
    kind: str = "predict"

    def solution(self) -> str:
        return self.answer

    @property
    def mistakes(self) -> dict[str, tuple[Callable[[], str], str]]:
        return {letter: ((lambda letter=letter: letter), why) for letter, why in self.reasons.items()}

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        letter = str(answer).strip().lower().strip("()")
        if letter == self.answer:
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        if letter in self.reasons:
            return Result("mistake", f"Exercise {self.key}: not yet. ({letter}) {self.reasons[letter]}",
                          letter)
        choices = ", ".join(sorted([self.answer, *self.reasons]))
        return Result("wrong", f"Exercise {self.key}: answer with one letter: {choices}.")

@dataclass
class Trial(_Checked):
    """Design or debug: the check runs the student's matrix or function and judges what it does.

    `judge(answer)` returns None when right, else the name of a known mistake, or a message.
    """
    key: str
    question: str
    kind: str
    solution: Callable[[], object]
    judge: Callable[[object], str | None]
    mistakes: dict[str, tuple[Callable[[], object], str]]

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        verdict = self.judge(answer)
        if verdict is None:
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        if verdict in self.mistakes:
            return Result("mistake", f"Exercise {self.key}: not yet. Hint: {self.mistakes[verdict][1]}",
                          verdict)
        return Result("wrong", f"Exercise {self.key}: {verdict}")


class ShortcutLocked(RuntimeError):
    """Raised by a package function that the exercise asks the student to write out."""


@contextmanager
def switched_off(fn, names: tuple[str, ...]):
    """While inside, each named package function raises ShortcutLocked wherever the student's code finds
    it: `al.<name>`, a name the student imported, a name their function closed over."""
    root = __name__.rsplit(".", 1)[0]   # the package: every loaded module of it, as the student's `al`
    package = [vars(m) for k, m in list(sys.modules.items())
               if m is not None and (k == root or k.startswith(root + "."))]
    spaces = [*package, getattr(fn, "__globals__", {})]
    originals = {}
    for space in package:             # the package's own functions only: a student's `softmax` stays theirs
        for name in names:
            if callable(space.get(name)):
                originals.setdefault(id(space[name]), (name, space[name]))

    def stub(name):
        def refuse(*args, **kwargs):
            # not an input check: the exercise switched this function off on purpose (kept here)
            raise ShortcutLocked(f"al.{name} is switched off in this exercise: do this step yourself")
        return refuse

    saved = []
    for space in spaces:
        for key, value in list(space.items()):
            if id(value) in originals and value is originals[id(value)][1]:
                saved.append((space, key, value))
                space[key] = stub(originals[id(value)][0])
    cells = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if id(value) in originals and value is originals[id(value)][1]:
            cells.append((cell, value))
            cell.cell_contents = stub(originals[id(value)][0])
    try:
        yield
    finally:
        for space, key, value in reversed(saved):
            space[key] = value
        for cell, value in cells:
            cell.cell_contents = value
