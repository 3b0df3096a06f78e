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

# --- lesson 07 ---------------------------------------------------------------------------------------

def test_07_cell_19_the_two_heads_form_together():
    """07 section 7: up to step 200 neither pattern (both numbers below a third); from step 500 on, layer 1
    gives more than half its weight to the previous token and layer 2 most of its weight to the token
    after the earlier copy of the query's token. The teaching guide's third session asks "Which head
    appears first?" and answers "neither: they rise together": the same two checks."""
    ex = explorer("07 induction_explorer")
    words = ex.summary().splitlines()[1].split()[1:]                 # the probe, as printed
    n = len(words)
    i = np.arange(1, n)
    # the keys an induction head should read, found here from the printed probe
    pairs = [(q, j + 1) for q in range(n) for j in range(q - 1) if words[j] == words[q]]
    assert pairs, "the probe must repeat a segment"
    q, k = np.array(pairs).T
    seen = {}
    for _, step in ex.sliders["step"].options:                       # every kept step, as (label, value)
        r = move(ex, "step", step)
        seen[step] = (r["layer1"][i, i - 1].mean(), r["layer2"][q, k].mean())
        assert f"{seen[step][0]:.2f}" in ex.summary() and f"{seen[step][1]:.2f}" in ex.summary()
    early = [v for s, v in seen.items() if s <= 200]
    late = [v for s, v in seen.items() if s >= 500]
    assert early and late
    assert all(prev < 1 / 3 and look < 1 / 3 for prev, look in early)
    assert all(prev > 0.5 and look > 0.5 for prev, look in late)


# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------
