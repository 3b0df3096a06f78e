"""Tests written for the mutants the rest of the quick lane let survive (tools/mutation.py).

Each expected value is worked out by hand or by another formulation, never by the function itself.
"""

import numpy as np
import pytest

import attention_lab as al
from attention_lab import checks, decoding, heads, judging, masks, positions, training

# ---------------------------------------------------------------- each check names its argument


@pytest.mark.parametrize("call, error, message", [
    (lambda: positions.add_positions(np.zeros(3), np.zeros((4, 3))), ValueError,
     r"^X has shape \(3,\) \(1-D\): expected a 2-D array \(n, d\)"),
    (lambda: positions.add_positions(np.zeros((2, 3)), np.zeros(4)), ValueError,
     r"^table has shape \(4,\) \(1-D\): expected a 2-D array \(max_len, d\)"),
    (lambda: positions.rope(np.zeros(3)), ValueError,
     r"^M \(queries or keys\) has shape \(3,\) \(1-D\): expected at least 2-D \(\.\.\., n, d\)"),
    (lambda: positions.rope(np.zeros((2, 3))), ValueError, r"^M \(queries or keys\) has width d = 3"),
    (lambda: positions.sinusoidal_positions(0, 4), ValueError, r"^n \(number of positions\) is 0"),
    (lambda: positions.sinusoidal_positions(3, 0), ValueError, r"^d \(width\) is 0"),
    (lambda: positions.sinusoidal_positions(3, 3), ValueError, r"^the position encoding has width d = 3"),
    (lambda: positions.sinusoidal_positions(3, 4, base=-1), ValueError, r"^base is -1.* such as 10000\.0$"),
    (lambda: heads.split_weights(np.zeros(4), 2), ValueError,
     r"^W has shape \(4,\) \(1-D\): expected a 2-D array \(d_model, d_model\)"),
    (lambda: decoding.layer_norm(np.zeros(4)), ValueError,
     r"^X has shape \(4,\) \(1-D\): expected a 2-D array \(n, d\)"),
    (lambda: decoding.decoding_cost(4, 0, 2), ValueError, r"^d is 0"),
    (lambda: decoding.decoding_cost(4, 2, 0), ValueError, r"^d_k is 0"),
    (lambda: masks.padding_mask([2], 0), ValueError, r"^n \(padded length\) is 0"),
    (lambda: training.relative_error("a", np.zeros(2)), TypeError, r"^a has dtype <U1: .* array of numbers"),
    (lambda: training.relative_error(np.zeros(2), "b"), TypeError, r"^b has dtype <U1: .* array of numbers"),
    (lambda: training.numerical_gradient(np.sum, "x"), TypeError, r"^x has dtype <U1: .* array of numbers"),
    (lambda: training.numerical_gradient(3, np.zeros(2)), TypeError, r"returning a number, got int$"),
    (lambda: training.numerical_gradient(np.sum, np.zeros(2), eps=0), ValueError, r"^eps = 0"),
    (lambda: training.numerical_gradient(np.sum, np.zeros(2), eps=1), ValueError, r"^eps = 1"),
    (lambda: training.numerical_gradient(np.sum, np.zeros(2), eps=1.5), ValueError, r"^eps = 1\.5"),
    (lambda: training.largest_digit([[1.5]]), TypeError, r"^ids has dtype float64"),
    (lambda: training.task_batch(np.random.default_rng(0), 0, training.ModelConfig()), ValueError,
     r"^batch is 0"),
])
def test_a_bad_argument_is_named_in_the_message(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------- values worked out by hand


def test_kernel_reports_overflow_even_when_the_products_cancel_to_nan():
    Q, K = np.array([[1e308, 1e308]]), np.array([[1e308, -1e308]])   # inf + (-inf) = nan inside Q Kᵀ
    with pytest.raises(ValueError, match=r"overflowed"):
        al.scaled_dot_product_attention(Q, K, np.ones((1, 2)))


def test_sinusoidal_positions_default_base_is_10000():
    # row p, pair i: sin and cos of p / 10000^(2i/d); d = 4, p = 1: angles 1 and 1/100
    expected = np.array([[0.0, 1.0, 0.0, 1.0], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)]])
    np.testing.assert_allclose(positions.sinusoidal_positions(2, 4), expected, atol=1e-15)


