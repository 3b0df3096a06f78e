"""Lesson 10's claims (10-reading-the-sources-critically; the appendix of the second review of lessons 04,
05, 06 and the appendix, issue 29, when it was lesson 09): exercise 10.3 by hand and out of one package
call's reach, and the checklist's room for rounding, with exercise 10.1.

Every expected value is computed here by hand with plain NumPy, never taken from the exercise modules.
Shared helpers: tests/lesson_helpers.py.
"""

import numpy as np
import pytest
from lesson_helpers import (
    cell_text,
    hand_softmax,
    lesson_cells,
    one_call_answers,
    passes,
    prose,
    stored_output,
)

import attention_lab as al

# ---------- 10.3 redesigned (defect 8): no single package call, nothing on screen ----------
S4 = al.source_004()


def test_10_3_by_hand():
    """Implied minus real score differences: ln(w_j / w_0) - (s_j - s_0), row by row."""
    w, X = S4.printed["self_weights"], S4.X
    S = X @ X.T / np.sqrt(2)
    answer = [[np.log(w[i, j] / w[i, 0]) - (S[i, j] - S[i, 0]) for j in (1, 2)] for i in range(3)]
    assert np.isclose(answer[0][1], np.log(0.317 / 0.5))               # equal scores, unequal weights
    assert al.EXERCISES["10.3"].evaluate(answer).status == "correct"


def test_10_3_is_not_one_package_call_nor_on_screen():
    X, W, Y = S4.X, S4.printed["self_weights"], S4.printed["self_output"]
    I2, I3 = np.eye(2), np.eye(3)
    mats = [X, X.T, W, W.T, Y, X @ X.T, I2, I3]
    functions = [(al.softmax, [mats], False), (al.scaled_dot_product_attention, [mats, mats, mats], True),
                 (al.self_attention, [[X, W, X @ X.T], [I2, I3], [I2, I3], [I2, I3]], True),
                 (al.cross_attention, [[X, W], [X, W], [I2, I3], [I2, I3], [I2, I3]], True)]
    checked = 0
    for candidate in one_call_answers(functions, (None, 1.0, 2 ** -0.5, 0.5)):
        checked += 1
        assert not passes("10.3", candidate)
    assert checked > 1000
    A = al.self_attention(X, I2, I2, I2)[1].round(3)                   # the weights 10 prints
    for shown in (A, W):
        for answer in (shown[:, 1:], shown[:, 1:] - shown[:, :1], np.log(shown[:, 1:] / shown[:, :1])):
            assert al.EXERCISES["10.3"].evaluate(answer).status != "correct"


# ---------- round four: a fresh review of 04-06 and the appendix, now 10 (issue 29), nine defects ----------
def test_10_the_checklist_allows_for_rounding_and_10_1_agrees():
    """Defect 5: 'each row sums to 1', with no room for rounding, rejected the right answer (a)."""
    assert abs(sum([0.42, 0.42, 0.17]) - 1) > 0                           # 1.01: not exactly 1
    checklist = cell_text("10", 3)
    assert "up to the rounding of the" in checklist and "half a unit of its last digit" in checklist
    assert al.EXERCISES["10.1"].evaluate("a").mistake is None
    assert "more than the rounding" in al.EXERCISES["10.1"].evaluate("c").message
    assert al.printout_problems([1.2, 1.2, 0.3], [0.42, 0.42, 0.17]) == []



# ---------- review round 5, lesson 10 (cosmetic items 10.1 and 10.2) ---------------------------------------

def test_10_erratum_002_quotes_the_announced_divisor():
    """10.1: source 002 announces that it rounds √3 to 1; the erratum says so, so the slips it names are
    the 1.75 (√3 = 1.7321, by hand) and the label 'scaled', not a hidden divisor."""
    assert round(3 ** 0.5, 4) == 1.7321 and al.source_002().printed["sqrt_d_k"] == 1.75
    text = prose("10", "erratum-002").replace(" > ", " ")                # the quote spans two lines
    assert 'its own note says: it rounds $\\sqrt{3} = 1.75$ "to 1", to keep the sums simple' in text
    assert "The shortcut is announced" in text


