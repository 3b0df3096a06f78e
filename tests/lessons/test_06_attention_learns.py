"""Lesson 06's claims (06-attention-learns): its training runs, its exercises' hints and its words (the
defects of the second review of lessons 04-06 and the appendix, issue 29, of its rounds four and five, and
of review round 7), and its training explorer's step slider moved as a student moves it.

Lesson 06's claims about training runs are checked on seeds 0-7 with the lesson's own functions, as the lesson
words them (the lesson shows seeds 0-2 or seed 0); the held-out seeds 16-31 are checked on demand by
tools/seed_sweep.py 06 (docs/held-out/06.md), and one of them, 28, runs the lesson in a kernel here (about 12
s of one core, the costliest test of the file); seed 1 runs section 4 alone in a kernel (about 5 s). The rest
take about 25 s of one core: the saturation experiment (32 runs of 150 steps, a module fixture) about 7 s, the
eight reversal runs about 3 s, the three ablations (24 runs of 300 steps) about 9 s, the one-call search of
06.4 a few seconds; the explorer is built once (a module fixture); review round 7's tests about 10 s more (two
ablation runs of 300 steps, one reversal run, and the data streams of 400 seeds, about 4 s). The explorer's
sentences are checked at the steps they name, against weights trained apart from the explorer. Every other
expected value is computed here by hand with plain NumPy. Shared helpers: tests/lesson_helpers.py.
"""

import json
import linecache
import math
import re
from pathlib import Path

import numpy as np
import pytest
from handed_out import HANDED_OUT, check_as_handed_out
from lesson_helpers import (
    G64,
    K64,
    Q64,
    V64,
    causal_grads,
    cell_text,
    explorer,
    grads_by_differences,
    hand_softmax,
    lesson_cells,
    move,
    one_call_answers,
    passes,
    run_lesson,
    sm,
)

import attention_lab as al

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(8)
CFG = al.ModelConfig()
HELD_RNG = np.random.SeedSequence(6).spawn(1)[0]                     # lesson 06's held-out stream
HELD, HELD_T = al.task_batch(np.random.default_rng(HELD_RNG), 500, CFG)     # lesson 06's held-out set
PLACES = np.arange(8)


# ---------- lesson 06, section 7: the saturation experiment (defects 1-3, 17) ----------
@pytest.fixture(scope="module")
def saturation():
    return al.saturation_experiment(HELD, seeds=SEEDS, steps=150)


def test_06_saturation_steps_as_cell_34_words_them(saturation):
    """Cell 34: "shrunk against enlarged: ... the start matters"; "from the same start, the model with
    the larger steps is faster (shrunk before scaled, unscaled before enlarged, in every seed)"; the
    unscaled model "is slower than the scaled model in every seed". A run that never gets below 0.1 in
    150 steps counts as the slowest."""
    scaled, unscaled, shrunk, enlarged = np.where(saturation["reach"] < 0, np.inf, saturation["reach"])
    assert (enlarged > shrunk).all()
    assert (shrunk < scaled).all() and (unscaled < enlarged).all()
    assert (unscaled > scaled).all()


def test_06_saturation_score_steps_and_gradients(saturation):
    """Cell 34: the scaled model's scores move least, the unscaled model's most, the shrunk and the
    enlarged model's "by about the same amount in between" (here: within 25 % of each other); the score
    gradient is smaller from a one-hot start, "the same within each pair"; and the start: fewer mirror
    weights below 0.01 with the scale, in every seed."""
    scaled, unscaled, shrunk, enlarged = saturation["score_move"]
    assert (scaled < np.minimum(shrunk, enlarged)).all() and (np.maximum(shrunk, enlarged) < unscaled).all()
    assert (np.abs(np.log(shrunk / enlarged)) < np.log(1.25)).all()
    g = saturation["grad_S"]
    assert np.allclose(g[0], g[2], rtol=1e-9) and np.allclose(g[1], g[3], rtol=1e-9)
    assert (g[[1, 3]] < g[[0, 2]]).all()
    low, top = saturation["mirror_below_001"], saturation["max_weight"]
    assert (low[0] < low[1]).all() and (top[0] < top[1]).all()


# ---------- lesson 06, sections 4-6: the reversal run (defect 9, and every seeded claim) ----------
def first_step(run, condition):
    return next((t for t, p in zip(run.snapshot_steps, run.snapshot_params) if condition(p)), np.inf)


def mirror_scores(p):
    scores = (p["P"] @ p["W_q"]) @ (p["P"] @ p["W_k"]).T
    return (scores.argmax(axis=1) == 7 - PLACES).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_06_what_the_reversal_run_learns_holds_for_every_seed(seed):
    """Cells 15-27 and the Summary: 1.00 held-out accuracy after 120 steps; every place of every held-out
    sequence looks hardest at its mirror place; position-score rows wider than any digit-score row, peaking
    on the mirror, and with all four parts of a score the key-place part wider than the key-digit part;
    the value path's diagonal; the swap of section 5; and the
    order of section 6: the position scores find the anti-diagonal before the held-out accuracy
    reaches 1.00."""
    run = al.train(CFG, steps=120, seed=seed, snapshots=range(0, 121, 2))
    p, p0 = run.params, al.init_params(CFG, seed)
    assert al.accuracy(p, HELD, HELD_T, CFG) >= 0.995                      # printed as 1.00
    A = al.predict(p, HELD, CFG)[1][:, 0]
    assert (A.argmax(axis=-1) == 7 - PLACES).all() and A[:, PLACES, 7 - PLACES].mean() >= 0.9
    pos = (p["P"] @ p["W_q"]) @ (p["P"] @ p["W_k"]).T / np.sqrt(32)
    dig = (p["E"] @ p["W_q"]) @ (p["E"] @ p["W_k"]).T / np.sqrt(32)
    assert (pos.argmax(axis=1) == 7 - PLACES).all()
    assert np.ptp(pos, axis=1).min() > np.ptp(dig, axis=1).max()
    X = p["E"][None, :, :] + p["P"][:, None, :]                                  # (8 places, 10 digits, 32)
    S = np.einsum("iac,jbc->iajb", X @ p["W_q"], X @ p["W_k"])                   # every query, every key
    assert np.ptp(S, axis=2).min() > np.ptp(S, axis=3).max()                     # key place over key digit
    assert ((p["E"] @ p["W_v"] @ p["W_O"] @ p["W_u"]).argmax(axis=1) == np.arange(10)).all()
    assert al.accuracy(p | {"P": p0["P"]}, HELD, HELD_T, CFG) >= 0.99
    assert al.accuracy(p | {"W_q": p0["W_q"], "W_k": p0["W_k"]}, HELD, HELD_T, CFG) < 0.5
    scores_first = first_step(run, mirror_scores)
    accuracy_first = first_step(run, lambda q: al.accuracy(q, HELD, HELD_T, CFG) >= 0.995)
    assert scores_first < accuracy_first < np.inf


def test_06_step_numbers_are_named_as_this_runs():
    """Defect 9: the Summary and cell 27 give step numbers as this run's (seed 0), and cell 27 says the
    order, which holds for every seed (the test above); the Summary no longer says step 30 for the
    attention (the probe is predicted at step 22)."""
    assert "In seed 0's run" in cell_text("06", 27) and "In this run" not in cell_text("06", 27)
    summary = cell_text("06", 35)
    assert "step 10 with seed 0" in summary and "step 10 in this run" not in summary
    assert "the attention and the predictions follow (step 30)" not in summary


