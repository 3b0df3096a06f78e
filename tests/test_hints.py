"""Hints tested against wrong answers written apart from the exercises' mistake tables.

Every wrong answer here is typed by hand or computed in plain NumPy, the way a student would get it;
none calls an exercise's own mistake functions. Each must get its hint (the mistake's name and a key
phrase of the hint). A fallback never contradicts itself, and no exercise passes with a shortcut:
`3 * np.ones((4, 4))` for 01.3, `al.decode_with_cache` for 05.3, finite differences for 06.3 (one call
of any package function: tests/test_one_call.py).
"""

import re

import numpy as np
import pytest
from handed_out import HANDED_OUT
from lesson_helpers import grads_by_differences

import attention_lab as al
from attention_lab.answer_keys import answer_key, mistakes_of
from attention_lab.checks import Choice, in_words

I2, I3, I4 = np.eye(2), np.eye(3), np.eye(4)


def sm(s, axis=-1):
    """Plain softmax, as a student writes it."""
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def causal_sm(S):
    """Softmax of each row over keys 0..i only."""
    return sm(np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf))


# ---------- the data printed in the exercises' cells (typed from the notebooks) ----------
X01 = al.cats_chase_mice().X                                       # noun, verb, animal, small
X15 = np.array([[1.0, 1.0], [0.0, 2.0], [1.0, 0.0]])
WQ15 = np.array([[1.0, 1.0], [0.0, 1.0]])                          # column convention: q = W x
V15 = {1: np.array([0.0, 2.0]), 2: np.array([1.0, 0.0])}
Y15 = np.array([0.84776623, 0.94029221])                          # the printed y_1
X24 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])
WQ24 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
Y24 = np.array([[1.0, 0.0], [0.51582795, -0.48417205], [0.74767601, -0.25232399]])
X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])
WQ34 = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0]])
WO34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])
XD44 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
XE44 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
Q54, K54 = np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0, 0.0])


def v3_from(w):
    """01.5 by hand: y_1 = w_1 v_1 + w_2 v_2 + w_3 v_3, solved for v_3."""
    return (Y15 - w[0] * V15[1] - w[1] * V15[2]) / w[2]


def head_outputs(scale=2 ** -0.5):
    """03.4 by hand: each head of width 2 on its own columns (W_k = W_v = I)."""
    Q = X34 @ WQ34
    return [sm(Q[:, c] @ X34[:, c].T * scale) @ X34[:, c] for c in (slice(0, 2), slice(2, 4))]


def decoder_Y1(causal=True, scale=3 ** -0.5):
    S = XD44 @ XD44.T * scale
    return causal_sm(S) if causal else sm(S)


def cross(Y1, scale=3 ** -0.5, pad="mask"):
    S = (2 * Y1) @ XE44.T * scale
    allowed = {"mask": [True, True, True, False], "none": [True] * 4, "inverted": [False] * 3 + [True]}[pad]
    return sm(np.where(allowed, S, -np.inf)) @ XE44


def rope_score(pq, pk, w1=0.1):
    """05.4 by hand: pair i = (2i, 2i+1) turns by position × w_i, w = (1, w_1)."""
    def turn(v, p):
        out = v.copy()
        for i, w in enumerate((1.0, w1)):
            c, s = np.cos(p * w), np.sin(p * w)
            out[2 * i], out[2 * i + 1] = c * v[2 * i] - s * v[2 * i + 1], s * v[2 * i] + c * v[2 * i + 1]
        return out
    return float(turn(Q54, pq) @ turn(K54, pk))


def rotation(angle):
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


def with_block(W, block, rows=slice(0, 2), cols=slice(0, 2)):
    W = np.array(W, dtype=float)
    W[rows, cols] = block
    return W


def table(*entries):
    T = np.zeros((3, 4))
    for r, c, v in entries:
        T[r, c] = v
    return T


def place_scores(targets, big=8.0, n=8):
    M = np.zeros((n, n))
    M[np.arange(n), np.asarray(targets) % n] = big
    return M


def mask_weights(S, allowed):
    return sm(np.where(allowed, S, -np.inf))


# ---------- student functions for the debug exercises (plain NumPy) ----------
def weights_planted(q, K):
    e = np.exp(K @ q - (K @ q).max())
    return e / e.max()


def weights_no_max(q, K):
    e = np.exp(K @ q)
    return e / e.sum()


def weights_no_exp(q, K):
    return (K @ q) / (K @ q).sum()


def weights_unshifted_planted(q, K):          # the shift taken out, the planted line left as it was
    scores = K @ q                       # (n,) one score per key
    e = np.exp(scores)
    return e / e.max()


def weights_min_planted(q, K):                # the shift turned round, the planted line left as it was
    scores = K @ q
    e = np.exp(scores - scores.min())
    return e / e.max()


def weights_over_unshifted_sum(q, K):
    scores = K @ q
    e = np.exp(scores - scores.max())
    return e / np.exp(scores).sum()


def attention_keys_by_queries(Q, K, V):       # K Qᵀ softmaxed along its rows, then turned round
    S = K @ Q.T / np.sqrt(K.shape[1])
    A = al.softmax(S, axis=-1).T
    return A @ V


