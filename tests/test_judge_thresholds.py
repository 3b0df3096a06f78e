"""Every judge with a numeric threshold, tested on both sides of it: an answer just inside passes, one
just outside does not.

The answers are built here, in plain NumPy, from the lesson's data and the exercise's question (or, for
the compute exercises, from the teachers' worked solutions in solutions/answers.py); none comes from an
exercise's own solution, reference or mistake table. Where the threshold is on a weight, the answer's
size is found by bisection on that weight, computed here, so that it lands just above or just below.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al
from attention_lab import exercises_07
from attention_lab.checks import Exercise

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solutions"))
import answers

TOLERANCE = 5e-3          # the compute exercises' promise: answers rounded to 2 decimals still count
JUST = 1e-4               # how far past a weight threshold the answers below land


def sm(s, axis=-1):
    """Plain softmax along `axis`."""
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def size_for(weight_of, target, low=0.0, high=50.0):
    """The size c at which weight_of(c) (increasing in c) equals target, by bisection."""
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if weight_of(mid) < target else (low, mid)
    return (low + high) / 2


def status(key, answer):
    return al.EXERCISES[key].evaluate(answer).status


def both_sides(key, answer_of, weight_of, threshold):
    """Answers whose weight (computed here) is threshold + JUST and threshold - JUST: (inside, outside)."""
    inside = answer_of(size_for(weight_of, threshold + JUST))
    outside = answer_of(size_for(weight_of, threshold - JUST))
    return status(key, inside), status(key, outside)


# ---------------------------------------------------------------- compute exercises: 5e-3 per entry
COMPUTE = sorted(k for k, e in al.EXERCISES.items() if isinstance(e, Exercise))   # answered with numbers


@pytest.mark.parametrize("key", COMPUTE)
def test_compute_answers_count_within_the_tolerance_and_not_beyond(key):
    right = np.asarray(answers.SOLUTIONS[key](), dtype=float)
    assert status(key, right + 0.99 * TOLERANCE) == "correct"          # every entry off by just under
    assert status(key, right - 0.99 * TOLERANCE) == "correct"
    off = right.copy()
    off.flat[np.argmax(np.abs(right))] += 1.01 * TOLERANCE              # the largest entry just over
    assert status(key, off) != "correct"


def test_a_known_mistake_is_named_within_the_tolerance_only():
    # 00.3 counted from 1: x₃ taken as X[3], by hand
    assert al.EXERCISES["00.3"].evaluate(3 + 0.99 * TOLERANCE).mistake == "counted from 1"
    assert al.EXERCISES["00.3"].evaluate(3 + 1.01 * TOLERANCE).mistake is None


# ---------------------------------------------------------------- debug exercises: np.allclose's rtol 1e-5
def weights_of(q, K):
    return sm(K @ q)


def attention(Q, K, V):
    return sm(Q @ K.T / np.sqrt(K.shape[1])) @ V


def split(M, h):
    n, d = M.shape
    return M.reshape(n, h, d // h).transpose(1, 0, 2)


def masked_weights(S, mask):
    return sm(np.where(mask, S, -np.inf))


def decode(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    S = Q @ K.T / np.sqrt(K.shape[1])
    return sm(np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)) @ V


def stream_backward(X, A1, A2, W1, W2, dOut):
    """dL/dX for H1 = X + A1 X W1, H2 = H1 + A2 H1 W2, L = sum(H2 * dOut): every path."""
    dH1 = dOut + A2.T @ dOut @ W2.T
    return dH1 + A1.T @ dH1 @ W1.T


def gqa(Q, K, V):
    """Grouped-query attention, causal: query head i reads key/value head i // (h / g)."""
    r = len(Q) // len(K)
    Kh, Vh = np.repeat(K, r, axis=0), np.repeat(V, r, axis=0)
    S = Q @ np.swapaxes(Kh, -1, -2) / np.sqrt(Q.shape[-1])
    return sm(np.where(np.tril(np.ones(S.shape[-2:], dtype=bool)), S, -np.inf)) @ Vh


def scaled_by(fn, factor):
    return lambda *args: fn(*args) * factor


FIXES = {"01.4": weights_of, "02.3": attention, "03.3": split, "04.3": masked_weights, "05.3": decode,
         "07.3": stream_backward, "08.3": gqa}


@pytest.mark.parametrize("key", sorted(FIXES))
def test_a_fix_passes_within_a_relative_1e_5_and_not_beyond(key):
    fix = FIXES[key]
    assert status(key, fix) == "correct"
    assert status(key, scaled_by(fix, 1 + 0.9e-5)) == "correct"
    assert status(key, scaled_by(fix, 1 - 0.9e-5)) == "correct"
    assert status(key, scaled_by(fix, 1 + 1.2e-5)) == "wrong"


