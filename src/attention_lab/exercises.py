"""Every exercise of lessons 00-09, each with its checked answer and a hint per typical mistake.

Kinds: 'compute' (fresh data), 'predict' (a letter, a reason for each wrong one), 'design' (the check
runs the student's matrix or mask) and 'debug' (the check runs the student's fixed function on fresh
inputs). No exercise is passed by a value the lesson has already computed (tests/test_exercises.py).
"""

from __future__ import annotations

import numpy as np

from .checks import TOLERANCE, Choice, Exercise, ShortcutLocked, Trial, differences, switched_off
from .examples import cats_chase_mice, the_cat_sat
from .heads import multi_head_unchecked
from .masks import causal_mask
from .matrix import scaled_dot_product_attention, softmax
from .positions import rope_unchecked
from .sources import source_004


def _as_numbers(answer, shape: tuple[int, ...], what: str) -> np.ndarray | str:
    """The student's answer as a finite float array of `shape`, or a message saying what was expected."""
    try:
        got = np.array(answer, dtype=float)
    except (TypeError, ValueError):
        return f"expected {what} of shape {shape}, got {type(answer).__name__}."
    if got.shape != shape:
        return f"expected {what} of shape {shape}, got shape {got.shape}."
    if not np.isfinite(got).all():
        return f"your {what} has the right shape {shape}, but contains NaN or inf: use finite numbers."
    return got


SHORTCUTS = ("attend_one", "scaled_dot_product_attention", "self_attention", "multi_head_attention",
             "cross_attention", "decoder_step", "decode_with_cache", "generate", "transformer_block",
             "rope", "sinusoidal_positions", "numerical_gradient", "attention_backward", "loss_and_grads")
"""Package functions that would do a debug exercise in one call: switched off while a judge runs the
student's function (an exercise may switch off more, e.g. `softmax` where the bug is in the softmax)."""


def _run(fn, *args, locked: tuple[str, ...] = SHORTCUTS) -> np.ndarray | str:
    """Call a student's function on copies of fresh inputs, with the `locked` package functions switched
    off: its result as an array, or a message."""
    if not callable(fn):
        return f"expected your fixed function itself (no brackets), got {type(fn).__name__}."
    try:
        with np.errstate(all="ignore"), switched_off(fn, locked):
            return np.asarray(fn(*(np.array(a) for a in args)), dtype=float)
    except ShortcutLocked as exc:
        return f"{exc} (the check switches it off while it runs your function)."
    except Exception as exc:     # a student's function may fail in any way: report it, never crash
        return f"your function raised {type(exc).__name__}: {exc}"


def _same(a, b) -> bool:
    return isinstance(a, np.ndarray) and a.shape == np.shape(b) and np.allclose(a, b, equal_nan=True)


def _hinted(wrong: dict, hints: dict[str, str]) -> dict:
    """A Trial's known mistakes: each wrong answer (by name) with its hint."""
    answers = {name: w[0] if isinstance(w, tuple) else w for name, w in wrong.items()}
    return {name: (lambda answer=answers[name]: answer, hint) for name, hint in hints.items()}


