"""explorers.py: each lesson's slider explorer, as a student sees it (the quick lane's file for the module).

Small explorers are built, one per test, and moved through every check (see the end of the file). The
expected numbers are worked out here by another route: attention written out in NumPy (scores, a softmax,
the weighted values; masks as lower triangles, positions as sines and rotations by hand, the training
model's forward pass written out), never read back from the package. What is compared is what a student
gets: the numbers beside the sliders (parsed from the text, or typed), the cells each heatmap draws and the
numbers printed in them, the labels and titles, each slider's name, range and start, and which panels a
slider moves.
"""

import dataclasses
import re

import numpy as np
import pytest

import attention_lab as al
from attention_lab.explorers import anchored_range, numbered


# ------------------------------------------------------------------ helpers written apart from the package
def softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def cells(explorer, key, shape) -> np.ndarray:
    """The numbers a panel's heatmap colours, as drawn."""
    return np.asarray(explorer.axes[key].collections[0].get_array(), dtype=float).reshape(shape)


def printed(explorer, key) -> list[str]:
    """The numbers written in a panel's cells."""
    return [t.get_text() for t in explorer.axes[key].texts]


def two_decimals(M) -> list[str]:
    return [f"{v:.2f}" for v in np.ravel(M)]


def four_decimals(line: str) -> np.ndarray:
    """The numbers of a readout line printed with exactly four decimals."""
    return np.array([float(v) for v in re.findall(r"-?\d+\.\d{4}(?!\d)", line)])


def same_to_four(line: str, expected) -> bool:
    got, expected = four_decimals(line), np.ravel(expected)
    return got.shape == expected.shape and bool(np.all(np.abs(got - expected) <= 5.01e-5))


def ticks(ax, axis="x") -> list[str]:
    return [t.get_text() for t in (ax.get_xticklabels() if axis == "x" else ax.get_yticklabels())]


def slider(explorer, key) -> tuple:
    s = explorer.sliders[key]
    return s.description, s.min, s.max, s.step, s.value


def size(explorer) -> tuple:
    return tuple(float(v) for v in explorer.figure.get_size_inches())


# ------------------------------------------------------------------ each test builds its explorer itself
# (one explorer per lesson, moved through every check below): mutmut maps a test to the functions its own
# call reaches, not to what a module-scope fixture built for an earlier test, so a shared explorer would
# leave most checks out of the run of a mutant of its factory.
def test_lesson_01s_token_explorer():
    token = make_token()
    check_token_explorer_shows_y2_worked_out_by_hand(token)
    check_token_explorer_prints_a_vanishing_weight_as_zero(token)
    check_token_explorer_panels_sliders_and_colour_scale(token)


def test_lesson_02s_matrix_explorer():
    matrix = make_matrix()
    check_matrix_explorer_every_weight_and_output_by_hand(matrix)
    check_matrix_explorer_panels_sliders_and_colour_scale(matrix)


def test_lesson_02s_dk_explorer():
    dk = make_dk()
    for d_k in (1, 4, 10):
        check_dk_explorer_scales_the_first_d_k_features_by_hand(dk, d_k)
    check_dk_explorer_slider_panel_and_defaults(dk)


def test_lesson_03s_heads_explorer():
    heads = make_heads()            # in an order that lays the figure out anew only twice
    check_heads_explorer_sliders_labels_and_colour_scale(heads)
    check_heads_explorer_draws_every_head_and_the_output_by_hand(heads, 4, 3)   # one head: below
    check_the_head_shown_follows_the_number_of_heads(heads)
    check_heads_explorer_draws_every_head_and_the_output_by_hand(heads, 2, 2)
    check_heads_explorer_names_the_strongest_key_of_each_query(heads)


def test_lesson_04s_cross_explorer():
    cross = make_cross()
    for causal in (True, False):
        for padding in (True, False):
            check_cross_explorer_masks_and_weights_by_hand(cross, causal, padding)
    check_cross_explorer_sliders_and_panels(cross)


def test_lesson_05s_position_explorer():
    pos = make_pos()
    for shift, strength, swap in ((0, 1.0, False), (5, 2.5, False), (3, 0.0, True), (40, 1.0, True)):
        check_position_explorer_three_maps_by_hand(pos, shift, strength, swap)
    check_position_explorer_sliders_and_panels(pos)


def test_lesson_06s_training_explorer():
    training = make_training()
    for step in (0, 3):
        check_training_explorer_shows_each_kept_step_by_hand(training, step)
    check_training_explorer_slider_and_panels(training)
    check_training_explorer_probes_the_first_sequence_by_default(training)


# ------------------------------------------------------------------ lesson 01 and 02's data
CCM = al.cats_chase_mice()          # tokens cats, chase, small, mice; features noun, verb, animal, small
TOKENS, FEATURES = CCM.tokens, CCM.features
V_DIAG = np.array([1.0, 1.0, 2.0, 0.5])          # W_v = diag(1, 1, 2, 0.5)


def queries(X):
    """x W_q written out: verb -> 2·animal, small -> noun."""
    return np.column_stack([X[:, 3], np.zeros(len(X)), 2 * X[:, 1], np.zeros(len(X))])


def make_token():
    return al.token_explorer(1, CCM.X, CCM.W_q, CCM.W_k, CCM.W_v, TOKENS, FEATURES, scale=1.0)


def make_token_wide():
    """Default scale (1/√d_k), a range of -5..2, and values of width 3 (components named 0, 1, 2)."""
    W_v = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 2.0], [0, 0, 0.5]])
    return al.token_explorer(2, CCM.X, CCM.W_q, CCM.W_k, W_v, TOKENS, FEATURES, low=-5.0, high=2.0)


