"""Lesson 09, section 4 (your own text): the text explorer driven as a student would (a text typed, τ, top-k,
the seed, layer and head moved), its probabilities against a softmax of logits / τ written here in float64
from rm.forward, its draws against a generator of its own, the section's claims as worded, and exercise
09.6 measured on the real model (its wrong answers written here, apart from exercises_09.py)."""

import numpy as np
import pytest
from lesson09_cells import cell, cells, shown, source

import attention_lab as al
from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm
from attention_lab.answer_keys import answer_key

FRANCE = "The capital of France is"
AUSTRALIA = "The capital of Australia is"


def by_hand(logits, tau, top_k=None):
    """softmax(logits / tau) over the top_k largest, in float64, written here."""
    z = np.asarray(logits, dtype=np.float64)
    keep = np.ones(len(z), bool) if top_k is None else z >= np.sort(z)[-top_k]
    e = np.where(keep, np.exp((z - z.max()) / tau), 0.0)
    return e / e.sum()


def last_logits(model, text):
    return rm.forward(model, rm.encode(model, text))[0][-1]              # (vocab,)


def word(model, token_id) -> str:
    return rm.token_strings(model, [int(token_id)])[0]


@pytest.fixture(scope="module")
def explorer(real_model):
    return hw.text_explorer(real_model)


# ------------------------------------------------------------------------------- the explorer, driven
def test_the_start_is_the_lessons_static_copy(explorer):
    assert shown("r09-text-static").startswith(explorer.summary() + "\n")
    assert 'hw.text_explorer(model)' in source("r09-text")


def test_bars_are_a_softmax_of_logits_over_tau(real_model, explorer):
    logits = last_logits(real_model, FRANCE)
    top = np.argsort(-logits, kind="stable")[:10]
    for tau, k in [(1.0, 0), (0.5, 0), (2.0, 20), (1.3, 5)]:
        explorer.set(tau=tau, top_k=k)
        p = by_hand(logits, tau, k or None)
        assert np.allclose(explorer.result["next"][0], p[top], atol=1e-5)
        assert [word(real_model, t) for t in top] == explorer.panels[1].row_labels
    explorer.reset()


def test_every_draw_is_counted_and_the_first_is_sample_token(real_model, explorer):
    logits = last_logits(real_model, FRANCE)
    top = np.argsort(-logits, kind="stable")[:10]
    for seed in (0, 1, 7):
        explorer.set(seed=seed, tau=1.5)
        p = by_hand(logits, 1.5)
        drawn = np.random.default_rng(seed).choice(len(p), size=100, p=p)
        assert np.array_equal(np.round(explorer.result["next"][1] * 100), [(drawn == t).sum() for t in top])
        assert explorer.result["outside"] == int((~np.isin(drawn, top)).sum())
        assert explorer.result["first"] == drawn[0] == hw.sample_token(logits, 1.5, seed=seed)
    explorer.reset()


def test_tau_zero_and_top_k_one_are_greedy(real_model, explorer):
    logits = last_logits(real_model, FRANCE)
    greedy = int(np.argmax(logits))
    for settings in ({"tau": 0.0}, {"top_k": 1}, {"tau": 0.0, "top_k": 1}, {"tau": 2.5, "top_k": 1}):
        explorer.reset()
        explorer.set(**settings)
        assert explorer.result["next"][0][0] == 1.0 and explorer.result["next"][0][1:].sum() == 0.0
        assert explorer.result["next"][1][0] == 1.0 and explorer.result["first"] == greedy
        ax = explorer.axes["next"]                                       # 1.00: no room after the bar
        assert ax.texts[0].get_text() == "1.00" and ax.texts[0].get_ha() == "right"
    for tiny in (1e-3, 1e-6):                                            # τ -> 0: greedy in the limit
        assert hw.next_token_probs(logits, tiny)[greedy] == pytest.approx(1.0, abs=1e-9)
    explorer.reset()


