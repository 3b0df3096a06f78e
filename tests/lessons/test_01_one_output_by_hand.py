"""Lesson 01's claims (01-one-output-by-hand): its exercises and their hints (the defects of the review of
lessons 00-03, rounds two and three, each pinned by a test), its words, and its token explorer's sliders
moved as a student moves them.

Every expected value is computed here by hand with plain NumPy (or typed from the review), never taken
from the exercise modules. Slider claims are driven through the explorers' own sliders, as a student
moves them; each slider test names the cell or guide section whose sentence it checks. A test that reads
the lesson reads notebooks/ (or $ATTENTION_LAB_NOTEBOOKS). Shared helpers: tests/lesson_helpers.py.
"""

import re
from pathlib import Path

import numpy as np
from handed_out import check_as_handed_out
from lesson_helpers import (
    CATS,
    CCM,
    CHASE,
    I4,
    MICE,
    X01,
    explorer,
    hand_softmax,
    lesson_cells,
    move,
    prose,
    sm,
    status,
    stored_output,
)

import attention_lab as al
from attention_lab.answer_keys import mistakes_of

ROOT = Path(__file__).resolve().parents[2]

# ---------- defect 2: 01.3 rewarded 'animal' ----------------------------------------------------------

def small_row(row):
    W = np.zeros((4, 4))
    W[3] = row
    return W


def test_01_3_refuses_a_query_that_also_asks_animal():
    """The review's counterexample: cats, small, a small noun that is no animal. With small's row
    [2, 0, 2, 2] the weights tie 0.468 / 0.063 / 0.468 (by hand); [2, 0, 0, 2] gives 0.787 to the noun."""
    S = np.array([[1.0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1]])
    asks_animal = sm(S @ np.array([2.0, 0, 2, 2]))
    assert np.allclose(asks_animal, [0.468, 0.063, 0.468], atol=1e-3)
    assert np.allclose(sm(S @ np.array([2.0, 0, 0, 2])), [0.107, 0.107, 0.787], atol=1e-3)
    result = status("01.3", small_row([2.0, 0, 2, 2]))
    assert result.status == "mistake" and result.mistake == "asks animal", result.message
    assert "animal" in result.message and "noun? and small?" in result.message
    for row in ([2.0, 0, 0, 2], [3.0, 0, 0, 3], [3.0, -1, 0, 3]):       # the intended answers pass
        assert status("01.3", small_row(row)).status == "correct", row
    W = small_row([3.0, 0, 0, 3])
    W[1, 2] = 2.0                                                       # with the lesson's verb row
    assert status("01.3", W).status == "correct"
    assert "three fresh sentences" in prose("01", "ex-01-3") and "an animal or not" in prose("01", "ex-01-3")


def test_01_3_asks_animal_hint_says_what_is_required():
    """Review round 24, 24-B: the hint said small's question "must be only 'noun? and small?'", yet 'animal?'
    is fine below 'small?'. By hand, with small's row w (x_small = [0, 0, 0, 1]) the four sentences need
    w₃ > max(w₁, w₂, 0), w₀ > max(w₁, 0) and w₀ + w₂ > 0: these rows meet them and pass, and the rows
    below with w₂ ≥ w₃ (and the rest as required) get the hint, which must say so."""
    for row in ([2.0, 0, 1, 2], [3.0, 0, 1, 2], [1.0, 0, 2, 3], [2.0, 1, 0, 2]):
        assert status("01.3", small_row(row)).status == "correct", row
    for row in ([2.0, 0, 2, 2], [1.0, 0, 3, 1], [2.0, 0, 3, 2], [3.0, 1, 2, 2]):
        result = status("01.3", small_row(row))
        assert result.status == "mistake" and result.mistake == "asks animal", (row, result.message)
        assert "must be only" not in result.message
        assert "as much as 'small?'" in result.message
        assert "Ask 'animal?' less than 'small?', or (simplest) not at all" in result.message