def check_token_explorer_shows_y2_worked_out_by_hand(token):
    x = np.array([1.5, 2.0, -0.5, 0.3])
    token.set(noun=1.5, verb=2.0, animal=-0.5, small=0.3)
    X = CCM.X.copy()
    X[1] = x
    w = softmax(X @ queries(X)[1])                       # scale 1: the keys are the rows of X (W_k = I)
    y = w @ (X * V_DIAG)
    assert np.allclose(cells(token, "weights", (1, 4)), w) and np.allclose(cells(token, "output", (1, 4)), y)
    assert printed(token, "weights") == two_decimals(w) and printed(token, "output") == two_decimals(y)
    lines = token.summary().split("\n")
    assert lines[0] == "x₂ = [ 1.5000  2.0000 -0.5000  0.3000]"
    assert lines[1].startswith("w₂ⱼ = [") and lines[1].endswith("]  (sum 1.0000)")
    assert same_to_four(lines[1].split("(sum")[0], w) and len(lines) == 3
    assert lines[2].startswith("y₂ = [") and same_to_four(lines[2], y)


def check_token_explorer_prints_a_vanishing_weight_as_zero(token):
    """Every slider at 3: chase's own score 27 wins, the others' weights are below 1e-10 and print as
    0.0000 (not 1e-11), and y₂ is chase's value (3, 3, 6, 1.5)."""
    token.set(noun=3.0, verb=3.0, animal=3.0, small=3.0)
    text = token.summary()
    assert "e-" not in text and "e+" not in text
    lines = text.split("\n")
    assert lines[1] == "w₂ⱼ = [0.0000 1.0000 0.0000 0.0000]  (sum 1.0000)"
    assert lines[2] == "y₂ = [3.0000 3.0000 6.0000 1.5000]"


def check_token_explorer_panels_sliders_and_colour_scale(token):
    token.reset()
    assert [slider(token, f) for f in FEATURES] == [
        ("x₂[noun]", -3.0, 3.0, 0.1, 0.0), ("x₂[verb]", -3.0, 3.0, 0.1, 1.0),
        ("x₂[animal]", -3.0, 3.0, 0.1, 0.0), ("x₂[small]", -3.0, 3.0, 0.1, 0.0)]
    weights, output = token.axes["weights"], token.axes["output"]
    assert ticks(weights, "y") == ["chase (y₂)"] and ticks(weights) == TOKENS
    assert (weights.get_title(), weights.get_xlabel(), weights.get_ylabel()) == (
        "weights w₂ⱼ: what y₂ listens to", "key token", "query")
    assert ticks(output, "y") == ["y₂"] and ticks(output) == FEATURES
    assert (output.get_title(), output.get_xlabel(), output.get_ylabel()) == ("output y₂", "component", "")
    w_norm, y_norm = weights.collections[0].norm, output.collections[0].norm
    assert (w_norm.vmin, w_norm.vmax) == (0.0, 1.0)
    # |y| is at most the values' largest entry anywhere on the sliders: 3 · 2 (animal, W_v's 2)
    assert (y_norm.vmin, y_norm.vmax) == (-6.0, 6.0)
    assert size(token) == (10.0, 2.4)


def test_token_explorer_with_the_default_scale_and_a_range_of_its_own():
    token_wide = make_token_wide()
    token_wide.reset()
    assert [slider(token_wide, f)[:4] for f in FEATURES] == [
        (f"x₃[{f}]", -5.0, 2.0, 0.1) for f in FEATURES]
    token_wide.set(noun=-4.0, verb=1.5, animal=0.5, small=2.0)
    X = CCM.X.copy()
    X[2] = [-4.0, 1.5, 0.5, 2.0]
    w = softmax(X @ queries(X)[2] / 2)                   # d_k = 4: divided by √4
    y = w @ np.column_stack([X[:, 0], X[:, 1], 2 * X[:, 2] + 0.5 * X[:, 3]])
    assert np.allclose(cells(token_wide, "weights", (1, 4)), w)
    assert np.allclose(cells(token_wide, "output", (1, 3)), y)
    lines = token_wide.summary().split("\n")
    assert lines[0] == "x₃ = [-4.0000  1.5000  0.5000  2.0000]" and same_to_four(lines[2], y)
    assert ticks(token_wide.axes["output"]) == ["0", "1", "2"]
    assert ticks(token_wide.axes["weights"], "y") == ["small (y₃)"]
    # bound: the moving token anywhere in [-5, 2]^4 reaches 5 · (2 + 0.5) = 12.5 in component 2: up to 13
    norm = token_wide.axes["output"].collections[0].norm
    assert (norm.vmin, norm.vmax) == (-13.0, 13.0)


@pytest.mark.parametrize("X, W_v, low, limit", [
    ([[7.2, 0.0], [0.0, 1.0]], np.eye(2), -1.0, 8.0),         # another token's own value is the largest
    ([[0.1, 0.0], [0.0, 0.1]], np.zeros((2, 2)), -1.0, 1.0),  # all values 0: the scale is still -1..1
    ([[0.0, 0.0], [0.0, 0.0]], 0.3 * np.eye(2), -2.0, 1.0),   # 2 · 0.3 = 0.6: rounded up to 1
])
def test_the_output_colours_span_every_value_a_slider_can_reach(X, W_v, low, limit):
    e = al.token_explorer(1, np.array(X), np.eye(2), np.eye(2), W_v, ["a", "b"], ["f", "g"],
                          low=low, high=1.0)
    norm = e.axes["output"].collections[0].norm
    assert (norm.vmin, norm.vmax) == (-limit, limit)


