"""Every exercise of lessons 00-09, each with its checked answer and a hint per typical mistake.

Kinds: 'compute' (fresh data), 'predict' (a letter, a reason for each wrong one), 'design' (the check
runs the student's matrix or mask) and 'debug' (the check runs the student's fixed function on fresh
inputs). No exercise is passed by a value the lesson has already computed (tests/test_exercises.py).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np

from .checks import Choice, Exercise, Trial, differences
from .examples import cats_chase_mice, the_cat_sat
from .heads import _multi_head
from .loop import attend_one
from .masks import causal_mask
from .matrix import scaled_dot_product_attention, softmax
from .positions import _rope
from .sources import source_004
from .training import numerical_gradient


def _as_numbers(answer, shape: tuple[int, ...], what: str) -> np.ndarray | str:
    """The student's answer as a finite float array of `shape`, or a message saying what was expected."""
    try:
        got = np.array(answer, dtype=float)
    except (TypeError, ValueError):
        return f"expected {what} of shape {shape}, got {type(answer).__name__}."
    if got.shape != shape or not np.isfinite(got).all():
        return f"expected {what}: finite numbers of shape {shape}, got shape {got.shape}."
    return got


SHORTCUTS = ("attend_one", "scaled_dot_product_attention", "self_attention", "multi_head_attention",
             "cross_attention", "decoder_step", "decode_with_cache", "generate", "transformer_block",
             "rope", "sinusoidal_positions", "numerical_gradient", "attention_backward", "loss_and_grads")
"""Package functions that would do a debug exercise in one call: switched off while a judge runs the
student's function (an exercise may switch off more, e.g. `softmax` where the bug is in the softmax)."""


class ShortcutLocked(RuntimeError):
    """Raised by a package function that an exercise asks the student to write out."""


@contextmanager
def _locked(fn, names: tuple[str, ...]):
    """While inside, `al.<name>` and any of the student's own references to it raise ShortcutLocked."""
    package = sys.modules[__package__]   # the package itself, as the student's `al`

    def stub(name):
        def refuse(*args, **kwargs):
            raise ShortcutLocked(f"al.{name} is switched off in this exercise: do this step yourself")
        return refuse

    originals = {name: getattr(package, name) for name in names}
    scopes = [package, *(vars(package)[m] for m in vars(package) if m in _SUBMODULES)]
    scopes.append(getattr(fn, "__globals__", {}))
    saved = []
    for scope in scopes:
        space = scope if isinstance(scope, dict) else vars(scope)
        for key, value in list(space.items()):
            for name, original in originals.items():
                if value is original:
                    saved.append((space, key, value))
                    space[key] = stub(name)
    closed = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:                             # a cell not filled yet
            continue
        if any(value is original for original in originals.values()):
            closed.append((cell, value))
    for cell, value in closed:                         # names the function took from an enclosing scope
        cell.cell_contents = stub(next(n for n, o in originals.items() if o is value))
    try:
        yield
    finally:
        for space, key, value in reversed(saved):
            space[key] = value
        for cell, value in closed:
            cell.cell_contents = value


_SUBMODULES = ("decoding", "heads", "loop", "masks", "matrix", "positions", "training")


def _run(fn, *args, locked: tuple[str, ...] = SHORTCUTS) -> np.ndarray | str:
    """Call a student's function on copies of fresh inputs, with the `locked` package functions switched
    off: its result as an array, or a message."""
    if not callable(fn):
        return f"expected your fixed function itself (no brackets), got {type(fn).__name__}."
    try:
        with np.errstate(all="ignore"), _locked(fn, locked):
            return np.asarray(fn(*(np.array(a) for a in args)), dtype=float)
    except ShortcutLocked as exc:
        return f"{exc} (the check switches it off while it runs your function)."
    except Exception as exc:     # a student's function may fail in any way: report it, never crash
        return f"your function raised {type(exc).__name__}: {exc}"


def _same(a, b) -> bool:
    return isinstance(a, np.ndarray) and a.shape == np.shape(b) and np.allclose(a, b, equal_nan=True)


