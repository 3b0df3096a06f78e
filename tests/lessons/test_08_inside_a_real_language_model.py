"""Lesson 08's claims (08-inside-a-real-language-model): its claims about random draws, checked on seeds 0
to 7 (review of issue 29, lesson 08), its words after round 3 of that review, and exercise 08.1 and the
guide's pair activity driven on the explorer.

Section 5 measures every head on 40 random tokens repeated. What the prose says of that measurement
either holds on every draw of seeds 0 to 7, or is given as its range over them; here the lesson's own
cells run on each seed, and the claims are recomputed from the attention weights by hand. The model is
tests/conftest.py's real_model (SmolLM2-135M, loaded once for this file); the eight draws are measured
once, in the module fixture `draws`. The explorer's "Things to try" are in test_08_things_to_try.py.
"""

import json
import os
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from attention_lab import real_model as rm

matplotlib.use("Agg")
NOTEBOOKS = Path(os.environ.get("LESSON_NOTEBOOKS", Path(__file__).resolve().parents[2] / "notebooks"))
LESSON = NOTEBOOKS / "08-inside-a-real-language-model.ipynb"
SEEDS = range(8)
PERIOD = 40


def cells():
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def source(cell) -> str:
    return "".join(cell["source"])


def prose() -> str:
    return "\n".join(source(c) for c in cells() if c["cell_type"] == "markdown")


def by_hand(W):
    """The three scores of every head from weights (layers, heads, 2 period, 2 period), written here."""
    n = W.shape[-1]
    first = W[:, :, 1:, 0].mean(axis=-1)
    i = np.arange(1, PERIOD)
    previous = W[:, :, i, i - 1].mean(axis=-1)                 # first copy only
    q = np.arange(PERIOD, n - 1)
    induction = W[:, :, q, q - PERIOD + 1].mean(axis=-1)       # the token after the earlier copy
    return first, previous, induction


def first_three(W):
    """Each head's weight on the first three tokens together, over the queries that see more (3 on), and
    layers 3 to 9's mean weight on each of tokens 0, 1, 2 (the same queries), written here."""
    return W[:, :, 3:, 0:3].sum(axis=-1).mean(axis=-1), W[3:10, :, 3:, 0:3].mean(axis=(0, 1, 2))