def _outcome(f, args):
    """What a reference or wrong version gives on `args`: an array, or 'raised <Error>'."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(f(*(np.array(a) for a in args)), dtype=float)
    except Exception as exc:     # a wrong version (like a student's) may fail on some inputs
        return f"raised {type(exc).__name__}"


def _judge_fix(reference, wrong: dict, inputs: list[tuple], expected: str,
               locked: tuple[str, ...] = SHORTCUTS, close=_same, atol: float = TOLERANCE):
    """The judge of a debug exercise: run the student's function on every fresh input (with the `locked`
    package functions switched off); right if it agrees with `reference` on all of them (by `close`),
    else the name of the wrong version it agrees with (the same numbers, or an error on the same
    inputs), else a message saying what differs."""
    def agrees(outs, f, same=close):
        for out, args in zip(outs, inputs):
            theirs = _outcome(f, args)
            if isinstance(theirs, str):
                if not (isinstance(out, str) and out.startswith(f"your function {theirs}")):
                    return False
            elif isinstance(out, str) or not same(out, theirs):
                return False
        return True

    def judge(fn):
        outs = [_run(fn, *args, locked=locked) for args in inputs]
        if not any(isinstance(out, str) for out in outs) and agrees(outs, reference):
            return None
        named = [name for name, f in wrong.items()
                 if agrees(outs, *(f if isinstance(f, tuple) else (f, _same)))]
        if named:
            return named[0]
        failed = [out for out in outs if isinstance(out, str)]
        if failed:
            return failed[0]
        for out, args in zip(outs, inputs):
            ref = _outcome(reference, args)
            if out.shape != ref.shape:
                return f"on fresh inputs your function returns shape {out.shape}, not {ref.shape}: {expected}"
            if not close(out, ref):
                return (f"on fresh inputs your function returns the right shape {out.shape}, but "
                        f"{differences(out, ref, atol)}: {expected}")
        return f"on fresh inputs your function does not agree with the reference: {expected}"
    return judge


# fresh sentences for 01.3 (features: noun, verb, animal, small): in each, the last word is the only
# one that is a noun and small; a distractor has as many features as it (or more) without being both
FRESH_013 = (
    np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]),   # hunts-like noun
    np.array([[0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0],
              [1.0, 0.0, 1.0, 1.0]]),                                              # a small non-noun
)


def _design_01():
    """01.3: a W_q with which 'small' listens most to 'mice' (weight > 0.7), keys = X, no scaling; on
    fresh sentences small must still prefer the word that is a noun and small."""
    ex = cats_chase_mice()
    X = ex.X

    def weights(W, X_=X, who=2):
        return softmax((X_[who] @ W) @ X_.T)               # (n,) small's weights, W_k = I, scale 1

    def solution():
        W = np.zeros((4, 4))
        W[3, 0] = W[3, 3] = 2.0                            # small asks: "a noun? and small?"
        return W

    def small_of(X_):
        return int(np.flatnonzero((X_ == [0, 0, 0, 1]).all(axis=1))[0])

    def judge(answer):
        try:
            W = np.array(answer, dtype=float)
        except (TypeError, ValueError):
            return f"expected a 4 × 4 matrix of numbers, got {type(answer).__name__}."
        if W.shape != (4, 4):
            return (f"expected a 4 × 4 matrix (rows: features of x, columns: what the query "
                    f"asks for), got shape {W.shape}.")
        if not np.isfinite(W).all():
            return "your W_q has the right shape (4, 4), but contains NaN or inf: use finite numbers."
        if np.array_equal(W, ex.W_q):
            return "lesson's W_q"
        w = weights(W)
        wins = np.argmax(w) == 3 and w[3] - np.sort(w)[-2] > 1e-9
        if wins and w[3] > 0.7:
            for X_ in FRESH_013:
                wf = weights(W, X_, small_of(X_))
                if not (np.argmax(wf) == len(X_) - 1 and wf[-1] - np.sort(wf)[-2] > 1e-9):
                    return "more features"
            return None
        wt = weights(W.T)
        if np.argmax(wt) == 3 and wt[3] > 0.7 and wt[3] - np.sort(wt)[-2] > 1e-9:
            return "transposed"
        if not W[3].any():
            return "empty row"
        top = w.max() - 1e-12
        if np.isclose(w[0], w[3]) and w[3] >= top and w[3] > max(w[1], w[2]) + 1e-9:
            return "noun only"
        if np.isclose(w[2], w[3]) and w[3] >= top and w[3] > max(w[0], w[1]) + 1e-9:
            return "small only"
        if wins:
            return "too weak"
        return (f"with your W_q, small's weights are {np.round(w, 3)}: mice (the last) must get the "
                "most, more than 0.7. Row 'small' of W_q decides what small's query asks for.")

    def only(col, value=2.0):
        W = np.zeros((4, 4))
        W[3, col] = value
        return W

    weak = solution() * 0.2
    return Trial("01.3", "Design W_q so that 'small' listens most to 'mice'.", "design", solution, judge, {
        "transposed": (lambda: solution().T,
                       "your matrix works when transposed: row i of W_q belongs to feature i of x "
                       "(q = x @ W_q), so small's question goes in row 'small' (index 3)."),
        "lesson's W_q": (lambda: ex.W_q,
                         "this is the lesson's W_q: small's row asks only 'noun?', so cats and mice tie. "
                         "Ask for a second feature that only mice has."),
        "noun only": (lambda: only(0),
                      "cats and mice tie, ahead of chase and small: both are nouns. Ask for a second "
                      "feature that only mice has."),
        "small only": (lambda: only(3),
                       "small ties with mice: x_small · x_small = x_small · x_mice = 1. Asking only "
                       "'small?' cannot separate them; ask for 'noun' too."),
        "empty row": (lambda: np.diag([1.0, 1.0, 1.0, 0.0]),
                      "row 'small' (index 3) of your W_q is zero, so small's query is zero: every score "
                      "is 0 and all four words tie at 0.25. Small's question goes in that row."),
        "too weak": (lambda: weak,
                     "mice wins, but by too little: make your entries larger, so that the softmax "
                     "decides more sharply."),
        "more features": (lambda: np.ones((4, 4)) * 3.0,
                          "mice wins here, but on a fresh sentence small listens as much (or more) to "
                          "a word that is not a small noun: your query rewards features that other "
                          "words have too. Ask for exactly what makes mice the target: noun and "
                          "small."),
    })


def _debug_01():
    """01.4: weights_of(q, K) has one planted bug; the check runs the fix on fresh inputs."""
    rng = np.random.default_rng(14)
    q, K = rng.standard_normal(3), rng.standard_normal((5, 3))   # fresh: nowhere in the lesson
    big = q * (1000.0 / (K @ q).max())                            # top score 1000: exp(1000) overflows

    def reference(q_, K_):
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / e.sum()

    def planted(q_, K_):                      # the function printed in the lesson, bug included
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / e.max()

    def no_max(q_, K_):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(K_ @ q_)
            return e / e.sum()

    def no_exp(q_, K_):
        s = K_ @ q_
        return s / s.sum()

    judge = _judge_fix(reference, {"planted": planted, "no exp": no_exp, "no max": no_max},
                       [(q, K), (big, K)], "expected 5 weights, positive and summing to 1 (a softmax "
                       "of the scores K @ q), also for very large scores.")

    return Trial("01.4", "Fix weights_of: one line is wrong.", "debug", lambda: reference, judge, {
        "planted": (lambda: planted,
                    "still the planted bug. Print weights_of(q, K) for a small q and K: what do "
                    "the weights add up to, and what should they add up to?"),
        "no max": (lambda: no_max,
                   "right on small scores, but scores near 1000 overflow exp and give nan: keep "
                   "subtracting the maximum score before exp."),
        "no exp": (lambda: no_exp,
                   "the scores divided by their sum can be negative and do not follow the softmax: "
                   "take exp of each score first."),
    })


def _lesson00():
    W_t = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])   # nn.Linear(3, 2).weight: (out, in)
    return [
        Exercise(
            "00.1", "The shape of Q Kᵀ for n = 7 tokens and d_k = 16, as [rows, columns].",
            lambda: np.array([7, 7]),
            {"shape of Q": (lambda: np.array([7, 16]),
                            "(7, 16) is the shape of Q (or K); Q Kᵀ compares every token with every "
                            "token: (n, d_k) @ (d_k, n)."),
             "Q transposed first": (lambda: np.array([16, 16]),
                                    "(16, 16) would be Qᵀ K; the scores are Q @ K.T, one row per "
                                    "query."),
             "shape of K.T": (lambda: np.array([16, 7]),
                              "(16, 7) is the shape of Kᵀ, the right factor; the product keeps the rows "
                              "of Q (7) and the columns of Kᵀ (7).")}),
        Exercise(
            "00.2", "nn.Linear(3, 2) stores weight = [[1, 2, 3], [4, 5, 6]]. Give our W (3 × 2).",
            lambda: W_t.T,
            {"PyTorch layout": (lambda: W_t,
                                "that is PyTorch's layout (out_features, in_features) = (2, 3); ours "
                                "is (in, out): the transpose."),
             "reshaped": (lambda: W_t.reshape(3, 2),
                          "reshape keeps the numbers in reading order; you need the transpose, "
                          "weight.T (or al.from_torch_linear)."),
             "columns swapped": (lambda: W_t.T[:, ::-1],
                                 "the transpose puts weight's row 0, (1, 2, 3), in column 0 of W: "
                                 "W[i, j] = weight[j, i].")}),
        Exercise(
            "00.3", "Which row of X (a Python index) holds the token x₃?",
            lambda: np.array(2),
            {"counted from 1": (lambda: np.array(3),
                                "maths counts tokens from 1, Python from 0: x₃ is X[2]."),
             "one too few": (lambda: np.array(1),
                             "X[1] is x₂; x₃ is one further, X[2].")}),
    ]


X5 = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, -1.0]])    # exercise 01.5: fresh tokens, as rows
Wq5 = np.array([[1.0, 1.0], [0.0, 1.0]])                 # in a column-vector text: q = Wq5 x
V5 = np.array([[0.0, 2.0], [1.0, 0.0], [-1.0, 1.0]])     # the values; the text prints only v_1, v_2


def _softmax_1d(s):
    e = np.exp(s - s.max())
    return e / e.sum()


def y1_of_01_5() -> np.ndarray:
    """The output y_1 the text prints (its v_3 is smudged): the student recovers v_3 from it."""
    return _softmax_1d(X5 @ (Wq5 @ X5[0])) @ V5


def _missing_value(q_of=lambda x: Wq5 @ x, who=0, scale=1.0, divide=True):
    """v_3 recovered from y_1 = sum_j w_1j v_j, with the weights computed one way or another."""
    w = _softmax_1d(X5 @ q_of(X5[who]) * scale)
    rest = y1_of_01_5() - w[0] * V5[0] - w[1] * V5[1]
    return rest / w[2] if divide else rest


def _lesson01():
    X = cats_chase_mice().X
    return [
        Exercise(
            "01.1", "Without any W matrices, compute the weights w₃ⱼ of token 3 ('small').",
            lambda: softmax(X @ X[2]),
            {"raw scores": (lambda: X @ X[2],
                            "these are the scores x₃·xⱼ; turn them into weights with softmax."),
             "off by one (x₂)": (lambda: softmax(X @ X[1]),
                                 "these are the weights of token 2; Python counts from 0, so "
                                 "token 3 is X[2]."),
             "off by one (x₄)": (lambda: softmax(X @ X[3]),
                                 "these are the weights of token 4; Python counts from 0, so "
                                 "token 3 is X[2], not X[3]."),
             "no exp": (lambda: (X @ X[2]) / (X @ X[2]).sum(),
                        "you divided the scores by their sum; softmax takes exp of each score "
                        "first, then divides by the sum of the exps.")}),
        Choice("01.2", "Double every entry of W_q. What happens to chase's weights?", "b", {
            "a": "the scores q·k double too, and the softmax of doubled scores is not the same: "
                 "it is sharper (try the temperature slider of lesson 00).",
            "c": "doubling makes the differences between scores larger, so the softmax gets "
                 "sharper, not flatter.",
            "d": "the weights are equal only when every score is equal; doubling keeps the "
                 "scores of cats and mice (2 → 4) apart from the others (0)."}),
        _design_01(),
        _debug_01(),
        Exercise(
            "01.5", "Column-convention text: recover the smudged value v_3 from the printed y_1 "
                    "(no scaling).", _missing_value, {
             "no transpose": (lambda: _missing_value(q_of=lambda x: x @ Wq5),
                              "your weights come from q = x @ W_q. The text writes q = W x with column "
                              "vectors; for our rows that is x @ W.T (al.from_column_convention(W))."),
             "weights of token 2": (lambda: _missing_value(who=1),
                                    "you used the weights of token 2; y_1 is the output of x_1, X[0] "
                                    "in Python."),
             "not divided by w_13": (lambda: _missing_value(divide=False),
                                     "you found w_13 v_3 = y_1 - w_11 v_1 - w_12 v_2; divide by the "
                                     "weight w_13 to get v_3 itself."),
             "scaled": (lambda: _missing_value(scale=2 ** -0.5),
                        "you divided the scores by √2; this text uses no scaling."),
             "y_1 itself": (y1_of_01_5, "that is y_1, the printed output; the question asks for the "
                                       "value v_3 hidden in it.")}),
    ]


# ---------------------------------------------------------------- lesson 02 · the matrix form
def _design_02():
    """02.2: a query for the soft lookup of lesson 02 that blends apple and cherry half and half."""
    def weights(q):
        return softmax(q @ np.eye(3))                     # (3,) keys: one-hot fruits, no scaling

    def judge(answer):
        q = _as_numbers(np.ravel(answer) if not isinstance(answer, str) else answer, (3,), "a query")
        if isinstance(q, str):
            return q
        w = weights(q)
        even = abs(w[0] - w[2]) <= 0.01
        if even and w[1] <= 0.01:
            return None
        if w[1] >= w.max() - 1e-12:
            return "banana"
        if even:
            return "too weak"
        if w[1] <= 0.01:
            return "uneven"
        return (f"with your query the weights are {np.round(w, 3)} (apple, banana, cherry): apple and "
                "cherry must be within 0.01 of each other, banana below 0.01. Give apple and cherry "
                "the same large entry.")

    return Trial("02.2", "Design a query whose soft lookup is half apple, half cherry.", "design",
                 lambda: np.array([6.0, 0.0, 6.0]), judge, {
        "too weak": (lambda: np.array([1.0, 0.0, 1.0]),
                     "apple and cherry are even, but banana still takes more than 0.01 of the weight. "
                     "Scale your query up: a sharper query leaves less for banana."),
        "uneven": (lambda: np.array([8.0, 0.0, 6.0]),
                   "banana is out, but apple and cherry differ by more than 0.01: they need the same "
                   "score, so give them the same entry."),
        "banana": (lambda: np.array([0.2, 1.0, 0.1]),
                   "this query still looks for banana (the lesson's query). Each entry of q is the "
                   "score of one fruit: raise apple's and cherry's, not banana's."),
    })


def _debug_02():
    """02.3: attention(Q, K, V) normalises the wrong axis; the check runs the fix on fresh inputs."""
    rng = np.random.default_rng(23)
    Q, K, V = rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))

    Q3, K3, V3 = rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal((3, 2))

    def make(axis=-1, divide=np.sqrt, transpose=True):
        def attention(Q_, K_, V_):
            S = Q_ @ (K_.T if transpose else K_) / divide(K_.shape[1])
            return softmax(S, axis=axis) @ V_
        return attention

    wrong = {"planted": make(axis=0), "no scaling": make(divide=lambda d: 1.0),
             "divided by d_k": make(divide=float), "K not transposed": make(transpose=False),
             "planted, K not transposed": make(axis=0, transpose=False)}

    judge = _judge_fix(make(), wrong, [(Q, K, V), (Q3, K3, V3)], "expected softmax(Q Kᵀ / √d_k) V, "
                       "shape (2, 2) for 2 queries and 4 keys (and (3, 2) for 3 queries and 3 keys).")

    return Trial("02.3", "Fix attention(Q, K, V): one line is wrong.", "debug", make, judge, _hinted(wrong, {
        "planted": "still the planted bug. Print the weights' sums along each axis: which sums are "
                   "1, and which should be? Each query's row must sum to 1.",
        "no scaling": "the weights now sum to 1 per row, but you removed the division by √d_k.",
        "divided by d_k": "you divide by d_k; the formula divides by its square root, √d_k.",
        "K not transposed": "your scores are Q @ K: with 2 queries and 4 keys that fails, and with 3 "
                            "and 3 it runs but mixes the wrong numbers. Score i, j is q_i · k_j: "
                            "Q @ K.T.",
        "planted, K not transposed": "two things: K is not transposed (the scores are Q @ K.T), and "
                                     "the softmax still runs down the columns (axis=0).",
    }))


X24 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])   # exercise 02.4: fresh tokens
Wq24 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
V24 = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 1.0]])     # the values the student recovers


def _weights_02_4(scale=3 ** -0.5, axis=-1, transpose_K=True):
    S = (X24 @ Wq24) @ (X24.T if transpose_K else X24) * scale          # W_k = I
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def Y_of_02_4() -> np.ndarray:
    """The output Y the exercise prints: the student recovers V from it and the weights."""
    return _weights_02_4() @ V24


def _lesson02():
    def V(left=True, **how):
        A = _weights_02_4(**how)
        return np.linalg.solve(A, Y_of_02_4()) if left else np.linalg.solve(A.T, Y_of_02_4())

    return [
        Choice("02.1", "Two tokens have identical rows in X. What do you see in A?", "c", {
            "a": "equal columns is half of it: equal rows of X also give equal queries, and so equal "
                 "rows of A.",
            "b": "equal rows is half of it: equal rows of X also give equal keys, and every query "
                 "scores them the same, so their columns are equal too.",
            "d": "A is symmetric only in special cases (such as W_q = W_k and no softmax); "
                 "the softmax normalises each row on its own."}),
        _design_02(),
        _debug_02(),
        Exercise(
            "02.4", "Fresh tokens: Y = softmax(Q Kᵀ / √3) V is printed; recover the values V (3 × 2).",
            V, {
                "no scaling": (lambda: V(scale=1.0), "your weights forgot to divide the scores by "
                                                     "√d_k = √3."),
                "divided by d_k": (lambda: V(scale=1 / 3),
                                   "you divided the scores by d_k = 3; the formula divides by its "
                                   "square root, √3."),
                "wrong axis": (lambda: V(axis=0),
                               "your softmax ran down the columns; each query's row of A must sum to 1."),
                "K not transposed": (lambda: V(transpose_K=False),
                                     "your scores are Q @ K, not Q @ K.T: row i of the scores must "
                                     "hold q_i · k_j for every key j, so transpose K."),
                "A transposed": (lambda: V(left=False),
                                 "you solved Aᵀ V = Y; the outputs are Y = A V (row i of Y mixes the "
                                 "values with row i of A): np.linalg.solve(A, Y)."),
                "Y itself": (Y_of_02_4, "that is Y, the printed output; recover the values V it mixes."),
            }),
    ]


# ---------------------------------------------------------------- lesson 03 · many heads
def _design_03():
    """03.2: a W_q whose head 1 looks two tokens back instead of one; head 2 unchanged."""
    ex = the_cat_sat()
    t = ex.theta
    back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])     # row form: p -> p - 1

    def weights(W):
        return multi_head_unchecked(ex.X, ex.X, W, ex.W_k, ex.W_v, ex.W_O, 2, None, 1 / np.sqrt(2))[1]

    def with_head1(block):
        W = ex.W_q.copy()
        W[:2, :2] = block
        return W

    reference = weights(ex.W_q)
    queries = np.arange(2, 6)                                # sat, on, the, mat: two tokens back exist

    def finds(w, shift):
        return (np.argmax(w[0][queries], axis=1) == queries - shift).all()

    def judge(answer):
        W = _as_numbers(answer, (4, 4), "a W_q")
        if isinstance(W, str):
            return W
        w = weights(W)                                       # (2, 6, 6)
        if not np.allclose(w[1], reference[1]):
            return "head 2 changed" if finds(w, 2) else "both"
        if finds(w, 2):
            return None if w[0][queries, queries - 2].min() >= 0.5 else "too weak"
        if finds(w, 1):
            return "previous" if np.allclose(W, ex.W_q) else "still previous"
        if (np.argmax(w[0][:5], axis=1) == np.arange(1, 6)).all():
            return "next"
        return (f"head 1's weights two tokens back are {np.round(w[0][queries, queries - 2], 2)} "
                "(for sat, on, the, mat): each must be the largest in its row, at least 0.5.")

    two_back = back @ back                                   # turn back twice: p -> p - 2
    return Trial("03.2", "Design W_q so that head 1 looks two tokens back; head 2 keeps its job.",
                 "design", lambda: with_head1(8.0 * two_back), judge, {
        "previous": (lambda: ex.W_q,
                     "head 1 still finds the previous token (this is the lesson's W_q): it turns each "
                     "position back by one step, θ. Two tokens back is a turn by 2θ."),
        "still previous": (lambda: with_head1(16.0 * back),
                           "head 1 still finds the previous token: its block turns each position back "
                           "by one step, θ (a larger factor only sharpens it). Two tokens back is a "
                           "turn by 2θ."),
        "next": (lambda: ex.W_q.T,
                 "head 1 now finds the next token: transposing a rotation turns it the other way. "
                 "You need two steps back, a turn by 2θ."),
        "too weak": (lambda: with_head1(two_back),
                     "the right token wins, but with less than 0.5: multiply head 1's block by a "
                     "larger number (the lesson used 8) to make the softmax decide."),
        "head 2 changed": (lambda: np.block([[8.0 * two_back, np.zeros((2, 2))],
                                             [np.zeros((2, 2)), np.zeros((2, 2))]]),
                           "head 1 works, but head 2's block (rows and columns 2-3) changed: keep it "
                           "as in the lesson's W_q."),
        "both": (lambda: np.block([[np.zeros((2, 2)), 8.0 * two_back],
                                   [np.zeros((2, 2)), np.zeros((2, 2))]]),
                 "head 2's weights changed (its columns 2-3 of W_q must stay as in the lesson), and "
                 "head 1 does not look two tokens back yet. Head 1 owns columns 0-1 of W_q; the rows "
                 "are the input features (position in rows 0-1)."),
    })


def _debug_03():
    """03.3: split(M, h) reshapes without moving the heads' axis; the check runs the fix on fresh M."""
    rng = np.random.default_rng(33)
    M1, M2 = rng.standard_normal((5, 6)), rng.standard_normal((4, 4))     # (n, d): h = 3, then h = 2

    def right(M, h):
        d = M.shape[1]
        return np.stack([M[:, i * (d // h):(i + 1) * (d // h)] for i in range(h)])   # (h, n, d_k) blocks

    def planted(M, h):
        n, d = M.shape
        return M.reshape(h, n, d // h)

    def no_transpose(M, h):
        n, d = M.shape
        return M.reshape(n, h, d // h)

    def interleaved(M, h):
        n, d = M.shape
        return M.reshape(n, d // h, h).transpose(2, 0, 1)

    wrong = {"planted": planted, "no transpose": no_transpose, "interleaved": interleaved}

    judge = _judge_fix(right, wrong, [(M1, 3), (M2, 2)], "expected (3, 5, 2) for a (5, 6) array and "
                       "h = 3, head i holding columns 2i and 2i+1 of every token.")

    return Trial("03.3", "Fix split(M, h): one line is wrong.", "debug", lambda: right, judge, {
        "planted": (lambda: planted,
                    "still the planted bug: the shape is right, but the numbers are not. Compare "
                    "split(M, h)[0] with M[:, :d // h], head 0's d_k columns, for a small M = "
                    "np.arange(12).reshape(3, 4)."),
        "no transpose": (lambda: no_transpose,
                         "the blocks are right but in shape (n, h, d_k); the heads' axis must come first: "
                         "move it with .transpose(1, 0, 2)."),
        "interleaved": (lambda: interleaved,
                        "your head i takes every h-th column; a head takes d_k neighbouring columns, "
                        "i*d_k to (i+1)*d_k: reshape to (n, h, d_k) first."),
    })


X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])   # 03.4: fresh
Wq34 = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0]])
Wo34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])


