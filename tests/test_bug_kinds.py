"""One fast test per kind of bug that once got through the quick lane (issue 22).

Every expected value here is computed apart from the package: by hand, or in plain NumPy written
out below (a softmax, a layer norm, a head loop), never by calling the function under test twice.
"""

import math
import types

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import attention_lab as al
from attention_lab import experiments


def plain_softmax(s):
    """Row softmax in plain NumPy, shifted by the row maximum."""
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def plain_layer_norm(X, eps=1e-5):
    return (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + eps)


def drawn_blocks(fig):
    """{title's first line: the array drawn} for the imshow blocks of a figure."""
    return {ax.get_title().split("\n")[0]: np.array(ax.images[0].get_array()) for ax in fig.axes if ax.images}


# lesson 01: the loop


def test_attend_one_subtracts_the_largest_score_not_the_first():
    # two tokens, keys = X = I, token 0's query (0, 2000): scores [0, 2000] at scale 1
    X = np.eye(2)
    W_q = np.array([[0.0, 2000.0], [0.0, 0.0]])
    W_v = np.array([[1.0, 2.0], [3.0, 4.0]])
    y, w = al.attend_one(0, X, W_q, np.eye(2), W_v, scale=1.0)
    # by hand: e^(0 - 2000) = 0 in float64, so all the weight is on token 1, and y = v_1 = (3, 4)
    assert math.exp(-2000) == 0.0
    assert np.array_equal(w, [0.0, 1.0])
    assert np.array_equal(y, [3.0, 4.0])