def test_the_head_view_is_the_models_weights(real_model, explorer):
    ids = rm.encode(real_model, FRANCE)
    W = rm.attention_weights(real_model, ids)                           # (30, 9, 5, 5)
    for layer, head in [(16, 0), (0, 3), (29, 8)]:
        explorer.set(layer=layer, head=head)
        assert np.allclose(explorer.result["weights"], W[layer, head], atol=1e-6)
    explorer.reset()


def test_a_new_text_runs_the_model_and_grows_the_figure(real_model, explorer):
    text = "The lighthouse keeper on the northern island kept a notebook for every storm. In the first pages"
    small = explorer.figure.get_size_inches().copy()
    explorer.set(text=text)
    ids = rm.encode(real_model, text)
    assert explorer.error is None and explorer.panels[0].row_labels == rm.token_strings(real_model, ids)
    assert np.allclose(explorer.result["weights"], rm.attention_weights(real_model, ids)[16, 0], atol=1e-6)
    assert explorer.figure.get_size_inches()[1] > small[1]              # taller: every token label fits
    explorer.reset()
    assert explorer.values["text"] == FRANCE and shown("r09-text-static").startswith(explorer.summary())


@pytest.mark.parametrize("text, words", [
    ("", "the text is empty: type a few words"),
    ("word " * 70, "tokens: the explorer shows at most 64; shorten it"),
])
def test_a_text_it_cannot_show_is_told_next_to_the_box(explorer, text, words):
    explorer.set(text=text)
    assert words in explorer.error and explorer.summary() == explorer.error
    explorer.reset()
    assert explorer.error is None


def test_bad_arguments_are_named(real_model):
    with pytest.raises(TypeError, match="text is int: expected a string"):
        hw.text_run(real_model, 3)
    with pytest.raises(ValueError, match=r"layer 30, head 0: the model has layers 0\.\.29 and heads 0\.\.8"):
        hw.text_explorer(real_model, layer=30)
    with pytest.raises(TypeError, match="model"):
        hw.text_explorer("SmolLM2")


# ------------------------------------------------------------------------------- the claims as worded
def test_the_read_cells_claims(real_model, explorer):
    read = cell("r09-text-read")
    explorer.reset()
    assert "τ = 1.00, top-k all: '_Paris' 0.77" in shown("r09-text-static")
    assert "most drawn: _Paris 77," in shown("r09-text-static")
    assert '" Paris" gets 0.77 at τ = 1, and 77 of the 100 draws with seed 0 (75 to 82 with seeds 0 to 7); ' \
        "10 draws land outside the ten bars (9 to 11)" in read
    assert "100 draws, seed 0: 10 off the bars" in shown("r09-text-static")
    assert "'_is' looks most at '_France'" in shown("r09-text-static")
    for settings in ({"tau": 0.0}, {"top_k": 1}):                       # "Move τ to 0, or top-k to 1"
        explorer.reset()
        explorer.set(**settings)
        assert explorer.result["next"][0][0] == 1.0 and explorer.result["next"][1][0] == 1.0
    explorer.reset()
    explorer.set(tau=2.0)                                                # "Move τ to 2"
    assert round(explorer.result["next"][0][0], 2) == 0.05 and '" Paris" falls to 0.05' in read
    assert explorer.result["outside"] == 86
    assert "86 of the 100 draws with seed 0 land outside the ten bars (86 to 93 with seeds 0 to 7)" in read
    p1 = by_hand(last_logits(real_model, FRANCE), 1.0)
    below = np.ones(len(p1), bool)
    below[np.argsort(-p1)[:10]] = False                                  # every token but the ten bars
    assert round(p1[below].max(), 3) == 0.004 and "had at most 0.004 each at τ = 1" in read
    explorer.reset()


