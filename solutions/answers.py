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
    scores = [X[2] @ X[j] for j in range(len(X))]          # x_3 . x_j: 0, 0, 1, 1 (small ties with mice)
    exps = [np.exp(s - max(scores)) for s in scores]
    weights = [e / sum(exps) for e in exps]
    return [scores, weights]                               # two rows: the scores, then the weights


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
    X = np.array([[1.0, 1.0], [0.0, 2.0], [1.0, 0.0]])
    Wq_col = np.array([[1.0, 1.0], [0.0, 1.0]])
    v1, v2 = np.array([0.0, 2.0]), np.array([1.0, 0.0])           # the values the text prints
    y1 = np.array([0.84776623, 0.94029221])                      # the output it prints
    q1 = Wq_col @ X[0]                                            # column form q = W x: (2, 1)
    scores = [q1 @ X[j] for j in range(3)]                        # keys: the tokens (k = x): 3, 2, 2
    exps = [np.exp(s - max(scores)) for s in scores]
    w = [e / sum(exps) for e in exps]                             # (0.576, 0.212, 0.212)
    return (y1 - w[0] * v1 - w[1] * v2) / w[2]                    # y_1 = sum_j w_1j v_j, solved for v_3


# 02 · all outputs at once
def answer_02_1():
    # identical rows x give identical queries (equal rows of A) and identical keys (equal columns)
    return "c"


def answer_02_2():
    # keys are one-hot, so the scores are the query's own entries; equal large entries for apple
    # and cherry: weights e^6 / (2 e^6 + 1) = 0.4988 each, banana 1 / (2 e^6 + 1) = 0.0012
    return np.array([6.0, 0.0, 6.0])


def answer_02_3():
    def attention(Q, K, V):
        S = Q @ K.T / np.sqrt(K.shape[1])
        return rows_softmax(S) @ V          # the fix: softmax along each row (axis=-1), not axis=0
    return attention


def answer_02_4():
    X = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])
    W_q = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    Y = np.array([[1.0, 0.0], [0.51582795, -0.48417205], [0.74767601, -0.25232399]])   # printed
    A = rows_softmax((X @ W_q) @ X.T / np.sqrt(3))              # W_k = I: (3, 3) weights
    return np.linalg.solve(A, Y)                                 # Y = A V, so V = A^-1 Y


# 03 · many heads
def answer_03_1():
    # the four matrices keep their shapes (same parameters); each head is now one column wide with
    # its own softmax over different scores, so the weights and the outputs change
    return "b"


def answer_03_2():
    ex = al.the_cat_sat()
    t = ex.theta
    back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])   # one step back: -θ
    W_q = ex.W_q.copy()
    W_q[:2, :2] = 8.0 * back @ back      # head 1 (columns 0-1): turn twice, two tokens back
    return W_q                           # head 2's block (rows/columns 2-3) untouched


def answer_03_3():
    def split(M, h):
        n, d = M.shape
        return M.reshape(n, h, d // h).transpose(1, 0, 2)   # the fix: cut columns, then heads first
    return split


def answer_03_4():
    X = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])
    W_q = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0]])
    W_O = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])
    Q, K, V = X @ W_q, X, X                                  # W_k = W_v = I
    parts = []
    for i in range(2):                                       # head i: columns 2i, 2i+1
        c = slice(2 * i, 2 * i + 2)
        head = rows_softmax(Q[:, c] @ K[:, c].T / np.sqrt(2)) @ V[:, c]   # (3, 2), scaled by 1/√d_k
        parts.append(head @ W_O[c])                          # head i meets only its rows of W_O
    assert np.allclose(sum(parts), np.hstack([rows_softmax(Q[:, c] @ K[:, c].T / np.sqrt(2)) @ V[:, c]
                                              for c in (slice(0, 2), slice(2, 4))]) @ W_O)
    return np.stack(parts)           # (2, 3, 4): head 1's contribution, then head 2's


# 04 · masks and cross-attention
def answer_04_1():
    # causal: rows 0-2 never see 'dort'; only the last row (query 'dort', key 'dort') changes
    return "a"


def answer_04_2():
    mask = np.zeros((6, 6), dtype=bool)
    for start in (0, 3):                                     # each sentence: causal within itself
        mask[start:start + 3, start:start + 3] = np.tril(np.ones((3, 3), dtype=bool))
    return mask


def answer_04_3():
    def masked_weights(S, mask):
        S = np.where(mask, S, -np.inf)      # the fix: masked scores become -inf, not 0
        return rows_softmax(S)
    return masked_weights


def answer_04_4():
    X_dec = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    X_enc = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    S1 = X_dec @ X_dec.T / np.sqrt(3)                        # causal self-attention, W = I
    S1[0, 1] = -np.inf                                       # token 0 must not see token 1
    Y1 = rows_softmax(S1) @ X_dec                            # (2, 3)
    S = (Y1 @ (2 * np.eye(3))) @ X_enc.T / np.sqrt(3)        # (2, 4): queries from Y1, keys English
    S[:, 3] = -np.inf                                        # the <pad> key
    return rows_softmax(S) @ X_enc                           # values = encoder tokens (W_v = I)


