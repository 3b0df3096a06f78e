"""The defects of the review of lessons 00-03 (issue 29, round two), each pinned by a test.

Every expected value is computed here by hand with plain NumPy (or typed from the review), never
taken from the exercise modules. Slider claims are driven through the explorers' own sliders, as a
student moves them. Claims about a random draw are checked on seeds 0 to 7, with the lesson's own
functions. A test that reads a lesson reads notebooks/ (or $ATTENTION_LAB_NOTEBOOKS).
"""

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al
from attention_lab import heads as heads_module
from attention_lab.answer_keys import mistakes_of

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = Path(os.environ.get("ATTENTION_LAB_NOTEBOOKS", ROOT / "notebooks"))
I2, I3, I4 = np.eye(2), np.eye(3), np.eye(4)


def lesson_cells(prefix: str) -> dict[str, str]:
    """A lesson's cells by id: their source text."""
    (path,) = NOTEBOOKS.glob(f"{prefix}-*.ipynb")
    return {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]}


def prose(prefix: str, cid: str) -> str:
    """One cell's text with its line breaks folded into spaces."""
    return " ".join(lesson_cells(prefix)[cid].split())


def sm(s, axis=-1):
    e = np.exp(np.asarray(s, dtype=float) - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def rotation(angle):
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


def status(key, answer):
    return al.EXERCISES[key].evaluate(answer)


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


# ---------- defect 6: no compute exercise of 01 or 03 is one package call -------------------------------

X01 = al.cats_chase_mice().X
X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])      # typed from 03.4
WQ34 = np.array([[2.0, 0, 0, 1], [0, 2, 1, 0], [1, 0, 2, 0], [0, 1, 0, 2]])
WO34 = np.array([[1.0, 0, 1, 0], [0, 1, 0, 1], [0, 1, 0, -1], [1, 0, -1, 0]])


def results_of(call):
    """Every plausible answer a student takes from one call: the result, each part of a returned tuple,
    the tuple as one array, and rows of each part."""
    try:
        out = call()
    except Exception:                       # a call the package refuses is no answer
        return []
    outs = list(out) if isinstance(out, tuple) else [out]
    found = [*outs]
    try:
        found.append(np.array(outs, dtype=float))
    except (TypeError, ValueError):
        pass
    for o in outs:
        o = np.asarray(o)
        if o.ndim >= 2:
            found += list(o)
    return found


def one_calls_01_1():
    for scale in (1.0, None, 0.5):
        for W in (I4, al.cats_chase_mice().W_q):
            yield lambda W=W, scale=scale: al.attend_one(2, X01, W, I4, I4, scale=scale)
            yield lambda W=W, scale=scale: al.self_attention(X01, W, I4, I4, scale=scale)
        yield lambda scale=scale: al.scaled_dot_product_attention(X01, X01, X01, scale=scale)
        yield lambda scale=scale: al.scaled_dot_product_attention(X01[2:3], X01, X01, scale=scale)
    yield lambda: al.softmax(X01 @ X01.T)
    yield lambda: al.attend_one(i=2, X=X01, W_q=I4, W_k=I4, W_v=I4, scale=1.0)


def one_calls_03_4():
    top, bottom = WO34.copy(), WO34.copy()
    top[2:], bottom[:2] = 0.0, 0.0                   # head 1's rows of W_O only, head 2's only
    for W_O in (WO34, top, bottom, I4):
        for scale in (None, 1.0, 0.5, 2 ** -0.5):
            for h in (1, 2, 4):
                yield lambda W_O=W_O, scale=scale, h=h: al.multi_head_attention(
                    X34, X34, WQ34, I4, I4, W_O, n_heads=h, scale=scale)
                yield lambda W_O=W_O, scale=scale, h=h: heads_module.multi_head_parts(
                    X34, X34, WQ34, I4, I4, W_O, h, None, 2 ** -0.5 if scale is None else scale).__dict__
    yield lambda: al.multi_head_attention(X34, X34, WQ34, I4, I4, np.stack([top, bottom]), n_heads=2)


