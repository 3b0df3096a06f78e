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


PICKS = {"sink head": (18, 8), "previous token": (16, 0), "candidate induction": (18, 6)}   # lesson 08's


@pytest.fixture(scope="module")
def explorer(real_model):
    return hw.text_explorer(real_model, picks=PICKS)


# ------------------------------------------------------------------------------- the explorer, driven
def test_the_start_is_the_lessons_static_copy(explorer):
    assert shown("r09-text-static").startswith(explorer.summary() + "\n")
    assert "hw.text_explorer(model, layer=layer, head=head, picks=picks, seed=SAMPLE_SEED)" in \
        source("r09-text")
    assert "\nSAMPLE_SEED = 0 " in "\n" + source("r09-text")
    assert f"framed in the model view: {PICKS}" in shown("r09-text-static")


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


# ------------------------------------------------------------------------------- the model view
def thumbnail(mosaic, layer, head, n):
    """Head (layer, head)'s (n, n) block of the model view's image: heads down, layers across, blocks
    n + gap apart with gap = max(2, round(n / 4)) blank cells (as lesson 08's model view)."""
    gap = max(2, round(n / 4))
    r, c = head * (n + gap), layer * (n + gap)
    return np.asarray(mosaic[r:r + n, c:c + n], dtype=float)


def red_box(explorer):
    """Where the canvas has the open head's red (#b00020): (x0, x1, y0, y1), data units of the model view."""
    rgba = explorer.renderer.pixels()
    ys, xs = np.nonzero(np.abs(rgba[..., :3].astype(int) - [0xB0, 0x00, 0x20]).sum(axis=-1) < 30)
    ax = explorer.axes["every"]
    height = explorer.figure.bbox.height
    inside = ys < height - ax.get_window_extent().y0 + 2          # above the legend (its red sample)
    (x0, y0), (x1, y1) = ax.transData.inverted().transform(
        [(xs[inside].min(), height - ys[inside].max()), (xs[inside].max(), height - ys[inside].min())])
    return x0, x1, min(y0, y1), max(y0, y1)


def test_the_model_view_is_every_heads_weights(real_model, explorer):
    ids = rm.encode(real_model, FRANCE)
    W = rm.attention_weights(real_model, ids)                           # (30, 9, 5, 5), a forward of its own
    mosaic = explorer.axes["every"].images[0].get_array()
    for layer, head in [(0, 0), (16, 0), (18, 8), (29, 8), (7, 4)]:
        assert np.allclose(thumbnail(mosaic, layer, head, 5), W[layer, head], atol=1e-6)


@pytest.mark.parametrize("layer, head", [(16, 0), (0, 0), (29, 8), (3, 7)])
def test_the_sliders_open_a_head_framed_in_red(explorer, layer, head):
    explorer.set(layer=layer, head=head)
    x0, x1, y0, y1 = red_box(explorer)                                  # drawn pixels, not the patch's data
    gap = 2                                                             # 5 tokens: max(2, round(5 / 4))
    assert x0 < layer * 7 and x1 > layer * 7 + 4 and x1 - x0 < 7 + 1.5  # around that thumbnail alone
    assert y0 < head * 7 and y1 > head * 7 + 4 and y1 - y0 < 7 + 1.5
    assert gap == max(2, round(5 / 4))
    explorer.reset()


def test_the_picks_are_framed_and_named(real_model):
    picks = {"sink head": (18, 8), "previous token": (16, 0)}
    ex = hw.text_explorer(real_model, picks=picks)
    legend = [t.get_text() for t in ex.axes["every"].get_legend().get_texts()]
    assert legend == ["sink head: layer 18, head 8", "previous token: layer 16, head 0",
                      "open: the heatmap above"]
    with pytest.raises(ValueError, match=r"picks\['sink head'\] is head 9 of layer 18"):
        hw.text_explorer(real_model, picks={"sink head": (18, 9)})


def test_a_new_text_of_the_same_length_redraws_the_model_view(real_model, explorer):
    other = "The capital of Spain is"
    assert len(rm.encode(real_model, other)) == len(rm.encode(real_model, FRANCE)) == 5
    explorer.set(text=other)
    W = rm.attention_weights(real_model, rm.encode(real_model, other))
    mosaic = explorer.axes["every"].images[0].get_array()
    assert np.allclose(thumbnail(mosaic, 16, 0, 5), W[16, 0], atol=1e-6)
    assert not np.allclose(thumbnail(mosaic, 3, 3, 5), rm.attention_weights(
        real_model, rm.encode(real_model, FRANCE))[3, 3], atol=1e-3)
    explorer.reset()


