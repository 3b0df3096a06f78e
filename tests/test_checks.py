"""The exercise machinery: shortcuts switched off while a judge runs a student's function, and fallback
messages that never contradict themselves."""

import numpy as np
import pytest

import attention_lab as al
from attention_lab import judging
from attention_lab.answer_keys import answer_key
from attention_lab.checks import Exercise


def test_the_kv_cache_exercise_cannot_be_passed_with_the_package_decoder():
    def fixed(X, W_q, W_k, W_v):                       # 05.3 "fixed" with one package call
        return al.decode_with_cache(X, W_q, W_k, W_v)[0]

    result = al.EXERCISES["05.3"].evaluate(fixed)
    assert result.status == "wrong" and "al.decode_with_cache is switched off" in result.message
    assert "do this step yourself" in result.message


def test_a_shortcut_imported_by_name_is_switched_off_too():
    from attention_lab import numerical_gradient  # the student's own name for it

    def grads(Q, K, V, dY):                            # 06.3 "fixed" by finite differences
        def L(x):
            return float((al.softmax(x @ K.T / np.sqrt(K.shape[1])) @ V * dY).sum())
        return numerical_gradient(L, Q), numerical_gradient(L, K), numerical_gradient(L, V)

    result = al.EXERCISES["06.3"].evaluate(grads)
    assert "al.numerical_gradient is switched off" in result.message
    assert numerical_gradient is al.numerical_gradient  # and both are back once the check is done
    assert np.isclose(al.numerical_gradient(lambda x: float((x ** 2).sum()), np.array([3.0]))[0], 6.0)


def test_the_lock_is_lifted_when_the_students_function_raises():
    def broken(X, W_q, W_k, W_v):
        raise KeyError("oops")

    assert "KeyError" in al.EXERCISES["05.3"].evaluate(broken).message
    X = np.eye(2)
    assert np.allclose(al.decode_with_cache(X, X, X, X)[0][0], [1.0, 0.0])


def test_a_debug_fallback_with_the_right_shape_says_which_values_differ():
    def off_by_one(X, W_q, W_k, W_v):                  # causal attention of the right shape, plus 1
        n, s = len(X), 1 / np.sqrt(W_q.shape[1])
        S = np.where(np.tril(np.ones((n, n))) > 0, (X @ W_q) @ (X @ W_k).T * s, -np.inf)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        return A / A.sum(axis=1, keepdims=True) @ (X @ W_v) + 1.0

    message = al.EXERCISES["05.3"].evaluate(off_by_one).message
    assert "right shape (5, 3)" in message and "15 of its 15 numbers differ, the largest by 1" in message
    assert "returns shape (5, 3): expected" not in message


def test_a_compute_fallback_with_the_right_shape_says_which_values_differ():
    exercise = Exercise("99.1", "a test", lambda: np.array([[1.0, 2.0], [3.0, 4.0]]))
    result = exercise.evaluate([[1.0, 2.0], [3.0, 4.5]])
    assert result.status == "wrong"
    assert "your answer is a 2 × 2 array, as asked, but 1 of its 4 numbers differs, the largest by 0.5 at " \
        "index [1, 1]" \
        in result.message
    assert "expected shape" not in result.message
    wrong_shape = exercise.evaluate([1.0, 2.0])
    assert wrong_shape.message == "Exercise 99.1: expected numbers of shape (2, 2); got a list of 2 numbers."


def test_every_shortcut_is_a_function_of_the_package():
    import attention_lab.real_model as rm
    modules = [al, al.matrix, al.heads, al.positions, rm]
    for name in judging.SHORTCUTS:
        assert any(callable(getattr(m, name, None)) for m in modules), name


