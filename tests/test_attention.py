"""Known answers, each derived independently: by hand, from a source's printout, or another formula."""

import math
import types

import numpy as np
import pytest

import attention_lab as al
from attention_lab import experiments
from attention_lab.matrix import attention_unchecked, softmax_unchecked


def test_softmax_hand_values():
    # e^0 : e^{ln 3} = 1 : 3
    assert np.allclose(al.softmax([0.0, math.log(3.0)]), [0.25, 0.75])
    e = math.e   # along axis 0 each column is (1, 0) -> (e, 1) / (e + 1)
    assert np.allclose(al.softmax([[1.0, 1.0], [0.0, 0.0]], axis=0),
                       [[e / (e + 1), e / (e + 1)], [1 / (e + 1), 1 / (e + 1)]])


def test_softmax_huge_logits_are_finite_and_correct():
    w = al.softmax([1e4, -1e4, 1e4 - math.log(3.0)])
    assert np.isfinite(w).all()
    assert np.allclose(w, [0.75, 0.0, 0.25])


def test_softmax_minus_inf_means_no_weight():
    assert np.allclose(al.softmax([0.0, -np.inf, 0.0]), [0.5, 0.0, 0.5])


def test_source_001_matches_its_printout():
    s = al.source_001()
    out, w = al.self_attention(s.X, s.W_q, s.W_k, s.W_v)
    assert np.allclose(out, s.printed["output"], atol=1e-7)
    a = 1 / math.sqrt(2)   # by hand: scores diag 1/sqrt2, off-diagonal 0
    assert np.allclose(w[0], [math.exp(a) / (math.exp(a) + 1), 1 / (math.exp(a) + 1)])


def test_source_002_unscaled_matches_its_printout():
    s = al.source_002()
    Q, K, _ = al.project(s.X, s.W_q, s.W_k, s.W_v)
    assert np.array_equal(Q @ K.T, s.printed["scores"])
    out, w = al.self_attention(s.X, s.W_q, s.W_k, s.W_v, scale=1.0)
    assert np.allclose(w, s.printed["weights"], atol=1e-8)
    assert np.allclose(out[0], s.printed["output_row_1"], atol=1e-8)


def test_source_004_by_hand_not_its_printout():
    s = al.source_004()
    out, w = al.self_attention(s.X, s.W, s.W, s.W)
    a = 1 / math.sqrt(2)
    row0 = np.array([math.exp(a), 1.0, math.exp(a)]) / (2 * math.exp(a) + 1)   # scores a, 0, a
    assert np.allclose(w[0], row0)
    assert not np.allclose(w, s.printed["self_weights"], atol=1e-3)          # the erratum
    out_c, w_c = al.cross_attention(s.Z_self, s.Z_encoder, s.W, s.W, s.W)
    assert np.allclose(w_c, w[:2]) and np.allclose(out_c, out[:2])


def test_source_000_y2_matches_its_printout():
    s = al.source_000()
    W = [al.from_column_convention(w) for w in (s.W_q, s.W_k, s.W_v)]
    y2, w2 = al.attend_one(1, s.X, *W, scale=1.0)
    assert np.abs(y2 - s.printed["y_2"]).max() < 1e-6       # source computed in float32
    assert np.allclose(w2[:2], s.printed["weights"][:2], atol=1e-7)
    # column convention by hand for q_2: q = W_q x
    assert np.allclose(s.W_q @ s.X[1], s.printed["q_2"], atol=1e-6)


def test_source_003_torch_layout():
    s = al.source_003()
    Wq, Wk, Wv = (al.from_torch_linear(w) for w in (s.W_q_torch, s.W_k_torch, s.W_v_torch))
    enc = s.encodings
    out, w = al.self_attention(enc, Wq, Wk, Wv)
    # nn.Linear computes x @ weight.T; written out for the first query and key by hand
    q0 = [enc[0, 0] * 0.5406 + enc[0, 1] * 0.5869, enc[0, 0] * -0.1657 + enc[0, 1] * 0.6496]
    k0 = [enc[0, 0] * -0.1549 + enc[0, 1] * 0.1427, enc[0, 0] * -0.3443 + enc[0, 1] * 0.4153]
    assert np.isclose(al.project(enc, Wq, Wk, Wv)[0][0] @ al.project(enc, Wq, Wk, Wv)[1][0],
                      np.dot(q0, k0))
    assert np.allclose(np.round(w[0], 2), s.printed["weights_write"])   # 36 %, 40 %, 24 %
    assert round(out[0, 0], 1) == s.printed["output_write_first"]