def test_largest_digit_by_hand():
    np.testing.assert_array_equal(training.largest_digit(np.array([[1, 5, 2], [7, 0, 3]])),
                                  [[5, 5, 5], [7, 7, 7]])
    np.testing.assert_array_equal(training.largest_digit(np.array([3, 1, 4])), [4, 4, 4])


def test_relative_error_by_hand():
    assert training.relative_error(2.0, 1.0) == pytest.approx(1 / 3)    # |2 - 1| / (|2| + |1|)
    assert training.relative_error([3.0, 4.0], [0.0, 0.0]) == pytest.approx(1.0)   # 5 / (5 + 0)
    assert training.relative_error(0.0, 0.0) == 0.0


def test_numerical_gradient_of_a_square_by_hand():
    square = lambda x: float((x ** 2).sum())   # noqa: E731  gradient 2x
    assert float(training.numerical_gradient(square, 3.0)) == pytest.approx(6.0, abs=1e-5)
    np.testing.assert_allclose(training.numerical_gradient(square, np.array([1, 2])), [2.0, 4.0], atol=1e-5)


def test_task_batch_draws_token_zero_too():
    cfg = training.ModelConfig()
    ids, _ = training.task_batch(np.random.default_rng(1), 64, cfg)
    assert set(np.unique(ids)) == set(range(cfg.vocab_size))


def test_decoding_cost_counts_tokens_from_one():
    assert list(decoding.decoding_cost(4, 8, 2)["t"]) == [1, 2, 3, 4]


def test_cross_attention_uses_the_scale_it_is_given():
    Xq, Xc = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    eye = np.eye(2)
    out, w = masks.cross_attention(Xq, Xc, eye, eye, eye, scale=1.0)
    e = np.exp([1.0, 0.0])                           # scores q·k = 1 and 0, scale 1 (not 1/√2)
    np.testing.assert_allclose(w, [e / e.sum()])
    np.testing.assert_allclose(out, [e / e.sum()])   # V = Xc = I: the output is the weights


def test_decode_with_cache_uses_the_scale_it_is_given():
    X, eye = np.array([[1.0, 0.0], [0.0, 2.0]]), np.eye(2)
    Y, _ = decoding.decode_with_cache(X, eye, eye, eye, scale=1.0)
    e = np.exp([0.0, 4.0])                           # token 1 sees scores x1·x0 = 0 and x1·x1 = 4
    np.testing.assert_allclose(Y, [[1.0, 0.0], [e[0] / e.sum(), 2 * e[1] / e.sum()]])


def test_multi_head_parts_keeps_each_heads_output():
    X = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 3.0]])
    eye = np.eye(4)
    parts = heads.multi_head_parts(X, X, eye, eye, eye, eye, 2, None, 1.0)
    for h in range(2):                               # head h reads columns 2h, 2h+1 of X
        Xh = X[:, 2 * h:2 * h + 2]
        s = Xh @ Xh.T
        w = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(parts.heads[h], w @ Xh)


# ---------------------------------------------------------------- the judges (checks.py)


def exercise():
    return checks.Exercise("k", "q", lambda: np.array([1000.0, 2.0]),
                           {"swapped": (lambda: np.array([2.0, 1000.0]), "the two are swapped")})