def test_a_shortcuts_unchecked_twin_is_switched_off_with_it():
    """al.matrix.softmax_unchecked is what al.softmax calls: switching off softmax switches it off too,
    and the unchecked form of the kernel is off in every debug exercise (04.3 was passed with it)."""
    from attention_lab.checks import ShortcutLocked, switched_off

    def fix(q, K):
        return al.matrix.softmax_unchecked(K @ q)
    with switched_off(fix, ("softmax",)):
        with pytest.raises(ShortcutLocked, match=r"al\.matrix\.softmax_unchecked is switched off"):
            fix(np.zeros(2), np.eye(2))
    assert np.allclose(al.matrix.softmax_unchecked(np.zeros(4)), 0.25)               # back afterwards

    def masked_weights(S, mask):                       # 04.3 with the unchecked kernel: weights of S
        return al.matrix.attention_unchecked(S, np.eye(S.shape[1]), np.eye(S.shape[1]), mask, 1.0)[1]
    result = al.EXERCISES["04.3"].evaluate(masked_weights)
    assert result.status == "wrong" and "al.matrix.attention_unchecked is switched off" in result.message


def test_a_fallback_with_nan_says_where_the_nan_is_not_its_distance():
    def attention(Q, K, V):                            # every output nan
        return np.full((len(Q), V.shape[1]), np.nan)
    message = al.EXERCISES["02.3"].evaluate(attention).message
    assert "are nan or inf, the first at index [0, 0]" in message and "by nan" not in message


def test_a_students_own_function_with_a_locked_name_stays_theirs():
    """switched_off stubs the package's functions wherever they are found, never a student's own
    function that happens to share the name (here: their own softmax, while al.softmax is off)."""
    from attention_lab.checks import ShortcutLocked, switched_off

    namespace = {"np": np, "al": al}
    exec("def softmax(x):\n    return np.exp(x) / np.exp(x).sum()\n"
         "def mine(q):\n    return softmax(q)\n"
         "def theirs(q):\n    return al.softmax(q)\n", namespace)
    with switched_off(namespace["mine"], ("softmax",)):
        assert np.allclose(namespace["mine"](np.zeros(4)), 0.25)      # by hand: four equal scores
        with pytest.raises(ShortcutLocked, match=r"al\.softmax is switched off"):
            namespace["theirs"](np.zeros(4))
    assert np.allclose(al.softmax(np.zeros(4)), 0.25)                  # put back afterwards


def test_accepts_is_evaluates_tick_and_nothing_else():
    """`accepts` (what tests/test_exercises_on_screen.py asks of each candidate) says yes exactly where
    `evaluate` says ✓: numbers of the solution's shape, each within 0.005 (the promise, written here)."""
    ex = Exercise("t.1", "?", lambda: np.array([[1.0, 2.0], [3.0, 4.0]]),
                  mistakes={"transposed": (lambda: np.array([[1.0, 3.0], [2.0, 4.0]]), "rows are queries")})
    right = np.array([[1.0, 2.0], [3.0, 4.0]])
    answers = [right, right.tolist(), right + 0.0049, right - 0.0049, right + 0.0051, right.T, right[0],
               right.ravel(), None, ..., "1 2 3 4", np.full((2, 2), np.nan), right * np.inf,
               [[1, 2], [3, 4]], lambda: right]
    for answer in answers:
        said = ex.evaluate(answer).status
        assert ex.accepts(answer) == (said == "correct"), (answer, said)
    assert [ex.accepts(a) for a in answers[:5]] == [True, True, True, True, False]
    assert ex.evaluate(right.T).mistake == "transposed" and not ex.accepts(right.T)
    assert ex.accepts([[1, 2], [3, 4]]) and not ex.accepts(None) and not ex.accepts(...)