@pytest.mark.parametrize("seed", SEEDS)
def test_06_ablations_hold_for_every_seed(seed):
    """Cells 29-31 and exercise 06.1: without positions the model follows the rule of the other seven
    (more than 99 % of its guesses) and lands nearer that bound than the whole-sequence one, giving less
    weight to keys with its own digit; without attention it stays below 0.15; copying without attention
    reaches 1.00 (06.1's answer (a))."""
    no_pos = al.ModelConfig(positions=False)
    guess, A = al.predict(al.train(no_pos, steps=300, seed=seed).params, HELD, no_pos)
    acc = (guess == HELD_T).mean()
    others = al.commonest_other_baseline(HELD, HELD_T)
    whole = al.commonest_token_baseline(HELD, HELD_T)
    rule = al.commonest_of_others(HELD, 10)
    assert np.take_along_axis(rule, guess[..., None], axis=-1).mean() > 0.99
    assert abs(acc - others) < abs(acc - whole)
    own = HELD[:, :, None] == HELD[:, None, :]
    assert A[:, 0][own].mean() < A[:, 0][~own].mean()
    if seed == 0:       # s7-attention: "the query's own digit is the lightest cell in 5 of the 8 rows (not in
        rows = [i for i in range(8)          # the 1s' rows and the 4's)", in the first held-out sequence
                if A[0, 0, i][own[0, i]].max() < A[0, 0, i][~own[0, i]].min()]
        assert len(rows) == 5 and sorted(set(HELD[0]) - set(HELD[0, rows])) == [1, 4]
    no_attn = al.ModelConfig(attention=False)
    assert al.accuracy(al.train(no_attn, steps=300, seed=seed).params, HELD, HELD_T, no_attn) < 0.15
    copy = al.ModelConfig(task="copy", attention=False)
    assert al.accuracy(al.train(copy, steps=300, seed=seed).params, HELD, HELD, copy) >= 0.99


# ---------- 06.4 redesigned (defect 8): no single package call ----------
def test_06_4_by_hand():
    """dL/ds = a ⊙ (dA - a·dA), a = softmax(q Kᵀ/√2), dA = V g: computed here entry by entry."""
    s = [(Q64 @ k) / np.sqrt(2) for k in K64]
    e = [np.exp(x) for x in s]
    a = [x / sum(e) for x in e]
    dA = [v @ G64 for v in V64]
    mean = sum(ai * di for ai, di in zip(a, dA))
    assert al.EXERCISES["06.4"].evaluate([ai * (di - mean) for ai, di in zip(a, dA)]).status == "correct"


def test_06_4_is_not_one_package_call():
    s = K64 @ Q64 / np.sqrt(2)
    I2, I3, q = np.eye(2), np.eye(3), Q64[None]
    mats = [q, K64, K64.T, V64, V64.T, I2, I3]
    functions = [(al.attention_backward, [mats, mats, mats, [G64[None], G64, I2, V64]], True),
                 (al.scaled_dot_product_attention, [mats, mats, mats], True),
                 (al.self_attention, [[q, K64, V64, I3], [I2, K64.T, V64.T], [I2, K64.T, V64.T],
                                      [I2, K64.T, V64.T]], True),
                 (al.cross_attention, [[q, K64], [K64, V64, q], [I2, K64.T], [I2, K64.T], [I2, V64.T]], True),
                 (al.softmax, [[s, K64 @ Q64, *mats]], False)]
    checked = 0
    for candidate in one_call_answers(functions, (None, 1.0, 2 ** -0.5, 0.5, 2 ** 0.5)):
        checked += 1
        assert not passes("06.4", candidate)
    assert checked > 1000
    # the old loophole (K = I gives dQ = dS) now needs the scores, which are not an input
    old = al.attention_backward(s[None], np.eye(3), V64, G64[None], scale=1.0)[0][0]
    assert al.EXERCISES["06.4"].evaluate(old).status == "correct"   # a matmul first, then the call


# ---------- round four: a fresh review of 04-06 and the appendix, now 10 (issue 29), nine defects ----------
def cells_of(lesson: str) -> dict[str, str]:
    path = next((ROOT / "notebooks").glob(f"{lesson}-*.ipynb"))
    return {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]}


@pytest.mark.parametrize("M, tied", [
    (np.zeros((8, 8)), "0, 1, 2, 3, 4, 5, 6, 7"),
    (-10.0 * np.roll(np.eye(8), 1, axis=1), "0, 2, 3, 4, 5, 6, 7"),
    (np.ones((8, 8)) * 3.0, "0, 1, 2, 3, 4, 5, 6, 7"),
])
def test_06_2_a_tie_is_not_called_a_largest_weight_on_place_0(M, tied):
    """Defect 2: argmax broke ties towards key 0, so a flat row was said to read place 0."""
    message = al.EXERCISES["06.2"].evaluate(M).message
    assert f"({tied})" in message and "tie" in message and "key place 0:" not in message, message


def test_06_2_a_right_key_tied_with_another_is_not_too_weak():
    """A tie that includes the right key is not 'the right key wins'."""
    M = np.zeros((8, 8))
    M[PLACES, (PLACES + 1) % 8] = 9.0
    M[0, 5] = 9.0                                        # query 0: keys 1 and 5 tie
    result = al.EXERCISES["06.2"].evaluate(M)
    assert result.mistake != "too weak" and "(1, 5)" in result.message, result.message


def test_06_one_name_for_dL_dS_in_prose_and_code():
    """Defect 4: the code's dS included 1/√d_k, the prose's did not; both now mean dL/dS before the scale."""
    cells = cells_of("06")
    assert "dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))   #" in cells["s3-code"]
    assert "dS @ K / 2.0" in cells["s3-code"] and "/ 2.0   #" not in cells["s3-code"].split("dS = ")[1][:70]
    assert "dS = A * dA " in cells["ex-06-3-code"] and "s * dS @ K" in cells["ex-06-3-code"]
    assert "dQ = dS\\,K/\\sqrt{d_k}" in cells["s3"]
    # the planted bug is still the planted bug (no rowsum), and still named so. The cell is run as Jupyter
    # runs it: its code kept in linecache under a file name, so that the check can read the function's lines
    namespace, code, name = {"np": np, "al": al}, cells["ex-06-3-code"].split("al.check")[0], "<cell ex-06-3>"
    linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)
    exec(compile(code, name, "exec"), namespace)
    assert al.EXERCISES["06.3"].evaluate(namespace["causal_attention_grads"]).mistake == "planted"


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: al.saturation_experiment(np.zeros((2, 7), int), seeds=(0,), steps=2), ValueError, "n = 8"),
    (lambda: al.numerical_gradient(lambda x: x, np.ones((3, 4))), ValueError, "must return one number"),
    (lambda: al.numerical_gradient(lambda x: "loss", np.ones(2)), ValueError, "must return one number"),
    (lambda: al.decoder_step(al.translation(), causal="yes"), TypeError, "causal must be True or False"),
    (lambda: al.decoder_step(al.translation(), padding=1), TypeError, "padding must be True or False"),
])
def test_06_helpers_name_what_is_wrong(call, error, fragment):
    """Defect 7: a raw IndexError, NumPy's own message, or silent acceptance."""
    with pytest.raises(error, match=fragment):
        call()


def test_06_training_explorer_names_the_short_sequences():
    run = al.train(al.ModelConfig(), steps=2, seed=0, snapshots=(0, 2))
    with pytest.raises(ValueError, match=r"held_ids has shape \(500, 7\)"):
        al.training_explorer(run, HELD[:, :7], HELD_T[:, :7])


def test_06_model_flow_has_a_0_to_1_colour_bar():
    """Defect 8: the weights and probabilities had no scale on the figure."""
    import matplotlib.pyplot as plt
    fig = al.plot_model_flow(al.init_params(CFG, seed=0), CFG, HELD[0])
    bar = fig.axes[-1]
    assert len(fig.axes) == 5 and bar.get_ylim() == (0.0, 1.0) and "0 to 1" in bar.get_ylabel()
    plt.close(fig)


# ---------- round five: a check of the round-four fixes (six defects left) ----------
NEAR = {"right 8, own place 8 - 1e-9": ((PLACES + 1) % 8, 8.0, PLACES, 8.0 - 1e-9, "0", "1e-09"),
        "right 8, own place 7": ((PLACES + 1) % 8, 8.0, PLACES, 7.0, "0", "1"),
        "right 8, place i + 2 at 6": ((PLACES + 1) % 8, 8.0, (PLACES + 2) % 8, 6.0, "2", "2")}


