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