def test_accepts_each_is_accepts_on_every_row():
    """`accepts_each` (the leak search asks it of thousands of candidates at once) says per row what
    `accepts` says of that row alone; the verdicts are written here: within 0.005, finite."""
    ex = Exercise("t.2", "?", lambda: np.array([1.0, -2.0, 0.5]))
    rows = np.array([[1.0, -2.0, 0.5], [1.0049, -2.0049, 0.5049], [1.0051, -2.0, 0.5], [-1.0, 2.0, -0.5],
                     [np.nan, -2.0, 0.5], [np.inf, -2.0, 0.5], [1.0, -2.0, 0.4951], [0.0, 0.0, 0.0]])
    assert ex.accepts_each(rows).tolist() == [True, True, False, False, False, False, True, False]
    assert ex.accepts_each(rows).tolist() == [ex.accepts(r) for r in rows]
    assert ex.accepts_each(np.array([[1, -2, 0], [1, -2, 1]])).tolist() == [False, False]   # ints, read
    assert ex.accepts_each(rows[:0]).tolist() == []
    before = rows.copy()
    ex.accepts_each(rows)
    assert np.array_equal(before, rows, equal_nan=True)                                     # not mutated
    with pytest.raises(ValueError, match=r"answers of shape \(8, 2\); expected \(N, \*\(3,\)\)"):
        ex.accepts_each(rows[:, :2])
    with pytest.raises(TypeError, match=r"answers of dtype <U1; expected numbers"):
        ex.accepts_each(np.array([["1", "2", "3"]]))


def design_answers(key: str, rng: np.random.Generator) -> np.ndarray:
    """Answers of a design exercise's shape, written here: the right answer scaled from well below to well
    above the judge's threshold (so some land just above it), turned round, negated, shifted, noisy,
    random at three sizes, with NaN, inf, -inf or a number too large to judge.
    The scales include the last one below and the first one above where the judge's ✓ begins."""
    right = np.asarray(answer_key(key), dtype=float)
    ex = al.EXERCISES[key]
    low, high = 0.2, 2.0                      # not right, right: the scale where it turns, by bisection
    assert ex.evaluate(right * low).status != "correct" and ex.evaluate(right * high).status == "correct"
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (low, mid) if ex.evaluate(right * mid).status == "correct" else (mid, high)
    scaled = [right * c for c in [*np.linspace(0.2, 2.0, 37), low, high, high * (1 + 1e-7), high * 1.001]]
    turned = [right.T] if right.shape[0] == right.shape[1] else [right[::-1]]
    noisy = [right + rng.normal(0, s, right.shape) for s in (0.1, 0.5, 1.0, 2.0) for _ in range(3)]
    drawn = [rng.normal(0, s, right.shape) for s in (1.0, 5.0, 20.0) for _ in range(8)]
    odd = [right + 3.0, -right, np.zeros_like(right), np.where(right == 0, np.nan, right),
           np.where(right == 0, np.inf, right), np.where(right == 0, -np.inf, right),
           np.full_like(right, -np.inf), right * 1e13]
    return np.stack([*scaled, *turned, *noisy, *drawn, *odd])


@pytest.mark.parametrize("key", ["06.2", "07.2", "08.2"])
def test_a_design_exercises_accepts_each_is_evaluate_on_every_answer(key):
    """Trial.accepts_each (the leak search asks it of tens of thousands of pieces) rules out at once,
    with the exercise's quick test, only answers that evaluate would not tick: on answers just above the
    threshold too. Both verdicts occur, and the answers are not changed."""
    ex = al.EXERCISES[key]
    answers = design_answers(key, np.random.default_rng(7))
    before = answers.copy()
    ticks = ex.accepts_each(answers).tolist()
    assert np.array_equal(before, answers, equal_nan=True)
    assert ticks == [ex.evaluate(a).status == "correct" for a in answers]
    assert 10 <= sum(ticks) <= len(ticks) - 30, sum(ticks)
    with pytest.raises(ValueError, match=r"answers of shape \(3, 5\); expected \(N, \*"):
        ex.accepts_each(np.zeros((3, 5)))
    with pytest.raises(TypeError, match=r"answers of dtype <U1; expected numbers"):
        ex.accepts_each(np.full((1, *answers.shape[1:]), "1"))



