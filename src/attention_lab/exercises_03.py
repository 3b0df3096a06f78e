"""Lesson 03's exercises (registered in exercises.EXERCISES): many heads."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial
from .examples import the_cat_sat
from .heads import multi_head_unchecked
from .judging import as_numbers, judge_fix
from .matrix import default_scale, softmax


def _design_03():
    """03.2: a W_q whose head 1 looks two tokens back instead of one; head 2 unchanged."""
    ex = the_cat_sat()
    t = ex.theta
    back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])     # row form: p -> p - 1

    def weights(W):
        return multi_head_unchecked(ex.X, ex.X, W, ex.W_k, ex.W_v, ex.W_O, 2, None, default_scale(2))[1]

    def with_head1(block):
        W = ex.W_q.copy()
        W[:2, :2] = block
        return W

    reference = weights(ex.W_q)
    queries = np.arange(2, 6)                                # sat, on, the, mat: two tokens back exist

    def finds(w, shift):
        return (np.argmax(w[0][queries], axis=1) == queries - shift).all()

    def judge(answer):
        W = as_numbers(answer, (4, 4), "a W_q")
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

    judge = judge_fix(right, wrong, [(M1, 3), (M2, 2)], "expected (3, 5, 2) for a (5, 6) array and "
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
SCALE34 = default_scale(2)                               # 03.4: each head's d_k = 2
Wo34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])


def lesson03():
    I4 = np.eye(4)

    def out(h=2, W_O=Wo34, scale=SCALE34):
        return multi_head_unchecked(X34, X34, Wq34, I4, I4, W_O, h, None, scale)[0]

    def heads(scale=SCALE34):                                     # (2, 3, 2) each head's output
        Q = X34 @ Wq34
        return np.array([softmax(Q[:, c] @ X34[:, c].T * scale) @ X34[:, c]
                         for c in (slice(0, 2), slice(2, 4))])

    def part(keep=0, order=(0, 1), W_O=Wo34, scale=SCALE34):     # one head's part of the output
        H = heads(scale)
        concat = np.zeros((3, 4))
        slot = order.index(keep)                                     # where that head was put
        concat[:, 2 * slot:2 * slot + 2] = H[keep]
        return concat @ W_O

    def one_head_part():
        Y = softmax((X34 @ Wq34) @ X34.T * default_scale(4)) @ X34   # one head of width 4
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
            }, expects="head 1's contribution, a 3 × 4 array (one row per token)", softmax=True),
    ]
