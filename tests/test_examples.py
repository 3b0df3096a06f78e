"""attention_lab/examples.py: the hand-designed examples every lesson's worked numbers start from.

Each example is compared with what the lessons say it is (the features each word has, the job each weight
is given), written out here by hand, and with the numbers the lessons print from it: the weights and
outputs are recomputed here with `math` from the design (e^4 / (e^4 + 6), 8 cos(θ(p - 1 - j)), ...), and
the printed lines are compared with text written in this file. No expected value comes from the package.
"""

import math

import numpy as np
import pytest

import attention_lab as al

E = math.e


def one_hot_rows(kinds: list[set[str]], features: list[str]) -> np.ndarray:
    """A row per word: 1.0 for each feature the word has, else 0.0."""
    return np.array([[1.0 if f in kind else 0.0 for f in features] for kind in kinds])


def rows_printed(tokens, X, width: int, precision: int) -> list[str]:
    """The lines lessons 01 and 03 print for X: f"{word:>width}: {row}" under the lesson's print options."""
    with np.printoptions(precision=precision, suppress=True):
        return [f"{word:>{width}}: {row}" for word, row in zip(tokens, X)]


def rotation_rows(angle: float) -> np.ndarray:
    """The row-form rotation that takes (cos a, sin a) to (cos(a - angle), sin(a - angle))."""
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


# ---------- cats chase mice (lessons 00, 01, 02, 05) -------------------------------------------------------

def test_cats_chase_mice_is_the_sentence_lesson_01_describes():
    ex = al.cats_chase_mice()
    assert ex.tokens == ["cats", "chase", "small", "mice"]
    assert ex.features == ["noun", "verb", "animal", "small"]
    kinds = [{"noun", "animal"}, {"verb"}, {"small"}, {"noun", "animal", "small"}]
    assert np.array_equal(ex.X, one_hot_rows(kinds, ex.features)) and ex.X.dtype == np.float64
    # a verb's query asks "are you an animal?" (2), an adjective's "are you a noun?" (1); nothing else asks
    W_q = np.zeros((4, 4))
    W_q[1, 2], W_q[3, 0] = 2.0, 1.0
    assert np.array_equal(ex.W_q, W_q)
    assert np.array_equal(ex.W_k, np.eye(4))                        # every key shows the word's features
    assert np.array_equal(ex.W_v, np.diag([1.0, 1.0, 2.0, 0.5]))    # animal doubled, small halved
    # lesson 01, section 1 prints X row by row
    assert rows_printed(ex.tokens, ex.X, 6, 4) == ["  cats: [1. 0. 1. 0.]", " chase: [0. 1. 0. 0.]",
                                                   " small: [0. 0. 0. 1.]", "  mice: [1. 0. 1. 1.]"]


def test_cats_chase_mice_chase_listens_to_the_animals_as_lesson_05_prints():
    """Lesson 05, section 1: 'chase' in 'cats chase mice' (the rows 0, 1, 3). By hand: chase's query is
    (0, 0, 2, 0); the keys of cats and mice have animal = 1, chase's has 0; ÷ √4: scores (1, 0, 1), weights
    (e, 1, e) / (2e + 1); the values are x W_v: cats (1, 0, 2, 0), chase (0, 1, 0, 0), mice (1, 0, 2, 0.5)."""
    ex = al.cats_chase_mice()
    X = ex.X[[0, 1, 3]]
    Y, A = al.self_attention(X, ex.W_q, ex.W_k, ex.W_v)
    w = np.array([E, 1.0, E]) / (2 * E + 1)
    y = w[0] * np.array([1, 0, 2, 0]) + w[1] * np.array([0, 1, 0, 0]) + w[2] * np.array([1, 0, 2, 0.5])
    assert np.allclose(A[1], w) and np.allclose(Y[1], y)
    with np.printoptions(precision=3, suppress=True):
        shown = f"{Y[1]}   weights {np.round(A[1], 2)}"
    assert shown == "[0.845 0.155 1.689 0.211]   weights [0.42 0.16 0.42]"