def test_cats_chase_mice_by_hand():
    ex = al.cats_chase_mice()
    y2, w2 = al.attend_one(1, ex.X, ex.W_q, ex.W_k, ex.W_v, scale=1.0)
    e2 = math.exp(2.0)     # scores q_2 . k_j = [2, 0, 0, 2]
    big, small = e2 / (2 * e2 + 2), 1 / (2 * e2 + 2)
    assert np.allclose(w2, [big, small, small, big])
    # y_2 = big*v_cats + small*v_chase + small*v_small + big*v_mice, v = x @ diag(1, 1, 2, .5)
    assert np.allclose(y2, [2 * big, small, 4 * big, 0.5 * small + 0.5 * big])


def test_default_scale_is_one_over_sqrt_dk():
    Q = np.array([[2.0, 0.0, 0.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    V = np.array([[1.0], [0.0]])
    _, w = al.scaled_dot_product_attention(Q, K, V)     # scores 2/sqrt(4) = 1 and 0
    assert np.allclose(w, [[math.e / (math.e + 1), 1 / (math.e + 1)]])


def test_causal_mask_literal():
    assert np.array_equal(al.causal_mask(3), [[True, False, False], [True, True, False], [True, True, True]])
    assert al.causal_mask(1).tolist() == [[True]]


def test_mask_renormalises_over_allowed_keys():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = np.array([[True, False, True, False, False]] * 3)
    out, w = al.scaled_dot_product_attention(Q, K, V, mask=mask)
    assert np.all(w[:, ~mask[0]] == 0.0)
    sub_out, sub_w = al.scaled_dot_product_attention(Q, K[mask[0]], V[mask[0]])
    assert np.allclose(out, sub_out) and np.allclose(w[:, mask[0]], sub_w)


def test_causal_first_token_copies_its_value():
    rng = np.random.default_rng(1)
    X, Wq, Wk, Wv = rng.normal(size=(4, 3)), *rng.normal(size=(3, 3, 3))
    out, w = al.self_attention(X, Wq, Wk, Wv, mask=al.causal_mask(4))
    assert np.allclose(w[0], [1, 0, 0, 0]) and np.allclose(out[0], X[0] @ Wv)


def _mha_by_loop(Xq, Xc, Wq, Wk, Wv, Wo, h):
    """Independent formulation: one sdpa call per head on column blocks, then hstack and W_O."""
    k = Xq.shape[1] // h
    heads, weights = [], []
    for i in range(h):
        cols = slice(i * k, (i + 1) * k)
        o, w = al.scaled_dot_product_attention(Xq @ Wq[:, cols], Xc @ Wk[:, cols], Xc @ Wv[:, cols])
        heads.append(o)
        weights.append(w)
    return np.hstack(heads) @ Wo, np.array(weights)


@pytest.mark.parametrize("h", [1, 2, 3, 6])
def test_multi_head_equals_per_head_loop(h):
    rng = np.random.default_rng(h)
    Xq, Xc = rng.normal(size=(3, 6)), rng.normal(size=(5, 6))
    Ws = rng.normal(size=(4, 6, 6))
    out, w = al.multi_head_attention(Xq, Xc, *Ws, n_heads=h)
    ref_out, ref_w = _mha_by_loop(Xq, Xc, *Ws, h)
    assert out.shape == (3, 6) and w.shape == (h, 3, 5)
    assert np.allclose(out, ref_out) and np.allclose(w, ref_w)


def test_multi_head_head_order_matters():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3, 4))
    Wq, Wk, Wv = rng.normal(size=(3, 4, 4))
    Wo = np.eye(4)
    out, _ = al.multi_head_attention(X, X, Wq, Wk, Wv, Wo, n_heads=2)
    o0, _ = al.self_attention(X, Wq[:, :2], Wk[:, :2], Wv[:, :2])
    o1, _ = al.self_attention(X, Wq[:, 2:], Wk[:, 2:], Wv[:, 2:])
    assert np.allclose(out[:, :2], o0) and np.allclose(out[:, 2:], o1)


def test_split_heads_columns():
    M = np.arange(12.0).reshape(2, 6)
    s = al.split_heads(M, 3)
    assert s.shape == (3, 2, 2)
    assert np.array_equal(s[1], [[2, 3], [8, 9]])


def test_padding_mask():
    assert al.padding_mask([2, 3], 3).tolist() == [[True, True, False], [True, True, True]]


def test_array_likes_and_ints_give_the_same_answer():
    X = [[1, 0], [0, 1], [1, 1]]
    W = [[1, 0], [0, 1]]
    a, wa = al.self_attention(X, W, W, W)
    b, wb = al.self_attention(np.array(X, float), np.eye(2), np.eye(2), np.eye(2))
    assert a.dtype == np.float64 and np.allclose(a, b) and np.allclose(wa, wb)


def test_inputs_are_never_mutated():
    rng = np.random.default_rng(3)
    X, Wq, Wk, Wv, Wo = rng.normal(size=(4, 4)), *rng.normal(size=(4, 4, 4))
    mask = al.causal_mask(4)
    args = [X, Wq, Wk, Wv, Wo, mask]
    before = [a.copy() for a in args]
    al.self_attention(X, Wq, Wk, Wv, mask=mask)
    al.cross_attention(X, X, Wq, Wk, Wv, mask=mask)
    al.multi_head_attention(X, X, Wq, Wk, Wv, Wo, 2, mask=mask)
    al.attend_one(2, X, Wq, Wk, Wv)
    al.softmax(X)
    al.from_column_convention(Wq)
    al.split_heads(X, 2)
    softmax_unchecked(X)                                   # the trusted kernels too (they work in place
    attention_unchecked(X, Wq, Wk, mask, 0.5)              # on arrays of their own only)
    attention_unchecked(X, Wq, Wk, np.ones((3, 4, 4), bool), 0.5)   # a mask with more leading axes
    for a, b in zip(args, before):
        assert np.array_equal(a, b)
    out, _ = al.self_attention(X, Wq, Wk, Wv)
    out[:] = 0   # results are fresh arrays, not views of the inputs
    assert np.array_equal(X, before[0])


def test_two_views_of_the_head_split():
    rng = np.random.default_rng(11)
    X, W = rng.normal(size=(5, 6)), rng.normal(size=(6, 6))
    own = al.split_weights(W, 3)                           # (h, d_model, d_k): each head's W^(i)
    assert own.shape == (3, 6, 2) and np.array_equal(own[1], W[:, 2:4])
    by_reshape = al.split_heads(X @ W, 3)                  # one big projection, reshaped
    assert np.allclose(by_reshape, np.stack([X @ w for w in own]))


def test_concat_heads_in_order():
    heads = np.array([np.full((2, 2), 1.0), np.full((2, 2), 2.0)])
    assert np.array_equal(al.concat_heads(heads), [[1, 1, 2, 2], [1, 1, 2, 2]])
    with pytest.raises(ValueError, match=r"heads have shape \(2, 2\): expected \(n_heads, n, d_k\)"):
        al.concat_heads(np.ones((2, 2)))


def test_decoder_step_by_hand():
    tr = al.translation()
    step = al.decoder_step(tr)
    assert np.all(np.triu(step.self_weights, 1) == 0)             # causal
    assert np.all(step.cross_weights[:, -1] == 0)                 # <pad> masked
    assert step.cross_weights.shape == (4, 6) and step.output.shape == (4, 5)
    # le's query is 'the'-like: by hand its self row is [1, 0, 0, 0] (only itself allowed)
    assert np.allclose(step.self_weights[0], [1, 0, 0, 0])
    best = [tr.enc_tokens[j] for j in step.cross_weights.argmax(axis=1)]
    assert best == ["the", "cat", "black", "is"]


def test_multi_head_cross_attention_equals_per_head():
    rng = np.random.default_rng(12)
    Xq, Xc = rng.normal(size=(2, 4)), rng.normal(size=(5, 4))
    Wq, Wk, Wv, Wo = rng.normal(size=(4, 4, 4))
    mask = np.array([[True, True, True, False, False], [True, True, True, True, False]])
    out, w = al.multi_head_attention(Xq, Xc, Wq, Wk, Wv, Wo, 2, mask=mask)
    per = [al.cross_attention(Xq, Xc, Wq[:, c], Wk[:, c], Wv[:, c], mask=mask)
           for c in (slice(0, 2), slice(2, 4))]
    assert np.allclose(out, np.hstack([o for o, _ in per]) @ Wo)
    assert np.allclose(w, np.stack([x for _, x in per])) and np.all(w[:, 0, 3:] == 0)


def test_the_cat_sat_heads_have_their_jobs():
    ex = al.the_cat_sat()
    _, w = al.multi_head_attention(ex.X, ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 2)
    assert [int(np.argmax(w[0][q])) for q in range(1, 6)] == [0, 1, 2, 3, 4]   # previous token
    content = ex.X[:, 2] == 1
    for q in range(6):                                                        # same kind
        assert w[1][q][content == content[q]].sum() > 0.95


# ---- the batched kernel -----------------------------------------------------------------------

def _loop_over_leading(Q, K, V, mask, scale):
    """Independent formulation: one 2-D softmax(Q Kᵀ) V per leading index, written out in NumPy."""
    mask_lead = () if mask is None else mask.shape[:-2]          # a mask may have leading axes of its own
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], mask_lead)
    m, n = Q.shape[-2], K.shape[-2]
    Q, K, V = (np.broadcast_to(a, lead + a.shape[-2:]) for a in (Q, K, V))
    M = np.broadcast_to(np.ones((m, n), bool) if mask is None else mask, (*lead, m, n))
    out = np.zeros((*lead, m, V.shape[-1]))
    weights = np.zeros((*lead, m, n))
    for idx in np.ndindex(*lead):
        for i in range(m):
            s = np.array([scale * np.dot(Q[idx][i], K[idx][j]) for j in range(n)])
            e = np.where(M[idx][i], np.exp(s - s[M[idx][i]].max()), 0.0)
            weights[idx][i] = e / e.sum()
            out[idx][i] = weights[idx][i] @ V[idx]
    return out, weights


