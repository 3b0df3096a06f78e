"""The kinds of exercise (compute, predict, design, debug) printing ✓ or a hint, and the shortcut lock."""

from __future__ import annotations

import inspect
import io
import sys
import textwrap
import tokenize
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field

import numpy as np

from .records import Verdict, record

TOLERANCE = 5e-3   # answers rounded to 2 decimals still count


def differences(got: np.ndarray, expected: np.ndarray, atol: float = TOLERANCE, rtol: float = 0.0) -> str:
    """Where two arrays of one shape differ: how many entries (by more than `atol` + `rtol` × |expected|, the
    test of np.isclose), and the largest difference and its place."""
    broken = ~np.isfinite(got)
    if broken.any():                                   # a nan is no distance: say where it is instead
        if got.size == 1:
            return "it is nan or inf"
        where = np.unravel_index(np.argmax(broken), got.shape)      # not one number: at least one axis
        return f"{_of_its(int(broken.sum()), got.size)} {_verb(broken.sum(), 'is', 'are')} nan or inf, " \
               f"the first at index {list(map(int, where))}"
    off = ~np.isclose(got, expected, rtol=rtol, atol=atol)
    largest = float(np.abs(got - expected).max())
    if got.size == 1:
        return f"it is off by {largest:.3g}"
    where = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return f"{_of_its(int(off.sum()), got.size)} {_verb(off.sum(), 'differs', 'differ')}, the largest by " \
           f"{largest:.3g} at index {list(map(int, where))}"


def _of_its(count: int, size: int) -> str:
    return f"{count} of its {size} numbers"


def _verb(count, one: str, many: str) -> str:
    return one if count == 1 else many


@dataclass(frozen=True)
class Result:
    """Outcome of a check: status is 'correct', 'unanswered' (no answer yet, or a debug exercise's function
    as handed out: Trial.handed_out), 'mistake' or 'wrong'."""
    status: str
    message: str
    mistake: str | None = None


def in_words(shape: tuple[int, ...]) -> str:
    """A shape as a student reads it: 'one number', 'a list of 3 numbers', 'a 2 × 3 array'."""
    if len(shape) == 0:
        return "one number"
    if len(shape) == 1:
        return f"a list of {shape[0]} number{'' if shape[0] == 1 else 's'}"
    if len(shape) == 2:
        return f"a {shape[0]} × {shape[1]} array"
    return f"an array of shape {shape}"


def read_numbers(answer) -> np.ndarray | str:
    """A student's answer as a float array (nan and inf kept, for the caller to name), or, when it is not
    numbers, what it is instead ('text ...', 'a function', 'a ragged list ...'), for a message."""
    if isinstance(answer, (str, bytes)):
        return f"text, {_shortened(answer)}: give numbers, without quotes"
    if callable(answer) and not isinstance(answer, np.ndarray):
        return f"a function ({getattr(answer, '__name__', type(answer).__name__)}): give its numbers instead"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")              # the dtype decides below, not a warning
            arr = np.asarray(answer)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return f"a ragged {type(answer).__name__} (its rows have different lengths, or it holds lists " \
               "beside numbers)"
    except Exception as exc:   # its own __array__ raised (a PyTorch tensor that requires grad does): say so
        return unreadable(answer, exc)
    if arr.dtype.kind in "biuf":
        return arr.astype(float)
    if arr.dtype.kind == "c":
        return "complex numbers: give real ones"
    if arr.dtype.kind in "US":
        return f"text, {_shortened(answer)}: give numbers, without quotes"
    if arr.dtype.kind == "O":
        items = arr.ravel().tolist()
        if any(item is None for item in items):
            return "a list with None in it: replace every None by a number"
        try:
            return np.array([float(item) for item in items]).reshape(arr.shape)
        except OverflowError:
            return "a number too large for a float (more than 1.8e308)"
        except Exception as exc:   # an item's own __float__ raised
            if not isinstance(exc, (TypeError, ValueError)):
                return unreadable(answer, exc)
            kinds = sorted({type(item).__name__ for item in items})
            return f"{_a(type(answer).__name__)} holding {', '.join(kinds)}" if arr.ndim else \
                _a(type(answer).__name__)
    return f"{_a(type(answer).__name__)} of {arr.dtype}: give numbers"