def test_10_float32_column_is_said_to_depend_on_the_cpu():
    """10.2: float32 sums depend on their order (two orders of the same scores, here, both within the rule's
    1e-6 of the largest), so the column 'float32 - float64' may differ on a student's machine; the text
    says so."""
    src = al.source_000()
    X, Wq, Wk = (a.astype(np.float32) for a in (src.X, src.W_q.T, src.W_k.T))
    q, K = X[1] @ Wq, X @ Wk
    forward = [np.float32(0)] * 4
    backward = [np.float32(0)] * 4
    for j in range(4):
        for c in range(K.shape[1]):
            forward[j] = np.float32(forward[j] + K[j, c] * q[c])
            backward[j] = np.float32(backward[j] + K[j, -1 - c] * q[-1 - c])
    exact = (src.X @ src.W_k.T) @ (src.X[1] @ src.W_q.T)
    for scores in (forward, backward):
        assert np.abs(np.array(scores, dtype=float) - exact).max() < 1e-6 * np.abs(exact).max()
    assert "That column depends on the CPU" in prose("10", "s2")


# ---------- review round 6 ---------------------------------------------------------------------------------

def _quoted(cid):
    return prose("10", cid).replace(" > ", " ")


def test_r6_m1_m2_scaling_erratum_reads_source_003_in_context_and_names_vaswani():
    """M1/M2: source 003's note follows its contrast with cosine similarity (-1 to 1): no fixed range is right
    (002's scores ÷√3 still reach 16/√3, by hand); what it leaves out is Vaswani et al.'s footnote 4."""
    s2 = al.source_002()
    Q2, K2 = s2.X @ s2.W_q, s2.X @ s2.W_k
    assert np.isclose((Q2 @ K2.T).max() / np.sqrt(3), 16 / np.sqrt(3))      # 9.24: no fixed range
    text = _quoted("erratum-003")
    assert "cosine similarity" in text and "fixed range" in text and "9.2" in text
    assert "Vaswani et al. (2017, footnote 4)" in text and "suspicion" in text
    summary = prose("10", "summary")
    assert "contradicts source 003" not in summary and "leaves out" in summary


def test_r6_c3_three_weight_matrices_is_read_as_one_set_per_input():
    """C3: "each input has three weight matrices" can be read as one set per input: no contradiction."""
    assert "can be read as one set per input" in _quoted("erratum-002")
    assert "contradicts 002" not in prose("10", "summary")


def test_r6_c6_float32_drift_is_about_1e_7_as_section_2_measures():
    """C6: section 2's float32 - float64, divided by each printout's largest number, is at most about 1e-7."""
    src = al.source_000()
    X, Wq, Wk = src.X, *(al.from_column_convention(W) for W in (src.W_q, src.W_k))
    X32, Wq32, Wk32 = (a.astype(np.float32) for a in (X, Wq, Wk))
    rel = [np.abs((X32[1] @ Wq32) - X[1] @ Wq).max() / np.abs(X[1] @ Wq).max(),
           np.abs((X32 @ Wk32) - X @ Wk).max() / np.abs(X @ Wk).max()]
    assert max(rel) < 3e-7
    text = prose("10", "s1")
    assert "a few $10^{-7}$" not in text and "about $10^{-7}$" in text


def test_r6_c4_10_2_a_result_rounded_to_one_decimal_is_named():
    """C4: -5.7 is the answer rounded to one decimal (so is the exact dot product, -5.721, by hand)."""
    q, k = np.array([1.37, -3.70, 2.63]), np.array([4.04, 1.37, -2.36])
    assert np.isclose(q @ k, -5.741) and round(-5.720949, 1) == -5.7
    result = al.EXERCISES["10.2"].evaluate(-5.7)
    assert result.status != "correct" and "one decimal" in result.message and "two" in result.message
    assert "go through the steps" not in result.message, result.message


# ---------- review round 11, lesson 10 (3 misleads, 4 cosmetic) -------------------------------------------
S3 = al.source_003()


def source_003_by_hand():
    """'Write a poem' at full precision, in plain NumPy: nn.Linear's layout is out x in, so q = x W_qᵀ; the
    scores the source prints are Q Kᵀ, its weights softmax(Q Kᵀ/√2), its first output the weights times V's
    first column."""
    X = S3.encodings
    Q, K, V = X @ S3.W_q_torch.T, X @ S3.W_k_torch.T, X @ S3.W_v_torch.T
    scores = (Q @ K.T)[0]
    weights = hand_softmax(scores / np.sqrt(2))
    return scores, weights, weights @ V[:, 0]


