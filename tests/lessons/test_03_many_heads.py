"""Lesson 03's claims (03-many-heads): exercises 03.2, 03.3 and 03.4, which no package call does and whose
hints name the typical slip (defects of the review of lessons 00-03, rounds two and three), section 3's
scores and the lesson's notation, and the heads explorer: its summary line, and its sliders moved as a
student moves them, each test naming the cell or guide row it checks.

Numbers expected here come from plain NumPy written in this file (or typed from the review), never from
the exercise modules; lesson cells are read from notebooks/ (or $ATTENTION_LAB_NOTEBOOKS). Shared
helpers: tests/lesson_helpers.py.
"""

import re

import numpy as np
from handed_out import HANDED_OUT, check_as_handed_out
from lesson_helpers import (
    I4,
    WO34,
    WQ34,
    X34,
    explorer,
    lesson_cells,
    move,
    prose,
    run_lesson,
    sm,
    softmax_rows,
    status,
)

import attention_lab as al
from attention_lab import heads as heads_module
from attention_lab.answer_keys import mistakes_of

# ---------- 03.4 and 03.3: the exercises ask for what no call does, and the debug split is locked -------

def rotation(angle):
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


def head1(block):
    """The lesson's W_q with head 1's 2 x 2 block (rows and columns 0-1) replaced: an answer to 03.2."""
    W = al.the_cat_sat().W_q.copy()
    W[:2, :2] = block
    return W


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


# ---------- defects 1, 10, 11: the heads explorer ---------------------------------------------------------

CAT = al.the_cat_sat()


def heads_explorer():
    return al.heads_explorer(CAT.X, CAT.W_q, CAT.W_k, CAT.W_v, CAT.W_O, CAT.tokens, CAT.features,
                             edit=2, n_heads=2)


NAMED = ["the₁", "cat", "sat", "on", "the₂", "mat"]   # typed: the summary tells the two thes apart


def expected_pick(row):
    if row.max() - row.min() < 0.005:
        return "(flat)"
    top = [NAMED[k] for k in range(6) if row[k] >= row.max() - 0.005]
    return "/".join(top) + (" (tie)" if len(top) > 1 else "")


def test_heads_explorer_summary_says_flat_or_tie():
    ex = heads_explorer()
    for h in (1, 2, 4):
        ex.sliders["n_heads"].value = h
        weights = heads_by_hand(X_START, h)
        for head in range(1, h + 1):
            ex.sliders["head"].value = head
            w = weights[head - 1]
            assert np.allclose(ex.result[f"head{head - 1}"], w)
            line = ex.summary().splitlines()[-1].strip()
            want = ", ".join(f"{NAMED[q]}→{expected_pick(w[q])}" for q in range(6))
            assert line == want, (h, head, line)
    ex.sliders["n_heads"].value = 4
    ex.sliders["head"].value = 2
    assert "cat→(flat)" in ex.summary()                                 # the review: it said cat→the
    ex.sliders["n_heads"].value = 2
    ex.sliders["head"].value = 1
    assert "the₁→the₁/mat (tie)" in ex.summary()


def test_heads_explorer_output_columns_are_numbered_from_0():
    ex = heads_explorer()
    (out,) = [p for p in ex.panels if p.key == "output"]
    assert list(out.col_labels) == ["0", "1", "2", "3"]


def test_03_four_heads_find_the_previous_token_only_by_coincidence():
    """03 §10 and 03.1's ✓: at h = 4 no head finds the previous token for every word; a query's favourite is
    the key with the largest or the smallest number in its column; cat (head 1) and on (head 2) get their
    previous token that way."""
    ex = heads_explorer()
    ex.sliders["n_heads"].value = 4
    four = np.stack([ex.result[f"head{i}"] for i in range(4)])
    assert np.allclose(four, heads_by_hand(X_START, 4))
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
    assert "cat→the₁," in ex.summary()
    ex.sliders["head"].value = 2
    assert "on→sat," in ex.summary()
    text = status("03.1", "b").message          # said after 03.1's ✓, not above the exercise (round 11, 03-C)
    assert "No head finds the previous token for every word" in text and "only by coincidence" in text
    assert "(cat in head 1, on in head 2)" in text


# ---------- cosmetic items in the lessons' words --------------------------------------------------------

def test_03_one_notation_for_the_weights():
    cells = lesson_cells("03")
    upper = [cid for cid, text in cells.items() if re.search(r"W_[QKV]", text)]
    assert upper == ["s9"], upper                                      # only where the source's is named
    assert "d_{model} = 512" in cells["s9"]
    assert "layer's **inputs**" in cells["s9-note"]


# ---------- the review's exercise tables: typical mistakes that got only a generic reply ----------------

def test_03_3_the_package_split_handed_in_as_is_is_refused():
    for fn in (al.split_heads, al.split_weights, heads_module.split_heads_unchecked):
        result = status("03.3", fn)
        assert result.status != "correct" and "switched off" in result.message, result.message


# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)

PREV = np.arange(1, 6)        # cat, sat, on, the, mat: each has a previous word (row q -> key q - 1)
CONTENT = CAT.X[:, 2] == 1    # cat, sat, mat
X_START = CAT.X.copy()
X_START[2] = np.round(CAT.X[2], 3)   # the sliders are anchored at the lesson's x to the 3 decimals printed


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



# ---------- review round 5, 03-B: a tie is no win ---------------------------------------------------------
def test_03_2_a_tie_of_two_back_and_one_back_is_no_win_and_gets_its_hint():
    """A block that turns by 1.5θ (8 (R(θ) + R(2θ)), a sum where a product was meant, or 1000 R(1.5θ)) gives
    two back and one back the same weight, 0.5 each at best: not ✓, and the hint names the half turn."""
    ex = al.the_cat_sat()
    t = ex.theta

    for block in (8 * (rotation(t) + rotation(2 * t)), 1000 * rotation(1.5 * t), 8 * rotation(1.5 * t)):
        Q, K = (ex.X @ head1(block))[:, :2], (ex.X @ ex.W_k)[:, :2]
        A = np.exp(Q @ K.T / np.sqrt(2))
        A /= A.sum(axis=1, keepdims=True)
        q = np.arange(2, 6)
        assert np.allclose(A[q, q - 2], A[q, q - 1], atol=1e-9)                 # a tie, by hand
        result = status("03.2", head1(block))
        assert result.status != "correct" and result.mistake == "tie", result.message
        assert "1.5θ" in result.message and "product, not a sum" in result.message
    assert status("03.2", head1(1000 * rotation(2 * t))).status == "correct"   # a clear win still passes
    for block in (np.zeros((2, 2)), 1e-9 * rotation(2 * t)):            # flat rows: every weight ≈ 1/6
        Q = (ex.X @ head1(block))[:, :2]
        A = np.exp(Q @ (ex.X @ ex.W_k)[:, :2].T / np.sqrt(2))
        A /= A.sum(axis=1, keepdims=True)
        assert np.allclose(A[2:], 1 / 6, atol=1e-8)                          # by hand: no pair leads
        result = status("03.2", head1(block))
        assert result.status != "correct" and result.mistake != "tie", result.message
        assert "1.5θ" not in result.message