def test_08_2s_quick_test_lets_through_answers_that_also_turn_the_slow_pair():
    """08.2's quick test (may_pass_08) rules out the hinted mistakes at once, and lets through right pairs
    that put numbers in pair 1 too (turning 0.1 radian per position at base 100), whose distance-1
    weight is just above 0.8 (about 0.801 and 0.8005): the search ticks them, as evaluate does."""
    from attention_lab.exercises_08 import may_pass_08
    ex = al.EXERCISES["08.2"]
    ahead = np.array([np.cos(1.0), np.sin(1.0)])               # the key 1 radian ahead in pair 0
    right = np.array([[4.0, 0, 0, 0], [*(4 * ahead), 0, 0]])
    slow = [np.array([[3.74, 0, 6.0, 0], [*(3.74 * ahead), 6 * np.cos(1.5), 6 * np.sin(1.5)]]),
            np.array([[2.96, 0, 6.0, 0], [*(2.96 * ahead), 6.0, 0]])]
    assert [ex.evaluate(a).status for a in slow] == ["correct", "correct"]
    assert ex.accepts_each(np.stack(slow)).tolist() == [True, True]
    wrong = [right[[0, 0]],                                                              # same direction
             np.array([[4.0, 0, 0, 0], [4 * np.cos(1.0), -4 * np.sin(1.0), 0, 0]]),          # wrong sign
             right / 4,                                                                   # too weak
             np.array([[4.0, 0, 0, 0], [4 * np.cos(2.0), 4 * np.sin(2.0), 0, 0]])]           # other angle
    assert may_pass_08(np.stack([right, *slow, *wrong])).tolist() == [True, True, True, False, False, False,
                                                                      False]


# ---------------------------------------------------------------- what a student reads (written by hand)

def test_in_words_says_a_shape_as_a_student_reads_it():
    from attention_lab.checks import in_words
    assert [in_words(s) for s in [(), (1,), (3,), (0,), (2, 3), (2, 3, 4)]] == [
        "one number", "a list of 1 number", "a list of 3 numbers", "a list of 0 numbers", "a 2 × 3 array",
        "an array of shape (2, 3, 4)"]


class Tensorish:
    """An answer whose own __array__ raises, as a PyTorch tensor that requires grad does."""
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad.\nUse tensor.detach().numpy().")


class Array(Tensorish):
    """The same, under a name that starts with a capital vowel."""


class _NoFloat:
    def __float__(self):
        raise ArithmeticError("")


def _told(noun, exc):
    return f"{noun} that NumPy cannot read as numbers ({exc}): give plain numbers, e.g. a list or a NumPy " \
           "array (a PyTorch tensor: t.detach().numpy())"


@pytest.mark.parametrize("answer, said", [
    ("0.5", "text, '0.5': give numbers, without quotes"),
    pytest.param(b"1", "text, b'1': give numbers, without quotes", id="bytes"),
    ("x" * 38, f"text, '{'x' * 38}': give numbers, without quotes"),              # 40 characters: all shown
    ("x" * 39, f"text, '{'x' * 36}...: give numbers, without quotes"),            # 41: cut to 37 and ...
    (np.array(["1", "2"]), "text, array(['1', '2'], dtype='<U1'): give numbers, without quotes"),
    ([1, "a"], "text, [1, 'a']: give numbers, without quotes"),
    (len, "a function (len): give its numbers instead"),
    (__import__("functools").partial(max, 1), "a function (partial): give its numbers instead"),
    ([[1, 2], [3]], "a ragged list (its rows have different lengths, or it holds lists beside numbers)"),
    (((1, 2), (3,)), "a ragged tuple (its rows have different lengths, or it holds lists beside numbers)"),
    ([1j, 2], "complex numbers: give real ones"),
    ([[1.0], [None]], "a list with None in it: replace every None by a number"),
    ([10 ** 400, 1], "a number too large for a float (more than 1.8e308)"),
    ([{}, 1], "a list holding dict, int"),
    ([1, {}], "a list holding dict, int"),
    (np.array([{}, 1], dtype=object), "an ndarray holding dict, int"),
    ({}, "a dict"),
    (set(), "a set"),
    (np.array(["2026-11-30"], dtype="datetime64[D]"), "an ndarray of datetime64[D]: give numbers"),
    (Tensorish(), _told("a Tensorish", "RuntimeError: Can't call numpy() on Tensor that requires grad.")),
    (Array(), _told("an Array", "RuntimeError: Can't call numpy() on Tensor that requires grad.")),
    ([_NoFloat()], _told("a list", "ArithmeticError: ")),
])
def test_read_numbers_says_what_an_answer_is_instead_of_numbers(answer, said):
    from attention_lab.checks import read_numbers
    assert read_numbers(answer) == said