@pytest.mark.parametrize("q_shape, k_lead, mask_shape", [
    ((2, 3, 4), (2,), None),              # a batch of 2
    ((2, 3, 3, 4), (2, 3), (3, 5)),       # batch x heads, one (m, n) mask for all
    ((2, 1, 3, 4), (4,), (2, 1, 1, 5)),   # leading dims broadcast; a key-padding mask per batch row
    ((3, 4), (), (3, 5)),                 # the 2-D call
])
def test_batched_kernel_equals_a_loop_over_leading_dimensions(q_shape, k_lead, mask_shape):
    rng = np.random.default_rng(sum(q_shape))
    Q = rng.normal(size=q_shape)
    K, V = rng.normal(size=(*k_lead, 5, 4)), rng.normal(size=(*k_lead, 5, 2))
    mask = None if mask_shape is None else rng.random(mask_shape) < 0.6
    if mask is not None:
        mask[..., 0] = True                                    # every row keeps a key
    out, w = al.scaled_dot_product_attention(Q, K, V, mask=mask, scale=0.7)
    ref_out, ref_w = _loop_over_leading(Q, K, V, mask, 0.7)
    assert out.shape == ref_out.shape and w.shape == ref_w.shape
    assert np.allclose(out, ref_out) and np.allclose(w, ref_w)


