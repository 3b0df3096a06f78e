"""Lesson 08's "Things to try" (cell r08-s4, 08-inside-a-real-language-model) and the teaching guide's
lesson-08 misconceptions, on the lesson's sentence, moved through rm.head_explorer's two sliders as a
student moves them.

The explorer is built as cell r08-explorer builds it, on SmolLM2-135M (the cached file, loaded once per
process; skipped if it cannot be had). Lesson 08's claims about random draws, its words and exercise 08.1
are in test_08_inside_a_real_language_model.py. Shared helpers: tests/lesson_helpers.py.
"""

import numpy as np
from lesson_helpers import move

# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)
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

