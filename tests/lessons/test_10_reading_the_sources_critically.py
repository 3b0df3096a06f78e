"""Lesson 10's claims (10-reading-the-sources-critically; the appendix of the second review of lessons 04,
05, 06 and the appendix, issue 29, when it was lesson 09): exercise 10.3 by hand and out of one package
call's reach, and the checklist's room for rounding, with exercise 10.1.

Every expected value is computed here by hand with plain NumPy, never taken from the exercise modules.
Shared helpers: tests/lesson_helpers.py.
"""

import numpy as np
from lesson_helpers import cell_text, one_call_answers, passes, prose

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