def test_time_forms_scales_the_sampled_loop_to_all_tokens(monkeypatch):
    # a fake clock: one attend_one costs 1 tick, one self_attention 7 ticks, nothing else costs time
    clock = [0.0]

    def tick(cost):
        def run(*args, **kwargs):
            clock[0] += cost
        return run

    monkeypatch.setattr(experiments, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(experiments, "attend_one", tick(1.0))
    monkeypatch.setattr(experiments, "self_attention", tick(7.0))
    t = al.time_forms(ns=(4, 64), d=2, sample=16, repeats=2)
    # n = 4: all 4 tokens timed, 4 ticks; n = 64: 16 tokens timed (16 ticks), 64 / 16 of them = 64
    assert np.array_equal(t["n"], [4, 64])
    assert np.allclose(t["loop_s"], [4.0, 64.0])
    assert np.allclose(t["matrix_s"], [7.0, 7.0])


# lesson 01 explorer: colour limits


def test_output_colours_cover_an_asymmetric_slider_range():
    # sliders from -5 to 1; with x₁ = (-5, -5), W_q = W_k = W_v = I, scale 1: token 1's own score 50
    # beats the others' -5, so y₁ ≈ v₁ = (-5, -5), and |y| <= 5 anywhere in the box (|x| <= 5)
    X = np.array([[0.5, 0.5], [0.0, 0.0], [0.5, 0.5]])
    ex = al.token_explorer(1, X, np.eye(2), np.eye(2), np.eye(2), ["a", "b", "c"], ["f", "g"],
                           scale=1.0, low=-5.0, high=1.0)
    ex.set(f=-5.0, g=-5.0)
    scores = np.array([-5.0, 50.0, -5.0])
    w = np.exp(scores - 50) / np.exp(scores - 50).sum()
    y = w @ np.array([[0.5, 0.5], [-5.0, -5.0], [0.5, 0.5]])
    assert np.allclose(ex.result["output"][0], y) and y.min() < -4.99
    norm = ex.axes["output"].collections[0].norm
    assert norm.vmin <= -5 and norm.vmax >= 5                 # -5 is on the scale, not clipped


# lesson 10: judging a printout


def test_printout_problems_allows_rounding_but_not_real_slips():
    # a true softmax row printed to 2 decimals: [0.665, 0.245, 0.090] -> [0.67, 0.24, 0.09]
    s = np.array([2.0, 1.0, 0.0])
    printed = np.round(plain_softmax(s), 2)
    assert np.array_equal(printed, [0.67, 0.24, 0.09])
    assert al.printout_problems(s, printed) == []
    # four weights, each rounded down by 0.0025: they sum to 0.99, within 4 roundings of 0.005
    w = np.array([0.2525, 0.2525, 0.2525, 0.2425])
    assert al.printout_problems(np.log(w), np.round(w, 2)) == []
    # exact equal scores, weights with 3 decimals 0.006 apart: more than a unit of the third decimal (0.001)
    assert al.printout_problems([1.0, 1.0, 0.0], [0.4, 0.394, 0.206], tol=5e-4, score_tol=0) == [
        "keys 0 and 1 have equal scores (1) but weights 0.4 and 0.394, further apart than the rounding "
        "allows (0.001)"]
    # a sum of 1.03 on three weights: more than 3 roundings of 0.005
    assert al.printout_problems([2.0, 1.0, 0.0], [0.68, 0.25, 0.1]) == [
        "the weights sum to 1.03, not 1 (off by +0.03; the rounding allows 0.015)"]


def test_printout_problems_reads_masked_scores():
    """Review round 11, item 2: a decoder's printout (causal mask) is judged on the scores the softmax saw,
    -inf at each masked key; a masked key needs weight 0 and is left out of the order and tie checks."""
    S = np.array([[1.0, 2.0], [1.0, 2.0]])                             # the raw scores Q Kᵀ
    masked = np.where(np.tril(np.ones((2, 2), dtype=bool)), S, -np.inf)
    W = np.round(plain_softmax(masked), 3)                              # [[1, 0], [0.269, 0.731]]
    assert np.array_equal(W, [[1.0, 0.0], [0.269, 0.731]])
    kept = masked.copy()
    assert al.printout_problems(masked, W) == []
    assert np.array_equal(masked, kept)                                 # the caller's -inf stays
    # the raw scores give the order finding, and it says what to pass
    raw = al.printout_problems(S, W)
    assert len(raw) == 1 and "row 0: key 0 scores 1 and key 1 2" in raw[0]
    assert ("key 1's weight rounds to 0 at tol=0.005: if key 1 was masked, pass the masked scores, -inf at "
            "each masked key") in raw[0]
    # a masked key with weight: found; masked keys never enter the tie check
    assert al.printout_problems(masked, [[0.9, 0.1], [0.269, 0.731]]) == [
        "row 0: key 1 is masked (score -inf) but has weight 0.1, not 0"]
    assert al.printout_problems([1.0, -np.inf, -np.inf], [1.0, 0.0, 0.0]) == []


def test_printout_problems_refuses_what_no_softmax_saw():
    for bad, says in (([np.nan, 1.0], "scores contain nan: expected finite numbers, or -inf at a masked key"),
                      ([np.inf, 1.0], "scores contain inf: expected finite numbers, or -inf at a masked key"),
                      ([-np.inf, -np.inf], "scores is -inf at every key")):
        with pytest.raises(ValueError, match=says):
            al.printout_problems(bad, [0.5, 0.5])
    with pytest.raises(ValueError, match="row 1 of scores is -inf at every key"):
        al.printout_problems([[0.0, 1.0], [-np.inf, -np.inf]], [[0.27, 0.73], [0.5, 0.5]])
    # review round 14, item 4: such a row is a padded query, routine in lesson 04: the message says to leave
    # it out, not that it cannot happen
    with pytest.raises(ValueError, match=r"a padded query with no unmasked key \(lesson 04, section 2\), "
                                         r"routine and no bug; leave that row out of the check") as raised:
        al.printout_problems([[0.0, 1.0], [-np.inf, -np.inf]], [[0.27, 0.73], [0.0, 0.0]])
    assert "needs at least one unmasked key" not in str(raised.value)
    with pytest.raises(ValueError, match=r"tol is -0\.005: expected a finite number >= 0"):
        al.printout_problems([1.0, 1.0], [0.5, 0.5], tol=-0.005)


def test_printout_problems_tol_is_half_a_unit_of_the_printouts_last_digit():
    """Review round 11, item 2: weights 0.003 apart on equal scores pass at 2 decimals' tol (5e-3), not at
    4 decimals' (5e-5), where printing equal weights cannot put them 0.003 apart."""
    scores, row = [0.7, 0.7, 0.0], [0.4155, 0.4185, 0.1660]
    assert al.printout_problems(scores, row) == []
    assert al.printout_problems(scores, row, tol=5e-5) == [
        "keys 0 and 1 have equal scores (0.7) but weights 0.4155 and 0.4185, further apart than the rounding "
        "allows (0.00014)"]


def test_printout_problems_ties_allow_the_scores_own_rounding():
    """Review round 12, item 1: printed scores that look equal may truly differ by up to a unit of their last
    digit, 2 score_tol; the softmax makes one weight exp(d) times the other, so the larger, w, exceeds the
    smaller by w (1 - exp(-d)), and printing both adds up to 2 tol. Correct printouts of random near-ties
    give no finding; real tie-slips still do."""
    # the reviewer's case: true scores [1.204, 1.196, 0.3], weights by hand, printed with 1 and 2 decimals
    true = np.array([1.204, 1.196, 0.3])
    assert np.array_equal(np.round(true, 1), [1.2, 1.2, 0.3])
    assert np.array_equal(np.round(plain_softmax(true), 2), [0.42, 0.41, 0.17])
    assert al.printout_problems([1.2, 1.2, 0.3], [0.42, 0.41, 0.17]) == []
    assert al.printout_problems([1.2, 1.2, 0.3], [0.42, 0.41, 0.17], score_tol=0.05) == []
    # a wider near-tie, 0.098 apart, as far as 1 decimal allows: weights 0.04 apart, still correct
    true = np.array([1.249, 1.151, 0.3])
    assert np.array_equal(np.round(true, 1), [1.2, 1.2, 0.3])
    assert np.array_equal(np.round(plain_softmax(true), 2), [0.44, 0.40, 0.17])
    assert al.printout_problems([1.2, 1.2, 0.3], [0.44, 0.40, 0.17], score_tol=0.05) == []
    # by hand, at 1-decimal scores and 2-decimal weights: 0.01 + (0.46 + 0.005)(1 - e^-0.1) = 0.0542 allowed
    assert 0.01 + 0.465 * (1 - math.exp(-0.1)) < 0.06
    assert len(al.printout_problems([0.6, 0.6, -0.5], [0.46, 0.40, 0.14], score_tol=0.05)) == 1
    # random near-ties, rounded as a printout would round them: no finding at any pair of precisions
    rng = np.random.default_rng(12)
    ties = old_rule = 0
    for score_decimals, weight_decimals in ((1, 2), (2, 2), (4, 4), (2, 3), (1, 3), (3, 2)):
        score_tol, tol = 0.5 * 10.0 ** -score_decimals, 0.5 * 10.0 ** -weight_decimals
        for _ in range(2000):
            s = rng.normal(0, 1.5, rng.integers(2, 6))
            s[1] = np.round(s[0], score_decimals) + rng.uniform(-1, 1) * score_tol   # prints as s[0] does
            shown_s, shown_w = np.round(s, score_decimals), np.round(plain_softmax(s), weight_decimals)
            assert al.printout_problems(shown_s, shown_w, tol=tol, score_tol=score_tol) == [], (s, shown_w)
            if shown_s[0] == shown_s[1]:
                ties += 1
                old_rule += abs(shown_w[0] - shown_w[1]) > tol + 1e-12     # what the old tie check flagged
    assert ties > 10_000 and old_rule > 1_000
    # the real tie-slip of source 004: equal scores 1/√2, weights 0.5 and 0.317, found at every reading
    s4 = al.source_004()
    scores = s4.X @ s4.X.T / np.sqrt(2)
    for kw in ({}, {"tol": 5e-4, "score_tol": 0}, {"tol": 5e-4, "score_tol": 5e-4}):
        found = al.printout_problems(scores, s4.printed["self_weights"], **kw)
        assert [f[:40] for f in found] == ["row 0: keys 0 and 2 have equal scores (0",
                                           "row 1: keys 1 and 2 have equal scores (0"]


def test_printout_problems_names_a_mask_only_where_the_weight_rounds_to_0():
    """Review round 12, item 2: source 000 masks nothing; at its own tol (section 1's rule at full precision,
    1e-6 x 13.573791 = 1.4e-5 by hand) its w_21 = 0.00466374 is no zero weight, so no mask is suggested."""
    p = al.source_000().printed
    found = al.printout_problems(p["scores"], p["weights"], tol=1.3573791e-5)
    assert found[-1] == ("key 0 scores -6.28855 and key 3 -1.7212, but their weights 0.00466374 and -1.7212 "
                         "are in the other order")
    assert not any("mask" in f for f in found)
    assert "key 0's weight rounds to 0 at tol=0.005" in al.printout_problems(p["scores"], p["weights"])[-1]


def test_printout_problems_reads_a_numpy_masked_array():
    """Review round 12, item 6: a masked array's masked scores are masked keys (-inf); masked weights are
    refused with what to pass."""
    causal = [[1.0, 0.0], [0.269, 0.731]]
    scores = np.ma.masked_array([[1, 2], [1, 2]], mask=[[0, 1], [0, 0]])
    kept = scores.copy()
    assert al.printout_problems(scores, causal) == []
    assert np.array_equal(scores.mask, kept.mask) and np.array_equal(scores.data, kept.data)
    assert al.printout_problems(np.ma.masked_array([1.0, 2.0]), [0.269, 0.731]) == []   # nothing masked
    assert al.printout_problems(scores, [[0.9, 0.1], [0.269, 0.731]]) == [
        "row 0: key 1 is masked (score -inf) but has weight 0.1, not 0"]
    with pytest.raises(ValueError, match=r"weights is a masked array with masked entries: pass the printed "
                                         r"weights as plain numbers \(0 at each masked key\)"):
        al.printout_problems([[1.0, -np.inf], [1.0, 2.0]], np.ma.masked_array(causal, mask=[[0, 1], [0, 0]]))


def float32_printout(scores):
    """A float32 source's row, as source 000 computed it (exp, sum, divide, every step in float32), printed in
    float32's shortest form (str of each np.float32, as NumPy and TensorFlow print it) and read back."""
    s32 = np.asarray(scores, dtype=np.float32)
    e = np.exp(s32)
    w32 = e / e.sum(dtype=np.float32)
    assert w32.dtype == np.float32

    def read(a):
        return np.array([float(str(x)) for x in a])
    return read(s32), read(w32)


def test_printout_problems_passes_correct_printouts_at_the_lessons_tol():
    """Review round 13, item 1: with tol and score_tol set by the lesson's rule, rounding_limit(printed,
    decimals), correct float32 rows printed at full precision (source 000's kind; the sum check allows
    float32's rounding) and correct rows rounded to a few decimals give no finding. The old advice, tol =
    half a unit of an 8-decimal digit, made the sum check flag the float32 rows."""
    rng = np.random.default_rng(13)
    old_advice = 0
    base = al.source_000().printed["scores"]
    for case in range(4000):
        n = int(rng.integers(2, 9))
        s = base + rng.normal(0, 0.5, 4) if case % 4 == 0 else rng.normal(0, 3, n)
        if case % 3 == 0:
            s[1] = s[0]                                                  # an exact tie
        shown_s, shown_w = float32_printout(s)
        tol, score_tol = al.rounding_limit(shown_w), al.rounding_limit(shown_s)
        assert al.printout_problems(shown_s, shown_w, tol=tol, score_tol=score_tol) == [], (shown_s, shown_w)
        old_advice += abs(shown_w.sum() - 1) > len(s) * 5e-9
        # even at the finest tol a student might pick (half a unit of an 8th decimal), the sum check allows
        # float32's rounding
        assert not any("sum to" in f for f in al.printout_problems(shown_s, shown_w, tol=5e-9, score_tol=0))
    assert old_advice > 400
    for score_decimals, weight_decimals in ((0, 2), (1, 2), (2, 2), (1, 3), (3, 3), (2, 4)):
        for _ in range(400):
            s = rng.normal(0, 1.5, int(rng.integers(2, 7)))
            s[1] = np.round(s[0], score_decimals) + rng.uniform(-0.5, 0.5) * 10.0 ** -score_decimals
            shown_s, shown_w = np.round(s, score_decimals), np.round(plain_softmax(s), weight_decimals)
            tol = al.rounding_limit(shown_w, weight_decimals)
            score_tol = al.rounding_limit(shown_s, score_decimals)
            assert tol == 0.5 * 10.0 ** -weight_decimals and score_tol == 0.5 * 10.0 ** -score_decimals
            assert al.printout_problems(shown_s, shown_w, tol=tol, score_tol=score_tol) == [], (s, shown_w)


def test_printout_problems_finds_the_real_slips_at_the_lessons_tol():
    """Review round 13, item 1: the rule's tol still finds every slip the lesson shows, and a float32 row
    with one weight off by 1e-4 (far above float32's rounding)."""
    p = al.source_000().printed
    found = al.printout_problems(p["scores"], p["weights"], tol=al.rounding_limit(p["weights"]),
                                 score_tol=al.rounding_limit(p["scores"]))
    assert len(found) == 4 and "are in the other order" in found[-1] and "mask" not in found[-1]
    s4 = al.source_004()
    scores4, shown4 = s4.X @ s4.X.T / np.sqrt(2), s4.printed["self_weights"]
    found = al.printout_problems(scores4, shown4, tol=al.rounding_limit(shown4, 3),
                                 score_tol=al.rounding_limit(scores4))
    assert [f[:40] for f in found] == ["row 0: keys 0 and 2 have equal scores (0",
                                       "row 1: keys 1 and 2 have equal scores (0"]
    shown_s, shown_w = float32_printout([-6.22569, -1.5913181, -13.253579, -1.6687526])
    tol, score_tol = al.rounding_limit(shown_w), al.rounding_limit(shown_s)
    assert al.printout_problems(shown_s, shown_w, tol=tol, score_tol=score_tol) == []
    off = shown_w + np.array([0, 1e-4, 0, 0])
    found = al.printout_problems(shown_s, off, tol=tol, score_tol=score_tol)
    assert len(found) == 1 and found[0].startswith("the weights sum to 1.0000999")
    assert "off by +0.0001" in found[0]
    swapped = shown_w[[0, 3, 2, 1]]                                     # keys 1 and 3's weights swapped
    assert "in the other order" in al.printout_problems(shown_s, swapped, tol=tol, score_tol=score_tol)[-1]


def test_a_finite_mask_fill_is_refused_with_what_to_pass():
    """Review round 13, item 3: a finite mask fill (lesson 04's finfo(dtype).min, a tutorial's -1e9,
    BERT's -10000) would hide a forgotten mask (the wrong weight 0.14 of the masked key is the smallest, so
    the order check cannot see it) and make rounding_limit 1e-6 x 1e9 = 1000: both helpers refuse it."""
    says = r"looks like a mask fill \(a finite number at or below -10000.*\): pass -inf at each masked key"
    for fill in (-1e9, np.finfo(np.float32).min, np.finfo(float).min, -1e4, -1_000_000_000):
        with pytest.raises(ValueError, match=says):
            al.printout_problems([0.3, 0.6, fill], [0.23, 0.63, 0.14])
        with pytest.raises(ValueError, match=says):
            al.rounding_limit([[0.52, fill], [0.31, 0.77]], 2)
    assert al.printout_problems([0.3, 0.6, -np.inf], [0.23, 0.63, 0.14]) == [
        "key 2 is masked (score -inf) but has weight 0.14, not 0"]
    assert al.printout_problems([0.3, 0.6, -50.0], [0.43, 0.57, 0.0]) == []      # a low real score
    assert al.rounding_limit([[0.52, -np.inf], [0.31, 0.77]], 2) == 0.005


def test_boolean_scores_are_told_how_a_mask_goes_in():
    """Review round 13, item 5: the helpers have no `mask` argument, so the message says where a mask goes."""
    for call in (lambda: al.printout_problems([True, False], [0.73, 0.27]),
                 lambda: al.printout_problems([1.0, 0.0], [True, False]),
                 lambda: al.rounding_limit([True, False])):
        with pytest.raises(TypeError, match="a mask goes into the scores as -inf at each masked key") as err:
            call()
        assert "`mask`" not in str(err.value)


def test_the_sum_finding_prints_the_difference():
    """Review round 13, item 6: the sum is printed with 10 digits and the difference with 3, so a sum near 1
    never reads 'sums to 1, not 1'; a sum within float32's rounding of 1 (1e-7 off) is no finding at all."""
    assert al.printout_problems([0.1, 0.0], [0.5, 0.499996], tol=0) == [
        "the weights sum to 0.999996, not 1 (off by -4e-06; the rounding allows 1e-06)"]
    assert al.printout_problems([0.1, 0.0], [0.5, 0.4999999], tol=0) == []


def test_rounding_limit_leaves_out_masked_scores():
    """Review round 12, item 6: rounding_limit takes -inf (a masked key), as printout_problems does: the
    float32 limit is 1e-6 x the largest finite number (by hand: 1e-6 x 2)."""
    assert al.rounding_limit([[1.0, -np.inf], [1.0, 2.0]]) == pytest.approx(2e-6)
    assert al.rounding_limit([[1.0, -np.inf], [1.0, 2.0]], 3) == 5e-4
    assert al.rounding_limit(np.ma.masked_array([1.0, 50.0], mask=[0, 1])) == pytest.approx(1e-6)
    with pytest.raises(ValueError, match=r"printed is -inf \(masked\) everywhere"):
        al.rounding_limit([-np.inf, -np.inf])
    for bad in ([np.nan, 1.0], [np.inf, 1.0]):
        with pytest.raises(ValueError, match="every entry must be a finite number"):
            al.rounding_limit(bad)


def test_rounding_limit_is_the_larger_of_float32_and_half_a_unit():
    """Review round 11, item 1: 1e-6 x the printout's largest number, or half a unit in its last printed
    digit, whichever is larger (by hand: 0.5 x 10^-2 = 0.005 > 1e-6 x 0.40)."""
    assert al.rounding_limit([0.36, 0.40, 0.24], 2) == 0.005
    assert al.rounding_limit(1.0, 1) == 0.05
    assert al.rounding_limit([-6.288555, -13.573791], None) == pytest.approx(1.3573791e-5)
    assert al.rounding_limit([-13.573791], 6) == pytest.approx(1.3573791e-5)   # float32's limit is larger
    with pytest.raises(ValueError, match="decimals is -1: expected a whole number >= 0"):
        al.rounding_limit([1.0], -1)
    with pytest.raises(TypeError, match=r"decimals is 2\.0 of type float: expected a whole number"):
        al.rounding_limit([1.0], 2.0)


# lesson 01.3: the judge at its threshold


def test_design_01_3_is_judged_at_its_threshold():
    # W_q with row 'small' = (a, 0, 0, a): small (0, 0, 0, 1) asks "noun? and small?"; keys = X, scale 1.
    # Scores: cats a, chase 0, small a, mice 2a, so with u = e^a mice gets u² / (u + 1)², which is
    # 0.7 exactly at u / (u + 1) = √0.7, i.e. a = ln(√0.7 / (1 - √0.7)) ≈ 1.634
    X = al.cats_chase_mice().X
    assert np.array_equal(X, [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 1, 1]])
    r = math.sqrt(0.7)
    a = math.log(r / (1 - r))
    assert abs(a - 1.634) < 1e-3

    def design(a_):
        W = np.zeros((4, 4))
        W[3, 0] = W[3, 3] = a_
        return W

    mice = plain_softmax(np.array([a, 0.0, a, 2 * a]))[3]
    assert abs(mice - 0.7) < 1e-12
    trial = al.EXERCISES["01.3"]
    assert trial.evaluate(design(a * 1.001)).status == "correct"
    below = trial.evaluate(design(a * 0.999))
    assert below.status == "mistake" and below.mistake == "too weak"