def _lesson03():
    I4 = np.eye(4)

    def out(h=2, W_O=Wo34, scale=2 ** -0.5):
        return multi_head_unchecked(X34, X34, Wq34, I4, I4, W_O, h, None, scale)[0]

    def heads(scale=2 ** -0.5):                                     # (2, 3, 2) each head's output
        Q = X34 @ Wq34
        return np.array([softmax(Q[:, c] @ X34[:, c].T * scale) @ X34[:, c]
                         for c in (slice(0, 2), slice(2, 4))])

    def part(keep=0, order=(0, 1), W_O=Wo34, scale=2 ** -0.5):     # one head's part of the output
        H = heads(scale)
        concat = np.zeros((3, 4))
        slot = order.index(keep)                                     # where that head was put
        concat[:, 2 * slot:2 * slot + 2] = H[keep]
        return concat @ W_O

    def one_head_part():
        Y = softmax((X34 @ Wq34) @ X34.T * 0.5) @ X34                 # one head of width 4
        return np.hstack([Y[:, :2], np.zeros((3, 2))]) @ Wo34

    return [
        Choice("03.1", "Same W_q, W_k, W_v, W_O; 4 heads instead of 2. What changes?", "b", {
            "a": "the number of parameters stays the same: W_q, W_k, W_v and W_O are still four "
                 "d_model × d_model matrices. Only the grouping of their columns into heads changes.",
            "c": "each head now has width 1 and its own softmax, over scores from one column instead "
                 "of two: different weights, so different outputs.",
            "d": "the outputs do change (each head has its own softmax), and the work is about the "
                 "same: the same products, cut into more pieces."}),
        _design_03(),
        _debug_03(),
        Exercise(
            "03.4", "Fresh tokens: 2 heads, W_k = W_v = I, the given W_q and W_O; compute head 1's "
                    "contribution to the output (head 2's part of the concatenation set to 0).",
            lambda: part(), {
                "both heads": (lambda: out(),
                               "that is the whole output, both heads' contributions added: keep only "
                               "head 1's, Concat(head_1, 0) @ W_O."),
                "head 2's part": (lambda: part(keep=1),
                                  "that is head 2's contribution: head 1 is the first head, columns 0-1 "
                                  "of Q, K and V."),
                "heads in the wrong order": (lambda: part(order=(1, 0)),
                                             "you concatenated the heads in the wrong order: head 1's "
                                             "output fills columns 0-1 of the concatenation, so it meets "
                                             "rows 0-1 of W_O."),
                "forgot W_O": (lambda: part(W_O=I4),
                               "this is Concat(head_1, 0) itself; finish with @ W_O."),
                "transposed W_O": (lambda: part(W_O=Wo34.T),
                                   "you used W_O.T; in the row convention it is Concat(heads) @ W_O."),
                "one head": (lambda: one_head_part(),
                             "that is one head of width 4 with its first two columns kept: split Q, K "
                             "and V into two heads of width 2 first, each with its own softmax, scaled "
                             "by 1/√2."),
                "scaled by 1/2": (lambda: part(scale=0.5),
                                  "each head is scaled by 1/√d_k with d_k = 2, its own width: 1/√2, "
                                  "not 1/2 (that would be 1/d_k, or 1/√d_model)."),
            }),
    ]