def test_no_cell_of_a_long_text_is_skipped(real_model, explorer):
    """64 tokens: a cell is narrower than a pixel; every head that puts at least half of its weight on the
    first token still shows a dark first column in the drawn pixels (nearest-neighbour would skip some)."""
    text = rm.decode(real_model, rm.encode(real_model, hw.STREAM_TEXT)[:64])
    explorer.set(text=text)
    n = len(rm.encode(real_model, text))
    W = rm.attention_weights(real_model, rm.encode(real_model, text))
    ax, rgba, height = explorer.axes["every"], explorer.renderer.pixels(), explorer.figure.bbox.height
    gap, sinks, unseen = max(2, round(n / 4)), 0, []
    for layer, head in np.argwhere(W[:, :, 1:, 0].mean(axis=-1) >= 0.5):
        sinks += 1
        c, r = layer * (n + gap), head * (n + gap)
        (x0, y0), (x1, y1) = ax.transData.transform([(c - 0.5, r - 0.5), (c + 0.5, r + n - 0.5)])
        cols = slice(int(np.floor(min(x0, x1))), int(np.ceil(max(x0, x1))) + 1)
        rows = slice(int(height - max(y0, y1)), int(np.ceil(height - min(y0, y1))))
        if rgba[rows, cols, 0].min() > 200:                             # nothing darker than a pale lilac
            unseen.append((int(layer), int(head)))
    explorer.reset()
    assert n == 64 and sinks > 50 and unseen == []


def test_the_model_view_claims(real_model, explorer):
    """r09-text-read: 228 of 270 sink heads at the start; lesson 08's repeat opened on (18, 6)."""
    W = rm.attention_weights(real_model, rm.encode(real_model, FRANCE))
    assert (W[:, :, 1:, 0].mean(axis=-1) >= 0.5).sum() == 228
    repeat = "My cat sat on the mat. My cat sat"
    ids = rm.encode(real_model, repeat)
    words = rm.token_strings(real_model, ids)
    row = rm.attention_weights(real_model, ids)[18, 6, -1]              # the second ' sat'
    top = int(row.argmax())
    assert words[-1] == "_sat" and words[top] == "_on" and words[top - 1] == "_sat"
    assert f"{row.max():.2f}" == "0.97"
    p = by_hand(last_logits(real_model, repeat), 1.0)
    assert word(real_model, p.argmax()) == "_on" and f"{p.max():.2f}" == "0.81"
    explorer.set(text=repeat, layer=18, head=6)                          # as the student does
    summary = explorer.summary()
    assert "'_sat' looks most at '_on' (0.97)" in summary and "greedy: '_on', 0.81" in summary
    explorer.reset()
    read = source("r09-text-read")
    for words_ in ("228 of the 270 heads", "*My cat sat on the mat. My cat sat*", "layer 18, head 6",
                   '" on" (0.97)', 'greedy says " on" (0.81)'):
        assert words_ in " ".join(read.split()), words_


def test_a_long_texts_figure_is_at_most_1600_pixels_wide(explorer):
    explorer.set(text="word " * 60)
    assert explorer.error is None
    width = explorer.figure.get_size_inches()[0] * explorer.figure.dpi
    assert round(width) == 1600 and explorer.renderer.pixels().shape[1] == 1600
    assert explorer.image.layout.max_width == "1600px"
    explorer.reset()
    assert explorer.figure.dpi == 100                                   # the start: 13.4 inches, 100 dpi


@pytest.mark.parametrize("text, words", [
    ("", "the text is empty: type a few words"),
    ("word " * 70, "tokens: the explorer shows at most 64; shorten it"),
])
def test_a_text_it_cannot_show_is_told_next_to_the_box(explorer, text, words):
    explorer.set(text=text)
    assert words in explorer.error and explorer.summary() == explorer.error
    assert explorer.image.layout.display == "none"                      # not the last text's words
    explorer.reset()
    assert explorer.error is None and explorer.image.layout.display is None


def test_the_picks_are_lesson_08s():
    """The strongest head of each score, as lesson 08's stored output prints them (read from its notebook)."""
    import json
    from pathlib import Path
    path = Path(__file__).parents[2] / "notebooks" / "08-inside-a-real-language-model.ipynb"
    nb = json.loads(path.read_text())
    printed = "".join("".join(o.get("text", "")) for c in nb["cells"] if c.get("id") == "r08-scores"
                      for o in c.get("outputs", []))
    for name, score in [("sink head", "first token"), ("previous token", "previous token"),
                        ("candidate induction", "induction (prefix matching)")]:
        layer, head = PICKS[name]
        assert f"{score}: strongest layer {layer}, head {head} " in printed


