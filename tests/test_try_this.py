"""Every "move this slider and you will see…" of the lessons, their summaries and the teaching guide,
driven in the kernel through the explorer's own sliders (as a student would), and the claim asserted.

Each test names the cell (or guide section) whose sentence it checks; change the sentence and the test
together. Explorers are built exactly as their lesson builds them (tools/explorer_registry.py).
"""

import sys
from pathlib import Path

import numpy as np

import attention_lab as al

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from explorer_registry import demo_explorers

EXPLORERS = demo_explorers()


def explorer(prefix: str):
    """The lesson's explorer whose registry name starts with `prefix` (e.g. '02 matrix_explorer (')."""
    (name,) = [k for k in EXPLORERS if k.startswith(prefix)]
    return EXPLORERS[name]()


def move(ex, key: str, value) -> dict:
    """Move one slider as a student would (its widget's value), and return what the explorer computed."""
    ex.sliders[key].value = value
    assert ex.error is None, f"{key}={value}: the explorer shows an error: {ex.error}"
    return {k: np.asarray(v) for k, v in ex.result.items() if not isinstance(v, str)}


assert al  # the lessons' package, for tests that compute an expectation independently

# --- lesson 00 ---------------------------------------------------------------------------------------

CCM = al.cats_chase_mice()
CATS, CHASE, SMALL, MICE = range(4)


def hand_softmax(s):
    """Softmax written out here, apart from the package."""
    e = np.exp(np.asarray(s, dtype=float) - np.max(s))
    return e / e.sum()


def hand_weights(tau, x2=None):
    """The lesson's (4, 4) weights at temperature tau, from the raw example, by hand."""
    X = CCM.X.copy()
    if x2 is not None:
        X[CHASE] = x2
    S = (X @ CCM.W_q) @ (X @ CCM.W_k).T / (tau * 2.0)   # d_k = 4, so √d_k = 2
    return np.array([hand_softmax(row) for row in S])


def spread_from_quarter(w):
    """How far each row is from 0.25 everywhere (the flat row)."""
    return np.abs(w - 0.25).max(axis=1)


def test_00_tau_sharpens_but_ties_stay_ties():
    """00 §2 (cell 's1'): small τ moves each row's weight onto its highest scores, chase ends with
    half on cats and half on mice, large τ flattens towards a quarter each, the cats row never moves."""
    ex = explorer("02 matrix_explorer, weights only")
    start = move(ex, "tau", 1.0)["weights"]
    sharp = move(ex, "tau", 0.1)["weights"]
    assert np.allclose(sharp, hand_weights(0.1), atol=1e-12)
    assert np.allclose(sharp[CHASE], [0.5, 0, 0, 0.5], atol=1e-4)   # half and half, not one-hot
    assert sharp.max() < 0.51                                      # no row becomes one-hot
    for r in (CHASE, SMALL, MICE):                                 # the row gets sharper
        assert spread_from_quarter(sharp)[r] > spread_from_quarter(start)[r]
    flat = move(ex, "tau", 3.0)["weights"]
    for r in (CHASE, SMALL, MICE):
        assert spread_from_quarter(flat)[r] < spread_from_quarter(start)[r]
    assert np.allclose(CCM.X[CATS] @ CCM.W_q, 0.0)                 # its query is zero
    for tau in np.arange(0.1, 3.01, 0.1).round(1):                 # the cats row never moves
        assert np.allclose(move(ex, "tau", float(tau))["weights"][CATS], 0.25)


def test_00_reset_puts_every_slider_back():
    """00 §5 (cell 's4') and its Summary, 01 §9: the Reset button puts every slider of that explorer
    back where it started, and the pictures with them."""
    for prefix, start in [("02 matrix_explorer, weights only", {**dict(zip(CCM.features, CCM.X[CHASE])),
                                                               "tau": 1.0}),
                          ("01 token_explorer", dict(zip(CCM.features, CCM.X[CHASE])))]:
        ex = explorer(prefix)
        first = move(ex, "verb", 1.0)                               # the start position
        for key in start:
            move(ex, key, 2.0)
        assert not np.allclose(move(ex, "noun", -1.0)["weights"], first["weights"])
        ex.reset_button.click()
        assert {k: w.value for k, w in ex.sliders.items()} == start
        assert np.allclose(ex.result["weights"], first["weights"])
        assert np.allclose(ex.result["x"], CCM.X[CHASE])


# --- lesson 01 ---------------------------------------------------------------------------------------

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
    """01 §9, second move: x₂[verb] = 3, the weights on cats and mice approach 0.5 each."""
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


# --- lesson 02 ---------------------------------------------------------------------------------------