def hand_rule(printed, decimals=None):
    """Section 1's rule, by hand: the larger of 1e-6 x the printout's largest number and half a unit in its
    last printed digit."""
    half_unit = 0.0 if decimals is None else 0.5 * 10.0 ** -decimals
    return max(1e-6 * np.abs(printed).max(), half_unit)


def test_r11_m1_the_rounding_rule_allows_for_the_printouts_digits_and_judges_003_as_its_erratum():
    """M1: '1e-6 x the largest number' alone called source 003's right weights (2 decimals) and output
    (1 decimal) findings; with half a unit in the last digit, the rule agrees with the erratum: weights and
    output are rounding, and of the scores only the middle one (0.0648 printed as 0.06) is."""
    scores, weights, first = source_003_by_hand()
    printed = S3.printed
    assert np.abs(weights - printed["weights_write"]).max() > 1e-6 * 0.40    # the old rule: a finding
    assert np.abs(weights - printed["weights_write"]).max() <= hand_rule(printed["weights_write"], 2)
    assert abs(first - printed["output_write_first"]) <= hand_rule(1.0, 1)
    within = np.abs(scores - printed["scores_write"]) <= hand_rule(printed["scores_write"], 2)
    assert within.tolist() == [False, True, False]
    for shown, decimals in ((printed["weights_write"], 2), (1.0, 1), (printed["scores_write"], 2),
                            (al.source_000().printed["scores"], None)):
        assert np.isclose(al.rounding_limit(shown, decimals), hand_rule(shown, decimals))
    assert "['finding' 'rounding' 'finding']" in stored_output("10", "s4-code")
    assert stored_output("10", "s4-code").count("rounding']") == 1                 # the weights' line
    text = prose("10", "s1")
    assert ("the larger of $10^{-6}$ times the printout's largest number and half a unit in the printout's "
            "last digit") in text
    assert "grows with the length of the sums" in text and "where large terms cancel" in text
    assert "a 2-decimal printout may be off by 0.005" in stored_output("10", "s1-code")


def test_r11_m1_float32_error_grows_with_the_length_of_the_sums():
    """M1: the 1e-6 margin is for short sums. Sequential float32 dot products of N(0, 1) vectors, relative
    to their terms' size: at d = 4096 the error is many times that at d = 4."""
    rng = np.random.default_rng(11)

    def worst(d, draws=20):
        errors = []
        for _ in range(draws):
            a, b = rng.standard_normal(d), rng.standard_normal(d)
            total = np.float32(0)
            for t in (a.astype(np.float32) * b.astype(np.float32)):
                total = np.float32(total + t)
            errors.append(abs(float(total) - a @ b) / np.sqrt(d))           # the sum's size: ~√d
        return max(errors)

    assert worst(4096) > 5 * worst(4)


def test_r11_m2_the_checklist_says_to_pass_the_masked_scores_and_tol():
    """M2: a decoder tutorial prints the raw Q Kᵀ and the masked weights; the checklist says to compare with
    the scores the softmax saw (-inf at masked keys) and what tol is. Causal weights by hand: query 0 sees
    only key 0 (weight 1); query 1 gets softmax([1, 2]) = [0.269, 0.731]."""
    w1 = hand_softmax(np.array([1.0, 2.0]))
    assert np.allclose(w1, [0.269, 0.731], atol=5e-4)
    causal = [[1.0, 0.0], [0.269, 0.731]]
    assert al.printout_problems([[1.0, -np.inf], [1.0, 2.0]], causal) == []
    assert al.printout_problems([[1.0, 2.0], [1.0, 2.0]], causal) != []            # the raw scores
    text = prose("10", "s1")
    assert "Compare with the scores the softmax actually saw" in text
    assert "a masked key must have weight 0 and is left out of the order and tie checks" in text
    assert "Pass it the masked scores, with $-\\infty$ at each masked key" in text
    assert "Set its `tol` by the rule above, `tol=al.rounding_limit(weights, decimals)`" in text
    out = stored_output("10", "s1-code").splitlines()
    assert out[4] == "[]" and "pass the masked scores" in out[5]


