"""The sources' examples are frozen records with named fields, fresh on every call, as the examples are."""

import dataclasses
import math

import numpy as np
import pytest

import attention_lab as al

MAKERS = {al.source_000: al.SourceAttention, al.source_001: al.SourceAttention,
          al.source_002: al.SourceAttention, al.source_003: al.SourceTorchLayout,
          al.source_004: al.SourceEncoderDecoder}


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_each_source_is_a_frozen_record(make):
    src = make()
    assert type(src) is MAKERS[make]
    with pytest.raises(dataclasses.FrozenInstanceError):
        src.printed = {}
    assert "printed" in [f.name for f in dataclasses.fields(src)] and src.printed


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_each_call_gives_fresh_arrays(make):
    first = make()
    arrays = [f.name for f in dataclasses.fields(first) if isinstance(getattr(first, f.name), np.ndarray)]
    for name in arrays:
        getattr(first, name)[...] = 99.0               # a lesson changes its own copy
    second = make()
    for name in arrays:
        assert not (getattr(second, name) == 99.0).any(), f"{make.__name__}().{name} is shared between calls"
    for value in first.printed.values():
        if isinstance(value, np.ndarray):
            value[...] = 99.0
    assert not any(np.any(np.asarray(v) == 99.0) for v in make().printed.values())


def test_the_rows_are_tokens_and_the_shapes_fit():
    s0, s1, s2 = al.source_000(), al.source_001(), al.source_002()
    assert s0.X.shape == (4, 4) and s1.X.shape == (2, 2) and s2.X.shape == (3, 4)   # n tokens, d features
    assert s2.W_q.shape == s2.W_k.shape == s2.W_v.shape == (4, 3)
    s3 = al.source_003()
    assert s3.tokens == ["Write", "a", "poem"] and s3.encodings.shape == (3, 2)
    s4 = al.source_004()
    assert s4.Z_self.shape == (2, 2) and s4.Z_encoder.shape == (3, 2)
    assert np.array_equal(s4.X, [[1, 0], [0, 1], [1, 1]]) and np.array_equal(s4.W, np.eye(2))


# ---------- each printout against its own source's inputs, recomputed here in plain NumPy (issue 46) -------
def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_source_000_printed_its_own_numbers_in_float32_but_for_the_slip():
    """Source 000 (column convention: q_i = W_q x_i, x_i a row of X; no scaling) printed q_2, every k_j, the
    scores q_2·k_j, w_21 and w_22, every v_j and y_2 as float32 computes them: each within 1e-6 of the largest
    number of its printout. Its last two 'weights' are the raw scores w'_23, w'_24, copied by a slip."""
    s = al.source_000()
    assert s.X.shape == (4, 4) and all(W.shape == (4, 4) for W in (s.W_q, s.W_k, s.W_v))
    q2 = s.W_q @ s.X[1]
    k = s.X @ s.W_k.T                                       # row j: W_k x_j
    v = s.X @ s.W_v.T
    scores = k @ q2
    w = softmax(scores)
    ours = {"q_2": q2, "k": k, "scores": scores, "v": v, "y_2": w @ v}
    assert sorted(s.printed) == sorted([*ours, "weights"])
    for name, value in ours.items():
        printed = s.printed[name]
        assert printed.shape == value.shape, name
        assert np.abs(printed - value).max() <= 1e-6 * np.abs(printed).max(), name
    assert np.abs(s.printed["weights"][:2] - w[:2]).max() <= 1e-6
    assert np.array_equal(s.printed["weights"][2:], s.printed["scores"][2:])    # the slip
    assert w[2] < 1e-5 and 0.4 < w[3] < 0.5                                     # what it should have shown


def test_source_001_printed_its_output_as_worked_out_by_hand():
    """X = I, W_q = W_k = I: the scores are 1/√2 on the diagonal, 0 elsewhere, so each token gives itself
    e^a / (e^a + 1), a = 1/√2, and the other token 1 / (e^a + 1); V = X W_v = [[1, 2], [3, 4]]."""
    s = al.source_001()
    for M in (s.X, s.W_q, s.W_k):
        assert np.array_equal(M, [[1.0, 0.0], [0.0, 1.0]])
    assert np.array_equal(s.W_v, [[1.0, 2.0], [3.0, 4.0]])
    e = np.exp(1 / np.sqrt(2))
    own, other = e / (e + 1), 1 / (e + 1)
    by_hand = [[own * 1 + other * 3, own * 2 + other * 4], [other * 1 + own * 3, other * 2 + own * 4]]
    assert list(s.printed) == ["output"]
    assert np.abs(s.printed["output"] - by_hand).max() < 1e-7