def test_a_sentence_of_one_token_is_coloured_by_its_own_reach():
    """No other token: the output is the token's own value, anywhere in [-2, 1]², so the scale is -2..2."""
    e = al.token_explorer(0, np.array([[0.5, -0.2]]), np.eye(2), np.eye(2), np.eye(2), ["a"], ["f", "g"],
                          low=-2.0, high=1.0)
    assert np.allclose(cells(e, "weights", (1, 1)), 1.0)
    assert np.allclose(cells(e, "output", (1, 2)), [0.5, -0.2])
    norm = e.axes["output"].collections[0].norm
    assert (norm.vmin, norm.vmax) == (-2.0, 2.0)


def test_the_heads_explorers_output_colours_follow_each_column_of_w_o():
    """Three heads of width 1. The values reach 2.4, 0.3 and 0.1 (token c moves in [-0.1, 0.1]); W_O
    multiplies column 2 by 5: the outputs reach 2.4, 1.5 and 0.1, so the scale is -3..3. Three heads: no
    names under the small maps."""
    X = np.array([[2.4, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.0, 0.0]])
    W_O = np.diag([1.0, 5.0, 1.0])
    e = al.heads_explorer(X, np.eye(3), np.eye(3), np.eye(3), W_O, ["a", "b", "c"], ["f", "g", "k"],
                          n_heads=3, low=-0.1, high=0.1)
    norm = e.axes["output"].collections[0].norm
    assert (norm.vmin, norm.vmax) == (-3.0, 3.0)
    assert ticks(e.axes["head0"]) == ["", "", ""] and ticks(e.axes["head0"], "y") == ["a", "b", "c"]


# ------------------------------------------------------------------ lesson 02: all the weights, a temperature
def make_matrix():
    return al.matrix_explorer(CCM.X, CCM.W_q, CCM.W_k, CCM.W_v, TOKENS, FEATURES)


def make_matrix_third():
    """Token 3 edited, sliders -2..4, values of width 3."""
    W_v = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 2.0], [0, 0, 0.5]])
    return al.matrix_explorer(CCM.X, CCM.W_q, CCM.W_k, W_v, TOKENS, FEATURES, edit=2, low=-2.0, high=4.0)


def check_matrix_explorer_every_weight_and_output_by_hand(matrix):
    matrix.set(noun=0.5, verb=1.0, animal=0.0, small=0.2, tau=2.0)
    X = CCM.X.copy()
    X[1] = [0.5, 1.0, 0.0, 0.2]
    A = softmax(queries(X) @ X.T / (2.0 * 2.0))          # τ = 2, √d_k = 2
    Y = A @ (X * V_DIAG)
    assert np.allclose(cells(matrix, "weights", (4, 4)), A)
    assert np.allclose(cells(matrix, "output", (4, 4)), Y)
    assert printed(matrix, "weights") == two_decimals(A) and printed(matrix, "output") == two_decimals(Y)
    assert matrix.summary().split("\n") == ["x₂ = [0.5000 1.0000 0.0000 0.2000]",
                                            "scale = 1/(τ·√d_k) = 0.2500",
                                            "row sums = [1.0000 1.0000 1.0000 1.0000]"]
    matrix.set(tau=0.5)
    assert np.allclose(cells(matrix, "weights", (4, 4)), softmax(queries(X) @ X.T))   # 1/(0.5 · 2) = 1
    assert matrix.summary().split("\n")[1] == "scale = 1/(τ·√d_k) = 1.0000"


def check_matrix_explorer_panels_sliders_and_colour_scale(matrix):
    matrix.reset()
    assert slider(matrix, "tau") == ("τ (temp.)", 0.1, 3.0, 0.1, 1.0)
    assert list(matrix.sliders) == [*FEATURES, "tau"]
    assert [slider(matrix, f) for f in FEATURES][1] == ("x₂[verb]", -3.0, 3.0, 0.1, 1.0)
    weights, output = matrix.axes["weights"], matrix.axes["output"]
    assert ticks(weights) == TOKENS and ticks(weights, "y") == TOKENS
    assert (weights.get_title(), weights.get_xlabel(), weights.get_ylabel()) == (
        "weights: row = query, column = key", "key token", "query token")
    assert ticks(output) == FEATURES and ticks(output, "y") == TOKENS
    assert (output.get_title(), output.get_xlabel(), output.get_ylabel()) == (
        "outputs yᵢ (one row per token)", "component", "")
    assert (output.collections[0].norm.vmin, output.collections[0].norm.vmax) == (-6.0, 6.0)
    assert size(matrix) == (10.0, 3.6)


def test_matrix_explorer_of_another_token_and_range():
    matrix_third = make_matrix_third()
    matrix_third.set(noun=4.0, verb=-2.0, animal=1.0, small=0.5, tau=1.0)
    assert slider(matrix_third, "small") == ("x₃[small]", -2.0, 4.0, 0.1, 0.5)
    X = CCM.X.copy()
    X[2] = [4.0, -2.0, 1.0, 0.5]
    A = softmax(queries(X) @ X.T / 2)
    Y = A @ np.column_stack([X[:, 0], X[:, 1], 2 * X[:, 2] + 0.5 * X[:, 3]])
    assert np.allclose(cells(matrix_third, "weights", (4, 4)), A)
    assert np.allclose(cells(matrix_third, "output", (4, 3)), Y)
    assert matrix_third.summary().split("\n")[0] == "x₃ = [ 4.0000 -2.0000  1.0000  0.5000]"
    assert ticks(matrix_third.axes["output"]) == ["0", "1", "2"]
    norm = matrix_third.axes["output"].collections[0].norm               # 4 · 2.5 = 10
    assert (norm.vmin, norm.vmax) == (-10.0, 10.0)


def test_matrix_explorer_without_outputs_draws_the_weights_alone():
    e = al.matrix_explorer(CCM.X, CCM.W_q, CCM.W_k, CCM.W_v, TOKENS, FEATURES, outputs=False)
    assert list(e.axes) == ["weights"] and size(e) == (6.0, 3.6)
    assert len(e.figure.axes) == 2                                       # the map and its colour bar


