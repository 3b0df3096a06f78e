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

# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------