# 05 · word order and decoding
def answer_05_1():
    # causal, no positions: a word's output mixes itself and the words before it. Reversed, cats goes
    # from seeing {cats} to seeing all three, mice the other way, and chase sees mice instead of cats
    return "c"


def answer_05_2():
    # chase's query asks only for 'animal' (column 2), and no other query reads 'animal': raise it
    # for whoever stands at position 1 (row 0). Scores (2 * animal / √4): subject 1 + 3 = 4, chase 0,
    # object 1 -> weight e^4 / (e^4 + 1 + e) = 0.936
    table = np.zeros((3, 4))
    table[0, 2] = 3.0
    return table


def answer_05_3():
    def decode(X, W_q, W_k, W_v):
        K, V, Y = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
        for x in X:                                   # one new token per step
            K = np.vstack([K, x @ W_k])               # its key joins the cache
            V = np.vstack([V, x @ W_v])               # its value joins the cache
            w = rows_softmax((K @ (x @ W_q) / np.sqrt(W_q.shape[1]))[None, :])[0]   # the fix: x's query
            Y.append(w @ V)
        return np.array(Y)
    return decode


def answer_05_4():
    def rotate(v, p, base=100.0):
        out = v.copy()
        for i in range(len(v) // 2):                 # pair (2i, 2i+1) turns by p * base^(-2i/d)
            a = p * base ** (-2 * i / len(v))        # w_0 = 1, w_1 = 100^(-1/2) = 0.1
            c, s_ = np.cos(a), np.sin(a)
            out[2 * i], out[2 * i + 1] = c * v[2 * i] - s_ * v[2 * i + 1], s_ * v[2 * i] + c * v[2 * i + 1]
        return out
    q, k = np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0, 0.0])
    return [rotate(q, 2) @ rotate(k, 5), rotate(q, 5) @ rotate(k, 2)]   # offsets +3 and -3


# 06 · attention learns
def answer_06_1():
    # copying needs no other place: the residual path brings each place its own digit, and
    # E W_u learns to read it (held-out accuracy 1.00 after 300 steps)
    return "a"


def answer_06_2():
    # query place i must read key place i + 1 (place 7 reads place 0). Against 7 other keys at 0,
    # a score of 8 gives e^8 / (e^8 + 7) = 0.998 >= 0.9 (the bound is ln 63 = 4.14)
    M = np.zeros((8, 8))
    for i in range(8):
        M[i, (i + 1) % 8] = 8.0
    return M


def answer_06_3():
    def causal_attention_grads(Q, K, V, dY):
        s = 1 / np.sqrt(K.shape[1])
        future = np.triu(np.ones((len(Q), len(K)), dtype=bool), k=1)
        A = rows_softmax(np.where(future, -np.inf, s * Q @ K.T))     # (m, n)
        dA = dY @ V.T                                                 # (m, n)
        dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))           # the fix: the whole Jacobian
        return s * dS @ K, s * dS.T @ Q, A.T @ dY                     # dQ, dK, dV (through the scale s)
    return causal_attention_grads


def answer_06_4():
    q = np.array([2.0, 1.0])
    K = np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]])
    s = K @ q / np.sqrt(2)                             # the scores: (3, 2, 4)/√2 = (2.121, 1.414, 2.828)
    a = np.exp(s) / np.exp(s).sum()                    # (0.284, 0.140, 0.576)
    da = np.array([1.0 - 0.0, 0.0 - 1.0, 1.0 - 1.0])   # dL/da_j = v_j · (1, -1)
    return a * (da - a @ da)                           # the softmax's Jacobian applied to da


# 09 · what the heads do
def answer_09_1():
    # measured on the lesson's draw (seed 0): the six other candidates 6.44 nats, (18, 6) alone 4.14, the
    # sink head (18, 8) 1.82, beside 1.79 with nothing knocked out; the same order on seeds 0 to 7
    return "a"


def answer_09_2():
    # measured on the lesson's draw (seed 0): the eight other heads of layer 16 2.38 nats, against 7.89 for
    # (16, 0) alone; under half of it on seeds 0 to 7
    return "a"


def answer_09_3():
    outs = np.array([[[1, 0], [0, 1], [2, 1]], [[3, 1], [0, 2], [3, 0]], [[1, 1], [2, 0], [0, 2]]], float)
    W_O = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1]], float)
    outs[1] = outs[1].mean(axis=0)                     # head 1's mean over the tokens, [2, 1], at every token
    return np.hstack([outs[0], outs[1], outs[2]]) @ W_O         # each token's row: heads 0, 1, 2 side by side


def answer_09_4():
    # measured on hw.STREAM_TEXT (333 tokens): a window of 32 with the first token 3.80 nats, a window of
    # 128 without it 3.94 (full attention 3.44): the small window with the sink wins, by more than 0.1
    return "b"