def test_the_picks_follow_the_draw(real_model):
    """Round six, item 9: the cells open the heads the draw's scores pick, not heads written in: with the
    scores of another draw, the explorer starts on that draw's previous-token head and the repeat opens on
    its strongest candidate."""
    from contextlib import redirect_stdout
    from io import StringIO

    import matplotlib.pyplot as plt
    names = ("first token", "previous token", "induction (prefix matching)")
    scores = {name: np.zeros((30, 9)) for name in names}
    scores["first token"][18, 8] = scores["previous token"][11, 1] = 1.0
    scores["induction (prefix matching)"][17, 4] = 1.0
    ns = {"np": np, "rm": rm, "hw": hw, "model": real_model, "scores": scores}
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(source("r09-text"), "r09-text", "exec"), ns)
        assert ns["text_ex"].summary().startswith("5 tokens; open: layer 11, head 1")
        exec(compile(source("r09-text-static"), "r09-text-static", "exec"), ns)
    plt.close("all")
    said = out.getvalue()
    assert "open: layer 11, head 1" in said and "a repeat, opened on (17, 4):" in said
    assert "framed in the model view: {'sink head': (18, 8), 'previous token': (11, 1), " \
           "'candidate induction': (17, 4)}" in said
    for cid in ("r09-text", "r09-text-static"):
        assert "layer=1" not in source(cid) and "head=6" not in source(cid) and "head=0" not in source(cid)


def test_any_sample_seed_from_0_up_runs(real_model):
    """A student may set SAMPLE_SEED to any whole number from 0 up (2024, say): the slider reaches it."""
    ex = hw.text_explorer(real_model, seed=2024)
    assert "100 draws, seed 2024:" in ex.summary()
    logits = last_logits(real_model, FRANCE)
    assert ex.result["first"] == hw.sample_token(logits, 1.0, seed=2024)


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
    assert '" Paris" gets 0.77 at τ = 1, and 77 of the 100 draws with sample seed 0' in read
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
    assert "86 of the 100 draws with sample seed 0 land outside the ten bars" in read
    p1 = by_hand(last_logits(real_model, FRANCE), 1.0)
    below = np.ones(len(p1), bool)
    below[np.argsort(-p1)[:10]] = False                                  # every token but the ten bars
    assert round(p1[below].max(), 3) == 0.004 and "had at most 0.004 each at τ = 1" in read
    explorer.reset()


def test_the_static_cell_draws_with_any_sample_seed(real_model):
    """r09-text-static run with an outside sample seed (as a student who sets SAMPLE_SEED = 23): it runs,
    and its counts are those of a generator written here."""
    import matplotlib.pyplot as plt
    seed = 23
    ns = {"np": np, "rm": rm, "hw": hw, "model": real_model, "picks": PICKS, "SAMPLE_SEED": seed,
          "text_ex": hw.text_explorer(real_model, picks=PICKS, seed=seed)}
    from contextlib import redirect_stdout
    from io import StringIO
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(source("r09-text-static"), "r09-text-static", "exec"), ns)
    plt.close("all")
    logits = last_logits(real_model, FRANCE)
    top = np.argsort(-logits, kind="stable")[:10]
    for tau in (1.0, 2.0):
        d = np.random.default_rng(seed).choice(len(logits), size=100, p=by_hand(logits, tau))
        paris, off = int((d == top[0]).sum()), int((~np.isin(d, top)).sum())
        assert f"{paris} of 100 draws (sample seed {seed}); {off} off the bars" in out.getvalue(), tau
    assert f"100 draws, seed {seed}:" in out.getvalue()


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
    assert "for Australia as plain text, about one draw in three (0.34)" in read
    chat = {line.split(" -> ")[0]: line.split(" -> ")[1] for line in printed.splitlines() if " -> " in line}
    assert "Canberra" in chat["chat: 'What is the capital of Australia?'"]          # round five, item 4
    assert "0°C" in chat["chat: 'At what temperature does water freeze?'"]
    assert "84" not in chat["chat: 'What is 12 times 7?'"]
    assert "Asked that way, it answers Canberra and 0 °C; 12 times 7 stays wrong" in read
    assert "rm.answer(model, question, n_new=16)" in source("r09-wrong")
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


def test_the_draws_of_eight_seeds(real_model):
    """The sample seeds 0 to 7 (the tests' seeds; the lesson words its ranges from the held-out sweep):
    ' Paris' in 75 to 82 of 100 draws at τ = 1, 86 to 93 draws off the bars at τ = 2, with a generator and a
    softmax written here; the static cell prints seed 0's."""
    logits = last_logits(real_model, FRANCE)
    top = np.argsort(-logits, kind="stable")[:10]
    printed = shown("r09-text-static")
    for tau, paris_range, off_range in [(1.0, (75, 82), (9, 11)), (2.0, None, (86, 93))]:
        p = by_hand(logits, tau)
        draws = [np.random.default_rng(seed).choice(len(p), size=100, p=p) for seed in range(8)]
        paris = [int((d == top[0]).sum()) for d in draws]
        off = [int((~np.isin(d, top)).sum()) for d in draws]
        assert (min(off), max(off)) == off_range
        assert f"{paris[0]} of 100 draws (sample seed 0); {off[0]} off the bars" in printed
        if paris_range:
            assert (min(paris), max(paris)) == paris_range