@pytest.mark.parametrize("name", NEAR)
def test_06_2_a_near_tie_names_the_rival_and_the_margin(name):
    """Round five, defect 2: the right key scores 8, another key nearly as much. By hand the right key's
    weight is below 0.9 (e^8 / (e^8 + e^rival + 6)), and the hint must name the rival and the margin, not
    ask for a winning score above 4.1 against keys at 0."""
    right, top, rival, score, rival_place, margin = NEAR[name]
    M = np.zeros((8, 8))
    M[PLACES, right], M[PLACES, rival] = top, score
    assert np.exp(top) / (np.exp(top) + np.exp(score) + 6) < 0.9
    message = al.EXERCISES["06.2"].evaluate(M).message
    assert "must be above" not in message and "at 0" not in message, message
    assert f"key place {rival_place}" in message and f"margin of only {margin}" in message, message
    assert "ln 63" in message


def test_06_2_all_others_level_is_a_margin_too():
    """Every key 5, the right key 8: e^8 / (e^8 + 7 e^5) = 0.74 by hand. The hint speaks of the margin
    over the others (3), not of keys at 0; scores 3 against 0 are still called too weak."""
    M = np.full((8, 8), 5.0)
    M[PLACES, (PLACES + 1) % 8] = 8.0
    assert np.isclose(np.exp(8) / (np.exp(8) + 7 * np.exp(5)), 1 / (1 + 7 * np.exp(-3)))
    result = al.EXERCISES["06.2"].evaluate(M)
    assert "at 0" not in result.message and "margin" in result.message and "4.1" in result.message
    weak = np.zeros((8, 8))
    weak[PLACES, (PLACES + 1) % 8] = 3.0
    assert al.EXERCISES["06.2"].evaluate(weak).mistake == "too weak"


def test_06_dS_means_dL_dS_before_the_scale_everywhere():
    """Round five, defect 5: the package, lesson 07's model and the answer key called the scaled gradient
    dS; the 06.3 hint said dQ = dS K. With S = Q Kᵀ/√d_k and dS = A ⊙ (dA - rowsum(A ⊙ dA)), dQ = dS K/√d_k:
    checked here by central differences of L = sum(Y dY) (written apart from the package)."""
    import inspect
    import sys
    sys.path.insert(0, str(ROOT / "solutions"))
    import answers
    rng = np.random.default_rng(0)
    Q, K, V, dY = (rng.standard_normal((3, 4)) for _ in range(4))
    A = sm(Q @ K.T / 2.0)
    dA = dY @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))

    def loss(Q_):
        return float((sm(Q_ @ K.T / 2.0) @ V * dY).sum())
    numeric = np.zeros_like(Q)
    for idx in np.ndindex(Q.shape):
        up, down = Q.copy(), Q.copy()
        up[idx] += 1e-6
        down[idx] -= 1e-6
        numeric[idx] = (loss(up) - loss(down)) / 2e-6
    assert np.allclose(dS @ K / 2.0, numeric, atol=1e-8)                 # the hint's formula is right
    hint = al.EXERCISES["06.3"].evaluate(causal_grads(swap=True)).message
    assert "dQ = dS K/√d_k" in hint and "dK = dSᵀ Q/√d_k" in hint, hint
    for source in map(inspect.getsource, (al.training.attention_backward_unchecked,
                                          al.induction.backward_unchecked, answers.answer_06_3)):
        assert "dS = s * " not in source and "dS = scale * " not in source and \
            "dS = cfg.scale * " not in source, source
    assert "return s * dS @ K, s * dS.T @ Q, A.T @ dY" in inspect.getsource(answers.answer_06_3)


def test_numerical_gradient_names_a_missing_return_and_a_complex_result():
    """Round five, defect 6."""
    def forgot(x):
        (x ** 2).sum()
    for f in (forgot, lambda x: None):
        with pytest.raises((TypeError, ValueError), match="returned None") as info:
            al.numerical_gradient(f, np.ones(3))
        assert "return" in str(info.value).replace("returned", "") and "sum or average" not in str(info.value)
    with pytest.raises((TypeError, ValueError), match=r"one real number.*complex"):
        al.numerical_gradient(lambda x: complex(x.sum()), np.ones(3))
    with pytest.raises((TypeError, ValueError), match=r"one real number.*complex"):
        al.numerical_gradient(lambda x: np.complex128(x.sum()), np.ones(3))
    from fractions import Fraction
    assert np.allclose(al.numerical_gradient(lambda x: Fraction(float(x.sum())), np.ones(3)), 1.0)


@pytest.mark.parametrize("f, words", [
    (lambda x: (float(x.sum()), 2 * x), "returned a tuple of 2: it must return the loss alone"),
    (lambda x: [float(x.sum()), 1.0], "returned a list of 2"),
    (lambda x: x.sum() > 0, "a truth value"),
    (lambda x: np.array([[1.0], [2.0, 3.0]], dtype=object), "one number"),
])
def test_numerical_gradient_names_a_tuple_a_truth_value_and_a_ragged_result(f, words):
    """Check of the round-five fixes, defect 6: a (loss, gradient) pair got NumPy's raw 'inhomogeneous
    shape' error, and a truth value was taken as a loss of 0 or 1."""
    with pytest.raises(ValueError, match=re.escape(words)):
        al.numerical_gradient(f, np.array([1.0, 2.0]))


@pytest.mark.parametrize("change, words", [
    ({(7, 7): 8.0}, "several key places at once (0, 7), a tie"),            # row 7: key 0 and key 7 both 8
    ({(7, 0): 8.0 - 1e-9, (7, 7): 8.0}, "gives its largest weight to key place 7"),
    ({(7, 6): 8.0 + 1e-9}, "gives its largest weight to key place 6"),
])
def test_06_2_the_last_place_that_tried_to_wrap_is_not_told_to_wrap(change, words):
    """Check of the round-five fixes, defect 3: rows 0-6 right, and the last row does score place 0 as high
    as any key (or within 1e-9): "no wrap" said it must wrap, though it did."""
    M = 8.0 * np.roll(np.eye(8), 1, axis=1)                            # place i reads place i + 1 (7 -> 0)
    for where, value in change.items():
        M[where] = value
    message = al.EXERCISES["06.2"].evaluate(M).message
    assert words in message and "wrap around" not in message, message
    no_wrap = M.copy()
    no_wrap[7] = 0.0                                                  # the last place never tries place 0
    assert "wrap around to place 0" in al.EXERCISES["06.2"].evaluate(no_wrap).message

# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)
# The 06 explorer has one slider, "step". Its sentences (cells s6 / w06-s6-read, the Summary, and the
# guide's "A second session" and misconception rows) are checked below at the steps they name, against
# weights trained apart from the explorer: al.train(cfg, steps=t) ends where the lesson's run is at step t.
L06_CFG = al.ModelConfig()
L06_IDS, L06_TARGETS = HELD, HELD_T
MIRROR = np.arange(8)[::-1]


@pytest.fixture(scope="module")
def ex():
    """Lesson 06's explorer, built once for this file (its build trains the lesson's run); each test moves
    the slider to every step it reads."""
    return explorer("06 training_explorer")


def shown_scores(ex) -> np.ndarray:
    """The position scores as the student reads them: the numbers printed in the explorer's middle panel."""
    texts = ex.axes["positions"].texts
    return np.array([float(t.get_text()) for t in texts]).reshape(8, 8)


def test_06_step_0_the_random_start_and_a_tie(ex):
    """w06-s6-read: "at step 0 the mirror place gets from 0.01 to 0.59, and every digit is equally likely"."""
    r = move(ex, "step", 0)
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.01" and f"{mirror.max():.2f}" == "0.59"
    assert "every digit equally likely" in ex.summary()
    assert np.isfinite(r["loss"]).sum() == 1                    # the loss panel is not empty at step 0
    loss0 = al.loss_of(al.init_params(L06_CFG, 0), L06_IDS, L06_TARGETS, L06_CFG)
    assert np.isclose(loss0, np.log(10))                        # independently: probability 1/10 each


