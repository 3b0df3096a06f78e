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

# --- lesson 04 ---------------------------------------------------------------------------------------

# --- lesson 05 ---------------------------------------------------------------------------------------

# --- lesson 06 ---------------------------------------------------------------------------------------

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
