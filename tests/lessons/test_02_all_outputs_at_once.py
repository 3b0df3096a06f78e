"""Lesson 02's claims (02-all-outputs-at-once): the hints of 02.2, 02.3 and 02.4 and the lesson's words
(defects of the review of lessons 00-03, rounds two and three), the scaling experiment and the d_k
explorer on seeds 0 to 7, run with the lesson's own functions, and the matrix and d_k explorers' sliders
moved as a student moves them, each test naming the cell or guide row it checks.

Expected values are worked out here in plain NumPy or typed from the review, apart from the exercise
modules; lesson cells are read from notebooks/ (or $ATTENTION_LAB_NOTEBOOKS). Shared helpers:
tests/lesson_helpers.py.
"""

import re

import numpy as np
import pytest
from handed_out import check_as_handed_out
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
    lesson_cells,
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



# ---------- review round 5, lesson 02 (02-A to 02-E) -------------------------------------------------------

def test_02_memory_names_attention_that_never_stores_the_matrix():
    """02-A: n × n memory is the plain matrix form's price, not attention's. Exact attention block by block
    (a running maximum and sum per row, Rabe & Staats 2021; FlashAttention, Dao et al. 2022) gives the same
    Y: written here with key blocks of 3, never holding more than (n, 3) scores."""
    rng = np.random.default_rng(11)
    X, (Wq, Wk, Wv) = rng.standard_normal((10, 4)), rng.standard_normal((3, 4, 4))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    top, total, acc = np.full(10, -np.inf), np.zeros(10), np.zeros((10, 4))
    for j in range(0, 10, 3):
        S = Q @ K[j:j + 3].T / 2.0                                   # (n, 3) one block of scores
        new_top = np.maximum(top, S.max(axis=1))
        keep = np.exp(top - new_top)
        e = np.exp(S - new_top[:, None])
        total, acc, top = total * keep + e.sum(axis=1), acc * keep[:, None] + e @ V[j:j + 3], new_top
    assert np.allclose(acc / total[:, None], al.self_attention(X, Wq, Wk, Wv)[0])
    text = prose("02", "s8-memory")
    assert "FlashAttention, Dao et al. 2022" in text and "Rabe & Staats 2021" in text
    assert "never stored" in text and "the memory grows only with $n$" in text
    summary = prose("02", "summary")
    assert "but stores an $n \\times n$ matrix" not in summary and "FlashAttention" in summary


def test_02_the_loop_times_all_tokens_when_n_is_below_the_sample(monkeypatch):
    """02-B: time_forms times min(n, 16) tokens of the loop: at n = 4 all four (counted here), and the text
    says so."""
    import attention_lab.experiments as experiments

    calls = []
    real = experiments.attend_one
    monkeypatch.setattr(experiments, "attend_one", lambda i, *a, **k: calls.append(i) or real(i, *a, **k))
    experiments.time_forms(ns=(4,), d=4, sample=16, repeats=1, seed=0)
    assert calls == [0, 1, 2, 3]
    calls.clear()
    experiments.time_forms(ns=(40,), d=4, sample=16, repeats=1, seed=0)
    assert calls == list(range(16))
    assert "16 tokens are timed (all of them when $n < 16$)" in prose("02", "s8")


def test_02_animal_moves_only_chase_weights_but_every_output_row():
    """02-C: x₂[animal] = 2 changes only chase's row of weights, yet every output row (chase's value changes);
    by hand: the animal column of Y goes from [1.00 1.46 1.24 1.24] to [2.00 2.92 2.00 2.00]."""
    ex = explorer("02 matrix_explorer (")
    start = move(ex, "animal", 0.0)
    moved = move(ex, "animal", 2.0)
    X = CCM.X.copy()
    X[CHASE] = [0, 1, 2, 0]
    A = hand_weights(1.0, X[CHASE])
    assert np.allclose(moved["output"], A @ (X @ CCM.W_v))
    assert np.allclose((A @ (X @ CCM.W_v))[:, 2], [2.0, 2.92, 2.0, 2.0], atol=0.005)
    changed_weights = ~np.isclose(moved["weights"], start["weights"]).all(axis=1)
    changed_outputs = ~np.isclose(moved["output"], start["output"]).all(axis=1)
    assert changed_weights.tolist() == [False, True, False, False] and changed_outputs.all()
    text = prose("02", "s11")
    assert "changes only *chase*'s own row of **weights**" in text and "Every row of the output moves" in text