def test_cats_chase_mice_queries_keys_and_values_of_lesson_02():
    """Lesson 02, section 2 draws Q = X W_q, K = X W_k, V = X W_v: by hand, only chase asks (animal?, 2)
    and small and mice ask (noun?, 1); the keys are the features; the values double animal, halve small."""
    ex = al.cats_chase_mice()
    Q, K, V = ex.X @ ex.W_q, ex.X @ ex.W_k, ex.X @ ex.W_v
    assert np.array_equal(Q, [[0, 0, 0, 0], [0, 0, 2, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    assert np.array_equal(K, [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 1, 1]])
    assert np.array_equal(V, [[1, 0, 2, 0], [0, 1, 0, 0], [0, 0, 0, 0.5], [1, 0, 2, 0.5]])


# ---------- the cat crossed the road because it was tired (lesson 00) ---------------------------------------

def test_it_was_tired_is_the_sentence_of_lesson_00():
    ex = al.it_was_tired()
    assert ex.tokens == ["cat", "crossed", "road", "because", "it", "was", "tired"]
    assert ex.features == ["animal", "place", "pronoun", "other"]
    kinds = [{"animal"}, {"other"}, {"place"}, {"other"}, {"pronoun"}, {"other"}, {"other"}]
    assert np.array_equal(ex.X, one_hot_rows(kinds, ex.features))
    W_q = np.zeros((4, 4))
    W_q[2, 0] = 8.0                                  # a pronoun asks "are you an animal?", sharply
    assert np.array_equal(ex.W_q, W_q)
    assert np.array_equal(ex.W_k, np.eye(4)) and np.array_equal(ex.W_v, np.eye(4))


def test_it_takes_its_meaning_from_the_cat_as_lesson_00_prints():
    """Lesson 00: 'it' scores 8 / √4 = 4 on cat and 0 on the six other words: weights e⁴ / (e⁴ + 6) and
    1 / (e⁴ + 6); its output is cat's row times the first, plus the others' rows times the second."""
    ex = al.it_was_tired()
    Y, A = al.self_attention(ex.X, ex.W_q, ex.W_k, ex.W_v)
    it = ex.tokens.index("it")
    big, small = E ** 4 / (E ** 4 + 6), 1 / (E ** 4 + 6)
    assert np.allclose(A[it], [big] + [small] * 6)
    assert np.allclose(Y[it], [big, small, small, 4 * small])      # place: road; other: four words
    with np.printoptions(precision=3, suppress=True):
        lines = [f"x_it alone        : {ex.X[it]} {ex.features}",
                 f"average of words  : {ex.X.mean(axis=0).round(3)}",
                 f"y_it by attention : {Y[it].round(3)}",
                 f"weights of 'it'   : { {t: round(float(a), 3) for t, a in zip(ex.tokens, A[it])} }"]
    assert lines == [
        "x_it alone        : [0. 0. 1. 0.] ['animal', 'place', 'pronoun', 'other']",
        "average of words  : [0.143 0.143 0.143 0.571]",
        "y_it by attention : [0.901 0.017 0.017 0.066]",
        "weights of 'it'   : {'cat': 0.901, 'crossed': 0.017, 'road': 0.017, 'because': 0.017, 'it': 0.017, "
        "'was': 0.017, 'tired': 0.017}"]


# ---------- the cat sat on the mat (lesson 03) --------------------------------------------------------------

def test_the_cat_sat_is_the_sentence_of_lesson_03():
    ex = al.the_cat_sat()
    theta = 2 * math.pi / 7
    assert ex.tokens == ["the", "cat", "sat", "on", "the", "mat"]
    assert ex.features == ["cos pos", "sin pos", "content", "function"]
    assert ex.theta == pytest.approx(theta, abs=1e-15)
    content = [0, 1, 1, 0, 0, 1]                     # cat, sat, mat are content words
    X = [[math.cos(theta * p), math.sin(theta * p), c, 1 - c] for p, c in enumerate(content)]
    assert np.allclose(ex.X, X, rtol=0, atol=1e-15)
    W_q = np.zeros((4, 4))
    W_q[:2, :2] = 8 * rotation_rows(theta)           # head 1: one step back
    W_q[2:, 2:] = 8 * np.eye(2)                      # head 2: its own kind of word
    assert np.allclose(ex.W_q, W_q, rtol=0, atol=1e-14)
    assert np.array_equal(ex.W_k, np.eye(4)) and np.array_equal(ex.W_v, np.eye(4))
    W_O = np.eye(4)                                  # each output column: its head's, plus half the other's
    for a, b in ((0, 2), (2, 0), (1, 3), (3, 1)):
        W_O[a, b] = 0.5
    assert np.array_equal(ex.W_O, W_O)
    assert rows_printed(ex.tokens, ex.X, 4, 3) == [
        " the: [1. 0. 0. 1.]", " cat: [0.623 0.782 1.    0.   ]", " sat: [-0.223  0.975  1.     0.   ]",
        "  on: [-0.901  0.434  0.     1.   ]", " the: [-0.901 -0.434  0.     1.   ]",
        " mat: [-0.223 -0.975  1.     0.   ]"]


def test_the_cat_sats_head_1_finds_the_previous_word_as_lesson_03_prints():
    """Lesson 03, section 3: head 1's query at position p is 8 (cos θ(p - 1), sin θ(p - 1)), so its score on
    the key at j is 8 cos θ(p - 1 - j), ÷ √2; its weight on the previous word, for cat, sat, on, the, mat,
    prints as [0.89 0.81 0.81 0.81 0.81]."""
    ex = al.the_cat_sat()
    t = 2 * math.pi / 7
    Q, K = ex.X @ ex.W_q, ex.X @ ex.W_k
    _, A = al.scaled_dot_product_attention(Q[:, :2], K[:, :2], K[:, :2])
    for p in range(6):
        e = [math.exp(8 * math.cos(t * (p - 1 - j)) / math.sqrt(2)) for j in range(6)]
        assert np.allclose(A[p], np.array(e) / sum(e))
    rows = np.arange(1, 6)
    assert str(A[rows, rows - 1].round(2)) == "[0.89 0.81 0.81 0.81 0.81]"
    # head 2: content words (cat, sat, mat) score 8 / √2 on each other, 0 on function words
    _, A2 = al.scaled_dot_product_attention(Q[:, 2:], K[:, 2:], K[:, 2:])
    same = E ** (8 / math.sqrt(2))
    assert np.allclose(A2[1], np.array([1, same, same, 1, 1, same]) / (3 * same + 3))


# ---------- the translation step (lesson 04) ----------------------------------------------------------------

def test_translation_is_the_step_lesson_04_describes():
    tr = al.translation()
    assert tr.features == ["det", "black", "cat", "be", "sleep"]
    assert tr.enc_tokens == ["the", "black", "cat", "is", "sleeping", "<pad>"] and tr.enc_length == 5
    assert tr.dec_tokens == ["le", "chat", "noir", "dort"]
    # 'is' is mostly be, a little sleep; 'sleeping' the reverse; the padding row is all zeros
    assert np.array_equal(tr.X_enc, [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0],
                                     [0, 0, 0, 1, 0.6], [0, 0, 0, 0.3, 1], [0, 0, 0, 0, 0]])
    assert np.array_equal(tr.X_dec, [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0.6, 1]])
    assert tr.X_enc.dtype == tr.X_dec.dtype == np.float64
    eye = np.eye(5)
    for name, factor in (("self_W_q", 2), ("self_W_k", 1), ("self_W_v", 1),
                         ("cross_W_q", 4), ("cross_W_k", 1), ("cross_W_v", 1)):
        assert np.array_equal(getattr(tr, name), factor * eye), name
    # the six weights are six arrays: a lesson that changes one changes no other
    arrays = [tr.self_W_q, tr.self_W_k, tr.self_W_v, tr.cross_W_q, tr.cross_W_k, tr.cross_W_v]
    assert len({id(a) for a in arrays}) == 6 and not any(np.shares_memory(a, b) for a in arrays
                                                         for b in arrays if a is not b)