def unreadable(answer, exc: Exception) -> str:
    """What to say of an answer that raised when read as numbers (its own __array__ or __float__)."""
    return f"{_a(type(answer).__name__)} that NumPy cannot read as numbers ({type(exc).__name__}: " \
           f"{(str(exc).splitlines() or [''])[0][:100]}): give plain numbers, e.g. a list or a NumPy array " \
           "(a PyTorch tensor: t.detach().numpy())"


def _a(noun: str) -> str:
    """The noun with its article, as it is said: 'an int', 'a list', 'an ndarray' (en-dee-array)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' or noun == 'ndarray' else 'a'} {noun}"


def _shortened(text) -> str:
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _within(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """(N, *shape) answers against one (shape) solution: finite and each number within TOLERANCE, per row."""
    axes = tuple(range(1, got.ndim))
    with np.errstate(invalid="ignore"):                            # inf - inf: not finite, so no anyway
        near = (np.abs(got - expected) <= TOLERANCE).all(axis=axes)
    return np.isfinite(got).all(axis=axes) & near


class _Checked:
    """What every kind of exercise shares: printing its verdict."""

    def check(self, answer) -> Verdict:
        """Print ✓, a hint, or 'not answered yet' (never raises, so the notebook keeps running), keep it in
        this computer's record (al.progress), and return the verdict, truthy on ✓."""
        result = self.evaluate(answer)
        print(result.message)
        return record(self.key, result.status)


GENERIC = "Not right yet: go through the steps of the lesson again, one at a time."
"""What a compute exercise says, after the numbers that differ, of an answer that is no known mistake."""

_HOLDS_THE_ANSWER = {"answer key": True}
"""The metadata of each exercise's private field `_answer_key` (a function returning the right answer):
tab completion on an exercise never offers it; `attention_lab.answer_keys` (for teachers and tests) finds
it by this metadata."""

_HOLDS_THE_MISTAKES = {"mistakes": True}
"""The metadata of each exercise's private field `_mistakes` (name -> (the wrong answer, its hint)). It is
private too: a wrong answer is often the right one turned round (negated, transposed, scaled), and the
letters a predict exercise gives reasons for are every letter but the answer."""


