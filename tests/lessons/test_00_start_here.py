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
    lesson_cells,
    move,
    prose,
    sm,
    spread_from_quarter,
    stored_output,
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


# ---------- review round 20 of lessons 00-01 ---------------------------------------------------------------

def test_00_nn_linear_has_a_bias_and_gpt2s_conv1d_needs_no_transpose():
    """00-1: nn.Linear computes x @ weight.T + bias (bias=True by default); our W_q has none, nor has lesson
    08's model (its table: 'none anywhere'); Hugging Face's GPT-2 Conv1D stores (in, out), our layout."""
    text = prose("00", "s3b")
    assert "`x @ weight.T + bias`" in text and "bias=False" in text
    assert "have no bias (nor has lesson 08's model)" in text
    assert "`Conv1D`" in text and "$(d_{in}, d_{out})$" in text and "`x @ weight + bias`" in text
    assert "needs no transpose" in text
    # round 22, 00-A: GPT-2's c_attn is one Conv1D of width 3·d (W_q, W_k, W_v side by side), split by columns
    assert ("`c_attn` holds $W_q$, $W_k$ and $W_v$ side by side in that one weight: split its columns in "
            "three") in " ".join(text.split())
    table = [line for line in lesson_cells("08")["r08-s2"].splitlines() if line.startswith("| biases |")]
    assert len(table) == 1 and table[0].rstrip(" |").endswith("none anywhere"), table


def test_00_tau_half_shows_lesson_01s_unscaled_weights_for_chase():
    """00-2 (cell 's1-note'): at τ = 1 the explorer divides the scores by √d_k = 2 (its printed scale
    0.5000); lesson 01 does not divide (scale 1), and τ = 0.5 reproduces its chase row: scores [2 0 0 2] by
    hand, weights e²/(2e² + 2) and 1/(2e² + 2), as lesson 01 prints them (0.4404, 0.0596)."""
    text = prose("00", "s1-note")
    assert "at τ = 1 the scores are divided by $\\sqrt{d_k} = 2$" in text
    assert "Lesson 01 leaves that division out: it computes at scale 1, which is τ = 0.5 here" in text
    assert "this picture shows at τ = 0.5, not the ones above" in text
    ex = explorer("02 matrix_explorer, weights only")
    move(ex, "tau", 0.5)
    assert "scale = 1/(τ·√d_k) = 1.0000" in ex.summary()                          # at τ = 0.5
    assert CCM.W_k.shape[1] == 4                                                   # √d_k = 2
    assert "scale = 1/(τ·√d_k) = 0.5000" in stored_output("00", "s1-static")      # at τ = 1
    scores = (CCM.X[CHASE] @ CCM.W_q) @ (CCM.X @ CCM.W_k).T
    assert np.array_equal(scores, [2, 0, 0, 2])
    e2 = np.exp(2.0)
    unscaled = np.array([e2, 1, 1, e2]) / (2 * e2 + 2)
    assert not np.allclose(move(ex, "tau", 1.0)["weights"][CHASE], unscaled, atol=1e-3)
    assert np.allclose(move(ex, "tau", 0.5)["weights"][CHASE], unscaled, atol=1e-12)
    printed = re.search(r"weights: \[([^\]]*)\]", stored_output("01", "s7-code")).group(1)
    assert np.allclose([float(v) for v in printed.split()], unscaled, atol=5e-5)