def test_01_3_hint_for_a_query_that_asks_animal_does_not_depend_on_its_size():
    """Review round 22, 01-A: small's row c·[1, 0, 1, 1] got "asks animal" at c = 0.25, 0.5, 1, 2 but
    "more features" at c = 0.1, 0.3, 0.8, 1.6. By hand, its direction decides: without the 'animal?'
    entry it is c·[1, 0, 0, 1], the intended answer, so every c > 0 gets "asks animal". And c·[0, 0, 1, 1]
    asks animal and small but not noun, so no c gets "asks animal"."""
    for c in (0.1, 0.25, 0.3, 0.5, 0.8, 1.0, 1.6, 2.0, 3.0, 10.0):
        # review round 24, 24-D: where mice's weight is 0.7 or less (c·[2, 0, 3, 1] are its scores: cats is
        # a noun and an animal, mice both and small), the hint also says the win is too weak
        weak = "" if sm(c * np.array([2.0, 0, 3, 1]))[2] > 0.7 else ", too weak"
        result = status("01.3", small_row([c, 0.0, c, c]))
        assert result.status == "mistake" and result.mistake == "asks animal" + weak, (c, result.message)
        assert ("by too little" in result.message) == bool(weak), (c, result.message)
        result = status("01.3", small_row([0.0, 0.0, c, c]))
        assert result.status == "mistake" and result.mistake.startswith("more features"), (c, result.message)
    assert sm(0.1 * np.array([2.0, 0, 3, 1]))[2] < 0.3                  # the review's 0.29
    result = status("01.3", small_row([0.1, 0.0, 0.1, 0.1]))
    assert result.message.count("Hint: mice wins here, though by too little (make your entries larger too), "
                                "and your query asks 'animal?'") == 1, result.message


def test_01_3_hints_do_not_depend_on_size_down_to_tiny_entries():
    """Review round 24, 24-C: at c = 1e-5 every weight is 0.25 to within 1e-5, and a tie test on the weights
    told c·[1, 0, 1, 1] and even the right c·[1, 0, 0, 1] "cats and mice tie". By hand, small's scores are
    c·[2, 0, 1, 3] and c·[1, 0, 1, 2] (cats, chase, small, mice): mice leads for every c > 0, so these get the
    hints they get at c = 1, and the ties c·[1, 0, 0, 0] (cats = mice = c) and c·[0, 0, 0, 1] (small = mice
    = c) keep theirs."""
    assert list(X01 @ np.array([1.0, 0, 1, 1])) == [2, 0, 1, 3] and list(X01 @ np.array([1.0, 0, 0, 1])) == [
        1, 0, 1, 2]
    for c in (1.0, 1e-5, 1e-6, 1e-7, 1e-300):
        for row, mistake in (([1.0, 0, 1, 1], "asks animal, too weak"), ([1.0, 0, 0, 1], "too weak"),
                             ([1.0, 0, 0, 0], "noun only"), ([0.0, 0, 0, 1], "small only"),
                             ([2.0, 0, -2, 2], "noun cancelled"), ([-2.0, 0, 2, 2], "noun penalised")):
            result = status("01.3", small_row(c * np.array(row)))
            assert result.status == "mistake" and result.mistake == mistake, (c, row, result.message)


def test_01_1_asks_for_the_scores_and_the_weights():
    """By hand: x₃ = small scores 0, 0, 1, 1 (the tie with mice), and their softmax."""
    s = np.array([0.0, 0.0, 1.0, 1.0])
    assert np.allclose(X01 @ X01[2], s)
    assert status("01.1", [s, sm(s)]).status == "correct"
    assert status("01.1", np.round([s, sm(s)], 2)).status == "correct"
    assert status("01.1", sm(s)).mistake == "weights only"
    one_call = np.array(al.attend_one(2, X01, I4, I4, I4, scale=1.0))      # (y₃, w₃) as one array
    assert status("01.1", one_call).mistake == "output and weights"
    assert "scores" in prose("01", "ex1") and "two rows" in prose("01", "ex1")


# ---------- defect 7: the debug exercises lock what would do them in one call ---------------------------

def test_01_4_softmax_is_switched_off():
    from attention_lab import softmax as imported_softmax

    for fn in (lambda q, K: al.softmax(K @ q), lambda q, K: imported_softmax(K @ q)):
        result = status("01.4", fn)
        assert result.status != "correct" and "switched off" in result.message, result.message

    def by_hand(q, K):
        s = K @ q
        e = np.exp(s - s.max())
        return e / e.sum()
    assert status("01.4", by_hand).status == "correct"
    assert "al.softmax" in prose("01", "ex-01-4")