def test_exercise_verdicts_by_status():
    ex = exercise()
    assert ex.evaluate(None).status == "unanswered"
    assert ex.evaluate(...).status == "unanswered"
    bad = ex.evaluate("abc")
    assert bad.status == "wrong" and bad.message.endswith(
        "expected numbers of shape (2,); got text, 'abc': give numbers, without quotes.")
    nan = ex.evaluate([2.0, np.nan])
    assert nan.status == "wrong" and nan.message.endswith(
        "contains NaN or inf (the first at index [1]). Give finite numbers.")        # no softmax here
    tipped = checks.Exercise("k", "q", lambda: np.array([1000.0, 2.0]), softmax=True).evaluate([np.inf, 2])
    assert tipped.message.endswith("(the first at index [0]). Did a softmax overflow? Subtract the maximum "
                                   "score first.")
    assert ex.evaluate([1000.004, 2.0]).status == "correct"     # within 5e-3
    assert ex.evaluate([1000.008, 2.0]).status == "wrong"       # 8e-3 off: no tolerance relative to 1000
    assert ex.evaluate([2.0, 1000.0]).status == "mistake"
    assert ex.evaluate([2.0, 1000.008]).status == "wrong"       # near the mistake, but not it
    shape = ex.evaluate([1.0, 2.0, 3.0])
    assert shape.status == "wrong" and shape.message.endswith("expected numbers of shape (2,); got a list of "
                                                              "3 numbers.")
    said = checks.Exercise("k", "q", lambda: np.array([1.0, 2.0]), expects="two numbers, x and y")
    assert said.evaluate(3.0).message == "Exercise k: expected two numbers, x and y; got one number."


def test_choice_and_trial_verdicts_by_status():
    choice = checks.Choice("k", "q", "b", {"a": "no", "c": "no"})
    assert choice.evaluate(None).status == "unanswered"
    assert choice.evaluate(" (B) ").status == "correct"
    assert choice.evaluate("a").status == "mistake"
    other = choice.evaluate("z")
    assert other.status == "wrong" and other.message == "Exercise k: answer with one letter: a, b, c."
    trial = checks.Trial("k", "q", "debug", lambda: None, lambda answer: None, {})
    assert trial.evaluate(None).status == "unanswered"
    assert trial.evaluate(1).status == "correct"


def test_differences_by_hand():
    assert checks.differences(np.array([3.0, 2.0]), np.array([3.0, 2.5])) == \
        "1 of its 2 numbers differs, the largest by 0.5 at index [1]"
    assert checks.differences(np.array(1.0), np.array(2.0)) == "it is off by 1"
    pair, near = np.array([1.0, 0]), np.array([1.001, 0])
    assert checks.differences(1000 * pair, np.array([1000.008, 0])).startswith("1 of its 2")   # no rtol
    assert checks.differences(pair, near).startswith("0 of its 2")                              # atol 5e-3
    assert checks.differences(pair, near, atol=1e-8, rtol=1e-5).startswith("1 of its 2")      # np.isclose's
    assert checks.differences(np.array([1.0, 2.0, np.nan]), np.zeros(3)) == \
        "1 of its 3 numbers is nan or inf, the first at index [2]"
    assert checks.differences(np.array([np.inf, np.nan]), np.zeros(2)) == \
        "2 of its 2 numbers are nan or inf, the first at index [0]"
    assert checks.differences(np.array(np.inf), np.array(0.0)) == "it is nan or inf"


# ---------------------------------------------------------------- the debug judge (judging.judge_fix)

RNG = np.random.default_rng(2026)
SCORES = (RNG.standard_normal(4), RNG.standard_normal(3))      # two fresh inputs of different lengths


def by_logsumexp(s):
    """Softmax written another way: exp(s - log Σ exp s)."""
    return np.exp(s - np.logaddexp.reduce(s))


def halved(s):
    return np.exp(s) / np.exp(s).sum() / 2


def loose(a, b):
    """Close to 0.2: the closeness of a mistake that is only roughly known."""
    return isinstance(a, np.ndarray) and a.shape == np.shape(b) and np.allclose(a, b, atol=0.2)


def judge(**how):
    wrong = {"no exp": lambda s: s / s.sum(), "halved": halved, "crashes": lambda s: s[10],
             "shifted": (lambda s: by_logsumexp(s) + 1.0, loose)}
    return judging.judge_fix(by_logsumexp, wrong, [(s,) for s in SCORES], "a softmax.", **how)


