"""Lesson 05: positions, decoding with a KV cache, and the block, against independent formulations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_lab as al

# permutation equivariance (attention alone ignores word order) is tested once, in test_properties.py


def test_sinusoidal_positions_by_hand():
    P = al.sinusoidal_positions(3, 4, base=10.0)        # w_0 = 1, w_1 = 10^(-1/2)
    w1 = 10 ** -0.5
    assert np.allclose(P[0], [0, 1, 0, 1])
    assert np.allclose(P[2], [np.sin(2), np.cos(2), np.sin(2 * w1), np.cos(2 * w1)])


def rope_by_complex_numbers(M, positions, base):
    """Independent formulation: pair (2i, 2i+1) as the complex number x + iy, times e^(i p w_i)."""
    d = M.shape[1]
    z = M[:, 0::2] + 1j * M[:, 1::2]
    z = z * np.exp(1j * np.outer(positions, base ** (-np.arange(0, d, 2) / d)))
    out = np.empty_like(M)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 50), st.integers(0, 50), st.integers(0, 100), st.integers(0, 2**31))
def test_rope_score_depends_on_the_offset_only(half, m, n, shift, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((1, 2 * half)), rng.standard_normal((1, 2 * half))
    score = (al.rope(q, [m]) @ al.rope(k, [n]).T).item()
    shifted = (al.rope(q, [m + shift]) @ al.rope(k, [n + shift]).T).item()
    assert np.isclose(score, shifted, atol=1e-9)
    assert np.allclose(al.rope(q, [m], base=100.0), rope_by_complex_numbers(q, [m], 100.0))


def test_rope_keeps_lengths_and_batches():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((2, 5, 6))                    # (batch, n, d)
    R = al.rope(M)
    assert np.allclose(np.linalg.norm(R, axis=-1), np.linalg.norm(M, axis=-1))   # a rotation
    assert np.allclose(R[1], rope_by_complex_numbers(M[1], np.arange(5), 10000.0))


def test_rope_angles_by_hand_and_a_rotation_by_them_keeps_float32():
    """The model's blocks compute RoPE's cos and sin once a pass (rope_angles) and turn Q and K by them."""
    from attention_lab.positions import rope_angles, rope_rotate

    cos, sin = rope_angles(np.array([0, 1, 2]), 4, 100.0, np.float64)   # w_0 = 1, w_1 = 100^(-1/2) = 0.1
    angles = np.array([[0, 0], [1, 0.1], [2, 0.2]])
    assert np.abs(cos - np.cos(angles)).max() < 1e-15 and np.abs(sin - np.sin(angles)).max() < 1e-15
    assert rope_angles(np.arange(3), 4, 100.0, np.float32)[0].dtype == np.float32
    M = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)   # (heads, n, d)
    turned = rope_rotate(M, *rope_angles(np.array([5, 6, 7]), 4, 100.0, np.float32))
    assert turned.dtype == np.float32
    assert np.allclose(turned[1], rope_by_complex_numbers(M[1].astype(float), [5, 6, 7], 100.0), atol=1e-6)


def test_kv_cache_equals_the_masked_computation_and_nothing_leaks():
    rng = np.random.default_rng(2)
    X, Wq, Wk, Wv = rng.standard_normal((7, 5)), *rng.standard_normal((2, 5, 3)), rng.standard_normal((5, 4))
    Y_full = al.self_attention(X, Wq, Wk, Wv, mask=al.causal_mask(7))[0]
    Y_cached, cache = al.decode_with_cache(X, Wq, Wk, Wv)
    assert np.abs(Y_cached - Y_full).max() < 1e-12 and cache.keys.shape == (7, 3)
    assert cache.values.shape == (7, 4)
    X2 = X.copy()
    X2[5:] = rng.standard_normal((2, 5))                   # change the future
    Y2 = al.self_attention(X2, Wq, Wk, Wv, mask=al.causal_mask(7))[0]
    assert np.array_equal(Y2[:5], Y_full[:5]) and not np.allclose(Y2[5:], Y_full[5:])


def test_pattern_decoder_repeats_the_prompt():
    dec = al.pattern_decoder()
    tokens, steps = al.generate(dec, ["a", "b", "c"], 6)
    assert tokens == list("abcabcabc")                    # two places back, every step
    assert [len(w) for w in steps] == list(range(1, 9))   # step t sees t + 1 cached tokens
    assert al.generate(dec, ["d"], 0)[0] == ["d"]
    with pytest.raises(ValueError, match=r"at most 12 tokens"):
        al.generate(dec, ["a", "b"], 11)
    with pytest.raises(ValueError, match=r"expected one or more of the vocabulary \['a', 'b', 'c', 'd'\]"):
        al.generate(dec, ["a", "z"], 1)


def test_decoding_cost_by_hand():
    cost = al.decoding_cost(3, d=2, d_k=1)
    assert cost["no_cache"].tolist() == [3 * 1 * 2 + 2 * 1, 3 * 2 * 2 + 2 * 4, 3 * 3 * 2 + 2 * 9]
    assert cost["cache"].tolist() == [6 + 2, 6 + 4, 6 + 6]


def test_layer_norm_and_feed_forward_by_hand():
    H = al.layer_norm(np.array([[1.0, 3.0]]), eps=0.0)   # mean 2, variance 1
    assert np.allclose(H, [[-1.0, 1.0]])
    W_2 = np.array([[2.0, 0.0], [3.0, 1.0]])
    out = al.feed_forward(np.array([[1.0, -1.0]]), np.eye(2), W_2)
    assert np.allclose(out, [[2.0, 0.0]])                 # ReLU([1, -1]) = [1, 0]; [1, 0] @ W_2


def test_block_against_a_composition_written_here():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 6))
    p = al.BlockWeights(*rng.standard_normal((4, 6, 6)), n_heads=3, W_1=rng.standard_normal((6, 5)),
                        W_2=rng.standard_normal((5, 6)))

    def ln(M):
        return (M - M.mean(1, keepdims=True)) / np.sqrt(M.var(1, keepdims=True) + 1e-5)

    H = ln(X)
    heads = []
    for i in range(3):                                     # one head at a time, causal, ÷ √2
        c = slice(2 * i, 2 * i + 2)
        S = (H @ p.W_q)[:, c] @ (H @ p.W_k)[:, c].T / np.sqrt(2)
        S[np.triu_indices(4, 1)] = -np.inf
        A = np.exp(S - S.max(1, keepdims=True))
        heads.append(A / A.sum(1, keepdims=True) @ (H @ p.W_v)[:, c])
    Z = X + np.hstack(heads) @ p.W_O
    expected = Z + np.maximum(ln(Z) @ p.W_1, 0) @ p.W_2
    out, w = al.transformer_block(X, p)
    assert np.allclose(out, expected) and w.shape == (3, 4, 4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: al.rope(np.ones((3, 5))), ValueError, r"width d = 5, which is odd: expected an even d"),
    (lambda: al.sinusoidal_positions(4, 3), ValueError, r"width d = 3, which is odd"),
    (lambda: al.rope(np.ones((3, 4)), [0, 1]), ValueError,
     r"positions \[0, 1\] \(shape \(2,\)\): expected 3 whole"),
    (lambda: al.rope(np.ones((2, 4)), [0, -1]), ValueError, r"expected 2 whole numbers >= 0"),
    (lambda: al.add_positions(np.ones((9, 4)), np.ones((8, 4))), ValueError,
     r"X has 9 tokens but the position table has rows for positions 0\.\.7 only: position 8 is past"),
    (lambda: al.add_positions(np.ones((2, 4)), np.ones((8, 3))), ValueError,
     r"the position table has shape \(8, 3\) but X has shape \(2, 4\)"),
    (lambda: al.feed_forward(np.ones((2, 4)), np.ones((3, 5)), np.ones((5, 4))), ValueError,
     r"X \(2, 4\), W_1 \(3, 5\) and W_2 \(5, 4\) do not chain"),
    (lambda: al.transformer_block(np.ones((2, 4)), al.BlockWeights(
        *np.ones((4, 4, 4)), n_heads=3, W_1=np.ones((4, 2)), W_2=np.ones((2, 4)))), ValueError,
     r"n_heads is 3 but d_model is 4"),
    (lambda: al.decoding_cost(0, 2, 2), ValueError, r"n is 0"),
])
def test_bad_inputs_get_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_inputs_are_not_mutated():
    M = np.arange(8.0).reshape(2, 4)
    X = np.ones((2, 4))
    before = M.copy()
    al.rope(M)
    al.add_positions(X, M)
    al.layer_norm(M)
    assert np.array_equal(M, before) and np.array_equal(X, np.ones((2, 4)))


def test_position_explorer_shows_what_the_lesson_says():
    ex = al.cats_chase_mice()
    e = al.position_explorer(ex.X[[0, 1, 3]], ex.W_q, ex.W_k, ex.W_v, ["cats", "chase", "mice"])
    start = e.compute(e.values)
    shifted = e.compute({**e.values, "shift": 17})
    swapped = e.compute({**e.values, "swap": True})
    assert np.allclose(shifted["rope"], start["rope"]) and not np.allclose(shifted["added"], start["added"])
    assert np.allclose(swapped["none"], start["none"][[2, 1, 0]][:, [2, 1, 0]])   # the same words, reordered
    assert not np.allclose(swapped["added"], start["added"][[2, 1, 0]][:, [2, 1, 0]])


def rope_by_rotate_half(M, positions, base):
    """GPT-NeoX / Hugging Face convention, written here: component i pairs with i + d/2."""
    d = M.shape[1]
    angles = np.outer(positions, base ** (-np.arange(0, d, 2) / d))
    cos, sin = np.tile(np.cos(angles), 2), np.tile(np.sin(angles), 2)      # (n, d)
    rotated_half = np.hstack([-M[:, d // 2:], M[:, :d // 2]])
    return M * cos + rotated_half * sin


def test_rope_pairs_adjacent_components_and_halves_need_reordered_columns():
    """Lesson 05 §4: adjacent pairs (2i, 2i+1) here; rotate_half pairs i with i + d/2; the two agree only
    after the columns are reordered."""
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((2, 6, 8))
    pos = np.arange(6)
    halves = [0, 2, 4, 6, 1, 3, 5, 7]               # adjacent layout -> halves layout
    assert np.allclose(al.rope(q, pos)[:, halves], rope_by_rotate_half(q[:, halves], pos, 10000.0))
    same_scores = al.rope(q, pos) @ al.rope(k, pos).T
    assert np.allclose(same_scores, rope_by_rotate_half(q[:, halves], pos, 10000.0)
                       @ rope_by_rotate_half(k[:, halves], pos, 10000.0).T)
    not_reordered = rope_by_rotate_half(q, pos, 10000.0) @ rope_by_rotate_half(k, pos, 10000.0).T
    assert np.abs(not_reordered - same_scores).max() > 0.1


def test_rope_score_depends_on_the_signed_offset():
    """Lesson 05 §4: a key 9 places after the query is not a key 9 places before it."""
    rng = np.random.default_rng(4)
    q, k = rng.standard_normal((2, 1, 8))
    after = (al.rope(q, [0]) @ al.rope(k, [9]).T).item()
    before = (al.rope(q, [9]) @ al.rope(k, [0]).T).item()
    def by_hand(m, n):
        return (rope_by_complex_numbers(q, [m], 1e4) @ rope_by_complex_numbers(k, [n], 1e4).T).item()

    assert np.isclose(after, by_hand(0, 9)) and np.isclose(before, by_hand(9, 0))
    assert (round(after, 3), round(before, 3)) == (-0.947, 2.383)    # ROPE_SEED = 4, as the lesson quotes


def test_added_sinusoids_lose_the_offset_through_w_q_and_w_k():
    """Lesson 05 §4: with the lesson's W_q, W_k (base 10, d = 4) the positions' score for 'key one place
    after the query' spreads over 1.92 for positions 0..9; the plain dot product does not spread."""
    ex = al.cats_chase_mice()
    p = np.arange(10)
    P = np.column_stack([np.sin(p), np.cos(p), np.sin(p * 10 ** -0.5), np.cos(p * 10 ** -0.5)])  # by hand
    one_after = np.einsum("ij,ij->i", (P @ ex.W_q)[:-1], (P @ ex.W_k)[1:]) / 2
    assert round(np.ptp(one_after), 2) == 1.92
    assert np.ptp(np.einsum("ij,ij->i", P[:-1], P[1:])) < 1e-12