def test_06_step_10_scores_lead_the_attention(ex):
    """w06-s6-read and the Summary: "by step 10 every row [of the position scores, as printed] has its
    largest score on the mirror place; the attention follows only in part: 0.04 to 0.90; 0.39 right"."""
    move(ex, "step", 8)
    assert (shown_scores(ex).argmax(axis=1) != MIRROR).any()    # "there first" at 10: not yet at step 8
    r = move(ex, "step", 10)
    scores = shown_scores(ex)                                   # (8, 8) rounded as printed
    assert np.allclose(scores, r["positions"], atol=0.051)
    top = scores.max(axis=1, keepdims=True)
    assert (scores.argmax(axis=1) == MIRROR).all() and ((scores == top).sum(axis=1) == 1).all()   # no ties
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.04" and f"{mirror.max():.2f}" == "0.90"
    assert (r["weights"].argmax(axis=1) != MIRROR).any()        # the attention does not follow everywhere
    params10 = al.train(L06_CFG, steps=10, seed=0).params
    accuracy = al.accuracy(params10, L06_IDS, L06_TARGETS, L06_CFG)
    assert f"{accuracy:.2f}" == "0.39" and np.isclose(r["accuracy"], accuracy)


def test_06_step_24_this_sequence_and_step_30_everything(ex):
    """w06-s6-read: "by step 24 every digit of this sequence is predicted right, and by step 30 the
    held-out accuracy is 1.00"; the Summary: "the attention and the predictions follow (step 30)"."""
    move(ex, "step", 22)
    assert ex.result["said"].split() != [str(t) for t in L06_TARGETS[0]]
    move(ex, "step", 24)
    assert ex.result["said"].split() == [str(t) for t in L06_TARGETS[0]]
    guess = al.predict(al.train(L06_CFG, steps=24, seed=0).params, L06_IDS[:1], L06_CFG)[0]
    assert (guess[0] == L06_TARGETS[0]).all()
    r = move(ex, "step", 28)
    assert f"{r['accuracy']:.2f}" != "1.00"
    r = move(ex, "step", 30)
    assert f"{r['accuracy']:.2f}" == "1.00"
    assert (r["weights"].argmax(axis=1) == MIRROR).all()
    params30 = al.train(L06_CFG, steps=30, seed=0).params
    assert f"{al.accuracy(params30, L06_IDS, L06_TARGETS, L06_CFG):.2f}" == "1.00"


def test_06_guide_drag_from_step_0_to_40(ex):
    """Guide, misconception row "Someone designs W_q and W_k": dragging from step 0 to 40, the
    anti-diagonal appears in the position scores by step 10 and the held-out accuracy is 1.00 by step 30,
    and stays there."""
    first_scores = first_right = None
    for step in [t for t in ex.controls[0].options if t <= 40]:
        r = move(ex, "step", step)
        if first_scores is None and (shown_scores(ex).argmax(axis=1) == MIRROR).all():
            first_scores = step
        if first_right is None and f"{r['accuracy']:.2f}" == "1.00":
            first_right = step
    assert first_scores == 10 and first_right == 30
    assert f"{r['accuracy']:.2f}" == "1.00"                     # at step 40



def test_06_finite_differences_have_a_rounding_term_and_a_best_step():
    """Review round 5, 06.2: central differences err by O(ε²) from the formula plus O(1e-16 / ε) from
    rounding, so shrinking ε below about 1e-5 makes the check worse. Shown here on the lesson's cell-13
    model with a plain central difference written here (the loss by al.loss_of, the gradient by
    al.loss_and_grads): the error at 1e-5 is the smallest, and at 1e-10 it is 100 times larger."""
    small = al.ModelConfig(vocab_size=5, n=4, d=8, n_heads=2)
    rng = np.random.default_rng(4)
    p = {name: rng.standard_normal(w.shape) / 2 for name, w in al.init_params(small, seed=4).items()}
    ids, targets = al.task_batch(rng, 3, small)
    exact = al.loss_and_grads(p, ids, targets, small)[1]["W_q"]

    def error(eps):
        g = np.zeros_like(exact)
        for idx in np.ndindex(g.shape):
            up, down = p["W_q"].copy(), p["W_q"].copy()
            up[idx] += eps
            down[idx] -= eps
            g[idx] = (al.loss_of(p | {"W_q": up}, ids, targets, small)
                      - al.loss_of(p | {"W_q": down}, ids, targets, small)) / (2 * eps)
        return np.abs(g - exact).max() / np.abs(exact).max()
    errors = {eps: error(eps) for eps in (1e-3, 1e-5, 1e-10)}
    assert errors[1e-5] < errors[1e-3] and errors[1e-5] < errors[1e-10] / 100, errors
    text = " ".join(cell_text("06", 10).split())
    assert "plus a rounding error of order $10^{-16}/\\varepsilon$" in text
    assert "The best $\\varepsilon$ is near $10^{-5}$" in text
    assert "a smaller one is worse, not better" in text


@pytest.mark.parametrize("decimals", [2, 4, 6, 8])
def test_06_3_a_right_pass_rounded_to_decimals_is_a_precision_slip(decimals):
    """A fresh read of the 06.3 fix (review round 5, 06.4): the right backward pass with its numbers
    rounded, np.round(g, 4), was told 'these are finite differences'; rounding is a precision slip, and it
    gets that hint."""
    right = causal_grads()

    def rounded(Q, K, V, dY):
        return tuple(np.round(g, decimals) for g in right(Q, K, V, dY))
    result = al.EXERCISES["06.3"].evaluate(rounded)
    assert result.mistake == "low precision" and "np.round" in result.message, result.message


# ---------- review round 5: lesson 06 items 1, 3 and 5, and the seeds a student may change (issue 44) ------
def folded06(cid: str) -> str:
    return " ".join(lesson_cells("06")[cid].split())


def printed06(cid: str) -> str:
    """The stored text output of one lesson-06 cell."""
    (cell,) = [c for c in json.loads(next((ROOT / "notebooks").glob("06-*.ipynb")).read_text())["cells"]
               if c["id"] == cid]
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def test_06_5_the_held_out_set_is_no_training_runs_stream():
    """Review round 5, 06.5: the held-out set came from default_rng(6), the data stream of train(seed=5)
    (al.train draws its batches from default_rng(seed + 1)), whose first batch was held_ids[:64]. Drawn as
    the lesson's cell draws it, the held-out set now starts none of the streams of seeds 0-999."""
    namespace = {"np": np, "al": al}
    exec(lesson_cells("06")["s1-code"], namespace)
    held = namespace["held_ids"]
    assert (held == HELD).all()                                     # the set the tests here check
    for seed in range(1000):
        first = al.task_batch(np.random.default_rng(seed + 1), 64, CFG)[0]
        assert not (first == held[:64]).all(), seed
    assert "no training run" in folded06("s1")


def test_06_1_where_the_anti_diagonal_lives_comes_from_the_start_under_adam():
    """Review round 5, 06.1: "the anti-diagonal lives in W_q and W_k" follows from the starting scales under
    Adam: P starts sqrt(32) = 5.7 times larger per entry than W_q, Adam gives every entry steps of about the
    same size (of the order of lr), so P moves 9 % and W_q 43 % (seed 0). Started as small as W_q, P moves
    155 %, and neither the untrained P (0.41) nor the untrained W_q, W_k (0.34) keeps the 1.00. Norms and
    accuracies computed here."""
    p0 = al.init_params(CFG, 0)
    assert 5.0 < np.sqrt((p0["P"] ** 2).mean() / (p0["W_q"] ** 2).mean()) < 6.5

    def moved(p, start, name):
        return np.sqrt(((p[name] - start[name]) ** 2).sum() / (start[name] ** 2).sum())

    def acc(p):
        return f"{al.accuracy(p, HELD, HELD_T, CFG):.2f}"
    p = al.train(CFG, steps=120, seed=0).params
    assert (f"{moved(p, p0, 'P'):.0%}", f"{moved(p, p0, 'W_q'):.0%}") == ("9%", "43%")
    small = p0 | {"P": p0["P"] / np.sqrt(32)}
    q = al.train(CFG, steps=120, seed=0, start=small).params
    assert f"{moved(q, small, 'P'):.0%}" == "155%"
    assert [acc(q), acc(q | {"P": small["P"]}), acc(q | {"W_q": small["W_q"], "W_k": small["W_k"]})] == \
        ["1.00", "0.41", "0.34"]
    read = folded06("w06-circuits-read")
    for words in ("not from attention", "5.7$ times larger", "9 % of its size", "43 %", "155 %", "(0.41)",
                  "(0.34)", "lives in both"):
        assert words in read, words
    assert "155%" in printed06("w06-circuits-code") and "0.41" in printed06("w06-circuits-code")
    summary = folded06("summary")
    assert "With this start it lives mostly in" in summary
    assert "and it lives in $W_q$ and $W_k$;" not in summary
    assert "they learned to read the random P they started with" not in printed06("w06-circuits-code")


