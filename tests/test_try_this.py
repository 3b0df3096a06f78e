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

# --- lesson 06 ---------------------------------------------------------------------------------------
# The 06 explorer has one slider, "step". Its sentences (cells s6 / w06-s6-read, the Summary, and the
# guide's "A second session" and misconception rows) are checked below at the steps they name, against
# weights trained apart from the explorer: al.train(cfg, steps=t) ends where the lesson's run is at step t.
L06_CFG = al.ModelConfig()
L06_IDS, L06_TARGETS = al.task_batch(np.random.default_rng(6), 500, L06_CFG)
MIRROR = np.arange(8)[::-1]


def shown_scores(ex) -> np.ndarray:
    """The position scores as the student reads them: the numbers printed in the explorer's middle panel."""
    texts = ex.axes["positions"].texts
    return np.array([float(t.get_text()) for t in texts]).reshape(8, 8)


def test_06_step_0_the_random_start_and_a_tie():
    """w06-s6-read: "at step 0 the mirror place gets from 0.00 to 0.56, and every digit is equally likely"."""
    ex = explorer("06 training_explorer")
    r = move(ex, "step", 0)
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.00" and f"{mirror.max():.2f}" == "0.56"
    assert "every digit equally likely" in ex.summary()
    assert np.isfinite(r["loss"]).sum() == 1                    # the loss panel is not empty at step 0
    loss0 = al.loss_of(al.init_params(L06_CFG, 0), L06_IDS, L06_TARGETS, L06_CFG)
    assert np.isclose(loss0, np.log(10))                        # independently: probability 1/10 each


def test_06_step_10_scores_lead_the_attention():
    """w06-s6-read and the Summary: "by step 10 every row [of the position scores, as printed] has its
    largest score on the mirror place; the attention follows only in part: 0.01 to 0.91; 0.40 right"."""
    ex = explorer("06 training_explorer")
    move(ex, "step", 8)
    assert (shown_scores(ex).argmax(axis=1) != MIRROR).any()    # "there first" at 10: not yet at step 8
    r = move(ex, "step", 10)
    scores = shown_scores(ex)                                   # (8, 8) rounded as printed
    assert np.allclose(scores, r["positions"], atol=0.051)
    top = scores.max(axis=1, keepdims=True)
    assert (scores.argmax(axis=1) == MIRROR).all() and ((scores == top).sum(axis=1) == 1).all()   # no ties
    mirror = r["weights"][np.arange(8), MIRROR]
    assert f"{mirror.min():.2f}" == "0.01" and f"{mirror.max():.2f}" == "0.91"
    assert (r["weights"].argmax(axis=1) != MIRROR).any()        # the attention does not follow everywhere
    params10 = al.train(L06_CFG, steps=10, seed=0).params
    accuracy = al.accuracy(params10, L06_IDS, L06_TARGETS, L06_CFG)
    assert f"{accuracy:.2f}" == "0.40" and np.isclose(r["accuracy"], accuracy)


def test_06_step_22_this_sequence_and_step_30_everything():
    """w06-s6-read: "by step 22 every digit of this sequence is predicted right, and by step 30 the
    held-out accuracy is 1.00"; the Summary: "the attention and the predictions follow (step 30)"."""
    ex = explorer("06 training_explorer")
    move(ex, "step", 20)
    assert ex.result["said"].split() != [str(t) for t in L06_TARGETS[0]]
    move(ex, "step", 22)
    assert ex.result["said"].split() == [str(t) for t in L06_TARGETS[0]]
    guess = al.predict(al.train(L06_CFG, steps=22, seed=0).params, L06_IDS[:1], L06_CFG)[0]
    assert (guess[0] == L06_TARGETS[0]).all()
    r = move(ex, "step", 28)
    assert f"{r['accuracy']:.2f}" != "1.00"
    r = move(ex, "step", 30)
    assert f"{r['accuracy']:.2f}" == "1.00"
    assert (r["weights"].argmax(axis=1) == MIRROR).all()
    params30 = al.train(L06_CFG, steps=30, seed=0).params
    assert f"{al.accuracy(params30, L06_IDS, L06_TARGETS, L06_CFG):.2f}" == "1.00"


def test_06_guide_drag_from_step_0_to_40():
    """Guide, misconception row "Someone designs W_q and W_k": dragging from step 0 to 40, the
    anti-diagonal appears in the position scores by step 10 and the held-out accuracy is 1.00 by step 30,
    and stays there."""
    ex = explorer("06 training_explorer")
    first_scores = first_right = None
    for step in [t for t in ex.controls[0].options if t <= 40]:
        r = move(ex, "step", step)
        if first_scores is None and (shown_scores(ex).argmax(axis=1) == MIRROR).all():
            first_scores = step
        if first_right is None and f"{r['accuracy']:.2f}" == "1.00":
            first_right = step
    assert first_scores == 10 and first_right == 30
    assert f"{r['accuracy']:.2f}" == "1.00"                     # at step 40


# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------
