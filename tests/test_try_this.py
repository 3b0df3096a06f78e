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

# --- lesson 08 ---------------------------------------------------------------------------------------
# Cell r08-s4's "Things to try", on the lesson's sentence, through rm.head_explorer's two sliders.

def head_view():
    """Lesson 08's explorer, built as cell r08-explorer builds it (skipped if the model cannot be had)."""
    import pytest

    from attention_lab import real_model as rm
    if "model" not in _LESSON08 and "missing" not in _LESSON08:
        try:
            _LESSON08["model"] = rm.load_model()
        except rm.ModelUnavailable as exc:      # tried once per session
            _LESSON08["missing"] = f"the SmolLM2 file could not be fetched: {str(exc).splitlines()[0]}"
    if "missing" in _LESSON08:
        pytest.skip(_LESSON08["missing"])
    model = _LESSON08["model"]
    ids = rm.encode(model, "My cat sat on the mat. My cat sat on the mat.")
    tokens = rm.token_strings(model, ids)
    return rm.head_explorer(rm.attention_weights(model, ids), tokens), tokens


_LESSON08: dict = {}


def test_08_layer_16_head_0_reads_the_token_before():
    ex, tokens = head_view()
    move(ex, "layer", 16)
    w = move(ex, "head", 0)["weights"]
    n = len(tokens)
    before = sum(int(w[i].argmax()) == i - 1 for i in range(1, n))
    assert before >= n - 2, f"only {before} of {n - 1} rows have their darkest cell just left of the diagonal"


def test_08_layer_18_head_6_reads_what_followed_the_first_copy():
    ex, tokens = head_view()
    move(ex, "layer", 18)
    w = move(ex, "head", 6)["weights"]
    period = tokens.index("_My")                      # the second sentence starts here (7 tokens later)
    for word in ("_sat", "_on", "_the", "_mat"):
        i = len(tokens) - 1 - tokens[::-1].index(word)  # the word in the second sentence
        first = tokens.index(word)                       # its first appearance
        assert i - first == period and tokens[int(w[i].argmax())] == tokens[first + 1], word
    assert tokens[int(w[tokens.index("_sat", 3)].argmax())] == "_on"       # the second sat reads the first on


def test_08_layer_18_head_8_is_an_attention_sink():
    ex, _ = head_view()
    move(ex, "layer", 18)
    w = move(ex, "head", 8)["weights"]
    assert (w[:, 0] >= 0.9).all(), w[:, 0]
    assert "weight on the first token: 1.00" in ex.summary()


# --- teaching guide (docs/teaching-guide.md) -----------------------------------------------------------


def test_guide_08_heads_that_share_keys_differ():
    """Guide, 'Lesson 08', misconceptions: heads 0, 1 and 2 share a key/value head, yet differ."""
    ex, _ = head_view()
    for layer in (0, 16, 29):
        move(ex, "layer", layer)
        w = [move(ex, "head", h)["weights"] for h in (0, 1, 2)]
        assert min(np.abs(w[0] - w[1]).max(), np.abs(w[1] - w[2]).max(), np.abs(w[0] - w[2]).max()) > 0.05


def test_guide_08_layer_18_head_8_parks_its_weight_on_the_first_token():
    """Guide, 'Lesson 08', misconceptions: the attention sink."""
    ex, _ = head_view()
    move(ex, "layer", 18)
    assert move(ex, "head", 8)["sink"] > 0.95