def test_decoding_cost_is_exactly_t_times_and_mostly_projections_at_256():
    """Lesson 05 §7: exactly t times the work without a cache; at t = 256, 74.7 % of it re-projects the
    255 earlier tokens; the t² term passes the projections after t = 1.5 d = 768."""
    cost = al.decoding_cost(1000, d=512, d_k=64)
    t = np.arange(1, 1001)
    assert np.array_equal(cost["no_cache"], t * cost["cache"])
    assert round(3 * 255 * 512 * 64 / (3 * 256 * 512 * 64 + 2 * 256 ** 2 * 64), 3) == 0.747
    quadratic, projections = 2 * t ** 2 * 64, 3 * t * 512 * 64
    assert quadratic[767] == projections[767] and (quadratic[768:] > projections[768:]).all()


def test_layer_norm_conventions():
    """Lesson 05 §8: variance divided by d, eps = 1e-5 inside the square root, gain 1 and bias 0."""
    x = np.array([[0.0, 0.0, 0.0, 4.0]])              # mean 1, variance (1 + 1 + 1 + 9) / 4 = 3
    assert np.allclose(al.layer_norm(x), (x - 1) / np.sqrt(3 + 1e-5), rtol=0, atol=1e-15)
    assert np.allclose(al.layer_norm(np.ones((1, 4))), 0)            # a flat row: 0, not nan