def test_source_002_printed_unscaled_numbers_and_two_slips():
    """Source 002 sets √d_k to 1: its scores are (X W_q)(X W_k)ᵀ exactly, its weights their softmax, its first
    output row those weights times X W_v. Its 'rounded' weights of input 1 are cut, not rounded (0.468 shows
    as 0.46), and the √3 it wrote is 1.75, more than 0.01 off."""
    s = al.source_002()
    assert s.X.shape == (3, 4) and all(W.shape == (4, 3) for W in (s.W_q, s.W_k, s.W_v))
    scores = (s.X @ s.W_q) @ (s.X @ s.W_k).T
    w = softmax(scores)
    p = s.printed
    assert sorted(p) == ["output_row_1", "scores", "sqrt_d_k", "weights", "weights_row_1_rounded"]
    assert np.array_equal(p["scores"], scores)
    assert np.abs(p["weights"] - w).max() < 1e-8
    assert np.abs(p["output_row_1"] - w[0] @ (s.X @ s.W_v)).max() < 1e-8
    assert np.array_equal(p["weights_row_1_rounded"], np.floor(w[0] * 100) / 100)
    assert not np.array_equal(p["weights_row_1_rounded"], np.round(w[0], 2))
    assert 0.01 < p["sqrt_d_k"] - np.sqrt(3) < 0.02


def test_source_003_printed_weights_and_output_rounded_its_scores_not():
    """'Write a poem' with nn.Linear's weights (Q = X W_qᵀ), scaled by √2: the weights of 'Write' as printed
    (0.36, 0.40, 0.24) are the recomputed ones to 2 decimals, the first output 1.0 to 1; the printed scores
    (-0.09, 0.06, -0.61, as the lesson shows them) are neither the scaled nor the unscaled ones."""
    s = al.source_003()
    assert s.tokens == ["Write", "a", "poem"]
    # W_v's second row reaches no printout (only the first output number is printed): as the passage gives it
    assert np.array_equal(s.W_v_torch[1], [0.6146, 0.1323])
    Q, K, V = (s.encodings @ W.T for W in (s.W_q_torch, s.W_k_torch, s.W_v_torch))
    scores = (Q @ K.T)[0]
    w = softmax(scores / np.sqrt(2))
    p = s.printed
    assert sorted(p) == ["output_write_first", "scores_write", "weights_write"]
    assert np.array_equal(p["weights_write"], [0.36, 0.40, 0.24])
    assert np.abs(p["weights_write"] - w).max() <= 0.005
    assert p["output_write_first"] == 1.0 and abs(w @ V[:, 0] - 1.0) <= 0.05
    assert np.array_equal(p["scores_write"], [-0.09, 0.06, -0.61])
    assert np.abs(p["scores_write"] - scores).max() > 0.005
    assert np.abs(p["scores_write"] - scores / np.sqrt(2)).max() > 0.005


def test_source_004_printout_as_the_lesson_shows_it():
    """Identity weights, three tokens (1, 0), (0, 1), (1, 1) as the encoder's output and the self-attention's
    input, two decoder queries I: the printed weights and outputs, typed as the lesson prints them, where the
    cross-attention repeats the first two rows of the self-attention."""
    s = al.source_004()
    assert np.array_equal(s.Z_encoder, [[1, 0], [0, 1], [1, 1]]) and np.array_equal(s.Z_self, np.eye(2))
    p = s.printed
    assert list(p) == ["self_weights", "self_output", "cross_weights", "cross_output"]
    assert np.array_equal(p["self_weights"],
                          [[0.5, 0.183, 0.317], [0.183, 0.5, 0.317], [0.211, 0.211, 0.578]])
    assert np.array_equal(p["self_output"], [[0.817, 0.317], [0.317, 0.817], [0.789, 0.789]])
    assert np.array_equal(p["cross_weights"], p["self_weights"][:2])
    assert np.array_equal(p["cross_output"], p["self_output"][:2])


# ---------- the printout checker at the edges of its rules (issue 46) ----------
def test_a_weight_may_be_off_0_1_by_the_rounding_and_no_more():
    tol = 0.005
    assert al.printout_problems([-5.0, 0.0, 0.0], [-tol, 0.5, 0.5 + tol]) == []
    assert al.printout_problems([5.0, -5.0], [1 + tol, -tol]) == []
    assert al.printout_problems([5.0, -5.0], [1.5, -0.5]) == ["weight 1.5 of key 0 is outside 0..1",
                                                              "weight -0.5 of key 1 is outside 0..1"]


def test_a_masked_key_may_keep_a_weight_within_the_rounding():
    assert al.printout_problems([0.0, -np.inf], [0.995, 0.005]) == []
    assert al.printout_problems([0.0, -np.inf], [0.99, 0.01]) == [
        "key 1 is masked (score -inf) but has weight 0.01, not 0"]