def assigned_names(source):
    """The names a cell binds in the notebook's namespace (assignments, for targets, defs; not the names
    inside a function)."""
    import ast

    names, todo = set(), list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


@pytest.mark.parametrize("lesson", ["00", "01", "02", "03", "04", "10"])
def test_exercise_cells_never_rebind_a_name_of_the_lesson(lesson):
    """02-D: exercise 02.4 set Y, so re-running section 5's check after it raised. No exercise cell of
    these lessons binds a name that a lesson cell before the exercises binds (answer_* are the student's)."""
    import json

    from lesson_helpers import NOTEBOOKS

    (path,) = NOTEBOOKS.glob(f"{lesson}-*.ipynb")
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    lesson_names, clashes = set(), {}
    for cell in cells:
        source = "".join(cell["source"])
        names = assigned_names(source)
        if cell["id"].startswith("ex"):
            clash = {n for n in names & lesson_names if not n.startswith("answer_")}
            if clash:
                clashes[cell["id"]] = sorted(clash)
        else:
            lesson_names |= names
    assert not clashes, clashes


def test_02_section_9_points_to_the_conventions_instead_of_repeating_them():
    """02-E: the transpose between conventions is explained in 00 §4 and 01 §11; section 9 points there and
    keeps only its new part, source 003's weights in PyTorch's layout (still computed three ways)."""
    text = prose("02", "s9")
    assert "Three ways" not in text and "Sources use three conventions" not in text
    assert "Lesson 00 (§4, *Reading other conventions*) and lesson 01 (§11)" in text
    assert "Reading other conventions" in prose("00", "s3b") and "column convention" in prose("01", "s10")
    assert "Source 003" in text and len(text) < 450


# ---------- the seed rule (issue 44 item 2) and held-out evidence (item 3) --------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_02_every_draw_takes_its_seed_from_draw_seed_and_the_prose_invites_changing_it():
    from lesson_helpers import lesson_cells

    cells = lesson_cells("02")
    code = cells
    setters = [cid for cid, src in code.items() if re.search(r"(?m)^DRAW_SEED = 0\b", src)]
    assert setters == ["s5-shapes-code"]
    for cid, src in code.items():                                        # no seed written in as a number
        assert not re.search(r"default_rng\(\d|seed=\d", src), cid
    assert "default_rng(DRAW_SEED)" in cells["s5-shapes-code"] and "seed=DRAW_SEED" in cells["s6-code"]
    assert "seed=DRAW_SEED" in cells["s6-explorer"] and "seed=DRAW_SEED" in cells["s8-code"]
    assert "you may change it" in prose("02", "s5-shapes")
    assert "assert" not in cells["s6-code"].split("print(\"with seed 0")[1].replace(
        "assert (table[\"max_weight_scaled\"] <= table[\"max_weight_unscaled\"] + 1e-12).all()", "")


def test_02_claims_about_a_draw_quote_the_held_out_sweep():
    """Each count the lesson quotes is the sweep's (docs/held-out/02.md, seeds 16-31); seed 58, the one the
    lesson names, really stays just below one half at d_k = 128 (by hand)."""
    from lesson_helpers import lesson_cells

    table = (ROOT / "docs" / "held-out" / "02.md").read_text(encoding="utf-8")
    for claim in ("spread", "peak-512", "one-draw-wanders", "half-at-128"):
        assert re.search(rf"\| {claim} \|[^\n]*\| 16 of 16 \| - \|", table), claim
    assert "held-out seeds 16-31" in table
    assert "16 of 16 further seeds" in prose("02", "s6-explore")
    assert "the same held on 16 of 16 further seeds (16-31)" in lesson_cells("02")["s6-code"]
    rng = np.random.default_rng(58)
    q, K = rng.standard_normal(128), rng.standard_normal((8, 128))
    assert 0.49 < sm(K @ q).max() < 0.5
    # the rate of seeds like 58 is counted in test_r6_02_c_the_seed_58_rate_is_counted_over_3000_seeds
    assert "with seed 58 the largest weight at $d_k = 128$ stays just below one half" in \
        prose("02", "s6-explore")