def test_an_error_message_is_cut_to_its_first_line_and_100_characters():
    from attention_lab.checks import unreadable
    assert unreadable((1,), ValueError("e" * 150 + "\nsecond")) == \
        _told("a tuple", "ValueError: " + "e" * 100)
    assert unreadable(Array(), KeyError()) == _told("an Array", "KeyError: ")


@pytest.mark.parametrize("answer, numbers", [
    ([True, False], [1.0, 0.0]),
    (np.array([1, 200], dtype=np.uint8), [1.0, 200.0]),
    ([[__import__("fractions").Fraction(1, 2)], [__import__("fractions").Fraction(3, 2)]], [[0.5], [1.5]]),
    (np.array([np.nan, np.inf]), [np.nan, np.inf]),
])
def test_read_numbers_gives_floats_of_the_answers_shape(answer, numbers):
    from attention_lab.checks import read_numbers
    got = read_numbers(answer)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_array_equal(got, numbers)


def _weights_exercise(**how):
    """Two softmax weights 0.2 and 0.8; known mistakes: the two swapped, and one number."""
    mistakes = {"swapped": (lambda: np.array([0.8, 0.2]), "which key scores higher?"),
                "one": (lambda: np.array(1.0), "give both weights, one per key")}
    return Exercise("t.3", "?", lambda: np.array([0.2, 0.8]), mistakes=mistakes, **how)


def test_an_exercise_says_each_verdict_in_words():
    ex = _weights_exercise(expects="two weights, one per key", softmax=True)
    said = {repr(a): (ex.evaluate(a).status, ex.evaluate(a).message, ex.evaluate(a).mistake) for a in [
        None, ..., [0.2, 0.8], (0.204, 0.796), "0.2", [np.nan, 1.0], [0.2, -np.inf], np.float64("nan"),
        [0.8, 0.2], 1, 1.004, [1, 2, 3]]}
    assert list(said.values()) == [
        ("unanswered", "Exercise t.3: not answered yet.", None),
        ("unanswered", "Exercise t.3: not answered yet.", None),
        ("correct", "Exercise t.3: ✓ correct.", None),
        ("correct", "Exercise t.3: ✓ correct.", None),
        ("wrong", "Exercise t.3: expected two weights, one per key; got text, '0.2': give numbers, without "
                  "quotes.", None),
        ("wrong", "Exercise t.3: your answer contains NaN or inf (the first at index [0]). Did a softmax "
                  "overflow? Subtract the maximum score first.", None),
        ("wrong", "Exercise t.3: your answer contains NaN or inf (the first at index [1]). Did a softmax "
                  "overflow? Subtract the maximum score first.", None),
        ("wrong", "Exercise t.3: your answer contains NaN or inf. Did a softmax overflow? Subtract the "
                  "maximum score first.", None),
        ("mistake", "Exercise t.3: not yet. Hint: which key scores higher?", "swapped"),
        ("mistake", "Exercise t.3: not yet. Hint: give both weights, one per key", "one"),
        ("mistake", "Exercise t.3: not yet. Hint: give both weights, one per key", "one"),
        ("wrong", "Exercise t.3: expected two weights, one per key; got a list of 3 numbers.", None),
    ]
    plain = _weights_exercise()
    assert plain.evaluate([np.inf, 0.8]).message == \
        "Exercise t.3: your answer contains NaN or inf (the first at index [0]). Give finite numbers."
    assert plain.evaluate([[0.2, 0.8]]).message == \
        "Exercise t.3: expected numbers of shape (2,); got a 1 × 2 array."
    assert plain.evaluate([0.5, 0.9]).message == \
        "Exercise t.3: your answer is a list of 2 numbers, as asked, but 2 of its 2 numbers differ, the " \
        "largest by 0.3 at index [0]. Not right yet: go through the steps of the lesson again, one at a time."
    assert plain.evaluate([0.204, 0.81]).message.endswith(
        "but 1 of its 2 numbers differs, the largest by 0.01 at index [1]. Not right yet: go through the "
        "steps of the lesson again, one at a time.")


