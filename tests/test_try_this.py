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

# --- lesson 01 ---------------------------------------------------------------------------------------

# --- lesson 02 ---------------------------------------------------------------------------------------

# --- lesson 03 ---------------------------------------------------------------------------------------

# --- lesson 04 ---------------------------------------------------------------------------------------

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

# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------