def causal_grads(Q, K, V, dY):
    """dQ, dK, dV of sum(Y * dY) for Y = causal softmax(Q Kᵀ / √d_k) V, by the chain rule."""
    s = 1 / np.sqrt(K.shape[1])
    A = sm(np.where(np.tril(np.ones((len(Q), len(K)), dtype=bool)), s * Q @ K.T, -np.inf))
    dA = dY @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))           # dL/dS, S = s Q Kᵀ
    return s * dS @ K, s * dS.T @ Q, A.T @ dY


def shifted_grads(by):
    """The exact gradients, each entry moved by `by` times max(1, their largest magnitude)."""
    def grads(Q, K, V, dY):
        out = np.array(causal_grads(Q, K, V, dY))
        return out + by * max(1.0, np.abs(out).max())
    return grads


def test_06_3_takes_the_exact_gradients_to_1e_12_and_nothing_coarser():
    assert status("06.3", causal_grads) == "correct"
    assert status("06.3", shifted_grads(0.5e-12)) == "correct"
    assert status("06.3", shifted_grads(2e-12)) != "correct"


# ---------------------------------------------------------------- design exercises: a weight threshold
def test_01_3_small_gives_mice_more_than_0_7():
    X = al.cats_chase_mice().X                               # cats, chase, small, mice

    def W(c):                                                # small asks 'noun?' and 'small?', c each
        M = np.zeros((4, 4))
        M[3, 0] = M[3, 3] = c
        return M

    def mice(c):
        return sm(X @ (X[2] @ W(c)))[3]                      # W_k = I, no scaling
    inside, outside = both_sides("01.3", W, mice, 0.7)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["01.3"].evaluate(W(size_for(mice, 0.7 - JUST))).mistake == "too weak"


def test_02_2_banana_at_most_0_01():
    def q(c):
        return np.array([c, 0.0, c])

    def banana_out(c):                                      # 1 - banana's weight, increasing in c
        return 1 - sm(q(c))[1]
    inside, outside = both_sides("02.2", q, banana_out, 1 - 0.01)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["02.2"].evaluate(q(size_for(banana_out, 1 - 0.01 - JUST))).mistake == "too weak"


def test_02_2_apple_and_cherry_within_0_01():
    def q(gap):                                             # apple ahead of cherry by `gap`, banana far off
        return np.array([12.0 + gap, 0.0, 12.0])

    def gap_in_weights(gap):
        w = sm(q(gap))
        return w[0] - w[2]
    even = q(size_for(gap_in_weights, 0.01 - JUST, 0.0, 1.0))
    uneven = q(size_for(gap_in_weights, 0.01 + JUST, 0.0, 1.0))
    assert status("02.2", even) == "correct"
    assert al.EXERCISES["02.2"].evaluate(uneven).mistake == "uneven"


def test_03_2_head_1_gives_two_tokens_back_at_least_0_5():
    ex = al.the_cat_sat()
    t = 2 * ex.theta
    two_back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])   # turns a position back by 2θ

    def W(c):
        M = ex.W_q.copy()
        M[:2, :2] = c * two_back
        return M

    def least_two_back(c):                                  # head 1: columns 0-1, d_k = 2, no mask
        Q, K = (ex.X @ W(c))[:, :2], (ex.X @ ex.W_k)[:, :2]
        A = sm(Q @ K.T / np.sqrt(2))
        return min(A[i, i - 2] for i in range(2, 6))        # sat, on, the, mat
    inside, outside = both_sides("03.2", W, least_two_back, 0.5)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["03.2"].evaluate(W(size_for(least_two_back, 0.5 - JUST))).mistake == "too weak"


def test_05_2_chase_gives_the_word_before_it_at_least_0_9():
    ex = al.cats_chase_mice()
    X = ex.X[[0, 1, 3]]                                     # cats chase mice; then mice chase cats

    def table(c):                                           # position 0 gets c more 'animal'
        T = np.zeros((3, 4))
        T[0, 2] = c
        return T

    def chase_to_first(c):
        least = 1.0
        for Xo in (X, X[::-1]):
            H = Xo + table(c)
            least = min(least, sm((H @ ex.W_q) @ (H @ ex.W_k).T / np.sqrt(4))[1, 0])
        return least
    inside, outside = both_sides("05.2", table, chase_to_first, 0.9)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["05.2"].evaluate(table(size_for(chase_to_first, 0.9 - JUST))).mistake == "too weak"


def test_06_2_every_place_gives_the_next_at_least_0_9():
    n = 8

    def scores(c):                                          # query place i scores key place i + 1 at c
        M = np.zeros((n, n))
        M[np.arange(n), (np.arange(n) + 1) % n] = c
        return M

    def next_weight(c):                                     # against 7 keys at 0: e^c / (e^c + 7)
        return np.exp(c) / (np.exp(c) + 7)
    inside, outside = both_sides("06.2", scores, next_weight, 0.9)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["06.2"].evaluate(scores(size_for(next_weight, 0.9 - JUST))).mistake == "too weak"