def test_an_exercises_fallback_is_said_after_the_numbers_or_instead_of_them():
    worded = _weights_exercise(fallback="Each weight is between 0 and 1.")
    assert worded.evaluate([0.5, 0.9]).message == \
        "Exercise t.3: your answer is a list of 2 numbers, as asked, but 2 of its 2 numbers differ, the " \
        "largest by 0.3 at index [0]. Each weight is between 0 and 1."
    percent = _weights_exercise(
        fallback=lambda got: "give weights, not percentages" if got.max() > 1 else None)
    result = percent.evaluate([20, 80])
    assert (result.status, result.message, result.mistake) == \
        ("wrong", "Exercise t.3: not yet. Hint: give weights, not percentages", None)
    assert percent.evaluate([0.5, 0.9]).message.endswith(
        "the largest by 0.3 at index [0]. Not right yet: go through the steps of the lesson again, one at a "
        "time.")


def test_a_flat_exercise_takes_its_numbers_in_a_row_or_a_column_only():
    flat = _weights_exercise(flat=True)
    assert flat.evaluate([[0.2, 0.8]]).status == "correct"
    assert flat.evaluate([[0.2], [0.8]]).status == "correct"
    assert flat.evaluate([[0.8], [0.2]]).mistake == "swapped"
    assert flat.evaluate([[0.5, 0.9]]).message.startswith(
        "Exercise t.3: your answer is a list of 2 numbers, as asked, but 2 of its 2 numbers differ")
    assert flat.evaluate([[[0.2, 0.8]]]).status == "correct"                  # (1, 1, 2): still one row
    assert flat.evaluate([[0.2, 0.8], [0.2, 0.8]]).message == \
        "Exercise t.3: expected numbers of shape (2,); got a 2 × 2 array."
    four = Exercise("t.4", "?", lambda: np.arange(4.0), flat=True)
    assert four.evaluate([[0, 1], [2, 3]]).message == \
        "Exercise t.4: expected numbers of shape (4,); got a 2 × 2 array."     # four numbers, not a row
    row = Exercise("t.5", "?", lambda: np.array([[0.2, 0.8]]), flat=True)     # a solution of two axes
    assert row.evaluate([0.2, 0.8]).message == \
        "Exercise t.5: expected numbers of shape (1, 2); got a list of 2 numbers."
    assert _weights_exercise().evaluate([[0.2], [0.8]]).message == \
        "Exercise t.3: expected numbers of shape (2,); got a 2 × 1 array."


def test_check_prints_the_verdict_and_returns_it(capsys):
    ex = _weights_exercise()
    assert ex.check([0.2, 0.8]) and capsys.readouterr().out == "Exercise t.3: ✓ correct.\n"
    verdict = ex.check([0.8, 0.2])
    assert not verdict and verdict.status == "mistake" and verdict.key == "t.3"
    assert capsys.readouterr().out == "Exercise t.3: not yet. Hint: which key scores higher?\n"