def _hinted(wrong: dict, hints: dict[str, str]) -> dict:
    """A Trial's known mistakes: each wrong answer (by name) with its hint."""
    return {name: (lambda answer=wrong[name]: answer, hint) for name, hint in hints.items()}


def _judge_fix(reference, wrong: dict, inputs: list[tuple], expected: str,
               locked: tuple[str, ...] = SHORTCUTS):
    """The judge of a debug exercise: run the student's function on every fresh input (with the `locked`
    package functions switched off); right if it agrees with `reference` on all of them, else the name of
    the wrong version it agrees with, else a message saying what differs."""
    def agrees(outs, f):
        with np.errstate(all="ignore"):
            return all(_same(out, f(*args)) for out, args in zip(outs, inputs))

    def judge(fn):
        outs = [_run(fn, *args, locked=locked) for args in inputs]
        failed = [out for out in outs if isinstance(out, str)]
        if failed:
            return failed[0]
        if agrees(outs, reference):
            return None
        named = [name for name, f in wrong.items() if agrees(outs, f)]
        if named:
            return named[0]
        for out, args in zip(outs, inputs):
            with np.errstate(all="ignore"):
                ref = np.asarray(reference(*args), dtype=float)
            if out.shape != ref.shape:
                return f"on fresh inputs your function returns shape {out.shape}, not {ref.shape}: {expected}"
            if not _same(out, ref):
                return (f"on fresh inputs your function returns the right shape {out.shape}, but "
                        f"{differences(out, ref)}: {expected}")
        return f"on fresh inputs your function does not agree with the reference: {expected}"
    return judge


def _design_01():
    """01.3: a W_q with which 'small' listens most to 'mice' (weight > 0.7), keys = X, no scaling."""
    X = cats_chase_mice().X

    def weights(W):
        return softmax((X[2] @ W) @ X.T)                   # (4,) small's weights, W_k = I, scale 1

    def solution():
        W = np.zeros((4, 4))
        W[3, 0] = W[3, 3] = 2.0                            # small asks: "a noun? and small?"
        return W

    def judge(answer):
        try:
            W = np.array(answer, dtype=float)
        except (TypeError, ValueError):
            return f"expected a 4 × 4 matrix of numbers, got {type(answer).__name__}."
        if W.shape != (4, 4) or not np.isfinite(W).all():
            return (f"expected a finite 4 × 4 matrix (rows: features of x, columns: what the query "
                    f"asks for), got shape {W.shape}.")
        w = weights(W)
        if np.argmax(w) == 3 and w[3] > 0.7 and w[3] - np.sort(w)[-2] > 1e-9:
            return None
        wt = weights(W.T)
        if np.argmax(wt) == 3 and wt[3] > 0.7:
            return "transposed"
        if np.isclose(w[0], w[3]) and w[3] >= w.max() - 1e-12:
            return "noun only"
        if np.isclose(w[2], w[3]) and w[3] >= w.max() - 1e-12:
            return "small only"
        if np.argmax(w) == 3:
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
        "noun only": (lambda: only(0),
                      "cats and mice tie: both are nouns. Ask for a second feature that only mice has."),
        "small only": (lambda: only(3),
                       "small ties with mice: x_small · x_small = x_small · x_mice = 1. Asking only "
                       "'small?' cannot separate them; ask for 'noun' too."),
        "too weak": (lambda: weak,
                     "mice wins, but by too little: make your entries larger, so that the softmax "
                     "decides more sharply."),
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
                                    "query.")}),
        Exercise(
            "00.2", "nn.Linear(3, 2) stores weight = [[1, 2, 3], [4, 5, 6]]. Give our W (3 × 2).",
            lambda: W_t.T,
            {"PyTorch layout": (lambda: W_t,
                                "that is PyTorch's layout (out_features, in_features) = (2, 3); ours "
                                "is (in, out): the transpose."),
             "reshaped": (lambda: W_t.reshape(3, 2),
                          "reshape keeps the numbers in reading order; you need the transpose, "
                          "weight.T (or al.from_torch_linear).")}),
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
Wv5 = np.array([[0.0, 1.0], [1.0, 0.0]])                 # v = Wv5 x: swaps the two features


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
            "01.5", "Fresh tokens, column-convention weights: compute y_1 (no scaling).",
            lambda: attend_one(0, X5, Wq5.T, np.eye(2), Wv5.T, scale=1.0)[0],
            {"no transpose": (lambda: attend_one(0, X5, Wq5, np.eye(2), Wv5, scale=1.0)[0],
                              "the text writes q = W x with column vectors; for our rows that is "
                              "x @ W.T (al.from_column_convention(W))."),
             "off by one": (lambda: attend_one(1, X5, Wq5.T, np.eye(2), Wv5.T, scale=1.0)[0],
                            "that is y_2; Python counts from 0, so y_1 is the output of X[0]."),
             "forgot W_v": (lambda: attend_one(0, X5, Wq5.T, np.eye(2), np.eye(2), scale=1.0)[0],
                            "you averaged the tokens x_j; the sum runs over the values "
                            "v_j = x_j @ W_v.T.")}),
    ]