def test_02_runs_with_a_seed_where_a_claim_fails():
    """Issue 44 item 2: with DRAW_SEED = 58 (outside 0-7 and 16-31; at d_k = 128 no key takes half) the lesson
    runs through every seeded cell without an error, and prints this draw's comparison."""
    from lesson_helpers import run_lesson

    # the cells the draw feeds, and those they need
    nb = run_lesson("02", DRAW_SEED=58, cells=["imports", "s2-code", "s3-code", "s4-code", "s5-code",
                                               "s5-shapes-code", "s6-code", "s6-explorer", "s6-static",
                                               "s8-code"])
    (cell,) = [c for c in nb.cells if c.id == "s6-code"]
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert "on this draw (DRAW_SEED = 58)" in printed


# ---------- round 6: seeds a student may set (02-A, C5) ---------------------------------------------------

@pytest.mark.parametrize("lesson", ["00", "01", "02", "03", "04", "05", "06", "10"])
def test_r6_seed_invitations_say_from_0_up(lesson):
    """Round 6, 02-A and C5: np.random.default_rng refuses a negative seed, so wherever a lesson invites a
    student to change a seed (prose or a code comment), the same sentence says 'from 0 up'."""
    from lesson_helpers import lesson_cells

    with pytest.raises(ValueError):                                      # why "any whole number" is wrong
        np.random.default_rng(-1)
    invite = re.compile(r"any whole number|try any|any seed|change it")
    bad = []
    for cid, src in lesson_cells(lesson).items():
        if not re.search(r"[A-Z_]+SEED\b", src):
            continue
        for line in src.split("\n") if "# " in src and "SEED = 0" in src else [" ".join(src.split())]:
            for sentence in re.split(r"[.;:]\s", line):
                if invite.search(sentence) and "from 0 up" not in sentence:
                    bad.append((cid, sentence.strip()))
    assert not bad, bad


def test_r6_02_names_vaswani_for_the_form_its_name_and_the_variance_argument():
    """Round 6, 02-B: the form softmax(QKᵀ/√d_k)V and its name come from Vaswani et al. 2017 (§3.2.1); §6's
    variance argument is their footnote 4, and the gradient reason is their suspicion, tested in lesson 06."""
    s4 = prose("02", "s4")
    assert "Vaswani et al. 2017" in s4 and "*Attention Is All You Need*" in s4
    assert "scaled dot-product attention" in s4 and "3.2.1" in s4
    s6 = prose("02", "s6")
    assert "Vaswani et al." in s6 and "footnote 4" in s6
    assert "suspicion" in s6 and "lesson 06" in s6
    assert "fixed range" in s6 and "cosine similarity" in s6                # source 003 read in its context


def test_r6_02_c_the_seed_58_rate_is_counted_over_3000_seeds():
    """02-C: the 'at or below one half at d_k = 128' rate, counted here in plain NumPy on seeds 32-3031."""
    def largest(seed):
        rng = np.random.default_rng(seed)
        q, K = rng.standard_normal(128), rng.standard_normal((8, 128))
        return sm(K @ q).max()
    below = sum(largest(seed) <= 0.5 for seed in range(32, 3032))
    assert below == 64
    assert "(about 2 seeds in 100 do: 64 of seeds 32–3031)" in prose("02", "s6-explore")


def test_r6_02_d_draw_claims_are_worded_as_what_the_cell_prints():
    """02-D: the cell prints this draw, then seed 0's figures and how often they held; no 'so on'; the steady
    growth carries its held-out count."""
    from lesson_helpers import lesson_cells

    assert "compares this draw with seed 0's" not in prose("02", "s6")
    assert "then seed 0's figures, and on how many further seeds" in prose("02", "s6")
    code = lesson_cells("02")["s6-code"]
    assert "; so on 16" not in code and "the same held on 16 of 16 further seeds (16-31)" in code
    table = (ROOT / "docs" / "held-out" / "02.md").read_text(encoding="utf-8")
    assert re.search(r"\| steady-growth \|[^\n]*\| 16 of 16 \| - \|", table)
    explore = prose("02", "s6-explore")
    assert "shows the steady growth (with seed 0, and on 16 of 16 further seeds)" in explore


