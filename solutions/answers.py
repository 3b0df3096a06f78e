"""Worked solutions to every exercise, for teachers. Not in notebooks/, so students meet them only
if they go looking. Each function computes its answer from scratch, with plain NumPy, the way its
lesson teaches it; tests/test_exercises.py checks that every one earns a ✓ from al.check.
"""

import numpy as np

import attention_lab as al


def rows_softmax(S):
    """Softmax along each row, max subtracted first (lesson 02, section 7)."""
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


# 00 · start here
def answer_00_1():
    n, d_k = 7, 16
    Q_shape, K_transposed_shape = (n, d_k), (d_k, n)
    return [Q_shape[0], K_transposed_shape[1]]     # (n, d_k) @ (d_k, n) -> (n, n)


def answer_00_2():
    weight = np.array([[1, 2, 3], [4, 5, 6]])   # nn.Linear(3, 2): (out, in)
    return weight.T                              # ours: (in, out)


def answer_00_3():
    return 2                                     # x_1 is X[0], so x_3 is X[2]


# 01 · one output by hand
def answer_01_1():
    X = al.cats_chase_mice().X
    scores = [X[2] @ X[j] for j in range(len(X))]          # x_3 . x_j
    exps = [np.exp(s - max(scores)) for s in scores]
    return [e / sum(exps) for e in exps]


def answer_01_2():
    # doubling W_q doubles every query, so every score q·k doubles: [2, 0, 0, 2] -> [4, 0, 0, 4];
    # larger gaps between scores make the softmax sharper: cats and mice gain weight
    return "b"


def answer_01_3():
    W_q = np.zeros((4, 4))      # rows: features of x (noun, verb, animal, small)
    W_q[3, 0] = 2.0             # small's query asks "are you a noun?" ...
    W_q[3, 3] = 2.0             # ... "and small?": scores cats 2, chase 0, small 2, mice 4
    return W_q


def answer_01_4():
    def weights_of(q, K):
        scores = K @ q
        e = np.exp(scores - scores.max())
        return e / e.sum()      # the fix: divide by the sum, not by the largest
    return weights_of


def answer_01_5():
    X = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
    Wq_col = np.array([[1.0, 1.0], [0.0, 1.0]])
    Wv_col = np.array([[0.0, 1.0], [1.0, 0.0]])
    q1 = Wq_col @ X[0]                                   # column form q = W x
    scores = [q1 @ X[j] for j in range(3)]               # keys: the tokens themselves (W_k = I)
    exps = [np.exp(s - max(scores)) for s in scores]
    return sum(e / sum(exps) * (Wv_col @ X[j]) for j, e in enumerate(exps))


# 02 · all outputs at once
def answer_02_1():
    ex = al.cats_chase_mice()
    Q, K = ex.X @ ex.W_q, ex.X @ ex.W_k
    return rows_softmax(Q @ K.T / np.sqrt(K.shape[1]))


def answer_02_2():
    s = al.source_002()
    Q, K = s["x"] @ s["W_q"], s["x"] @ s["W_k"]
    return rows_softmax((Q @ K.T)[0] / np.sqrt(3))


def answer_02_3():
    X = al.source_004()["X"]                 # identity weights: Q = K = V = X
    return rows_softmax(X @ X.T / np.sqrt(2)) @ X


# 03 · many heads
def _heads_03():
    ex = al.the_cat_sat()
    X = ex.X
    Q, K, V = X @ ex.W_q, X @ ex.W_k, X @ ex.W_v
    k = 2
    return [rows_softmax(Q[:, i * k:(i + 1) * k] @ K[:, i * k:(i + 1) * k].T / np.sqrt(k))
            @ V[:, i * k:(i + 1) * k] for i in range(2)]


def answer_03_1():
    return np.concatenate(_heads_03(), axis=1)        # head 1's columns, then head 2's


def answer_03_2():
    return answer_03_1() @ al.exercise_03_output_weights()


def answer_03_3():
    ex = al.the_cat_sat()
    return (ex.X @ ex.W_q)[:, 2:4]               # head 2 = columns k:2k of Q


# 04 · masks and cross-attention
def answer_04_1():
    tr = al.translation()
    X = tr.X_dec
    S = (X @ tr.self_W_q) @ (X @ tr.self_W_k).T / np.sqrt(X.shape[1])
    allowed = np.tril(np.ones(S.shape, dtype=bool))
    return rows_softmax(np.where(allowed, S, -np.inf))  # mask before the softmax


def answer_04_2():
    tr = al.translation()
    Q = tr.X_dec @ tr.cross_W_q                     # queries: French (decoder)
    K = tr.X_enc @ tr.cross_W_k                     # keys: English (encoder)
    S = Q @ K.T / np.sqrt(Q.shape[1])
    real = np.arange(len(K)) < tr.enc_length           # the last key is <pad>
    return rows_softmax(np.where(real[None, :], S, -np.inf))


def answer_04_3():
    causal = np.tril(np.ones((5, 5), dtype=bool))
    real = np.arange(5) < 4
    return causal & real[None, :]                         # padding masks keys (columns)


SOLUTIONS = {f"{name[7:9]}.{name[10:]}": f for name, f in sorted(globals().items())
             if name.startswith("answer_")}