def attention_axis_minus_2(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    A = al.softmax(S, axis=-2)
    return A @ V


def attention_transposed_twice(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    A = al.softmax(S.T, axis=1).T
    return A @ V


def attention_columns(Q, K, V):
    return sm(Q @ K.T / np.sqrt(K.shape[1]), axis=0) @ V


def attention_columns_then_rows(Q, K, V):     # 02.3's hint followed: the column softmax's rows summing to 1
    A = sm(Q @ K.T / np.sqrt(K.shape[1]), axis=0)
    A = A / A.sum(axis=1, keepdims=True)
    return A @ V


def attention_K(Q, K, V):
    return sm(Q @ K / np.sqrt(K.shape[1])) @ V


def attention_by_dk(Q, K, V):
    return sm(Q @ K.T / K.shape[1]) @ V


def attention_unscaled(Q, K, V):
    return sm(Q @ K.T) @ V


def split_planted(M, h):
    return M.reshape(h, M.shape[0], M.shape[1] // h)


def split_no_transpose(M, h):
    return M.reshape(M.shape[0], h, M.shape[1] // h)


def split_dot_t(M, h):
    return M.reshape(M.shape[0], h, M.shape[1] // h).T


def split_interleaved(M, h):
    return np.stack([M[:, i::h] for i in range(h)])


def masked_times(S, mask):
    return sm(S * mask)


def masked_after(S, mask):
    return sm(S) * mask


def masked_pytorch(S, mask):                # True = masked, as nn.MultiheadAttention reads it
    return sm(np.where(mask, -np.inf, S))


def decode_last_query(X, W_q, W_k, W_v):
    K, V, Y = X[:0] @ W_k, X[:0] @ W_v, []
    for x in X:
        K, V = np.vstack([K, x @ W_k]), np.vstack([V, x @ W_v])
        Y.append(sm(K @ (X[-1] @ W_q) / np.sqrt(W_q.shape[1])) @ V)
    return np.array(Y)


def decode_by_dk(X, W_q, W_k, W_v):
    K, V, Y = X[:0] @ W_k, X[:0] @ W_v, []
    for x in X:
        K, V = np.vstack([K, x @ W_k]), np.vstack([V, x @ W_v])
        Y.append(sm(K @ (x @ W_q) / W_q.shape[1]) @ V)
    return np.array(Y)


def decode_pytorch_mask(X, W_q, W_k, W_v):
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])
    future = np.triu(np.ones(S.shape, dtype=bool), 1)
    return sm(np.where(~future, -np.inf, S)) @ (X @ W_v)   # True (the past) taken as 'masked'


def decode_pytorch_mask_al(X, W_q, W_k, W_v):
    S = (X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])
    return al.softmax(np.where(al.causal_mask(len(X)), -np.inf, S)) @ (X @ W_v)


def decode_unmasked(X, W_q, W_k, W_v):
    return sm((X @ W_q) @ (X @ W_k).T / np.sqrt(W_q.shape[1])) @ (X @ W_v)


def decode_query_of(step):
    """A cached decoder whose step t asks with the query of token step(t), typed out in plain NumPy."""
    def decode(X, W_q, W_k, W_v):
        K, V, Y = X[:0] @ W_k, X[:0] @ W_v, []
        for t, x in enumerate(X):
            K, V = np.vstack([K, x @ W_k]), np.vstack([V, x @ W_v])
            Y.append(sm(K @ (X[step(t)] @ W_q) / np.sqrt(W_q.shape[1])) @ V)
        return np.array(Y)
    return decode


def decode_with_the_package(X, W_q, W_k, W_v):
    return al.decode_with_cache(X, W_q, W_k, W_v)[0]


def grads_of(fix=True, scaled=True, dK_T=True, masked=True, ds=None):
    def causal_attention_grads(Q, K, V, dY):
        s = 1 / np.sqrt(K.shape[1])
        S = s * Q @ K.T
        A = causal_sm(S) if masked else sm(S)
        dA = dY @ V.T
        dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) if fix else A * dA
        dS = dS if ds is None else ds(A, dA)           # a student's own softmax line
        dR = s * dS if scaled else dS                  # dL/dR, R = Q Kᵀ before the scale
        return dR @ K, (dR.T if dK_T else dR) @ Q, A.T @ dY
    return causal_attention_grads


def grads_with_the_package(Q, K, V, dY):
    def L(Q_):
        return float((al.scaled_dot_product_attention(Q_, K, V, mask=al.causal_mask(len(Q)))[0] * dY).sum())
    return al.numerical_gradient(L, Q), np.zeros_like(K), np.zeros_like(V)


# ---------- the cases: (key, answer, mistake's name, key phrase of its hint) ----------
def _ds64(use_weights=True, subtract=True, scale=2 ** -0.5):
    s = scale * np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]]) @ np.array([2.0, 1.0])   # q Kᵀ/√2
    a = sm(s) if use_weights else s
    g = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]) @ np.array([1.0, -1.0])   # dL/da = (1, -1, 0)
    return a * (g - (a @ g if subtract else 0.0))


def _diagonal64():
    """06.4 with only the diagonal of the softmax's Jacobian: a (1 - a) dL/da, as 06.3's slip (review round
    7, item 6), worked out here: a = softmax(3/√2, 2/√2, 4/√2), dL/da = (1, -1, 0)."""
    a = sm(np.array([3.0, 2.0, 4.0]) / np.sqrt(2))
    return a * (1 - a) * np.array([1.0, -1.0, 0.0])


W13 = np.zeros((4, 4))
_X4 = al.source_004().X
_W103 = al.source_004().printed["self_weights"]                    # 10.3: the printed weights, read back
_S103 = _X4 @ _X4.T / np.sqrt(2)
_IMPLIED103 = np.log(_W103[:, 1:] / _W103[:, :1])
_REAL103 = _S103[:, 1:] - _S103[:, :1]
_q102, _k102 = np.array([1.371, -3.702, 2.628]), np.array([4.041, 1.368, -2.358])
_t = al.the_cat_sat().theta
_WQ32 = al.the_cat_sat().W_q