# lesson 03: heads


def test_plot_heads_concatenates_head_1_then_head_2():
    rng = np.random.default_rng(3)
    X, W_q, W_k, W_v, W_O = rng.standard_normal((5, 4, 4))          # 4 tokens, d_model 4, 2 heads
    fig = al.plot_heads(X, W_q, W_k, W_v, W_O, 2, ["a", "b", "c", "d"])
    heads = []
    for cols in (slice(0, 2), slice(2, 4)):                        # head i: its own 2 columns, ÷ √2
        A = plain_softmax((X @ W_q[:, cols]) @ (X @ W_k[:, cols]).T / np.sqrt(2))
        heads.append(A @ (X @ W_v[:, cols]))
    concat = np.hstack(heads)                                      # head 1's columns, then head 2's
    assert not np.allclose(concat, np.hstack(heads[::-1]))         # the order matters here
    drawn = drawn_blocks(fig)
    assert np.allclose(drawn["Concat(heads)"], concat)
    assert np.allclose(drawn["output"], concat @ W_O)
    matplotlib.pyplot.close(fig)


# lesson 05: the block, positions and the RoPE panel


def plain_block(X, W_q, W_k, W_v, W_O, h, W_1, W_2, causal):
    """Pre-LN block written out head by head, with a for loop and a plain softmax."""
    n, d = X.shape
    k = d // h
    H = plain_layer_norm(X)
    heads = []
    for i in range(h):
        cols = slice(i * k, (i + 1) * k)
        S = (H @ W_q[:, cols]) @ (H @ W_k[:, cols]).T / np.sqrt(k)
        if causal:
            S = S + np.triu(np.full((n, n), -np.inf), 1)           # the future gets weight 0
        heads.append(plain_softmax(S) @ (H @ W_v[:, cols]))
    Z = X + np.hstack(heads) @ W_O
    return Z + np.maximum(plain_layer_norm(Z) @ W_1, 0) @ W_2