# ------------------------------------------------------------------ lesson 02: d_k
def random_query_and_keys(seed, n_keys, max_dk):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(max_dk), rng.standard_normal((n_keys, max_dk))


def make_dk():
    return al.dk_explorer(n_keys=3, max_dk=10, seed=5)


def check_dk_explorer_scales_the_first_d_k_features_by_hand(dk, d_k):
    q, K = random_query_and_keys(5, 3, 10)
    scores = np.array([sum(K[j, c] * q[c] for c in range(d_k)) for j in range(3)])
    unscaled, scaled = softmax(scores), softmax(scores / np.sqrt(d_k))
    dk.set(d_k=d_k)
    assert np.allclose(cells(dk, "weights", (2, 3)), [unscaled, scaled])
    assert printed(dk, "weights") == two_decimals([unscaled, scaled])
    spread = np.sqrt(np.mean((scores - scores.mean()) ** 2))
    assert dk.summary().split("\n") == [
        f"d_k = {d_k}, √d_k = {np.sqrt(d_k):.2f}", f"spread (std) of the scores q·kⱼ = {spread:.2f}",
        f"largest weight: unscaled {unscaled.max():.2f}, scaled {scaled.max():.2f}"]


def check_dk_explorer_slider_panel_and_defaults(dk):
    dk.reset()
    assert slider(dk, "d_k") == ("d_k", 1, 10, 1, 10)                   # starts at 16, or the largest
    assert dk.sliders["d_k"].readout_format == "d"                       # a whole number: 10, not 10.0
    ax = dk.axes["weights"]
    assert ticks(ax, "y") == ["÷ 1 (unscaled)", "÷ √d_k (scaled)"] and ticks(ax) == ["k₁", "k₂", "k₃"]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("weights of one query over random keys",
                                                                  "key", "")
    assert size(dk) == (9.0, 2.4)
    default = al.dk_explorer()
    assert slider(default, "d_k") == ("d_k", 1, 128, 1, 16)
    q, K = random_query_and_keys(0, 8, 128)
    assert np.allclose(cells(default, "weights", (2, 8))[1], softmax(K[:, :16] @ q[:16] / 4))


# ------------------------------------------------------------------ lesson 03: heads
CAT = al.the_cat_sat()


def numbered_by_hand():
    return ["the₁", "cat", "sat", "on", "the₂", "mat"]


def test_numbered_tells_repeated_words_apart():
    assert numbered(CAT.tokens) == numbered_by_hand()
    assert numbered(["a", "b", "a", "a"]) == ["a₁", "b", "a₂", "a₃"]
    assert numbered(("x", "y")) == ["x", "y"] and numbered([]) == []


def make_heads():
    return al.heads_explorer(CAT.X, CAT.W_q, CAT.W_k, CAT.W_v, CAT.W_O, CAT.tokens, CAT.features)


def heads_by_hand(X, h):
    """Each head's weights from its own columns of W_q and W_k, divided by √(4/h); the output
    Concat(heads) W_O, concatenated head by head."""
    k = 4 // h
    weights, parts = [], []
    for i in range(h):
        cols = slice(i * k, (i + 1) * k)
        A = softmax((X @ CAT.W_q[:, cols]) @ (X @ CAT.W_k[:, cols]).T / np.sqrt(k))
        weights.append(A)
        parts.append(A @ (X @ CAT.W_v)[:, cols])
    return weights, np.hstack(parts) @ CAT.W_O


def check_heads_explorer_draws_every_head_and_the_output_by_hand(heads, h, shown):
    heads.set(**{"cos pos": 0.477, "sin pos": -0.325, "content": 1.0, "function": 0.2}, n_heads=h, head=shown)
    X = CAT.X.copy()
    X[2] = [0.477, -0.325, 1.0, 0.2]
    weights, out = heads_by_hand(X, h)
    assert sorted(k for k in heads.axes if k.startswith("head")) == [f"head{i}" for i in range(h)]
    for i in range(h):
        assert np.allclose(cells(heads, f"head{i}", (6, 6)), weights[i]), i
        assert printed(heads, f"head{i}") == []                          # colours only
        title = heads.axes[f"head{i}"].get_title()
        assert title == ("▶ " if i + 1 == shown else "") + f"head {i + 1}"
    assert np.allclose(cells(heads, "shown", (6, 6)), weights[shown - 1])
    assert printed(heads, "shown") == two_decimals(weights[shown - 1])
    assert np.allclose(cells(heads, "output", (6, 4)), out) and printed(heads, "output") == two_decimals(out)
    assert heads.axes["shown"].get_title() == f"head {shown} of {h} (d_k = {4 // h})"
    lines = heads.summary().split("\n")
    assert lines[0] == "x₃ = [ 0.4770 -0.3250  1.0000  0.2000]"
    assert lines[1] == f"h = {h} head{'s' if h > 1 else ''} of width d_k = d_model/h = {4 // h}"
    assert lines[2] == f"head {shown}: each query's strongest key"
    # the widths of the panels: the thumbnails share 7, then the shown head (6 + 1.5), the output (4 + 1.6)
    spec = heads.axes["shown"].get_subplotspec().get_gridspec()
    assert np.allclose(spec.get_width_ratios(), [7.0 / h] * h + [7.5, 5.6])
    assert len(heads.figure.axes) == h + 4                               # colour bars: shown and output only
    named = numbered_by_hand()
    assert ticks(heads.axes["head0"]) == (named if h <= 2 else [""] * 6)   # more heads: no room for names
    assert ticks(heads.axes["head0"], "y") == named