CASES = [
    ("00.1", [7, 16], "shape of Q", "shape of Q"),
    ("00.1", (16, 16), "Q transposed first", "Qᵀ K"),
    ("00.1", [16, 7], "shape of K.T", "Kᵀ"),
    ("00.2", [[1, 2, 3], [4, 5, 6]], "PyTorch layout", "(out_features, in_features)"),
    ("00.2", [[1, 2], [3, 4], [5, 6]], "reshaped", "reshape"),
    ("00.2", [[4, 1], [5, 2], [6, 3]], "columns swapped", "W[i, j] = weight[j, i]"),
    ("00.3", 3, "counted from 1", "from 0"),
    ("00.3", 1, "one too few", "x₂"),
    ("00.3", [1, 2], None, "expected one index, the row of X that holds x₃; got a list of 2 numbers."),
    ("01.1", X01 @ X01[2], "raw scores", "softmax"),
    ("01.1", sm(X01 @ X01[2]), "weights only", "two rows"),
    ("01.1", [sm(X01 @ X01[2]), X01 @ X01[2]], "rows swapped", "scores first"),
    ("01.1", [X01 @ X01[1], sm(X01 @ X01[1])], "off by one (x₂)", "token 2"),
    ("01.1", [X01 @ X01[3], sm(X01 @ X01[3])], "off by one (x₄)", "token 4"),
    ("01.1", [X01 @ X01[2], (X01 @ X01[2]) / (X01 @ X01[2]).sum()], "no exp", "exp"),
    ("01.1", [X01 @ X01[2], np.exp(X01 @ X01[2])], "exp not divided", "sum of the exps"),
    ("01.1", [X01 @ X01[2], sm(X01 @ X01[2] / 2)], "weights scaled", "does not scale"),
    ("01.1", [sm(X01 @ X01[2]) @ X01, sm(X01 @ X01[2])], "output and weights", "not its scores"),
    ("01.2", "a", "a", "sharper"),
    ("01.2", "(c)", "c", "not flatter"),
    ("01.2", "D", "d", "equal only when"),
    ("01.3", al.cats_chase_mice().W_q, "lesson's W_q", "lesson's W_q"),
    ("01.3", with_block(W13, [[3.0, 0.0, 0.0, 3.0]], rows=slice(3, 4), cols=slice(0, 4)).T,
     "transposed", "row 'small'"),
    ("01.3", with_block(W13, [[5.0]], rows=slice(3, 4), cols=slice(0, 1)), "noun only", "both are nouns"),
    ("01.3", with_block(W13, [[5.0]], rows=slice(3, 4), cols=slice(2, 3)), "small not asked",
     "does not ask 'small?'"),
    ("01.3", with_block(W13, [[5.0]], rows=slice(3, 4), cols=slice(3, 4)), "small only",
     "small ties with mice"),
    ("01.3", np.diag([2.0, 2.0, 2.0, 0.0]), "empty row", "is zero"),
    ("01.3", with_block(W13, [[0.5, 0.0, 0.0, 0.5]], rows=slice(3, 4), cols=slice(0, 4)), "too weak",
     "by too little"),
    ("01.3", 3 * np.ones((4, 4)), "more features", "fresh sentence"),
    ("01.3", 5 * np.ones((4, 4)), "more features", "noun and small"),
    ("01.3", with_block(W13, [[0.0, 0.0, 3.0, 3.0]], rows=slice(3, 4), cols=slice(0, 4)), "more features",
     "not a small noun"),                                          # asks 'animal and small?
    ("01.4", weights_planted, "planted", "add up to"),
    ("01.4", weights_no_max, "no max", "overflow"),
    ("01.4", weights_no_exp, "no exp", "take exp"),
    ("01.4", weights_unshifted_planted, "shift changed", "the line you changed was right"),
    ("01.4", weights_min_planted, "shift changed", "subtracting the largest score"),
    ("01.4", weights_over_unshifted_sum, "unshifted sum", "e.sum()"),
    ("01.5", v3_from(sm(X15 @ (X15[0] @ WQ15))), "no transpose", "x @ M.T"),
    ("01.5", v3_from(sm(X15 @ (WQ15 @ X15[1]))), "weights of token 2", "token 2"),
    ("01.5", Y15 - sm(X15 @ (WQ15 @ X15[0]))[0] * V15[1] - sm(X15 @ (WQ15 @ X15[0]))[1] * V15[2],
     "not divided by w_13", "divide by the weight"),
    ("01.5", Y15, "y_1 itself", "printed output"),
    ("01.5", v3_from(sm(X15 @ (WQ15 @ X15[0]) / np.sqrt(2))), "scaled", "no scaling"),
    ("01.5", v3_from(sm(X15 @ X15[0])), "no M", "without M"),                  # q = x_1: M left out
    ("01.5", v3_from(sm((X15 @ WQ15.T) @ (WQ15 @ X15[0]))), "keys through M", "k = x"),
    ("01.5", v3_from(sm((X15 @ WQ15) @ (X15[0] @ WQ15))), "keys through M, no transpose", "k = x"),
    ("02.1", "a", "a", "equal rows of A"),
    ("02.1", "b", "b", "columns are equal too"),
    ("02.1", "d", "d", "even then A is not"),
    ("02.2", [1, 0, 1], "too weak", "Scale your query up"),
    ("02.2", [2, 0, 2], "too weak", "banana still"),
    ("02.2", [10, 0, 7], "uneven", "same entry"),
    ("02.2", [0, 5, 0], "banana", "looks for banana"),
    ("02.3", HANDED_OUT["02.3"], "planted", "planted bug"),
    ("02.3", attention_columns, "planted numbers", "a softmax down the columns"),
    ("02.3", attention_keys_by_queries, "planted numbers", "If you computed K Qᵀ"),
    ("02.3", attention_axis_minus_2, "planted numbers", "axis=-2 is axis=0"),
    ("02.3", attention_transposed_twice, "planted numbers", "a transpose afterwards"),
    ("02.3", attention_columns_then_rows, "column softmax, rows rescaled", "your rows sum to 1 now"),
    ("02.3", attention_K, "K not transposed", "Q @ K.T"),
    ("02.3", attention_by_dk, "divided by d_k", "square root"),
    ("02.3", attention_unscaled, "no scaling", "√d_k"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T), Y24), "no scaling", "√3"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T / 3), Y24), "divided by d_k", "square root"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T / np.sqrt(3)).T, Y24), "A transposed", "Y = A V"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24 / np.sqrt(3)), Y24), "K not transposed", "transpose K"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T / np.sqrt(3), axis=0), Y24), "wrong axis", "columns"),
    ("02.4", Y24, "Y itself", "printed output"),
    ("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T / np.sqrt(2)), Y24), "divided by √2",
     "width of a value"),
    ("03.1", "a", "a", "parameters stays the same"),
    ("03.1", "c", "c", "different outputs"),
    ("03.1", "d", "d", "outputs do change"),
    ("03.2", _WQ32, "previous", "lesson's W_q"),
    ("03.2", with_block(_WQ32, 16.0 * rotation(_t)), "still previous", "sharper or softer"),
    ("03.2", _WQ32.T, "next", "next token"),
    ("03.2", with_block(with_block(_WQ32, 8.0 * rotation(2 * _t)), np.zeros((2, 2)), slice(2, 4),
                        slice(2, 4)),
     "head 2 changed", "head 2"),
    ("03.2", with_block(_WQ32, 8.0 * rotation(2 * _t) * np.array([[1.0, -1.0], [-1.0, -1.0]])), "no rotation",
     "no rotation times a positive number"),
    ("03.2", np.block([[np.zeros((2, 4))], [8.0 * rotation(2 * _t), _WQ32[2:, 2:]]]), "block empty",
     "all zeros"),
    ("03.3", split_planted, "planted numbers", "row after row"),
    ("03.3", split_dot_t, "axes reversed", "(d_k, h, n)"),
    ("03.3", split_no_transpose, "no transpose", "transpose(1, 0, 2)"),
    ("03.3", split_interleaved, "interleaved", "every h-th column"),
    ("03.4", np.hstack(head_outputs()) @ WO34, "whole output", "both heads"),
    ("03.4", head_outputs()[0] @ WO34[:2], "head 1 only", "stack head 2"),
    ("03.4", head_outputs()[1] @ WO34[2:], "head 2 only", "head 2"),
    ("03.4", [head_outputs()[1] @ WO34[2:], head_outputs()[0] @ WO34[:2]], "heads stacked in the wrong order",
     "wrong order"),
    ("03.4", [head_outputs()[0] @ WO34[2:], head_outputs()[1] @ WO34[:2]], "heads in the wrong order",
     "wrong order"),
    ("03.4", [np.hstack([head_outputs()[0], np.zeros((3, 2))]),
              np.hstack([np.zeros((3, 2)), head_outputs()[1]])], "forgot W_O", "@ W_O"),
    ("03.4", [np.hstack([head_outputs()[0], np.zeros((3, 2))]) @ WO34.T,
              np.hstack([np.zeros((3, 2)), head_outputs()[1]]) @ WO34.T], "transposed W_O", "W_O.T"),
    ("03.4", [head_outputs(scale=0.5)[0] @ WO34[:2], head_outputs(scale=0.5)[1] @ WO34[2:]], "scaled by 1/2",
     "1/√2"),
    ("03.4", [head_outputs(scale=1.0)[0] @ WO34[:2], head_outputs(scale=1.0)[1] @ WO34[2:]], "no scaling",
     "√2"),
    ("03.4", head_outputs(), "head outputs", "W_O[:2]"),
    ("03.4", [(np.hstack(head_outputs()) @ WO34)[:, :2], (np.hstack(head_outputs()) @ WO34)[:, 2:]],
     "output columns", "owns no output columns"),
    ("03.4", [np.hstack([head_outputs()[0] @ WO34[:2, :2], np.zeros((3, 2))]),
              np.hstack([np.zeros((3, 2)), head_outputs()[1] @ WO34[2:, 2:]])], "diagonal blocks",
     "every output column"),
    ("04.1", "b", "b", "cannot see"),
    ("04.1", "c", "c", "masked"),
    ("04.1", "d", "d", "last row does change"),
    ("04.2", np.tril(np.ones((6, 6), dtype=bool)), "causal only", "block mask"),
    ("04.2", np.kron(I2, np.ones((3, 3))), "blocks only", "own future"),
    ("04.2", np.triu(np.kron(I2, np.ones((3, 3)))), "upper triangle", "transposed"),
    ("04.2", ~(np.tril(np.ones((6, 6), dtype=bool)) & np.kron(I2, np.ones((3, 3))).astype(bool)),
     "inverted", "nn.MultiheadAttention"),
    ("04.2", np.where(np.tril(np.ones((6, 6), dtype=bool)) & np.kron(I2, np.ones((3, 3))).astype(bool), 0.0,
                      -np.inf), "additive float mask", "attn_mask"),
    ("04.2", np.where(np.tril(np.ones((6, 6))) * np.kron(I2, np.ones((3, 3))) > 0, 0.0, -1e9),
     "additive float mask", "yours == 0"),
    ("04.3", masked_times, "planted numbers", "exp(0) = 1 is not 0"),
    ("04.3", masked_after, "after softmax", "before it"),
    ("04.3", masked_pytorch, "inverted", "nn.MultiheadAttention"),
    ("04.4", cross(XD44), "skipped the self-attention", "causal self-attention"),
    ("04.4", cross(decoder_Y1(causal=False) @ XD44), "self-attention not causal", "np.tril"),
    ("04.4", cross(decoder_Y1() @ XD44, pad="none"), "no padding mask", "padding"),
    ("04.4", cross(decoder_Y1() @ XD44, pad="inverted"), "inverted padding mask", "nn.MultiheadAttention"),
    ("04.4", cross(decoder_Y1(scale=1 / 3) @ XD44, scale=1 / 3), "divided by 3", "square root"),
    ("04.4", cross(XD44 + decoder_Y1() @ XD44), "residual after the self-attention", "no residual"),
    ("04.4", decoder_Y1() @ XD44 + cross(decoder_Y1() @ XD44), "residual around the cross-attention",
     "has none"),
    ("04.4", XD44 + decoder_Y1() @ XD44 + cross(XD44 + decoder_Y1() @ XD44), "residual on both sub-layers",
     "both sub-layers"),
    ("04.4", sm((2 * XE44[:3]) @ (decoder_Y1() @ XD44).T / np.sqrt(3)) @ (decoder_Y1() @ XD44),
     "queries and keys swapped", "queries come from the decoder"),
    ("05.1", "a", "a", "mice sees all three"),
    ("05.1", "b", "b", "word before it changes"),
    ("05.1", "d", "d", "the words they see"),
    ("05.2", table((2, 2, 3.0)), "last position", "position 2, counting from 0"),
    ("05.2", table((0, 0, 3.0)), "not asked for", "'animal'"),
    ("05.2", table((0, 2, 1.0)), "too weak", "0.9"),
    ("05.2", table((0, 2, 3.0), (0, 0, 3.0)), "others changed: noun", "reads only the keys' 'noun'"),
    ("05.2", table((0, 2, 3.0), (0, 3, 3.0)), "others changed: small", "'small' feature (W_q row 3)"),
    ("05.2", table((0, 2, 3.0), (2, 3, 1.0)), "others changed: small", "'small' feature (W_q row 3)"),
    ("05.2", table((0, 2, 4.0), (2, 1, 2.0)), "others changed: verb", "chase's question"),
    ("05.3", decode_last_query, "planted numbers", "one and the same query"),
    ("05.3", decode_by_dk, "divided by d_k", "square root"),
    ("05.3", decode_pytorch_mask, "inverted mask", "nn.MultiheadAttention"),
    ("05.3", decode_pytorch_mask_al, "inverted mask, al.softmax", "nn.MultiheadAttention"),
    ("05.3", decode_unmasked, "unmasked", "future"),
    ("05.3", decode_query_of(lambda t: t - 1), "previous token", "token t's own"),
    ("05.3", decode_query_of(lambda t: 0), "first token", "token t's own"),
    ("05.4", [-0.1544, -0.1544], "second score twice", "offset 3"),
    ("05.4", [0, 0], "no rotation", "rotate each pair"),
    ("05.4", [rope_score(2, 5), rope_score(2, 5)], "unsigned offset", "signed offset"),
    ("05.4", [rope_score(5, 2), rope_score(2, 5)], "signs flipped", "wrong signs"),
    ("05.4", [rope_score(2, 5, 0.01), rope_score(5, 2, 0.01)], "w_1 = 1/100", "100^(-1/2)"),
    ("05.4", [rope_score(2, 5, 10000 ** -0.5), rope_score(5, 2, 10000 ** -0.5)], "w_1 = 1/100", "base 10000"),
    ("05.4", rope_score(2, 5, 0.01), "one score, w_1 = 1/100", "both scores"),
    ("05.4", [rope_score(2, 5, 0.0), rope_score(5, 2, 0.0)], "one pair", "second pair"),
    ("05.4", [rope_score(2, 5, 10 ** (-2 / 4)), rope_score(5, 2, 10 ** (-2 / 4))], "w_1 = 10^(-1/2)",
     "base 10"),
    ("05.4", [rope_score(2, 5, 100 ** (-1 / 4)), rope_score(5, 2, 100 ** (-1 / 4))], "w_1 = 10^(-1/2)",
     "100^(-1/4)"),
    ("06.1", "b", "b", "residual path"),
    ("06.1", "c", "c", "commonest of the other seven"),
    ("06.1", "d", "d", "trains fine"),
    ("06.2", place_scores(np.arange(8) - 1), "rotate right", "rotates right"),
    ("06.2", place_scores(7 - np.arange(8)), "reversal", "read place i + 1"),
    ("06.2", place_scores(np.arange(8) + 1, big=3.0), "too weak", "ln(0.9"),
    ("06.2", place_scores(np.arange(8) + 1, big=2.5), "too weak", "less than 0.9"),
    ("06.2", np.roll(np.eye(8), 1, axis=1), "weights for scores", "sum to 1"),
    ("06.2", place_scores(np.arange(8) + 1) * (np.arange(8) < 7)[:, None], "no wrap", "wrap around"),
    ("06.3", grads_of(fix=False), "planted numbers", "only part of the softmax's derivative"),
    ("06.3", grads_of(scaled=False), "no scale", "1/√d_k"),
    ("06.3", grads_of(dK_T=False), "dK not transposed", "dSᵀ Q"),
    ("06.3", grads_of(masked=False), "unmasked", "mask"),
    ("06.3", grads_by_differences, "finite differences", "not exact"),
    ("06.3", grads_of(ds=lambda A, dA: A * (dA - dA.sum(axis=1, keepdims=True))), "A left out of the sum",
     "rowsum(A * dA), not rowsum(dA)"),
    ("06.3", grads_of(ds=lambda A, dA: A * (1 - A) * dA), "diagonal only",
     "diagonal of the softmax's Jacobian"),
    ("06.3", grads_of(ds=lambda A, dA: A * (dA - (A * dA).mean(axis=1, keepdims=True))), "mean for the sum",
     "a mean in place of the row sum"),
    ("06.4", _ds64(subtract=False), "no subtraction", "subtract"),
    ("06.4", np.array([1.0, -1.0, 0.0]), "softmax skipped", "through the softmax"),
    ("06.4", _ds64(use_weights=False), "scores for weights", "weights a = softmax(s)"),
    ("06.4", _ds64(scale=1.0), "unscaled scores", "√d_k = √2"),
    ("06.4", _ds64(scale=0.5), "scores divided by 2", "square root"),
    ("06.4", _ds64() / np.sqrt(2), "through the scale", "unscaled products"),
    ("06.4", _ds64() @ np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]]) / np.sqrt(2), "dL/dq", "dL/dq"),
    ("06.4", _diagonal64(), "diagonal only", "only the diagonal of the softmax's Jacobian"),
    ("06.4", _diagonal64()[None, :], "diagonal only", "a * (1 - a) * dL/da"),     # as a (1, 3) row
    ("06.4", -_ds64()[:, None], "sign flipped", "signs are flipped"),          # as a (3, 1) column
    ("06.4", sm(np.array([3.0, 2.0, 4.0]) / np.sqrt(2)), "the weights", "forward pass"),
    ("06.3", grads_of(ds=lambda A, dA: A * ((A * dA).sum(axis=1, keepdims=True) - dA)), "sign flipped",
     "wrong sign"),
    # review round 16, item 5: the leading A (a) left off, and an unweighted mean of dA
    ("06.3", grads_of(ds=lambda A, dA: dA - (A * dA).sum(axis=1, keepdims=True)), "A left off",
     "missing the factor A in front"),
    ("06.3", grads_of(ds=lambda A, dA: A * (dA - dA.mean(axis=1, keepdims=True))), "unweighted mean",
     "the same share, 1/n"),
    ("06.4", [0.856, -1.144, -0.144], "leading a left off", "missing the factor a in front"),
    # review round 17, item 4: 06.4 has one query, so its hint writes the weighted mean a · dL/da, no rowsum
    ("06.4", [0.856, -1.144, -0.144], "leading a left off", "dL/ds = a ⊙ (dL/da − a · dL/da)."),
    ("06.4", _diagonal64(), "diagonal only", "Together: dL/ds = a ⊙ (dL/da − a · dL/da)."),
    # review round 17, item 5: A left off with the future keys masked to 0 (as A would have zeroed them), and
    # the plain mean of dA over each query's allowed keys only
    ("06.3", grads_of(ds=lambda A, dA: np.where(np.tril(np.ones(A.shape, bool)),
                                                dA - (A * dA).sum(axis=1, keepdims=True), 0.0)),
     "A left off, future keys masked", "missing the factor A in front"),
    ("06.3", grads_of(ds=lambda A, dA: A * (dA - np.tril(dA).sum(axis=1, keepdims=True)
                                            / np.arange(1, len(dA) + 1)[:, None])),
     "unweighted mean of the allowed keys", "the same share, 1/(i + 1)"),
    ("10.1", "b", "b", "equal weights"),
    ("10.1", "c", "c", "sums to 1"),
    ("10.1", "d", "d", "order"),
    ("10.2", _q102 @ _k102, "full precision", "rounded to 2 decimals"),
    ("10.2", np.round(_q102, 1) @ np.round(_k102, 1), "one decimal", "one decimal"),
    ("10.2", (np.floor(np.abs(_q102) * 100) / 100 * np.sign(_q102))
     @ (np.floor(np.abs(_k102) * 100) / 100 * np.sign(_k102)),
     "cut off", "rounds them"),
    ("10.2", np.array([1.371, -3.702, 2.628]) @ np.array([4.04, 1.37, -2.36]), None, "rounded k only"),
    ("10.2", np.array([1.37, -3.70, 2.63]) @ np.array([4.041, 1.368, -2.358]), None, "rounded q only"),
    ("10.2", -5.73, None, "one of the two vectors (q or k)"),     # q only and k only, both at 2 decimals
    ("10.3", _IMPLIED103, "implied only", "subtract"),
    ("10.3", _REAL103, "real only", "minus these"),
    ("10.3", _REAL103 - _IMPLIED103, "signs flipped", "signs are flipped"),
    ("10.3", np.log(_W103[:, :1] / _W103[:, 1:]) - _REAL103, "ratios inverted", "other way"),
    ("10.3", _W103[:, 1:] / _W103[:, :1] - _REAL103, "no logarithm", "logarithm"),
    ("10.3", _W103[:, 1:] - _W103[:, :1] - _REAL103, "weight differences", "ratio"),
    ("10.3", np.log10(_W103[:, 1:] / _W103[:, :1]) - _REAL103, "base-10 logarithm", "np.log10"),
    ("10.3", _IMPLIED103 - (_X4 @ _X4.T)[:, 1:] + (_X4 @ _X4.T)[:, :1], "no scaling", "√d_k"),
    ("10.3", _IMPLIED103 - (_S103[:, 1:] - _S103[:, :1]) * np.sqrt(2) / 2, "divided by 2", "square root"),
    ("10.3", np.zeros((3, 2)), "recomputed weights", "printed"),
]


