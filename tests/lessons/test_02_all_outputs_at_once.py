"""Lesson 02's claims (02-all-outputs-at-once): the hints of 02.2, 02.3 and 02.4 and the lesson's words
(defects of the review of lessons 00-03, rounds two and three), the scaling experiment and the d_k
explorer on seeds 0 to 7, run with the lesson's own functions, and the matrix and d_k explorers' sliders
moved as a student moves them, each test naming the cell or guide row it checks.

Expected values are worked out here in plain NumPy or typed from the review, apart from the exercise
modules; lesson cells are read from notebooks/ (or $ATTENTION_LAB_NOTEBOOKS). Shared helpers:
tests/lesson_helpers.py.
"""

import numpy as np
import pytest
from lesson_helpers import (
    CATS,
    CCM,
    CHASE,
    MICE,
    SMALL,
    WQ24,
    X24,
    Y24,
    explorer,
    hand_softmax,
    hand_weights,
    move,
    prose,
    sm,
    spread_from_quarter,
    status,
)

import attention_lab as al

# ---------- 02.3's hints --------------------------------------------------------------------------------

def test_02_3_dividing_by_the_number_of_keys_or_queries_is_named():
    def make(width):
        def attention(Q, K, V):
            return sm(Q @ K.T / np.sqrt(width(Q, K))) @ V
        return attention
    keys = status("02.3", make(lambda Q, K: K.shape[0]))
    assert keys.mistake == "divided by √n" and "number of keys" in keys.message, keys.message
    queries = status("02.3", make(lambda Q, K: Q.shape[0]))
    assert queries.mistake == "divided by √m" and "number of queries" in queries.message
    assert status("02.3", make(lambda Q, K: K.shape[1])).status == "correct"


# ---------- random draws: lesson 02's claims on seeds 0 to 7 ---------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_02_scaling_experiment_holds_on_every_seed(seed):
    """02 §6: the spread is about √d_k unscaled and about 1 scaled; the cell's asserts; the table's
    largest unscaled weight grows at every d_k (the 'steady growth' of the explore text)."""
    table = al.scaling_experiment(n_keys=8, n_trials=2000, seed=seed)
    assert np.allclose(table["std_unscaled"], np.sqrt(table["d_k"]), rtol=0.05)
    assert np.allclose(table["std_scaled"], 1.0, atol=0.05)
    assert table["max_weight_unscaled"][-1] > 0.9 > 0.5 > table["max_weight_scaled"][-1]
    assert (np.diff(table["max_weight_unscaled"]) > 0).all()


@pytest.mark.parametrize("seed", range(8))
def test_02_dk_explorer_claims_hold_on_every_seed(seed):
    """02 §6 explore: scaled is flatter than unscaled at every d_k > 1; unscaled, one draw goes up and
    down; at d_k = 128 one key takes more than half (almost all with the lesson's seed 0)."""
    ex = al.dk_explorer(n_keys=8, max_dk=128, seed=seed)
    rng = np.random.default_rng(seed)                                  # the same draw, by hand
    q, K = rng.standard_normal(128), rng.standard_normal((8, 128))
    unscaled = []
    for d_k in range(1, 129):
        ex.sliders["d_k"].value = d_k
        w = ex.result["weights"]
        s = K[:, :d_k] @ q[:d_k]
        assert np.allclose(w, [sm(s), sm(s / np.sqrt(d_k))])
        if d_k > 1:
            assert w[1].max() < w[0].max()
        unscaled.append(w[0].max())
    assert (np.diff(unscaled) < 0).any() and (np.diff(unscaled) > 0).any()
    assert unscaled[-1] > 0.5
    if seed == 0:
        assert unscaled[-1] > 0.99


def test_02_dk_text_claims_only_what_every_seed_shows():
    """The old 'never much above one half' fails on other draws (seed 6 reaches 0.77): it is gone."""
    ex = al.dk_explorer(n_keys=8, max_dk=128, seed=6)
    peak = 0.0
    for d_k in range(1, 129):
        ex.sliders["d_k"].value = d_k
        peak = max(peak, ex.result["weights"][1].max())
    assert peak > 0.7
    text = prose("02", "s6-explore")
    assert "never gets much above one half" not in text and "seeds 0 to 7" in text


# ---------- cosmetic items in the lessons' words --------------------------------------------------------

def test_02_defines_m_and_names_the_scaling_difference():
    assert "$m$ for the number of queries" in prose("02", "s5-shapes")
    assert "0.7311" in prose("02", "summary") and "0.8808" in prose("02", "summary")
    assert "square example" not in prose("02", "ex-02-3")


# ---------- round three (/work/wt/reviews-round3/lessons-00-03.md) --------------------------------------

@pytest.mark.parametrize("q", [[0, 0, 0], [1, 1, 1], [5, 5, 5]])
def test_r3_02_2_a_flat_query_is_called_flat(q):
    """Defect 2: equal entries give weights 1/3 each (by hand): no 'looks for banana'."""
    assert np.allclose(sm(np.asarray(q, dtype=float)), 1 / 3)
    message = status("02.2", q).message
    assert "1/3" in message and "lesson's query" not in message, message


@pytest.mark.parametrize("q, lessons", [([-5, 0, -5], False), ([2, 3, 2], False), ([0.2, 1, 0.1], True),
                                        ([2, 10, 1], True)])
def test_r3_02_2_only_the_lessons_query_is_called_the_lessons_query(q, lessons):
    message = status("02.2", q).message
    assert "banana" in message and ("lesson's query" in message) == lessons, message


@pytest.mark.parametrize("decimals", [1, 2, 3])
def test_r3_02_4_weights_rounded_to_any_decimals_are_named(decimals):
    """Defect 4: solve(round(A, d), Y) gets 'you rounded the weights', for d = 1, 2 and 3."""
    A = np.round(sm(X24 @ WQ24 @ X24.T / np.sqrt(3)), decimals)
    message = status("02.4", np.linalg.solve(A, Y24)).message
    assert f"rounded the weights to {decimals} decimal" in message, message


def test_r3_02_scaling_flattens_every_draw_and_says_so():
    """Defect 7: dividing every score by c > 1 always lowers the largest weight; the text says so as a
    rule."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        s, c = rng.standard_normal(8) * rng.uniform(0.1, 30), rng.uniform(1.01, 12)
        assert sm(s / c).max() < sm(s).max()
    text = prose("02", "s6-explore")
    assert "every draw we tried" not in text and "always flattens a softmax" in text


# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)

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


# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------

def test_guide_misconception_weights_are_not_symmetric():
    """Guide, misconception "Attention weights are symmetric": in the 02 explorer chase → cats is 0.37,
    but cats → chase is 0.25."""
    w = move(explorer("02 matrix_explorer ("), "tau", 1.0)["weights"]
    assert np.allclose(w, hand_weights(1.0), atol=1e-12)
    assert round(float(w[CHASE, CATS]), 2) == 0.37 and round(float(w[CATS, CHASE]), 2) == 0.25