def test_07_2_the_induction_head_gives_the_right_key_at_least_0_9():
    V = 8

    def circuit(c):                                         # the query's own token meets the key's previous
        M = np.zeros((2 * V, 2 * V))
        M[:V, V:] = c * np.eye(V)
        return M

    def least_right(c):
        least = 1.0
        for ids, a, b in exercises_07.sequences_72():      # the judge's fresh sequences: its inputs
            n = len(ids)
            R = np.zeros((n, 2 * V))
            R[np.arange(n), ids] = 1.0
            R[np.arange(1, n), V + ids[:-1]] = 1.0
            S = np.where(np.tril(np.ones((n, n), dtype=bool)), R @ circuit(c) @ R.T, -np.inf)
            A = sm(S)
            for j in range(2):                              # a segment of 3: its first 2 tokens predict
                least = min(least, A[b + j, a + j + 1])
        return least
    inside, outside = both_sides("07.2", circuit, least_right, 0.9)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["07.2"].evaluate(circuit(size_for(least_right, 0.9 - JUST))).mistake == "too weak"


def test_08_2_the_previous_token_gets_at_least_0_8():
    def pair(c):                                            # pair 0 only, the key 1 radian ahead
        return np.array([[c, 0.0, 0.0, 0.0], [c * np.cos(1.0), c * np.sin(1.0), 0.0, 0.0]])

    def previous(c):
        # pair 0 turns 1 radian per position: at distance d the two meet at angle d - 1, score c² cos(d - 1)
        s = c ** 2 * np.cos(np.arange(6) - 1.0) / np.sqrt(4)
        return sm(s)[1]
    inside, outside = both_sides("08.2", pair, previous, 0.8)
    assert (inside, outside) == ("correct", "mistake")
    assert al.EXERCISES["08.2"].evaluate(pair(size_for(previous, 0.8 - JUST))).mistake == "too weak"


# ---------------------------------------------------------------- design exercises: 'the rest unchanged'
def allclose_excess(got, before, rtol=1e-5, atol=1e-8):
    """How far `got` is beyond np.allclose(got, before, rtol, atol): > 0 outside, <= 0 inside."""
    return float((np.abs(got - before) - (atol + rtol * np.abs(before))).max())


def edge(excess_of):
    """The smallest size at which excess_of(size) turns positive (bisection from 0 up)."""
    low, high = 0.0, 1.0
    while excess_of(high) <= 0:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if excess_of(mid) <= 0 else (low, mid)
    return high


def test_03_2_head_2_must_keep_its_weights_to_np_allclose():
    ex = al.the_cat_sat()
    t = 2 * ex.theta
    W = ex.W_q.copy()
    W[:2, :2] = 8.0 * np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])   # head 1: two back
    nudge = np.zeros((4, 4))
    nudge[0, 2] = 1.0                                       # one entry of head 2's columns

    def head2(M):
        Q, K = (ex.X @ M)[:, 2:], (ex.X @ ex.W_k)[:, 2:]
        return sm(Q @ K.T / np.sqrt(2))

    def excess(e):
        return allclose_excess(head2(W + e * nudge), head2(ex.W_q))
    e = edge(excess)
    assert excess(0.9 * e) < 0 < excess(1.1 * e)
    assert status("03.2", W) == "correct"
    assert status("03.2", W + 0.9 * e * nudge) == "correct"
    assert al.EXERCISES["03.2"].evaluate(W + 1.1 * e * nudge).mistake == "head 2 changed"


def test_05_2_the_other_words_must_keep_their_weights_to_1e_9_and_a_relative_1e_5():
    ex = al.cats_chase_mice()
    X = ex.X[[0, 1, 3]]
    T = np.zeros((3, 4))
    T[0, 2] = 3.0                                           # chase hears the subject (position 0)
    nudge = np.zeros((3, 4))
    nudge[2, 0] = 1.0                                       # position 2 a little more 'noun'

    def others(table):                                      # cats' and mice's rows, both sentences
        out = []
        for Xo in (X, X[::-1]):
            H = Xo + table
            out.append(sm((H @ ex.W_q) @ (H @ ex.W_k).T / np.sqrt(4))[[0, 2]])
        return np.array(out)

    def excess(e):
        return allclose_excess(others(T + e * nudge), others(np.zeros((3, 4))), atol=1e-9)
    e = edge(excess)
    assert excess(0.9 * e) < 0 < excess(1.1 * e)
    assert status("05.2", T + 0.9 * e * nudge) == "correct"
    assert status("05.2", T + 1.1 * e * nudge) != "correct"