def test_a_choice_says_each_verdict_in_words():
    from attention_lab.checks import Choice
    choice = Choice("t.6", "?", "b", {"c": "that ignores the scale", "a": "that is the sum"},
                    remark="The scale keeps the softmax soft.")
    said = [(r.status, r.message, r.mistake) for r in map(choice.evaluate, [None, ..., " (B) ", "b", "A", "d",
                                                                           2, "(a)"])]
    assert said == [
        ("unanswered", "Exercise t.6: not answered yet.", None),
        ("unanswered", "Exercise t.6: not answered yet.", None),
        ("correct", "Exercise t.6: ✓ correct. The scale keeps the softmax soft.", None),
        ("correct", "Exercise t.6: ✓ correct. The scale keeps the softmax soft.", None),
        ("mistake", "Exercise t.6: not yet. (a) that is the sum", "a"),
        ("wrong", "Exercise t.6: answer with one letter: a, b, c.", None),
        ("wrong", "Exercise t.6: answer with one letter: a, b, c.", None),
        ("mistake", "Exercise t.6: not yet. (a) that is the sum", "a"),
    ]
    assert Choice("t.7", "?", "a", {"b": "no"}).evaluate("a").message == "Exercise t.7: ✓ correct."


def planted(x):
    return -x   # the planted sign


def planted_and_printed(x):
    print(x)
    return -x


def test_a_trial_says_each_verdict_in_words():
    from attention_lab.checks import Correct, Trial
    verdicts = {"right": None, "noted": Correct("the scale is still unseen"), "plain": Correct(""),
                planted: "sign", planted_and_printed: "sign", "halved": "halved",
                "raised": "your function raised KeyError: 1"}
    trial = Trial("t.8", "?", "debug", solution=lambda: None, judge=verdicts.get,
                  mistakes={"sign": (lambda: None, "look at the sign"), "halved": (lambda: None, "why / 2?")},
                  handed_out="sign", handed_out_source="def planted(x):\n\n  return -x\n")
    said = [(r.status, r.message, r.mistake) for r in map(trial.evaluate, [
        None, ..., "right", "noted", "plain", planted, planted_and_printed, "halved", "raised"])]
    assert said == [
        ("unanswered", "Exercise t.8: not answered yet.", None),
        ("unanswered", "Exercise t.8: not answered yet.", None),
        ("correct", "Exercise t.8: ✓ correct.", None),
        ("correct", "Exercise t.8: ✓ correct. the scale is still unseen", None),
        ("correct", "Exercise t.8: ✓ correct.", None),
        ("unanswered", "Exercise t.8: not yet. Hint: look at the sign", "sign"),     # as handed out
        ("mistake", "Exercise t.8: not yet. Hint: look at the sign", "sign"),        # a print added
        ("mistake", "Exercise t.8: not yet. Hint: why / 2?", "halved"),
        ("wrong", "Exercise t.8: your function raised KeyError: 1", None),
    ]
    other = Trial("t.9", "?", "debug", solution=lambda: None, judge=lambda fn: "halved",
                  mistakes={"sign": (lambda: None, "look at the sign"), "halved": (lambda: None, "why / 2?")},
                  handed_out="sign", handed_out_source="def planted(x):\n    return -x\n")
    assert other.evaluate(planted).status == "mistake"            # untouched, but not the handed-out mistake


