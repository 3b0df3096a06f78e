"""Lesson 02's exercises (registered in exercises.EXERCISES): all outputs at once, the matrix form."""

from __future__ import annotations

import numpy as np

from . import matrix as al  # so that 02.3's planted function reads as the lesson prints it: al.softmax
from .checks import TOLERANCE, Choice, Exercise, Trial
from .judging import as_numbers, hinted, judge_fix, still_planted
from .matrix import default_scale, softmax

LESSON_QUERY = np.array([0.2, 1.0, 0.1])                 # section 1's query: mostly 'banana'
PLANTED_023 = "A = al.softmax(S, axis=0)"                 # 02.3's wrong line, as the lesson prints it
HANDED_OUT_023 = """\
def attention(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    A = al.softmax(S, axis=0)
    return A @ V
"""
"""02.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _design_02():
    """02.2: a query for the soft lookup of lesson 02 that blends apple and cherry half and half."""
    def weights(q):
        return softmax(q @ np.eye(3))                     # (3,) keys: one-hot fruits, no scaling

    def judge(answer):
        q = as_numbers(answer, (3,), "a query", flat=True)
        if isinstance(q, str):
            return q
        w = weights(q)
        even = abs(w[0] - w[2]) <= 0.01
        if even and w[1] <= 0.01:
            return None
        if w.max() - w.min() <= 1e-12:
            return "flat"
        if q[1] > 0 and np.allclose(q / q[1], LESSON_QUERY, rtol=0, atol=1e-9):
            return "lesson's query"
        if w[1] >= w.max() - 1e-12:
            return "banana"
        if even:
            return "too weak"
        if w[1] <= 0.01:
            return "uneven"
        return (f"not yet. Hint: with your query the weights are {np.round(w, 3)} (apple, banana, cherry): "
                "apple and cherry must be within 0.01 of each other, banana below 0.01. Give apple and "
                "cherry the same large entry.")

    return Trial("02.2", "Design a query whose soft lookup is half apple, half cherry.", "design",
                 lambda: np.array([6.0, 0.0, 6.0]), judge, {
        "too weak": (lambda: np.array([1.0, 0.0, 1.0]),
                     "apple and cherry are even, but banana still takes more than 0.01 of the weight. "
                     "Scale your query up: a sharper query leaves less for banana."),
        "uneven": (lambda: np.array([8.0, 0.0, 6.0]),
                   "banana is out, but apple and cherry differ by more than 0.01: they need the same "
                   "score, so give them the same entry."),
        "flat": (lambda: np.array([1.0, 1.0, 1.0]),
                 "all three scores are equal, so all three weights are 1/3: this query looks for "
                 "nothing in particular. Give apple and cherry the same large entry and banana a "
                 "smaller one."),
        "lesson's query": (lambda: LESSON_QUERY,
                           "this is the lesson's query (or a multiple of it): it looks for banana. "
                           "Each entry of q is the score of one fruit: raise apple's and cherry's, "
                           "not banana's."),
        "banana": (lambda: np.array([0.0, 5.0, 0.0]),
                   "this query still looks for banana: banana gets the largest weight (or shares "
                   "it). Each entry of q is the score of one fruit: raise apple's and cherry's above "
                   "banana's."),
    })


def _debug_02():
    """02.3: attention(Q, K, V) normalises the wrong axis; the check runs the fix on fresh inputs."""
    rng = np.random.default_rng(23)
    Q, K, V = rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))

    Q3, K3, V3 = rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
    # keys of another width, and m, n, d_k, d_v all different, so that a fixed √3 (or any shape slip) shows
    Q5, K5, V5 = rng.standard_normal((4, 5)), rng.standard_normal((6, 5)), rng.standard_normal((6, 3))

    def make(axis=-1, scale=default_scale, transpose=True, width=lambda Q_, K_, V_: K_.shape[1], mix=False):
        def attention(Q_, K_, V_):
            S = Q_ @ (K_.T if transpose else K_) * scale(width(Q_, K_, V_))
            if axis is None:                          # one softmax over every entry of the matrix
                E = np.exp(S - S.max())
                return E / E.sum() @ V_
            A = softmax(S, axis=axis)
            return (A.T if mix else A) @ V_
        return attention

    wrong = {"planted": make(axis=0), "no scaling": make(scale=lambda d: 1.0),
             "divided by d_k": make(scale=lambda d: 1.0 / d), "K not transposed": make(transpose=False),
             "planted, K not transposed": make(axis=0, transpose=False),
             "divided by √n": make(width=lambda Q_, K_, V_: K_.shape[0]),
             "divided by √m": make(width=lambda Q_, K_, V_: Q_.shape[0]),
             "divided by √d_v": make(width=lambda Q_, K_, V_: V_.shape[1]),
             "fixed 2": make(scale=lambda d: 0.5), "fixed √3": make(scale=lambda d: default_scale(3)),
             "whole matrix": make(axis=None), "weights transposed": make(mix=True),
             "column softmax transposed": make(axis=0, mix=True),
             "output transposed": lambda Q_, K_, V_: make()(Q_, K_, V_).T}

    def rows_rescaled(Q_, K_, V_):            # the column softmax, each row then divided by its sum
        A = softmax(Q_ @ K_.T * default_scale(K_.shape[1]), axis=0)
        return A / A.sum(axis=1, keepdims=True) @ V_

    wrong["column softmax, rows rescaled"] = rows_rescaled

    def planted(Q_, K_, V_):                  # the function printed in the lesson, bug included
        S = Q_ @ K_.T / np.sqrt(K_.shape[1])
        A = al.softmax(S, axis=0)
        return A @ V_

    def keys_by_queries(Q_, K_, V_):          # K Qᵀ, its rows normalised, transposed: the planted numbers
        A = softmax(K_ @ Q_.T * default_scale(K_.shape[1]), axis=-1).T
        return A @ V_

    by_numbers = judge_fix(make(), wrong, [(Q, K, V), (Q3, K3, V3), (Q5, K5, V5)],
                           "expected softmax(Q Kᵀ / √d_k) V, of shape (m, d_v): (2, 2) for 2 queries and 4 "
                           "keys, (3, 2) for 3 queries and 3 keys, (4, 3) for 4 queries and 6 keys.")

    def judge(fn):
        """The planted numbers from the function as handed out get a hint that says what to look for;
        from a changed function (K Qᵀ softmaxed along its rows and transposed, axis=-2), one that says
        why its numbers are still the planted ones."""
        verdict = by_numbers(fn)
        return "planted numbers" if verdict == "planted" and not still_planted(fn, PLANTED_023) else verdict

    mistakes = hinted(wrong, {
        "planted": "still the planted bug: one line is wrong. Print the weights' sums along each axis: "
                   "which sums are 1, and which should be?",
        "no scaling": "the weights now sum to 1 per row, but you removed the division by √d_k.",
        "divided by d_k": "you divide by d_k; the formula divides by its square root, √d_k.",
        "K not transposed": "your scores are Q @ K: with 2 queries and 4 keys that fails, and with 3 "
                            "and 3 it runs but mixes the wrong numbers. Score i, j is q_i · k_j: "
                            "Q @ K.T.",
        "planted, K not transposed": "two things: K is not transposed (the scores are Q @ K.T), and "
                                     "the softmax still runs down the columns (axis=0).",
        "divided by √n": "you divide by the square root of the number of keys, K.shape[0]; the formula "
                         "divides by √d_k, the width of a key: K.shape[1]. (With 3 keys of width 3 the "
                         "two agree, which hides the slip.)",
        "divided by √m": "you divide by the square root of the number of queries, Q.shape[0]; the "
                         "formula divides by √d_k, the width of a key: K.shape[1].",
        "divided by √d_v": "you divide by the square root of the width of a value, V.shape[1] (d_v); the "
                           "formula divides by √d_k, the width of a key: K.shape[1].",
        "fixed 2": "you divide by a fixed 2: that is √4, section 4's d_k (is it still in the variable "
                   "`d_k`?). The check gives keys of other widths: read d_k from the keys, K.shape[1].",
        "fixed √3": "you divide by a fixed √3: that is √d_k only for keys of width 3 (as in exercise 02.4), "
                    "and the check also gives keys of width 5. Read d_k from the keys: K.shape[1].",
        "whole matrix": "your softmax normalises the whole matrix at once, so all the weights together "
                        "sum to 1; each query's row must sum to 1 on its own (axis=-1).",
        "weights transposed": "you multiply Aᵀ V: either you transposed A, or you built Aᵀ itself (K Qᵀ "
                              "with the softmax down its columns). The output is A V (row i of A mixes the "
                              "values for query i). With 2 queries and 4 keys Aᵀ V fails; with 3 and 3 it "
                              "runs.",
        "column softmax, rows rescaled":
            "your rows sum to 1 now, but only because you divided each row of the column softmax by its sum: "
            "each weight is still set by a softmax over the queries (down a column), then rescaled. The "
            "softmax itself must run along each row, over that query's keys (axis=-1); then the rows sum to "
            "1 with nothing left to divide.",
        "column softmax transposed": "your weights are a softmax down the columns, transposed: either you "
                                     "transposed A after axis=0, or you computed K Qᵀ instead of Q Kᵀ (its "
                                     "softmax along the rows gives the same numbers). With 2 queries and 4 "
                                     "keys that is a 4 × 2 matrix, which cannot multiply V (4 × 2), and with "
                                     "3 and 3 each row holds one key's weights. The scores are Q @ K.T and "
                                     "the softmax runs along each row (axis=-1), with no transpose.",
        "output transposed": "your weights are right, but your output is (A V)ᵀ (V.T @ A.T is the same "
                             "matrix): one row per value component instead of one row per query. With 2 "
                             "queries and values of width 2 the shape hides it; with 4 queries and values "
                             "of width 3 you return (3, 4). Return A @ V, of shape (m, d_v).",
    })
    mistakes["planted"] = (lambda: planted, mistakes["planted"][1])
    mistakes["planted numbers"] = (
        lambda: keys_by_queries,
        "you changed the function, but it still gives the planted numbers: your weights are a softmax "
        "down the columns. If you computed K Qᵀ, its rows belong to the keys, so a softmax along them "
        "(axis=-1) still normalises over the queries, and a transpose afterwards does not change which "
        "numbers sum to 1; axis=-2 is axis=0 for a matrix. Print your weights' sums along each axis: "
        "which sums are 1, and which should be?")
    return Trial("02.3", "Fix attention(Q, K, V): one line is wrong.", "debug", make, judge, mistakes,
                 handed_out="planted", handed_out_source=HANDED_OUT_023)


X24 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])   # exercise 02.4: fresh tokens
Wq24 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
V24 = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 1.0]])     # the values the student recovers


SCALE24 = default_scale(3)                                # 02.4: d_k = 3


def _weights_02_4(scale=SCALE24, axis=-1, transpose_K=True, W_q=Wq24, W_k=None, decimals=None):
    K = X24 if W_k is None else X24 @ W_k                                # W_k = I: K = X
    S = (X24 @ W_q) @ (K.T if transpose_K else K) * scale
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    A = E / E.sum(axis=axis, keepdims=True)
    return A if decimals is None else np.round(A, decimals)


def Y_of_02_4() -> np.ndarray:
    """The output Y the exercise prints: the student recovers V from it and the weights."""
    return _weights_02_4() @ V24


def rounded_weights_02_4(got: np.ndarray) -> str | None:
    """02.4: the right method with the weights rounded to 1 or 3 decimals (2 is a named mistake; at 4 the
    answer counts), or None."""
    for decimals in (1, 3):
        A = _weights_02_4(decimals=decimals)
        if abs(np.linalg.det(A)) > 1e-9 and np.allclose(got, np.linalg.solve(A, Y_of_02_4()), rtol=0,
                                                         atol=TOLERANCE):
            return (f"your method is right, but you rounded the weights to {decimals} decimal"
                    f"{'' if decimals == 1 else 's'}; solving for V magnifies that error. Keep A unrounded.")
    return None


def lesson02():
    def V(left=True, **how):
        A = _weights_02_4(**how)
        return np.linalg.solve(A, Y_of_02_4()) if left else np.linalg.solve(A.T, Y_of_02_4())

    return [
        Choice("02.1", "Two tokens have identical rows in X. What do you see in A?", "c", {
            "a": "equal columns is half of it: equal rows of X also give equal queries, and so equal "
                 "rows of A.",
            "b": "equal rows is half of it: equal rows of X also give equal keys, and every query "
                 "scores them the same, so their columns are equal too.",
            "d": "with W_q = W_k the scores QKᵀ are symmetric, but even then A is not: the softmax "
                 "normalises each row on its own."}),
        _design_02(),
        _debug_02(),
        Exercise(
            "02.4", "Fresh tokens: Y = softmax(Q Kᵀ / √3) V is printed; recover the values V (3 × 2).",
            V, {
                "no scaling": (lambda: V(scale=1.0), "your weights forgot to divide the scores by "
                                                     "√d_k = √3."),
                "divided by √4": (lambda: V(scale=0.5),
                                  "you divided the scores by √4 = 2, section 4's d_k (the variable `d_k` "
                                  "still holds 4); here the keys have width 3, so divide by √3."),
                "divided by √2": (lambda: V(scale=default_scale(2)),
                                  "you divided the scores by √2: 2 is d_v, the width of a value (each row of "
                                  "Y has 2 numbers). The scale is √d_k, from the width of a key: here 3."),
                "divided by d_k": (lambda: V(scale=1 / 3),
                                   "you divided the scores by d_k = 3; the formula divides by its "
                                   "square root, √3."),
                "wrong axis": (lambda: V(axis=0),
                               "your softmax ran down the columns; each query's row of A must sum to 1."),
                "K not transposed": (lambda: V(transpose_K=False),
                                     "your scores are Q @ K, not Q @ K.T: row i of the scores must "
                                     "hold q_i · k_j for every key j, so transpose K."),
                "A transposed": (lambda: V(left=False),
                                 "your weights are Aᵀ: either you solved Aᵀ V = Y, or you built Aᵀ itself "
                                 "(K Qᵀ with the softmax down its columns). The outputs are Y = A V (row i "
                                 "of Y mixes the values with row i of A): np.linalg.solve(A, Y)."),
                "Y itself": (Y_of_02_4, "that is Y, the printed output; recover the values V it mixes."),
                "forgot W_q": (lambda: V(W_q=np.eye(3)),
                               "your queries are the tokens themselves; they are Q = X @ W_q (W_q is "
                               "given; only W_k = I)."),
                "W_q transposed": (lambda: V(W_q=Wq24.T),
                                   "your scores are X W_qᵀ Xᵀ: either you used W_q.T (the column "
                                   "reading), or you computed K Qᵀ instead of Q Kᵀ (with W_k = I the two "
                                   "are the same). The scores are Q @ K.T, with Q = X @ W_q and W_q as "
                                   "printed."),
                "keys from W_q": (lambda: V(W_k=Wq24),
                                  "your keys are X @ W_q, so your scores are Q Qᵀ; here W_k = I, so the keys "
                                  "are the tokens themselves: K = X, and the scores are Q @ X.T."),
                "applied A": (lambda: _weights_02_4() @ Y_of_02_4(),
                              "you multiplied Y by A again; Y = A V, so undo A instead: "
                              "V = np.linalg.solve(A, Y)."),
                "applied Aᵀ": (lambda: _weights_02_4().T @ Y_of_02_4(),
                               "you multiplied Y by Aᵀ; Y = A V, so undo A instead (no transpose): "
                               "V = np.linalg.solve(A, Y)."),
                "weights rounded": (lambda: V(decimals=2),
                                    "your method is right, but you rounded the weights to 2 decimals; "
                                    "solving for V magnifies that error. Keep A unrounded (at least 4 "
                                    "decimals)."),
            }, expects="the values V, a 3 × 2 array (one row per token)", softmax=True,
            fallback=rounded_weights_02_4),
    ]