def test_r6_02_f_source_003_weights_come_from_its_course_code():
    """02-F: source 003 (the lesson notes) prints no weights; the course's public PyTorch code draws them."""
    text = prose("02", "s9")
    assert "Source `003` prints its query weights" not in text
    assert "public PyTorch code of source 003's course" in text


def test_r6_02_e_transposing_a_column_softmax_is_named():
    """02-E: A = softmax(S, axis=0).T, a half-fix of the orientation, raises on 2 queries and 4 keys; the
    student gets a hint naming it, not NumPy's matmul error."""
    def attention(Q, K, V):                                  # written here, apart from the mistake table
        S = Q @ K.T / np.sqrt(K.shape[1])
        E = np.exp(S - S.max(axis=0, keepdims=True))
        A = (E / E.sum(axis=0, keepdims=True)).T
        return A @ V

    result = status("02.3", attention)
    assert result.status != "correct" and "matmul" not in result.message, result.message
    assert "transpos" in result.message and "axis=-1" in result.message, result.message


# ---------- review round 7, lesson 02 (/work/notes/reviews/round7-lesson-02.md) -----------------------------
# Every wrong answer here is written out as a student writes it, apart from the mistake tables.

def attention_dividing_by(divisor):
    """A fixed 02.3 whose scale is divisor(Q, K, V) instead of √d_k."""
    def attention(Q, K, V):
        return sm(Q @ K.T / divisor(Q, K, V)) @ V
    return attention


def test_02_3_a_fixed_divisor_or_the_value_width_is_named():
    """Item 1: np.sqrt(d_k) with section 4's d_k = 4 still defined divides by a fixed 2; np.sqrt(V.shape[1])
    divides by √d_v. Each gets a hint naming it, not the generic message."""
    d_k = 4                                                    # section 4's variable, still defined
    fixed_two = status("02.3", attention_dividing_by(lambda Q, K, V: np.sqrt(d_k)))
    assert fixed_two.status == "mistake", fixed_two.message
    assert "fixed 2" in fixed_two.message and "K.shape[1]" in fixed_two.message, fixed_two.message
    by_dv = status("02.3", attention_dividing_by(lambda Q, K, V: np.sqrt(V.shape[1])))
    assert by_dv.status == "mistake" and "V.shape[1]" in by_dv.message, by_dv.message


def test_02_3_refuses_a_function_that_hard_codes_sqrt_3():
    """Item 2: every input of 02.3 had keys of width 3, so np.sqrt(3) passed. Another key width refuses it,
    with a hint that names the fixed √3; a right fix written here still passes."""
    hard = status("02.3", attention_dividing_by(lambda Q, K, V: np.sqrt(3)))
    assert hard.status != "correct", hard.message
    assert "fixed √3" in hard.message and "K.shape[1]" in hard.message, hard.message
    assert status("02.3", attention_dividing_by(lambda Q, K, V: np.sqrt(K.shape[1]))).status == "correct"
    assert status("02.3", attention_dividing_by(lambda Q, K, V: np.sqrt(Q.shape[1]))).status == "correct"
    assert "4 queries with 6 keys of width 5" in prose("02", "ex-02-3")


def test_02_4_section_4s_d_k_is_named():
    """Item 1: dividing 02.4's scores by √4 = 2 (section 4's d_k) gets a hint naming it."""
    result = status("02.4", np.linalg.solve(sm((X24 @ WQ24) @ X24.T / 2), Y24))
    assert result.status == "mistake", result.message
    assert "√4 = 2" in result.message and "√3" in result.message, result.message


@pytest.mark.parametrize("answer", [
    np.linalg.solve(sm(X24 @ (X24 @ WQ24).T / np.sqrt(3)), Y24),          # K Qᵀ (W_k = I: K = X)
    np.linalg.solve(sm((WQ24 @ X24.T).T @ X24.T / np.sqrt(3)), Y24),      # W_q on the left
    np.linalg.solve(sm(X24 @ WQ24.T @ X24.T / np.sqrt(3)), Y24),          # W_q.T
])
def test_02_4_swapped_queries_and_keys_are_named_with_the_transposed_w_q(answer):
    """Item 3: K Qᵀ = X W_qᵀ Xᵀ here, so the hint names both slips, not only W_q.T."""
    message = status("02.4", answer).message
    assert "K Qᵀ" in message and "W_q.T" in message, message