def test_a_trials_quick_test_rules_out_answers_before_the_judge_sees_them():
    """Trial.accepts_each: the exercise's `may_pass` gets the stack as floats (a NaN or a log of 0 in it
    raises no warning) and the judge is asked only about the answers it let through; without `may_pass`
    the judge is asked about every answer. The verdicts are bools, one per answer."""
    from attention_lab.checks import Trial
    asked, quick = [], []

    def judge(answer):
        asked.append(np.asarray(answer).tolist())
        return None if np.sum(answer) > 0 else "not positive"

    def may_pass(stack):
        quick.append(stack.dtype)
        return np.log(stack.sum(axis=1)) > -np.inf                    # log of 0 or of -2: no warning

    answers = np.array([[1, 2], [-3, 1], [0, 0], [2, -1]])
    for given, judged in [(may_pass, [[1, 2], [2, -1]]), (None, answers.tolist())]:
        asked.clear()
        trial = Trial("t.1", "?", "design", solution=lambda: np.zeros(2), judge=judge, mistakes={},
                      may_pass=given)
        ticks = trial.accepts_each(answers)
        assert ticks.dtype == bool and ticks.tolist() == [True, False, False, True]
        assert asked == judged
        nothing = trial.accepts_each(answers[:0])
        assert nothing.dtype == bool and nothing.shape == (0,)
    assert quick == [np.float64, np.float64]
    with pytest.raises(TypeError) as kind:
        trial.accepts_each(np.array([["1", "2"]]))
    assert str(kind.value) == "accepts_each: answers of dtype <U1; expected numbers (bool, int or float), " \
                              "stacked on a first axis"
    with pytest.raises(ValueError) as shape:
        trial.accepts_each(np.zeros((8, 3)))
    assert str(shape.value) == "accepts_each: answers of shape (8, 3); expected (N, *(2,)): answers of the " \
                               "solution's shape, stacked on a first axis"


def test_untouched_compares_tokens_only():
    from attention_lab.checks import untouched
    assert untouched(planted, "def planted(x):\n    return -x\n")
    assert untouched(planted, "    def planted(x):\n\n        # a comment\n        return -x")   # indented
    assert not untouched(planted, "def planted(x):\n    return x\n")
    assert not untouched(planted, None)
    assert not untouched(planted, "def planted(x:\n    return -x\n")            # does not tokenize
    assert not untouched(len, "len")                                              # no source to read
    made = {}
    exec("def planted(x):\n    return -x\n", made)
    assert not untouched(made["planted"], "def planted(x):\n    return -x\n")      # made by exec


def test_named_gives_a_known_mistakes_hint():
    from attention_lab.checks import Result
    assert _weights_exercise().named("swapped") == \
        Result("mistake", "Exercise t.3: not yet. Hint: which key scores higher?", "swapped")


def test_an_answer_exactly_0_005_off_still_counts():
    """'within 0.005' includes 0.005 itself (np.isclose's test is <= too): 0.005 - 0 is exactly 5e-3."""
    ex = Exercise("t.10", "?", lambda: np.array([0.0, 1.0]))
    assert ex.evaluate([0.005, 1.0]).status == "correct" and ex.accepts([0.005, 1.0])
    assert ex.accepts_each(np.array([[0.005, 1.0], [0.0051, 1.0]])).tolist() == [True, False]


def test_accepts_each_says_what_it_expected_in_full():
    ex = Exercise("t.11", "?", lambda: np.array([1.0, -2.0, 0.5]))
    with pytest.raises(ValueError) as shape:
        ex.accepts_each(np.zeros((8, 2)))
    assert str(shape.value) == "accepts_each: answers of shape (8, 2); expected (N, *(3,)): answers of the " \
                               "solution's shape, stacked on a first axis"
    with pytest.raises(TypeError) as kind:
        ex.accepts_each(np.array([["1", "2", "3"]]))
    assert str(kind.value) == "accepts_each: answers of dtype <U1; expected numbers (bool, int or float), " \
                              "stacked on a first axis"


def test_a_choices_wrong_letters_are_its_known_mistakes():
    """What `answer_keys.mistakes_of` shows a teacher for a predict exercise: each wrong letter, with the
    letter itself as the wrong answer and its reason."""
    import dataclasses

    from attention_lab.checks import Choice
    choice = Choice("t.12", "?", "b", {"c": "that ignores the scale", "a": "that is the sum"})
    (holder,) = [f.name for f in dataclasses.fields(choice) if f.metadata.get("mistakes")]
    assert {letter: (wrong(), why) for letter, (wrong, why) in getattr(choice, holder).items()} == \
        {"a": ("a", "that is the sum"), "c": ("c", "that ignores the scale")}