@pytest.mark.parametrize("causal", [True, False])
def test_transformer_block_obeys_causal(causal):
    rng = np.random.default_rng(11)
    X = rng.standard_normal((4, 6))
    W = rng.standard_normal((4, 6, 6))
    W_1, W_2 = rng.standard_normal((6, 5)), rng.standard_normal((5, 6))
    p = al.BlockWeights(*W, n_heads=3, W_1=W_1, W_2=W_2)
    out, weights = al.transformer_block(X, p, causal=causal)
    assert np.allclose(out, plain_block(X, *W, 3, W_1, W_2, causal))
    future = np.triu(np.ones((4, 4), dtype=bool), 1)
    assert (weights[:, future] == 0).all() if causal else (weights[:, future] > 0).all()


def test_add_positions_adds_the_first_n_rows_of_the_table():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    table = np.array([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])   # max_len 3, rows for positions 0, 1, 2
    assert np.array_equal(al.add_positions(X, table), [[11.0, 22.0], [33.0, 44.0]])


def test_position_explorer_rope_panel_is_scaled():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((3, 4))
    W_q, W_k, W_v = rng.standard_normal((3, 4, 4))
    ex = al.position_explorer(X, W_q, W_k, W_v, ["a", "b", "c"], base=10.0)
    ex.set(shift=3, swap=True)
    Xo = X[[2, 1, 0]]                                               # first and last word swapped
    theta = np.outer([3, 4, 5], 10.0 ** -(np.arange(0, 4, 2) / 4))  # (3, 2) position × frequency

    def rotate(M):                                                  # pair (2i, 2i+1) as x + iy
        z = (M[:, 0::2] + 1j * M[:, 1::2]) * np.exp(1j * theta)
        return np.column_stack([z.real[:, 0], z.imag[:, 0], z.real[:, 1], z.imag[:, 1]])

    A = plain_softmax(rotate(Xo @ W_q) @ rotate(Xo @ W_k).T / 2.0)  # ÷ √d_k = √4
    assert np.allclose(ex.result["rope"], A)


