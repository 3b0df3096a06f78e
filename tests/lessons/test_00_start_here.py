"""Lesson 00's claims (00-start-here): its flow picture and its sentence about the cat, checked as worded
(round three of the review of lessons 00-03), and its τ slider and Reset button moved as a student moves
them, with the teaching guide's first question on that explorer.

Every expected value is computed here by hand with plain NumPy, never taken from the exercise modules.
Slider claims are driven through the explorer's own sliders (tools/explorer_registry.py builds it as the
lesson does); each test names the cell or guide section whose sentence it checks. Shared helpers:
tests/lesson_helpers.py.
"""

import re
from pathlib import Path

import numpy as np
from lesson_helpers import (
    CATS,
    CCM,
    CHASE,
    I4,
    MICE,
    SMALL,
    explorer,
    hand_weights,
    move,
    prose,
    sm,
    spread_from_quarter,
)

import attention_lab as al

# ---------- round three of the review of 00-03 ----------------------------------------------------------

def test_r3_00_flow_picture_names_the_query_and_key_columns():
    """Defect 5: W_k = I, so K's columns are the features, and Q's column c asks 'feature c?'."""
    import matplotlib
    matplotlib.use("Agg")
    ex = al.it_was_tired()
    assert np.array_equal(ex.W_k, I4) and np.array_equal(ex.W_v, I4)
    fig = al.plot_flow(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    ticks = {ax.get_title(): [t.get_text() for t in ax.get_xticklabels()] for ax in fig.axes}
    assert ticks["K = X W_k"] == list(ex.features) and ticks["V = X W_v"] == list(ex.features)
    assert ticks["Q = X W_q"] == [f"{f}?" for f in ex.features]
    other = al.plot_flow(ex.X, ex.W_q, 2 * I4, I4[:, :3], ex.tokens, ex.features)   # no feature is kept
    ticks = {ax.get_title(): [t.get_text() for t in ax.get_xticklabels()] for ax in other.axes}
    assert ticks["Q = X W_q"] == ticks["K = X W_k"] == ["0", "1", "2", "3"]
    assert ticks["V = X W_v"] == ["0", "1", "2"]


def test_r3_00_cat_is_five_words_back_and_four_tokens():
    """Defect 6: counted in the printed sentence and in the example's tokens."""
    text = prose("00", "why-attention")
    words = re.search(r"\*(The cat crossed[^*]*)\*", text).group(1).strip(".").lower().split()
    tokens = al.it_was_tired().tokens
    assert words.index("it") - words.index("cat") == 5 and tokens.index("it") - tokens.index("cat") == 4
    assert "five words back (four in the example below" in text and "animal, four words" not in text


# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)

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



# ---------- review round 5, 00-A: the residual keeps what attention's output loses -------------------------

def test_00_it_keeps_pronoun_through_the_residual_and_the_lesson_says_so():
    """y_it alone has lost 'pronoun' (0.017, by hand below); x_it + y_it keeps it and gains 'animal'. The
    lesson prints that sum and names the residual connection (lesson 04), so no student leaves lesson 00
    thinking attention replaces a word by a blend."""
    import json

    ex = al.it_was_tired()
    d_k = ex.W_k.shape[1]
    A = sm((ex.X @ ex.W_q) @ (ex.X @ ex.W_k).T / np.sqrt(d_k))       # by hand
    it = ex.tokens.index("it")
    y_it = A[it] @ (ex.X @ ex.W_v)
    assert y_it[2] < 0.05 and ex.X[it, 2] == 1                          # the blend alone loses 'pronoun'
    kept = ex.X[it] + y_it
    assert kept[2] > 1 and kept[0] > 0.85                               # the residual keeps it
    text = prose("00", "why-attention")
    assert "residual connection" in text and "lesson 04" in text and "keeps 'pronoun'" in text
    (path,) = (Path(__file__).resolve().parents[2] / "notebooks").glob("00-*.ipynb")
    (cell,) = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
               if c.get("id") == "why-attention-code"]
    printed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    line = re.search(r"x_it \+ y_it\s*:\s*\[([^\]]*)\]", printed)
    assert line, printed
    assert np.allclose([float(v) for v in line.group(1).split()], kept, atol=5e-4)


# ---------- review round 6, 00-A: JupyterLab autosaves, so Reload alone rarely undoes edits ----------------

def test_r6_00_undo_says_jupyterlab_autosaves_every_two_minutes():
    """JupyterLab autosaves every 120 s unless the binder settings turn it off (they do not), so 'if you have
    not saved, reload' is rarely the student's case: the lesson says so and offers the three ways back."""
    import json

    root = Path(__file__).resolve().parents[2]
    overrides = json.loads((root / "binder" / "lab-settings" / "overrides.json").read_text(encoding="utf-8"))
    docmanager = overrides.get("@jupyterlab/docmanager-extension:plugin", {})
    assert docmanager.get("autosave", True) and docmanager.get("autosaveInterval", 120) == 120
    text = prose("00", "s5")
    assert "if you have not saved" not in text
    assert "saves your edits automatically every two minutes" in text
    assert "only undoes the last" in text
    assert "Binder" in text and "JupyterHub" in text and "git checkout" in text


# ---------- review round 11 of lessons 00-03 ---------------------------------------------------------------

def test_00_2_hints_advertise_no_helper_that_does_the_step():
    """00-A: the reshape slip's hint said 'weight.T (or al.from_torch_linear)': a call that does the
    exercise."""
    from lesson_helpers import status
    for wrong in ([[1, 2], [3, 4], [5, 6]], [[1, 2, 3], [4, 5, 6]], [[3, 6], [2, 5], [1, 4]]):
        result = status("00.2", wrong)
        assert result.status == "mistake" and "al." not in result.message, result.message


def test_00_notation_names_its_sources():
    """00-B: the notation table and the residual connection name the papers they come from."""
    text = prose("00", "s3")
    assert "Vaswani et al. 2017" in text and "*Attention Is All You Need*" in text and "lesson 02" in text
    assert "He et al. 2016" in text and "lesson 04" in text