# ---------------------------------------------------------------- lesson 02 · the matrix form
FRUIT_PRICES = np.array([1.00, 0.50, 3.00])     # apple, banana, cherry: lesson 02, section 1


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
        return "too weak" if even else "uneven"

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

    def make(axis=-1, divide=np.sqrt):
        def attention(Q_, K_, V_):
            S = Q_ @ K_.T / divide(K_.shape[1])
            return softmax(S, axis=axis) @ V_
        return attention

    wrong = {"planted": make(axis=0), "no scaling": make(divide=lambda d: 1.0),
             "divided by d_k": make(divide=float)}

    judge = _judge_fix(make(), wrong, [(Q, K, V)], "expected softmax(Q Kᵀ / √d_k) V, shape (2, 2), "
                       "for 2 queries and 4 keys.")

    return Trial("02.3", "Fix attention(Q, K, V): one line is wrong.", "debug", make, judge, _hinted(wrong, {
        "planted": "still the planted bug. Print the weights' sums along each axis: which sums are "
                   "1, and which should be? Each query's row must sum to 1.",
        "no scaling": "the weights now sum to 1 per row, but you removed the division by √d_k.",
        "divided by d_k": "you divide by d_k; the formula divides by its square root, √d_k.",
    }))


X24 = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])       # exercise 02.4: fresh tokens
Wq24 = np.array([[1.0, 1.0], [0.0, 1.0]])
Wv24 = np.array([[1.0, 0.0], [0.0, -1.0]])


def _lesson02():
    def Y(scale=2 ** -0.5, axis=-1, W_v=Wv24):
        S = (X24 @ Wq24) @ X24.T * scale                   # W_k = I
        return softmax(S, axis=axis) @ (X24 @ W_v)

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
            "02.4", "Fresh tokens: compute Y = softmax(Q Kᵀ / √2) V (3 × 2).", lambda: Y(), {
                "no scaling": (lambda: Y(scale=1.0), "you forgot to divide the scores by √d_k = √2."),
                "wrong axis": (lambda: Y(axis=0),
                               "your softmax ran down the columns; each query's row must sum to 1."),
                "forgot W_v": (lambda: Y(W_v=np.eye(2)),
                               "you averaged the tokens X; the outputs average the values V = X W_v."),
                "weights only": (lambda: softmax((X24 @ Wq24) @ X24.T / np.sqrt(2)),
                                 "these are the weights A (3 × 3); multiply by V to get Y (3 × 2)."),
            }),
    ]


# ---------------------------------------------------------------- lesson 03 · many heads
def _design_03():
    """03.2: a W_q whose head 1 looks two tokens back instead of one; head 2 unchanged."""
    ex = the_cat_sat()
    t = ex.theta
    back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])     # row form: p -> p - 1

    def weights(W):
        return _multi_head(ex.X, ex.X, W, ex.W_k, ex.W_v, ex.W_o, 2, None, 1 / np.sqrt(2))[1]

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
            return "previous"
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
                 "you wrote into head 2's columns (2-3). Head 1 owns columns 0-1 of W_q; the rows are "
                 "the input features (position in rows 0-1)."),
    })