# ---------- review round 5, 03-A and 03-C, and the seed of section 8 ----------------------------------------

def test_03_section_9_claims_shapes_only_and_checks_numbers_too():
    """03-A: shapes cannot tell softmax along rows from softmax along columns (both (3, 3), by hand below),
    so the note claims only that the dimensions agree, and the cell checks head 1's numbers as well."""
    S = np.random.default_rng(5).standard_normal((3, 3))
    rows, cols = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True), np.exp(S) / np.exp(S).sum(axis=0)
    assert rows.shape == cols.shape and not np.allclose(rows, cols)
    note = prose("03", "s9-note")
    assert "describe exactly what" not in note
    assert "Every dimension agrees with the source's equations" in note
    assert "softmax along columns" in note and "also checks numbers" in note
    assert "assert np.allclose(A_0, w8[i]) and np.allclose(A_0 @ V8[:, cols], heads8[i])" in \
        lesson_cells("03")["s9-code"]


def test_03_the_flat_and_tie_marks_are_printed_beside_the_sliders():
    """03-C: the live numbers sit beside the sliders (the first row of the widget), above the heatmaps."""
    ex = heads_explorer()
    ex.sliders["n_heads"].value = 4
    top = ex.widget.children[0]
    assert ex.numbers in top.children and "(tie)" in ex.numbers.value
    text = prose("03", "s10")
    assert "the numbers beside the sliders print \"(flat)\" or \"(tie)\"" in text
    assert "summary below the explorer" not in text


def test_03_section_8_takes_its_seed_from_heads_seed_and_runs_with_another():
    """Issue 44 item 2: the eight heads' draw takes HEADS_SEED (prose invites changing it); with seed 29 the
    section's checks (identities, true for every draw) still pass, up to section 9's table."""
    cells = lesson_cells("03")
    setters = [cid for cid, src in cells.items() if re.search(r"(?m)^HEADS_SEED = 0\b", src)]
    assert setters == ["s8-code"] and "default_rng(HEADS_SEED)" in cells["s8-code"]
    assert not any(re.search(r"default_rng\(\d", src) for src in cells.values())
    assert "You may change it" in prose("03", "s8")
    run_lesson("03", HEADS_SEED=29, cells=["imports", "s1-code", "s8-code", "s8-check", "s9-code"])


# ---------- review round 6 ---------------------------------------------------------------------------------

def test_r6_m1_03_names_the_original_paper_where_it_first_appears():
    """M1: multi-head attention, MultiHead(Q, K, V) and d_model = 512, h = 8, d_k = 64 are Vaswani et al.
    2017's; 'the original paper' is named wherever the lesson points to it."""
    intro = prose("03", "intro")
    assert "Vaswani et al. 2017" in intro and "*Attention Is All You Need*" in intro and "3.2.2" in intro
    assert "Vaswani et al. 2017" in prose("03", "s8") and "Vaswani et al. 2017" in prose("03", "s9-note")


def test_r6_c1_source_002_is_based_on_two_notebooks_and_3_tokens_is_its_own_choice():
    """C1: the seed says it is based on Rothman's and Romero's notebooks; 3 tokens is not an original size."""
    text = prose("03", "s8")
    assert "based on" in text and "Manuel Romero" in text and "follows Denis Rothman" not in text
    assert "sizes: 3 tokens" not in text and "for 3 tokens" in text


def test_r6_c2_erratum_002_quotes_the_sources_own_announcement_of_random_heads():
    """C2: the source announces its heads are untrained; the slips are the label and the folded W^0."""
    text = prose("03", "erratum-002").replace(" > ", " ")
    assert "not trained in this example" in text
    assert "MultiHead Attention Output" in text and "integrated into the concatenation function" in text
    assert "$W_O = I$" in text


def test_r6_c4_03_2_three_tokens_back_is_named():
    """C4: 8 R(3θ) makes head 1 look three tokens back; the hint names the turn by 3θ."""
    ex = al.the_cat_sat()
    W = ex.W_q.copy()
    W[:2, :2] = 8 * rotation(3 * ex.theta)
    result = status("03.2", W)
    assert result.status != "correct" and "three tokens back" in result.message, result.message
    assert "3θ" in result.message and "not yet" in result.message.lower(), result.message


# ---------- the debug function as handed out: what to look for, not the fix, and no attempt --------------

def test_03_3_as_handed_out_says_what_to_look_for_and_counts_as_no_attempt():
    """As 01.4 and 02.3: Run All checks the planted function before the student has touched it. Its stored
    verdict says not yet and what to look for (no transpose, no (n, h, d_k)), and it is no attempt."""
    check_as_handed_out("03.3", ("transpose", "(n, h", "row after row"))


def test_03_3_the_hints_code_runs_in_the_lesson():
    """Review round 9, B4: 03.3's hints wrote M[:, :d // h], and lesson 03 defines no `d`. Each piece of code
    the hints give (typed here from them) is in them, uses only names the lesson's cells define at top level
    (or the hint's own M), and runs: split(M, 2)[0] of the planted function differs from M[:, :2]."""
    import ast
    import builtins
    defined = set(dir(builtins)) | {"M"}
    for source in lesson_cells("03").values():
        try:
            tree = ast.parse(source)
        except SyntaxError:                                 # a markdown cell
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in getattr(node, "targets", [getattr(node, "target", None)]):
                    defined |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    pieces = ("np.arange(12).reshape(3, 4)", "split(M, 2)[0]", "M[:, :2]")
    for name in ("planted", "planted numbers"):
        hint = mistakes_of("03.3")[name][1]
        assert "d // h" not in hint, hint
        assert all(piece in hint for piece in pieces[1:]), hint
        for piece in pieces:
            used = {n.id for n in ast.walk(ast.parse(piece)) if isinstance(n, ast.Name)}
            assert used <= defined, used - defined
    M = np.arange(12).reshape(3, 4)
    assert HANDED_OUT["03.3"](M, 2)[0].tolist() != M[:, :2].tolist() == [[0, 1], [4, 5], [8, 9]]