# ---------------------------------------------------------------- lesson 04 · masks, cross-attention
def _packed(causal=True, blocks=True) -> np.ndarray:
    """The mask of two sentences (tokens 0-2 and 3-5) packed into one sequence of 6."""
    same = np.kron(np.eye(2, dtype=bool), np.ones((3, 3), dtype=bool))
    return (causal_mask(6) if causal else True) & (same if blocks else True)


def _design_04():
    """04.2: a mask for two sentences packed into one sequence: causal, and blind to the other one."""
    rng = np.random.default_rng(42)
    Q, K, V = (rng.standard_normal((6, 3)) for _ in range(3))
    wrong = {"causal only": _packed(blocks=False), "blocks only": _packed(causal=False),
             "upper triangle": _packed().T, "inverted": ~_packed()}

    def judge(answer):
        M = _as_numbers(answer, (6, 6), "a mask")
        if isinstance(M, str):
            return M
        if not np.isin(M, (0, 1)).all():
            return "a mask holds True/False (or 1/0): True where the query may look at the key."
        M = M.astype(bool)
        if np.array_equal(M, ~_packed()):
            return "inverted"
        if not M.any(axis=1).all():
            return (f"row {int(np.argmin(M.any(axis=1)))} of your mask is all False: that query "
                    "could look at nothing. Every token may at least look at itself.")
        w = scaled_dot_product_attention(Q, K, V, mask=M)[1]          # run it: who listens to whom
        if np.array_equal(w > 0, _packed()):
            return None
        for name, m in wrong.items():
            if np.array_equal(M, m):
                return name
        extra = [(int(i), int(j)) for i, j in zip(*np.nonzero(M & ~_packed()))]
        missing = [(int(i), int(j)) for i, j in zip(*np.nonzero(~M & _packed()))]
        parts = [f"{what}, (i, j) = {pairs[:4]}" for what, pairs in (
            ("query i may look at key j where it must not", extra),
            ("query i may not look at key j where it should", missing)) if pairs]
        return ("with your mask " + "; ".join(parts) + ". A token sees itself and the earlier tokens "
                "of its own sentence, nothing else.")

    return Trial("04.2", "Design the mask for two sentences packed into one sequence of 6.", "design",
                 _packed, judge, _hinted(wrong, {
        "causal only": "the future is hidden, but the second sentence still sees the first: "
                       "combine with a block mask (& ) that keeps each sentence to itself.",
        "blocks only": "each sentence keeps to itself, but sees its own future: combine with the "
                       "causal mask, np.tril.",
        "upper triangle": "your mask is transposed: rows are queries, so row i may be True only at "
                          "columns j <= i.",
        "inverted": "your mask is the exact opposite: True where a token must not look. That is "
                    "PyTorch's convention (nn.MultiheadAttention: True = masked); here True means "
                    "'may look'.",
    }))