@pytest.mark.parametrize("key, answer, mistake, phrase", CASES,
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_wrong_answer_gets_its_hint(key, answer, mistake, phrase):
    result = al.EXERCISES[key].evaluate(answer)
    assert result.status != "correct"
    assert result.mistake == mistake, result.message
    if phrase:
        assert phrase in result.message, result.message


# lessons 07, 08 and 09 test their wrong answers in their own files (test_induction.py, test_real_model.py,
# lessons/test_09_*.py)
OWN_FILES = ("07.", "08.", "09.")


def test_every_exercise_has_three_wrong_answers():
    counts = {key: sum(c[0] == key for c in CASES) for key in al.EXERCISES if not key.startswith(OWN_FILES)}
    assert all(n >= 3 for n in counts.values()), {k: n for k, n in counts.items() if n < 3}


# ---------- hints that are no longer wrong ----------
def test_01_3_empty_small_row_is_not_told_cats_and_mice_tie():
    message = al.EXERCISES["01.3"].evaluate(np.diag([1.0, 1.0, 1.0, 0.0])).message
    assert "tie: both are nouns" not in message and "0.25" in message


def test_03_2_a_scaled_block_is_not_called_the_lessons_w_q():
    W = with_block(_WQ32, 16.0 * rotation(_t))
    assert not np.allclose(W, _WQ32)
    assert "lesson's W_q" not in al.EXERCISES["03.2"].evaluate(W).message


def test_05_2_never_says_chase_works_when_it_does_not():
    for T in (table((0, 0, 1.0), (1, 1, 1.0)), table((1, 0, 2.0)), table((0, 0, 3.0), (0, 1, -2.0)),
              table((2, 0, 4.0), (0, 3, 1.0))):
        X = X01[[0, 1, 3]]
        ex = al.cats_chase_mice()
        works = all(sm(((Xo + T) @ ex.W_q) @ ((Xo + T) @ ex.W_k).T / 2.0)[1, 0] >= 0.9
                    for Xo in (X, X[[2, 1, 0]]))
        message = al.EXERCISES["05.2"].evaluate(T).message
        assert not works
        assert "chase works" not in message and "chase listens to the subject now" not in message, message


@pytest.mark.parametrize("T, own", [(table((0, 2, 3.0), (1, 2, 3.0)), "0.26"),
                                    (table((2, 2, -10.0)), "0.27")])
def test_05_2_chase_blocked_by_its_own_weight_is_told_so(T, own):
    """Review round 6, item 8: position 0 wins below 0.9 because chase keeps weight for itself."""
    X, ex = X01[[0, 1, 3]], al.cats_chase_mice()
    w = sm(((X + T) @ ex.W_q) @ ((X + T) @ ex.W_k).T / 2.0)[1]        # chase's row, cats chase mice
    assert w.argmax() == 0 and f"{w[1]:.2f}" == own                   # by hand: chase's own weight blocks
    message = al.EXERCISES["05.2"].evaluate(T).message
    assert f"chase's own key competes: its own weight is {own}" in message, message
    assert "add more to its 'animal' feature" not in message


def test_06_2_minus_infinity_for_no_weight_is_accepted():
    """Review round 6, item 6: lesson 04's -inf for 'no weight', 0 on the right key, is right."""
    places = np.arange(8)
    M = np.full((8, 8), -np.inf)
    M[places, (places + 1) % 8] = 0.0
    assert al.EXERCISES["06.2"].evaluate(M).status == "correct"
    M[places, (places - 1) % 8], M[places, (places + 1) % 8] = 0.0, -np.inf
    assert al.EXERCISES["06.2"].evaluate(M).mistake == "rotate right"
    M[3] = -np.inf                                                    # a row with no finite score
    message = al.EXERCISES["06.2"].evaluate(M).message
    assert "row 3" in message and "no finite number" in message, message


def test_06_2_no_wrap_only_for_answers_that_do_not_wrap():
    wraps_but_weak = place_scores(np.arange(8) + 1, big=2.0)
    weights = sm(place_scores(np.arange(8) + 1, big=6.0))          # weights handed in as scores
    for answer in (wraps_but_weak, weights):
        assert "wrap around" not in al.EXERCISES["06.2"].evaluate(answer).message


def test_06_2_computed_hints_say_not_yet_as_the_named_ones():
    """Review round 16, item 5: 06.2's messages built from the answer (the copy matrix, i + 2, a rival key
    with too small a margin, a tie) begin "not yet. Hint:" as a named mistake's hint does."""
    rival = place_scores(np.arange(8) + 1)
    rival[0, 5] = 6.0                                               # key 5: 6 against the right key's 8
    tie = place_scores(np.arange(8) + 1)
    tie[0, 2] = 8.0                                                 # keys 1 and 2 both score 8
    cases = ((place_scores(np.arange(8)), "query place 0 gives its largest weight to key place 0"),
             (place_scores(np.arange(8) + 2), "query place 0 gives its largest weight to key place 2"),
             (rival, "with only 0.88 of the weight: key place 5 scores 6 against its 8"),
             (tie, "several key places at once (1, 2), a tie"))
    for answer, phrase in cases:
        result = al.EXERCISES["06.2"].evaluate(answer)
        assert result.status == "wrong" and result.mistake is None, result.message
        assert result.message.startswith("Exercise 06.2: not yet. Hint: with your scores, "), result.message
        assert phrase in result.message, result.message


def test_05_4_following_the_old_text_gets_a_true_hint():
    old = rope_score(2, 5, w1=0.01)                                 # w_1 = 0.01, as the old text said
    assert round(old, 3) == -0.111
    message = al.EXERCISES["05.4"].evaluate(round(old, 3)).message
    assert "1/10" in message and "you used base 10000" not in message


def test_05_1_is_a_prediction_the_lesson_has_not_answered():
    """Computed by hand: causal attention without positions, both word orders; no output is kept."""
    ex = al.cats_chase_mice()
    X = X01[[0, 1, 3]]                                              # cats, chase, mice

    def Y(X_):
        return causal_sm((X_ @ ex.W_q) @ (X_ @ ex.W_k).T / 2.0) @ (X_ @ ex.W_v)
    a, b = Y(X), Y(X[[2, 1, 0]])
    kept = [not np.allclose(a[i], b[j]) for i, j in ((0, 2), (1, 1), (2, 0))]
    assert all(kept)                                               # no word keeps its output: (c)
    assert al.EXERCISES["05.1"].evaluate("c").status == "correct"


# ---------- the fallback never contradicts itself ----------


def contradictions(message: str, shape: tuple) -> list[str]:
    """Phrases that call a right-shaped answer wrongly shaped."""
    s = str(tuple(shape))
    bad = [f"got shape {s}", f"got {s}", f"returns shape {s}", f"not {s}", f"got {in_words(tuple(shape))}."]
    return [b for b in bad if b in message]


def random_answers(solution, rng, n=12):
    """Right-shaped answers that match nothing: random numbers, random 0/1 masks, shuffled solutions,
    and one with a nan (a softmax that overflowed)."""
    shape = np.shape(solution)
    yield np.full(shape, np.nan)
    for i in range(n):
        if i % 3 == 0:
            yield rng.standard_normal(shape) * 3
        elif i % 3 == 1:
            yield rng.integers(0, 2, size=shape).astype(bool)
        else:
            flat = np.ravel(np.asarray(solution, dtype=float))
            yield rng.permutation(flat).reshape(shape) + rng.random(shape)


@pytest.mark.parametrize("key", sorted(k for k, e in al.EXERCISES.items() if not isinstance(e, Choice)))
def test_fallback_never_contradicts_itself(key):
    ex = al.EXERCISES[key]
    rng = np.random.default_rng(int(key.replace(".", "")))
    solution = answer_key(key)
    if callable(solution):                        # debug: functions that return right-shaped noise
        for seed in range(6):
            def noisy(*args, seed=seed):
                out = np.asarray(solution(*args), dtype=float)
                return out + np.random.default_rng(seed).standard_normal(out.shape) + 0.5
            result = ex.evaluate(noisy)
            assert result.status != "correct"
            right = re.search(r"the right shape (\([^)]*\))", result.message)
            assert right or result.mistake, result.message
            if right:
                assert not contradictions(result.message, eval(right.group(1))), result.message
        return
    for answer in random_answers(solution, rng):
        result = ex.evaluate(answer)
        if result.status == "correct":
            continue
        assert not contradictions(result.message, np.shape(solution)), result.message
        assert not re.search(r"expected shape (\([^)]*\)), got shape \1", result.message), result.message


def test_differences_say_which_values_differ():
    message = al.EXERCISES["02.4"].evaluate(np.zeros((3, 2)) + 7).message
    assert "a 3 × 2 array, as asked, but" in message and "numbers differ" in message and "at index" in message


# ---------- no shortcut passes (one package call: tests/test_one_call.py) ----------
def test_01_3_is_not_passed_by_three_times_ones():
    result = al.EXERCISES["01.3"].evaluate(3 * np.ones((4, 4)))
    assert result.status != "correct" and result.mistake == "more features"


def test_05_3_is_not_passed_by_the_package():
    result = al.EXERCISES["05.3"].evaluate(decode_with_the_package)
    assert result.status != "correct"
    assert "switched off" in result.message


def test_05_3_is_not_passed_by_the_package_under_another_name():
    from attention_lab import decode_with_cache as dwc

    def decode(X, W_q, W_k, W_v):
        return dwc(X, W_q, W_k, W_v)[0]
    assert al.EXERCISES["05.3"].evaluate(decode).status != "correct"


def test_06_3_is_not_passed_by_finite_differences():
    for answer in (grads_by_differences, grads_with_the_package):
        result = al.EXERCISES["06.3"].evaluate(answer)
        assert result.status != "correct", result.message


def test_06_3_the_right_fix_passes():
    assert al.EXERCISES["06.3"].evaluate(grads_of()).status == "correct"


def test_06_4_hints_write_no_rowsum():
    """Review round 17, item 4: 06.4 has one query and three scores, no rows: its hints write the weighted
    mean as a · dL/da, never rowsum (which 06.3's hints, with a row per query, use)."""
    hints = {name: hint for name, (_, hint) in mistakes_of("06.4").items()}
    assert not [name for name, hint in hints.items() if "rowsum" in hint]
    assert "rowsum(A * dA)" in mistakes_of("06.3")["A left off"][1]


def test_06_3_a_right_pass_kept_in_float32_is_a_precision_slip_not_finite_differences():
    """Review round 5, 06.4: the right backward pass returned as float32 (or float16) was told 'these are
    finite differences'; it gets the precision hint, and finite differences keep theirs."""
    right = grads_of()
    for dtype in (np.float32, np.float16):
        def kept_low(Q, K, V, dY, dtype=dtype):
            return tuple(g.astype(dtype) for g in right(Q, K, V, dY))
        result = al.EXERCISES["06.3"].evaluate(kept_low)
        assert result.mistake == "low precision" and "float64" in result.message, result.message
    assert al.EXERCISES["06.3"].evaluate(grads_by_differences).mistake == "finite differences"


# ---------- the guide promises only hints that exist ----------
GUIDE_PROMISES = {
    "forgot √d_k": ("02.4", "no scaling"),
    "divided by d_k instead": ("02.3", "divided by d_k"),
    "softmax along the wrong axis": ("02.4", "wrong axis"),
    "forgot to transpose K": ("02.3", "K not transposed"),
    "heads concatenated in the wrong order": ("03.4", "heads in the wrong order"),
    "W_O left out": ("03.4", "forgot W_O"),
    "mask applied after the softmax": ("04.3", "after softmax"),
    "mask inverted": ("04.2", "inverted"),
    "queries and keys swapped": ("04.4", "queries and keys swapped"),
    "half of the softmax's derivative": ("06.3", "planted numbers"),
}


def test_the_guides_hints_exist():
    from pathlib import Path
    guide = (Path(__file__).resolve().parents[1] / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    guide = " ".join(guide.split())                                 # lines wrap anywhere
    for phrase, (key, mistake) in GUIDE_PROMISES.items():
        assert phrase in guide, phrase
        assert mistake in mistakes_of(key), (key, mistake)


# ---------- review round 9, B2: a changed function with the planted numbers is told why, not the fix ------
FIX_SPELLED_OUT = {                            # each exercise's final formula, as a hint would spell it out
    "02.3": "runs along each row", "03.3": "heads' axis to the front", "04.3": "-inf", "05.3": "x @ W_q",
    "06.3": "rowsum(A * dA)", "07.3": "dH1 = dOut", "08.3": "i // (h // g)"}


@pytest.mark.parametrize("key", sorted(FIX_SPELLED_OUT))
def test_the_planted_numbers_hint_explains_and_ends_with_a_question(key):
    """Review round 9, B2: the hint for a changed function that still gives the planted numbers keeps its
    explanation but ends with the first rung's question, not the formula: rewriting the planted line to
    the same numbers (one keystroke) must not reach the fix."""
    hint = mistakes_of(key)["planted numbers"][1]
    assert hint.startswith("you changed the function, but it still gives the planted numbers: ")
    assert hint.endswith("?") and FIX_SPELLED_OUT[key] not in hint, hint