def _debug_03():
    """03.3: split(M, h) reshapes without moving the heads' axis; the check runs the fix on fresh M."""
    rng = np.random.default_rng(33)
    M1, M2 = rng.standard_normal((5, 6)), rng.standard_normal((4, 4))     # (n, d): h = 3, then h = 2

    def right(M, h):
        d = M.shape[1]
        return np.stack([M[:, i * (d // h):(i + 1) * (d // h)] for i in range(h)])   # (h, n, k) blocks

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
                    "split(M, h)[0] with M[:, :k] for a small M = np.arange(12).reshape(3, 4)."),
        "no transpose": (lambda: no_transpose,
                         "the blocks are right but in shape (n, h, k); the heads' axis must come first: "
                         "move it with .transpose(1, 0, 2)."),
        "interleaved": (lambda: interleaved,
                        "your head i takes every h-th column; a head takes k neighbouring columns, "
                        "i*k to (i+1)*k: reshape to (n, h, k) first."),
    })


X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])   # 03.4: fresh
Wq34 = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0]])
Wo34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])


def _lesson03():
    I4 = np.eye(4)

    def out(h=2, W_o=Wo34, scale=2 ** -0.5):
        return _multi_head(X34, X34, Wq34, I4, I4, W_o, h, None, scale)[0]

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
            "03.4", "Fresh tokens: 2 heads, W_k = W_v = I, the given W_q and W_O; compute the output.",
            out, {
                "one head": (lambda: out(h=1, scale=0.5),
                             "that is one head of width 4: split Q, K and V into two heads of "
                             "width 2, each with its own softmax, scaled by 1/√2."),
                "forgot W_O": (lambda: out(W_o=I4), "this is the concatenation; finish with @ W_O."),
                "transposed W_O": (lambda: out(W_o=Wo34.T),
                                   "you used W_O.T; in the row convention it is Concat(heads) @ W_O."),
                "scaled by √d_model": (lambda: out(scale=0.5),
                                       "each head is scaled by 1/√k with k = 2, its own width, not "
                                       "by 1/√d_model."),
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
             "upper triangle": _packed().T}

    def judge(answer):
        M = _as_numbers(answer, (6, 6), "a mask")
        if isinstance(M, str):
            return M
        if not np.isin(M, (0, 1)).all():
            return "a mask holds True/False (or 1/0): True where the query may look at the key."
        M = M.astype(bool)
        if not M.any(axis=1).all():
            return (f"row {int(np.argmin(M.any(axis=1)))} of your mask is all False: that query "
                    "could look at nothing. Every token may at least look at itself.")
        w = scaled_dot_product_attention(Q, K, V, mask=M)[1]          # run it: who listens to whom
        if np.array_equal(w > 0, _packed()):
            return None
        for name, m in wrong.items():
            if np.array_equal(M, m):
                return name
        return ("with your mask some token listens where it must not, or not where it may: a token "
                "sees itself and the earlier tokens of its own sentence, nothing else.")

    return Trial("04.2", "Design the mask for two sentences packed into one sequence of 6.", "design",
                 _packed, judge, _hinted(wrong, {
        "causal only": "the future is hidden, but the second sentence still sees the first: "
                       "combine with a block mask (& ) that keeps each sentence to itself.",
        "blocks only": "each sentence keeps to itself, but sees its own future: combine with the "
                       "causal mask, np.tril.",
        "upper triangle": "your mask is transposed: rows are queries, so row i may be True only at "
                          "columns j <= i.",
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
        "inverted": "you hid the allowed keys and kept the masked ones: True means 'may look'.",
    }))


Xd44 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])                    # 04.4: 2 fresh decoder tokens
Xe44 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])   # 3 + <pad>