def hand_dk_weights(d_k):
    """The d_k explorer's query and keys drawn again here (seed 0, query first), weights by hand."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal(128)
    K = rng.standard_normal((8, 128))
    s = K[:, :d_k] @ q[:d_k]
    return hand_softmax(s), hand_softmax(s / np.sqrt(d_k))


def test_02_dk_unscaled_piles_up_scaled_stays_flatter():
    """02 §6 explore (cell 's6-explore'): starts at 16; unscaled the largest weight grows with d_k, not
    at every step, and at 128 one key takes almost all; scaled, flatter at every d_k > 1 and never
    much above one half. Also the guide's τ / √d_k misconception row (d_k = 128)."""
    ex = explorer("02 dk_explorer")
    assert ex.sliders["d_k"].value == 16
    unscaled, scaled = [], []
    for d_k in range(1, 129):
        w = move(ex, "d_k", d_k)["weights"]
        u, s = hand_dk_weights(d_k)
        assert np.allclose(w, [u, s])
        unscaled.append(w[0].max())
        scaled.append(w[1].max())
        if d_k > 1:                                                 # scaled is flatter
            assert w[1].max() < w[0].max()
    unscaled, scaled = np.array(unscaled), np.array(scaled)
    assert unscaled[-1] > 0.99 > 0.5 > unscaled[0]                  # one key takes almost all
    assert np.corrcoef(np.arange(1, 129), unscaled)[0, 1] > 0.7     # grows with d_k ...
    assert (np.diff(unscaled) < 0).any()                            # ... but not at every step
    assert scaled.max() < 0.55                                      # never much above one half


def test_02_tau_ties_stay_ties_and_rows_flatten():
    """02 §11 (cell 's11'), the τ moves, and the Summary's "a temperature never breaks a tie": at
    τ = 0.1 each row's weight sits on its highest scores, tied keys keep equal weights (chase
    0.5 / 0.5), the cats row stays at 0.25; at τ = 3 every row flattens towards 0.25."""
    ex = explorer("02 matrix_explorer (")
    start = move(ex, "tau", 1.0)["weights"]
    S = (CCM.X @ CCM.W_q) @ (CCM.X @ CCM.W_k).T                     # the raw scores
    top = np.isclose(S, S.max(axis=1, keepdims=True))               # each row's highest scores
    sharp = move(ex, "tau", 0.1)["weights"]
    assert np.allclose(sharp, hand_weights(0.1), atol=1e-12)
    assert ((sharp * top).sum(axis=1) > 0.99).all()
    for r in range(4):                                              # tied keys, equal weights
        assert np.allclose(sharp[r][top[r]], sharp[r][top[r]][0])
    assert np.allclose(sharp[CHASE], [0.5, 0, 0, 0.5], atol=1e-4)
    assert np.allclose(sharp[CATS], 0.25)
    flat = move(ex, "tau", 3.0)["weights"]
    assert np.allclose(flat, hand_weights(3.0), atol=1e-12)
    assert (spread_from_quarter(flat) <= spread_from_quarter(start) + 1e-12).all()
    assert (spread_from_quarter(flat)[1:] < spread_from_quarter(start)[1:]).all()


def test_02_noun_moves_the_chase_column_animal_only_the_chase_row():
    """02 §11: moving x₂[noun] changes the chase column in the rows of small and mice; moving
    x₂[animal] changes only chase's own row. Rows always sum to 1, columns do not."""
    ex = explorer("02 matrix_explorer (")
    start = move(ex, "noun", 0.0)["weights"]
    assert not np.allclose(start.sum(axis=0), 1.0)
    for v in (-2.0, 1.0, 2.5):
        w = move(ex, "noun", v)["weights"]
        assert np.allclose(w, hand_weights(1.0, [v, 1, 0, 0]), atol=1e-12)
        assert np.allclose(w.sum(axis=1), 1.0)
        assert np.allclose(w[[CATS, CHASE]], start[[CATS, CHASE]])  # cats and chase rows unchanged
        assert (np.abs(w[[SMALL, MICE], CHASE] - start[[SMALL, MICE], CHASE]) > 0.05).all()
    move(ex, "noun", 0.0)
    for v in (-2.0, 1.0, 2.5):
        w = move(ex, "animal", v)["weights"]
        assert np.allclose(w.sum(axis=1), 1.0)
        assert np.allclose(np.delete(w, CHASE, axis=0), np.delete(start, CHASE, axis=0))
        assert not np.allclose(w[CHASE], start[CHASE])


# --- lesson 03 ---------------------------------------------------------------------------------------

CAT = al.the_cat_sat()
PREV = np.arange(1, 6)        # cat, sat, on, the, mat: each has a previous word (row q -> key q - 1)
CONTENT = CAT.X[:, 2] == 1    # cat, sat, mat
X_START = CAT.X.copy()
X_START[2] = np.round(CAT.X[2], 3)   # the sliders are anchored at the lesson's x to the 3 decimals printed