def test_02_4_a_transposed_also_names_building_a_transposed():
    """K Qᵀ with the softmax down its columns builds Aᵀ itself: solving with it gives the numbers of
    'solved Aᵀ V = Y', so that hint names both ways of getting Aᵀ."""
    built = sm(X24 @ (X24 @ WQ24).T / np.sqrt(3), axis=0)                  # K Qᵀ, columns
    message = status("02.4", np.linalg.solve(built, Y24)).message
    assert "solved Aᵀ V = Y" in message and "K Qᵀ" in message, message


def test_02_2_an_unnamed_wrong_query_is_refused_in_words():
    """Item 9: a query that matches no named mistake says 'not yet. Hint:' like every other refusal."""
    weights = sm(np.array([1.0, 0.0, 0.0]))
    assert abs(weights[0] - weights[2]) > 0.01                               # refused: apple ≠ cherry
    result = status("02.2", [1, 0, 0])
    assert result.status == "wrong" and result.message.startswith("Exercise 02.2: not yet. Hint: "), \
        result.message


def test_02_1_d_hint_says_the_scores_are_symmetric_but_a_is_not():
    """Item 7: with W_q = W_k the scores are symmetric, but the softmax normalises each row on its own, so A
    is not (by hand, here); the hint no longer mentions 'no softmax'."""
    X = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    W = np.array([[1.0, 0.5], [0.0, 1.0]])
    S = (X @ W) @ (X @ W).T
    assert np.allclose(S, S.T) and not np.allclose(sm(S), sm(S).T)
    message = status("02.1", "d").message
    assert "no softmax" not in message and "scores QKᵀ are symmetric" in message, message
    assert "normalises each row on its own" in message


def test_02_s10_np_dot_and_matmul_differ_on_scalars_and_stacks():
    """Item 6: np.dot takes a scalar, np.matmul refuses it; on 3-D stacks they give different shapes."""
    A = np.arange(4.0).reshape(2, 2)
    assert np.array_equal(np.dot(2, A), 2 * A)
    with pytest.raises(ValueError):
        np.matmul(2, A)
    stack = np.ones((3, 2, 2))
    assert np.dot(stack, stack).shape == (3, 2, 3, 2) and np.matmul(stack, stack).shape == (3, 2, 2)
    text = prose("02", "s10")
    assert "differ only for 3-D" not in text and "scalars" in text and "np.matmul refuses" in text


def test_02_summary_says_which_loop_does_more_work():
    """Item 8: the matrix form does less work than calling attend_one per token (which re-projects every
    key and value), not less than any loop."""
    summary = prose("02", "summary")
    assert "does less work and runs" not in summary
    assert "than calling `attend_one` per token" in summary and "re-projects every key and value" in summary


def test_02_s6_reports_the_spread_as_one_fact():
    """Item 5: the scaled spread is the unscaled one divided by √d_k (the table's spread/√d_k column), so the
    cell prints one number for it and the held-out table counts it as one claim."""
    table = al.scaling_experiment(n_keys=8, n_trials=200, seed=3)
    assert np.allclose(table["std_scaled"], table["std_unscaled"] / np.sqrt(table["d_k"]), rtol=1e-12)
    code = " ".join(lesson_cells("02")["s6-code"].split())
    assert "off_one" not in code and "scaled within" not in code
    assert "spread/√d_k (the scaled spread) is within" in code
    held = (ROOT / "docs" / "held-out" / "02.md").read_text(encoding="utf-8")
    assert "spread-one" not in held and "spread-root" not in held
    assert re.search(r"\| spread \|[^\n]*\| 16 of 16 \| - \|", held)