def test_judge_fix_accepts_a_right_fix():
    assert judge()(lambda s: np.exp(s - s.max()) / np.exp(s - s.max()).sum()) is None


def test_judge_fix_names_the_known_mistake():
    assert judge()(lambda s: s / np.sum(s)) == "no exp"
    assert judge()(lambda s: 0.5 * np.exp(s) / np.exp(s).sum()) == "halved"
    assert judge()(lambda s: s[[7]]) == "crashes"               # the same IndexError on every input
    assert judge()(lambda s: by_logsumexp(s) + 1.1) == "shifted"  # within that mistake's own closeness


def test_judge_fix_reports_a_crash_it_does_not_know():
    assert judge()(lambda s: s / 0 if s.size < 4 else {}[1]).startswith("your function raised KeyError")
    assert judge()(3).startswith("expected your fixed function itself")


def test_judge_fix_right_on_one_input_only_is_not_right():
    fix = lambda s: by_logsumexp(s) if s.size == 4 else np.ones(3) / 3   # noqa: E731
    verdict = judge()(fix)
    assert verdict.startswith("on fresh inputs your function returns the right shape (3,), but ")
    assert verdict.endswith(": a softmax.") and "3 of its 3 numbers differ" in verdict


def test_judge_fix_reports_a_wrong_shape():
    assert judge()(lambda s: np.ones(2)) == \
        "on fresh inputs your function returns shape (2,), not (4,): a softmax."


def test_judge_fix_uses_its_closeness_and_its_lock():
    nudged = lambda s: by_logsumexp(s) + 0.1   # noqa: E731
    assert judge(close=loose)(nudged) is None
    assert judge()(nudged) != "halved" and "numbers differ" in judge()(nudged)
    locked = judge(locked=("softmax",))(lambda s: al.softmax(s))
    assert "softmax" in locked and "switches it off" in locked
    assert judge()(lambda s: al.softmax(s)) is None


# ---------------------------------------------------------------- lesson 06-07 baselines, by hand

F = np.array([[0.5, 1.0]])      # not token ids
I2 = np.array([[0, 1]])


@pytest.mark.parametrize("call, message", [
    (lambda: training.counting_baseline(F, I2, I2, I2), r"^train_ids has dtype float64"),
    (lambda: training.counting_baseline(I2, F, I2, I2), r"^train_targets has dtype float64"),
    (lambda: training.counting_baseline(I2, I2, F, I2), r"^test_ids has dtype float64"),
    (lambda: training.counting_baseline(I2, I2, I2, F), r"^test_targets has dtype float64"),
    (lambda: training.commonest_token_baseline(F, I2), r"^ids has dtype float64"),
    (lambda: training.commonest_token_baseline(I2, F), r"^targets has dtype float64"),
    (lambda: training.commonest_other_baseline(F, I2), r"^ids has dtype float64"),
    (lambda: training.commonest_other_baseline(I2, F), r"^targets has dtype float64"),
    (lambda: training.commonest_of_others(F), r"^ids has dtype float64"),
])
def test_each_baseline_names_its_bad_argument(call, message):
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize("call, message", [
    (lambda: training.counting_baseline(I2, I2, I2, np.array([[0, 1, 1]])),
     r"expected training ids and targets of one shape \(B, n\), "
     r"test ids and targets of one shape \(B', n\)$"),
    (lambda: training.commonest_token_baseline(I2, np.array([[0, 1, 1]])),
     r"expected two arrays of token ids \(whole numbers >= 0\) of one shape \(B, n\)$"),
    (lambda: training.commonest_other_baseline(I2, np.array([[0, 1, 1]])),
     r"expected two arrays of token ids \(whole numbers >= 0\) of one shape \(B, n\)$"),
    (lambda: training.commonest_of_others(np.array([[1]])), r"of shape \(B, n\) with n >= 2$"),
    (lambda: training.commonest_of_others(np.array([[0, 3]]), vocab_size=3), r"^vocab_size is 3"),
])
def test_each_baseline_says_which_shapes_it_expects(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_counting_baseline_by_hand():
    # (position 0, token 0) was followed by target 1 twice; (position 1, token 1) by target 0 twice
    a, b = np.array([[0, 1], [0, 1], [1, 0]]), np.array([[1, 0], [1, 0], [0, 1]])
    c, d = np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, 0]])
    assert training.counting_baseline(a, b, c, d) == 0.75   # guesses 1, 0, 0, 1: three of four hit


