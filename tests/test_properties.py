"""Properties that hold for any input (hypothesis draws the inputs)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention_lab as al

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def mat(rows, cols):
    return arrays(np.float64, (rows, cols), elements=finite)


@st.composite
def problems(draw, max_n=6, max_d=5):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    d_k = draw(st.integers(1, max_d))
    d_v = draw(st.integers(1, max_d))
    return (draw(mat(n, d)), draw(mat(d, d_k)), draw(mat(d, d_k)), draw(mat(d, d_v)))


@given(problems())
def test_rows_sum_to_one_and_outputs_are_convex_combinations(p):
    X, Wq, Wk, Wv = p
    out, w = al.self_attention(X, Wq, Wk, Wv)
    V = X @ Wv
    assert (w >= 0).all() and np.allclose(w.sum(axis=1), 1.0)
    assert np.allclose(out, w @ V)
    tol = 1e-9 * (1 + np.abs(V).max())
    assert (out >= V.min(axis=0) - tol).all() and (out <= V.max(axis=0) + tol).all()


@given(problems(), st.randoms(use_true_random=False))
def test_permuting_tokens_permutes_outputs(p, rnd):
    X, Wq, Wk, Wv = p
    perm = list(range(len(X)))
    rnd.shuffle(perm)
    out, w = al.self_attention(X, Wq, Wk, Wv)
    out_p, w_p = al.self_attention(X[perm], Wq, Wk, Wv)
    assert np.allclose(out_p, out[perm])
    assert np.allclose(w_p, w[np.ix_(perm, perm)])


@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=finite),
       st.floats(-1e3, 1e3))
def test_softmax_unchanged_by_adding_a_constant(s, c):
    assert np.allclose(al.softmax(s + c), al.softmax(s))


@given(problems())
def test_loop_form_equals_matrix_form_for_every_token(p):
    X, Wq, Wk, Wv = p
    out, w = al.self_attention(X, Wq, Wk, Wv)
    for i in range(len(X)):
        y, wi = al.attend_one(i, X, Wq, Wk, Wv)
        assert np.allclose(y, out[i]) and np.allclose(wi, w[i])


@given(problems(), st.booleans())
def test_cross_attention_of_x_with_itself_is_self_attention(p, causal):
    X, Wq, Wk, Wv = p
    mask = al.causal_mask(len(X)) if causal else None
    a = al.cross_attention(X, X, Wq, Wk, Wv, mask=mask)
    b = al.self_attention(X, Wq, Wk, Wv, mask=mask)
    assert np.allclose(a[0], b[0]) and np.allclose(a[1], b[1])


@st.composite
def square_problems(draw):
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    return draw(mat(n, d)), draw(mat(d, d)), draw(mat(d, d)), draw(mat(d, d))


@given(square_problems())
def test_one_head_with_identity_output_is_single_head(p):
    X, Wq, Wk, Wv = p
    out, w = al.multi_head_attention(X, X, Wq, Wk, Wv, np.eye(X.shape[1]), n_heads=1)
    ref, ref_w = al.self_attention(X, Wq, Wk, Wv)
    assert np.allclose(out, ref) and np.allclose(w[0], ref_w)


@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-1e6, 1e6)))
def test_huge_logits_stay_finite(s):
    w = al.softmax(s * 1e3)
    assert np.isfinite(w).all() and np.isclose(w.sum(), 1.0)
    assert w[np.argmax(s)] == w.max()


@st.composite
def masked_problems(draw):
    n, m, d = draw(st.integers(1, 6)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    mask = draw(arrays(bool, (m, n)))
    mask[np.arange(m), draw(arrays(np.int64, m, elements=st.integers(0, n - 1)))] = True  # a key per row
    return draw(mat(m, d)), draw(mat(n, d)), draw(mat(n, 3)), mask


@given(masked_problems())
def test_random_masks_give_zero_weight_and_renormalise(p):
    Q, K, V, mask = p
    out, w = al.scaled_dot_product_attention(Q, K, V, mask=mask)
    assert np.all(w[~mask] == 0) and np.allclose(w.sum(axis=1), 1.0)
    for i in range(len(Q)):             # each row: the same as attention over its allowed keys alone
        o_i, w_i = al.scaled_dot_product_attention(Q[i:i + 1], K[mask[i]], V[mask[i]])
        assert np.allclose(out[i], o_i[0]) and np.allclose(w[i, mask[i]], w_i[0])


@st.composite
def head_problems(draw):
    h, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    d, m, n = h * k, draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return h, draw(mat(m, d)), draw(mat(n, d)), [draw(mat(d, d)) for _ in range(4)]


@given(head_problems())
def test_multi_head_is_per_head_attention_on_column_blocks(p):
    h, Xq, Xc, (Wq, Wk, Wv, Wo) = p
    k = Xq.shape[1] // h
    out, w = al.multi_head_attention(Xq, Xc, Wq, Wk, Wv, Wo, n_heads=h)
    blocks = [al.cross_attention(Xq, Xc, Wq[:, i * k:(i + 1) * k], Wk[:, i * k:(i + 1) * k],
                                 Wv[:, i * k:(i + 1) * k]) for i in range(h)]
    assert np.allclose(out, np.hstack([o for o, _ in blocks]) @ Wo, atol=1e-8)
    assert np.allclose(w, np.stack([b for _, b in blocks]))