def test_00_flow_figure_writes_its_numbers_and_its_scores_red_is_in_the_key():
    """00-3: each panel of section 1's picture but the weights (fixed 0-1 scale) has its own colour scale,
    so its non-zero numbers are written on it: Q's single 8 (by hand: x_it asks 'animal?' with weight 8),
    and the score 8 · 1 / √4 = 4 of it → cat. The scores are drawn in red, and the key shows that red."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.colors import to_hex
    ex = al.it_was_tired()
    it, cat = ex.tokens.index("it"), ex.tokens.index("cat")
    fig = al.plot_flow(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    panels = {ax.get_title(): ax for ax in fig.axes}

    def written(title):
        return {(round(t.get_position()[1] - 0.5), round(t.get_position()[0] - 0.5)): t.get_text()
                for t in panels[title].texts}

    Q = ex.X @ ex.W_q
    assert written("Q = X W_q") == {(r, c): f"{Q[r, c]:g}" for r, c in zip(*np.nonzero(Q))} == {(it, 0): "8"}
    assert written("scores Q Kᵀ·scale") == {(it, cat): "4"}
    assert written("X (tokens)") == {(r, c): "1" for r, c in zip(*np.nonzero(ex.X))}
    assert written("weights = softmax") == {}
    mesh = panels["scores Q Kᵀ·scale"].collections[0]
    red = to_hex(mesh.cmap(mesh.norm(4.0)))                       # the colour of the largest score's cell
    assert to_hex(panels["scores Q Kᵀ·scale"].title.get_color()) == red
    legend = al.role_legend()
    swatches = {ax.get_title(): to_hex(ax.patches[0].get_facecolor()) for ax in legend.axes if ax.patches}
    assert swatches["scores S"] == red
    assert "scores in red" in prose("00", "s3") and "scores red" in prose("00", "summary")
    assert "section 1's picture writes their numbers on them" in prose("00", "s3")


def test_00_mask_convention_warns_of_pytorchs_opposite():
    """00-4: torch.nn.MultiheadAttention's boolean masks mean True = masked, the opposite of ours; the start
    page says so and points to lesson 04, which explains it."""
    text = prose("00", "s3")
    assert "**`True` where a query may attend to a key**" in text
    assert "`torch.nn.MultiheadAttention` reads a boolean mask the other way round (`True` = masked): " \
           "lesson 04" in text
    assert "`torch.nn.MultiheadAttention` uses the **opposite** convention" in prose("04", "s1")


SOURCES = {"000": ("a TensorFlow walkthrough notebook", ["01"]),
           "001": ("a short NumPy notebook", ["02"]),
           "002": ("Denis Rothman's chapter-2 notebook", ["03"]),
           "003": ("StatQuest's (Josh Starmer)", ["02"]),
           "004": ("gnoejh/ict1022, `Transformer/5_attention_equations.ipynb`", ["03", "04"])}


def test_00_names_the_five_sources_as_the_lessons_do():
    """00-5: the start page names the five sources, each as the lesson that introduces it does, with the
    lessons that work its examples (each mentions it by number), and appendix 10 goes through all five."""
    text = prose("00", "s2-note")
    later = " ".join(" ".join(" ".join(lesson_cells(f"{n:02d}").values()) for n in range(1, 11)).split())
    for number, (name, lessons) in SOURCES.items():
        bullet = re.search(rf"- `{number}`, (.*?)\((lessons? [^)]*)\)[;.]", text)
        assert bullet and name in bullet.group(1), number
        assert re.findall(r"\d\d", bullet.group(2)) == lessons, (number, bullet.group(2))
        assert name in later, name                                   # named as a later lesson names it
        for lesson in lessons:
            said = " ".join(lesson_cells(lesson).values())
            assert re.search(rf"[Ss]ources? `?{number}", said), (number, lesson)
    assert len(re.findall(r"- `00\d`", text)) == 5
    assert "Appendix 10 goes through the slips of all five" in text
    assert "the five sources of this course" in prose("10", "title")


def test_00_attention_is_attributed_to_its_origin():
    """00-6: attention is older than the Transformer: Bahdanau et al. 2015 (learned soft alignment in
    translation) and Luong et al. 2015 (the dot-product score among others)."""
    text = prose("00", "s3")
    assert "Attention itself is older" in text and "translation models" in text
    assert "Bahdanau et al. 2015" in text and "Luong et al. 2015" in text and "the dot product" in text