def _debug_04():
    """04.3: masked_weights multiplies by the mask; the check runs the fix on fresh scores."""
    rng = np.random.default_rng(43)
    S = 3 * rng.standard_normal((3, 4))
    mask = np.array([[True, False, True, False], [True, True, False, False], [False, True, True, True]])

    def right(S_, m):
        return softmax(np.where(m, S_, -np.inf))

    wrong = {"planted": lambda S_, m: softmax(S_ * m),
             "after softmax": lambda S_, m: softmax(S_) * m,
             "inverted": lambda S_, m: softmax(np.where(m, -np.inf, S_))}

    judge = _judge_fix(right, wrong, [(S, mask)], "expected weights that are 0 on masked keys and sum "
                       "to 1 in every row (a softmax over the allowed keys).")

    return Trial("04.3", "Fix masked_weights(S, mask): one line is wrong.", "debug", lambda: right, judge,
                 _hinted(wrong, {
        "planted": "still the planted bug: a masked score multiplied by False becomes 0, and "
                   "exp(0) = 1 is not 0. Replace masked scores with -inf instead.",
        "after softmax": "masking after the softmax leaves rows that no longer sum to 1: mask the "
                         "scores before it.",
        "inverted": "you hid the allowed keys and kept the masked ones: here True means 'may look'. "
                    "(PyTorch's nn.MultiheadAttention takes the opposite, True = masked: convert with "
                    "~mask.)",
    }))


Xd44 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])                    # 04.4: 2 fresh decoder tokens
Xe44 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])   # 3 + <pad>


def _lesson04():
    keys = np.arange(4) < 3                                  # the encoder's real tokens; <pad> is last

    def layer(causal="tril", pad="mask", scale=3 ** -0.5, first=True):
        """Causal self-attention of the decoder (W = I), then cross-attention to the encoder."""
        Y1 = Xd44
        if first:
            S = Xd44 @ Xd44.T * scale
            if causal == "tril":
                S = np.where(np.tril(np.ones((2, 2), dtype=bool)), S, -np.inf)
            Y1 = softmax(S) @ Xd44                           # (2, 3)
        S = (Y1 @ (2 * np.eye(3))) @ Xe44.T * scale          # (2, 4)
        allowed = {"mask": keys, "none": np.ones(4, dtype=bool), "inverted": ~keys}[pad]
        return softmax(np.where(allowed, S, -np.inf)) @ Xe44

    def swapped():
        """The encoder's real tokens as queries (W_q = 2I), Y_1 as keys and values: (3, 3)."""
        Y1 = softmax(np.where(np.tril(np.ones((2, 2), dtype=bool)), Xd44 @ Xd44.T / np.sqrt(3),
                              -np.inf)) @ Xd44
        return softmax((Xe44[:3] @ (2 * np.eye(3))) @ Y1.T / np.sqrt(3)) @ Y1

    return [
        Choice("04.1", "Replace the last French token 'dort' by another word. Which causal weights change?",
               "a", {
            "b": "the earlier queries are causal: 'le', 'chat' and 'noir' cannot see 'dort' at all, so "
                 "their rows do not change.",
            "c": "the last column above the diagonal is masked, 0 whatever 'dort' is; only 'dort' "
                 "itself looks at 'dort'.",
            "d": "the last row does change: its query is the new word's query, and it also sees its "
                 "own new key."}),
        _design_04(),
        _debug_04(),
        Exercise(
            "04.4", "A decoder layer: causal self-attention of the 2 decoder tokens (W = I), then "
                    "cross-attention from its output (W_q = 2I) to 3 encoder tokens + <pad> "
                    "(W_k = W_v = I), every score divided by √3; compute the output (2 × 3).",
            layer, {
                "skipped the self-attention": (
                    lambda: layer(first=False),
                    "your queries are the decoder tokens themselves: in this layer they are the "
                    "outputs of the causal self-attention, computed first."),
                "self-attention not causal": (
                    lambda: layer(causal="none"),
                    "the first decoder token saw the second one in the self-attention: mask the "
                    "future there (np.tril)."),
                "no padding mask": (lambda: layer(pad="none"),
                                    "'<pad>' took some weight: mask the padding key."),
                "inverted padding mask": (
                    lambda: layer(pad="inverted"),
                    "your mask keeps only '<pad>' and hides the real tokens: in this course True "
                    "means 'may look'. PyTorch's nn.MultiheadAttention (key_padding_mask, attn_mask "
                    "as booleans) uses the opposite: True = masked."),
                "divided by 3": (lambda: layer(scale=1 / 3),
                                 "you divided the scores by d_k = 3; divide by its square root, √3."),
                "no scaling": (lambda: layer(scale=1.0), "divide every score by √d_k = √3."),
                "queries and keys swapped": (
                    lambda: swapped(),
                    "your rows are encoder tokens: in cross-attention the queries come from the "
                    "decoder (here Y_1), the keys and values from the encoder."),
            }),
    ]