def test_02_4_says_why_v_can_be_recovered_here_and_not_from_the_lessons_y():
    """Item 10: 02.4's A is invertible; the lesson's A (section 4, by hand) has equal columns for cats and
    mice and for chase and small, rank 2 of 4, so many V give its Y."""
    A24 = sm((X24 @ WQ24) @ X24.T / np.sqrt(3))
    assert np.linalg.matrix_rank(A24) == 3
    A = sm((CCM.X @ CCM.W_q) @ (CCM.X @ CCM.W_k).T / 2)
    assert np.allclose(A[:, CATS], A[:, MICE]) and np.allclose(A[:, CHASE], A[:, SMALL])
    assert np.linalg.matrix_rank(A) == 2
    text = prose("02", "ex-02-4")
    assert "invertible" in text and "many different V give" in text


def test_02_shapes_figure_has_a_colour_key_and_one_colour_per_role():
    """Item 4 (cell 's5-shapes-code'): every block of the shapes figure has its colour bar; Q, Kᵀ, V and Y
    are grey (negative), white (0) and their role's colour (positive); the scores are grey, white and red,
    so no negative score is drawn in the query colour; the prose says what grey means."""
    from matplotlib.colors import to_rgb

    rng = np.random.default_rng(0)                                   # the lesson's draw (DRAW_SEED = 0)
    X5 = rng.standard_normal((5, 6))
    Wq5, Wk5, Wv5 = rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    fig = al.plot_shapes(X5 @ Wq5, X5 @ Wk5, X5 @ Wv5)
    blocks = {ax.get_title().split("\n")[0]: ax.images[0] for ax in fig.axes if ax.images}
    assert len(blocks) == 6 and all(image.colorbar is not None for image in blocks.values())
    grey, white = to_rgb("#6b6b6b"), (1.0, 1.0, 1.0)
    roles = {"Q": "query", "Kᵀ": "key", "V": "value", "Y = A V": "value"}
    for title, role in roles.items():
        cmap = blocks[title].get_cmap()
        assert np.allclose(cmap(0.0)[:3], grey, atol=0.01) and np.allclose(cmap(0.5)[:3], white, atol=0.01)
        assert np.allclose(cmap(1.0)[:3], to_rgb(al.ROLE_COLORS[role]), atol=0.01), title
    scores = blocks["scores Q Kᵀ"]
    assert (scores.get_array() < 0).any()                            # this draw has negative scores
    cmap = scores.get_cmap()
    assert np.allclose(cmap(0.0)[:3], grey, atol=0.01) and np.allclose(cmap(0.5)[:3], white, atol=0.01)
    for t in np.linspace(0, 1, 101):                                 # never near any role's colour
        for role in al.ROLE_COLORS.values():
            assert np.linalg.norm(np.subtract(cmap(t)[:3], to_rgb(role))) > 0.25, (t, role)
    import matplotlib.pyplot as plt
    plt.close(fig)
    text = prose("02", "s5-shapes")
    assert "grey cells are negative" in text and "red" in text and "colour bar" in text