def _lesson04():
    keys = np.arange(4) < 3

    def cross(mask=True, scale=3 ** -0.5, Xq=Xd44, Xc=Xe44):
        S = (Xq @ (2 * np.eye(3))) @ Xc.T * scale
        return softmax(np.where(mask, S, -np.inf)) @ Xc

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
            "04.4", "Fresh cross-attention: 2 decoder queries (W_q = 2I), 3 encoder tokens + <pad>, "
                    "W_k = W_v = I, scaled by 1/√3; compute the output (2 × 3).",
            lambda: cross(mask=keys), {
                "no padding mask": (lambda: cross(), "'<pad>' took some weight: mask the padding key."),
                "no scaling": (lambda: cross(mask=keys, scale=1.0), "divide the scores by √d_k = √3."),
                "queries and keys swapped": (
                    lambda: softmax((Xe44[:3] @ (2 * np.eye(3))) @ Xd44.T / np.sqrt(3)) @ Xd44,
                    "your rows are encoder tokens: the queries come from the decoder, keys and "
                    "values from the encoder."),
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
        if others_same and (w[:, 1, 0] >= 0.9).all():
            return None
        for name, m in wrong.items():
            if np.allclose(T, m):
                return name
        if not others_same:
            return "others changed"
        return (f"with your table, chase's weights are {np.round(w[0, 1], 2)} (cats chase mice) and "
                f"{np.round(w[1, 1], 2)} (mice chase cats): position 1 must get at least 0.9 in both.")

    return Trial("05.2", "Design a learned position table: chase listens to the word before it.", "design",
                 lambda: boost(0, 2), judge, _hinted(wrong, {
        "last position": "chase now prefers the word after it (position 3); the subject stands before "
                         "the verb, at position 1 (row 0 of the table).",
        "not asked for": "chase's query asks only about the feature 'animal' (column 2): adding to "
                         "'noun' does not help chase, and it changes what mice's query finds.",
        "too weak": "position 1 wins, but with less than 0.9: add more to its 'animal' feature.",
        "others changed": "chase works, but cats' or mice's weights changed too: mice's query asks "
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

    wrong = {"planted": cached(lambda X_, t: X_[-1]), "no scaling": cached(lambda X_, t: X_[t], 1.0),
             "unmasked": lambda X_, Wq, Wk, Wv: softmax((X_ @ Wq) @ (X_ @ Wk).T * 0.5) @ (X_ @ Wv)}

    judge = _judge_fix(reference, wrong, [(X, W_q, W_k, W_v)], "expected (5, 3), the same as causal "
                       "self-attention computed at once: row t uses tokens 0..t only.")

    return Trial("05.3", "Fix decode: one line is wrong.", "debug", lambda: cached(lambda X_, t: X_[t]),
                 judge, _hinted(wrong, {
        "planted": "still the planted bug: every step uses the query of the sequence's last token, "
                   "which a decoder has not seen yet. Step t must ask with its own token's query.",
        "no scaling": "the right query now, but the scores lost their division by √d_k.",
        "unmasked": "every row sees the whole sequence, future included: a decoder step sees only "
                    "the cache, tokens 0..t.",
    }))


q54 = np.array([[1.0, 0.0, 0.0, 1.0]])       # exercise 05.4: a fresh query at position 2
k54 = np.array([[0.0, 1.0, 1.0, 0.0]])       # and a fresh key at position 5


def _lesson05():
    def score(pq=2, pk=5, base=100.0):
        return (_rope(q54, np.array([pq]), base) @ _rope(k54, np.array([pk]), base).T)[0, 0]

    return [
        Choice("05.1", "No positions: reverse the order of the words. What happens to Y?", "a", {
            "b": "no row changes its numbers: each word meets the same keys and values as before, "
                 "only listed in another order, and a sum does not depend on order.",
            "c": "Y is not the same row by row: row i belongs to the word now at place i, so the rows "
                 "move with their words.",
            "d": "the middle word keeps its place, and the others' outputs move with them, unchanged."}),
        _design_05(),
        _debug_05(),
        Exercise("05.4", "RoPE score of q = (1, 0, 0, 1) at position 2 and k = (0, 1, 1, 0) at position 5, "
                         "base 100.", score, {
            "no rotation": (lambda: 0.0, "q · k without any rotation is 0: rotate each pair first."),
            "positions swapped": (lambda: score(5, 2),
                                  "you rotated q by position 5 and k by 2: q is at 2, k at 5."),
            "base 10000": (lambda: score(base=10000.0),
                           "you used base 10000; this exercise uses base 100: w_i = 100^(-2i/d)."),
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
             "too weak": scores(places + 1, 3.0), "no wrap": scores(places + 1) * (places < n - 1)[:, None]}

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
        if moved:
            return "too weak"
        if (A[:-1].argmax(axis=1) == places[:-1] + 1).all():
            return "no wrap"
        return (f"with your scores, query place 0 gives its largest weight to key place "
                f"{int(A[0].argmax())}: it must read place 1, and every place i must read place i + 1.")

    return Trial("06.2", "Design position scores that rotate a sequence left by one place.", "design",
                 lambda: scores(places + 1), judge, _hinted(wrong, {
        "rotate right": "your model reads the place before, so it rotates right. Rows are queries "
                        "(the place writing its output), columns are keys (the place it reads).",
        "reversal": "that is the reversal the model learned in this lesson; here place i must read "
                    "place i + 1.",
        "too weak": "the right key wins, with less than 0.9 of the weight: against 7 other keys at 0, "
                    "the winning score must be above ln(0.9 / 0.1 · 7) ≈ 4.1.",
        "no wrap": "every place reads the next one, except the last: it must wrap around to place 0.",
    }))


def _grads_numeric(Q, K, V, dY):
    """dQ, dK, dV of L = sum(Y * dY), Y causal attention, by central differences (no backward pass)."""
    mask = causal_mask(len(Q))

    def loss_of(i):                       # L as a function of input i (Q, K or V), the others fixed
        def L(x):
            args = [x if j == i else a for j, a in enumerate((Q, K, V))]
            return float((scaled_dot_product_attention(*args, mask=mask)[0] * dY).sum())
        return L
    return np.array([numerical_gradient(loss_of(i), x) for i, x in enumerate((Q, K, V))])


def _debug_06():
    """06.3: the backward pass of causal attention with one wrong line, caught by finite differences."""
    rng = np.random.default_rng(63)
    inputs = [tuple(rng.standard_normal((m, 3)) for _ in range(4)) for m in (4, 5)]

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

    wrong = {"planted": backward(fix_softmax=False), "no scale": backward(scale_grads=False),
             "dK not transposed": backward(transpose_dK=False), "unmasked": backward(masked=False)}
    cache = {}

    def reference(Q, K, V, dY):
        if Q.shape not in cache:
            cache[Q.shape] = _grads_numeric(Q, K, V, dY)
        return cache[Q.shape]

    judge = _judge_fix(reference, wrong, inputs, "expected (dQ, dK, dV), each of the shape of Q, K "
                       "and V, equal to the finite-difference gradients of causal attention.")

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
    X4 = s4["X"]
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
            }),
        Exercise(
            "09.3", "Source 004's self-attention example: the right output A V (3 × 2).",
            lambda: scaled_dot_product_attention(X4, X4, X4)[0], {
                "source's printout": (lambda: s4["printed"]["self_output"],
                                      "that is what the source printed, and it is wrong: recompute "
                                      "the softmax of each row of Q Kᵀ / √2."),
                "wrong axis": (lambda: softmax(X4 @ X4.T / np.sqrt(2), axis=0) @ X4,
                               "your softmax ran down the columns; it must run along each row."),
                "no scaling": (lambda: softmax(X4 @ X4.T) @ X4,
                               "you forgot to divide the scores by √d_k = √2."),
            }),
    ]


EXERCISES = {e.key: e for e in (*_lesson00(), *_lesson01(), *_lesson02(), *_lesson03(), *_lesson04(),
                                *_lesson05(), *_lesson06(), *_lesson09())}


def check(key: str, answer: object) -> None:
    """Check the answer to exercise `key` (for example '01.2') and print ✓ or a hint."""
    if key not in EXERCISES:
        raise ValueError(f"no exercise {key!r}: the exercises are {sorted(EXERCISES)}")
    EXERCISES[key].check(answer)


# ---------------------------------------------------------------- lesson 08 (in exercises_08.py)
from .exercises_08 import lesson08  # noqa: E402  (exercises_08 needs nothing from this module)

EXERCISES.update({e.key: e for e in lesson08()})