# ---------------------------------------------------------------- lesson 05 · word order, decoding
def _design_05():
    """05.2: a learned position table with which 'chase' listens to the word before it, and only that."""
    ex = cats_chase_mice()
    X = ex.X[[0, 1, 3]]                                  # cats chase mice
    orders = (X, X[[2, 1, 0]])                           # and mice chase cats

    def weights(table):                                  # (2 sentences, 3, 3)
        return np.array([softmax(((Xo + table) @ ex.W_q) @ ((Xo + table) @ ex.W_k).T / 2.0) for Xo in orders])

    def boost(row, col, value=3.0):
        T = np.zeros((3, 4))
        T[row, col] = value
        return T

    before = weights(np.zeros((3, 4)))
    wrong = {"last position": boost(2, 2), "not asked for": boost(0, 0), "too weak": boost(0, 2, 1.0),
             "others changed": boost(0, 2) + boost(0, 0)}

    def judge(answer):
        T = _as_numbers(answer, (3, 4), "a position table")
        if isinstance(T, str):
            return T
        w = weights(T)
        others_same = np.allclose(w[:, [0, 2]], before[:, [0, 2]], atol=1e-9)
        chase_works = (w[:, 1, 0] >= 0.9).all()
        if others_same and chase_works:
            return None
        for name, m in wrong.items():
            if np.allclose(T, m):
                return name
        if not others_same and chase_works:
            return "others changed"
        if others_same and (w[:, 1].argmax(axis=1) == 0).all():
            return "too weak"
        chase = (f"chase's weights are {np.round(w[0, 1], 2)} (cats chase mice) and "
                 f"{np.round(w[1, 1], 2)} (mice chase cats): position 0 (row 0 of the table) must get "
                 "at least 0.9 in both")
        if not others_same:
            return (f"with your table, {chase}; and cats' or mice's weights changed too. Change only "
                    "what chase's query asks about (column 2, 'animal').")
        return f"with your table, {chase}."

    return Trial("05.2", "Design a learned position table: chase listens to the word before it.", "design",
                 lambda: boost(0, 2), judge, _hinted(wrong, {
        "last position": "chase now prefers the word after it (position 2, counting from 0); the "
                         "subject stands before the verb, at position 0 (row 0 of the table).",
        "not asked for": "chase's query asks only about the feature 'animal' (column 2): adding to "
                         "'noun' does not help chase, and it changes what mice's query finds.",
        "too weak": "position 0 wins, but with less than 0.9 of chase's weight: add more to its "
                    "'animal' feature.",
        "others changed": "chase listens to the subject now, but cats' or mice's weights changed too: "
                          "mice's query asks "
                          "'noun?' and reads the other features. Touch only what chase asks about.",
    }))


def _debug_05():
    """05.3: decode(X, ...) uses the wrong query; the check compares with the masked computation."""
    rng = np.random.default_rng(53)
    X, W_q, W_k, W_v = (rng.standard_normal(s) for s in ((5, 4), (4, 4), (4, 4), (4, 3)))

    def reference(X_, Wq, Wk, Wv):
        return scaled_dot_product_attention(X_ @ Wq, X_ @ Wk, X_ @ Wv, mask=causal_mask(len(X_)))[0]

    def cached(query_of, scale=0.5):
        def decode(X_, Wq, Wk, Wv):
            K, V, Y = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1])), []
            for t, x in enumerate(X_):
                K, V = np.vstack([K, x @ Wk]), np.vstack([V, x @ Wv])
                Y.append(softmax(K @ (query_of(X_, t) @ Wq) * scale) @ V)
            return np.array(Y)
        return decode

    def inverted(package_softmax):                       # True taken as 'masked': each row sees its future
        def decode(X_, Wq, Wk, Wv):
            S = np.where(causal_mask(len(X_)), -np.inf, (X_ @ Wq) @ (X_ @ Wk).T * 0.5)
            if package_softmax:                          # the last row has no key left: al.softmax raises
                return softmax(S) @ (X_ @ Wv)
            E = np.exp(S - S.max(axis=1, keepdims=True))  # plain NumPy: the last row becomes nan
            return E / E.sum(axis=1, keepdims=True) @ (X_ @ Wv)
        return decode

    wrong = {"planted": cached(lambda X_, t: X_[-1]), "no scaling": cached(lambda X_, t: X_[t], 1.0),
             "divided by d_k": cached(lambda X_, t: X_[t], 0.25),
             "unmasked": lambda X_, Wq, Wk, Wv: softmax((X_ @ Wq) @ (X_ @ Wk).T * 0.5) @ (X_ @ Wv),
             "inverted mask": inverted(False), "inverted mask, al.softmax": inverted(True)}

    judge = _judge_fix(reference, wrong, [(X, W_q, W_k, W_v)], "expected (5, 3), the same as causal "
                       "self-attention computed at once: row t uses tokens 0..t only.")

    inverted_hint = ("your rows see the future and not the past: you took True as 'masked' (PyTorch's "
                     "nn.MultiheadAttention convention). Here True means 'may look', and a decoder step "
                     "sees only tokens 0..t.")
    return Trial("05.3", "Fix decode: one line is wrong.", "debug", lambda: cached(lambda X_, t: X_[t]),
                 judge, _hinted(wrong, {
        "planted": "still the planted bug: every step uses the query of the sequence's last token, "
                   "which a decoder has not seen yet. Step t must ask with its own token's query.",
        "no scaling": "the right query now, but the scores lost their division by √d_k.",
        "divided by d_k": "the right query now, but you divide the scores by d_k = 4; the formula "
                          "divides by its square root, √d_k = 2.",
        "inverted mask": inverted_hint,
        "inverted mask, al.softmax": inverted_hint + " (That is why al.softmax refused the last row: "
                                     "with your mask it has no key left to look at.)",
        "unmasked": "every row sees the whole sequence, future included: a decoder step sees only "
                    "the cache, tokens 0..t.",
    }))


q54 = np.array([[1.0, 0.0, 0.0, 1.0]])       # exercise 05.4: a fresh query at position 2
k54 = np.array([[0.0, 1.0, 1.0, 0.0]])       # and a fresh key at position 5