def test_the_wrong_answers_are_as_printed(real_model):
    read, printed = cell("r09-text-read"), shown("r09-wrong")
    said = {line.split(" ...")[0]: line for line in printed.splitlines()}
    assert "greedy: ' Sydney." in said[AUSTRALIA] and "' Canberra' 0.34" in said[AUSTRALIA]
    assert "greedy: ' 14." in said["12 times 7 is"] and "greedy: ' 100" in said["Water freezes at"]
    assert "greedy: ' Paris." in said[FRANCE] and "greedy: ' Au." in said["The chemical symbol for gold is"]
    assert '" Sydney" for the capital of Australia (Canberra is a close second), 14 for 12 times 7 and 100' \
        in read
    assert "top two next tokens: ' ' 0.56" in said["12 times 7 is"]           # a bare space, then digits
    assert "top two next tokens: ' ' 0.38" in said["Water freezes at"]
    assert [rm.decode(real_model, [t]) for t in rm.encode(real_model, " 84")] == [" ", "8", "4"]
    assert "the top next token of the two number prompts is a bare space" in read
    assert "for Australia, about one draw in three (0.34)" in read
    p = by_hand(last_logits(real_model, AUSTRALIA), 1.0)
    top2 = np.argsort(-p)[:2]
    assert [word(real_model, t) for t in top2] == ["_Sydney", "_Canberra"]


# ------------------------------------------------------------------------------------- exercise 09.6
def test_09_6_answer_holds_on_the_real_model(real_model):
    logits = last_logits(real_model, AUSTRALIA)
    canberra = rm.encode(real_model, " Canberra")
    assert len(canberra) == 1
    at = {tau: by_hand(logits, tau)[canberra[0]] for tau in (1.0, 0.5)}
    assert round(at[1.0], 2) == 0.34 and at[0.5] > at[1.0] + 0.05          # (a): more often
    assert hw.next_token_probs(logits, 0.0)[canberra[0]] == 0.0            # only τ = 0 itself is greedy
    assert answer_key("09.6") == "a"
    assert "0.34" in cell("ex-09-6") and "0.34" in shown("r09-wrong")


@pytest.mark.parametrize("answer, words", [
    ("b", "takes probability from the thousands of tokens far below"),
    ("c", "only τ = 0 itself is greedy"),
    ("d", "dividing by 0.5 doubles them"),
])
def test_09_6_wrong_answers_get_their_hint(answer, words):
    result = al.EXERCISES["09.6"].evaluate(answer)
    assert result.status == "mistake" and words in result.message


def test_09_6_is_in_the_lesson_after_09_5():
    ids = [c["id"] for c in cells()]
    assert ids.index("ex-09-6") == ids.index("ex-09-5-code") + 1
    assert 'al.check("09.6", answer_09_6)' in source("ex-09-6-code")


def test_the_draws_of_eight_seeds_are_as_worded(real_model):
    """The ranges over seeds 0 to 7, with a generator and a softmax written here."""
    logits = last_logits(real_model, FRANCE)
    top = np.argsort(-logits, kind="stable")[:10]
    printed, read = shown("r09-text-static"), cell("r09-text-read")
    for tau, paris_range, off_range in [(1.0, (75, 82), (9, 11)), (2.0, None, (86, 93))]:
        p = by_hand(logits, tau)
        draws = [np.random.default_rng(seed).choice(len(p), size=100, p=p) for seed in range(8)]
        paris = [int((d == top[0]).sum()) for d in draws]
        off = [int((~np.isin(d, top)).sum()) for d in draws]
        assert (min(off), max(off)) == off_range
        assert f"τ = {tau:.0f}, seeds 0 to 7: ' Paris' {min(paris)} to {max(paris)} draws, " \
               f"{min(off)} to {max(off)} off the bars" in printed
        if paris_range:
            assert (min(paris), max(paris)) == paris_range
    for quoted in ("(75 to 82 with seeds 0 to 7)", "(9 to 11)", "(86 to 93 with seeds 0 to 7)"):
        assert quoted in read