def check_heads_explorer_names_the_strongest_key_of_each_query(heads):
    # head 2 reads content and function words; 'sat' without either has a zero query: a flat row
    heads.set(**{"cos pos": -0.223, "sin pos": 0.975, "content": 0.0, "function": 0.0}, n_heads=2, head=2)
    assert heads.summary().split("\n")[2:] == [
        "head 2: each query's strongest key",
        "  the₁→the₁/on/the₂ (tie), cat→cat/mat (tie), sat→(flat), on→the₁/on/the₂ (tie), "
        "the₂→the₁/on/the₂ (tie), mat→cat/mat (tie)"]


@pytest.mark.parametrize("X, weights, strongest", [
    ([[1.0, 0.0], [0.98, 0.0], [-5.0, 0.0]], [0.4999, 0.4929, 0.0072], "a→a"),          # 0.007 apart: a alone
    ([[1.0, 0.0], [0.99, 0.0], [0.98, 0.0]], [0.3357, 0.3333, 0.3310], "a→(flat)"),     # all within 0.005
    ([[1.0, 0.0], [0.988, 0.0], [0.976, 0.0]], [0.3362, 0.3333, 0.3305], "a→a/b (tie)"),  # b within 0.005
])
def test_a_key_within_half_a_hundredth_of_the_strongest_ties_with_it(X, weights, strongest):
    X = np.array(X)
    w = softmax(X @ X.T / np.sqrt(2))[0]                          # query a's weights, written out
    assert np.allclose(w, weights, rtol=0, atol=5e-5)             # the cases are as near 0.005 as stated
    e = al.heads_explorer(X, np.eye(2), np.eye(2), np.eye(2), np.eye(2), ["a", "b", "c"], ["f", "g"],
                          n_heads=1, low=-6.0, high=1.0)
    lines = e.summary().split("\n")
    assert lines[1] == "h = 1 head of width d_k = d_model/h = 2"
    assert lines[3].startswith(f"  {strongest}, b→")
    assert e.sliders["n_heads"].description == "heads h"
    assert [v for _, v in e.sliders["n_heads"].options] == [1, 2]
    assert slider(e, "head") == ("show head", 1, 1, 1, 1)
    A = softmax(X @ X.T / np.sqrt(2))                             # one head: all of W_q, W_k (= I)
    assert np.allclose(cells(e, "head0", (3, 3)), A) and np.allclose(cells(e, "shown", (3, 3)), A)
    assert np.allclose(cells(e, "output", (3, 2)), A @ X)         # W_v = W_O = I
    assert e.axes["head0"].get_title() == "▶ head 1"
    assert e.axes["shown"].get_title() == "head 1 of 1 (d_k = 2)"
    norm = e.axes["output"].collections[0].norm                   # 6 · (1 + 0) through W_O = I
    assert (norm.vmin, norm.vmax) == (-6.0, 6.0)


def check_heads_explorer_sliders_labels_and_colour_scale(heads):
    # the lesson's start: head 1 looks at the previous place on the circle (the₁'s two neighbours tie)
    assert heads.summary().split("\n")[3] == \
        "  the₁→the₁/mat (tie), cat→the₁, sat→cat, on→sat, the₂→on, mat→the₂"
    # each feature's grid passes through the lesson's value (to 3 decimals) in steps of 0.1
    assert slider(heads, "cos pos") == ("x₃[cos pos]", -2.923, 2.977, 0.1, -0.223)
    assert slider(heads, "sin pos") == ("x₃[sin pos]", -2.925, 2.975, 0.1, 0.975)
    assert slider(heads, "content") == ("x₃[content]", -3.0, 3.0, 0.1, 1.0)
    assert heads.sliders["cos pos"].readout_format == ".3f"
    assert (heads.sliders["n_heads"].description, heads.sliders["n_heads"].value) == ("heads h", 2)
    assert [label for label, _ in heads.sliders["n_heads"].options] == ["1", "2", "4"]
    assert slider(heads, "head") == ("show head", 1, 2, 1, 1)
    named = numbered_by_hand()
    thumb1, thumb2, shown, output = (heads.axes[k] for k in ("head0", "head1", "shown", "output"))
    assert ticks(thumb1, "y") == named and ticks(thumb2, "y") == [""] * 6
    assert ticks(thumb1) == named and ticks(thumb2) == named                 # two heads: names fit
    assert ticks(shown) == named and ticks(shown, "y") == named
    assert (shown.get_xlabel(), shown.get_ylabel(), thumb1.get_xlabel(), thumb1.get_ylabel()) == (
        "key", "query", "", "")
    assert {t.get_fontsize() for t in shown.texts} == {11}
    assert {t.get_fontsize() for t in output.texts} == {10}
    assert ticks(output) == ["0", "1", "2", "3"] and ticks(output, "y") == named
    assert (output.get_title(), output.get_xlabel(), output.get_ylabel()) == (
        "Concat(heads) · W_O", "column", "")
    # |values| reach 3 (the sliders' reach, W_v = I), and every column of W_O adds 1 + 0.5 of them: 4.5 -> 5
    norm = output.collections[0].norm
    assert (norm.vmin, norm.vmax) == (-5.0, 5.0) and size(heads) == (12.0, 3.4)


def check_the_head_shown_follows_the_number_of_heads(heads):
    """From 4 heads, head 3 shown, down to 2: 'show head' ends at 2, and its value moves there."""
    assert slider(heads, "head")[2::2] == (4, 3)
    heads.set(n_heads=2)
    assert slider(heads, "head")[2::2] == (2, 2)                         # the slider's end, and its value
    assert heads.axes["shown"].get_title() == "head 2 of 2 (d_k = 2)"