def test_translation_causal_scores_as_lesson_04_prints():
    """Lesson 04, section 1: 2 x·x' / √5 under a causal mask: 2/√5 = 0.894 on each word's own key, 0 between
    different words, and dort · dort = 0.36 + 1 = 1.36, so 2.72/√5 = 1.216."""
    tr = al.translation()
    S = (tr.X_dec @ tr.self_W_q) @ (tr.X_dec @ tr.self_W_k).T / math.sqrt(5)
    S = np.where(al.causal_mask(4), S, -np.inf)
    with np.printoptions(precision=3, suppress=True):
        assert str(S) == ("[[0.894  -inf  -inf  -inf]\n [0.    0.894  -inf  -inf]\n"
                          " [0.    0.    0.894  -inf]\n [0.    0.    0.    1.216]]")
    assert S[3, 3] == pytest.approx(2 * 1.36 / math.sqrt(5))


def test_translation_noir_looks_at_black_across_the_sentences():
    """Cross-attention: 'noir' asks 4 · black, so it scores 4/√5 on 'black' and 0 on the four other real
    words; the padding is masked: weights e^(4/√5) / (e^(4/√5) + 4) and 1 / (e^(4/√5) + 4)."""
    tr = al.translation()
    key_ok = np.arange(6) < tr.enc_length
    _, A = al.cross_attention(tr.X_dec, tr.X_enc, tr.cross_W_q, tr.cross_W_k, tr.cross_W_v,
                              mask=np.broadcast_to(key_ok, (4, 6)))
    big = E ** (4 / math.sqrt(5))
    assert np.allclose(A[2], np.array([1, big, 1, 1, 1, 0]) / (big + 4))