def _lesson05():
    def score(pq=2, pk=5, base=100.0, w1=None):
        if w1 is None:
            q, k = rope_unchecked(q54, np.array([pq]), base), rope_unchecked(k54, np.array([pk]), base)
            return (q @ k.T)[0, 0]
        w = np.array([1.0, w1])                          # pair i turns by position * w_i

        def turn(v, p):
            c, s_ = np.cos(p * w), np.sin(p * w)
            x, y = v[0, 0::2], v[0, 1::2]
            return np.ravel(np.column_stack([c * x - s_ * y, s_ * x + c * y]))
        return turn(q54, pq) @ turn(k54, pk)

    def both(**how):
        return np.array([score(2, 5, **how), score(5, 2, **how)])

    return [
        Choice("05.1", "A decoder without positions (causal mask) reads 'cats chase mice', then "
                       "'mice chase cats'. Which words keep their own output?", "c", {
            "a": "without the mask each output would move with its word; with it, a word sees only "
                 "itself and the words before it, and reversing changes who those are: mice sees all "
                 "three words when it is last, only itself when it is first.",
            "b": "chase stays in the middle, but the word before it changes (cats, then mice), so its "
                 "output changes too.",
            "d": "cats and mice swap places, and with them the words they see: the first word sees "
                 "only itself, the last sees all three."}),
        _design_05(),
        _debug_05(),
        Exercise("05.4", "RoPE scores, base 100: q = (1, 0, 0, 1) at position 2 with k = (0, 1, 1, 0) at "
                         "position 5, then q at 5 with k at 2.", lambda: both(), {
            "no rotation": (lambda: np.zeros(2),
                            "q · k without any rotation is 0: rotate each pair first."),
            "unsigned offset": (lambda: np.array([score(2, 5), score(2, 5)]),
                                "you gave the same score twice: the score depends on the signed offset "
                                "(key position minus query position), 3 and then -3, and rotating the "
                                "other way changes it."),
            "signs flipped": (lambda: np.array([score(5, 2), score(2, 5)]),
                              "your two scores have the wrong signs: either they are in the wrong order "
                              "(first q at 2, k at 5), or your pairs turned the wrong way; a pair "
                              "(x, y) turns to (x cos a - y sin a, x sin a + y cos a)."),
            "w_1 = 1/100": (lambda: both(w1=0.01),
                            "your second pair turned with w_1 = 1/100 (base 10000 gives that, and so "
                            "does 100^(-1)); with base 100 and d = 4, w_1 = 100^(-2·1/4) = "
                            "100^(-1/2) = 1/10."),
            "one pair": (lambda: both(w1=0.0),
                         "only your first pair turned: the second pair (entries 2 and 3) turns too, "
                         "by the position times w_1 = 1/10."),
            "one score, w_1 = 1/100": (lambda: score(w1=0.01),
                                       "that is one score, computed with w_1 = 1/100. With base 100 "
                                       "and d = 4, w_1 = 100^(-2·1/4) = 100^(-1/2) = 1/10 (1/100 "
                                       "would be base 10000); and give both scores, q at 2 with k at "
                                       "5, then q at 5 with k at 2."),
            "one score": (lambda: score(),
                          "that is the first score, right; give both: q at 2 with k at 5, then q at 5 "
                          "with k at 2, as [first, second]."),
        }),
    ]


# ---------------------------------------------------------------- lesson 06 · attention learns
def _design_06():
    """06.2: position scores (8 × 8) with which attention rotates a sequence left by one place."""
    n = 8
    rng = np.random.default_rng(62)
    fresh = rng.integers(0, 10, size=(20, n))                  # 20 fresh sequences of digits
    places = np.arange(n)

    def scores(pairs, big=8.0):
        M = np.zeros((n, n))
        M[places, pairs % n] = big
        return M

    wrong = {"rotate right": scores(places - 1), "reversal": scores(n - 1 - places),
             "too weak": scores(places + 1, 3.0), "no wrap": scores(places + 1) * (places < n - 1)[:, None],
             "weights for scores": scores(places + 1, 1.0)}

    def judge(answer):
        M = _as_numbers(answer, (n, n), "position scores (query place, key place)")
        if isinstance(M, str):
            return M
        A = softmax(M)                                         # (n, n) the same for every sequence
        out = np.eye(10)[fresh].transpose(0, 2, 1) @ A.T      # (20, 10, n): attention reads one-hot tokens
        moved = (out.argmax(axis=1) == np.roll(fresh, -1, axis=1)).all()
        if moved and (A[places, (places + 1) % n] >= 0.9).all():
            return None
        for name, m in wrong.items():
            if np.allclose(softmax(m), A, atol=0.05):
                return name
        right_keys = (M.argmax(axis=1) == (places + 1) % n).all()
        if np.allclose(M.sum(axis=1), 1.0) and (M >= 0).all() and right_keys:
            return "weights for scores"
        if (A.argmax(axis=1) == (places + 1) % n).all():
            return "too weak"
        if (A[:-1].argmax(axis=1) == places[:-1] + 1).all():
            return "no wrap"
        wrong_rows = np.flatnonzero(A.argmax(axis=1) != (places + 1) % n)
        i = int(wrong_rows[0])
        return (f"with your scores, query place {i} gives its largest weight to key place "
                f"{int(A[i].argmax())}: it must read place {(i + 1) % n}, and every place i must read "
                "place i + 1 (the last one place 0).")

    return Trial("06.2", "Design position scores that rotate a sequence left by one place.", "design",
                 lambda: scores(places + 1), judge, _hinted(wrong, {
        "rotate right": "your model reads the place before, so it rotates right. Rows are queries "
                        "(the place writing its output), columns are keys (the place it reads).",
        "reversal": "that is the reversal the model learned in this lesson; here place i must read "
                    "place i + 1.",
        "too weak": "the right key wins, with less than 0.9 of the weight: against 7 other keys at 0, "
                    "the winning score must be above ln(0.9 / 0.1 · 7) ≈ 4.1.",
        "no wrap": "every place reads the next one, except the last: it must wrap around to place 0.",
        "weights for scores": "your rows sum to 1: these are weights. The check takes your numbers as "
                              "scores and applies the softmax, so a 1 against seven 0s gets only "
                              "e / (e + 7) of the weight: give scores, large for the right key.",
    }))


def _grads_numeric(Q, K, V, dY, eps=1e-6):
    """dQ, dK, dV of L = sum(Y * dY), Y causal attention, by central differences: what a student who
    replaces the backward pass by finite differences hands in (plain NumPy, no package shortcut)."""
    future = np.triu(np.ones((len(Q), len(K)), dtype=bool), k=1)

    def L(Q_, K_, V_):
        S = np.where(future, -np.inf, Q_ @ K_.T / np.sqrt(K_.shape[1]))
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return float(((E / E.sum(axis=1, keepdims=True)) @ V_ * dY).sum())

    grads = []
    for i in range(3):
        args, g = [np.array(a, dtype=float) for a in (Q, K, V)], np.zeros(np.shape((Q, K, V)[i]))
        for idx in np.ndindex(g.shape):
            old = args[i][idx]
            args[i][idx] = old + eps
            up = L(*args)
            args[i][idx] = old - eps
            g[idx] = (up - L(*args)) / (2 * eps)
            args[i][idx] = old
        grads.append(g)
    return np.array(grads)