def test_a_sum_may_be_off_by_n_roundings_and_float32s_limit():
    """tol 0.5 on 4 weights allows a sum off by 2 + 1e-6; a sum off by exactly that is no finding (these
    numbers add up exactly in binary)."""
    off = 4 * 0.5 + 1e-6
    assert al.printout_problems([0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25 + off], tol=0.5) == [
        "weight 2.25 of key 3 is outside 0..1"]
    assert al.printout_problems([0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25 + 1.01 * off], tol=0.5) == [
        "weight 2.27 of key 3 is outside 0..1",
        "the weights sum to 3.02000101, not 1 (off by +2.02; the rounding allows 2)"]


def test_equal_scores_allow_weights_2_tol_apart_and_no_more():
    """Exact scores (score_tol 0): equal scores allow their weights 2 tol apart, 0.01 at 2 decimals."""
    assert al.printout_problems([1.0, 1.0], [0.505, 0.495], score_tol=0) == []
    assert al.printout_problems([1.0, 1.0], [0.51, 0.49], score_tol=0) == [
        "keys 0 and 1 have equal scores (1) but weights 0.51 and 0.49, further apart than the rounding "
        "allows (0.01)"]


def allowed_by_hand(w_larger, tol, score_tol):
    """The docstring's rule: 2 tol + (w + tol)(1 - e^(-2 score_tol)), w the larger printed weight."""
    return 2 * tol + (w_larger + tol) * (1 - math.exp(-2 * score_tol))


def test_tie_allowance_is_the_rule_of_the_docstring():
    from attention_lab.sources import tie_allowance
    by_hand = allowed_by_hand(0.5, 0.01, 0.05)
    assert math.isclose(tie_allowance(0.5, 0.4, 0.01, 0.05), by_hand, rel_tol=1e-12)
    assert math.isclose(tie_allowance(0.3, 0.6, 0.0, 0.25), 0.6 * (1 - math.exp(-0.5)), rel_tol=1e-12)


def test_near_tied_scores_allow_the_other_order_up_to_the_tie_allowance():
    """Scores 0.05 apart, printed with 1 decimal (score_tol 0.05), weights with tol 0.01: the other order is
    no finding up to the allowance worked out by hand, and one at 1.5 times it is."""
    tol, score_tol, larger = 0.01, 0.05, 0.45
    for times, found in ((1.0, 0), (1.5, 1)):
        d = times * allowed_by_hand(larger, tol, score_tol)
        weights = [larger, larger - d, 1 - 2 * larger + d]
        problems = al.printout_problems([1.0, 1.05, -1.0], weights, tol=tol, score_tol=score_tol)
        assert len(problems) == found, (times, problems)
        said = "key 0 scores 1 and key 1 1.05, but their weights 0.45 and "
        assert all(p.startswith(said) for p in problems)


def test_near_ties_reach_2_score_tol_and_no_further():
    """score_tol 0.25: scores 0.5 apart may still be in either order (weights 0.1 apart, allowed about 0.2);
    0.6 apart they may not, and the other order is a finding beyond tol."""
    kw = {"tol": 0.01, "score_tol": 0.25}
    assert al.printout_problems([0.0, 0.5, -3.0], [0.5, 0.4, 0.1], **kw) == []
    assert al.printout_problems([0.0, 0.6, -3.0], [0.5, 0.4, 0.1], **kw) == [
        "key 0 scores 0 and key 1 0.6, but their weights 0.5 and 0.4 are in the other order"]


def test_the_other_order_far_apart_is_a_finding_beyond_tol_only():
    assert al.printout_problems([1.0, 0.0], [0.375, 0.625], tol=0.25) == []      # 0.25 apart: exactly tol
    assert al.printout_problems([1.0, 0.0], [0.37, 0.63], tol=0.25) == [
        "key 0 scores 1 and key 1 0, but their weights 0.37 and 0.63 are in the other order"]


def test_a_weight_of_exactly_tol_may_be_a_masked_key():
    assert al.printout_problems([0.0, 1.0], [0.995, 0.005]) == [
        "key 0 scores 0 and key 1 1, but their weights 0.995 and 0.005 are in the other order (key 1's "
        "weight rounds to 0 at tol=0.005: if key 1 was masked, pass the masked scores, -inf at each masked "
        "key)"]


def test_rounding_limit_of_a_masked_array_of_whole_numbers():
    """A printout of whole numbers with a masked entry: the masked one is left out of the largest."""
    printed = np.ma.masked_array([1, 200, 3], mask=[False, True, False])
    assert rounding_limit_is(printed, 3e-6)
    assert rounding_limit_is(printed, 0.5, decimals=0)


def rounding_limit_is(printed, expected, **kw):
    return math.isclose(al.rounding_limit(printed, **kw), expected, rel_tol=1e-12)