def test_03_3_a_changed_split_with_the_planted_numbers_is_told_why():
    """Another reshape to (h, n, d_k) reads M row after row, as the planted line does: on
    M = np.arange(12).reshape(3, 4), h = 2, head 1 is [[0, 1], [2, 3], [4, 5]] (by hand: the first six
    numbers), not the first two columns [[0, 1], [4, 5], [8, 9]]. The student changed the line: their own
    hint, which explains, and the check counts as an attempt."""
    def split(M, h):
        return np.reshape(M, (h, len(M), -1))
    assert split(np.arange(12).reshape(3, 4), 2)[0].tolist() == [[0, 1], [2, 3], [4, 5]]
    result = status("03.3", split)
    assert result.status == "mistake" and result.mistake == "planted numbers", result
    assert "still the planted bug" not in result.message and "row after row" in result.message


# ---------- review round 11 of lessons 00-03 ---------------------------------------------------------------

d_k = 2          # as the lesson's s2-code leaves it in the kernel: a split may (wrongly) close over it


def test_03_3_a_split_of_the_notebooks_fixed_width_fails_and_is_named():
    """03-A: §2's s2-check line copied into the function, with the notebook's global d_k = 2, or a hard-coded
    2, gave ✓: both fresh inputs had d_k = 2. On a (3, 8) array with h = 2 (d_k = 4) it raises."""
    def split_global(M, h):
        return M.reshape(len(M), h, d_k).transpose(1, 0, 2)

    def split_two(M, h):
        return M.reshape(M.shape[0], h, 2).transpose(1, 0, 2)

    M = np.arange(24.0).reshape(3, 8)
    try:
        split_global(M, 2)
        raise AssertionError("the fixed-width split ran on d_k = 4")
    except ValueError:
        pass
    for fn in (split_global, split_two):
        result = status("03.3", fn)
        assert result.status != "correct", result.message
        assert "d_k = d // h" in result.message and "d_k = 2" in result.message, result.message
    right = lambda M, h: M.reshape(len(M), h, M.shape[1] // h).transpose(1, 0, 2)   # noqa: E731
    assert status("03.3", right).status == "correct"


def test_03_3_np_split_along_the_tokens_gets_a_hint_not_numpys_error():
    """03-F: np.split(M, h) cuts along axis 0, the tokens; the check said only NumPy's 'array split does not
    result in an equal division'."""
    for fn in (lambda M, h: np.stack(np.split(M, h)), lambda M, h: np.stack(np.array_split(M, h)),
               lambda M, h: np.array(np.split(M, h, axis=0))):
        result = status("03.3", fn)
        assert result.status == "mistake", result.message
        assert "axis=1" in result.message and "equal division" not in result.message, result.message


def test_03_4_the_two_slips_section_9_names_get_their_hints():
    """03-D: softmax down the columns (each key's column sums to 1), and K Qᵀ for Q Kᵀ, computed by hand."""
    Q = X34 @ WQ34

    def col_softmax(S):
        E = np.exp(S - S.max(axis=0, keepdims=True))
        return E / E.sum(axis=0, keepdims=True)

    cols = (slice(0, 2), slice(2, 4))
    down = np.stack([col_softmax(Q[:, c] @ X34[:, c].T / np.sqrt(2)) @ X34[:, c] @ WO34[c] for c in cols])
    kq = np.stack([sm(X34[:, c] @ Q[:, c].T / np.sqrt(2)) @ X34[:, c] @ WO34[c] for c in cols])
    result = status("03.4", down)
    assert result.status == "mistake" and "column" in result.message and "sum to 1" in result.message, \
        result.message
    result = status("03.4", kq)
    assert result.status == "mistake" and "K Qᵀ" in result.message and "Q Kᵀ" in result.message, \
        result.message


def test_03_2_an_angle_in_degrees_is_not_called_three_back():
    """03-E: θ taken in degrees (θ = 360/7 fed to np.cos) turns by 2(360/7) rad ≡ 2.326 rad = 2.59θ (by hand:
    2·360/7 − 16·2π = 2.3262; / (2π/7) = 2.592). The hint said '3θ: R(θ) three times'."""
    t_deg = 360 / 7
    block = 8 * rotation(t_deg) @ rotation(t_deg)
    W = al.the_cat_sat().W_q.copy()
    W[:2, :2] = block
    angle = (2 * t_deg) % (2 * np.pi)
    assert abs(angle - 2.3262) < 1e-3 and abs(angle / (2 * np.pi / 7) - 2.59) < 5e-3
    result = status("03.2", W)
    assert result.status != "correct", result.message
    assert "three" not in result.message and "3θ" not in result.message, result.message
    assert "2.59θ" in result.message and "degrees" in result.message and "radians" in result.message, \
        result.message


def test_03_section_4_says_what_the_two_pruning_papers_found():
    """03-B, review round 12 item 2: Michel et al. 2019 found that many heads can be pruned at test time
    with little loss; Voita et al. 2019 that the heads that matter have consistent, interpretable roles
    (positional: a neighbouring token; syntactic; rare words) and the rest can be pruned. Neither says
    trained heads 'mix several jobs', and Voita's finding is not that trained heads are 'less tidy'."""
    text = " ".join(prose("03", "s4").split())
    assert "designed" in text and "pruned" in text and "lesson 09" in text.lower()
    assert "Michel et al. 2019 (*Are Sixteen Heads Really Better than One?*)" in text
    assert ("Voita et al. 2019 (*Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy "
            "Lifting, the Rest Can Be Pruned*)") in text
    for role in ("*positional*", "neighbouring token", "*syntactic*", "rare words", "consistent"):
        assert role in text, role
    for claim in ("mix several jobs", "less tidy", "overlap"):
        for cell in ("intro", "s4", "summary"):
            assert claim not in prose("03", cell), (claim, cell)


def test_03_1_the_answer_is_not_printed_above_the_exercise():
    """03-C: §10 said what 4 heads do before 03.1 asks to predict it; the explanation is now 03.1's ✓."""
    text = prose("03", "s10")
    assert "No head finds the previous token" not in text and "03.1" in text
    right = status("03.1", "b")
    assert right.status == "correct"
    assert "No head finds the previous token for every word" in right.message
    assert "only by coincidence" in right.message


def test_03_explorer_summary_tells_the_two_thes_apart():
    """03-G: 'the→the/mat (tie)' did not say which the; the summary numbers a repeated token (the₁, the₂)."""
    ex = heads_explorer()
    ex.sliders["head"].value = 1
    line = ex.summary().splitlines()[-1]
    assert line.strip().startswith("the₁→the₁/mat (tie), cat→the₁,"), line
    assert "the₂→on" in line and "mat→the₂" in line, line
    assert "cat₁" not in line and "mat₁" not in line


def test_03_section_9_quotes_source_004s_equation_as_written():
    """03-H: source 004's final equation reads Multi-Head Attention(Q, K, V), not MultiHead(Q, K, V)."""
    text = prose("03", "s9-note")
    assert r"\text{Multi-Head Attention}(Q, K, V)" in text and r"\mathrm{MultiHead}(Q, K, V)" in text
    assert "Its final equation is written $\\mathrm{MultiHead}" not in text


# ---------- review round 12 of lesson 03 -----------------------------------------------------------------

def test_03_3_a_width_two_loop_or_reshape_gets_the_fixed_width_hint_not_columns_2i():
    """Item 1: §2's own slicing with the kernel's d_k = 2, and reshape(n, -1, d_k), are right on every array
    with d_k = 2 and wrong on the (3, 12) array with h = 4 (d_k = 3): they got the generic message, which said
    'columns 2i and 2i+1', the width-2 belief itself. Shapes by hand: 12 // 4 = 3 columns a head."""
    def loop(M, h):
        return np.stack([M[:, i * d_k:(i + 1) * d_k] for i in range(h)])

    def minus_one(M, h):
        return M.reshape(len(M), -1, d_k).transpose(1, 0, 2)

    def typed_two(M, h):
        return np.stack([M[:, 2 * i:2 * i + 2] for i in range(h)])

    M = np.arange(36.0).reshape(3, 12)
    assert loop(M, 4).shape == (4, 3, 2) and minus_one(M, 4).shape == (6, 3, 2)   # the right one: (4, 3, 3)
    M6 = np.arange(30.0).reshape(5, 6)
    assert np.array_equal(loop(M6, 3), np.stack([M6[:, :2], M6[:, 2:4], M6[:, 4:]]))   # right for d_k = 2
    for fn in (loop, minus_one, typed_two):
        result = status("03.3", fn)
        assert result.status == "mistake" and result.mistake == "fixed width", result.message
        assert "d_k = d // h" in result.message and "2i" not in result.message, result.message
    # a split wrong twice (no transpose, and width 2) hears of the transpose first; no message says '2i'
    result = status("03.3", lambda M, h: M.reshape(len(M), h, d_k))
    assert result.mistake == "no transpose", result.message
    result = status("03.3", lambda M, h: np.stack([M[:, i::h] for i in range(h)], axis=1))
    assert result.status != "correct" and "2i" not in result.message and "(4, 3, 3)" in result.message, \
        result.message


def test_03_2_hints_state_only_a_turn_the_block_has():
    """Item 3: cos and sin swapped turns by π/2 − 2θ = −0.25θ (by hand: π/2 = 1.75θ, as θ = 2π/7) and was told
    'does not turn at all'; a sign slip is no rotation and was told 'turns forward by 2θ'; −8 R(2θ) turns by
    2θ + π = 5.5θ ≡ −1.5θ and was asked 'degrees?'."""
    ex = al.the_cat_sat()
    t = ex.theta
    assert abs((np.pi / 2 - 2 * t) / t + 0.25) < 1e-12 and abs(np.pi / t - 3.5) < 1e-12
    c, s = np.cos(2 * t), np.sin(2 * t)

    swapped = status("03.2", head1(8 * np.array([[s, -c], [c, s]])))
    assert swapped.status != "correct" and "cos and sin swapped" in swapped.message, swapped.message
    assert "forward by 0.25θ" in swapped.message and "not turn" not in swapped.message, swapped.message
    sign = status("03.2", head1(8 * np.array([[c, s], [-s, -c]])))
    assert sign.status != "correct" and "no rotation" in sign.message, sign.message
    assert "forward" not in sign.message, sign.message
    negative = status("03.2", head1(-8 * rotation(2 * t)))
    assert negative.status != "correct" and "negative" in negative.message, negative.message
    assert "degrees" not in negative.message and "forward by 1.50θ" in negative.message, negative.message
    assert status("03.2", head1(8 * rotation(2 * 360 / 7))).message.count("degrees") == 1   # still asked
    for block, mistake in ((8 * rotation(3 * t), "three back"), (8 * np.eye(2), "itself"),
                           (8 * rotation(-2 * t), "two forward"), (4 * rotation(t), "still previous")):
        assert status("03.2", head1(block)).mistake == mistake


def test_03_explorer_maps_and_table_label_the_two_thes_as_the_summary_does():
    """Item 4: the summary said the₁ / the₂, the maps and the output table 'the' twice."""
    ex = heads_explorer()
    for key in ("head0", "shown", "output"):
        assert [t.get_text() for t in ex.axes[key].get_yticklabels()] == NAMED, key
    assert [t.get_text() for t in ex.axes["shown"].get_xticklabels()] == NAMED


def test_03_after_03_1_the_site_shows_what_4_heads_do_collapsed():
    """Item 5: what h = 4 shows was only in 03.1's ✓, which the static site never prints; a collapsed note
    below 03.1 says it, in the ✓'s own words, and §10 points to it."""
    note = prose("03", "ex-03-2")
    assert note.startswith("<details><summary>After 03.1") and "</details>" in note
    inside = " ".join(note.split("</details>")[0].split())
    remark = " ".join(status("03.1", "b").message.split())
    for words in ("no head finds the previous token for every word", "only by coincidence",
                  "(*cat* in head 1, *on* in head 2)", "Head 4 (function) does the same for function words"):
        assert words in inside, words
        assert words.replace("*", "").lower() in remark.lower(), words
    assert "After 03.1" in prose("03", "s10")
    assert "No head finds the previous token" not in prose("03", "s10")


# ---------- review round 13 of lesson 03 -----------------------------------------------------------------

def test_03_section_4_says_how_each_paper_pruned():
    """Item 1: Voita et al. 2019 switched heads off with learned gates (a relaxed L0 penalty) while training
    went on; Michel et al. 2019 removed heads from the trained model at test time, without retraining. 'The
    rest can be pruned (removed after training)' and 'found the same' blurred the two."""
    text = prose("03", "s4")
    voita, michel = text.split("Michel et al. 2019")
    for words in ("learned gates", "relaxed $L_0$ penalty", "went on training", "the heads kept have"):
        assert words in voita, words
    for words in ("at test time", "without retraining"):
        assert words in michel, words
    for claim in ("removed after training", "found the same"):
        assert claim not in text, claim
    for cell in ("intro", "summary"):
        assert "with or without further training" in prose("03", cell), cell


def head1_weights_by_hand(W_q):
    """Head 1's weights (columns 0-1 of Q and K, ÷ √2) for the lesson's sentence, in plain NumPy."""
    ex = al.the_cat_sat()
    Q, K = ex.X @ W_q, ex.X @ ex.W_k
    return sm(Q[:, :2] @ K[:, :2].T / np.sqrt(2))


def test_03_2_the_tie_hint_and_the_wrong_rows_hint_state_only_what_is_true():
    """Item 5: R(π − 2θ) (both cosines of R(2θ) negated) turns by 3.5θ − 2θ = 1.5θ and ties, but is no sum:
    the hint asserted 'a sum of the turns … turns by their mean angle'. 8 R(2θ) put in rows 2-3 leaves head
    1's block all zeros: the hint said 'compare your block's signs'."""
    ex = al.the_cat_sat()
    t = ex.theta
    c, s = np.cos(2 * t), np.sin(2 * t)
    W = ex.W_q.copy()
    W[:2, :2] = 8 * np.array([[-c, -s], [s, -c]])
    assert np.allclose(W[:2, :2], 8 * rotation(np.pi - 2 * t)) and abs((np.pi - 2 * t) / t - 1.5) < 1e-12
    result = status("03.2", W)
    assert result.mistake == "tie" and "1.5θ" in result.message, result.message
    assert "If you added R(θ) and R(2θ)" in result.message, result.message
    assert "(a sum of the turns by θ and by 2θ turns by their mean angle)" not in result.message
    W = np.zeros((4, 4))
    W[2:, :2], W[2:, 2:] = 8 * rotation(2 * t), ex.W_q[2:, 2:]   # the wrong rows; head 2's block kept
    assert not W[:2, :2].any()
    result = status("03.2", W)
    assert result.status == "mistake" and "all zeros" in result.message, result.message
    assert "signs" not in result.message and "no rotation" not in result.message, result.message


def test_03_3_dot_t_and_a_row_loop_get_hints_about_what_they_did():
    """Item 3: .T reverses all three axes of (n, h, d_k), giving (d_k, h, n) (by hand: (5, 6) with h = 3 gives
    (2, 3, 5)); a loop over rows never calls np.split and was told about np.split's default axis."""
    def dot_t(M, h):
        n, d = M.shape
        return M.reshape(n, h, d // h).T

    def rows(M, h):
        k = M.shape[1] // h
        return np.stack([M[i * k:(i + 1) * k, :] for i in range(h)])

    assert dot_t(np.zeros((5, 6)), 3).shape == (2, 3, 5)
    result = status("03.3", dot_t)
    assert result.status == "mistake" and ".T reverses all three axes" in result.message, result.message
    assert "(d_k, h, n)" in result.message and ".transpose(1, 0, 2)" in result.message, result.message
    result = status("03.3", rows)
    assert result.status == "mistake" and "np.split" not in result.message, result.message
    assert "blocks of rows" in result.message and "axis=1" in result.message, result.message


def test_03_4_head_i_owning_output_columns_gets_a_named_hint():
    """Item 4: the output's columns cut in two (as (2, 3, 2), or padded with zeros), and head_i @ W_O's
    diagonal block only: the misconception that a head owns output columns, built by hand here."""
    Q = X34 @ WQ34
    cols = (slice(0, 2), slice(2, 4))
    H = [sm(Q[:, c] @ X34[:, c].T / np.sqrt(2)) @ X34[:, c] for c in cols]
    out = np.hstack(H) @ WO34
    zero = np.zeros((3, 2))
    answers = [np.stack([out[:, :2], out[:, 2:]]),
               np.stack([np.hstack([out[:, :2], zero]), np.hstack([zero, out[:, 2:]])]),
               np.stack([np.hstack([H[0] @ WO34[:2, :2], zero]), np.hstack([zero, H[1] @ WO34[2:, 2:]])])]
    for answer in answers:
        result = status("03.4", answer)
        assert result.status == "mistake", result.message
        assert "owns no output columns" in result.message and "every output column" in result.message
    assert "columns 0-1" in status("03.4", answers[1]).message
    assert "diagonal blocks" in status("03.4", answers[2]).message


def test_03_figures_label_the_two_thes_as_the_explorer_does():
    """Item 6: the §3 grid, the §4 map and the §6 flow labelled both thes 'the'; they now say the₁ / the₂, the
    explorer's names. The cells run here, in order, from s1-code to s6-flow-code."""
    import matplotlib.pyplot as plt

    cells = lesson_cells("03")
    ids = list(cells)
    ns = {"al": al, "np": np}
    drawn = {}
    for cid in ids[ids.index("s1-code"):ids.index("s6-flow-code") + 1]:
        if cid.endswith(("-code", "-grid", "-check")):
            plt.close("all")
            exec(cells[cid], ns)
            drawn[cid] = [a for n in plt.get_fignums() for a in plt.figure(n).axes]
    plt.close("all")
    for cid in ("s3-grid", "s4-code", "s6-flow-code"):
        texts = [t.get_text() for a in drawn[cid] for t in (*a.get_xticklabels(), *a.get_yticklabels())]
        assert "the₁" in texts and "the₂" in texts and "the" not in texts, (cid, texts)


# ---------- review round 14 of lesson 03 -----------------------------------------------------------------

def test_03_2_is_judged_by_its_stated_criteria_and_a_non_rotation_gets_a_remark_with_its_tick():
    """Item 1: the exercise asks that sat, on, the₂ and mat each give the token two back the largest weight,
    at least 0.5, with head 2 unchanged. 8 R(2θ) + 0.5 diag(1, −1), diag(10, 6) R(2θ) and 8 R(2θ) with its
    top-left sign flipped meet that (checked by hand) but got 'not yet … no rotation'; 8 R(2θ) with rows 2-3
    of column 0 set to 3 got a bare ✓. Now all four get ✓, each with a true remark; a non-rotation that
    misses gets the 'no rotation' hint, without 'compare your block's signs' or the answer."""
    ex = al.the_cat_sat()
    t = ex.theta
    c, s = np.cos(2 * t), np.sin(2 * t)
    q = np.arange(2, 6)
    passing = []
    for block in (8 * rotation(2 * t) + 0.5 * np.diag([1.0, -1.0]), np.diag([10.0, 6.0]) @ rotation(2 * t),
                  8 * np.array([[-c, -s], [s, c]])):
        W = ex.W_q.copy()
        W[:2, :2] = block
        passing.append((W, "is no rotation times a positive number"))
    W = ex.W_q.copy()
    W[:2, :2] = 8 * rotation(2 * t)
    W[2, 0] = W[3, 0] = 3.0
    passing.append((W, "also read the word kinds"))
    for W, remark in passing:
        A = head1_weights_by_hand(W)
        assert (A[q, q - 2] >= 0.5).all() and (A[q].argmax(axis=1) == q - 2).all()   # the criteria, met
        result = status("03.2", W)
        assert result.status == "correct", result.message                            # was: "not yet"
        assert result.message.startswith("Exercise 03.2: ✓ correct. It works on these positions, though")
        assert remark in result.message, result.message
    W = ex.W_q.copy()
    W[:2, :2] = 8 * rotation(2 * t)
    assert status("03.2", W).message == "Exercise 03.2: ✓ correct."                   # a turn: no remark
    W[:2, :2] = 8 * np.array([[c, s], [-s, -c]])                                       # a reflection: misses
    A = head1_weights_by_hand(W)
    assert not (A[q].argmax(axis=1) == q - 2).all()
    result = status("03.2", W)
    assert result.mistake == "no rotation", result.message
    assert "equal numbers on its diagonal" in result.message, result.message
    assert "Compare your block's signs" not in result.message and "8 R(2θ)" not in result.message


def test_03_2_half_step_hints_hold_for_any_factor_keep_the_prefix_and_never_give_the_answer():
    """Item 2: 8 R(0.5θ), 8 R(−0.5θ) and 8 R(2.5θ) have a positive factor but were told 'it equals a negative
    number times R(…) … Use a positive factor: two tokens back is 8 R(2θ)'; these, the element-wise product
    8 R(θ) * R(θ) and the per-row message had no 'not yet. Hint:'; several hints ended with 8 R(2θ)."""
    ex = al.the_cat_sat()
    t = ex.theta

    messages = []
    for block in (8 * rotation(0.5 * t), 8 * rotation(-0.5 * t), 8 * rotation(2.5 * t), -8 * rotation(2 * t)):
        result = status("03.2", head1(block))
        assert result.status != "correct", result.message
        assert "half a step off a whole number of steps" in result.message, result.message
        assert "If your factor is negative" in result.message, result.message
        for wrong in ("Use a positive factor", "it equals a negative number"):
            assert wrong not in result.message, result.message
        messages.append(result.message)
    c, s = np.cos(2 * t), np.sin(2 * t)
    for W in (head1(8 * rotation(t) * rotation(t)), head1(8 * np.array([[s, -c], [c, s]])),
              head1(8 * rotation(2 * 360 / 7)), head1(np.diag([1.0, 2.0]) @ rotation(2 * t) / 4)):
        result = status("03.2", W)
        assert result.status != "correct", result.message
        messages.append(result.message)
    assert "* multiplies entry by entry" in messages[4], messages[4]              # the element-wise product
    messages += [f"Exercise 03.2: not yet. Hint: {hint}" for _, hint in mistakes_of("03.2").values()]
    for message in messages:
        assert message.startswith("Exercise 03.2: not yet. Hint: "), message
        assert "8 R(2θ)" not in message, message


def test_03_section_4_names_michels_removal_a_zero_ablation_and_the_one_heads_divisor():
    """Items 3 and 4: Michel et al. 2019 multiply a head's output by 0 (zero-ablation, lesson 09's word); one
    head of width 4 adds the two score parts and divides by √4, not √2 (by hand below)."""
    text = prose("03", "s4")
    michel = text.split("Michel et al. 2019")[1]
    assert "removed heads from a trained model" not in text                             # was
    assert "removed heads (their output multiplied by 0, a zero-ablation, as lesson 09 calls it)" in michel
    assert "zero-ablation" in " ".join(lesson_cells("09").values())
    assert "add up into one score (divided by $\\sqrt{4}$ now)" in text
    ex = al.the_cat_sat()
    Q, K = ex.X @ ex.W_q, ex.X @ ex.W_k
    two = [Q[:, c] @ K[:, c].T / np.sqrt(2) for c in (slice(0, 2), slice(2, 4))]
    assert np.allclose(Q @ K.T / np.sqrt(4), (two[0] + two[1]) / np.sqrt(2))


def test_03_four_heads_the_2_and_mat_tie_their_previous_token_in_head_1():
    """Item 5: with h = 4, head 1 (column 0 only, ÷ √1) gives the₂ and mat a top weight shared by their
    previous token and another word (by hand: on / the₂ 0.496 each); the text named only cat and on."""
    ex = al.the_cat_sat()
    Q, K = ex.X @ ex.W_q, ex.X @ ex.W_k
    A = sm(np.outer(Q[:, 0], K[:, 0]))
    for i in (4, 5):                                                                     # the₂, mat
        top = np.flatnonzero(A[i] >= A[i].max() - 1e-9)
        assert len(top) == 2 and i - 1 in top, (i, A[i])
    words = "in head 1, the₂ and mat share their top weight between their previous token and another word"
    assert words in prose("03", "ex-03-2").replace("*", "")
    assert words in " ".join(status("03.1", "b").message.split())


def test_03_w_o_map_labels_its_output_columns_as_the_explorers_table():
    """Item 6: the §6 W_O map named its output columns 'cos pos, sin pos, content, function'; after the mix
    column 0 is cos + ½ content, and the §10 table calls them 0-3."""
    import matplotlib.pyplot as plt

    cells = lesson_cells("03")
    ids = list(cells)
    ns = {"al": al, "np": np}
    for cid in ids[ids.index("s1-code"):ids.index("s6-code") + 1]:
        if cid.endswith(("-code", "-grid", "-check")):
            plt.close("all")
            exec(cells[cid], ns)
    labels = [t.get_text() for t in ns["ax"].get_xticklabels()]
    plt.close("all")
    assert labels != ["cos pos", "sin pos", "content", "function"]
    assert labels == ["0", "1", "2", "3"]
    assert [t.get_text() for t in heads_explorer().axes["output"].get_xticklabels()] == labels


def test_03_3_heads_first_but_columns_and_tokens_swapped_is_told_a_fix_that_works():
    """Review round 15, item 1: M.T.reshape(h, d_k, n) holds each head's numbers in shape (h, d_k, n) and was
    told '.transpose(1, 0, 2)', which gives (d_k, h, n); swapping its last two axes is the fix (by hand)."""
    def split(M, h):
        n, d = M.shape
        return M.T.reshape(h, d // h, n)
    result = status("03.3", split)
    assert result.mistake == "axes mixed", result.message
    assert ".transpose(0, 2, 1)" in result.message, result.message
    M = np.arange(12.0).reshape(3, 4)
    fixed = split(M, 2).transpose(0, 2, 1)
    assert np.array_equal(fixed[0], M[:, :2]) and np.array_equal(fixed[1], M[:, 2:])
    wide = np.arange(36.0).reshape(3, 12)                          # h = 4 heads of d_k = 3: the old advice
    assert split(wide, 4).transpose(1, 0, 2).shape == (3, 4, 3) != (4, 3, 3)   # gives (d_k, h, n)

    def followed(M, h):
        n, d = M.shape
        return M.T.reshape(h, d // h, n).transpose(0, 2, 1)
    assert status("03.3", followed).status == "correct"


# ---------- review round 15 of lesson 03 -----------------------------------------------------------------

def test_03_2_asks_about_degrees_only_for_a_turn_that_degrees_give():
    """Item 2: 8 R(2.7θ) was asked 'Is your angle in degrees?'. Degrees read as radians turn by k·180/π steps
    θ modulo 7 (by hand: 57.2958 - 56 = 1.2958 for θ, 114.5916 - 112 = 2.5916 for 2θ), and 2.7 is neither."""
    t = al.the_cat_sat().theta
    assert abs((360 / 7) / t - 57.2958) < 1e-4 and abs((2 * 360 / 7) / t - 114.5916) < 1e-4
    for typed in (2.7 * t, 0.7 * t, 3.3 * t):
        result = status("03.2", head1(8 * rotation(typed)))
        assert result.status != "correct" and "not a whole number of steps" in result.message, result.message
        assert "degrees" not in result.message and "two tokens back is a turn by 2θ" in result.message, \
            result.message
    for typed, steps in ((360 / 7, "1.30θ"), (2 * 360 / 7, "2.59θ")):           # the slips degrees give
        result = status("03.2", head1(8 * rotation(typed)))
        assert "Is your angle in degrees?" in result.message and steps in result.message, result.message


def test_03_2_a_negative_turn_is_told_forward_not_back_by_a_negative_angle():
    """Item 3: 8 R(−0.5θ) was told 'turns each position back by -0.50θ', −8 R(2θ) 'back by -1.50θ' (2θ plus
    half a turn, 3.5θ, is 5.5θ ≡ −1.5θ), R(θ)'s transpose with cos and sin swapped 'back by -0.25θ'."""
    t = al.the_cat_sat().theta
    c, s = np.cos(2 * t), np.sin(2 * t)
    for block, said in ((8 * rotation(-0.5 * t), "forward by 0.50θ"),
                        (-8 * rotation(2 * t), "forward by 1.50θ"),
                        (8 * np.array([[s, -c], [c, s]]), "forward by 0.25θ"),
                        (8 * rotation(-2.7 * t), "forward by 2.70θ")):
        result = status("03.2", head1(block))
        assert result.status != "correct" and said in result.message, result.message
        assert "back by -" not in result.message, result.message
    assert "back by 2.70θ" in status("03.2", head1(8 * rotation(2.7 * t))).message


def test_03_4_a_right_answer_rounded_to_1_decimal_is_told_to_keep_its_digits():
    """Item 4: the right contributions rounded to 1 decimal (each within 0.05) were told 'go through the steps
    of the lesson again'; they are told the steps are right and not to round. 2 decimals still pass."""
    Q = X34 @ WQ34
    right = np.stack([sm(Q[:, c] @ X34[:, c].T / np.sqrt(2)) @ X34[:, c] @ WO34[c]
                      for c in (slice(0, 2), slice(2, 4))])
    assert status("03.4", np.round(right, 2)).status == "correct"
    for rounded in (np.round(right, 1), np.round(right, 1).tolist()):
        result = status("03.4", rounded)
        assert result.status != "correct", result.message
        assert "rounded to 1 decimal: your steps are right. Do not round" in result.message, result.message
        assert "go through the steps" not in result.message, result.message
    far = status("03.4", np.round(right, 1) + 0.1)                              # a wrong answer stays wrong
    assert "Do not round" not in far.message and "go through the steps" in far.message, far.message


# ---------- review round 19 of lesson 03 -----------------------------------------------------------------

def steps_by_hand(angle):
    """How far R(angle) turns a position back, in steps θ = 2π/7, taken into (-3.5, 3.5]: 7 steps a circle."""
    return (angle * 7 / (2 * np.pi) + 3.5) % 7 - 3.5


def test_03_2_a_wrong_angle_that_passes_is_told_its_turn_with_its_tick():
    """Item 1: θ′ = 2π/6 (block 8 R(2θ′), 2·7/6 = 2.33θ), 2θ typed as 102 read as radians (102 − 16·2π =
    1.469 rad = 1.64θ) and 8 R(θ) R(360/7) (1 + 1.30 = 2.30θ) meet the criteria and got a bare '✓ correct.'.
    Now the ✓ names the turn and 2θ; every turn the ✓ takes (1.51θ to 2.49θ, factors 8, 16, 64) is named
    unless within 0.05 of 2θ, and 8 R(2θ) keeps its bare ✓."""
    t = al.the_cat_sat().theta
    q = np.arange(2, 6)                                                # sat, on, the₂, mat
    assert abs(steps_by_hand(2 * 2 * np.pi / 6) - 14 / 6) < 1e-12
    assert abs(steps_by_hand(102) - (102 - 32 * np.pi) * 7 / (2 * np.pi)) < 1e-12
    for block, said in ((8 * rotation(2 * 2 * np.pi / 6), "back by 2.33θ"),
                        (8 * rotation(102), "back by 1.64θ"),
                        (8 * rotation(t) @ rotation(360 / 7), "back by 2.30θ")):
        A = head1_weights_by_hand(head1(block))
        assert (A[q, q - 2] >= 0.5).all() and (A[q].argmax(axis=1) == q - 2).all()   # the criteria, met
        result = status("03.2", head1(block))
        assert result.status == "correct", result.message
        assert result.message.startswith("Exercise 03.2: ✓ correct. It works on these positions, though"), \
            result.message
        assert said in result.message and "not by 2θ = 4π/7" in result.message, result.message
        assert "θ = 2π/7 (ex.theta)" in result.message and "take radians" in result.message, result.message
    for factor in (8, 16, 64):
        for steps in np.arange(1.5, 2.5, 0.01):
            result = status("03.2", head1(factor * rotation(steps * t)))
            if result.status == "correct" and abs(steps - 2) >= 0.05:
                assert f"back by {steps:.2f}θ, not by 2θ" in result.message, (factor, steps, result.message)
    assert status("03.2", head1(8 * rotation(2 * t))).message == "Exercise 03.2: ✓ correct."
    W = head1(8 * rotation(2.3 * t))
    W[2, 0] = 1.0                                                      # both remarks, each once
    A = head1_weights_by_hand(W)
    assert (A[q, q - 2] >= 0.5).all() and (A[q].argmax(axis=1) == q - 2).all()   # the criteria, met
    message = status("03.2", W).message
    assert message.count("It works on these positions") == 1 and "back by 2.30θ" in message, message
    assert "Head 1's queries also read the word kinds" in message, message


def test_03_2_degrees_typed_to_one_decimal_end_with_radians_and_no_hint_states_a_false_cause():
    """Item 2: θ typed as 51.4 (block 8 R(102.8), 2.53θ by hand) got 'not a whole number … 2θ', with no cue to
    the degrees; 51.5 (8 R(103), 2.75θ: a quarter off) was asked only 'are cos and sin swapped?'. Now every
    hint on a turn that is no whole number of steps ends on radians, and the quarter question names degrees
    too. 2θ typed as 50.2 (−0.15θ) got 'a turn back by θ and one forward by θ cancel', and 52.9 (−1.13θ)
    'transposing a rotation turns it the other way': causes these answers do not have."""
    radians = "np.cos and np.sin take radians, and θ = 2π/7 radians (ex.theta)."
    for typed, steps in ((51.4, 2.53), (51.5, 2.75)):
        assert abs(steps_by_hand(2 * typed) - steps) < 0.005, steps_by_hand(2 * typed)
    result = status("03.2", head1(8 * rotation(2 * 51.4)))
    assert result.status != "correct", result.message
    assert "back by 2.53θ, not a whole number" in result.message, result.message
    assert result.message.endswith(radians), result.message
    result = status("03.2", head1(8 * rotation(2 * 51.5)))
    assert "are cos and sin swapped, or is the angle in degrees?" in result.message, result.message
    assert "np.cos and np.sin take radians" in result.message, result.message
    half = status("03.2", head1(8 * rotation(0.5 * al.the_cat_sat().theta)))          # half a step: 0.50θ
    assert "half a step off" in half.message and half.message.endswith(radians), half.message
    assert abs(steps_by_hand(2 * 50.2) + 0.146) < 0.005 and abs(steps_by_hand(2 * 52.9) + 1.13) < 0.005
    itself = status("03.2", head1(8 * rotation(2 * 50.2)))
    forward = status("03.2", head1(8 * rotation(2 * 52.9)))
    assert itself.mistake == "itself" and forward.mistake == "next", (itself.message, forward.message)
    assert "(a turn back by θ and one forward by θ cancel)" not in itself.message, itself.message
    assert "less than 0.2θ" in itself.message and "if you multiplied" in itself.message, itself.message
    assert "transposing a rotation turns it" not in forward.message, forward.message
    assert "forward by about one step, θ" in forward.message, forward.message



def test_03_2_sibling_hints_state_only_an_approximate_turn_and_a_cause_if_it_is_one():
    """Review round 23, 23-03-A: 'still previous', 'three back' and 'two forward' are reached by any turn
    within 0.2θ of a whole step, and said exactly θ / 3θ / 2θ and a cause (a factor, R(θ) three times,
    R(2θ)ᵀ) that a degree slip has not. By hand (steps_by_hand): 2θ typed as 101.5 turns back by 1.08θ,
    103.4 by 3.20θ, 4.6 and 10.9 forward by 1.88θ and 1.86θ. Each now gets 'about', its cause as an 'if',
    and radians."""
    t = al.the_cat_sat().theta
    radians = ("If you typed the angle yourself: np.cos and np.sin take radians, and θ = 2π/7 radians "
               "(ex.theta).")
    for typed, steps in ((101.5, 1.08), (103.4, 3.20), (4.6, -1.88), (10.9, -1.86)):
        assert abs(steps_by_hand(typed) - steps) < 0.005, (typed, steps_by_hand(typed))
    cases = ((8 * rotation(101.5), "still previous"), (8 * rotation(101.3), "still previous"),
             (16 * rotation(t), "still previous"), (8 * rotation(103.4), "three back"),
             (8 * rotation(103.1), "three back"), (8 * rotation(3 * t), "three back"),
             (8 * rotation(4.6), "two forward"), (8 * rotation(10.9), "two forward"),
             (8 * rotation(-1.85 * t), "two forward"), (8 * rotation(-2 * t), "two forward"))
    for block, mistake in cases:
        result = status("03.2", head1(block))
        assert result.mistake == mistake, (mistake, result.message)
        message = result.message
        assert message.endswith(radians), message
        for exact in ("back by one step, θ (its factor", "turns each position back by 3θ",
                      "forward by 2θ (a rotation written", "R(θ) twice, not three times"):
            assert exact not in message, message
    assert "back by about one step, θ (if you scaled R(θ)" in \
        status("03.2", head1(8 * rotation(101.5))).message
    assert "back by about 3θ (if you multiplied R(θ) three times" in \
        status("03.2", head1(8 * rotation(103.4))).message
    assert "forward by about 2θ (if you wrote a rotation for column vectors" in \
        status("03.2", head1(8 * rotation(4.6))).message


def test_03_2_every_hint_a_typed_degree_angle_reaches_names_radians():
    """Review round 24, 24-F: 8 R(φ) with φ a whole number of degrees typed as radians reached "next" (18,
    43), "itself" (19, 44), "too weak" (171, 241) and the fallback (10) with no word on radians. Every hint
    such an answer gets, over φ = -360 ... 360, now says np.cos and np.sin take radians."""
    for degrees, mistake in ((18, "next"), (43, "next"), (19, "itself"), (44, "itself"), (171, "too weak"),
                             (241, "too weak"), (10, None)):
        result = al.EXERCISES["03.2"].evaluate(head1(8.0 * rotation(float(degrees))))
        assert result.status != "correct" and result.mistake == mistake, (degrees, result.message)
        assert result.message.endswith("θ = 2π/7 radians (ex.theta)."), (degrees, result.message)
    for degrees in range(-360, 361):
        result = al.EXERCISES["03.2"].evaluate(head1(8.0 * rotation(float(degrees))))
        assert result.status == "correct" or "np.cos and np.sin take radians" in result.message, (
            degrees, result.message)