def test_position_explorer_counts_places_from_0():
    ex = al.cats_chase_mice()
    e = al.position_explorer(ex.X[[0, 1, 3]], ex.W_q, ex.W_k, ex.W_v, ["cats", "chase", "mice"])
    assert [p.row_labels for p in e.panels] == [["0: cats", "1: chase", "2: mice"]] * 3
    e.set(swap=True)                                  # the words move; the places stay
    # column labels on two lines (place, then word), so that two-digit places do not run into each other
    assert [p.col_labels for p in e.panels] == [["0:\nmice", "1:\nchase", "2:\ncats"]] * 3
    e.reset()
    assert e.sliders["swap"].description == "swap words 0 and 2"
    assert "positions 0..2" in e.summary() and "row 1 (chase)" in e.summary()


def test_embed_rows_by_hand():
    """'b a' on the 16-step circle: the one-hot token, then (cos, sin) of 0 and of 2π/16."""
    dec = al.pattern_decoder()
    step = 2 * np.pi / 16
    expected = np.array([[0, 1, 0, 0, 1.0, 0.0],
                         [1, 0, 0, 0, np.cos(step), np.sin(step)]])
    np.testing.assert_allclose(al.embed(dec, ["b", "a"]), expected, rtol=0, atol=1e-15)


def test_generate_weights_are_each_steps_softmax_over_the_tokens_so_far():
    """Step t's weights, recomputed without the cache from the tokens written: softmax over keys 0..t of
    (x_t W_q) · (x_j W_k), scale 1; one step per token read (the last new token is never read back)."""
    dec = al.pattern_decoder()
    tokens, weights = al.generate(dec, ["a", "b", "c"], 4)
    assert len(tokens) == 7 and len(weights) == 6
    X = al.embed(dec, tokens)                                   # (7, 6)
    for t, w in enumerate(weights):
        s = X[: t + 1] @ dec.W_k @ (X[t] @ dec.W_q)             # (t + 1,) scores, unscaled
        e = np.exp(s - s.max())
        np.testing.assert_allclose(w, e / e.sum(), rtol=1e-12, atol=1e-15, err_msg=f"step {t}")


def test_generate_with_nothing_new_reads_the_whole_prompt():
    """n_new = 0: every prompt token is read, one step each (step t sees t + 1 tokens)."""
    tokens, weights = al.generate(al.pattern_decoder(), ["a", "b", "c"], 0)
    assert tokens == ["a", "b", "c"] and [len(w) for w in weights] == [1, 2, 3]