def answer_09_5():
    def lens_ranks(X, g, E, token):
        logits = X / np.sqrt((X ** 2).mean(axis=1, keepdims=True)) * g @ E.T     # final RMSNorm, tied head
        return 1 + (logits > logits[:, [token]]).sum(axis=1)                     # the toy's Paris: [2, 5, 1]
    return lens_ranks


def answer_09_6():
    # measured on 'The capital of Australia is': ' Canberra' 0.34 at τ = 1, 0.46 at τ = 0.5 (' Sydney'
    # 0.36, then 0.52): the two almost level at the top share what the tail loses
    return "a"


def answer_09_7():
    # a window of 112 and the first token: 113 entries, 3.5159 nats against full attention's 3.4380 (+0.078);
    # (96, 4) and (80, 8) also pass, narrowly; a window of 112 alone is 0.59 nats above
    return (112, 1)


# 10 · reading the sources critically
def answer_10_1():
    # softmax([1.2, 1.2, 0.3]) = [0.416, 0.416, 0.169]: equal scores, equal weights, sum 1, same order
    return "a"


def answer_10_2():
    q = np.array([1.37, -3.70, 2.63])       # q and k as printed, two decimals
    k = np.array([4.04, 1.37, -2.36])
    return q @ k


def answer_10_3():
    # w_j / w_0 = exp(s_j - s_0): a row of weights gives back its score differences as ln(w_j / w_0)
    s4 = al.source_004()
    w = s4.printed["self_weights"]                           # (3, 3) as the source printed them
    implied = np.log(w[:, 1:] / w[:, :1])                    # (3, 2): s_1 - s_0, s_2 - s_0
    S = s4.X @ s4.X.T / np.sqrt(2)                           # the real scores (identity weights)
    return implied - (S[:, 1:] - S[:, :1])                   # row 0: [-0.298, -0.456]; 0 if consistent


# 07 · attention learns to look things up
def answer_07_1():
    # the induction head predicts the token that followed the earlier copy; reversed, the right token
    # came before it, so the model bets about a third of its probability on a wrong token: its loss comes
    # out above the first copy's, where it only guesses (3.33 in the lesson; by 0.05 to 0.3, seeds 0-15)
    return "c"


def answer_07_2():
    size = 8
    M = np.zeros((2 * size, 2 * size))      # rows: query [own, previous]; columns: key [own, previous]
    for t in range(size):
        M[t, size + t] = 6.0                        # my token t meets a key whose previous token is t
    return M                  # a query stands at place 8 at most: e^6 / (e^6 + 8) = 0.981 >= 0.9


def answer_07_3():
    def stream_backward(X, A1, A2, W1, W2, dOut):
        dH1 = dOut + A2.T @ dOut @ W2.T             # straight through layer 2, plus through its head
        return dH1 + A1.T @ dH1 @ W1.T              # straight through layer 1, plus through its head
    return stream_backward


def answer_07_4():
    x = np.array([2.0, -1.0, 3.0, 1.0])
    A1 = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=float)
    A2 = np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.5, 0.3, 0.2, 0], [0.1, 0.1, 0.6, 0.2]])
    w1, w2 = 0.5, -2.0
    after_1 = A1 @ x                                # (4,) what head 1 reads, before its weight
    return [x[3], w1 * after_1[3], w2 * (A2 @ x)[3], w2 * w1 * (A2 @ after_1)[3]]


# 08 · inside a real language model
def answer_08_1():
    # the three heads read one set of keys, but each asks with its own W_q: three different weight patterns
    return "a"


def answer_08_2():
    # RoPE turns pair 0 by 1 radian per position (base^0 = 1). A key one token back has been turned 1 radian
    # less than the query, so start the key 1 radian ahead: they meet at distance 1. Length 4 each: the
    # score 16 cos(distance - 1) / 2 leaves the neighbours e^(8 - 8 cos 1), about 40 times, behind.
    q = np.array([4.0, 0.0, 0.0, 0.0])
    k = 4 * np.array([np.cos(1.0), np.sin(1.0), 0.0, 0.0])
    return np.array([q, k])


def answer_08_3():
    def gqa(Q, K, V):
        h, g, n = len(Q), len(K), Q.shape[1]
        share = np.arange(h) // (h // g)            # query heads 0, 1, 2 -> key head 0; 3, 4, 5 -> 1; ...
        Kh, Vh = K[share], V[share]                 # (h, n, k)
        S = Q @ Kh.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        S = np.where(np.tril(np.ones((n, n), dtype=bool)), S, -np.inf)
        return np.array([rows_softmax(s) for s in S]) @ Vh
    return gqa


def answer_08_4():
    per_token_per_block = 2 * 64 * 4                # a key and a value of width 64, 4 bytes per float32
    return [per_token_per_block * heads * 30 * 256 for heads in (3, 9)]


SOLUTIONS = {f"{name[7:9]}.{name[10:]}": f for name, f in sorted(globals().items())
             if name.startswith("answer_")}