# lesson 04: the decoder step


def test_decoder_step_by_hand():
    tr = al.translation()
    step = al.decoder_step(tr)
    # self-attention: W_q = 2I, W_k = W_v = I, ÷ √5, causal; then the residual X_dec + its output
    m = len(tr.X_dec)
    S = 2 * tr.X_dec @ tr.X_dec.T / np.sqrt(5) + np.triu(np.full((m, m), -np.inf), 1)
    Z = tr.X_dec + plain_softmax(S) @ tr.X_dec
    # cross-attention: W_q = 4I, W_k = W_v = I, ÷ √5, the <pad> key masked
    C = 4 * Z @ tr.X_enc.T / np.sqrt(5)
    C[:, 5] = -np.inf
    A = plain_softmax(C)
    assert np.allclose(step.Z_self, Z)
    assert np.allclose(step.cross_weights, A)
    assert np.allclose(step.output, A @ tr.X_enc)


# lesson 06: training sees whole sequences


def test_training_uses_sequences_of_cfg_n_tokens():
    cfg = al.ModelConfig(n=6, d=8, vocab_size=5)
    ids, targets = al.task_batch(np.random.default_rng(0), 3, cfg)
    assert ids.shape == targets.shape == (3, 6)
    assert np.array_equal(targets, ids[:, ::-1])                    # the task: reverse the sequence
    # every position's row of the table P is trained, the last one (position n - 1) too
    before = al.init_params(cfg, seed=0)["P"]
    after = al.train(cfg, steps=2, batch=4, seed=0).params["P"]
    assert before.shape == (6, 8)
    assert (np.abs(after - before).max(axis=1) > 0).all()


