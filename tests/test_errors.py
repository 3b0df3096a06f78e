"""Bad input gets a ValueError or TypeError that names the shapes or values and what was expected."""

from dataclasses import replace

import numpy as np
import pytest

import attention_lab as al
from attention_lab import real_model as rm

X = np.ones((3, 4))
W = np.ones((4, 4))
SQ = np.eye(4)


def sdpa(**kw):
    args = {"Q": np.ones((3, 4)), "K": np.ones((5, 4)), "V": np.ones((5, 2))}
    args.update(kw)
    return al.scaled_dot_product_attention(**args)


@pytest.mark.parametrize("call, exc, message", [
    # mismatched widths or lengths between any two arguments
    (lambda: sdpa(K=np.ones((5, 3))), ValueError, r"Q has shape \(3, 4\) but K has shape \(5, 3\).*same width d_k"),
    (lambda: sdpa(V=np.ones((4, 2))), ValueError, r"K has shape \(5, 4\) but V has shape \(4, 2\).*one value row per key"),
    (lambda: al.self_attention(np.ones((3, 5)), W, W, W), ValueError, r"X has shape \(3, 5\) but W_q has shape \(4, 4\)"),
    (lambda: al.self_attention(X, W, np.ones((5, 4)), W), ValueError, r"X has shape \(3, 4\) but W_k has shape \(5, 4\)"),
    (lambda: al.self_attention(X, W, W, np.ones((3, 2))), ValueError, r"W_v has shape \(3, 2\)"),
    (lambda: al.self_attention(X, W, np.ones((4, 3)), W), ValueError, r"W_q has shape \(4, 4\) but W_k has shape \(4, 3\)"),
    (lambda: al.cross_attention(X, np.ones((2, 5)), W, W, W), ValueError, r"X_query has shape \(3, 4\) but X_context has shape \(2, 5\)"),
    (lambda: al.multi_head_attention(X, np.ones((2, 3)), W, W, W, W, 2), ValueError, r"X_query has shape \(3, 4\) but X_context has shape \(2, 3\)"),
    # 1-D or 3-D where 2-D is needed
    (lambda: al.self_attention(np.ones(4), W, W, W), ValueError, r"X has shape \(4,\) \(1-D\): expected a 2-D array.*reshape"),
    (lambda: al.self_attention(np.ones((2, 3, 4)), W, W, W), ValueError, r"X has shape \(2, 3, 4\) \(3-D\): expected a 2-D array \(n, d\); this function takes one sequence at a time"),
    (lambda: sdpa(Q=np.ones(4)), ValueError, r"Q has shape \(4,\) \(1-D\): expected at least 2-D \(\.\.\., m, d_k\).*reshape"),
    # batched kernel: leading dimensions and masks must broadcast
    (lambda: sdpa(Q=np.ones((2, 3, 4)), K=np.ones((3, 5, 4)), V=np.ones((3, 5, 2))), ValueError,
     r"leading \(batch or head\) dimensions do not broadcast: Q \(2, 3, 4\), K \(3, 5, 4\), V \(3, 5, 2\)"),
    (lambda: sdpa(Q=np.ones((2, 3, 4)), mask=np.ones((3, 3, 5), bool)), ValueError,
     r"mask has shape \(3, 3, 5\): expected a shape that broadcasts to \(2, 3, 5\)"),
    (lambda: sdpa(Q=np.ones((2, 3, 4)), mask=np.array([[[True] * 5] * 3, [[True] * 5, [False] * 5, [True] * 5]])),
     ValueError, r"mask row 1 \(counting from 0, at leading index \(1,\)\) allows no key"),
    (lambda: sdpa(Q=np.full((3, 4), 1e308)), ValueError, r"scores Q·Kᵀ overflowed \(largest \|Q\| = 1e\+308"),
    # empty sequences
    (lambda: al.self_attention(np.ones((0, 4)), W, W, W), ValueError, r"X has shape \(0, 4\): expected at least one row"),
    (lambda: al.softmax([]), ValueError, r"scores have shape \(0,\)"),
    # NaN or inf
    (lambda: al.self_attention([[1, np.nan, 0, 0]], W, W, W), ValueError, r"X contains nan at row 0, column 1"),
    (lambda: sdpa(V=np.full((5, 2), np.inf)), ValueError, r"V contains inf at row 0, column 0"),
    (lambda: al.softmax([0.0, np.nan]), ValueError, r"scores contain nan"),
    (lambda: al.softmax([0.0, np.inf]), ValueError, r"scores contain inf"),
    (lambda: al.softmax([-np.inf, -np.inf]), ValueError, r"all -inf.*NaN"),
    # non-numeric, None, complex
    (lambda: al.self_attention([["a", "b", "c", "d"]], W, W, W), TypeError, r"X has dtype <U1: expected real numbers"),
    (lambda: al.self_attention(None, W, W, W), TypeError, r"X is None"),
    (lambda: sdpa(K=None), TypeError, r"K is None"),
    (lambda: sdpa(Q=np.ones((3, 4)) * 1j), TypeError, r"Q holds complex numbers"),
    (lambda: al.softmax(["x"]), TypeError, r"scores have dtype <U1"),
    (lambda: al.self_attention(np.ones((3, 4), bool), W, W, W), TypeError, r"X holds booleans.*mask"),
    (lambda: al.self_attention([[1, 2], [3]], W, W, W), ValueError, r"X is not a rectangular array"),
    # masks
    (lambda: sdpa(mask=np.ones((3, 4), bool)), ValueError, r"mask has shape \(3, 4\): expected \(3, 5\)"),
    (lambda: sdpa(mask=np.ones((3, 5))), TypeError, r"mask has dtype float64: expected booleans.*astype\(bool\)"),
    (lambda: sdpa(mask=np.array([[True] * 5, [False] * 5, [True] * 5])), ValueError, r"mask row 1 \(counting from 0\) allows no key"),
    (lambda: al.self_attention(X, W, W, W, mask=~al.causal_mask(3)), ValueError, r"mask row 2 \(counting from 0\) allows no key"),
    # heads
    (lambda: al.multi_head_attention(X, X, W, W, W, W, 0), ValueError, r"n_heads is 0: expected a whole number >= 1"),
    (lambda: al.multi_head_attention(X, X, W, W, W, W, 3), ValueError, r"n_heads is 3 but d_model is 4.*\[1, 2, 4\]"),
    (lambda: al.multi_head_attention(X, X, W, W, W, W, 2.0), TypeError, r"n_heads is 2.0 of type float"),
    (lambda: al.multi_head_attention(X, X, W, W, W, np.ones((4, 3)), 2), ValueError, r"W_O has shape \(4, 3\): expected \(4, 4\)"),
    (lambda: al.multi_head_attention(X, X, np.ones((4, 2)), W, W, W, 2), ValueError, r"W_q has shape \(4, 2\): expected \(4, 4\)"),
    (lambda: al.split_heads(X, 3), ValueError, r"n_heads is 3 but d_model is 4"),
    # scale
    (lambda: sdpa(scale=0), ValueError, r"scale is 0: expected a positive finite number"),
    (lambda: sdpa(scale=-1.0), ValueError, r"scale is -1.0"),
    (lambda: sdpa(scale=float("inf")), ValueError, r"scale is inf"),
    (lambda: sdpa(scale=float("nan")), ValueError, r"scale is nan"),
    (lambda: sdpa(scale="2"), TypeError, r"scale is '2' of type str"),
    (lambda: sdpa(scale=True), TypeError, r"scale is True of type bool"),
    # token index
    (lambda: al.attend_one(3, X, W, W, W), ValueError, r"token index i is 3 but X has 3 tokens: expected 0 <= i <= 2"),
    (lambda: al.attend_one(-1, X, W, W, W), ValueError, r"token index i is -1"),
    (lambda: al.attend_one(1.0, X, W, W, W), TypeError, r"token index i is 1.0 of type float"),
    (lambda: al.attend_one(0, X, W, np.ones((3, 4)), W), ValueError, r"W_k has shape \(3, 4\)"),
    # causal mask size
    (lambda: al.causal_mask(0), ValueError, r"n \(number of tokens\) is 0: expected a whole number >= 1"),
    (lambda: al.causal_mask(2.5), TypeError, r"n \(number of tokens\) is 2.5"),
    (lambda: al.padding_mask([4], 3), ValueError, r"lengths\[0\] is 4 but the padded length n is 3"),
    (lambda: al.padding_mask(4, 3), TypeError, r"lengths is 4: expected a list of whole numbers"),
    (lambda: al.decoder_step({"X_dec": [[1.0]]}), TypeError, r"the example is a dict: expected a Translation"),
    (lambda: al.decoder_step(replace(al.translation(), X_enc=np.ones((6, 3)))), ValueError,
     r"X_dec has shape \(4, 5\) but X_enc has shape \(6, 3\): queries and context tokens need the same"),
    (lambda: al.decoder_step(replace(al.translation(), self_W_v=np.ones((5, 2)))), ValueError,
     r"X_dec has shape \(4, 5\) but self_W_v has shape \(5, 2\): the residual"),
    (lambda: al.decoder_step(replace(al.translation(), enc_length=7)), ValueError,
     r"lengths\[0\] is 7 but the padded length n is 6"),
    (lambda: al.decoder_step(replace(al.translation(), dec_tokens=["le"])), ValueError,
     r"there are 1 dec_tokens but 4 rows or columns to name"),
    (lambda: al.decoder_step(al.translation(), causal="yes"), TypeError,
     r"^causal must be True or False, got str 'yes'$"),
    (lambda: al.decoder_step(al.translation(), padding=1), TypeError, r"^padding must be True or False, got int 1$"),
    # softmax axis
    (lambda: al.softmax(X, axis=2), ValueError, r"axis is 2 but scores have shape \(3, 4\)"),
    # heatmap input
    (lambda: al.heatmap(np.ones((1, 3)) * 2, ["a"], ["x", "y", "z"]), ValueError, r"weights range from 2 to 2.*scores"),
    (lambda: al.heatmap(np.ones((1, 3)) / 3, ["a"], ["x", "y"]), ValueError,
     r"values have shape \(1, 3\) but there are 1 row labels and 2 column labels: expected one label per row and one per column"),
    # heads
    (lambda: al.concat_heads(np.ones((2, 2))), ValueError, r"heads have shape \(2, 2\): expected \(n_heads, n, d_k\)"),
    (lambda: al.multi_head_attention(X, X, W, W, W, W, 2, mask=np.ones((3, 3, 3), bool)), ValueError,
     r"mask has shape \(3, 3, 3\): expected a shape that broadcasts to \(2, 3, 3\)"),
    (lambda: al.multi_head_attention(X, X, W, W, W, W, 2, scale=-1), ValueError, r"scale is -1: expected a positive finite number, or None for 1/sqrt\(d_k\) = 0.7071"),
])
def test_bad_input_message(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


@pytest.mark.parametrize("name, message", [
    ("X", "X has shape (2, 7) but W_q has shape (4, 4): W_q needs one row per feature of the tokens (7 rows)"),
    ("W_q", "X has shape (3, 4) but W_q has shape (2, 7): W_q needs one row per feature of the tokens (4 rows)"),
    ("W_k", "X has shape (3, 4) but W_k has shape (2, 7): W_k needs one row per feature of the tokens (4 rows)"),
    ("W_v", "X has shape (3, 4) but W_v has shape (2, 7): W_v needs one row per feature of the tokens (4 rows)"),
])
def test_no_bare_numpy_error_for_any_argument(name, message):
    """Each argument of self_attention, broken in turn, gets our whole message, not NumPy's."""
    bad = {"X": X, "W_q": W, "W_k": W, "W_v": W} | {name: np.ones((2, 7))}
    with pytest.raises(ValueError) as info:
        al.self_attention(**bad)
    assert str(info.value) == message


@pytest.mark.parametrize("make", [al.token_explorer, lambda *a, **k: al.matrix_explorer(*a[1:], edit=a[0], **k)])
def test_explorer_bad_input(make):
    ex = al.cats_chase_mice()
    args = (ex.X, ex.W_q, ex.W_k, ex.W_v)
    with pytest.raises(ValueError, match=r"3 tokens and 4 features: expected one word per row"):
        make(1, *args, ex.tokens[:3], ex.features)
    with pytest.raises(ValueError, match=r"token index i is 4 but X has 4 tokens"):
        make(4, *args, ex.tokens, ex.features)
    with pytest.raises(ValueError, match=r"X has shape \(4, 4\) but W_q has shape \(3, 4\)"):
        make(1, ex.X, ex.W_q[:3], ex.W_k, ex.W_v, ex.tokens, ex.features)
    with pytest.raises(ValueError, match=r"low is 2.0 and high is -2.0: expected low < high"):
        make(1, *args, ex.tokens, ex.features, low=2.0, high=-2.0)


def heads_explorer(**kw):
    ex = al.cats_chase_mice()
    return al.heads_explorer(ex.X, ex.W_q, ex.W_k, ex.W_v, np.eye(4), ex.tokens, ex.features, **kw)


class NotARun:
    snapshot_steps = (0, 10, 20)


@pytest.mark.parametrize("call, exc, message", [
    # a size or a constant that must be positive
    (lambda: al.layer_norm(X, eps=-1), ValueError, r"eps is -1: expected a finite number >= 0 such as 1e-5"),
    (lambda: al.layer_norm(X, eps=-1e-9), ValueError, r"eps is -1e-09"),
    (lambda: al.layer_norm(X, eps=float("nan")), ValueError, r"eps is nan"),
    (lambda: al.layer_norm(X, eps="1e-5"), TypeError, r"eps is '1e-5' of type str"),
    (lambda: al.layer_norm(X, eps=None), TypeError, r"eps is None of type NoneType: expected a finite number >= 0"),
    (lambda: al.rope(X, base=0), ValueError, r"base is 0: expected a positive finite number such as 10000.0"),
    (lambda: al.rope(X, base=-10000.0), ValueError, r"base is -10000.0"),
    (lambda: al.rope(X, base=True), TypeError, r"base is True of type bool"),
    (lambda: al.sinusoidal_positions(3, 4, base=-1), ValueError, r"base is -1: expected a positive finite number"),
    (lambda: al.sinusoidal_positions(3, 4, base=float("inf")), ValueError, r"base is inf"),
    # a dict or another object where a record is expected
    (lambda: al.generate({"vocab": ["a"]}, ["a"], 2), TypeError, r"dec \(the decoder\) is a dict: expected a PatternDecoder"),
    (lambda: al.transformer_block(X, {"W_q": W}), TypeError, r"p \(the block's weights\) is a dict: expected a BlockWeights"),
    (lambda: al.training_explorer(NotARun(), np.zeros((2, 8), int), np.zeros((2, 8), int)), TypeError,
     r"expected the Run that train\(\) returns, got NotARun"),
    (lambda: al.plot_learning_curve(NotARun(), np.zeros((2, 8), int), np.zeros((2, 8), int), 0.5), TypeError,
     r"expected the Run that train\(\) returns, got NotARun"),
    (lambda: al.phase_change(NotARun()), TypeError, r"expected the InductionRun that train_induction\(\) returns"),
    (lambda: al.induction_explorer(NotARun(), np.arange(8)), TypeError, r"expected the InductionRun"),
    # a float where a whole number is expected
    (lambda: heads_explorer(n_heads=2.0), TypeError, r"n_heads is 2.0 of type float: expected a whole number"),
    (lambda: heads_explorer(n_heads=True), TypeError, r"n_heads is True of type bool"),
    (lambda: heads_explorer(n_heads=3), ValueError, r"n_heads is 3 but d_model is 4: choose one of \(1, 2, 4\)"),
    # float token ids: the same TypeError everywhere
    (lambda: al.commonest_token_baseline([[0.0, 1.0]], [[0, 1]]), TypeError, r"ids has dtype float64: expected token ids"),
    (lambda: al.commonest_of_others([[0.0, 1.0]]), TypeError, r"ids has dtype float64: expected token ids"),
    (lambda: al.commonest_other_baseline([[0, 1]], [[0.0, 1.0]]), TypeError, r"targets has dtype float64"),
    (lambda: al.counting_baseline([[0, 1]], [[0, 1]], [[0.5, 1]], [[0, 1]]), TypeError, r"test_ids has dtype float64"),
    (lambda: al.letters([0.0, 1.0]), TypeError, r"ids has dtype float64: expected token ids"),
    (lambda: al.largest_digit([[0.5, 1.0]]), TypeError, r"ids has dtype float64: expected token ids"),
    (lambda: al.letters([True, False]), TypeError, r"ids has dtype bool"),
    (lambda: al.commonest_of_others([[0, -1]]), ValueError, r"ids holds -1: expected token ids, whole numbers >= 0"),
    # a learning rate, a generator
    (lambda: al.train(al.ModelConfig(), steps=2, lr="0.1"), TypeError, r"lr = '0.1' of type str: expected a learning rate"),
    (lambda: al.train_induction(al.InductionConfig(), steps=2, lr=None), TypeError, r"lr = None of type NoneType"),
    (lambda: al.train_induction(al.InductionConfig(), steps=2, lr=1.5), ValueError, r"lr = 1.5: expected a learning rate between 0 and 1, such as 0.01"),
    # a table of columns: a dict with the keys its experiment returns
    (lambda: al.plot_cost(np.ones(3)), TypeError, r"table is a ndarray: expected the dict that time_forms\(\) returns"),
    (lambda: al.plot_cost({"n": [1]}), ValueError, r"table has keys \['n'\] but lacks \['loop_s', 'matrix_s'\]"),
    (lambda: al.plot_decoding_cost({}), ValueError, r"lacks \['t', 'no_cache', 'cache'\]: expected the dict that decoding_cost"),
    (lambda: al.plot_scaling({"d_k": [1]}), ValueError, r"lacks \['std_unscaled'"),
    (lambda: al.plot_saturation([]), TypeError, r"table is a list: expected the dict that saturation_experiment"),
    # issue 22: one exception type per kind of fault (TypeError: wrong type; ValueError: wrong value)
    (lambda: al.rope(np.ones((2, 4)), [0.0, 1.0]), TypeError,
     r"positions \[0.0, 1.0\] have dtype float64: expected 2 whole numbers >= 0"),
    (lambda: al.numerical_gradient(np.sum, np.ones(3), eps="1e-6"), TypeError,
     r"eps = '1e-6' of type str: expected a small positive step"),
    (lambda: al.saturation_experiment(np.zeros((2, 8), int), steps=1, threshold="0.1"), TypeError,
     r"threshold is '0.1' of type str: expected a positive finite number"),
    (lambda: al.init_params(al.ModelConfig(task=5)), TypeError,
     r"ModelConfig.task is 5 of type int: expected one of \['copy', 'largest', 'reverse'\]"),
    (lambda: al.loss_of(al.init_params(al.ModelConfig()), np.zeros((1, 1, 2), int), [[0, 1]], al.ModelConfig()),
     ValueError, r"ids must be whole numbers of shape \(B, n\).*got int64 of shape \(1, 1, 2\)"),
    (lambda: al.loss_of({"E": np.zeros((10, 32))}, [[0]], [[0]], al.ModelConfig()), ValueError,
     r"expected the weights as a dict with keys \['E', 'P', 'W_q', 'W_k', 'W_v', 'W_O', 'W_u'\], got \['E'\]"),
    (lambda: al.induction_loss({"E": np.zeros((24, 32))}, [[0, 1]], al.InductionConfig()), ValueError,
     r"expected the weights as a dict with keys \['E', 'P', 'W_q1'.*got \['E'\]"),
    (lambda: al.induction_loss(al.init_induction(al.InductionConfig()), [[0, 1]], al.InductionConfig(),
                               knock=[(1.5, 0)]), TypeError,
     r"knock holds \(1.5, 0\): expected \(layer, head\) pairs of whole numbers"),
    (lambda: al.induction_loss(al.init_induction(al.InductionConfig()), [[0, 1]], al.InductionConfig(),
                               knock=2), TypeError, r"knock is 2: expected a list of \(layer, head\) pairs"),
    (lambda: rm.prefix_matching_scores(np.full((1, 1, 4, 4), 0.25), 1.5), TypeError,
     r"period is 1.5 of type float: expected a whole number"),
])
def test_bad_input_at_the_door(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