# ---------- defect 5: lesson 01's explorer at x₂[verb] = 0 -----------------------------------------------

def test_01_verb_zero_own_value_is_zero_too():
    ccm = al.cats_chase_mice()
    ex = al.token_explorer(1, ccm.X, ccm.W_q, ccm.W_k, ccm.W_v, ccm.tokens, ccm.features, scale=1.0)
    ex.sliders["verb"].value = 0.0
    y2 = ex.result["output"][0]
    section_6 = ccm.X @ ccm.W_v                                       # the values printed in section 6
    assert np.isclose(section_6.mean(axis=0)[1], 0.25)
    assert np.isclose(y2[1], 0.0)                                     # chase's own value is zero now
    moved = ccm.X.copy()
    moved[1] = 0.0
    assert np.allclose(y2, (moved @ ccm.W_v).mean(axis=0))
    assert "y_2[\\text{verb}] = 0" in prose("01", "s11")
    guide = " ".join((ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8").split())
    assert "y₂[verb] = 0" in guide


# ---------- cosmetic items in the lessons' words --------------------------------------------------------

def test_01_5_names_the_column_matrix_m():
    text = prose("01", "ex-01-5")
    assert "q = M x" in text and "q = W_q x" not in text
    assert "x @ M.T" in mistakes_of("01.5")["no transpose"][1]


def test_01_small_only_ties_and_a_longer_vector_wins():
    x3 = X01[2]
    assert x3 @ x3 == x3 @ X01[3] == 1 and x3 @ (2 * x3) == 2
    assert "2x_3" in prose("01", "s4-note")


def test_01_weights_title_does_not_name_w_v_as_a_cause():
    assert "with W_q, W_k, W_v" not in lesson_cells("01")["s7-heatmap"]


# ==========================================================================================================
# Round three (/work/wt/reviews-round3/lessons-00-03.md): each defect pinned by a test.
# ==========================================================================================================

def exercise_01_5_data():
    """01.5's data as the lesson prints it: tokens, M, v_1 and v_2 from the question, y_1 from its cell."""
    text, code = prose("01", "ex-01-5"), lesson_cells("01")["ex-01-5-code"]
    pair = r"\((-?[\d.]+), (-?[\d.]+)\)"
    X = np.array([[float(a), float(b)] for a, b in
                  (re.search(rf"\$x_{i} = {pair}\$", text).groups() for i in (1, 2, 3))])
    V = np.array([[float(a), float(b)] for a, b in
                  (re.search(rf"\$v_{i} = {pair}\$", text).groups() for i in (1, 2))])
    rows = re.search(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", text).group(1).split(r"\\")
    M = np.array([[float(v) for v in row.split("&")] for row in rows])
    y1 = np.array([float(v) for v in re.search(r"y_1 = np\.array\(\[(.*?)\]\)", code).group(1).split(",")])
    return X, M, V, y1


def v3_by_hand(X, V, y1, q, K=None):
    """y_1 = w_1 v_1 + w_2 v_2 + w_3 v_3 solved for v_3, with the weights of query q over keys K (rows)."""
    w = sm((X if K is None else K) @ q)
    return (y1 - w[0] * V[0] - w[1] * V[1]) / w[2]


def test_r3_01_5_the_three_readings_of_q_differ_and_only_m_x_passes():
    """Defect 1: q = M x (right), q = x @ M (no transpose) and q = x (no M) give v_3s far apart, each
    named."""
    X, M, V, y1 = exercise_01_5_data()
    right, no_t, no_m = (v3_by_hand(X, V, y1, q) for q in (M @ X[0], X[0] @ M, X[0]))
    for a, b in ((right, no_t), (right, no_m), (no_t, no_m)):
        assert np.abs(a - b).max() > 0.05, (a, b)
    assert status("01.5", right).status == "correct"
    assert status("01.5", np.round(right, 2)).status == "correct"
    assert "x @ M.T" in status("01.5", no_t).message
    assert status("01.5", no_m).mistake == "no M" and "without M" in status("01.5", no_m).message


def test_r3_01_5_keys_through_m_get_their_own_hint():
    """Defect 9: keys also sent through M (k = M x) are not told 'your weights come from q = x @ M'."""
    X, M, V, y1 = exercise_01_5_data()
    for q, keys in ((M @ X[0], X @ M.T), (X[0] @ M, X @ M)):       # with and without the transpose
        message = status("01.5", v3_by_hand(X, V, y1, q, keys)).message
        assert "k = x" in message and "the text's matrix used as ours" not in message, message


# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)

def hand_token_weights(x2):
    """w_2j of lesson 01 (no scaling), by hand from the raw example with chase's features x2."""
    X = CCM.X.copy()
    X[CHASE] = x2
    return hand_softmax((X @ CCM.W_k) @ (X[CHASE] @ CCM.W_q))


def test_01_verb_zero_gives_equal_weights_and_the_plain_average():
    """01 §9 (cell 's11'), first move; the guide's 25–32 question and its row "A token's output is
    its own value": x₂[verb] = 0 makes the query zero, the weights all 0.25, y₂ the plain average."""
    ex = explorer("01 token_explorer")
    r = move(ex, "verb", 0.0)
    assert np.allclose(r["x"] @ CCM.W_q, 0.0)                      # the query is zero
    assert np.allclose(r["weights"], 0.25)
    values = CCM.X.copy()
    values[CHASE] = r["x"]
    values = values @ CCM.W_v                                      # (4, d_v) with the moved x₂
    assert np.allclose(r["output"][0], values.mean(axis=0))
    assert not np.allclose(r["output"][0], values[CHASE])          # not its own value


def test_01_verb_three_approaches_half_on_each_animal():
    """01 §9, second move, which the lesson asks as a question (01.2 predicts a move like it): x₂[verb] = 3,
    the weights on cats and mice approach 0.5 each."""
    ex = explorer("01 token_explorer")
    w1 = move(ex, "verb", 1.0)["weights"][0]
    w3 = move(ex, "verb", 3.0)["weights"][0]
    assert np.allclose(w3, hand_token_weights([0, 3, 0, 0]))
    assert np.isclose(w3[CATS], w3[MICE]) and 0.49 < w3[CATS] < 0.5
    assert 0.5 - w3[CATS] < 0.5 - w1[CATS]                          # closer than at the start


def test_01_animal_ties_at_one_then_chase_listens_to_itself():
    """01 §9, third move: raising x₂[animal], chase ties with cats and mice at 1 and listens most to
    itself above 1."""
    ex = explorer("01 token_explorer")
    for a in (0.0, 0.5, 0.9):
        w = move(ex, "animal", a)["weights"][0]
        assert w[CHASE] < w[CATS]
    w = move(ex, "animal", 1.0)["weights"][0]
    assert np.allclose(w, hand_token_weights([0, 1, 1, 0]))
    assert np.isclose(w[CHASE], w[CATS]) and np.isclose(w[CHASE], w[MICE])
    for a in (1.1, 1.5, 2.0, 3.0):
        w = move(ex, "animal", a)["weights"][0]
        assert np.allclose(w, hand_token_weights([0, 1, a, 0]))
        assert np.argmax(w) == CHASE



# ---------- review round 5, 01-A and 01-B: hints that fit the answer -------------------------------------
def test_01_3_a_row_that_asks_noun_is_not_told_to_ask_noun():
    """Small's row [2, 0, -2, 2] asks 'noun?' and 'small?' but takes 'animal?' away, which costs mice (an
    animal) what it gains as a noun: small and mice tie (2 and 2, by hand). The hint says so; a row that
    does not ask 'noun?' still hears 'ask for noun too'."""
    x = {"cats": [1, 0, 1, 0], "chase": [0, 1, 0, 0], "small": [0, 0, 0, 1], "mice": [1, 0, 1, 1]}
    for row in ([2.0, 0.0, -2.0, 2.0], [3.0, 0.0, -3.0, 3.0]):
        assert np.dot(x["small"], row) == np.dot(x["mice"], row) > np.dot(x["cats"], row)
        W = np.zeros((4, 4))
        W[3] = row
        result = al.EXERCISES["01.3"].evaluate(W)
        assert result.status == "mistake" and "ask for 'noun' too" not in result.message, result.message
        assert "animal" in result.message and "ties with mice" in result.message
    only_small = np.zeros((4, 4))
    only_small[3, 3] = 2.0
    assert "ask for 'noun' too" in al.EXERCISES["01.3"].evaluate(only_small).message


def test_01_3_small_only_hint_fits_only_a_row_that_asks_only_small():
    """Fresh read: [-2, 0, 2, 2] asks 'animal?' and penalises 'noun?'; mice (noun and animal) gains 2 and
    loses 2, so small and mice tie (2 and 2, by hand). It asks more than 'small?', so the 'small only' hint
    does not describe it: its own hint names the negative 'noun?' entry. [0, 0, 0, 2] and [0, 1, 0, 2] do
    ask only 'small?' of the features mice has, and keep the 'small only' hint."""
    x = {"cats": [1, 0, 1, 0], "chase": [0, 1, 0, 0], "small": [0, 0, 0, 1], "mice": [1, 0, 1, 1]}
    for row in ([-2.0, 0.0, 2.0, 2.0], [-3.0, 1.0, 3.0, 3.0]):
        assert np.dot(x["small"], row) == np.dot(x["mice"], row) > np.dot(x["cats"], row)
        result = status("01.3", small_row(row))
        assert result.status == "mistake", result.message
        assert "neither 'noun?' nor 'animal?'" not in result.message
        assert "ask for 'noun' too" not in result.message
        assert "ties with mice" in result.message and "negative" in result.message, result.message
    for row in ([0.0, 0.0, 0.0, 2.0], [0.0, 1.0, 0.0, 2.0]):
        assert "neither 'noun?' nor 'animal?'" in status("01.3", small_row(row)).message


def test_01_3_small_only_hint_says_only_what_the_query_asks():
    """Review round 25, 25-D: [0, -1, 0, 1] asks 'small?' and 'not a verb?'; small and mice both score 1, by
    hand (cats 0, chase -1). It was told "Asking only 'small?'". The hint now says what every row that
    reaches it asks: 'small?', and neither 'noun?' nor 'animal?'."""
    x = {"cats": [1, 0, 1, 0], "chase": [0, 1, 0, 0], "small": [0, 0, 0, 1], "mice": [1, 0, 1, 1]}
    for row, scores in (([0.0, -1.0, 0.0, 1.0], [0, -1, 1, 1]), ([0.0, 0.0, 0.0, 3.0], [0, 0, 3, 3]),
                        ([0.0, 0.5, 0.0, 1.0], [0, 0.5, 1, 1])):
        assert [np.dot(x[w], row) for w in ("cats", "chase", "small", "mice")] == scores
        result = status("01.3", small_row(row))
        assert result.status == "mistake" and result.mistake == "small only", (row, result.message)
        assert "only" not in result.message.split("small ties with mice", 1)[1], result.message
        assert "neither 'noun?' nor 'animal?'" in result.message and "ask for 'noun' too" in result.message


# ---------- review round 25, 25-A: cats and mice tie, and the hint names what the query asked ---------------
def test_01_3_cats_and_mice_tie_hint_names_what_the_query_asked():
    """Mice is cats plus 'small' ([1, 0, 1, 1] = [1, 0, 1, 0] + [0, 0, 0, 1]), so a query ties them exactly
    when it asks nothing of 'small?'. [0, 0, 1, 0] asks only 'animal?': cats and mice tie (1 and 1, by hand)
    because both are animals, not because both are nouns; [1, 0, 1, 0] and [1, 0, 2, 0] already ask a second
    feature. Such rows were told "both are nouns. Ask for a second feature". They are now told that the
    query does not ask 'small?' and to ask it. A query that asks 'noun?' alone ([1, 0, 0, 0], [3, 0, 0, 0])
    keeps "both are nouns"."""
    x = {"cats": [1, 0, 1, 0], "chase": [0, 1, 0, 0], "small": [0, 0, 0, 1], "mice": [1, 0, 1, 1]}
    other = (([0.0, 0, 1, 0], [1, 0, 0, 1]), ([0.0, 0, 2, 0], [2, 0, 0, 2]), ([1.0, 0, 1, 0], [2, 0, 0, 2]),
             ([1.0, 0, 2, 0], [3, 0, 0, 3]), ([2.0, 0, 1, 0], [3, 0, 0, 3]), ([1.0, -1, 0, 0], [1, -1, 0, 1]),
             ([0.0, 1, 2, 0], [2, 1, 0, 2]), ([1e-7, 0, 1e-7, 0], [2e-7, 0, 0, 2e-7]))
    for row, scores in other:
        assert [np.dot(x[w], row) for w in ("cats", "chase", "small", "mice")] == scores
        result = status("01.3", small_row(row))
        assert result.status == "mistake", (row, result.message)
        assert "both are nouns" not in result.message and "second feature" not in result.message, row
        assert "cats and mice tie" in result.message and "does not ask 'small?'" in result.message, row
        assert "Ask 'small?' too" in result.message, row
    for row in ([1.0, 0, 0, 0], [3.0, 0, 0, 0], [1e-7, 0, 0, 0]):
        assert np.dot(x["cats"], row) == np.dot(x["mice"], row) == row[0]
        result = status("01.3", small_row(row))
        assert result.status == "mistake" and "cats and mice tie" in result.message, row
        assert "both are nouns" in result.message and "does not ask 'small?'" not in result.message, row


def test_01_5_weights_rounded_as_the_heatmaps_show_them_get_a_rounding_hint():
    """v_3 by hand with w = (0.58, 0.21, 0.21), as a heatmap prints them: (3.037, -1.046), and at one
    decimal (0.6, 0.2, 0.2): the method is right, the rounding is not (computed here from the text's
    numbers: x_1 = (1, 1), q = M x_1 = (2, 1), scores 3, 2, 2). At 3 decimals the answer counts."""
    y1 = np.array([0.57611688 * 0 + 0.21194156 * 1 + 0.21194156 * 3,
                   0.57611688 * 2 + 0.21194156 * 0 + 0.21194156 * -1])      # y_1 = sum_j w_j v_j
    e = np.exp([3.0, 2.0, 2.0])
    assert np.allclose(e / e.sum(), [0.57611688, 0.21194156, 0.21194156])
    v1, v2 = np.array([0.0, 2.0]), np.array([1.0, 0.0])
    for w, decimals in (((0.58, 0.21, 0.21), "2 decimals"), ((0.6, 0.2, 0.2), "1 decimal")):
        v3 = (y1 - w[0] * v1 - w[1] * v2) / w[2]
        message = al.EXERCISES["01.5"].evaluate(v3).message
        assert f"your method is right, but you rounded the weights to {decimals}" in message, message
    w = (0.576, 0.212, 0.212)
    assert al.EXERCISES["01.5"].evaluate((y1 - w[0] * v1 - w[1] * v2) / w[2]).status == "correct"


# ---------- review round 6, 01-A: no division at all is the planted bug's twin ------------------------------

def test_r6_01_4_returning_the_exps_gets_a_hint_that_fits():
    """01-A: after subtracting the maximum, e.max() is 1, so `return e` gives the planted bug's numbers; the
    hint must fit a student who removed the division (it names the missing sum and why the two agree)."""
    def no_division(q, K):                                   # a student's 'fix': drop the division
        s = K @ q
        return np.exp(s - s.max())

    result = status("01.4", no_division)
    assert result.status != "correct"
    assert "never divided by their sum" in result.message and "always 1" in result.message, result.message
    assert "still the planted bug" not in result.message


# ---------- teacher's review, round 2, item 6: the planted bug as handed out gives nothing away -------------

def test_01_4_as_handed_out_says_what_to_look_for_not_the_fix():
    """The planted cell is stored with the check's verdict printed (a student sees it on opening the lesson
    and after Run All). It named the fix ("never divided by their sum"), which made the debug exercise a
    reading one. As handed out, the function gets 'not yet' and what to look for; the fix is explained
    once the line has changed and still gives the planted numbers (the division taken out)."""
    check_as_handed_out("01.4", ("sum", "divid", "e.max()"))
    assert "add up to" in stored_output("01", "ex-01-4-code")

    def weights_changed(q, K):                # the planted line edited, the same numbers
        scores = K @ q
        e = np.exp(scores - scores.max())
        return e / np.max(e)

    def weights_commented_out(q, K):          # the planted line kept as a comment, the division taken out
        scores = K @ q
        e = np.exp(scores - scores.max())
        # return e / e.max()
        return e

    assert status("01.4", weights_changed).mistake == "no division"
    assert status("01.4", weights_commented_out).mistake == "no division"


# ---------- review round 8, 01-1: the shift 'fixed', the planted line left: the shift was right ------------

def test_01_4_taking_out_the_shift_is_told_the_shift_was_right():
    """01-1: a student who suspects the shift line and takes it out keeps the planted division. On small
    scores the weights are the planted ones (exp(s) / max exp(s) = exp(s - max s), by hand below); near
    1000 exp overflows. The hint says the changed line was right and the wrong one is still there, not
    the generic 'numbers differ'. The mixed slip, the shifted exps over the unshifted sum, is named too."""
    def weights_of(q, K):                     # the shift line 'fixed', the planted line left
        scores = K @ q                       # (n,) one score per key
        e = np.exp(scores)
        return e / e.max()

    def weights_over_unshifted(q, K):
        scores = K @ q
        e = np.exp(scores - scores.max())
        return e / np.exp(scores).sum()

    s = np.array([0.5, -1.0, 2.0])
    assert np.allclose(weights_of(np.array([1.0]), s[:, None]), np.exp(s - 2.0))   # the planted numbers
    result = status("01.4", weights_of)
    assert result.status == "mistake" and result.mistake == "shift changed", result.message
    assert "the line you changed was right" in result.message and "still there" in result.message
    assert "add up to" in result.message and "numbers differ" not in result.message
    result = status("01.4", weights_over_unshifted)
    assert result.mistake == "unshifted sum" and "e.sum()" in result.message, result.message


# ---------- review round 20, 01-2: 01.3's 'too weak' looks at the fresh sentences first ------------------

def test_01_3_mices_own_features_as_the_query_are_told_about_animal_not_size():
    """01-2: small's row [1, 0, 1, 1] (mice's own features, a natural first try) makes mice win on the
    lesson's sentence by too little (0.644, by hand below). Made larger ([2, 0, 2, 2]) it would still fail,
    on a fresh sentence whose small noun is no animal (a tie, by hand), so its hint names 'animal?' at
    once, with size. [1, 0, 0, 1] is only too weak: made larger it passes."""
    assert np.array_equal(X01[2], [0, 0, 0, 1])                        # small's query is row 'small' of W_q
    scores = X01 @ np.array([1.0, 0, 1, 1])                            # W_k = I, no scale
    assert list(scores) == [2, 0, 1, 3] and abs(sm(scores)[3] - 0.644) < 1e-3
    S = np.array([[1.0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1]])        # cats, small, a small non-animal noun
    scaled = S @ np.array([2.0, 0, 2, 2])
    assert scaled[0] == scaled[2] == 4                                # the animal ties with the target
    result = status("01.3", small_row([1.0, 0, 1, 1]))
    assert result.status == "mistake" and "animal" in result.message, result.message
    # review round 24, 24-D: mice's 0.644 is below 0.7, so the same hint also says the win is too weak (one
    # hint for both, not 'mice wins here' alone); made larger, it names 'animal?' only
    assert result.mistake == "asks animal, too weak" and "too little" in result.message, result.message
    larger = status("01.3", small_row([2.0, 0, 2, 2]))
    assert larger.mistake == "asks animal" and "too little" not in larger.message, larger.message
    assert larger.message.split("asks 'animal?'")[1] == result.message.split("asks 'animal?'")[1]
    weak = status("01.3", small_row([1.0, 0, 0, 1]))
    assert abs(sm(X01 @ np.array([1.0, 0, 0, 1]))[3] - 0.534) < 1e-3
    assert weak.status == "mistake" and "too little" in weak.message, weak.message
    assert status("01.3", small_row([3.0, 0, 0, 3])).status == "correct"


# ---------- review round 20, 01-1: y₂ averages the values ---------------------------------------------------

def test_01_intro_says_y2_averages_the_values():
    """01-1: from section 5 on, y₂ = Σ_j w_2j v_j (the Summary's formula), a weighted average of the values,
    not of the tokens; the intro says so (and that sections 2-4 average the tokens themselves)."""
    text = prose("01", "intro")
    assert "weighted average over the values of all the tokens" in text
    assert "before $W_v$, over the tokens themselves" in text
    assert "y_i = \\sum_j w_{ij} v_j" in prose("01", "summary")