@pytest.mark.parametrize("key, calls", [("01.1", one_calls_01_1), ("03.4", one_calls_03_4)])
def test_compute_exercise_is_no_single_package_call(key, calls):
    tried = 0
    for call in calls():
        for answer in results_of(call):
            if isinstance(answer, dict):
                answers = [v for v in answer.values() if isinstance(v, np.ndarray)]
            else:
                answers = [answer]
            for a in answers:
                tried += 1
                assert status(key, a).status != "correct", f"{key} passes with one package call"
    assert tried > 20


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


def test_03_4_asks_for_each_heads_contribution():
    """By hand: each head on its own two columns, ÷ √2, times its own rows of W_O; they add to the output."""
    Q = X34 @ WQ34
    parts = [sm(Q[:, c] @ X34[:, c].T / np.sqrt(2)) @ X34[:, c] @ WO34[c] for c in (slice(0, 2), slice(2, 4))]
    output = al.multi_head_attention(X34, X34, WQ34, I4, I4, WO34, n_heads=2)[0]
    assert np.allclose(parts[0] + parts[1], output)
    assert status("03.4", np.stack(parts)).status == "correct"
    assert status("03.4", output).mistake == "whole output"
    unscaled = [sm(Q[:, c] @ X34[:, c].T) @ X34[:, c] @ WO34[c] for c in (slice(0, 2), slice(2, 4))]
    result = status("03.4", unscaled)                                   # defect 19: no scaling
    assert result.mistake == "no scaling" and "√2" in result.message
    assert "each head's contribution" in prose("03", "ex-03-4") and "(2, 3, 4)" in prose("03", "ex-03-4")


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