@pytest.mark.parametrize("start, low, high, step, expected", [
    (0.841, -3.0, 3.0, 0.1, (-2.959, 2.941)),
    (0.3, 0.0, 1.0, 0.1, (0.0, 1.0)),             # 0.3 / 0.1 = 2.9999999999999996 steps: still 3
    (-0.223, -3.0, 3.0, 0.1, (-2.923, 2.977)),
    (1.0, 0.0, 2.0, 0.25, (0.0, 2.0)),
])
def test_anchored_range_is_the_widest_grid_through_the_start(start, low, high, step, expected):
    assert anchored_range(start, low, high, step) == expected


# ------------------------------------------------------------------ lesson 04: a decoder step
TR = al.translation()


def decoder_by_hand(tr, causal, padding):
    """Masked self-attention (W_q = 2 I, W_k = W_v = I) with its residual, then cross-attention
    (W_q = 4 I, W_k = W_v = I), both divided by √5; masked keys get exp(-inf) = 0."""
    m, n = len(tr.X_dec), len(tr.X_enc)
    S = (tr.X_dec @ tr.self_W_q) @ (tr.X_dec @ tr.self_W_k).T / np.sqrt(5)
    if causal:
        S = np.where(np.arange(m)[None, :] <= np.arange(m)[:, None], S, -np.inf)
    A_self = softmax(S)
    Z = tr.X_dec + A_self @ (tr.X_dec @ tr.self_W_v)
    C = (Z @ tr.cross_W_q) @ (tr.X_enc @ tr.cross_W_k).T / np.sqrt(5)
    if padding:
        C = np.where(np.arange(n)[None, :] < tr.enc_length, C, -np.inf)
    return A_self, softmax(C)


def make_cross():
    return al.cross_explorer()


def check_cross_explorer_masks_and_weights_by_hand(cross, causal, padding):
    x = [0.0, 1.2, 0.4, 0.0, -0.3]
    cross.set(**dict(zip(TR.features, x)), causal=causal, padding=padding)
    tr = dataclasses.replace(TR, X_dec=TR.X_dec.copy())
    tr.X_dec[2] = x
    A_self, A_cross = decoder_by_hand(tr, causal, padding)
    assert np.allclose(cells(cross, "self_weights", (4, 4)), A_self)
    assert np.allclose(cells(cross, "cross_weights", (4, 6)), A_cross)
    assert printed(cross, "cross_weights") == two_decimals(A_cross)
    sums = A_cross.sum(axis=0)
    on = {True: "on", False: "off"}
    assert cross.summary().split("\n") == [
        "noir: x₃ = [ 0.0000  1.2000  0.4000  0.0000 -0.3000]",
        f"causal mask {on[causal]}, padding mask {on[padding]}",
        "cross-attention rows sum to 1; columns sum to:",
        f"  the {sums[0]:.2f}  black {sums[1]:.2f}  cat {sums[2]:.2f}",
        f"  is {sums[3]:.2f}  sleeping {sums[4]:.2f}  <pad> {sums[5]:.2f}"]


def check_cross_explorer_sliders_and_panels(cross):
    cross.reset()
    assert [slider(cross, f) for f in TR.features] == [
        ("noir[det]", -3.0, 3.0, 0.1, 0.0), ("noir[black]", -3.0, 3.0, 0.1, 1.0),
        ("noir[cat]", -3.0, 3.0, 0.1, 0.0), ("noir[be]", -3.0, 3.0, 0.1, 0.0),
        ("noir[sleep]", -3.0, 3.0, 0.1, 0.0)]
    assert [(cross.sliders[k].description, cross.sliders[k].value) for k in ("causal", "padding")] == [
        ("causal mask", True), ("padding mask", True)]
    assert {type(cross.sliders[k]).__name__ for k in ("causal", "padding")} == {"ToggleButton"}   # on/off
    me, them = cross.axes["self_weights"], cross.axes["cross_weights"]
    assert ticks(me) == TR.dec_tokens and ticks(me, "y") == TR.dec_tokens
    assert (me.get_title(), me.get_xlabel(), me.get_ylabel()) == (
        "decoder self-attention", "key (French, so far)", "query (French)")
    assert ticks(them) == TR.enc_tokens and ticks(them, "y") == TR.dec_tokens
    assert (them.get_title(), them.get_xlabel(), them.get_ylabel()) == (
        "cross-attention: French → English", "key (English, encoder)", "query (French)")
    assert size(cross) == (11.0, 3.4)


def test_cross_explorer_of_a_translation_of_ones_own():
    """Another example (a cross-attention twice as sharp, 5 English tokens, one padded), word 2 edited."""
    tr = dataclasses.replace(TR, X_dec=TR.X_dec.copy(), cross_W_q=8.0 * np.eye(5),
                             enc_tokens=TR.enc_tokens[1:], enc_length=4, X_enc=TR.X_enc[1:])
    e = al.cross_explorer(tr, edit=1, low=-1.0, high=2.0)
    assert slider(e, "cat") == ("chat[cat]", -1.0, 2.0, 0.1, 1.0)
    e.set(cat=1.5, det=-0.5)
    tr.X_dec[1] = [-0.5, 0.0, 1.5, 0.0, 0.0]
    A_self, A_cross = decoder_by_hand(tr, True, True)
    assert np.allclose(cells(e, "cross_weights", (4, 5)), A_cross)
    assert np.allclose(cells(e, "self_weights", (4, 4)), A_self)
    sums = A_cross.sum(axis=0)
    assert e.summary().split("\n")[0] == "chat: x₂ = [-0.5000  0.0000  1.5000  0.0000  0.0000]"
    assert e.summary().split("\n")[3:] == [f"  black {sums[0]:.2f}  cat {sums[1]:.2f}  is {sums[2]:.2f}",
                                           f"  sleeping {sums[3]:.2f}  <pad> {sums[4]:.2f}"]


# ------------------------------------------------------------------ lesson 05: positions
SENTENCE = ["cats", "chase", "mice"]
X3 = CCM.X[[0, 1, 3]]


