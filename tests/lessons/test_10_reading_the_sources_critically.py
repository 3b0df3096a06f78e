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
    """10.1: source 002 announces that it rounds √3 to 1; the erratum quotes that, so the slips it names are
    the 1.75 (√3 = 1.7321, by hand) and the label 'scaled', not a hidden divisor."""
    assert round(3 ** 0.5, 4) == 1.7321 and al.source_002().printed["sqrt_d_k"] == 1.75
    text = prose("10", "erratum-002").replace(" > ", " ")                # the quote spans two lines
    assert "we will round $\\sqrt{d_k}=\\sqrt{3}=1.75$ to $1$ to simplify the computations" in text
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