@pytest.mark.parametrize("a, b, c, d, accuracy", [
    ([[2, 1]], [[1, 0]], [[0, 1]], [[0, 0]], 1.0),   # the largest id only among the training ids
    ([[0, 1]], [[2, 0]], [[0, 1]], [[0, 0]], 0.5),   # ... only among the training targets (guess 2: miss)
    ([[0, 1]], [[1, 0]], [[2, 1]], [[0, 0]], 1.0),   # ... only among the test ids (an unseen pair: guess 0)
])
def test_counting_baseline_counts_every_token_id(a, b, c, d, accuracy):
    assert training.counting_baseline(*map(np.array, (a, b, c, d))) == accuracy


def test_commonest_token_baseline_by_hand():
    # row 0: commonest 0, targets 0, 1, 0 -> 2 of 3; row 1: commonest 1, targets 1, 1, 2 -> 2 of 3
    assert training.commonest_token_baseline(np.array([[0, 0, 1], [2, 1, 1]]),
                                             np.array([[0, 1, 0], [1, 1, 2]])) == pytest.approx(2 / 3)
    assert training.commonest_token_baseline(np.array([[0, 1]]), np.array([[1, 1]])) == 0.5   # a tie


def test_commonest_of_others_by_hand():
    np.testing.assert_array_equal(training.commonest_of_others(np.array([[0, 2, 2]])),
                                  [[[False, False, True], [True, False, True], [True, False, True]]])


def test_commonest_other_baseline_by_hand():
    # places 0 and 1: the others are {0, 1}, a tie (1/2 for target 0); place 2: the others are {0, 0},
    # target 2 missed. The target 2 is larger than every id.
    assert training.commonest_other_baseline(np.array([[0, 0, 1]]), np.array([[0, 0, 2]])) == \
        pytest.approx(1 / 3)


def test_cross_entropy_by_hand_on_far_apart_rows():
    # each row's logits differ by 1 in favour of its target: loss log(1 + e^-1) per place; one row sits
    # near 1000, the other near 0 (a shift by the largest logit of all would underflow the second row)
    logits = np.array([[[1000.0, 999.0], [0.0, 1.0]]])             # (B=1, n=2, vocab=2)
    loss, grad = training.cross_entropy_unchecked(logits, np.array([[0, 1]]))
    assert loss == pytest.approx(np.log1p(np.exp(-1.0)))
    p = 1 / (1 + np.e)                                             # the softmax weight of the other token
    np.testing.assert_allclose(grad, [[[-p / 2, p / 2], [p / 2, -p / 2]]])   # (softmax - one_hot) / 2 places


def test_decoder_step_switches_each_mask_off():
    from attention_lab.examples import translation
    ex = translation()
    n = len(ex.X_enc)
    assert ex.enc_length < n                        # the example has padding to switch off
    on = masks.decoder_step(ex)
    assert (np.triu(on.self_weights, 1) == 0).all() and (on.cross_weights[:, ex.enc_length:] == 0).all()
    off = masks.decoder_step(ex, causal=False, padding=False)
    assert (off.self_weights > 0).all() and (off.cross_weights > 0).all()   # softmax weights, nothing masked