def test_02_every_scores_heatmap_keeps_the_colour_rule_of_the_shapes_figure():
    """Review round 8, 02-2: s5-shapes says the scores are red, not blue ("blue is for queries"), but §3's
    al.heatmap(kind="scores") drew seaborn's vlag, blue below 0 (its colour bar showed it; later lessons'
    scores heatmaps with negative scores drew blue cells). Now a scores heatmap, with negative scores, is
    grey below 0, white at 0 and red above, as the shapes figure's scores block is."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    S = np.array([[2.0, -1.5, 0.0], [-3.0, 1.0, 0.5]])
    ax = al.heatmap(S, ["a", "b"], ["x", "y", "z"], kind="scores")
    mesh = ax.collections[0]
    grey, white, red = to_rgb("#6b6b6b"), (1.0, 1.0, 1.0), to_rgb("#a9373b")      # s5-shapes' three colours
    for value, colour in ((-3.0, grey), (0.0, white), (3.0, red)):
        assert np.allclose(mesh.cmap(mesh.norm(value))[:3], colour, atol=0.01), value
    for t in np.linspace(0, 1, 101):                                 # never near any role's colour
        for role in al.ROLE_COLORS.values():
            assert np.linalg.norm(np.subtract(mesh.cmap(t)[:3], to_rgb(role))) > 0.25, (t, role)
    plt.close(ax.figure)


@pytest.mark.parametrize("rows, expected", [(True, "column softmax transposed"),
                                            (False, "weights transposed")])
def test_02_3_keys_times_queries_is_named(rows, expected):
    """Item 3 in 02.3: S = K @ Q.T (queries and keys swapped) gives Aᵀ, the numbers of 'column softmax
    transposed' (softmax along its rows) or of 'weights transposed' (down its columns, the planted axis
    left). Either hint names K Qᵀ as well as the slip it is named after."""
    def attention(Q, K, V):
        S = K @ Q.T / np.sqrt(K.shape[1])                      # (n, m): queries and keys swapped
        return sm(S, axis=-1 if rows else 0) @ V
    result = status("02.3", attention)
    assert result.mistake == expected and "K Qᵀ" in result.message, result.message


def test_02_3_as_handed_out_says_what_to_look_for_not_the_fix():
    """Teacher's review, round 2, item 6: the planted cell is stored with the check's verdict printed, and
    it said "Each query's row must sum to 1" two lines below the axis=0: the fix. Now it says that the
    planted bug is still there and what to print, not which axis is right."""
    check_as_handed_out("02.3", ("row", "axis=", "-1"))


# ---------- review round 8, 02-1: a changed function giving the planted numbers is told why ----------------

@pytest.mark.parametrize("how", ["K Qᵀ along its rows, transposed", "axis=-2", "Sᵀ along axis 1, transposed"])
def test_02_3_a_changed_function_with_the_planted_numbers_is_told_why(how):
    """02-1: as 01.4 does, 02.3 tells the function as handed out from a changed one that gives the same
    numbers. The K Qᵀ slip (its rows softmaxed, then transposed) prints rows that sum to 1, and the student
    is told why their weights are still the planted ones, not that the planted line is still there. Each
    column of the weights sums to 1 (checked by hand here on the 02.3 shapes: 2 queries, 4 keys)."""
    def attention(Q, K, V):
        if how == "axis=-2":
            A = al.softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=-2)
        elif how.startswith("K Qᵀ"):
            A = al.softmax(K @ Q.T / np.sqrt(K.shape[1]), axis=-1).T
        else:
            A = al.softmax((Q @ K.T / np.sqrt(K.shape[1])).T, axis=1).T
        return A @ V

    rng = np.random.default_rng(5)
    Q, K = rng.standard_normal((2, 3)), rng.standard_normal((4, 3))
    columns = sm(Q @ K.T / np.sqrt(3), axis=0)                              # the planted weights, by hand
    assert np.allclose(attention(Q, K, np.eye(4)), columns)
    result = status("02.3", attention)
    assert result.status == "mistake" and result.mistake == "planted numbers", result.message
    assert "still the planted bug" not in result.message
    said = result.message
    assert "a softmax down the columns" in said and "which should be?" in said, said
    assert "runs along each row" not in result.message          # review round 9, B2: the fix is not given


# ---------- review round 16, lesson 02 (/work/notes/reviews/round16-lesson-02.md) --------------------------
# Every wrong answer here is written out as a student writes it, apart from the mistake tables.

@pytest.mark.parametrize("how", ["(A @ V).T", "V.T @ A.T"])
def test_02_3_a_transposed_output_is_named(how):
    """Item 2: the output transposed, (A V)ᵀ or Vᵀ Aᵀ (the column reading), keeps the shape (2, 2) of the
    first input, so it got 'the right shape' and the generic message; now it gets its own hint."""
    def attention(Q, K, V):
        A = sm(Q @ K.T / np.sqrt(K.shape[1]))                    # the right weights, rows sum to 1
        return (A @ V).T if how == "(A @ V).T" else V.T @ A.T
    result = status("02.3", attention)
    assert result.status == "mistake" and result.mistake == "output transposed", result.message
    assert "(A V)ᵀ" in result.message and "Return A @ V" in result.message, result.message


def test_02_4_keys_built_with_w_q_are_named():
    """Item 3: keys X W_q instead of X (W_k = I), so scores Q Qᵀ, solved the right way, get a hint naming
    the keys; the right answer, solved from the same Y, still passes."""
    Q = X24 @ WQ24
    result = status("02.4", np.linalg.solve(sm(Q @ Q.T / np.sqrt(3)), Y24))
    assert result.status == "mistake" and result.mistake == "keys from W_q", result.message
    assert "X @ W_q" in result.message and "K = X" in result.message, result.message
    A = sm(Q @ X24.T / np.sqrt(3))
    for right in (np.linalg.solve(A, Y24), np.linalg.inv(A) @ Y24, np.linalg.lstsq(A, Y24, rcond=None)[0]):
        assert status("02.4", right).status == "correct"


@pytest.mark.parametrize("transpose", [False, True])
def test_02_4_applying_a_instead_of_undoing_it_is_named(transpose):
    """Item 3: A @ Y (or Aᵀ @ Y) multiplies by the weights again instead of undoing them: the hint says to
    solve A V = Y."""
    A = sm((X24 @ WQ24) @ X24.T / np.sqrt(3))
    result = status("02.4", (A.T if transpose else A) @ Y24)
    assert result.status == "mistake", result.message
    assert "undo A" in result.message and "np.linalg.solve(A, Y)" in result.message, result.message


def test_02_dk_explorer_says_its_printed_spread_is_one_draws():
    """Item 1: the explorer prints the spread of one draw's 8 scores beside √d_k. Drawn again here by hand
    (query first, then the keys) on seeds 0-31 at d_k = 16, that spread runs from below half of √d_k = 4 to
    above one and a half times it, median near 4; the table's 2000 queries hold it within 5 % (tested above).
    The explore text says so."""
    spreads = []
    for seed in range(32):
        rng = np.random.default_rng(seed)
        q, K = rng.standard_normal(128), rng.standard_normal((8, 128))
        spreads.append(np.std(K[:, :16] @ q[:16]))
    spreads = np.array(spreads)
    assert spreads.min() < 2 and spreads.max() > 6 and 3 < np.median(spreads) < 5, spreads
    ex = al.dk_explorer(n_keys=8, max_dk=128, seed=7)
    assert f"spread (std) of the scores q·kⱼ = {spreads[7]:.2f}" in ex.summary()
    text = " ".join(prose("02", "s6-explore").split())
    assert "The spread it prints is that of this one draw's 8 scores" in text
    assert "scatters widely around" not in text and "pins it down" not in text
    # review round 17, item 2: one draw's spread lies below √d_k more often than above (the std of 8 scores
    # runs low: median about 0.86 √d_k at d_k = 16), here on more than half of seeds 0-31, and of 16 further
    # seeds (32-47), at every d_k the explorer's slider reaches from 1 to 128 in powers of 2
    for d_k in (1, 2, 4, 8, 16, 32, 64, 128):
        for seeds in (range(32), range(32, 48)):
            below = 0
            for seed in seeds:
                rng = np.random.default_rng(seed)
                q, K = rng.standard_normal(128), rng.standard_normal((8, 128))
                below += np.std(K[:, :d_k] @ q[:d_k]) < np.sqrt(d_k)
            assert below > len(seeds) / 2, (d_k, seeds, below)
    assert "scatters widely (more often below $\\sqrt{d_k}$ than above)" in text
    assert "the table above pins down the spread of all its scores pooled (2000 queries against 8" in text
    # the table's spread is that of all its scores pooled: s.std() over every query's scores at once
    s = al.scaling_experiment(d_ks=(16,), n_keys=8, n_trials=2000, seed=0)["std_unscaled"][0]
    rng = np.random.default_rng(0)
    q, K = rng.standard_normal((2000, 1, 16)), rng.standard_normal((2000, 8, 16))
    assert abs((q * K).sum(axis=-1).std() - s) < 1e-12


def test_02_s6_says_near_one_hot_every_gradient_is_tiny():
    """Item 4: near a one-hot softmax the Jacobian diag(p) - p pᵀ is small everywhere, the winner's entry
    p_w (1 - p_w) included (by hand, scores 10, 0, 0, 0); the text names the winner and the other keys."""
    p = sm(np.array([10.0, 0.0, 0.0, 0.0]))
    J = np.diag(p) - np.outer(p, p)
    assert p[0] > 0.99 and abs(J[0, 0]) < 1e-3 and np.abs(J).max() < 1e-3
    text = " ".join(prose("02", "s6").split())
    assert "the winner's, whose weight is already near 1, and the other keys'" in text
    assert "so that no score moves much in training" in text and "lesson 06 puts it to a test" in text