def test_03_3_split_is_switched_off_and_h_is_an_int():
    from attention_lab import split_heads as imported_split

    for fn in (lambda M, h: al.split_heads(M, h), lambda M, h: al.split_heads(M, int(h)),
               lambda M, h: imported_split(M, h), lambda M, h: al.split_weights(M, h)):
        result = status("03.3", fn)
        assert result.status != "correct" and "switched off" in result.message, result.message

    seen = []

    def split(M, h):
        seen.append(type(h))
        d = M.shape[1]
        return np.stack([M[:, i * (d // h):(i + 1) * (d // h)] for i in range(h)])
    assert status("03.3", split).status == "correct"
    assert seen and all(t is int for t in seen), seen
    assert status("03.3", lambda M, h: np.stack(np.split(M, h, axis=1))).status == "correct"
    assert "Python counts from 0" in prose("03", "ex-03-3")


# ---------- defect 4 and 19: 03.2 taught, and its hints --------------------------------------------------

def test_03_2_column_form_rotation_and_no_turn_get_their_hints():
    ex = al.the_cat_sat()
    t = ex.theta
    assert np.allclose(ex.W_q[:2, :2], 8 * rotation(t))                 # the lesson's block: 8 R(θ)
    p = np.arange(6)
    assert np.allclose(ex.X[:, :2] @ rotation(t), np.column_stack([np.cos(t * (p - 1)), np.sin(t * (p - 1))]))

    def head1(block):
        W = ex.W_q.copy()
        W[:2, :2] = block
        return W
    forward = status("03.2", head1(8 * rotation(2 * t).T))             # column-form: turns forward
    assert forward.mistake == "two forward" and "forward" in forward.message, forward.message
    assert status("03.2", head1(8 * rotation(-2 * t))).mistake == "two forward"
    itself = status("03.2", head1(8 * rotation(t) @ rotation(t).T))
    assert itself.mistake == "itself", itself.message
    assert status("03.2", head1(8 * rotation(2 * t))).status == "correct"
    text = prose("03", "s3-turn")
    assert "8\\,R(\\theta)" in text and "back" in text and "8\\cos(\\theta(j-p+1))" in text


def test_03_section_3_scores_are_8_cos():
    """Lesson 03's new cell: the query 'on' (position 3) scores key j with 8 cos(θ(j - 2)), by hand."""
    ex = al.the_cat_sat()
    j = np.arange(6)
    scores = (ex.X[3] @ ex.W_q)[:2] @ (ex.X @ ex.W_k)[:, :2].T
    assert np.allclose(scores, 8 * np.cos(ex.theta * (j - 2)))
    assert np.argmax(scores) == 2                                       # sat, the previous token
    assert "scores_on" in lesson_cells("03")["s3-turn-code"]


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


# ---------- defects 1, 10, 11: the heads explorer ---------------------------------------------------------

CAT = al.the_cat_sat()


def heads_explorer():
    return al.heads_explorer(CAT.X, CAT.W_q, CAT.W_k, CAT.W_v, CAT.W_O, CAT.tokens, CAT.features,
                             edit=2, n_heads=2)


def heads_by_hand(h):
    X = CAT.X.copy()
    X[2] = np.round(X[2], 3)                                            # the sliders start at 3 decimals
    k = 4 // h
    Q, K = X @ CAT.W_q, X @ CAT.W_k
    return np.stack([sm(Q[:, i * k:(i + 1) * k] @ K[:, i * k:(i + 1) * k].T / np.sqrt(k)) for i in range(h)])


def expected_pick(row):
    if row.max() - row.min() < 0.005:
        return "(flat)"
    top = [CAT.tokens[k] for k in range(6) if row[k] >= row.max() - 0.005]
    return "/".join(top) + (" (tie)" if len(top) > 1 else "")


def test_heads_explorer_summary_says_flat_or_tie():
    ex = heads_explorer()
    for h in (1, 2, 4):
        ex.sliders["n_heads"].value = h
        weights = heads_by_hand(h)
        for head in range(1, h + 1):
            ex.sliders["head"].value = head
            w = weights[head - 1]
            assert np.allclose(ex.result[f"head{head - 1}"], w)
            line = ex.summary().splitlines()[-1].strip()
            want = ", ".join(f"{CAT.tokens[q]}→{expected_pick(w[q])}" for q in range(6))
            assert line == want, (h, head, line)
    ex.sliders["n_heads"].value = 4
    ex.sliders["head"].value = 2
    assert "cat→(flat)" in ex.summary()                                 # the review: it said cat→the
    ex.sliders["n_heads"].value = 2
    ex.sliders["head"].value = 1
    assert "the→the/mat (tie)" in ex.summary()


def test_heads_explorer_output_columns_are_numbered_from_0():
    ex = heads_explorer()
    (out,) = [p for p in ex.panels if p.key == "output"]
    assert list(out.col_labels) == ["0", "1", "2", "3"]


def test_03_four_heads_find_the_previous_token_only_by_coincidence():
    """03 §10: at h = 4 no head finds the previous token for every word; a query's favourite is the key
    with the largest or the smallest number in its column; cat (head 1) and on (head 2) get their
    previous token that way."""
    ex = heads_explorer()
    ex.sliders["n_heads"].value = 4
    four = np.stack([ex.result[f"head{i}"] for i in range(4)])
    assert np.allclose(four, heads_by_hand(4))
    prev = np.arange(1, 6)
    assert not any((np.argmax(w[prev], axis=1) == prev - 1).all() for w in four)
    assert np.argmax(four[0][1]) == 0 and four[0][1][0] > 0.9            # cat → the, in head 1
    assert np.argmax(four[1][3]) == 2 and four[1][3][2] > 0.8            # on → sat, in head 2
    X = CAT.X.copy()
    X[2] = np.round(X[2], 3)
    for c in (0, 1):
        extremes = {int(np.argmax(X[:, c])), int(np.argmin(X[:, c]))} | set(np.flatnonzero(
            np.isclose(X[:, c], X[:, c].max()) | np.isclose(X[:, c], X[:, c].min())))
        for row in four[c]:
            assert np.ptp(row) < 0.005 or int(np.argmax(row)) in extremes
    ex.sliders["head"].value = 1
    assert "cat→the," in ex.summary()
    ex.sliders["head"].value = 2
    assert "on→sat," in ex.summary()
    text = prose("03", "s10")
    assert "No head finds the previous token for every word" in text and "only by coincidence" in text


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


def test_02_defines_m_and_names_the_scaling_difference():
    assert "$m$ for the number of queries" in prose("02", "s5-shapes")
    assert "0.7311" in prose("02", "summary") and "0.8808" in prose("02", "summary")
    assert "square example" not in prose("02", "ex-02-3")


def test_03_one_notation_for_the_weights():
    cells = lesson_cells("03")
    upper = [cid for cid, text in cells.items() if re.search(r"W_[QKV]", text)]
    assert upper == ["s9"], upper                                      # only where the source's is named
    assert "d_{model} = 512" in cells["s9"]
    assert "layer's **inputs**" in cells["s9-note"]


# ---------- the review's exercise tables: typical mistakes that got only a generic reply -----------------

def softmax_fixes():
    """01.4's wrong fixes, as a student types them."""
    def by_count(q, K):
        e = np.exp(K @ q - (K @ q).max())
        return e / len(e)

    def by_score_sum(q, K):
        e = np.exp(K @ q - (K @ q).max())
        return e / (K @ q).sum()

    def min_shift(q, K):
        e = np.exp(K @ q - (K @ q).min())
        return e / e.sum()
    return by_count, by_score_sum, min_shift


def attention_slips():
    """02.3's wrong fixes: one softmax over the whole matrix, and Aᵀ V."""
    def whole(Q, K, V):
        S = Q @ K.T / np.sqrt(K.shape[1])
        E = np.exp(S - S.max())
        return E / E.sum() @ V

    def transposed(Q, K, V):
        return sm(Q @ K.T / np.sqrt(K.shape[1])).T @ V
    return whole, transposed


X24 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])          # typed from 02.4
WQ24 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
Y24 = np.array([[1.0, 0.0], [0.51582795, -0.48417205], [0.74767601, -0.25232399]])


def contributions(W_q):
    Q = X34 @ W_q
    return [sm(Q[:, c] @ X34[:, c].T / np.sqrt(2)) @ X34[:, c] @ WO34[c] for c in (slice(0, 2), slice(2, 4))]


@pytest.mark.parametrize("key, answer, mistake, phrase", [
    ("00.1", 49, "number of entries", "[rows, columns]"),
    ("00.1", [7, 7, 16], "three axes", "two axes"),
    ("00.2", [[3, 6], [2, 5], [1, 4]], "rows reversed", "reverse order"),
    ("00.2", np.linalg.pinv([[1.0, 2, 3], [4, 5, 6]]), "inverse", "transpose only"),
    ("00.3", -1, "counted from the end", "last token"),
    ("01.4", softmax_fixes()[0], "by count", "number of keys"),
    ("01.4", softmax_fixes()[1], "by score sum", "sum of the scores"),
    ("01.4", softmax_fixes()[2], "min shift", "smallest score"),
    ("02.3", attention_slips()[0], "whole matrix", "whole matrix"),
    ("02.3", attention_slips()[1], "weights transposed", "Aᵀ V"),
    ("02.4", np.linalg.solve(sm(X24 @ X24.T / np.sqrt(3)), Y24), "forgot W_q", "X @ W_q"),
    ("02.4", np.linalg.solve(sm(X24 @ WQ24.T @ X24.T / np.sqrt(3)), Y24), "W_q transposed", "W_q.T"),
    ("02.4", np.linalg.solve(np.round(sm(X24 @ WQ24 @ X24.T / np.sqrt(3)), 2), Y24), "weights rounded",
     "rounded"),
    ("03.3", lambda M, h: M.reshape(M.shape[0], h, -1).transpose(1, 2, 0), "axes mixed", "(h, d_k, n)"),
    ("03.4", contributions(I4), "forgot W_q", "X @ W_q"),
    ("03.4", contributions(WQ34.T), "W_q transposed", "W_q.T"),
])
def test_typical_mistake_gets_a_named_hint(key, answer, mistake, phrase):
    result = status(key, answer)
    assert result.mistake == mistake, result.message
    assert phrase in result.message, result.message


def test_03_3_the_package_split_handed_in_as_is_is_refused():
    for fn in (al.split_heads, al.split_weights, heads_module.split_heads_unchecked):
        result = status("03.3", fn)
        assert result.status != "correct" and "switched off" in result.message, result.message


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


def rounding_fixes():
    """Right fixes of 01.4, 02.3 and 03.3 that round (or drop to float16) at the end: near, not equal."""
    def weights_of(q, K):
        e = np.exp(K @ q - (K @ q).max())
        return np.round(e / e.sum(), 3)

    def attention(Q, K, V):
        return np.round(sm(Q @ K.T / np.sqrt(K.shape[1])) @ V, 3)

    def split(M, h):
        return M.reshape(M.shape[0], h, -1).transpose(1, 0, 2).astype(np.float16)
    return {"01.4": weights_of, "02.3": attention, "03.3": split}


@pytest.mark.parametrize("key", ["01.4", "02.3", "03.3"])
def test_r3_a_debug_refusal_never_says_that_0_numbers_differ(key):
    """Defect 3: the refusal and the pass test agree; a rounding fix is told that it rounds."""
    message = status(key, rounding_fixes()[key]).message
    assert status(key, rounding_fixes()[key]).status != "correct"
    assert not re.search(r"\b0 of its \d+ numbers", message), message
    assert "round" in message, message


def test_r3_judge_fix_counts_the_numbers_its_test_refused():
    """Defect 3, in judge_fix itself: a result off by 1 in one entry and by 1e-4 in another fails
    np.allclose in both entries (1e-4 > 1e-8 + 1e-5 · 0.25, by hand): the message counts 2, not 1."""
    ref = np.array([0.25, 0.25, 0.5])
    judge = al.judging.judge_fix(lambda s: ref + 0 * s, {}, [(np.zeros(3),)], "three numbers.")
    message = judge(lambda s: ref + np.array([1.0, 1e-4, 0.0]))
    assert "2 of its 3 numbers differ, the largest by 1 at index [0]" in message, message
    near = judge(lambda s: ref + np.array([0.0, 1e-4, 0.0]))
    assert "all 3 of its numbers are within 0.0001" in near and "round" in near, near


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


def test_r3_02_scaling_flattens_every_draw_and_says_so():
    """Defect 7: dividing every score by c > 1 always lowers the largest weight; the text says so as a
    rule."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        s, c = rng.standard_normal(8) * rng.uniform(0.1, 30), rng.uniform(1.01, 12)
        assert sm(s / c).max() < sm(s).max()
    text = prose("02", "s6-explore")
    assert "every draw we tried" not in text and "always flattens a softmax" in text


def test_r3_judge_wording_fits_the_question():
    """Defect 8: 00.1 and 00.3 say what the numbers are; a count of 1 takes a singular verb."""
    for shape in ([6, 6], [8, 8]):
        message = status("00.1", shape).message
        assert f"({shape[0]}, {shape[1]}) is not the shape of Q Kᵀ" in message and "(2,)" not in message
    assert "x₅" in status("00.3", 4).message and "shape ()" not in status("00.3", 4).message
    assert "x₁" in status("00.3", 0).message
    one_off = np.linalg.solve(sm(X24 @ WQ24 @ X24.T / np.sqrt(3)), Y24)
    one_off[0, 0] += 1.0
    message = status("02.4", one_off).message
    assert "1 of its 6 numbers differs," in message and "a 3 × 2 array, as asked" in message, message