def test_the_trusted_kernel_takes_a_mask_with_more_leading_axes_than_q_k_and_v():
    """al.matrix.attention_unchecked (a name a student reaches) broadcasts the mask as well: one (m, d_k)
    set of queries under two masks gives two sets of weights; a row with no key gets zero weights."""
    rng = np.random.default_rng(8)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = rng.random((2, 3, 5)) < 0.6
    mask[..., 0] = True                                          # every row keeps a key ...
    assert not mask.all()
    out, w = attention_unchecked(Q, K, V, mask, 0.7)
    ref_out, ref_w = _loop_over_leading(Q, K, V, mask, 0.7)
    assert out.shape == (2, 3, 2) and np.allclose(out, ref_out) and np.allclose(w, ref_w)
    mask[1, 2] = False                                           # ... but this one
    out, w = attention_unchecked(Q, K, V, mask, 0.7)
    assert np.all(w[1, 2] == 0) and np.all(out[1, 2] == 0)
    assert np.allclose(w[0], ref_w[0]) and np.allclose(out[1, :2], ref_out[1, :2])


def test_multi_head_scale_and_per_head_mask():
    rng = np.random.default_rng(21)
    X, Wq, Wk, Wv, Wo = rng.normal(size=(4, 4)), *rng.normal(size=(4, 4, 4))
    mask = np.stack([al.causal_mask(4), np.ones((4, 4), bool)])     # head 1 causal, head 2 not
    out, w = al.multi_head_attention(X, X, Wq, Wk, Wv, Wo, 2, mask=mask, scale=1.0)
    per = [al.self_attention(X, Wq[:, c], Wk[:, c], Wv[:, c], mask=m, scale=1.0)
           for c, m in ((slice(0, 2), mask[0]), (slice(2, 4), None))]
    assert np.allclose(out, np.hstack([o for o, _ in per]) @ Wo)
    assert np.allclose(w[0], per[0][1]) and np.all(np.triu(w[0], 1) == 0) and np.all(w[1] > 0)