@dataclass
class Exercise(_Checked):
    """An exercise with its right answer and the typical wrong answers, each with its hint.

    `expects` says in words what the answer is ('two numbers, the shape of Q Kᵀ as [rows, columns]'), for
    the message on an answer of the wrong shape; `softmax` says whether the computation has a softmax,
    which an answer with nan or inf may have overflowed; with `flat`, a one-dimensional answer given as a row
    or a column ((1, 3) or (3, 1) for (3,)) counts as its numbers. `fallback` is said after the numbers that
    differ, when an answer of the right shape is no known mistake; an exercise may give a function instead,
    which says what the student's numbers are (a shape, an index: not an array that 'differs'), or recognises
    a family of slips (rounding to any number of decimals), or returns None for the generic message."""
    key: str
    question: str
    solution: InitVar[Callable[[], np.ndarray]]
    mistakes: InitVar[dict[str, tuple[Callable[[], np.ndarray], str]] | None] = None
    fallback: str | Callable[[np.ndarray], str | None] = GENERIC
    kind: str = "compute"
    expects: str = ""
    softmax: bool = False
    flat: bool = False
    _answer_key: Callable[[], np.ndarray] = field(init=False, repr=False, compare=False,
                                                metadata=_HOLDS_THE_ANSWER)
    _mistakes: dict = field(init=False, repr=False, compare=False, metadata=_HOLDS_THE_MISTAKES)

    def __post_init__(self, solution, mistakes):
        self._answer_key, self._mistakes = solution, dict(mistakes or {})

    def named(self, name: str) -> Result:
        """The verdict for known mistake `name`: its hint (for an exercise that recognises a mistake in a
        way of its own, e.g. an answer in another unit)."""
        return Result("mistake", f"Exercise {self.key}: not yet. Hint: {self._mistakes[name][1]}", name)

    def accepts(self, answer) -> bool:
        """Whether `evaluate` says ✓ to `answer`: finite numbers of the solution's shape, each within
        TOLERANCE of it. The hints are not looked for (a search over many candidates asks only this).
        None and ... are no numbers: read_numbers says so."""
        got = read_numbers(answer)
        if isinstance(got, str):
            return False
        expected = np.asarray(self._answer_key(), dtype=float)
        got = self._shaped(got, expected.shape)
        return got.shape == expected.shape and bool(_within(got[np.newaxis], expected)[0])

    def accepts_each(self, answers) -> np.ndarray:
        """`accepts` for many answers at once, stacked on a first axis, each of the solution's shape: one
        bool per answer (a search over thousands of candidates asks this)."""
        expected = np.asarray(self._answer_key(), dtype=float)
        got = np.asarray(answers)                                  # (N, *solution's shape)
        if got.dtype.kind not in "biuf":
            raise TypeError(f"accepts_each: answers of dtype {got.dtype}; expected numbers (bool, int or "
                            "float), stacked on a first axis")
        got = got.astype(float)
        if got.shape[1:] != expected.shape:
            raise ValueError(f"accepts_each: answers of shape {got.shape}; expected (N, *{expected.shape}): "
                             "answers of the solution's shape, stacked on a first axis")
        return _within(got, expected)

    def _shaped(self, got: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """`got` in the solution's one-dimensional `shape` when the exercise is `flat` and `got` holds exactly
        that many numbers in a row or a column; else `got` as it is."""
        if self.flat and len(shape) == 1 and got.size == shape[0] and np.squeeze(got).shape == shape:
            return got.reshape(shape)
        return got

    def evaluate(self, answer) -> Result:
        """Compare an answer with the solution and with each known mistake."""
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        if self.accepts(answer):
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        expected = np.asarray(self._answer_key(), dtype=float)
        wanted = self.expects or f"numbers of shape {expected.shape}"
        got = read_numbers(answer)
        if isinstance(got, str):
            return Result("wrong", f"Exercise {self.key}: expected {wanted}; got {got}.")
        got = self._shaped(got, expected.shape)
        if not np.isfinite(got).all():
            where = np.unravel_index(np.argmax(~np.isfinite(got)), got.shape)
            place = f" (the first at index {list(map(int, where))})" if got.ndim else ""
            tip = (" Did a softmax overflow? Subtract the maximum score first." if self.softmax else
                   " Give finite numbers.")
            return Result("wrong", f"Exercise {self.key}: your answer contains NaN or inf{place}.{tip}")
        for name, (wrong, hint) in self._mistakes.items():  # a known mistake may have its own shape
            mistaken = np.asarray(wrong(), dtype=float)
            if got.shape == mistaken.shape and np.allclose(got, mistaken, rtol=0, atol=TOLERANCE):
                return Result("mistake", f"Exercise {self.key}: not yet. Hint: {hint}", name)
        if got.shape != expected.shape:
            return Result("wrong", f"Exercise {self.key}: expected {wanted}; got {in_words(got.shape)}.")
        said = self.fallback(got) if callable(self.fallback) else None
        if said:
            return Result("wrong", f"Exercise {self.key}: not yet. Hint: {said}")
        return Result("wrong", f"Exercise {self.key}: your answer is {in_words(got.shape)}, as asked, but "
                               f"{differences(got, expected)}. "
                               f"{GENERIC if callable(self.fallback) else self.fallback}")


del Exercise.mistakes   # the InitVar's default, left on the class by @dataclass: a public name, and no use


@dataclass
class Choice(_Checked):
    """Predict before you run: one letter, and for each wrong letter the reason it is wrong; `remark` is
    printed after ✓ (what the lesson would otherwise have said before the student predicted it)."""
    key: str
    question: str
    answer: InitVar[str]
    reasons: InitVar[dict[str, str]]
    kind: str = "predict"
    remark: InitVar[str] = ""
    _answer_key: Callable[[], str] = field(init=False, repr=False, compare=False,
                                           metadata=_HOLDS_THE_ANSWER)
    _reasons: dict[str, str] = field(init=False, repr=False, compare=False)
    _remark: str = field(init=False, repr=False, compare=False)   # private: it tells what the answer says
    _mistakes: dict = field(init=False, repr=False, compare=False, metadata=_HOLDS_THE_MISTAKES)

    def __post_init__(self, answer, reasons, remark):
        self._answer_key, self._reasons, self._remark = (lambda: answer), dict(reasons), remark
        self._mistakes = {letter: ((lambda letter=letter: letter), why) for letter, why in reasons.items()}

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        right = self._answer_key()
        letter = answer.strip().lower().strip("()") if isinstance(answer, str) else None
        if letter == right:
            remark = f" {self._remark}" if self._remark else ""
            return Result("correct", f"Exercise {self.key}: ✓ correct.{remark}")
        if letter in self._reasons:
            return Result("mistake", f"Exercise {self.key}: not yet. ({letter}) {self._reasons[letter]}",
                          letter)
        choices = ", ".join(sorted([right, *self._reasons]))
        return Result("wrong", f"Exercise {self.key}: answer with one letter: {choices}.")


del Choice.remark   # the InitVar's default, left on the class by @dataclass (as Exercise.mistakes above)


class Correct(str):
    """A Trial judge's verdict for a right answer with a remark to print after ✓ (empty: none): what a right
    answer can still leave unseen."""


@dataclass
class Trial(_Checked):
    """Design or debug: the check runs the student's matrix or function and judges what it does.

    `judge(answer)` returns None when right (or a `Correct` remark to print after ✓), else the name of a
    known mistake, or a message. `handed_out` names the mistake of a debug exercise's function as the
    lesson hands it out (the planted line still there, and the planted numbers), and `handed_out_source`
    is that function's source as the lesson prints it. Run All checks the function before the student has
    touched it: a function whose whole source is that one (comments and spaces aside) gets its hint but
    counts as no attempt ('unanswered'). Any other function with that mistake, an added print, an assert
    or a line rewritten to the same numbers, gets the same hint and counts as tried ('mistake').
    `may_pass(answers)`, for a design exercise, tells at once for a stack of answers which ones can be
    right: False only where `judge` would not say ✓ (`accepts_each` asks `judge` about the others).
    """
    key: str
    question: str
    kind: str
    solution: InitVar[Callable[[], object]]
    judge: InitVar[Callable[[object], str | None]]
    mistakes: InitVar[dict[str, tuple[Callable[[], object], str]]]
    handed_out: str | None = None
    handed_out_source: str | None = field(default=None, repr=False)
    may_pass: InitVar[Callable[[np.ndarray], np.ndarray] | None] = None
    _answer_key: Callable[[], object] = field(init=False, repr=False, compare=False,
                                              metadata=_HOLDS_THE_ANSWER)
    _judge: Callable[[object], str | None] = field(init=False, repr=False, compare=False)
    _mistakes: dict = field(init=False, repr=False, compare=False, metadata=_HOLDS_THE_MISTAKES)
    _may_pass: Callable[[np.ndarray], np.ndarray] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self, solution, judge, mistakes, may_pass):
        # the judge is private too: its closure holds the reference function of a debug exercise
        self._answer_key, self._judge, self._mistakes = solution, judge, dict(mistakes)
        self._may_pass = may_pass

    def accepts_each(self, answers) -> np.ndarray:
        """Whether `evaluate` says ✓, for many answers of a design exercise at once, stacked on a first axis:
        one bool per answer (a search over thousands of candidates asks this). The exercise's `may_pass`
        rules out at once the answers that cannot be right; `evaluate` judges each of the rest."""
        shape = np.shape(self._answer_key())
        got = np.asarray(answers)
        if got.dtype.kind not in "biuf":
            raise TypeError(f"accepts_each: answers of dtype {got.dtype}; expected numbers (bool, int or "
                            "float), stacked on a first axis")
        if got.shape[1:] != shape:
            raise ValueError(f"accepts_each: answers of shape {got.shape}; expected (N, *{shape}): "
                             "answers of the solution's shape, stacked on a first axis")
        maybe = np.ones(len(got), dtype=bool)
        if self._may_pass is not None:
            with np.errstate(all="ignore"):                       # NaN, inf: such an answer is not right
                maybe = np.asarray(self._may_pass(got.astype(float)), dtype=bool)
        return np.array([bool(m) and self.evaluate(a).status == "correct" for m, a in zip(maybe, got)],
                        dtype=bool)

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        verdict = self._judge(answer)
        if verdict is None or isinstance(verdict, Correct):
            remark = f" {verdict}" if verdict else ""
            return Result("correct", f"Exercise {self.key}: ✓ correct.{remark}")
        if verdict in self._mistakes:
            untried = verdict == self.handed_out and untouched(answer, self.handed_out_source)
            return Result("unanswered" if untried else "mistake",
                          f"Exercise {self.key}: not yet. Hint: {self._mistakes[verdict][1]}", verdict)
        return Result("wrong", f"Exercise {self.key}: {verdict}")