def softmax_rows(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def heads_by_hand(X, h):
    """The lesson's multi-head weights, written out with plain NumPy: (h, n, n)."""
    k = X.shape[1] // h
    Q, K = X @ CAT.W_q, X @ CAT.W_k
    return np.stack([softmax_rows(Q[:, i * k:(i + 1) * k] @ K[:, i * k:(i + 1) * k].T / np.sqrt(k))
                     for i in range(h)])


def shown_heads(ex, h) -> np.ndarray:
    """Every head's weights as the explorer shows them, (h, n, n)."""
    r = move(ex, "n_heads", h)
    return np.stack([r[f"head{i}"] for i in range(h)])


def test_03_explorer_starts_at_the_lessons_sentence():
    """03 §10: 'They start at the lesson's values, so the explorer shows the weights of section 3'
    (issue 21: it started at (-0.2, 1.0) and showed 0.80 where the figure showed 0.81)."""
    ex = explorer("03 heads_explorer (")
    assert np.allclose(ex.result["x"], CAT.X[2], rtol=0, atol=5e-4)  # x3 to the 3 decimals printed
    lesson = heads_by_hand(CAT.X, 2)
    for i in range(2):                                                # every number on screen agrees
        assert np.array_equal(np.round(ex.result[f"head{i}"], 2), np.round(lesson[i], 2))
    assert "x₃ = [-0.2230  0.9750  1.0000  0.0000]" in ex.summary()
    assert all(ex.sliders[f].step == 0.1 for f in CAT.features)      # an arrow key still moves it by 0.1


def test_03_one_head_loses_the_previous_word_of_cat_on_mat():
    """03 §10 '`heads h` = 1: cat, on and mat lose their previous word (below 0.1 of their weight);
    sat and the second the keep it'; the guide's 'What does one head of width 4 lose?'."""
    ex = explorer("03 heads_explorer (")
    two = shown_heads(ex, 2)
    assert (two[0][PREV, PREV - 1] > 0.8).all()                      # 2 heads: all five find it
    (one,) = shown_heads(ex, 1)
    assert np.allclose(one, heads_by_hand(X_START, 1)[0])
    on_prev = dict(zip(["cat", "sat", "on", "the", "mat"], one[PREV, PREV - 1]))
    assert all(on_prev[w] < 0.1 for w in ("cat", "on", "mat")), on_prev
    assert all(on_prev[w] > 0.8 for w in ("sat", "the")), on_prev
    assert np.argmax(one[1]) == 1                                    # cat listens to itself instead


def test_03_four_heads_no_head_finds_the_previous_word_and_kind_heads_serve_one_kind():
    """03 §10 '`heads h` = 4: no head finds the previous token any more ... head 3 (content) groups the
    content words for content-word queries, flat for function words; head 4 the other way round'; the
    guide's misconception row 'More heads is always better': neither pattern is as clean as with 2."""
    ex = explorer("03 heads_explorer (")
    two = shown_heads(ex, 2)
    four = shown_heads(ex, 4)
    assert np.allclose(four, heads_by_hand(X_START, 4))
    assert two[0][PREV, PREV - 1].min() > 0.8
    assert all(w[PREV, PREV - 1].min() < 0.2 for w in four)          # no head finds it for every word
    for c in (0, 1):                          # why: one column, so each query picks an extreme key
        extremes = {int(np.argmax(X_START[:, c])), int(np.argmin(X_START[:, c]))}
        for row in four[c]:
            assert np.ptp(row) < 0.01 or int(np.argmax(row)) in extremes
    same_kind = np.array([[w[q][CONTENT == CONTENT[q]].sum() for q in range(6)] for w in (*two, *four)])
    assert (same_kind[1] > 0.95).all()                               # 2 heads: head 2 clean for all six
    assert not (same_kind[2:] > 0.95).all(axis=1).any()              # 4 heads: no head clean for all six
    for head, kind in ((four[2], CONTENT), (four[3], ~CONTENT)):
        assert (head[kind][:, kind].sum(axis=1) > 0.95).all()         # its own kind: grouped
        assert np.allclose(head[~kind], 1 / 6, atol=0.01)             # the other kind: flat


def test_03_every_head_sees_every_token():
    """Guide, misconception 'Heads see different tokens': for h = 1, 2, 4 every head's map has a
    column for every token, and every key gets some weight."""
    ex = explorer("03 heads_explorer (")
    for h in (1, 2, 4):
        w = shown_heads(ex, h)
        assert w.shape == (h, 6, 6) and (w > 0).all()


def test_03_sat_as_a_function_word():
    """03 §10 'set x₃[content] to 0 and x₃[function] to 1: sat now acts as a function word in head 2
    (it listens to the, on, the and itself, and they to it). Head 1's weights do not change at all'."""
    ex = explorer("03 heads_explorer (")
    before = shown_heads(ex, 2)
    move(ex, "content", 0.0)
    r = move(ex, "function", 1.0)
    X = X_START.copy()
    X[2, 2:] = [0.0, 1.0]
    assert np.allclose(np.stack([r["head0"], r["head1"]]), heads_by_hand(X, 2))
    function = np.array([True, False, True, True, True, False])      # the, sat (now), on, the
    assert r["head1"][2][function].sum() > 0.95
    assert (r["head1"][np.ix_([0, 3, 4], [2])] > 0.2).all()          # the, on, the listen to sat
    assert before[1][2][[0, 3, 4]].sum() < 0.05                       # before: sat was a content word
    assert np.array_equal(r["head0"], before[0])                     # head 1: not one digit changes


def test_03_show_head_draws_the_chosen_head_large():
    """03 §10 '`show head` picks which head is drawn large'."""
    ex = explorer("03 heads_explorer (")
    move(ex, "n_heads", 4)
    r = move(ex, "head", 3)
    assert np.array_equal(r["shown"], r["head2"])

# --- lesson 04 ---------------------------------------------------------------------------------------

TR = al.translation()


def decoder_step_by_hand(X_dec, causal=True, padding=True):
    """Lesson 04's decoder step with plain NumPy: (self weights (m, m), cross weights (m, n))."""
    m, n, d = len(X_dec), len(TR.X_enc), X_dec.shape[1]
    S = (X_dec @ TR.self_W_q) @ (X_dec @ TR.self_W_k).T / np.sqrt(d)
    A = softmax_rows(np.where(np.tri(m, dtype=bool) | (not causal), S, -np.inf))
    Z = X_dec + A @ (X_dec @ TR.self_W_v)                            # residual
    C = (Z @ TR.cross_W_q) @ (TR.X_enc @ TR.cross_W_k).T / np.sqrt(d)
    keys = (np.arange(n) < TR.enc_length) | (not padding)
    return A, softmax_rows(np.where(keys[None, :], C, -np.inf))


def test_04_causal_mask_off_le_sees_later_words():
    """04 §9 'switch the causal mask off: le now attends to the words that come after it (it kept all its
    weight on itself before)'; the guide's 45-minute plan ('04 explorer (causal mask off)')."""
    ex = explorer("04 cross_explorer (")
    assert ex.result["self_weights"][0, 0] == 1.0
    r = move(ex, "causal", False)
    assert np.allclose(r["self_weights"], decoder_step_by_hand(TR.X_dec, causal=False)[0])
    assert r["self_weights"][0, 1:].sum() > 0.5 and (r["self_weights"][0, 1:] > 0).all()


def test_04_padding_mask_off_pad_takes_weight_from_every_word():
    """04 §9 'switch the padding mask off: <pad> takes weight from every French word, and its column no
    longer sums to 0'."""
    ex = explorer("04 cross_explorer (")
    assert (ex.result["cross_weights"][:, 5] == 0).all()
    r = move(ex, "padding", False)
    assert np.allclose(r["cross_weights"], decoder_step_by_hand(TR.X_dec, padding=False)[1])
    assert (r["cross_weights"][:, 5] > 0.01).all()
    assert "<pad> 0.00" not in ex.summary()


def test_04_noir_turns_to_cat():
    """04 §9 'move noir[black] down to 0 and noir[cat] up to 1: noir now gives most of its weight to cat
    instead of black. (Already at 0.5 and 0.5, cat wins ...)'."""
    ex = explorer("04 cross_explorer (")
    enc = TR.enc_tokens
    assert enc[int(np.argmax(ex.result["cross_weights"][2]))] == "black"
    for black, cat in ((0.5, 0.5), (0.0, 1.0)):
        move(ex, "black", black)
        r = move(ex, "cat", cat)
        X = TR.X_dec.copy()
        X[2, 1:3] = black, cat
        assert np.allclose(r["cross_weights"], decoder_step_by_hand(X)[1])
        assert enc[int(np.argmax(r["cross_weights"][2]))] == "cat", (black, cat)
    assert r["cross_weights"][2, 2] > 0.5                             # most of its weight
    # why cat wins at 0.5 and 0.5: without what noir's self-attention read (the residual alone, Z = X),
    # its query would score black and cat the same
    q = np.array([0.0, 0.5, 0.5, 0.0, 0.0]) @ TR.cross_W_q
    scores = (TR.X_enc @ TR.cross_W_k) @ q
    assert scores[1] == scores[2]


def test_04_rows_sum_to_one_columns_do_not():
    """Guide, misconception 'Cross-attention rows and columns both sum to 1': 'The rows sum to 1, the
    columns to 1.06, 0.85, …, and <pad> to 0', printed beside the sliders."""
    ex = explorer("04 cross_explorer (")
    W = decoder_step_by_hand(TR.X_dec)[1]
    assert np.allclose(ex.result["cross_weights"], W)
    assert np.allclose(W.sum(axis=1), 1.0)
    assert np.allclose(W.sum(axis=0)[[0, 1, 5]], [1.06, 0.85, 0.0], atol=0.005)
    assert "the 1.06  black 0.85" in ex.summary() and "<pad> 0.00" in ex.summary()

# --- lesson 05 ---------------------------------------------------------------------------------------
# The explorer of section 5 (cell s5, and the cells w05-swap-why / w05-swap-why-md after it), and the
# guide's lesson-05 rows. Expectations are written here with NumPy alone: sinusoids and RoPE (as complex
# numbers) from their formulas, base 10, d = 4, on the lesson's cats, chase, mice.

PERM = [2, 1, 0]                                  # what swap does to the places 0, 1, 2


def maps_05(words=("cats", "chase", "mice"), shift=0, strength=1.0):
    """The explorer's three maps for a word order, with NumPy alone: none, added, RoPE."""
    ex = al.cats_chase_mice()
    rows = dict(zip(ex.tokens, ex.X))
    Xo = np.array([rows[w] for w in words])       # (3, 4)
    angles = np.outer(shift + np.arange(3), [1.0, 10.0 ** -0.5])                 # (3, 2) p * w_i
    P = np.column_stack([np.sin(angles[:, 0]), np.cos(angles[:, 0]),
                         np.sin(angles[:, 1]), np.cos(angles[:, 1])])            # (3, 4)

    def weights(S):
        E = np.exp(S / 2.0)                       # ÷ √d_k = 2
        return E / E.sum(axis=1, keepdims=True)

    def turned(M):                                # pairs (0, 1), (2, 3) as complex numbers, turned
        return (M[:, 0::2] + 1j * M[:, 1::2]) * np.exp(1j * angles)

    Q, K = Xo @ ex.W_q, Xo @ ex.W_k
    Xa = Xo + strength * P
    rope = (turned(Q) @ turned(K).conj().T).real  # Re(sum z_q conj(z_k)) is the dot product
    return {"none": weights(Q @ K.T), "added": weights((Xa @ ex.W_q) @ (Xa @ ex.W_k).T),
            "rope": weights(rope)}


def test_05_swap_without_positions_rows_trade_places_chase_keeps_its_weights():
    """Cell s5 ('press swap: without positions, rows 0 and 2 only trade places, each word keeping its own
    weights, chase stays at 0.42, 0.16, 0.42'); the guide: 45-minute plan and the misconception row
    'Attention knows the order of the words'."""
    ex = explorer("05 position_explorer (")
    start = move(ex, "shift", 0)
    swapped = move(ex, "swap", True)
    assert np.allclose(swapped["none"], start["none"][PERM][:, PERM], atol=1e-12)   # trade places only
    by_hand = np.array([np.e, 1.0, np.e]) / (2 * np.e + 1)     # chase's scores 1, 0, 1 (2 and 0, ÷ 2)
    assert np.allclose(start["none"][1], by_hand) and np.allclose(swapped["none"][1], by_hand)
    assert np.round(by_hand, 2).tolist() == [0.42, 0.16, 0.42]
    assert np.allclose(swapped["none"], maps_05(("mice", "chase", "cats"))["none"])


def test_05_swap_with_added_sinusoids_chase_stays_cats_and_mice_change():
    """Cell s5: 'With added sinusoids, chase's row stays too (0.19, 0.06, 0.74), but the rows of cats and
    mice change'; the guide's 90-minute plan ('after swap, ... not its row with added sinusoids')."""
    ex = explorer("05 position_explorer (")
    start = move(ex, "shift", 0)
    swapped = move(ex, "swap", True)
    assert np.allclose(start["added"], maps_05()["added"])
    assert np.allclose(swapped["added"], maps_05(("mice", "chase", "cats"))["added"])
    assert np.allclose(swapped["added"][1], start["added"][1])
    assert np.round(start["added"][1], 2).tolist() == [0.19, 0.06, 0.74]
    traded = start["added"][PERM][:, PERM]                      # what trading places alone would give
    for row in (0, 2):
        assert np.abs(swapped["added"][row] - traded[row]).max() > 0.05


def test_05_swap_changes_chase_rope_row_only_through_small():
    """Cells s5 and w05-swap-why-md: with RoPE, swap moves chase's row from 0.47, 0.18, 0.35 to
    0.50, 0.14, 0.36, and all of the change comes from mice's 'small' feature (its part of the score is
    -0.31 after chase and +0.31 before it; the 'animal' part is 0.95 on both sides); the guide's 90-minute
    plan ('After swap, why does chase's RoPE row change?')."""
    ex = explorer("05 position_explorer (")
    start = move(ex, "shift", 0)
    swapped = move(ex, "swap", True)
    w1 = 10.0 ** -0.5                                           # pair (animal, small) turns by w1 per place
    animal, small = np.cos(w1), np.sin(w1)                      # chase's query (0, 0, 2, 0), ÷ 2
    assert round(animal, 2) == 0.95 and round(small, 2) == 0.31
    for got, scores in ((start, [animal, 0, animal - small]), (swapped, [animal + small, 0, animal])):
        e = np.exp(scores)
        assert np.allclose(got["rope"][1], e / e.sum())
    assert np.round(start["rope"][1], 2).tolist() == [0.47, 0.18, 0.35]
    assert np.round(swapped["rope"][1], 2).tolist() == [0.50, 0.14, 0.36]
    # the same explorer, with mice's 'small' feature taken away: swap now changes nothing at all
    ex0 = al.cats_chase_mice()
    X_no_small = ex0.X[[0, 1, 3]].copy()
    X_no_small[2, 3] = 0.0
    plain = al.position_explorer(X_no_small, ex0.W_q, ex0.W_k, ex0.W_v, ["cats", "chase", "mice"])
    before = move(plain, "shift", 0)
    after = move(plain, "swap", True)
    for key in ("none", "added", "rope"):
        assert np.allclose(after[key], before[key], atol=1e-12)


def test_05_shift_leaves_rope_and_moves_the_added_sinusoids():
    """Cell s5 ('move shift: the RoPE map does not change; the middle map does'); the guide's 90-minute
    plan ('Why does the RoPE map not move when every position shifts?' - only offsets count)."""
    ex = explorer("05 position_explorer (")
    for swap in (False, True):
        ex.set(shift=0, swap=swap)
        start = move(ex, "strength", 1.0)
        for shift in range(1, int(ex.sliders["shift"].max) + 1):
            now = move(ex, "shift", shift)
            assert np.allclose(now["rope"], start["rope"], atol=1e-12), shift
            assert np.abs(now["added"] - start["added"]).max() > 0.01, shift
            assert np.array_equal(now["none"], start["none"])
    ex.set(shift=0, swap=False)
    words = ("cats", "chase", "mice")
    at_17 = move(ex, "shift", 17)
    assert np.allclose(at_17["added"], maps_05(words, shift=17)["added"])
    assert np.allclose(at_17["rope"], maps_05(words, shift=17)["rope"])
    assert np.allclose(maps_05(words, shift=17)["rope"], maps_05(words)["rope"])   # by hand too


def test_05_strength_zero_makes_the_middle_map_the_first():
    """Cell s5: 'set strength (of the added sinusoids) to 0: the middle map becomes the first.'"""
    ex = explorer("05 position_explorer (")
    start = move(ex, "strength", 1.0)
    assert np.abs(start["added"] - start["none"]).max() > 0.1
    for shift, swap in ((0, False), (9, False), (9, True)):
        ex.set(shift=shift, swap=swap, strength=1.0)
        got = move(ex, "strength", 0.0)
        assert np.allclose(got["added"], got["none"], atol=1e-12)
        assert np.allclose(got["none"], maps_05(("mice", "chase", "cats") if swap else
                                                ("cats", "chase", "mice"))["none"])

# --- lesson 06 ---------------------------------------------------------------------------------------
# The 06 explorer has one slider, "step". Its sentences (cells s6 / w06-s6-read, the Summary, and the
# guide's "A second session" and misconception rows) are checked below at the steps they name, against
# weights trained apart from the explorer: al.train(cfg, steps=t) ends where the lesson's run is at step t.
L06_CFG = al.ModelConfig()
L06_IDS, L06_TARGETS = al.task_batch(np.random.default_rng(6), 500, L06_CFG)
MIRROR = np.arange(8)[::-1]


def shown_scores(ex) -> np.ndarray:
    """The position scores as the student reads them: the numbers printed in the explorer's middle panel."""
    texts = ex.axes["positions"].texts
    return np.array([float(t.get_text()) for t in texts]).reshape(8, 8)


def test_06_step_0_the_random_start_and_a_tie():
    """w06-s6-read: "at step 0 the mirror place gets from 0.00 to 0.56, and every digit is equally likely"."""
    ex = explorer("06 training_explorer")
    r = move(ex, "step", 0)
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.00" and f"{mirror.max():.2f}" == "0.56"
    assert "every digit equally likely" in ex.summary()
    assert np.isfinite(r["loss"]).sum() == 1                    # the loss panel is not empty at step 0
    loss0 = al.loss_of(al.init_params(L06_CFG, 0), L06_IDS, L06_TARGETS, L06_CFG)
    assert np.isclose(loss0, np.log(10))                        # independently: probability 1/10 each


def test_06_step_10_scores_lead_the_attention():
    """w06-s6-read and the Summary: "by step 10 every row [of the position scores, as printed] has its
    largest score on the mirror place; the attention follows only in part: 0.01 to 0.91; 0.40 right"."""
    ex = explorer("06 training_explorer")
    move(ex, "step", 8)
    assert (shown_scores(ex).argmax(axis=1) != MIRROR).any()    # "there first" at 10: not yet at step 8
    r = move(ex, "step", 10)
    scores = shown_scores(ex)                                   # (8, 8) rounded as printed
    assert np.allclose(scores, r["positions"], atol=0.051)
    top = scores.max(axis=1, keepdims=True)
    assert (scores.argmax(axis=1) == MIRROR).all() and ((scores == top).sum(axis=1) == 1).all()   # no ties
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.01" and f"{mirror.max():.2f}" == "0.91"
    assert (r["weights"].argmax(axis=1) != MIRROR).any()        # the attention does not follow everywhere
    params10 = al.train(L06_CFG, steps=10, seed=0).params
    accuracy = al.accuracy(params10, L06_IDS, L06_TARGETS, L06_CFG)
    assert f"{accuracy:.2f}" == "0.40" and np.isclose(r["accuracy"], accuracy)


def test_06_step_22_this_sequence_and_step_30_everything():
    """w06-s6-read: "by step 22 every digit of this sequence is predicted right, and by step 30 the
    held-out accuracy is 1.00"; the Summary: "the attention and the predictions follow (step 30)"."""
    ex = explorer("06 training_explorer")
    move(ex, "step", 20)
    assert ex.result["said"].split() != [str(t) for t in L06_TARGETS[0]]
    move(ex, "step", 22)
    assert ex.result["said"].split() == [str(t) for t in L06_TARGETS[0]]
    guess = al.predict(al.train(L06_CFG, steps=22, seed=0).params, L06_IDS[:1], L06_CFG)[0]
    assert (guess[0] == L06_TARGETS[0]).all()
    r = move(ex, "step", 28)
    assert f"{r['accuracy']:.2f}" != "1.00"
    r = move(ex, "step", 30)
    assert f"{r['accuracy']:.2f}" == "1.00"
    assert (r["weights"].argmax(axis=1) == MIRROR).all()
    params30 = al.train(L06_CFG, steps=30, seed=0).params
    assert f"{al.accuracy(params30, L06_IDS, L06_TARGETS, L06_CFG):.2f}" == "1.00"


def test_06_guide_drag_from_step_0_to_40():
    """Guide, misconception row "Someone designs W_q and W_k": dragging from step 0 to 40, the
    anti-diagonal appears in the position scores by step 10 and the held-out accuracy is 1.00 by step 30,
    and stays there."""
    ex = explorer("06 training_explorer")
    first_scores = first_right = None
    for step in [t for t in ex.controls[0].options if t <= 40]:
        r = move(ex, "step", step)
        if first_scores is None and (shown_scores(ex).argmax(axis=1) == MIRROR).all():
            first_scores = step
        if first_right is None and f"{r['accuracy']:.2f}" == "1.00":
            first_right = step
    assert first_scores == 10 and first_right == 30
    assert f"{r['accuracy']:.2f}" == "1.00"                     # at step 40


# --- lesson 07 ---------------------------------------------------------------------------------------

def lesson_07_printed_phase_change():
    """The phase change range lesson 07 prints in section 4 (its stored output), as (low, high)."""
    import json
    import re
    path = Path(__file__).resolve().parents[1] / "notebooks" / "07-attention-learns-to-look-things-up.ipynb"
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            found = re.search(r"falls between steps (\d+) and (\d+)", "".join(out.get("text", "")))
            if found:
                return int(found[1]), int(found[2])
    raise AssertionError("lesson 07 prints no phase-change range")


def test_07_cell_19_the_two_heads_form_together():
    """07 section 7: layer 1's number is its weight on the previous token at places 1-10 and layer 2's its
    weight on the token after the earlier copy, each beside its even-spread value. Before the printed
    phase change both stay below one half; during it each passes one half within a hundred steps of the
    other (in the lesson's run both at step 320); after it both stay above 0.6 (above 0.8 in the lesson's
    run). The teaching guide's third session asks "Which head appears first?" and answers from the same
    two numbers (on the slider, neither; both at step 320)."""
    ex = explorer("07 induction_explorer")
    words = ex.summary().splitlines()[1].split()[1:]                 # the probe, as printed
    n = len(words)
    keys = np.arange(1, 11)                                          # places 1-10, where a first copy lies
    # the keys an induction head should read, found here from the printed probe
    pairs = [(q, j + 1) for q in range(n) for j in range(q - 1) if words[j] == words[q]]
    assert pairs, "the probe must repeat a segment"
    q, k = np.array(pairs).T
    even1 = sum(1 / (p + 1) for p in range(1, 11)) / 10               # a causal head spread evenly
    even2 = sum(1 / (p + 1) for p in q) / len(q)
    seen = {}
    for _, step in ex.sliders["step"].options:                       # every kept step, as (label, value)
        r = move(ex, "step", step)
        seen[step] = (r["layer1"][keys, keys - 1].mean(), r["layer2"][q, k].mean())
        text = ex.summary()
        assert f"{seen[step][0]:.2f}   (spread evenly: {even1:.2f})" in text
        assert f"{seen[step][1]:.2f}   (spread evenly: {even2:.2f})" in text
    low, high = lesson_07_printed_phase_change()
    before = [v for s, v in seen.items() if s <= low]
    after = [v for s, v in seen.items() if s >= high]
    assert before and after
    assert all(v < 0.5 for pair in before for v in pair)
    assert all(v > 0.8 for pair in after for v in pair)              # so above 0.6 too
    passes = [min(s for s, v in seen.items() if v[h] >= 0.5) for h in (0, 1)]
    assert passes == [320, 320]                                      # "both at step 320"
    assert abs(passes[0] - passes[1]) <= 100


# --- lesson 08 ---------------------------------------------------------------------------------------
# Cell r08-s4's "Things to try", on the lesson's sentence, through rm.head_explorer's two sliders.

def head_view():
    """Lesson 08's explorer, built as cell r08-explorer builds it (skipped if the model cannot be had)."""
    import pytest

    from attention_lab import real_model as rm
    if "model" not in _LESSON08 and "missing" not in _LESSON08:
        try:
            _LESSON08["model"] = rm.load_model()
        except rm.ModelUnavailable as exc:      # tried once per session
            _LESSON08["missing"] = f"the SmolLM2 file could not be fetched: {str(exc).splitlines()[0]}"
    if "missing" in _LESSON08:
        pytest.skip(_LESSON08["missing"])
    model = _LESSON08["model"]
    ids = rm.encode(model, "My cat sat on the mat. My cat sat on the mat.")
    tokens = rm.token_strings(model, ids)
    return rm.head_explorer(rm.attention_weights(model, ids), tokens), tokens


_LESSON08: dict = {}


def test_08_layer_16_head_0_reads_the_token_before():
    ex, tokens = head_view()
    move(ex, "layer", 16)
    w = move(ex, "head", 0)["weights"]
    n = len(tokens)
    before = sum(int(w[i].argmax()) == i - 1 for i in range(1, n))
    assert before >= n - 2, f"only {before} of {n - 1} rows have their darkest cell just left of the diagonal"


def test_08_layer_18_head_6_reads_what_followed_the_first_copy():
    ex, tokens = head_view()
    move(ex, "layer", 18)
    w = move(ex, "head", 6)["weights"]
    period = tokens.index("_My")                      # the second sentence starts here (7 tokens later)
    for word in ("_sat", "_on", "_the", "_mat"):
        i = len(tokens) - 1 - tokens[::-1].index(word)  # the word in the second sentence
        first = tokens.index(word)                       # its first appearance
        assert i - first == period and tokens[int(w[i].argmax())] == tokens[first + 1], word
    assert tokens[int(w[tokens.index("_sat", 3)].argmax())] == "_on"       # the second sat reads the first on


def test_08_layer_18_head_8_is_an_attention_sink():
    ex, _ = head_view()
    move(ex, "layer", 18)
    w = move(ex, "head", 8)["weights"]
    assert (w[:, 0] >= 0.9).all(), w[:, 0]
    assert "weight on the first token: 1.00" in ex.summary()


# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------

def test_guide_first_question_tau_on_the_00_explorer():
    """Guide, 90-minute plan, 0–10 (00 §2, τ from 1 to 0.1, then 3): at τ = 0.1 chase still splits its
    weight in half between cats and mice, and the cats row does not move at all."""
    ex = explorer("02 matrix_explorer, weights only")
    cats_start = move(ex, "tau", 1.0)["weights"][CATS]
    for tau in (0.1, 3.0):
        w = move(ex, "tau", tau)["weights"]
        assert np.allclose(w[CATS], cats_start) and np.allclose(w[CATS], 0.25)
        assert np.isclose(w[CHASE, CATS], w[CHASE, MICE])
    assert np.isclose(move(ex, "tau", 0.1)["weights"][CHASE, CATS], 0.5, atol=1e-4)


def test_guide_misconception_weights_are_not_symmetric():
    """Guide, misconception "Attention weights are symmetric": in the 02 explorer chase → cats is 0.37,
    but cats → chase is 0.25."""
    w = move(explorer("02 matrix_explorer ("), "tau", 1.0)["weights"]
    assert np.allclose(w, hand_weights(1.0), atol=1e-12)
    assert round(float(w[CHASE, CATS]), 2) == 0.37 and round(float(w[CATS, CHASE]), 2) == 0.25


def test_guide_08_heads_that_share_keys_differ():
    """Guide, 'Lesson 08', misconceptions: heads 0, 1 and 2 share a key/value head, yet differ."""
    ex, _ = head_view()
    for layer in (0, 16, 29):
        move(ex, "layer", layer)
        w = [move(ex, "head", h)["weights"] for h in (0, 1, 2)]
        assert min(np.abs(w[0] - w[1]).max(), np.abs(w[1] - w[2]).max(), np.abs(w[0] - w[2]).max()) > 0.05


def test_guide_08_layer_18_head_8_parks_its_weight_on_the_first_token():
    """Guide, 'Lesson 08', misconceptions: the attention sink."""
    ex, _ = head_view()
    move(ex, "layer", 18)
    assert move(ex, "head", 8)["sink"] > 0.95