def test_split_and_concat_heads_are_inverse_on_batches():
    M = np.arange(2 * 3 * 6, dtype=float).reshape(2, 3, 6)           # (batch, n, d_model)
    H = al.split_heads(M, 3)
    assert H.shape == (2, 3, 3, 2) and np.array_equal(H[1, 2], M[1][:, 4:6])   # batch 1, head 3
    assert np.array_equal(al.concat_heads(H), M)


# ---- experiments.py ------------------------------------------------------------------------------

def test_scaling_experiment_matches_the_variance_argument():
    # q·k sums d_k products of independent unit-variance numbers: variance d_k, std sqrt(d_k)
    t = al.scaling_experiment(d_ks=(1, 16, 256), n_trials=4000)
    assert np.array_equal(t["d_k"], [1, 16, 256])
    assert np.allclose(t["std_unscaled"], [1, 4, 16], rtol=0.05)
    assert np.allclose(t["std_scaled"], 1.0, rtol=0.05)
    assert t["max_weight_unscaled"][-1] > 0.9 > t["max_weight_scaled"][-1]
    # for large d_k the scaled scores tend to one distribution (standard normal): same peakedness
    assert abs(t["max_weight_scaled"][2] - t["max_weight_scaled"][1]) < 0.02


def test_time_forms_keeps_the_best_of_the_repeats(monkeypatch):
    # a fake clock: attend_one costs 1 tick per token; self_attention 9, then 5, then 7 ticks
    clock, costs = [0.0], iter([9.0, 5.0, 7.0, 6.0, 8.0, 6.5])

    def loop(*args):
        clock[0] += 1.0

    def matrix(*args):
        clock[0] += next(costs)

    monkeypatch.setattr(experiments, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(experiments, "attend_one", loop)
    monkeypatch.setattr(experiments, "self_attention", matrix)
    t = al.time_forms(ns=(3, 8), d=2, sample=4, repeats=3)
    # by hand: n = 3 loops over 3 tokens (3 ticks); n = 8 samples 4 tokens, scaled by 8/4 -> 8 ticks;
    # the matrix form: min(9, 5, 7) = 5 and min(6, 8, 6.5) = 6
    assert np.array_equal(t["n"], [3, 8])
    assert np.allclose(t["loop_s"], [3.0, 8.0]) and np.allclose(t["matrix_s"], [5.0, 6.0])


def test_time_forms_on_the_real_clock_finds_the_loop_slower():
    t = al.time_forms(ns=(64,), d=4, sample=8, repeats=2)
    assert t["loop_s"][0] > t["matrix_s"][0] > 0     # 64 Python-level loops vs one matrix product


def test_scaling_experiment_with_its_defaults_is_lesson_02s_table():
    """The defaults (8 keys, 2000 trials, seed 0) on d_k = 1 and 2, against the same draws written out another
    way: the scores by einsum, the softmax by hand; and the table's first two lines as lesson 02, section 6
    prints them (its d_k start 1, 2, so the draws are the same)."""
    t = al.scaling_experiment(d_ks=(1, 2))
    rng = np.random.default_rng(0)
    expected = {key: [] for key in ("std_unscaled", "std_scaled", "max_weight_unscaled", "max_weight_scaled")}
    for d_k in (1, 2):
        q = rng.standard_normal((2000, 1, d_k))
        K = rng.standard_normal((2000, 8, d_k))
        s = np.einsum("tqd,tkd->tk", q, K)
        for name, scores in (("unscaled", s), ("scaled", s / math.sqrt(d_k))):
            e = np.exp(scores - scores.max(axis=1, keepdims=True))
            expected["std_" + name].append(scores.std())
            expected["max_weight_" + name].append((e.max(axis=1) / e.sum(axis=1)).mean())
    assert list(t) == ["d_k", "std_unscaled", "std_scaled", "max_weight_unscaled", "max_weight_scaled"]
    assert t["d_k"].tolist() == [1, 2]
    for key, values in expected.items():
        assert np.allclose(t[key], values, rtol=1e-12, atol=0), key
    lines = [f"{d:4d} {s:7.2f} {s_sc:12.2f} {m:25.2f} {m_sc:7.2f}"
             for d, s, s_sc, m, m_sc in zip(*t.values())]
    assert lines == ["   1    1.01         1.01                      0.31    0.31",
                     "   2    1.43         1.01                      0.41    0.33"]


def test_time_forms_with_its_defaults_times_the_inputs_it_says(monkeypatch):
    """The defaults (n = 4 ... 1024, d = 16, 16 tokens sampled, best of 3, seed 0), on a fake clock: the loop
    gets tokens 0 .. min(n, 16) - 1 of X, and both forms get the X and W_q, W_k, W_v drawn from seed 0 as the
    docstring says (weights ÷ √d, then one X per n), written out here."""
    clock, calls = [0.0], []

    def loop(i, X, W_q, W_k, W_v):
        calls.append(("loop", i, X, W_q, W_k, W_v))
        clock[0] += 1.0

    def matrix(X, W_q, W_k, W_v):
        calls.append(("matrix", None, X, W_q, W_k, W_v))
        clock[0] += 7.0

    monkeypatch.setattr(experiments, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(experiments, "attend_one", loop)
    monkeypatch.setattr(experiments, "self_attention", matrix)
    t = al.time_forms()
    assert np.array_equal(t["n"], [4, 16, 64, 256, 1024])
    assert np.array_equal(t["loop_s"], [4.0, 16.0, 64.0, 256.0, 1024.0])   # 1 tick a token, for all n tokens
    assert np.array_equal(t["matrix_s"], [7.0] * 5)
    rng = np.random.default_rng(0)
    W = rng.standard_normal((3, 16, 16)) / 4.0
    expected = []
    for n in (4, 16, 64, 256, 1024):
        X = rng.standard_normal((n, 16))
        for _ in range(3):
            expected += [("loop", i, X) for i in range(min(n, 16))] + [("matrix", None, X)]
    assert [(kind, i) for kind, i, *_ in calls] == [(kind, i) for kind, i, _ in expected]
    for (_, _, X, *weights), (_, _, X_expected) in zip(calls, expected):
        assert np.array_equal(X, X_expected)
        assert all(np.array_equal(a, b) for a, b in zip(weights, W))


def test_score_matrix_bytes_is_eight_n_squared():
    assert al.score_matrix_bytes(1000) == 8_000_000
    assert al.score_matrix_bytes(1) == 8
    with pytest.raises(ValueError, match="n is 0"):
        al.score_matrix_bytes(0)


def test_fully_masked_rows_are_refused_unless_zero_is_asked_for():
    # left padding + causal: query 0 is padding and may see no real key (the situation of lesson 04)
    rng = np.random.default_rng(5)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    mask = al.causal_mask(3) & np.array([False, True, True])[None, :]     # key 0 is padding
    with pytest.raises(ValueError, match=r"mask row 0 \(counting from 0\) allows no key.*masked_rows='zero'"):
        al.scaled_dot_product_attention(Q, K, V, mask=mask)
    out, w = al.scaled_dot_product_attention(Q, K, V, mask=mask, masked_rows="zero")
    assert np.all(w[0] == 0) and np.all(out[0] == 0)                      # zero weights, zero output
    rest, w_rest = al.scaled_dot_product_attention(Q[1:], K[1:], V[1:], mask=al.causal_mask(2))
    assert np.allclose(out[1:], rest) and np.allclose(w[1:, 1:], w_rest)  # other rows untouched
    with pytest.raises(ValueError, match=r"masked_rows is 'nan': expected one of \('refuse', 'zero'\)"):
        al.scaled_dot_product_attention(Q, K, V, masked_rows="nan")


def test_the_default_scale_is_one_over_root_head_width():
    from attention_lab.matrix import default_scale
    assert default_scale(4) == 0.5 and default_scale(1) == 1.0 and default_scale(16) == 0.25
    rng = np.random.default_rng(2)
    X, W = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    # no scale given: self-attention and each head use 1/√(head width), here √4 and √2
    assert np.allclose(al.self_attention(X, W, W, W)[1], al.self_attention(X, W, W, W, scale=0.5)[1])
    assert np.allclose(al.multi_head_attention(X, X, W, W, W, W, 2)[0],
                       al.multi_head_attention(X, X, W, W, W, W, 2, scale=2 ** -0.5)[0])