del Trial.may_pass   # the InitVar's default, left on the class by @dataclass (as Exercise.mistakes above)


def untouched(fn, source: str | None) -> bool:
    """Whether `fn`'s whole source is `source` (a debug exercise's function as the lesson prints it), token
    for token: comments, blank lines and spaces aside. False without a source, or where `fn`'s code cannot
    be read (a function made by exec, a lambda among other code on its line: it counts as changed)."""
    if source is None:
        return False
    try:
        theirs = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return False
    wanted = _tokens(textwrap.dedent(source))
    return wanted is not None and _tokens(theirs) == wanted


def _tokens(source: str) -> list[str] | None:
    """The code's tokens, comments and the layout (new lines, indents) left out; None if it does not
    tokenize."""
    layout = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
              tokenize.ENDMARKER}
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                if t.type not in layout]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


class ShortcutLocked(RuntimeError):
    """Raised by a package function that the exercise asks the student to write out."""


@contextmanager
def switched_off(fn, names: tuple[str, ...]):
    """While inside, each named package function raises ShortcutLocked wherever the student's code finds
    it: `al.<name>`, a name the student imported, a name their function closed over. Its trusting twin
    `<name>_unchecked` (`al.matrix.softmax_unchecked` for `softmax`), where there is one, is switched off
    with it."""
    root = __name__.rsplit(".", 1)[0]   # the package: every loaded module of it, as the student's `al`
    package = [vars(m) for k, m in list(sys.modules.items())
               if m is not None and (k == root or k.startswith(root + "."))]
    spaces = [*package, getattr(fn, "__globals__", {})]
    names = (*names, *(f"{name}_unchecked" for name in names))
    originals = {}
    for space in package:             # the package's own functions only: a student's `softmax` stays theirs
        for name in names:
            if callable(space.get(name)):
                originals.setdefault(id(space[name]), (name, space[name]))

    home = sys.modules.get(root)
    shown = {key: f"al.{name}" if getattr(home, name, None) is original else          # the name a student
             f"al.{original.__module__.rsplit('.', 1)[-1]}.{name}"                       # reaches it under
             for key, (name, original) in originals.items()}

    def stub(name, original):
        said = shown[id(original)]

        def refuse(*args, **kwargs):
            # not an input check: the exercise switched this function off on purpose (kept here)
            raise ShortcutLocked(f"{said} is switched off in this exercise: do this step yourself")
        return refuse

    saved = []
    for space in spaces:
        for key, value in list(space.items()):
            if id(value) in originals and value is originals[id(value)][1]:
                saved.append((space, key, value))
                space[key] = stub(*originals[id(value)])
    cells = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if id(value) in originals and value is originals[id(value)][1]:
            cells.append((cell, value))
            cell.cell_contents = stub(*originals[id(value)])
    try:
        yield
    finally:
        for space, key, value in reversed(saved):
            space[key] = value
        for cell, value in cells:
            cell.cell_contents = value