def sines(p, d, base):
    """Row p: sin and cos of p · base^(-2i/d) in components 2i and 2i + 1."""
    P = np.zeros((len(p), d))
    for i in range(d // 2):
        P[:, 2 * i] = np.sin(p * base ** (-2 * i / d))
        P[:, 2 * i + 1] = np.cos(p * base ** (-2 * i / d))
    return P


def rotated(M, p, base):
    """Each pair (2i, 2i + 1) of row t turned by the angle p_t · base^(-2i/d), as a complex number."""
    d = M.shape[1]
    z = (M[:, 0::2] + 1j * M[:, 1::2]) * np.exp(1j * np.outer(p, base ** (-np.arange(0, d, 2) / d)))
    out = np.zeros_like(M)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def positions_by_hand(X, p, strength, base):
    Q, K = queries(X), X                                     # W_k = I
    none = softmax(Q @ K.T / 2)
    Xp = X + strength * sines(p, 4, base)
    added = softmax(queries(Xp) @ Xp.T / 2)
    rope = softmax(rotated(Q, p, base) @ rotated(K, p, base).T / 2)
    return none, added, rope


def make_pos():
    return al.position_explorer(X3, CCM.W_q, CCM.W_k, CCM.W_v, SENTENCE)


def check_position_explorer_three_maps_by_hand(pos, shift, strength, swap):
    pos.set(shift=shift, strength=strength, swap=swap)
    order = [2, 1, 0] if swap else [0, 1, 2]
    p = shift + np.arange(3)
    maps = positions_by_hand(X3[order], p, strength, 10.0)
    for key, expected in zip(("none", "added", "rope"), maps):
        assert np.allclose(cells(pos, key, (3, 3)), expected), key
        assert printed(pos, key) == two_decimals(expected), key
    words = [SENTENCE[i] for i in order]
    lines = pos.summary().split("\n")
    assert lines[0] == f"sentence: {' '.join(words)}   positions {shift}..{shift + 2}"
    head = f"row 1 ({words[1]}):  "
    assert [line[:len(head)] for line in lines[1:]] == [head, " " * len(head), " " * len(head)]
    assert [line[len(head):len(head) + 6] for line in lines[1:]] == ["none  ", "added ", "RoPE  "]
    for line, expected in zip(lines[1:], maps):
        assert same_to_four(line, expected[1])
    rows = [f"{shift + i}: {w}" for i, w in enumerate(words)]
    for key in ("none", "added", "rope"):
        assert ticks(pos.axes[key], "y") == rows
        assert ticks(pos.axes[key]) == [f"{shift + i}:\n{w}" for i, w in enumerate(words)]


def check_position_explorer_sliders_and_panels(pos):
    pos.reset()
    assert slider(pos, "shift") == ("shift positions", 0, 40, 1, 0)
    assert pos.sliders["shift"].readout_format == "d"                    # whole places: 17, not 17.0
    assert slider(pos, "strength") == ("strength", 0.0, 3.0, 0.1, 1.0)
    assert (pos.sliders["swap"].description, pos.sliders["swap"].value) == ("swap words 0 and 2", False)
    assert type(pos.sliders["swap"]).__name__ == "ToggleButton"
    titles = [(pos.axes[k].get_title(), pos.axes[k].get_xlabel(), pos.axes[k].get_ylabel())
              for k in ("none", "added", "rope")]
    assert titles == [("no positions", "key", "query"), ("sinusoidal added to X", "key", ""),
                      ("RoPE on q and k", "key", "")]
    assert len(pos.figure.axes) == 4 and size(pos) == (12.0, 3.2)   # one colour bar, beside RoPE's map


def test_position_explorer_with_another_base_and_reach():
    X = np.array([[1.0, 0.0, 0.5, -1.0], [0.0, 1.0, 1.0, 0.0], [0.5, 0.5, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    e = al.position_explorer(X, CCM.W_q, CCM.W_k, CCM.W_v, ["a", "b", "c", "d"], base=100.0, max_shift=7)
    assert slider(e, "shift")[2] == 7 and e.sliders["swap"].description == "swap words 0 and 3"
    e.set(shift=7, strength=0.5, swap=True)
    order = [3, 1, 2, 0]
    maps = positions_by_hand(X[order], 7 + np.arange(4), 0.5, 100.0)
    for key, expected in zip(("none", "added", "rope"), maps):
        assert np.allclose(cells(e, key, (4, 4)), expected), key
    assert e.summary().split("\n")[0] == "sentence: d b c a   positions 7..10"


# ------------------------------------------------------------------ lesson 06: training
CFG = al.ModelConfig(n=4, d=8, n_heads=2)


def hand_params(M, seed):
    """Random weights, but P = [I 0] and head 1's W_k = I on the first 4 rows: the position scores of head 1
    are (P W_q)(P W_k)ᵀ / √4 = M / 2, with M written into W_q."""
    rng = np.random.default_rng(seed)
    p = {"E": rng.standard_normal((10, 8)), "P": np.hstack([np.eye(4), np.zeros((4, 4))]),
         "W_q": rng.standard_normal((8, 8)) / 3, "W_k": rng.standard_normal((8, 8)) / 3,
         "W_v": rng.standard_normal((8, 8)) / 3, "W_O": rng.standard_normal((8, 8)) / 3,
         "W_u": rng.standard_normal((8, 10))}
    p["W_q"][:4, :4], p["W_k"][:4, :4] = M, np.eye(4)
    return p


# rows 0 and 2 peak alone on their mirror place (3, 1); row 1's peak on 2 ties with 3; row 3's is not 0
M0 = np.array([[0.0, 1.0, 2.0, 5.0], [0.0, 1.0, 3.0, 3.0], [0.0, 4.0, 1.0, 2.0], [1.0, 2.0, 0.0, 0.5]])
M3 = np.array([[0.0, 0.0, 0.0, 9.0], [0.0, 0.0, 7.0, 0.0], [0.0, 6.0, 0.0, 0.0], [8.0, 0.0, 0.0, 0.0]])
LOSSES = np.array([2.3, 2.2, 1.9, 1.4, 1.1])
HELD = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]])
HELD_TARGETS = HELD[:, ::-1]


def model_by_hand(p, ids):
    """The model written out: X = E[ids] + P, two heads of width 4 (scale 1/2), residual, unembedding."""
    X = p["E"][ids] + p["P"]                                              # (B, 4, 8)
    heads, first = [], None
    for h in range(2):
        c = slice(4 * h, 4 * h + 4)
        A = softmax((X @ p["W_q"][:, c]) @ np.swapaxes(X @ p["W_k"][:, c], 1, 2) / 2)
        first = A if h == 0 else first
        heads.append(A @ (X @ p["W_v"][:, c]))
    logits = (X + np.concatenate(heads, axis=-1) @ p["W_O"]) @ p["W_u"]   # (B, 4, 10)
    return logits, first


def make_training():
    untrained = hand_params(M0, 1) | {"W_u": np.zeros((8, 10))}          # every digit equally likely
    run = al.Run(CFG, hand_params(M3, 2), LOSSES, [0, 3], [untrained, hand_params(M3, 2)])
    return run, al.training_explorer(run, HELD, HELD_TARGETS, probe=1)


def check_training_explorer_shows_each_kept_step_by_hand(training, step):
    run, e = training
    e.set(step=step)
    p = run.snapshot_params[[0, 3].index(step)]
    logits, A = model_by_hand(p, HELD)
    assert np.allclose(cells(e, "weights", (4, 4)), A[1])
    assert printed(e, "weights") == two_decimals(A[1])
    scores = (M0 if step == 0 else M3) / 2
    assert np.allclose(cells(e, "positions", (4, 4)), scores)
    assert printed(e, "positions") == [f"{v:.1f}" for v in scores.ravel()]
    shown_loss = e.axes["loss"].lines[0].get_ydata()
    assert np.array_equal(shown_loss[:step + 1], LOSSES[:step + 1]) and np.isnan(shown_loss[step + 1:]).all()
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    loss = -np.mean([logp[b, t, HELD_TARGETS[b, t]] for b in range(3) for t in range(4)])
    accuracy = np.mean(logits.argmax(-1) == HELD_TARGETS)
    said = " ".join(str(int(np.argmax(row))) for row in logits[1])
    lines = e.summary().split("\n")
    assert lines[0] == f"step {step}: held-out loss {loss:.2f}, held-out accuracy {accuracy:.2f}"
    tie = "0 0 0 0  (a tie: every digit equally likely)"
    assert lines[1:4] == ["input      5 9 2 6", "predicted  " + (tie if step == 0 else said),
                          "target     6 2 9 5"]
    assert lines[4] == "weight on mirror: " + " ".join(f"{A[1][q, 3 - q]:.2f}" for q in range(4))
    assert lines[5] == f"position scores: {2 if step == 0 else 4} of 4 rows peak on the mirror place"


def check_training_explorer_slider_and_panels(training):
    _, e = training
    e.reset()
    assert (e.sliders["step"].description, e.sliders["step"].value) == ("training step", 0)
    assert [v for _, v in e.sliders["step"].options] == [0, 3]
    weights, scores, loss = e.axes["weights"], e.axes["positions"], e.axes["loss"]
    assert ticks(weights) == ["5", "9", "2", "6"] and ticks(weights, "y") == ["5", "9", "2", "6"]
    assert (weights.get_title(), weights.get_xlabel(), weights.get_ylabel()) == (
        "attention (head 1 of 2)", "key token", "query token")
    assert ticks(scores) == ["0", "1", "2", "3"] and ticks(scores, "y") == ["0", "1", "2", "3"]
    assert (scores.get_title(), scores.get_xlabel(), scores.get_ylabel()) == (
        "position scores", "key place", "query place")
    norm = scores.collections[0].norm                                    # the largest score of any step: 9/2
    assert (norm.vmin, norm.vmax) == (-4.5, 4.5)
    assert {t.get_fontsize() for t in weights.texts} == {11}
    assert {t.get_fontsize() for t in scores.texts} == {10}
    assert (loss.get_title(), loss.get_xlabel(), loss.get_ylabel()) == (
        "training loss so far", "step", "loss")
    assert loss.get_xlim() == (0.0, 4.0) and np.allclose(loss.get_ylim(), (0.0, 2.3 * 1.05))
    assert len(e.figure.axes) == 3 and size(e) == (13.0, 3.6)            # no colour bars
    spec = loss.get_subplotspec().get_gridspec()                         # 4 columns + 1.5 each, the curve 10
    assert np.allclose(spec.get_width_ratios(), [5.5, 5.5, 10.0])


def check_training_explorer_probes_the_first_sequence_by_default(training):
    """The first held-out sequence unless another is asked for; a model of one head says no head."""
    run, _ = training
    one_head = al.ModelConfig(n=4, d=8, n_heads=1)
    e = al.training_explorer(dataclasses.replace(run, cfg=one_head), HELD, HELD_TARGETS)
    assert e.summary().split("\n")[1] == "input      3 1 4 1"
    assert e.axes["weights"].get_title() == "attention"
    X = run.snapshot_params[0]["E"][HELD[0]] + run.snapshot_params[0]["P"]    # one head: all 8 columns, ÷ √8
    A = softmax((X @ run.snapshot_params[0]["W_q"]) @ (X @ run.snapshot_params[0]["W_k"]).T / np.sqrt(8))
    assert np.allclose(cells(e, "weights", (4, 4)), A)