def test_attention_backward_uses_the_scale_it_is_given():
    rng = np.random.default_rng(7)
    Q, K, V, dY = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2)), \
        rng.standard_normal((3, 2))

    def loss(Q_, K_, V_, scale=3.0):                 # L = Σ dY ⊙ softmax(scale Q Kᵀ) V, written out
        s = scale * Q_ @ K_.T
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return float(((w / w.sum(axis=1, keepdims=True)) @ V_ * dY).sum())

    dQ, dK, dV = training.attention_backward(Q, K, V, dY, scale=3.0)
    np.testing.assert_allclose(dQ, training.numerical_gradient(lambda q: loss(q, K, V), Q), atol=1e-6)
    np.testing.assert_allclose(dK, training.numerical_gradient(lambda k: loss(Q, k, V), K), atol=1e-6)
    np.testing.assert_allclose(dV, training.numerical_gradient(lambda v: loss(Q, K, v), V), atol=1e-6)


def test_model_config_vocab_size_needs_two_tokens():
    with pytest.raises(ValueError, match=r"^ModelConfig\.vocab_size is 1: expected a whole number >= 2"):
        training.init_params(training.ModelConfig(vocab_size=1))
    assert training.init_params(training.ModelConfig(vocab_size=2))["E"].shape == (2, 32)   # 2 tokens, d = 32


def test_a_sequence_longer_than_the_model_is_refused_by_name():
    cfg = training.ModelConfig()                     # n = 8
    p = training.init_params(cfg)
    with pytest.raises(ValueError, match=r"^ids has shape \(1, 9\): expected \(B, n\) with 1 <= n <= 8$"):
        training.predict(p, np.zeros((1, 9), int), cfg)


def test_generate_fills_the_circle_of_12_positions():
    from attention_lab.examples import pattern_decoder
    tokens, _ = decoding.generate(pattern_decoder(), ["a", "b"], 10)    # 2 + 10 = 12: exactly room
    assert len(tokens) == 12
    with pytest.raises(ValueError, match=r"= 13: this decoder's circle of positions has room for at most 12"):
        decoding.generate(pattern_decoder(), ["a", "b"], 11)


# ---------------------------------------------------------------- survivors of the final run (see docs)
def test_a_weight_of_the_wrong_shape_names_the_config():
    cfg = al.ModelConfig(vocab_size=5, n=4, d=4, n_heads=2)
    p = al.init_params(cfg) | {"W_q": np.zeros((4, 3))}
    with pytest.raises(ValueError, match=r"^W_q has shape \(4, 3\): expected \(4, 4\) for ModelConfig\("):
        al.loss_and_grads(p, np.zeros((1, 4), int), np.zeros((1, 4), int), cfg)


def test_bad_targets_are_called_targets():
    cfg = al.ModelConfig(vocab_size=5, n=4, d=4, n_heads=2)
    with pytest.raises(TypeError, match=r"^targets must be whole numbers"):
        al.loss_and_grads(al.init_params(cfg), np.zeros((1, 4), int), np.zeros((1, 4)), cfg)


def test_generate_names_n_new():
    with pytest.raises(ValueError, match=r"^n_new is -1"):
        al.generate(al.pattern_decoder(), ["a"], -1)


def test_predict_without_attention_has_no_heads_of_weights():
    cfg = al.ModelConfig(vocab_size=5, n=4, d=4, attention=False, task="copy")
    said, weights = al.predict(al.init_params(cfg), np.zeros((3, 4), int), cfg)
    assert said.shape == (3, 4) and isinstance(weights, np.ndarray) and weights.shape == (3, 0, 4, 4)


def test_the_judges_name_the_type_they_got():
    assert judging.run_student(3).endswith("got int.")
    assert judging.as_numbers("three", (2,), "a row") == \
        "expected a row of shape (2,), got text, 'three': give numbers, without quotes."


def test_judge_fix_says_where_the_numbers_differ():
    """One entry off by 1 on the first input: 'exp(s - max) / sum', with 1 added to entry 0, by hand."""
    def off_by_one(s):
        e = np.exp(s - s.max())
        return e / e.sum() + (np.arange(len(s)) == 0)
    message = judge()(off_by_one)
    assert f"1 of its {len(SCORES[0])} numbers differs, the largest by 1 at index [0]: a softmax." in message