def test_r11_m3_initialisation_keeps_the_spread_of_the_scores_not_a_variance_of_1():
    """M3: with PyTorch's default nn.Linear init, U(±1/√fan_in), and unit-variance inputs, a component of q
    has variance 1/3 (by hand: fan_in x (1/fan_in)/3), and q·k/√d_k has variance 1/9 at every d_k."""
    rng = np.random.default_rng(3)
    fan_in, n = 768, 2000
    X = rng.standard_normal((n, fan_in))
    bound = 1 / np.sqrt(fan_in)
    for d_k in (16, 64):
        W_q, W_k = (rng.uniform(-bound, bound, (fan_in, d_k)) for _ in range(2))
        Q, K = X @ W_q, X @ W_k
        assert abs(Q.var() - 1 / 3) < 0.03
        scores = (Q[: n // 2] * K[n // 2:]).sum(axis=1) / np.sqrt(d_k)        # different tokens
        assert abs(scores.var() - 1 / 9) < 0.02
    text = _quoted("erratum-003")
    assert "Weights are initialised so that this roughly holds" not in text
    assert "has variance 1/3" in text and "without making it 1" in text
    assert "keeps the scores' spread the same at every $d_k$" in text


def test_r11_c4_10_1_is_confirmed_with_printout_problems_after_deciding_by_hand():
    """C4: the helper answers 10.1 (only row a has no finding), so the exercise says to decide by hand first
    and then confirm with it."""
    scores = [1.2, 1.2, 0.3]
    rows = {"a": [0.42, 0.42, 0.17], "b": [0.50, 0.33, 0.17],
            "c": [0.45, 0.45, 0.20], "d": [0.25, 0.25, 0.50]}
    assert [x for x in rows if not al.printout_problems(scores, rows[x])] == ["a"]
    text = prose("10", "ex-10-1")
    assert "Decide by hand, with section 1's checks" in text and "without computing any exponential" in text


def test_r11_c5_10_2_rounding_k_only_is_named():
    """C5: q @ round(k, 2) = -5.73498 by hand, 0.006 from the right -5.741 (too close for a named mistake,
    which keeps 0.01 away): it gets its own hint, as typed and rounded to 3 decimals, and the right answer
    rounded to 2 decimals is still right."""
    q, k = np.array([1.371, -3.702, 2.628]), np.array([4.04, 1.37, -2.36])
    assert np.isclose(q @ k, -5.73498)
    for answer in (q @ k, -5.735):
        result = al.EXERCISES["10.2"].evaluate(answer)
        assert result.status == "wrong" and "you rounded k only" in result.message, result.message
    assert al.EXERCISES["10.2"].evaluate(-5.74).status == "correct"
    assert "k only" not in al.EXERCISES["10.2"].evaluate(-5.80).message


def test_r11_c6_003s_performance_claim_is_set_against_the_paper():
    text = _quoted("erratum-003")
    assert ("the authors said the scaling improved performance, but the paper reports no run without it"
            in text)
    assert "Britz et al. (2017)" in text


def test_r11_c7_the_sources_score_is_read_by_what_was_computed():
    """C7: 000 prints weights under 'normalized attention scores', 002 calls weights 'scaled softmax
    attention scores', 003 calls its output 1.0 a 'self-attention score'."""
    summary = prose("10", "summary")
    assert "Read what was computed, not its label" in summary
    for label in ('"normalized attention scores"', '"scaled softmax attention scores"',
                  '"self-attention score"'):
        assert label in summary


# ---------- review round 12, lesson 10 (1 wrong, 1 misleads, 4 cosmetic) -----------------------------------

def test_r12_w1_printed_scores_that_look_equal_may_differ_by_their_own_rounding():
    """W1: true scores 0.649, 0.551, -0.5 print as [0.6, 0.6, -0.5] (1 decimal) and their weights, by hand,
    as [0.45, 0.41, 0.14]; a correct printout, found only when score_tol is left at the weights' tol."""
    true = np.array([0.649, 0.551, -0.5])
    assert np.array_equal(np.round(true, 1), [0.6, 0.6, -0.5])
    assert np.array_equal(np.round(hand_softmax(true), 2), [0.45, 0.41, 0.14])
    out = stored_output("10", "s1-code").splitlines()
    assert "equal scores (0.6) but weights 0.45 and 0.41" in out[6] and out[7] == "[]"
    text = prose("10", "s1")
    assert "printed scores that look equal may truly differ by up to a unit of their own last digit" in text
    assert "`score_tol=al.rounding_limit(scores, decimals)` for the scores" in text
    assert "further apart than the rounding allows (0.001)" in stored_output("10", "s5-code")


def test_r12_m2_source_000s_printout_is_judged_at_its_own_tol_and_suggests_no_mask():
    """M2, and round 13's W1: 000 masks nothing, and is printed at float32's full precision, so section 1's
    rule gives tol = 1e-6 x its largest number, 13.573791: 1.4e-5 by hand (not half a unit of its 6th
    decimal, 5e-7, which is neither of the rule's limits)."""
    assert round(1e-6 * 13.573791, 6) == 1.4e-5
    assert 'tol = al.rounding_limit(printed["weights"])' in lesson_cells("10")["s2-weights"]
    out = stored_output("10", "s2-weights")
    assert "tol = 1.4e-05, score_tol = 1.4e-05" in out
    assert "are in the other order" in out and "mask" not in out


def test_r13_w1_the_tol_advice_is_the_lessons_rounding_rule():
    """W1: the checklist's tol is rounding_limit(weights, decimals), the same rule as section 1's first item
    (half a unit of the last digit, or float32's limit at full precision), and the sum check allows float32's
    rounding; the old advice, half a unit in the printout's last digit, is gone."""
    text = prose("10", "s1")
    assert "set its `tol` to half a unit in the printout's last digit" not in text
    assert "`tol=al.rounding_limit(weights, decimals)`" in text
    assert "or float32's limit for a printout at full precision" in text
    assert "or by float32's rounding in a printout at full precision" in text


def test_r13_m2_numpy_drops_trailing_zeros_so_decimals_are_counted_on_the_longest_entry():
    """M2: NumPy prints source 002's whole-number scores as [2. 4. 4.] and 004's 3-decimal row with a 0.5:
    read as 0 decimals, score_tol = 0.5 hides a real slip (the equal scores 4, 4 get 0.55 and 0.39) that
    score_tol = 0 (exact scores) finds."""
    assert np.array2string(al.source_002().printed["scores"][0]) == "[2. 4. 4.]"
    assert np.array2string(al.source_004().printed["self_weights"][0]) == "[0.5   0.183 0.317]"
    slip = [0.06, 0.55, 0.39]
    assert al.printout_problems([2.0, 4.0, 4.0], slip, score_tol=0.5) == []
    assert "keys 1 and 2 have equal scores (4)" in al.printout_problems([2.0, 4.0, 4.0], slip, score_tol=0)[0]
    text = prose("10", "s1")
    assert "and 0 only for exact scores, such as whole numbers" in text
    assert np.get_printoptions()["precision"] == 8
    assert np.array2string(np.array([2.0, 4.0, 4.0])) == "[2. 4. 4.]"
    # review round 14, item 5: section 3's printout is this lesson's own, at precision=4
    assert "np.set_printoptions(precision=4" in lesson_cells("10")["imports"]
    s3 = lesson_cells("10")["s3-code"]                   # the scores are printed before precision=8 is set
    assert s3.index('print("scores:') < s3.index("with np.printoptions(precision=8")
    assert ("NumPy drops trailing zeros: scores printed as `2.` and `4.` (section 3) are whole to all of its "
            "4 decimals (this lesson prints 4; source 002 printed them with NumPy's default, up to 8).") \
        in text
    assert "whole to all of its 8 decimals" not in text
    assert "so count the decimals on the row's longest entry" in text
    assert "[[ 2.  4.  4.]" in stored_output("10", "s3-code")


def test_r13_m3_the_checklist_says_a_finite_fill_is_refused():
    """M3: lesson 04's finfo.min and a tutorial's -1e9 are finite fills; the helpers refuse them (tests in
    test_bug_kinds), and the checklist says so and what to pass."""
    text = prose("10", "s1")
    assert ("a finite fill, such as lesson 04's `finfo.min` or a tutorial's `-1e9`, anything at or below "
            "`-1e4`, is refused: replace it by $-\\infty$") in text
    with pytest.raises(ValueError, match="pass -inf at each masked key"):
        al.printout_problems([1.0, -1e9], [1.0, 0.0])


def test_r13_c4_10_1s_suggested_call_passes_the_scores_rounding():
    """C4: the scores show 1 decimal, so 10.1's suggested check passes score_tol=0.05; only a has no finding
    (a's equal scores get equal weights, and 0.42 + 0.42 + 0.17 = 1.01 is within 3 x 0.005)."""
    scores = [1.2, 1.2, 0.3]
    rows = {"a": [0.42, 0.42, 0.17], "b": [0.50, 0.33, 0.17],
            "c": [0.45, 0.45, 0.20], "d": [0.25, 0.25, 0.50]}
    assert [x for x in rows if not al.printout_problems(scores, rows[x], score_tol=0.05)] == ["a"]
    said = al.EXERCISES["10.1"].evaluate("a").message                   # review round 15: after the ✓
    assert 'al.printout_problems(scores, rows["a"], score_tol=0.05)' in said


def test_r12_c3_10_2_minus_5_73_names_both_one_vector_slips():
    """C3: q only, round(q, 2) @ k = -5.72697, and k only, q @ round(k, 2) = -5.73498 (by hand), both print
    -5.73 with 2 decimals: that answer is told it rounded one of the two; each in full keeps its own."""
    q, k = np.array([1.371, -3.702, 2.628]), np.array([4.041, 1.368, -2.358])
    q_only, k_only = np.array([1.37, -3.70, 2.63]) @ k, q @ np.array([4.04, 1.37, -2.36])
    assert round(q_only, 2) == round(k_only, 2) == -5.73
    said = al.EXERCISES["10.2"].evaluate(-5.73).message
    assert "you rounded only one of the two vectors (q or k)" in said, said
    assert "you rounded q only" in al.EXERCISES["10.2"].evaluate(q_only).message
    assert "you rounded k only" in al.EXERCISES["10.2"].evaluate(k_only).message


def test_r12_c4_003s_percentages_are_not_from_the_quoted_similarities():
    """C4: softmax of the quoted [-0.09, 0.06, -0.61] / √2 gives a last weight of 25 % (by hand); the other
    paths (full precision, Q and K rounded) give 24 %, so only the quoted similarities are ruled out."""
    last = hand_softmax(np.array([-0.09, 0.06, -0.61]) / np.sqrt(2))[2]
    assert round(100 * last) == 25
    text = _quoted("erratum-003")
    assert "The percentages were computed at full precision" not in text
    assert "The percentages were not computed from the quoted similarities: with $-0.61$" in text


def test_r12_c5_precision_phrases_match_source_000_and_section_2s_table():
    """C5: 000's printed numbers have 6 to 8 significant digits (counted here from their digits); an absolute
    1e-7 flags every row of section 2's table but q_2, and 1e-7 x the largest flags only y_2."""
    digits = set()
    for values in al.source_000().printed.values():
        for x in np.ravel(values):
            digits.add(len(repr(abs(float(x))).replace(".", "").lstrip("0")))
    assert min(digits) == 6 and max(digits) == 8
    # review round 14, item 3: NumPy's default print shows up to 8 decimals; float32's shortest form of the
    # weight printed 0.00466374 (float32's softmax of the printed scores, in plain NumPy) is longer
    e = np.exp(np.float32(al.source_000().printed["scores"]))
    assert str((e / e.sum())[0]) == "0.0046637417" and al.source_000().printed["weights"][0] == 0.00466374
    assert "up to 8 decimals (NumPy's default print; float32's shortest form where that is shorter)" in prose(
        "10", "s2")
    assert "float32's shortest form)" not in prose("10", "s2")
    assert "# 8 decimals, as the source printed them" in lesson_cells("10")["s2-weights"]
    rows = {}
    for line in stored_output("10", "s2-compare").splitlines()[1:]:
        name, rest = line[:22].strip(), line[22:].split()
        rows[name] = (float(rest[0]), float(rest[2]) / 10)        # source - ours, 1e-7 x the largest
    assert [n for n, (diff, _) in rows.items() if diff > 1e-7] == [n for n in rows if n != "q_2"]
    assert [n for n, (diff, rel) in rows.items() if diff > rel] == ["y_2"]
    text = prose("10", "s1")
    assert "A fixed $10^{-7}$" not in text
    assert "An absolute $10^{-7}$ would flag every row of section 2's table but $q_2$" in text


# ---------- review round 14, lesson 10 (1 wrong, 1 misleads, 4 cosmetic) -----------------------------------

def test_r14_w1_recomputed_scores_from_a_float32_source_get_float32s_limit():
    """W1: the softmax saw the source's float32 scores, so scores recomputed in float64 are within float32's
    limit of them, not equal: the advice is score_tol = rounding_limit(scores), 0 only for exact scores
    (tests/test_bug_kinds.py checks the order check on such rows)."""
    text = prose("10", "s1")
    assert "0 for scores you recomputed, or exact ones" not in text
    assert ("For scores you recomputed, pass `al.rounding_limit(scores)` if the source computed in "
            "float32") in text


def test_r14_m2_initialisation_need_not_give_variance_1():
    """M2: LeCun's standard deviation 1/sqrt(fan_in) gives a component variance fan_in x (1/fan_in) x 1 = 1
    (by hand); PyTorch's uniform on +-1/sqrt(fan_in) gives 1/3. The erratum says 'need not', not
    'does not'."""
    rng = np.random.default_rng(0)
    fan_in = 256
    x = rng.normal(0, 1, (4000, fan_in))
    assert abs((x @ rng.normal(0, 1 / np.sqrt(fan_in), (fan_in, 64))).var() - 1) < 0.05
    text = _quoted("erratum-003")
    assert "Nor does initialisation make" not in text
    assert "Nor need initialisation make the components' variance 1." in text
    assert "(LeCun's scheme) and inputs of variance 1, it is 1" in text


def test_r14_c6_erratum_002_does_not_number_the_announced_shortcut_among_the_slips():
    text = _quoted("erratum-002")
    assert "(2) the same step then divides by 1" not in text
    assert ("The shortcut is announced, so it is no slip. The slips: (1) that step says $\\sqrt{3}$ "
            "is 1.75") in text
    assert text.index("`k_d=1`") < text.index("(1)")


# ---------- review round 15, lesson 10 (5 cosmetic) --------------------------------------------------------

def test_r15_c1_10_1_is_decided_by_hand_and_the_helper_confirms_it_after_the_tick():
    """C1: the prompt gave the exact helper call, and looping it over the four rows answers 10.1 (only a has
    no finding). The prompt now says to decide without it; the call is in the ✓'s remark, and is true."""
    text = prose("10", "ex-10-1")
    assert "printout_problems(scores" not in text and "rows[letter]" not in text
    assert "without `al.printout_problems`, which would decide for you: the ✓ shows how it confirms" in text
    scores = [1.2, 1.2, 0.3]
    rows = {"a": [0.42, 0.42, 0.17], "b": [0.50, 0.33, 0.17],
            "c": [0.45, 0.45, 0.20], "d": [0.25, 0.25, 0.50]}
    found = {x: al.printout_problems(scores, rows[x], score_tol=0.05) for x in rows}
    assert found["a"] == [] and "equal scores" in found["b"][0] and "sum to 1.1" in found["c"][0]
    assert all("other order" in f for f in found["d"])
    said = al.EXERCISES["10.1"].evaluate("a").message
    assert 'al.printout_problems(scores, rows["a"], score_tol=0.05) returns []' in said, said
    assert "unequal weights for equal scores, a sum of 1.1, and the order" in said, said
    for wrong in "bcd":
        assert "printout_problems" not in al.EXERCISES["10.1"].evaluate(wrong).message


def test_r15_c2_whole_scores_get_score_tol_0_because_002s_numbers_are_integers_not_from_the_print():
    """C2: at precision 4 NumPy prints 2.00004 as `2.` too (by hand: it is 2.0000 to 4 decimals), so the print
    allows half a unit of the 4th decimal; 0 is right because 002's inputs and weights are integers."""
    with np.printoptions(precision=4, suppress=True):
        assert np.array2string(np.array([2.00004, 4.0])) == "[2. 4.]"
    s2 = al.source_002()
    for M in (s2.X, s2.W_q, s2.W_k, s2.W_v):
        assert np.array_equal(M, np.round(M))
    text = prose("10", "s1")
    assert "pass 0 for them, not half a unit" not in text
    assert ("A print alone allows half a unit of that last decimal; these are exactly whole, as 002's inputs "
            "and weights are integers, so pass 0 for them.") in text


def test_r15_c3_003s_rounded_intermediates_round_to_the_quoted_similarities():
    """C3: -0.0914, 0.0570 and -0.6091 round to the quoted -0.09, 0.06 and -0.61 (by hand); they are not
    equal to them."""
    assert np.array_equal(np.round([-0.0914, 0.0570, -0.6091], 2), [-0.09, 0.06, -0.61])
    text = _quoted("erratum-003")
    assert "$-0.6091$: exactly the quoted numbers" not in text
    assert "$-0.6091$, which round to exactly the quoted numbers" in text


def test_r15_c4_the_summary_says_where_001s_two_slips_are():
    """C4: the summary named 001's slips without saying what or where; they are in lesson 02, section 10."""
    text = prose("10", "summary")
    assert ('(001 errs only in a comment and a claim, shown in lesson 02, section 10: K\'s rows called '
            '"batch_size", and "REMEMBER `np.matmul`, and NOT `np.dot`")') in text
    s10 = prose("02", "s10")
    assert s10.startswith("## 10.") and '"batch_size"' in s10 and "NOT `np.dot`" in s10


def test_r15_c5_10_2_sign_and_10_3_direction_and_one_decimal_get_their_own_hints():
    """C5: by hand, q·k from the 2-decimal vectors is 5.5348 - 5.069 - 6.2068 = -5.741 (two negative
    products); +5.741 and the exact product's sign lost (+5.7209) were told only 'off by 11.5'. 10.3 with
    s_0 - s_j on both sides was told 'real minus implied'; the right answer rounded to 1 decimal, 'go through
    the steps'."""
    q, k = np.array([1.37, -3.70, 2.63]), np.array([4.04, 1.37, -2.36])
    assert np.isclose(q @ k, -5.741) and (q * k < 0).sum() == 2
    for flipped in (5.741, 5.74, 5.7209):
        result = al.EXERCISES["10.2"].evaluate(flipped)
        assert result.status != "correct" and "check the sign" in result.message, result.message
    assert "check the sign" not in al.EXERCISES["10.2"].evaluate(7.0).message
    w, X = S4.printed["self_weights"], S4.X
    S = X @ X.T / np.sqrt(2)
    right = np.array([[np.log(w[i, j] / w[i, 0]) - (S[i, j] - S[i, 0]) for j in (1, 2)] for i in range(3)])
    backwards = [[np.log(w[i, 0] / w[i, j]) - (S[i, 0] - S[i, j]) for j in (1, 2)] for i in range(3)]
    said = al.EXERCISES["10.3"].evaluate(backwards).message
    assert "differences s_0 - s_j on both sides" in said and "s_j - s_0" in said, said
    one_decimal = al.EXERCISES["10.3"].evaluate(np.round(right, 1))
    assert one_decimal.status != "correct", one_decimal.message
    assert "right to one decimal: give at least two" in one_decimal.message, one_decimal.message
    assert al.EXERCISES["10.3"].evaluate(np.round(right, 2)).status == "correct"
    assert "right to one decimal" not in al.EXERCISES["10.3"].evaluate(np.round(right, 1) + 0.1).message


# ---------- review round 19 of lesson 10 -----------------------------------------------------------------

QUOTED_001 = "REMEMBER `np.matmul`, and NOT `np.dot`"   # typed from source 001 (its comments, lines 66, 69)


def test_r19_c3_10_3_rounded_to_whole_numbers_is_not_only_told_it_read_back_recomputed_weights():
    """C3: every right difference is below 0.5 in size (by hand, at most 0.4557), so np.round(right) is all
    zeros and was told only 'you read back the recomputed weights': a cause it does not have. The hint now
    names both ways to all zeros; signs flipped and rounded to 0 decimals reach it too."""
    w, X = S4.printed["self_weights"], S4.X
    S = X @ X.T / np.sqrt(2)
    right = np.array([[np.log(w[i, j] / w[i, 0]) - (S[i, j] - S[i, 0]) for j in (1, 2)] for i in range(3)])
    assert np.abs(right).max() < 0.5 and not np.round(right).any()
    for whole in (np.round(right), np.round(-right), np.round(right).astype(int).tolist()):
        result = al.EXERCISES["10.3"].evaluate(whole)
        assert result.status != "correct", result.message
        assert "or you rounded to whole numbers" in result.message, result.message
        assert "give at least two decimals" in result.message, result.message
    assert "rounded to whole numbers" not in al.EXERCISES["10.3"].evaluate(np.round(right, 1)).message


def test_r19_c4_the_summary_quotes_source_001_exactly_as_lesson_02_does():
    """C4: the summary quoted 001's comment shortened, "np.matmul, NOT np.dot"; 001 reads "REMEMBER
    `np.matmul`, and NOT `np.dot`", and lesson 02, section 10 quotes it so."""
    summary = lesson_cells("10")["summary"]
    assert f'"{QUOTED_001}"' in summary and f'"{QUOTED_001}"' in lesson_cells("02")["s10"]
    assert '"np.matmul, NOT np.dot"' not in summary