def test_06_3_the_ratio_is_printed_and_the_explorer_counts_the_rows_on_the_mirror(ex):
    """Review round 5, 06.3: the ratio of section 5 (3.28 with seed 0) was asserted, never printed; "step 10
    ... every row has its largest score on the mirror place" was visible only by moving the slider. The
    ratio is computed here; the explorer's count of rows is checked against its own scores at steps 0-10."""
    p = al.train(CFG, steps=120, seed=0).params
    pos = (p["P"] @ p["W_q"]) @ (p["P"] @ p["W_k"]).T / np.sqrt(32)
    dig = (p["E"] @ p["W_q"]) @ (p["E"] @ p["W_k"]).T / np.sqrt(32)
    ratio = f"{np.ptp(pos, axis=1).min() / np.ptp(dig, axis=1).max():.2f}"
    assert ratio == "3.28" and f"spans {ratio} times" in printed06("s5-wqwk-code")
    counts = {}
    for step in (0, 8, 10):
        scores = move(ex, "step", step)["positions"]
        counts[step] = int(sum(np.argmax(row) == m and (row == row.max()).sum() == 1
                               for row, m in zip(scores, MIRROR)))
        assert f"position scores: {counts[step]} of 8 rows peak on the mirror place" in ex.summary()
    assert counts[10] == 8 and counts[8] < 8
    assert "position scores: 8 of 8 rows peak on the mirror place" in printed06("s6-static")


SEEDS_06 = ("TRAINING_SEED", "CHECK_SEED", "MODEL_CHECK_SEED")


def test_06_each_draw_has_one_named_seed_and_no_claim_about_a_draw_is_asserted():
    """Issue 44 item 2: every draw of lesson 06 takes its seed from one variable, `NAME = 0` at the start of
    a line (the held-out and counting data are fixed data, and say so); the claims that hold on seed 0 but
    not on every seed (docs/held-out/06.md) are printed, not asserted."""
    cells = {cid: src for cid, src in lesson_cells("06").items() if not cid.startswith("ex-")}
    code = "\n".join(cells.values())
    for name in SEEDS_06:
        assert len(re.findall(rf"(?m)^{name} = 0\b", code)) == 1, name
    assert not re.search(r"seed=\d", code)
    assert all("fixed data" in line for line in code.splitlines() if re.search(r"default_rng\(\d", line))
    for gone in ("assert accuracy >= 0.99", "assert acc_P >= 0.99", "assert mirror.mean()",
                 "assert abs(acc_np - others)", "assert acc_na < 0.15", "assert (reach[",
                 "assert w_own < w_other",
                 "assert np.ptp(pos_scores", "assert (value_path.argmax"):
        assert gone not in code, gone
    assert "`TRAINING_SEED`" in folded06("s2") and "docs/held-out/06.md" in folded06("s2")
    assert "`CHECK_SEED`" in folded06("s3") and "`MODEL_CHECK_SEED`" in folded06("s3-fd")