# ---------- the pattern decoder (lesson 05) -----------------------------------------------------------------

def test_pattern_decoder_is_built_as_lesson_05_describes():
    dec = al.pattern_decoder()
    theta = 2 * math.pi / 16
    assert dec.vocab == ["a", "b", "c", "d"] and dec.theta == pytest.approx(theta, abs=1e-15)
    W_q, W_k, W_v = np.zeros((6, 6)), np.zeros((6, 6)), np.zeros((6, 6))
    W_q[4:, 4:] = 40 * rotation_rows(2 * theta)      # the query: the position two steps back, sharpness 40
    W_k[4:, 4:] = np.eye(2)                          # the key: the position
    W_v[:4, :4] = np.eye(4)                          # the value: the token
    assert np.allclose(dec.W_q, W_q, rtol=0, atol=1e-13)
    assert np.array_equal(dec.W_k, W_k) and np.array_equal(dec.W_v, W_v)


def test_pattern_decoder_continues_a_b_c_as_lesson_05_prints():
    """Lesson 05, section 6: 'a b c' goes on as 'a b c a b c a b c'. By hand, the query at position t scores
    40 cos(π/8 (t - 2 - j)) on the key at j ≤ t (scale 1), so most of step t's weight is on t - 2."""
    dec = al.pattern_decoder()
    tokens, steps = al.generate(dec, ["a", "b", "c"], 6)
    assert " ".join(tokens) == "a b c a b c a b c"
    assert len(steps) == 8
    for t, w in enumerate(steps):
        e = np.array([math.exp(40 * math.cos(math.pi / 8 * (t - 2 - j))) for j in range(t + 1)])
        assert np.allclose(w, e / e.sum()), t
        if t >= 2:
            assert w[t - 2] > 0.9


# ---------- every call gives a fresh record -----------------------------------------------------------------

@pytest.mark.parametrize("make", [al.cats_chase_mice, al.it_was_tired, al.the_cat_sat, al.translation,
                                  al.pattern_decoder])
def test_a_lesson_that_changes_its_copy_changes_no_other(make):
    first = make()
    arrays = {k: v for k, v in vars(first).items() if isinstance(v, np.ndarray)}
    for a in arrays.values():
        a += 1.0
    second = make()
    for name, a in arrays.items():
        assert not np.array_equal(getattr(second, name), a), name