def float32_source_with_near_ties(rng, d=4):
    """Source 000's kind of row with a near-tie: d-dim N(0, 1) tokens and weights, no scaling, four tokens,
    the last a near-copy of the first; the source computes every step in float32 and prints its weights at
    full precision, and the student recomputes the scores in float64 from the same inputs."""
    X = rng.normal(0, 1, (4, d))
    X[3] = X[0] + rng.normal(0, 1e-6, d)
    W_q, W_k = rng.normal(0, 1, (d, d)), rng.normal(0, 1, (d, d))
    X32, Wq32, Wk32 = (a.astype(np.float32) for a in (X, W_q, W_k))
    s32 = (Wk32 @ X32.T).T @ (Wq32 @ X32[1])
    e = np.exp(s32 - s32.max())
    w32 = e / e.sum(dtype=np.float32)
    recomputed = (W_k @ X32.astype(float).T).T @ (W_q @ X32[1].astype(float))
    return recomputed, np.array([float(str(x)) for x in w32])


def test_printout_problems_order_check_allows_the_scores_rounding():
    """Review round 14, item 1: two scores within 2 score_tol of each other may truly be in the other order,
    so their weights may be too, by up to tie_allowance. By hand: true scores 20.000001 and 20, which
    float32 makes 19.999998 and 20 (one ulp, 1.9e-6, apart): its weights, 0.5 -/+ 1.9e-6/4, print as
    0.49999952 and 0.50000048, in the other order by 9.5e-7, above tol = 1e-6 x 0.5 = 5e-7.
    With score_tol = rounding_limit(scores) = 2e-5 (the lesson's advice for scores recomputed from a float32
    source) that is no finding; random rows of source 000's kind with near-ties give none either."""
    scores, shown = [20.000001, 20.0], [0.49999952, 0.50000048]
    tol, score_tol = al.rounding_limit(shown), al.rounding_limit(scores)
    assert math.isclose(tol, 5.0000048e-7) and math.isclose(score_tol, 2.0000001e-5)
    assert al.printout_problems(scores, shown, tol=tol, score_tol=score_tol) == []
    # as exact scores (score_tol=0), the pair is a finding
    assert "in the other order" in al.printout_problems(scores, shown, tol=tol, score_tol=0)[0]
    rng = np.random.default_rng(14)
    reversed_pairs = 0
    for _ in range(3000):
        s, w = float32_source_with_near_ties(rng, d=int(rng.integers(4, 17)))
        tol, score_tol = al.rounding_limit(w), al.rounding_limit(s)
        assert al.printout_problems(s, w, tol=tol, score_tol=score_tol) == [], (s, w)
        reversed_pairs += (s[0] - s[3]) * (w[0] - w[3]) < 0 and abs(w[0] - w[3]) > tol
    assert reversed_pairs >= 5                 # the old order check flagged each of these correct rows
    # the reviewer's pair (scores recomputed in float64, weights of source 000's float32 printout)
    # (a third key, score 3.2, carries the rest, 1 - 0.49999833 - 0.49999741 = 4.26e-6)
    pair_s, pair_w = [14.901993698620846, 14.90199376227267, 3.2], [0.49999833, 0.49999741, 4.26e-6]
    assert al.printout_problems(pair_s, pair_w, tol=al.rounding_limit(pair_w),
                                score_tol=al.rounding_limit(pair_s)) == []
    # the real slips are still found: 000's own printout, a swap of two weights whose scores are apart
    p = al.source_000().printed
    assert len(al.printout_problems(p["scores"], p["weights"], tol=al.rounding_limit(p["weights"]),
                                    score_tol=al.rounding_limit(p["scores"]))) == 4
    s, w = float32_source_with_near_ties(rng)
    apart = [j for j in (1, 2) if abs(s[j] - s[0]) > 1e-3 and abs(w[j] - w[0]) > 1e-3]
    assert apart
    for j in apart:
        swapped = w.copy()
        swapped[[0, j]] = swapped[[j, 0]]
        assert any("in the other order" in f for f in al.printout_problems(
            s, swapped, tol=al.rounding_limit(w), score_tol=al.rounding_limit(s)))