def _debug_06():
    """06.3: the backward pass of causal attention with one wrong line, caught by finite differences."""
    rng = np.random.default_rng(63)
    inputs = [tuple(rng.standard_normal((m, 3)) for _ in range(4)) for m in (4, 5)]
    Q, K, V, dY = (rng.standard_normal((6, 3)) for _ in range(4))
    inputs.append((4.0 * Q, 4.0 * K, V, dY))                  # steep softmax: finite differences drift

    def backward(fix_softmax=True, scale_grads=True, transpose_dK=True, masked=True):
        def grads(Q, K, V, dY):
            s = 1 / np.sqrt(K.shape[1])
            S = s * Q @ K.T
            A = softmax(np.where(causal_mask(len(Q)), S, -np.inf) if masked else S)
            dA = dY @ V.T
            dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) if fix_softmax else A * dA
            dS = s * dS if scale_grads else dS
            return dS @ K, (dS.T if transpose_dK else dS) @ Q, A.T @ dY
        return grads

    def near(out, ref):                                      # within what finite differences can reach
        return isinstance(out, np.ndarray) and out.shape == ref.shape and np.allclose(out, ref, atol=1e-4)

    wrong = {"planted": backward(fix_softmax=False), "no scale": backward(scale_grads=False),
             "dK not transposed": backward(transpose_dK=False), "unmasked": backward(masked=False),
             "finite differences": (_grads_numeric, near)}

    def exact(out, ref):                                     # a backward pass agrees to rounding
        return isinstance(out, np.ndarray) and out.shape == ref.shape and \
            np.abs(out - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())

    judge = _judge_fix(backward(), wrong, inputs, "expected (dQ, dK, dV), each of the shape of Q, K "
                       "and V: the exact gradients of causal attention, as the finite-difference check "
                       "estimates them.", close=exact, atol=1e-9)

    return Trial("06.3", "Fix causal_attention_grads: one line is wrong.", "debug", lambda: backward(),
                 judge, _hinted(wrong, {
        "planted": "still the planted bug: A * dA is only half of the softmax's derivative. "
                   "Every weight of a row depends on every score of it, so subtract the row's sum "
                   "of A * dA first.",
        "no scale": "the softmax is right now, but the scores were multiplied by 1/√d_k on the way "
                    "in, so their gradient must be multiplied by it on the way back.",
        "dK not transposed": "dK uses dS as if key j were query j: row j of dK collects column j of "
                             "dS (dSᵀ Q).",
        "unmasked": "these are the gradients of attention without the mask (al.attention_backward): "
                    "the causal mask is part of the forward pass, so the backward pass must use the "
                    "masked weights.",
        "finite differences": "these are finite differences: close to the gradients, but not exact "
                              "(the check compares to the last digits, on scores where the softmax is "
                              "steep). Finite differences check a backward pass; they are not one. "
                              "Fix the line of the formula instead.",
    }))


s64 = np.array([2.0, 0.0, 1.0])                  # 06.4: one query's (scaled) scores over 3 keys,
V64 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])   # the 3 values,
g64 = np.array([1.0, -1.0])                      # and dL/dy, the gradient of the loss at its output


def _lesson06():
    def ds(subtract=True, weights=True):
        a = softmax(s64) if weights else s64
        da = V64 @ g64                                  # dL/da_j = v_j · g
        return a * (da - a @ da) if subtract else a * da

    return [
        Choice("06.1", "Task 'copy' (target i = token i), attention removed: held-out accuracy?", "a", {
            "b": "reversing needs attention, because output i needs another place's token. Copying "
                 "needs only the token at the same place, and the residual path brings it there.",
            "c": "about 0.3 is the no-position model on reversal, guessing the commonest token. Here the "
                 "right token is the model's own input.",
            "d": "it trains fine: the embeddings, the positions and W_u still learn; only attention "
                 "is gone."}),
        _design_06(),
        _debug_06(),
        Exercise("06.4", "dL/ds for scores s = (2, 0, 1), values (1, 0), (0, 1), (1, 1) and dL/dy = (1, -1).",
                 ds, {
            "no subtraction": (lambda: ds(subtract=False),
                               "you used a * dL/da, the diagonal of the softmax's derivative only: "
                               "subtract a · dL/da from every entry first."),
            "softmax skipped": (lambda: V64 @ g64,
                                "that is dL/da, the gradient with respect to the weights; go one step "
                                "further back, through the softmax."),
            "scores for weights": (lambda: ds(weights=False),
                                   "you used the scores s where the softmax's derivative needs the "
                                   "weights a = softmax(s)."),
        }),
    ]


# ---------------------------------------------------------------- lesson 09 · reading the sources
q92 = np.array([1.371, -3.702, 2.628])            # 09.2: a fresh query and key, as a tutorial would
k92 = np.array([4.041, 1.368, -2.358])            # store them, printed with two decimals


def _lesson09():
    s4 = source_004()
    X4 = s4.X
    printed = s4.printed["self_output"]

    def right(scale=2 ** -0.5, axis=-1):                 # identity weights: Q = K = V = X
        return softmax(X4 @ X4.T * scale, axis=axis) @ X4

    return [
        Choice("09.1", "Scores [1.2, 1.2, 0.3]: which printed weight row can be right?", "a", {
            "b": "equal scores must get equal weights: the first two differ (source 004 made this "
                 "slip).",
            "c": "the weights sum to 1.1; a softmax row always sums to 1.",
            "d": "the order is wrong: the lowest score (0.3) gets the largest weight, and softmax "
                 "keeps the order of the scores."}),
        Exercise(
            "09.2", "The dot product a tutorial prints if it computes with q and k rounded to 2 decimals.",
            lambda: np.round(q92, 2) @ np.round(k92, 2), {
                "full precision": (lambda: q92 @ k92,
                                   "this is the exact dot product; the tutorial computed with the "
                                   "numbers as printed, rounded to 2 decimals first."),
                "one decimal": (lambda: np.round(q92, 1) @ np.round(k92, 1),
                                "you rounded to one decimal; the tutorial shows two."),
                "cut off": (lambda: np.trunc(q92 * 100) / 100 @ (np.trunc(k92 * 100) / 100),
                            "you cut the digits off after two decimals; printing rounds them "
                            "(2.628 is shown as 2.63)."),
            }),
        Exercise(
            "09.3", "Source 004's self-attention example: how far off is its printed output? "
                    "Give printed minus right (3 × 2).", lambda: printed - right(), {
                "the right output": (right,
                                     "that is the right output A V; the question asks how far the "
                                     "printout is from it: printed minus right."),
                "right minus printed": (lambda: right() - printed,
                                        "your signs are flipped: printed minus right, not right minus "
                                        "printed."),
                "no scaling": (lambda: printed - right(scale=1.0),
                               "your right output forgot to divide the scores by √d_k = √2."),
                "divided by 2": (lambda: printed - right(scale=0.5),
                                 "you divided the scores by d_k = 2; divide by its square root, √2."),
                "wrong axis": (lambda: printed - right(axis=0),
                               "your softmax ran down the columns; it must run along each row."),
            }),
    ]


EXERCISES = {e.key: e for e in (*_lesson00(), *_lesson01(), *_lesson02(), *_lesson03(), *_lesson04(),
                                *_lesson05(), *_lesson06(), *_lesson09())}


def check(key: str, answer: object) -> None:
    """Check the answer to exercise `key` (for example '01.2') and print ✓ or a hint."""
    if key not in EXERCISES:
        raise ValueError(f"no exercise {key!r}: the exercises are {sorted(EXERCISES)}")
    EXERCISES[key].check(answer)


# ---------------------------------------------------------------- lesson 07 (in exercises_07.py)
judge_fix = _judge_fix   # the debug judge, under a public name for exercises_07.py
from .exercises_07 import lesson07  # noqa: E402  (after judge_fix, which it imports)

EXERCISES.update({e.key: e for e in lesson07()})

# ---------------------------------------------------------------- lesson 08 (in exercises_08.py)
from .exercises_08 import lesson08  # noqa: E402  (exercises_08 needs nothing from this module)

EXERCISES.update({e.key: e for e in lesson08()})