@pytest.fixture(scope="module")
def draws(real_model):
    """Seed -> (the three scores by hand, the weights of layer 11, the loss on each next token, the
    weights on the first three tokens)."""
    out = {}
    for seed in SEEDS:
        R = rm.repeated_random_tokens(real_model, period=PERIOD, seed=seed)
        logits, weights = rm.forward(real_model, R, keep_weights=True)
        W = np.stack(weights)
        z = logits[:-1].astype(np.float64)                    # the loss, written here
        logp = z - z.max(axis=1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        loss = -logp[np.arange(len(R) - 1), R[1:]]
        out[seed] = (by_hand(W), W[11], loss, first_three(W))
    return out


def test_the_lessons_section_5_cells_hold_on_every_seed(real_model):
    """The code cells of section 5 (scores to loss; the eight-draw cell runs every seed itself), with
    the draw's seed changed: every assert in them holds on seeds 0 to 7."""
    import matplotlib.pyplot as plt

    import attention_lab as al
    ids = [c["id"] for c in cells()]
    run = [c for c in cells()[ids.index("r08-scores"):ids.index("r08-loss") + 1]
           if c["cell_type"] == "code" and c["id"] not in ("r08-seeds", "r08-sink-draws")]
    assert source(run[0]).count("seed=0") == 1
    for seed in SEEDS:
        ns = {"model": real_model, "np": np, "rm": rm, "al": al, "plt": plt}
        for cell in run:
            code = source(cell).replace("seed=0", f"seed={seed}")
            try:
                exec(compile(code, f"lesson 08, cell {cell['id']}, seed {seed}", "exec"), ns)
            except AssertionError as exc:
                raise AssertionError(f"cell {cell['id']} fails on seed {seed}") from exc
            finally:
                plt.close("all")


def test_sink_heads_range_over_the_draws_as_the_lesson_says(draws):
    counts = [int((first > 0.5).sum()) for (first, _, _), *_ in draws.values()]
    assert (min(counts), max(counts)) == (85, 147), counts
    assert "from 85 to 147 of 270" in prose()
    assert min(counts) < 270 / 3 and max(counts) > 270 / 2            # "from under a third to over half"
    assert "from under a third to over half" in prose()


def test_layers_0_1_and_11_use_the_first_token_least_on_every_draw(draws):
    for seed, ((first, _, _), layer11, *_) in draws.items():
        per_layer = first.mean(axis=1)
        assert set(np.argsort(per_layer)[:3]) == {0, 1, 11}, seed
        assert per_layer[[0, 1, 11]].max() < 0.1, seed                  # "hardly use"
        i = np.arange(1, 2 * PERIOD)                                      # layer 11 reads nearby tokens
        assert layer11[1][i, i - 1].mean() > 0.8 and layer11[6][i, i].mean() > 0.6, seed


def test_the_strongest_heads_and_the_candidates_on_every_draw(draws):
    for seed, ((_, previous, induction), *_) in draws.items():
        assert divmod(int(previous.argmax()), 9) == (16, 0) and previous.max() > 0.8, seed
        assert divmod(int(induction.argmax()), 9) == (18, 6) and induction.max() > 0.8, seed
        assert 1 <= (previous > 0.5).sum() <= 10 and 1 <= (induction > 0.5).sum() <= 10, seed  # a handful
        assert np.argwhere(induction > 0.5)[:, 0].min() > 16, seed            # all above layer 16


def test_the_loss_falls_in_the_second_copy_on_every_draw(draws, real_model):
    uniform = np.log(len(real_model.embedding))
    for seed, (_, _, loss, _) in draws.items():
        first, second = loss[:PERIOD - 1].mean(), loss[PERIOD:].mean()
        assert first > uniform and second < first / 4, seed


def test_the_words_of_section_5_name_the_token_not_the_head():
    text = prose()
    assert "parks its weight on the first token" not in text          # the old definition: a head
    assert "about half are attention sinks" not in text
    assert "first token acts as an **attention sink**" in text and "sink head" in text
    assert "Five of the seven induction heads" not in text and "All seven" in text
    assert "*candidate* induction head" in text and "copies" in text
    assert "knocking heads out" in text


# ---------------------------------------------------------------- round 3 of the review (issue 29)
GUIDE = NOTEBOOKS.parent / "docs" / "teaching-guide.md"        # beside the lessons it speaks of


def cell(cell_id) -> str:
    return source(next(c for c in cells() if c["id"] == cell_id))


def shown(cell_id) -> str:
    c = next(c for c in cells() if c["id"] == cell_id)
    return "".join("".join(o.get("text", "")) for o in c.get("outputs", []))


def said(text) -> str:
    return " ".join(text.split())


def guide_08() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return said(text[text.index("## Lesson 08"):].split("\n## ")[0])


def test_layers_without_a_sink_head_on_every_draw(draws):
    """Review 3, defect 1: the summary's "except in layers 0, 1 and 11" left out layer 10. The layers with
    no sink head on every one of seeds 0-7 are 0, 1, 10 and 11; others lack them on some draws only."""
    none = {seed: {layer for layer in range(30) if (first[layer] <= 0.5).all()}
            for seed, ((first, _, _), *_) in draws.items()}
    assert set.intersection(*none.values()) == {0, 1, 10, 11}
    extra = {seed: sorted(layers - {0, 1, 10, 11}) for seed, layers in none.items()}
    assert extra == {0: [2], 1: [], 2: [3, 4, 5, 6, 7, 8, 9], 3: [], 4: [], 5: [], 6: [], 7: [16]}, extra
    text = said(prose())
    assert "except in layers 0, 1 and 11" not in text
    assert "but for none in layers 0, 1, 10 and 11 on any draw" in said(cell("summary"))
    assert "layers 0, 1, 2, 10 and 11 have none" in said(cell("r08-s5-read"))          # seed 0, on screen
    assert "Layers 0, 1, 10 and 11 have no sink head on any draw" in text
    assert "layer 2 on seed 0, layers 3 to 9 on seed 2, layer 16 on seed 7" in text
    assert "no sink head in layers [0, 1, 2, 10, 11]" in shown("r08-sink-draws")


def test_the_parked_weight_counted_over_the_first_three_tokens(draws):
    """Review 3, defect 2: on seed 2 the heads of layers 3-9 split the parked weight over the first three
    tokens; counted over those three, every draw gives 128 to 152 sink heads, and seed 2 is not the
    lowest."""
    threes = {seed: int((three > 0.5).sum()) for seed, (*_, (three, _)) in draws.items()}
    assert (min(threes.values()), max(threes.values())) == (128, 152), threes
    assert threes[2] > min(threes.values())                                 # "no longer the lowest"
    parked = {seed: p for seed, (*_, (_, p)) in draws.items()}
    assert all(0.2 < w < 0.35 for w in parked[2]), parked[2]              # split in three: 0.26, 0.30, 0.25
    assert [round(float(w), 2) for w in parked[2]] == [0.26, 0.30, 0.25]
    others = [p for seed, p in parked.items() if seed != 2]
    assert round(min(p[0] for p in others), 2) == 0.70 and round(max(p[0] for p in others), 2) == 0.75
    assert all((p[1:] < 0.015).all() for p in others)                       # "0.01 or less"
    assert parked[2].sum() >= max(p.sum() for p in others)                  # "no less weight"
    text = said(prose())
    assert "every draw has 128 to 152 sink heads" in text
    assert "The first token is the usual place, not the only one" in text
    assert "128 to 152 counting the first three tokens together" in said(cell("summary"))
    guide = guide_08()
    assert "It is the usual place, not the only one" in guide and "every draw has 128 to 152" in guide
    assert "sink heads, counting the first three tokens: 128 to 152 of 270" in shown("r08-sink-draws")


def test_the_second_token_of_the_repeat_is_missed_on_every_draw(draws):
    """Review 3, defect 5: the second token of the repeat is still missed (the worst loss of the second
    copy); from the third on the loss falls within a few tokens."""
    for seed, (_, _, loss, _) in draws.items():
        first = loss[:PERIOD - 1].mean()
        assert loss[PERIOD] == loss[PERIOD:].max(), seed                   # predicting token 41
        assert loss[PERIOD + 1] < loss[PERIOD] and loss[PERIOD + 1:PERIOD + 6].min() < first / 4, seed
    text = said(cell("r08-s5-loss"))
    assert "From the second one on" not in text
    assert "The second is missed too" in text and "From the third on, the loss falls" in text
    assert "its second: 10.4" in shown("r08-loss")


def test_the_cache_cell_counts_tokens_through_all_blocks():
    """Review 3, defect 6: a row of the count is one token through all 30 blocks, not one block."""
    code = cell("r08-cache-code")
    assert "one token, one block" not in code and "one token, through all 30 blocks" in code


def test_the_figure_and_printout_say_candidate():
    """Review 3, defect 11: section 5 calls them candidate induction heads; so do the figure and print."""
    code = cell("r08-three-heads")
    assert '"candidate induction": best["induction (prefix matching)"]' in code
    assert '"induction": best' not in code
    assert shown("r08-three-heads").startswith("candidate induction head, the second '_sat' reads '_on'")


def test_the_rope_figure_labels_its_axes():
    """Review 3, defect 12: the RoPE heatmaps say that rows are queries and columns keys."""
    import matplotlib.pyplot as plt

    import attention_lab as al
    code = cell("r08-rope")
    start = code.index("fig = al.heatmap_row")
    w = np.eye(7)
    ns = {"al": al, "plain": w, "turned": w, "shifted": w, "s_tokens": [f"t{i}" for i in range(7)], "n": 7}
    exec(code[start:], ns)
    fig = ns["fig"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["key"] * 3
    assert fig.axes[0].get_ylabel() == "query"
    plt.close(fig)


def test_the_guide_states_the_run_time_as_measured():
    """Review 3, defect 7: "Run All takes well under a minute" was a promise; the guide now says what was
    measured, where (the time itself is not asserted)."""
    guide = guide_08()
    assert "well under a minute" not in guide
    assert "when the lesson was last re-executed, on a 2-core machine shared with other work" in guide


# ---- driving the explorer, as a student does (exercise 08.1, the guide's plan and misconception row)
@pytest.fixture(scope="module")
def head_view(real_model):
    ids = rm.encode(real_model, "My cat sat on the mat. My cat sat on the mat.")
    tokens = rm.token_strings(real_model, ids)
    return rm.head_explorer(rm.attention_weights(real_model, ids), tokens), tokens


def look(ex, layer, head):
    """Move the two sliders as a student does: the head's weights and the numbers next to the sliders."""
    ex.sliders["layer"].value = layer
    ex.sliders["head"].value = head
    assert ex.error is None
    return np.asarray(ex.result["weights"]), ex.summary()


def reads_previous(w) -> int:
    """In how many rows (from the second on) the darkest cell is the token just before."""
    return sum(int(w[i].argmax()) == i - 1 for i in range(1, len(w)))


def test_exercise_08_1_points_to_a_layer_where_shared_keys_differ(head_view):
    """Review 3, defect 3: "check with the explorer" could confirm (b) in some layers. The exercise now
    names layer 16 (head 0 reads the previous token, heads 1 and 2 do not) and warns of layers 3, 7 and
    28, where the three look alike and only the numbers differ."""
    ex, tokens = head_view
    n = len(tokens)
    w = [look(ex, 16, h)[0] for h in (0, 1, 2)]
    assert reads_previous(w[0]) >= n - 2
    assert all(reads_previous(x) <= 2 for x in w[1:]), [reads_previous(x) for x in w[1:]]
    for layer in (3, 7, 28):
        seen = [look(ex, layer, h) for h in (0, 1, 2)]
        alike = max(np.abs(a[0] - b[0]).max() for a, b in zip(seen, seen[1:] + seen[:1]))
        assert alike < 0.2, (layer, alike)                                   # look alike by eye
        numbers = [s.split("\n", 1)[1] for _, s in seen]                     # without the "layer, head" line
        assert len(set(numbers)) == 3, (layer, numbers)                      # the numbers still differ
    text = said(cell("ex-08-1"))
    assert "layer 16, heads 0, 1 and 2 (head 0 is the previous-token head)" in text
    assert "in layers 3, 7 and 28 the three heads of a group look alike" in text
    guide = guide_08()
    assert "heads 0, 1 and 2 of layer 16" in guide and "Avoid layers 3, 7 and 28" in guide
    assert "heads 0, 1 and 2 of one layer" not in guide


def test_the_guides_pair_activity_has_heads_left_to_find(head_view):
    """Review 3, defect 4: section 4 already names the three heads, so the guide's pairs check those and
    find a second head of each kind; the guide's examples are checked here on the explorer."""
    ex, tokens = head_view
    n = len(tokens)
    w, summary = look(ex, 11, 1)                                                 # the previous token
    assert reads_previous(w) >= n - 2 and "weight on the previous token: 0.7" in summary
    w, _ = look(ex, 17, 5)                                              # what followed the first copy
    period = tokens.index("_My")
    for i in range(period + 2, n):                                      # the second sat, on, ..., '.'
        assert int(w[i].argmax()) == i - period + 1, tokens[i]
    w, summary = look(ex, 20, 4)                                                 # the first token
    assert (w[:, 0] >= 0.9).all() and "weight on the first token: 0.99" in summary
    guide = guide_08()
    assert "before section 5 names them" not in guide
    assert "checks the three heads that section 4 names, then finds a second head of each kind" in guide
    assert "layer 11, head 1 (the previous token), layer 17, head 5" in guide and "layer 20, head 4" in guide