def test_06_runs_with_a_seed_a_student_might_pick(monkeypatch):
    """Issue 44 item 2: lesson 06 runs through its last seeded cell (section 7's controlled run) with
    TRAINING_SEED = 28, a held-out seed on which two of its claims fail (docs/held-out/06.md): shrunk is
    not faster than scaled there, and the no-positions model lands further than 0.005 from its bound. The
    cells print it instead of stopping: the ordering holds in 2 of the 3 seeds 28, 29, 30. Every figure is
    built, but not rasterised (Agg; nbval draws them with seed 0)."""
    monkeypatch.setenv("MPLBACKEND", "agg")
    nb = run_lesson("06", until="s7-scale-code", TRAINING_SEED=28, CHECK_SEED=28, MODEL_CHECK_SEED=28)
    out = {c.get("id"): "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells}
    assert "seed 28 reaches 1.00: True" in out["s4-train-code"]
    assert "(seeds 28, 29, 30)" in out["s7-scale-code"]
    # review round 6, items 1 and 2: this run's own numbers, seed 0's beside them (the reviewer's own model,
    # no attention_lab: 4 of 8 rows at step 10 and 7 of 8 lightest rows with seed 28; its "6 of 8" for seed 0
    # counted the 8s once, its own list gives 5)
    assert "step 10: " in out["s6-static"] and "position scores: 4 of 8 rows" in out["s6-static"]
    assert "(seed 0 at step 10: 8 of 8 rows peak on the mirror place, held-out accuracy 0.39)" \
        in out["s6-static"]
    assert "seed 28: rows of the map below where the query's own digit is the lightest cell: 7 of 8   " \
           "(seed 0: 5 of 8)" in out["s7-positions"]
    assert "shrunk before scaled, unscaled before enlarged: in 2 of 3 seeds" in out["s7-scale-code"]
    # review round 7, item 7: seed 28's unscaled and enlarged runs never get below 0.1 (docs/held-out/06.md):
    # the table says "never", not -1
    assert "loss below 0.1 at steps never" in out["s7-scale-code"] and "-1" not in out["s7-scale-code"]


def test_06_adam_is_not_said_to_move_every_entry_by_lr():
    """Review round 16, item 2: after its first steps Adam moves an entry by less than lr (m̂/√v̂ < 1 once the
    gradient changes sign; about a quarter of lr on average over the 120 steps, the reviewer's own Adam),
    so the lesson, its Summary and the teaching guide say steps of about the same size. Review round 17,
    item 1: not "about lr at the first step, after it at most about lr": P and W_q get their first gradient
    at step 2 (step 1 moves only W_u), and that first move is 0.744 lr, whatever the gradient; later moves
    reach 1.2-1.3 lr at times (the reviewer's snapshots). So: of the order of lr."""
    for read in (folded06("w06-circuits-read"), folded06("summary"),
                 " ".join((ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8").split())):
        assert "by about lr" not in read and "steps of about the same size" in read
        assert "of the order of lr" in read
        assert "at most about lr" not in read and "about lr at the first step" not in read
    # by hand: two steps of Adam on a gradient that changes sign, g = +1 then -1, move by less than lr
    m, v = 0.1 * 0.9 * 1 + 0.1 * -1, 0.999 * 0.001 + 0.001
    assert abs(m / (1 - 0.9 ** 2)) / np.sqrt(v / (1 - 0.999 ** 2)) < 0.1
    # by hand: a first gradient g at step 2 (0 at step 1) moves by (0.1 g/0.19)/√(0.001 g²/0.001999) lr
    for g in (1e-3, 1.0, 1e3):
        m, v = 0.1 * g, 0.001 * g ** 2
        assert abs(m / (1 - 0.9 ** 2) / np.sqrt(v / (1 - 0.999 ** 2)) - 0.744) < 1e-3
    # by hand: a gradient small for 100 steps (g = 0.01), then 1, moves by more than lr at step 101
    m = v = 0.0
    for g in [0.01] * 100 + [1.0]:
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g ** 2
    assert m / (1 - 0.9 ** 101) / np.sqrt(v / (1 - 0.999 ** 101)) > 1.05


def test_06_section_4_runs_with_training_seed_1(monkeypatch):
    """Review round 16, item 1: section 4's first-step check asserted that every entry of W_u moved by lr
    to 0.1 %, but Adam's first step is lr·|g|/(|g| + 1e-8): with TRAINING_SEED = 1 (a seed the lesson was
    worded from) one of W_u's step-1 gradients is 4.1e-6, its entry moves by 0.0029928, and the lesson
    stopped there. Only the cells section 4 needs run here (imports, data, model, training)."""
    monkeypatch.setenv("MPLBACKEND", "agg")
    nb = run_lesson("06", cells=["imports", "s1-code", "s2-code", "s4-train-code"], TRAINING_SEED=1)
    out = {c.get("id"): "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells}
    printed = out["s4-train-code"]
    assert "seed 1 reaches 1.00: True" in printed
    # the reviewer's 0.0029928 for seed 1's smallest move; and it is Adam's rule at the printed smallest |g|
    smallest_move = float(re.search(r"moved by (\d\.\d{6}) to 0\.003000", printed)[1])
    smallest_g = float(re.search(r"smallest \|g\|: (\S+)\)", printed)[1])
    assert smallest_move == 0.002993 and abs(0.003 * smallest_g / (smallest_g + 1e-8) - smallest_move) < 1e-6
    assert "entries within 0.1 % of lr: 319 of 320; with |g| above 1e-5: 319" in printed


def test_06_adam_first_step_is_lr_to_a_thousandth_above_1e_5():
    """Review round 16, item 1: s4 says the first step lr·|g|/(|g| + ε) is lr to within 0.1 % wherever |g|
    is above about 1e-5 (ε = 1e-8), by hand: ε/(|g| + ε) <= 1e-3 from |g| = 999 ε on."""
    assert 1e-5 / (1e-5 + 1e-8) > 0.999 and 0.99e-5 / (0.99e-5 + 1e-8) < 0.999
    s4 = folded06("s4")
    assert "moves by lr, whatever" not in s4 and "each of its entries moves by lr)" not in s4
    assert r"$\text{lr}\cdot|g|/(|g| + \epsilon)$, which is lr to within 0.1 % wherever $|g|$ is above " \
           "about $10^{-5}$" in s4
    code = lesson_cells("06")["s4-train-code"]
    assert "rtol=1e-3" not in code and 'np.allclose(moved["W_u"], 0.003 * grad_u / (grad_u + 1e-8))' in code


def test_06_the_no_positions_map_outlines_each_rows_lightest_cell():
    """Review round 16, item 4: the no-positions map shows weights from 0.08 to 0.15 on the collection's fixed
    0-1 scale, so "the lightest cell" could only be read from the numbers. The scale stays 0-1 (these are
    attention weights) and each row's smallest weight is outlined: with seed 0 the query's own digit in rows
    1, 2, 5, 6 and 7 (the reviewer's own model), another digit in the 1s' rows (0, 3) and the 4's (4). The
    cell runs here in-process, as the lesson runs it with TRAINING_SEED = 0."""
    import matplotlib.pyplot as plt
    namespace = {"np": np, "al": al, "plt": plt, "TRAINING_SEED": 0}
    cells = lesson_cells("06")
    exec(cells["s1-code"], namespace)
    exec(cells["s7-positions"], namespace)
    ax = namespace["ax"]
    assert ax.collections[0].get_clim() == (0.0, 1.0)                         # the fixed weight scale
    outlined = {}
    for box in ax.patches:
        outlined.setdefault(int(box.get_y()), set()).add(int(box.get_x()))
    own = {1: {1, 5}, 2: {2}, 5: {1, 5}, 6: {6}, 7: {7}}                     # digits 1 8 7 1 4 8 6 0
    assert {row: cols for row, cols in outlined.items() if row in own} == own
    for row, cols in ((0, {0, 3}), (3, {0, 3}), (4, {4})):                  # the 1s' rows and the 4's
        assert outlined[row] and not outlined[row] & cols, row
    assert "outlined: each row's smallest" in ax.get_title()
    # review round 17, item 3: at 2 decimals the 4's own digit (0.1130) and its outlined 8s (0.1099, the
    # reviewer's own model) both read 0.11; at 3 decimals they show apart
    labels = [text.get_text() for text in ax.texts]
    assert len(labels) == 64 and all(len(label) == 5 and label.startswith("0.") for label in labels), labels
    assert labels[4 * 8 + 4] != labels[4 * 8 + 1]                          # row 4: own digit, an 8
    plt.close("all")
    assert "query place × key digit (not drawn above)" in folded06("s5-value")      # its panel is not drawn


def test_06_round6_names_seeds_and_sources():
    """Review round 6, items 1-4 and the seed invitations: the step story and the lightest cells are seed
    0's, said so and printed beside the run's own; the QK/OV names are Elhage et al.'s (2021), whose
    circuits include the embeddings, as lesson 07 says; the saturation numbers are labelled seeds 0-2."""
    read = folded06("w06-s6-read")
    assert "In seed 0's run" in read and "with seed 0, by step 24" in read
    printed = printed06("s6-static")                       # seed 0's own printout agrees with its label
    assert "step 10: held-out loss 2.05, held-out accuracy 0.39" in printed
    assert "position scores: 8 of 8 rows" in printed.split("step 10:")[1].split("step 24:")[0]
    assert "(seed 0 at step 30: held-out accuracy 1.00)" in printed
    assert "weight on mirror: 0.59 " in printed.split("step 10:")[0]
    assert "(seed 0 at step 0: 0.01 to 0.59" in printed
    assert "(with seed 0, the mirror place gets from 0.01 to 0.59)" in read
    light = folded06("s7-attention")
    assert "the 8s of an 8's row" not in light
    assert "With seed 0, the query's own digit is the lightest cell (outlined) in 5 of the 8 rows" in light
    assert "seed 0: rows of the map below where the query's own digit is the lightest cell: 5 of 8" \
        in printed06("s7-positions")
    qk, ov, summary = folded06("s5-wqwk"), folded06("s5-value"), folded06("summary")
    assert "Elhage et al. (2021" in qk and "**QK matrix**" in qk and "interpretability literature" not in qk
    assert "**OV matrix**" in ov and "Elhage et al. (2021) call the **OV circuit**" in ov
    assert "$W_v$ and $W_O$ read together are the **OV circuit**" not in ov
    assert "OV circuit ($W_v$ with $W_O$)" not in summary and "Elhage et al." in summary
    assert "Elhage et al. (2021) call the product $E\\,W_v W_O W_u$ itself the OV circuit" in \
        " ".join(lesson_cells("07")["l07-s6"].split())       # lesson 07 names the same product
    scale = folded06("w06-scale-read")
    assert "With seeds 0–2 (the lesson's defaults" in scale and "28, 34 and 30 (seeds 0–2)" in scale
    assert "74 % (seeds 0–2)" in scale
    for cid in ("s2", "s2-code", "s3", "s3-code", "s3-fd", "s3-model-code"):
        assert "any whole number from 0 up" in " ".join(lesson_cells("06")[cid].split()), cid
    everything = " ".join(" ".join(src.split()) for src in lesson_cells("06").values())
    assert "try any)" not in everything and "try any seed" not in everything and "any seed." not in everything


# ---------- review round 7: lesson 06, items 1-9 (1 wrong, 3 misleading, 5 cosmetic) ----------
def stream_codes(seed: int, steps: int) -> np.ndarray:
    """The sequences al.train(seed=seed) draws in `steps` steps, each as one 8-digit number: its data stream
    is default_rng(seed + 1), 64 sequences a step (tied to al.train by test_06_the_stream_is_al_trains)."""
    rng = np.random.default_rng(seed + 1)
    digits = 10 ** np.arange(7, -1, -1)                                  # a sequence as one 8-digit number
    return np.concatenate([rng.integers(0, 10, size=(64, 8)) @ digits for _ in range(steps)])


def test_06_the_stream_is_al_trains():
    """The stream written above is al.train's: its first two batches give the first two losses of a run."""
    rng = np.random.default_rng(3 + 1)
    batches = [al.task_batch(rng, 64, CFG) for _ in range(2)]
    run, one = al.train(CFG, steps=2, seed=3), al.train(CFG, steps=1, seed=3)
    assert np.isclose(run.losses[0], al.loss_of(al.init_params(CFG, 3), *batches[0], CFG))
    assert np.isclose(run.losses[1], al.loss_of(one.params, *batches[1], CFG))
    codes = [batch[0] @ 10 ** np.arange(7, -1, -1) for batch in batches]
    assert (np.concatenate(codes) == stream_codes(3, 2)).all()


def test_06_held_out_sequences_come_up_in_training_by_chance_and_the_lesson_says_how_often():
    """Item 1 (wrong): "no training run below, whatever its seed, ever trains on them" and "the data never
    repeats" were false: a batch is 64 uniform draws from the same 10^8 sequences, and seed 49's 120-step
    run draws held-out sequence 166 at step 44. The lesson now says it by construction and prints the
    chance, 1 - (1 - 500/10^8)^7680 = 0.038 (written here as -expm1(n log1p(-p))), and the expected pairs
    of equal sequences, C(7680, 2)/10^8 = 0.29; over seeds 0-399 the counts agree with both."""
    held = HELD @ 10 ** np.arange(7, -1, -1)
    codes = stream_codes(49, 120)
    assert codes[44 * 64:45 * 64].tolist().count(held[166]) == 1
    s1, s4 = folded06("s1"), folded06("s4")
    assert "ever trains on them" not in s1 and "The data never repeats" not in s4
    assert "which no training run draws from" in s1 and "by chance it can contain a held-out sequence" in s1
    assert "almost never repeats (0.29 pairs of equal sequences in a run of 120 steps" in s4
    chance = {steps: -np.expm1(64 * steps * np.log1p(-500 / 1e8)) for steps in (120, 300)}
    pairs = {steps: math.comb(64 * steps, 2) / 1e8 for steps in (120, 300)}
    out = printed06("s1-code")
    for steps in (120, 300):
        assert f"probability {chance[steps]:.3f} (once in {1 / chance[steps]:.0f} runs); " \
               f"{pairs[steps]:.2f} pairs" in out, out
    hits, repeats = 0, []
    for seed in range(400):
        codes = stream_codes(seed, 120)
        hits += bool(np.isin(codes, held).any())
        counts = np.unique(codes, return_counts=True)[1]
        repeats.append((counts * (counts - 1) // 2).sum())
    assert abs(hits - 400 * chance[120]) < 4 * np.sqrt(400 * chance[120])           # 13 of 400, 15 expected
    assert abs(np.mean(repeats) - pairs[120]) < 4 * np.sqrt(pairs[120] / 400)        # 0.255, 0.29 expected


def hand_counting_baseline() -> float:
    """Section 1's counting baseline, by hand: for each (place, digit), the target seen most often with it in
    the 5000 training sequences (the smallest such target on a tie), scored on the held-out set."""
    ids, targets = al.task_batch(np.random.default_rng(7), 5000, CFG)
    right = 0
    for place in range(8):
        for digit in range(10):
            seen = targets[ids[:, place] == digit, place]
            guess = np.bincount(seen, minlength=10).argmax()
            right += (HELD_T[HELD[:, place] == digit, place] == guess).sum()
    return right / HELD.size


def hand_other_seven_baseline() -> float:
    """The rule of section 7 by hand: guess a commonest digit of the other seven, ties broken at random."""
    total = 0.0
    for seq, target in zip(HELD.tolist(), HELD_T.tolist()):
        for place in range(8):
            others = seq[:place] + seq[place + 1:]
            top = max(others.count(d) for d in set(others))
            modes = [d for d in set(others) if others.count(d) == top]
            total += (target[place] in modes) / len(modes)
    return total / HELD.size


def test_06_the_baselines_are_averages_and_runs_land_above_them():
    """Item 2: 0.10 (a digit and its place) and 0.324 (the commonest of the other seven) are expected
    accuracies, not bounds: seed 0's no-attention run gets 0.1113 against 0.0995, and seed 2's no-positions
    run 0.3317 against 0.3245 (the reviewer's own model; the baselines computed here by hand). The lesson
    calls them baselines and averages, and prints "above it" beside seed 0's."""
    baseline, others = hand_counting_baseline(), hand_other_seven_baseline()
    assert f"{baseline:.4f}" == "0.0995" and f"{others:.4f}" == "0.3245"
    no_attn, no_pos = al.ModelConfig(attention=False), al.ModelConfig(positions=False)
    acc_na = al.accuracy(al.train(no_attn, steps=300, seed=0).params, HELD, HELD_T, no_attn)
    acc_np = al.accuracy(al.train(no_pos, steps=300, seed=2).params, HELD, HELD_T, no_pos)
    assert acc_na > baseline and acc_np > others
    words = " ".join(folded06(cid) for cid in ("s1", "s7", "s7-attention"))
    assert "bound" not in words.replace("not a bound", "").replace("not bounds", "")
    assert "It is an average, not a bound" in folded06("s1") and "Both are averages, not bounds" in words
    assert "6 of 16 further seeds did, above 0.324" in words
    assert "(seed 0's does, printed below; 8 of 16 further seeds did)" in words
    # review round 16, item 3: "0.10 ... counting baseline 0.10" then "above the counting baseline: True" with
    # seed 29; both to 4 decimals now (seed 0: the reviewer's 0.1113 against the baseline by hand, 0.0995)
    printed = printed06("s7-attention-code")
    assert "no attention: held-out accuracy 0.1113   (counting baseline 0.0995," in printed
    assert "bound" not in printed06("s7-attention-code")
    assert "above the counting baseline: True   (seed 0: True)" in printed06("s7-attention-code")
    assert "above it: False" in printed06("s7-positions") and "best guess" not in printed06("s7-positions")
    assert "best guess" not in printed06("s1-code") + printed06("s4-train-code")
    import matplotlib.pyplot as plt
    run = al.train(CFG, steps=2, seed=0, snapshots=(0, 2))
    fig = al.plot_learning_curve(run, HELD, HELD_T, baseline)
    labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert "counting baseline (an average)" in labels and not any("best guess" in t for t in labels)
    plt.close(fig)
    guide = (ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    assert "counting bound" not in guide and "against the bounds 0.324" not in guide


def test_06_all_four_parts_of_a_score_with_seed_0():
    """Item 3: the part of a score that depends on the key's digit is the digit scores plus the mixed part
    query place × key digit, which is the wider of the two (3.63 against 2.65 with seed 0). With all four
    parts the place part is 1.82 times as wide, not "more than three times". Computed here from the full
    scores of every (query place, query digit) against every (key place, key digit), X = E[digit] + P[place]:
    a key's score is a place part plus a digit part, so each part's range is read from one slice."""
    p = al.train(CFG, steps=120, seed=0).params
    X = p["E"][None, :, :] + p["P"][:, None, :]                                  # (8 places, 10 digits, 32)
    S = np.einsum("iac,jbc->iajb", X @ p["W_q"], X @ p["W_k"]) / np.sqrt(32)     # (8, 10, 8, 10)
    place_part = np.ptp(S, axis=2)                                               # (8, 10, 10) over key places
    digit_part = np.ptp(S, axis=3)                                               # (8, 10, 8) over key digits
    assert np.allclose(place_part, place_part[..., :1]) and np.allclose(digit_part, digit_part[..., :1])
    factor = place_part.min() / digit_part.max()
    QK = p["W_q"] @ p["W_k"].T / np.sqrt(32)                                      # the QK matrix, scaled
    mixed = [[float(p["P"][i] @ QK @ p["E"][b]) for b in range(10)] for i in range(8)]   # q place, k digit
    digits = [[float(p["E"][a] @ QK @ p["E"][b]) for b in range(10)] for a in range(10)]
    widest_mixed, widest_digits = max(map(np.ptp, mixed)), max(map(np.ptp, digits))
    assert (f"{widest_mixed:.2f}", f"{widest_digits:.2f}", f"{factor:.2f}") == ("3.63", "2.65", "1.82")
    out = printed06("s5-wqwk-code")
    assert "query place × key digit 3.63, digit scores 2.65" in out and "spans 1.82 times" in out
    words = folded06("s5-wqwk") + " " + folded06("s5-value")
    assert "more than three times" not in words and "above 3 in" not in words
    assert "its widest row spans 3.63, the digit scores' 2.65" in words
    assert "1.82 times the widest digit part" in words
    assert "so on 14 of 16 further seeds" in words and "wider on 16 of 16 further seeds)" in words


def test_06_the_small_gradient_reason_is_vaswani_et_al_s_and_holds_for_sgd():
    """Item 4: "cannot be the reason" had no scope and no source: the reason is Vaswani et al.'s (2017,
    section 3.2.1) suspicion, which Adam's division answers but plain SGD would not."""
    scale, summary = folded06("s7-scale"), folded06("summary")
    assert "cannot be the reason" not in scale
    assert "Vaswani et al. (2017, section 3.2.1) suspected" in scale
    assert "With plain gradient descent (SGD)" in scale and "With Adam (which they used too)" in scale
    assert "A controlled test, with Adam" in scale
    assert "(with Adam, $d_k = 32$)" in summary
    guide = (ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    assert "with plain SGD the small gradient would count" in guide


def grads_written_here(dS_of=None, cast=None):
    """Causal attention's (dQ, dK, dV) as a student writes it: dS by `dS_of(A, dA)` (the right rule by
    default); `cast` applied to the inputs (e.g. to float32) or, with cast=('dS', dtype), to dS."""
    def grads(Q, K, V, dY):
        if cast is not None and cast[0] == "inputs":
            Q, K, V, dY = (x.astype(cast[1]) for x in (Q, K, V, dY))
        s = 1 / np.sqrt(K.shape[1])
        A = sm(np.where(np.tril(np.ones((len(Q), len(K)), dtype=bool)), s * Q @ K.T, -np.inf))
        dA = dY @ V.T
        dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) if dS_of is None else dS_of(A, dA)
        if cast is not None and cast[0] == "dS":
            dS = dS.astype(cast[1])
        return s * dS @ K, s * dS.T @ Q, A.T @ dY
    return grads


@pytest.mark.parametrize("cast", [("inputs", np.float32), ("dS", np.float32), ("inputs", np.float16)])
def test_06_3_a_float32_computation_is_not_called_finite_differences(cast):
    """Item 5: a right pass computed in float32 (inputs cast, or dS cast mid-way) and handed back in float64
    was told "these are finite differences". It gets the float32 hint; finite differences keep theirs."""
    result = al.EXERCISES["06.3"].evaluate(grads_written_here(cast=cast))
    assert result.mistake == "float32 inside" and "float32" in result.message, result.message
    assert "finite differences" not in result.message


def test_06_3_finite_differences_written_here_keep_their_hint():
    """Item 5's other side: central differences (here at 1e-4, in float64) are still named as such."""
    def by_differences(Q, K, V, dY):
        return grads_by_differences(Q, K, V, dY, eps=1e-4)
    result = al.EXERCISES["06.3"].evaluate(by_differences)
    assert result.mistake == "finite differences" and "not exact" in result.message, result.message


def test_06_3_and_06_4_name_a_flipped_sign_and_the_diagonal_slip():
    """Item 6: a sign-flipped dS = A * (rowsum - dA) in 06.3, and a * (1 - a) * dL/da in 06.4 (the slip 06.3
    calls "diagonal only"), got the generic message. Both written here."""
    flipped = grads_written_here(dS_of=lambda A, dA: A * ((A * dA).sum(axis=1, keepdims=True) - dA))
    result = al.EXERCISES["06.3"].evaluate(flipped)
    assert result.mistake == "sign flipped" and "wrong sign" in result.message, result.message
    a = hand_softmax(K64 @ Q64 / np.sqrt(2))
    da = V64 @ G64
    result = al.EXERCISES["06.4"].evaluate(a * (1 - a) * da)
    assert result.mistake == "diagonal only" and "only the diagonal" in result.message, result.message


def test_06_4_takes_the_three_numbers_as_a_row_or_a_column():
    """Item 6: the right numbers as a (1, 3) row (what q = np.array([[2., 1.]]) gives) or a (3, 1) column
    were refused for their shape. A 2 × 3 array still is."""
    a = hand_softmax(K64 @ Q64 / np.sqrt(2))
    ds = a * (V64 @ G64 - a @ (V64 @ G64))
    for answer in (ds, ds[None, :], ds[:, None], ds[None, :].tolist()):
        assert al.EXERCISES["06.4"].evaluate(answer).status == "correct", np.shape(answer)
    assert al.EXERCISES["06.4"].evaluate(-ds[None, :]).mistake == "sign flipped"
    assert "2 × 3" in al.EXERCISES["06.4"].evaluate(np.vstack([ds, ds])).message


def test_06_seed_dependent_numbers_are_printed_beside_seed_0s():
    """Item 7: cell s7-positions printed the run's numbers without seed 0's, which the text quotes; the text
    of w06-scale-read said "Printed above for seeds 0-2" whatever the seeds."""
    out = printed06("s7-positions")
    for words in ("0.322   (seed 0: 0.322)", "99.9%   (seed 0: 99.9%)", "0.132   (seed 0: 0.100; 0.132)"):
        assert words in out, words
    scale = folded06("w06-scale-read")
    assert "Printed above for seeds 0–2" not in scale and "With seeds 0–2 (the lesson's defaults" in scale


def test_06_W_u_first_step_is_printed_to_six_digits():
    """Item 8: np.unique(moved.round(6)) printed "[0.003 0.003]" with seed 1000003 (entries 0.002999369 to
    0.003): the cell prints the smallest and largest move to six digits."""
    one = al.train(CFG, steps=1, seed=1000003)
    moved = np.abs(one.params["W_u"] - al.init_params(CFG, 1000003)["W_u"])
    assert f"{moved.min():.6f}" == "0.002999" and len(np.unique(moved.round(6))) == 2
    code = lesson_cells("06")["s4-train-code"]
    assert "np.unique" not in code and "{moved['W_u'].min():.6f} to {moved['W_u'].max():.6f}" in code
    assert "moved by 0.003000 to 0.003000: lr·|g|/(|g| + ε), with lr = 0.003" in printed06("s4-train-code")


def test_06_literature_is_cited_for_what_it_named():
    """Item 9: Elhage et al. named the QK matrix and the QK circuit through the token embeddings (not the
    position scores); Adam is Kingma & Ba's (2015); GPT-2's learned position table has its sources."""
    qk, summary = folded06("s5-wqwk"), folded06("summary")
    assert "named these products" not in qk
    assert "named the head's **QK matrix** $W_q W_k^\\top$" in qk
    assert "read through the token embeddings" in qk
    assert "Here we read it through $P$ as well" in qk
    assert "read through the positions) forms" not in summary and "read here through the positions" in summary
    assert "**Adam** (Kingma & Ba, 2015)" in folded06("s4") and "Adam (Kingma & Ba, 2015)" in summary
    circuits = folded06("w06-circuits-read")
    assert "Radford et al., 2019" in circuits and "Wang & Chen, 2020" in circuits


# ---------- the debug function as handed out: what to look for, not the fix, and no attempt --------------

def test_06_3_as_handed_out_says_what_to_look_for_and_counts_as_no_attempt():
    """The stored verdict of the planted cell said "subtract the row's sum of A * dA first": the fix. As
    handed out, the function gets not yet and what to look for, and Run All's check is no attempt."""
    check_as_handed_out("06.3", ("sum", "subtract", "half", "A * dA", "Jacobian"))



def test_06_3_a_changed_function_with_the_planted_numbers_is_told_why():
    """np.multiply(dA, A) is A * dA written another way (compared with the cell as handed out): the
    student changed the line, and is told why the numbers are still the planted ones; an attempt."""
    def grads(Q, K, V, dY):
        s = 1 / np.sqrt(K.shape[1])
        A = al.softmax(np.where(al.causal_mask(len(Q)), s * Q @ K.T, -np.inf))
        dA = dY @ V.T
        dS = np.multiply(dA, A)
        return s * dS @ K, s * dS.T @ Q, A.T @ dY
    rng = np.random.default_rng(5)
    args = [rng.standard_normal((4, 3)) for _ in range(4)]
    assert all(np.array_equal(a, b) for a, b in zip(grads(*args), HANDED_OUT["06.3"](*args)))
    result = al.EXERCISES["06.3"].evaluate(grads)
    assert result.status == "mistake" and result.mistake == "planted numbers", result
    assert "only part of the softmax's derivative" in result.message, result.message
    assert "still the planted bug" not in result.message
