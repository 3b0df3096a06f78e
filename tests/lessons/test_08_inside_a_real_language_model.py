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
from handed_out import check_as_handed_out

import attention_lab as al
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
def runs(real_model):
    """Seed -> (the tokens, the logits, every block's weights): the model run once per seed, for this file."""
    out = {}
    for seed in SEEDS:
        R = rm.repeated_random_tokens(real_model, period=PERIOD, seed=seed)
        logits, weights = rm.forward(real_model, R, keep_weights=True)
        out[seed] = (R, logits, weights)
    return out


def hand_loss(logits, R):
    """The loss on each next token, written here."""
    z = logits[:-1].astype(np.float64)
    logp = z - z.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(R) - 1), R[1:]]


@pytest.fixture(scope="module")
def draws(runs):
    """Seed -> (the three scores by hand, the weights of layer 11, the loss on each next token, the
    weights on the first three tokens)."""
    out = {}
    for seed, (R, logits, weights) in runs.items():
        W = np.stack(weights)
        out[seed] = (by_hand(W), W[11], hand_loss(logits, R), first_three(W))
    return out


class SharedRuns:
    """The package as the lesson's cells call it, with its forward pass answered from `runs` (the model runs
    once per seed for the whole file, not again for each cell), its token losses computed by the package
    once per sequence (the loss cell and the eight-draw cell both ask), and the score figure not drawn (its
    seaborn heatmaps take seconds; nbval checks the figure on the lesson's own seed)."""

    def __init__(self, runs):
        self.known = {tuple(int(i) for i in R): (logits, weights) for R, logits, weights in runs.values()}
        self.passes = 0
        self.losses = {}

    def __getattr__(self, name):
        return getattr(rm, name)

    def forward(self, model, ids, keep_weights=False):
        self.passes += 1
        key = tuple(int(i) for i in ids)
        if key not in self.known:                    # another sequence (the draw with a token before it): run
            self.known[key] = rm.forward(model, ids, keep_weights=True)         # once, kept for the file
        logits, weights = self.known[key]
        return logits, (weights if keep_weights else [])

    def token_losses(self, logits, ids):
        key = tuple(int(i) for i in ids)
        if key not in self.losses:
            self.losses[key] = rm.token_losses(logits, ids)
        return self.losses[key].copy()

    def attention_weights(self, model, ids):
        return np.stack(self.forward(model, ids, keep_weights=True)[1])

    def plot_head_scores(self, scores):
        assert sorted(scores) == sorted(["first token", "previous token", "induction (prefix matching)"])


SHARED: dict[int, SharedRuns] = {}                  # one per `runs` fixture: its losses are kept across calls


def run_cells(ids, real_model, runs, **seeds) -> dict[str, str]:
    """Lesson cells (by id), run here with each seed variable set as a student sets it -> what each prints."""
    import contextlib
    import io
    import re

    import matplotlib.pyplot as plt

    import attention_lab as al
    ns = {"model": real_model, "np": np, "rm": SHARED.setdefault(id(runs), SharedRuns(runs)), "al": al,
          "plt": plt}
    printed = {}
    passes = {}
    for cid in ids:
        code = cell(cid)
        for name, value in seeds.items():
            code, n = re.subn(rf"(?m)^{name} = 0\b", f"{name} = {value}", code)
            assert n <= 1
        out, before = io.StringIO(), ns["rm"].passes
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"lesson 08, cell {cid}, {seeds}", "exec"), ns)
        finally:
            plt.close("all")
        printed[cid] = out.getvalue()
        passes[cid] = ns["rm"].passes - before
    printed["forward passes"] = passes
    return printed


def strongest(scores, k=1):
    """The k strongest heads as (layer, head), strongest first, written here."""
    order = sorted(((float(scores[i, j]), (i, j)) for i in range(30) for j in range(9)), reverse=True)
    return [head for _, head in order[:k]]


def test_section_5_prints_each_draw_beside_seed_0s_story(real_model, runs, draws):
    """Review round 5, items 1 and 2: section 5 asserted facts of seeds 0 to 7, and a student who set
    another seed got AssertionErrors. Its cells now print each fact of the draw beside seed 0's story and
    assert nothing about a draw. The cells run here on SEQUENCE_SEED = 0 to 7 (and the eight draws once),
    and every printed fact is checked against the scores and losses computed here."""
    import re
    section = ["r08-scores", "r08-layers", "r08-seeds", "r08-sink-draws", "r08-loss", "r08-loss-first",
               "r08-three-heads"]
    for cid in section:
        assert not re.search(r"(?m)^\s*assert ", cell(cid)), f"{cid} asserts a fact about a draw"
    code = "\n".join(cell(c) for c in section)
    for name in ("SEQUENCE_SEED", "DRAWS_SEED"):                          # one named seed per draw
        assert len(re.findall(rf"(?m)^{name} = 0\b", code)) == 1, name
    assert "SEQUENCE_SEED" in said(cell("r08-s5"))
    assert "set it to any whole number from 0 up" in said(cell("r08-s5"))
    assert "set `DRAWS_SEED` to any whole number from 0 up to see eight others" in said(cell("r08-s5-read"))
    for seed in SEEDS:
        printed = run_cells(["r08-scores", "r08-layers", "r08-loss"], real_model, runs, SEQUENCE_SEED=seed)
        (first, previous, induction), _, loss, _ = draws[seed]
        p1, p2 = strongest(previous, 2)
        assert (f"on this draw (seed {seed}): previous-token heads {p1} ({previous[p1]:.3f}) then {p2} "
                f"({previous[p2]:.3f}); strongest candidate induction head {strongest(induction)[0]}\n"
                "  with seed 0, the lesson's story: (16, 0) then (11, 1); (18, 6)") in printed["r08-scores"]
        low = sorted(np.argsort(first.mean(axis=1))[:3].tolist())
        none = [layer for layer in range(30) if first[layer].max() <= 0.5]
        assert (f"on this draw (seed {seed}): {int((first > 0.5).sum())} sink heads; layers {low} use the "
                f"first token least; no sink head in layers {none}") in printed["r08-layers"]
        ratio = loss[PERIOD:].mean() / loss[:PERIOD - 1].mean()
        worst = int(np.argmax(loss[PERIOD:])) + 2                         # loss[40] predicts token 41
        assert (f"on this draw (seed {seed}): second copy / first copy {ratio:.2f}; the second copy's "
                f"worst-predicted token: the repeat's number {worst}") in printed["r08-loss"]
        if seed == 0:                                                    # the story the prints quote
            assert (p1, p2, strongest(induction)[0]) == ((16, 0), (11, 1), (18, 6))
            assert (int((first > 0.5).sum()), low, none) == (134, [0, 1, 11], [0, 1, 2, 10, 11])
            assert (f"{ratio:.2f}", worst) == ("0.13", 2)
    printed = run_cells(["r08-scores", "r08-seeds", "r08-sink-draws"], real_model, runs, DRAWS_SEED=0)
    held, bare = np.zeros(5, int), 0
    for (first, previous, induction), *_ in draws.values():
        cands = [i for i in range(30) if (induction[i] > 0.5).any()]
        held += [sorted(np.argsort(first.mean(axis=1))[:3].tolist()) == [0, 1, 11],
                 strongest(previous)[0] == (16, 0), set(strongest(previous, 2)) == {(16, 0), (11, 1)},
                 strongest(induction)[0] == (18, 6), bool(cands) and min(cands) > 16]
        bare += all(first[layer].max() <= 0.5 for layer in (0, 1, 10, 11))
    assert ("of these 8 draws, how many have: layers [0, 1, 11] least {}; (16, 0) first {}; (16, 0) and "
            "(11, 1) the top two {}; (18, 6) first {}; every candidate above layer 16 {}".format(*held)
            ) in printed["r08-seeds"]
    assert list(held) == [8] * 5 and bare == 8                           # seeds 0 to 7: the lesson's story
    said_bare = f"of these 8 draws, {bare} have no sink head in layers 0, 1, 10 and 11"
    assert said_bare in printed["r08-sink-draws"]
    # review round 6, item 3: each draw's loss ratio and worst-predicted token, from the same forward pass
    assert printed["forward passes"]["r08-seeds"] == 8 and printed["forward passes"]["r08-sink-draws"] == 0
    ratios, worst = [], []
    for seed, (_, _, loss, _) in draws.items():
        ratios.append(loss[PERIOD:].mean() / loss[:PERIOD - 1].mean())
        worst.append(int(np.argmax(loss[PERIOD:])) + 2)
        line = next(x for x in printed["r08-seeds"].splitlines() if x.startswith(f"seed {seed}: "))
        assert line.endswith(f"; second copy / first copy {ratios[-1]:.2f}, worst-predicted: the repeat's "
                             f"number {worst[-1]}"), line
    # review round 6, item 1: each range printed beside seeds 0 to 7's
    counts = [int((first > 0.5).sum()) for (first, _, _), *_ in draws.values()]
    assert (f"sink heads: {min(counts)} to {max(counts)} of 270\n  with seeds 0 to 7, the lesson's story: 85 "
            "to 147\n") in printed["r08-seeds"]
    assert (f"second copy / first copy: {min(ratios):.2f} to {max(ratios):.2f}; the repeat's number 2 "
            f"worst-predicted on {worst.count(2)} of 8\n  with seeds 0 to 7, the lesson's story: 0.12 to "
            "0.19; 8 of 8\n") in printed["r08-seeds"]
    assert (f"{min(ratios):.2f}", f"{max(ratios):.2f}", worst.count(2)) == ("0.12", "0.19", 8)
    threes = [int((three > 0.5).sum()) for *_, (three, _) in draws.values()]
    assert (f"sink heads, counting the first three tokens: {min(threes)} to {max(threes)} of 270\n"
            "  with seeds 0 to 7, the lesson's story: 128 to 152\n") in printed["r08-sink-draws"]


def test_sink_heads_range_over_the_draws_as_the_lesson_says(draws):
    counts = [int((first > 0.5).sum()) for (first, _, _), *_ in draws.values()]
    assert (min(counts), max(counts)) == (85, 147), counts
    assert "from 85 to 147 of 270" in said(prose())
    assert min(counts) < 270 / 3 and max(counts) > 270 / 2            # "from under a third to over half"
    assert "from under a third to over half" in said(prose())


def test_layers_0_1_and_11_use_the_first_token_least_on_seeds_0_to_7(draws):
    for seed, ((first, _, _), layer11, *_) in draws.items():
        per_layer = first.mean(axis=1)
        assert set(np.argsort(per_layer)[:3]) == {0, 1, 11}, seed
        assert per_layer[[0, 1, 11]].max() < 0.1, seed                  # "hardly use"
        i = np.arange(1, 2 * PERIOD)                                      # layer 11 reads nearby tokens
        assert layer11[1][i, i - 1].mean() > 0.8 and layer11[6][i, i].mean() > 0.6, seed


def test_the_strongest_heads_and_the_candidates_on_seeds_0_to_7(draws):
    """(11, 1) is the close second previous-token head on each (review round 5, item 2)."""
    for seed, ((_, previous, induction), *_) in draws.items():
        assert strongest(previous, 2) == [(16, 0), (11, 1)] and previous.max() > 0.8, seed
        assert previous[16, 0] - previous[11, 1] < 0.1, seed                      # "a close second"
        assert divmod(int(induction.argmax()), 9) == (18, 6) and induction.max() > 0.8, seed
        assert 1 <= (previous > 0.5).sum() <= 10 and 1 <= (induction > 0.5).sum() <= 10, seed  # a handful
        assert np.argwhere(induction > 0.5)[:, 0].min() > 16, seed            # all above layer 16


def test_the_loss_falls_in_the_second_copy_on_seeds_0_to_7(draws, real_model):
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


def test_layers_without_a_sink_head_on_seeds_0_to_7(draws):
    """Review 3, defect 1: the summary's "except in layers 0, 1 and 11" left out layer 10. The layers with
    no sink head on every one of seeds 0-7 are 0, 1, 10 and 11; others lack them on some draws only."""
    none = {seed: {layer for layer in range(30) if (first[layer] <= 0.5).all()}
            for seed, ((first, _, _), *_) in draws.items()}
    assert set.intersection(*none.values()) == {0, 1, 10, 11}
    extra = {seed: sorted(layers - {0, 1, 10, 11}) for seed, layers in none.items()}
    assert extra == {0: [2], 1: [], 2: [3, 4, 5, 6, 7, 8, 9], 3: [], 4: [], 5: [], 6: [], 7: [16]}, extra
    text = said(prose())
    assert "except in layers 0, 1 and 11" not in text
    assert "but for none in layers 0, 1 and 11 on seeds 0 to 7" in said(cell("summary"))
    assert "layers 0, 1, 2, 10 and 11 have none" in said(cell("r08-s5-read"))          # seed 0, on screen
    assert "Layers 0, 1 and 11 have no sink head on any of seeds 0 to 7" in text
    assert "Layer 10 has none on seeds 0 to 7, but has one on" in text
    assert "layer 2 on seed 0, layers 3 to 9 on seed 2, layer 16 on seed 7" in text
    assert "no sink head in layers [0, 1, 2, 10, 11]" in shown("r08-sink-draws")


def test_the_parked_weight_counted_over_the_first_three_tokens(draws):
    """Review 3, defect 2: on seed 2 the heads of layers 3-9 split the parked weight over the first three
    tokens; counted over those three, seeds 0 to 7 give 128 to 152 sink heads, and seed 2 is not the
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
    assert "seeds 0 to 7 have 128 to 152 sink heads" in text
    assert "The first token is the usual place, not the only one" in text
    assert "128 to 152 counting the first three tokens together" in said(cell("summary"))
    guide = guide_08()
    assert "It is the usual place, not the only one" in guide and "seeds 0 to 7 have 128 to 152" in guide
    assert ("sink heads, counting the first three tokens: 128 to 152 of 270\n"
            "  with seeds 0 to 7, the lesson's story: 128 to 152") in shown("r08-sink-draws")


def test_the_second_token_of_the_repeat_is_missed_on_seeds_0_to_7(draws):
    """Review 3, defect 5: the second token of the repeat is still missed (the worst loss of the second
    copy) on seeds 0 to 7; then the loss falls."""
    for seed, (_, _, loss, _) in draws.items():
        assert loss[PERIOD] == loss[PERIOD:].max(), seed                   # predicting token 41
        assert loss[PERIOD + 1] < loss[PERIOD], seed
    text = said(cell("r08-s5-loss"))
    assert "From the second one on" not in text and "within a few tokens" not in text
    assert "The second is missed too" in text and "as on all eight draws of seeds 0 to 7" in text
    assert "its second: 10.4" in shown("r08-loss")


def test_a_token_before_the_draw_shows_why_the_repeats_second_token_is_missed(real_model, runs):
    """Review round 18, item 1: the repeat's second token was "missed too", with no cause given; the cause is
    largely the draw's own design: the first copy of the repeat's first token is token 0, the attention sink.
    The cell after the loss cell runs the draw of SEQUENCE_SEED again with one ordinary token ('The') before
    it, and prints the loss on the repeat's second token and the strongest candidate's weight at the repeat's
    first token, both ways; checked here by hand on seed 0 (seed 18 runs it in the test of seeds outside
    every range), and the prose's counts against docs/held-out/08.md (tools/seed_sweeps/lesson_08.py:
    before-lowers, before-not-worst).
    Item 3: the second token's loss is the highest of the second copy *after its first token*.
    Review round 21, item 21.1: seed 0 is the lowest of seeds 0 to 7; the cell now runs each of the eight
    draws with 'The' before it too, and the prose gives the range on seeds 1 to 7 and the count on the further
    draws (before-above-1). Review round 23, 23-08-A: seed 0 an exception, its fall below 1 nat counted. The
    losses by hand, from the logits."""
    the = rm.encode(real_model, "The")
    assert rm.token_strings(real_model, the) == ["The"]                    # one ordinary token, not special
    seed = 0
    ids = ["r08-scores", "r08-seeds", "r08-loss", "r08-loss-first"]
    printed = run_cells(ids, real_model, runs, SEQUENCE_SEED=seed, DRAWS_SEED=0)
    assert printed["forward passes"]["r08-loss-first"] == 1 + 8                # seed 0's, then each draw's
    R, logits, weights = runs[seed]
    before = [int(the[0]), *(int(t) for t in R)]
    logits_b, weights_b = SHARED[id(runs)].known[tuple(before)]     # rm.forward's, run once by the cell
    loss, loss_b = hand_loss(logits, R), hand_loss(logits_b, np.array(before))[1:]   # the same 79 targets
    assert hand_loss(logits_b, np.array(before))[0] > 0 and len(loss_b) == len(loss) == 2 * PERIOD - 1
    (_, _, induction), W, Wb = by_hand(np.stack(weights)), np.stack(weights), np.stack(weights_b)
    L, H = strongest(induction)[0]
    right, sink, right_b = W[L, H, PERIOD, 1], W[L, H, PERIOD, 0], Wb[L, H, PERIOD + 1, 2]
    worst_b = int(np.argmax(loss_b[PERIOD:])) + 2
    out = printed["r08-loss-first"]
    assert (f"the repeat's second token: {loss[PERIOD]:.1f} nats as drawn; {loss_b[PERIOD]:.1f} with "
            "'The' before the draw") in out
    assert (f"({L}, {H}) at the repeat's first token, weight on what followed its first copy: "
            f"{right:.2f} as drawn ({sink:.2f} on the first token); {right_b:.2f} with 'The'") in out
    assert (f"on this draw (seed {seed}), with 'The' before it: the second copy's worst-predicted token: "
            f"the repeat's number {worst_b}\n  with seed 0, the lesson's story: 10.4, then 0.1; (18, 6): "
            "0.00 (0.89 on the first), then 0.95; number 23") in out
    assert ((L, H), f"{loss[PERIOD]:.1f}", f"{loss_b[PERIOD]:.1f}", f"{right:.2f}", f"{sink:.2f}",
            f"{right_b:.2f}", worst_b) == ((18, 6), "10.4", "0.1", "0.00", "0.89", "0.95", 23)
    assert loss_b[PERIOD] < loss[PERIOD] and worst_b != 2
    # review round 21, item 21.1: seed 0 the lowest of seeds 0 to 7; the eight draws, each with 'The' first
    falls, still, after = [], 0, {}
    for d, (R_d, logits_d, _) in runs.items():
        ids_d = np.array([int(the[0]), *(int(t) for t in R_d)])
        logits_t, _ = SHARED[id(runs)].known[tuple(int(i) for i in ids_d)]     # rm.forward's, run by the cell
        plain, with_the = hand_loss(logits_d, R_d), hand_loss(logits_t, ids_d)[1:]
        after[d] = with_the[PERIOD]
        falls.append(f"seed {d} {plain[PERIOD]:.1f} -> {with_the[PERIOD]:.1f}")
        still += int(with_the[PERIOD] == with_the[PERIOD:].max())
    assert ("the repeat's second token, as drawn -> with 'The' before (nats): " + "; ".join(falls) + "\n"
            "with 'The' before, the repeat's second token is still the second copy's worst-predicted on "
            f"{still} of 8\n  with seeds 0 to 7, the lesson's story: 0.1 on seed 0, 3.8 to 12.6 on the other "
            "seven; 5 of 8") in out
    others = [after[d] for d in range(1, 8)]
    assert min(after, key=after.get) == 0 and after[0] < 1 < min(others)                # lowest of 0-7
    assert (f"{after[0]:.1f}", f"{min(others):.1f}", f"{max(others):.1f}", still) == ("0.1", "3.8", "12.6", 5)
    assert out == shown("r08-loss-first")                               # the stored output: seed 0's
    assert not any(line.lstrip().startswith("assert") for line in cell("r08-loss-first").splitlines())
    text = said(cell("r08-s5-loss"))
    assert "its loss (10.4 nats) is the highest of the second copy after that first token" in text
    assert ("but that first copy is token 0, the attention sink (Xiao et al., 2023), where many heads "
            "park their weight. On seed 0's draw, (18, 6) at the repeat's first token puts 0.00 on what "
            "followed its first copy, and 0.89 on the first token. With one ordinary token, 'The', before "
            "the draw (the cell above), it puts 0.95 on what followed, and the loss on the repeat's second "
            "token falls from 10.4 to 0.1 nats.") in text
    rows = held_out()
    k, n, _ = rows["before-lowers"]
    k2, n2, _ = rows["before-not-worst"]
    assert n == n2 == 32 and k2 < n2                                     # not the whole reason
    k3, n3, _ = rows["before-above-1"]
    assert n3 == 32
    # review round 23, 23-08-A: a fall below 1 nat is not seed 0's alone (seed 9, in neither seed set, falls
    # to 0.50): the prose calls seed 0 an exception, and counts the falls below 1 nat on the draws it shows
    below = sum(after[d] < 1 for d in range(8)) + (n3 - k3)
    assert "best case" not in text
    assert ("Seed 0's draw is an exception, though: on seeds 1 to 7 (the cell above prints all eight) that "
            "loss falls only to 3.8 to 12.6 nats, and the token is still the second copy's worst-predicted "
            "on 5 of the 8 draws. So the sink is part of the reason, not all of it: with 'The' before the "
            f"draw, that loss falls on {k} of {n} further draws, but stays above 1 nat on {k3} of those "
            f"{n3} (a fall below 1 nat, as on seed 0, is rare: {below} of the {8 + n3} draws counted here), "
            f"and the token is still the second copy's worst-predicted on {n2 - k2}.") in text
    assert "# predicted in each copy (the second's 2 to 40)" in cell("r08-loss")
    ids = [c["id"] for c in cells()]
    assert ids.index("r08-loss") + 1 == ids.index("r08-loss-first") == ids.index("r08-s5-loss") - 1
    assert len(ids) <= 45


def test_a_draw_outside_the_sink_range_can_be_far_outside(real_model):
    """Review round 18, item 2: the one outlier shown (seed 19, 75 sink heads) suggested a near miss; seed 249
    (DRAWS_SEED = 242) has 4, yet 144 counting the first three tokens, its layers 3 to 9 splitting their
    weight between tokens 0 and 1. Checked here by hand, and the line the sink cell prints for it (the cell
    run here on that draw alone)."""
    import contextlib
    import io
    R = rm.repeated_random_tokens(real_model, period=PERIOD, seed=249)
    W = np.stack(rm.forward(real_model, R, keep_weights=True)[1])
    (first, _, _), (three, parked) = by_hand(W), first_three(W)
    assert int((first > 0.5).sum()) == 4 and int((three > 0.5).sum()) == 144
    assert [f"{w:.2f}" for w in parked[:2]] == ["0.38", "0.38"] and parked[2] < 0.015
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.printoptions(precision=2, suppress=True):   # as the lesson sets
        exec(cell("r08-sink-draws"), {"np": np, "rm": rm, "seeds": [249], "draws": [W]})
    assert out.getvalue().startswith("seed 249:   4 sink heads, 144 counting the first three tokens; layers "
                                     "3-9 put [0.38 0.38 0.01] on tokens 0, 1, 2,"), out.getvalue()
    assert ("A draw outside it can be far outside: seed 249 (`DRAWS_SEED = 242`) has only 4 sink heads, yet "
            "144 counting the first three tokens; its layers 3 to 9 split their weight evenly between tokens "
            "0 and 1 (0.38 each, printed by the next cell).") in said(cell("r08-s5-seeds"))
    assert "seed 249 has only 4 sink heads, yet 144 counting three)" in said(cell("summary"))
    assert "far outside: seed 249 has only 4 sink heads, yet 144 counted over the three." in guide_08()
    from seed_sweeps import lesson_08 as sweep
    assert 249 in sweep.SHOWN                                          # worded from it: not a held-out seed
    assert "seeds 0, 1, 2, 3, 4, 5, 6, 7, 45, 249, 1006;" in HELD_OUT.read_text(encoding="utf-8")


def test_the_cache_cell_counts_tokens_through_all_blocks():
    """Review 3, defect 6: a row of the count is one token through all 30 blocks, not one block."""
    code = cell("r08-cache-code")
    assert "one token, one block" not in code and "one token, through all 30 blocks" in code


def test_the_figure_and_printout_say_candidate():
    """Review 3, defect 11: section 5 calls them candidate induction heads; so do the figure and print."""
    code = cell("r08-three-heads")
    assert '"candidate induction": best["induction (prefix matching)"]' in code
    assert '"induction": best' not in code
    assert shown("r08-three-heads").startswith(
        "candidate induction head (18, 6): the second '_sat' reads '_on'")


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
    names layer 16 (head 0 reads the previous token, heads 1 and 2 do not) and, after the answer cell
    (review round 7, item 3), warns of layers 3, 7 and 28, where the three look alike and only the numbers
    differ."""
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
    assert "in layers 3, 7 and 28 the three heads of a group look alike" in said(cell("ex-08-1-after"))
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


# ---------------------------------------------------------------- round 5 of the review (issue 44)
HELD_OUT = NOTEBOOKS.parent / "docs" / "held-out" / "08.md"
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 10: "ten"}


def held_out() -> dict[str, tuple[int, int, str]]:
    """docs/held-out/08.md (tools/seed_sweep.py 08): claim -> (on how many further draws it held, of how
    many, the seeds where it failed)."""
    import re
    rows = {}
    for line in HELD_OUT.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"\| ([\w.-]+) \| .+ \| (\d+) of (\d+) \| ([\d, -]+) \|", line)
        if m:
            rows[m[1]] = (int(m[2]), int(m[3]), m[4])
    return rows


def test_each_claim_about_a_draw_is_worded_with_its_held_out_count():
    """Review round 5, item 2: "on every draw" / "on any draw" were fitted on seeds 0 to 7. Each claim is
    now worded from those seeds with its count on the further draws of docs/held-out/08.md (seeds 16 to
    31, and 48 to 63 since review round 7), in the lesson, its summary and the guide."""
    rows = held_out()
    assert HELD_OUT.read_text(encoding="utf-8").startswith("# Lesson 08: held-out seeds 16-31,48-63 ")
    assert all(n == 32 for _, n, _ in rows.values()) and len(rows) >= 10
    text, summary, guide = said(prose()), said(cell("summary")), guide_08()
    for claim in ("on every draw", "On every draw", "on any draw"):
        assert claim not in text and claim not in guide, claim
    k, n, _ = rows["induction-18.6"]
    assert rows["candidates-above-16"][:2] == rows["least-0.1.11"][:2] == (k, n)
    assert f"Each of these also held on {k} of {n} further draws (seeds 16 to 31 and 48 to 63;" in text
    k, n, _ = rows["previous-top-two"]
    assert f"(16, 0) and (11, 1) on all eight draws of seeds 0 to 7, and on {k} of {n} further ones" in text
    k, n, fails = rows["previous-16.0"]
    assert f"but only on {k} of the {n} further draws: on the other {WORDS[n - k]}, (11, 1) is" in text
    k, n, fails = rows["sinks-85-147"]
    assert f"{k} of {n} further draws fall in that range (seed {fails} has 75)" in text
    assert f"and on {k} of {n} further draws; 128 to 152" in summary
    assert f"(and on {k} of {n} further draws; seed {fails} has 75)" in guide
    k, n, _ = rows["no-sink-0.1.11"]
    assert f"nor on {k} of {n} further ones" in text
    assert f"on seeds 0 to 7 and on {k} of {n} further" in summary
    k, n, _ = rows["no-sink-0.1.10.11"]
    assert f"Layer 10 has none on seeds 0 to 7, but has one on {n - k} of the {n} further draws" in text
    assert f"(layer 10 has one on {n - k} of those {n})" in summary
    k, n, fails = rows["threes-128-152"]
    assert fails.endswith(", 53")                                # 127: below the range, the others above
    assert (f"{k} of {n} further draws fall in that range; of the other {WORDS[n - k]}, {WORDS[n - k - 1]} "
            "have 153 to 160 and seed 53 has 127") in text
    assert f"({k} of {n} further draws too; the other {WORDS[n - k]} have 127 to 160)" in guide
    assert f"128 to 152 counting the first three tokens together, on {k} of {n} further draws" in summary
    k, n, _ = rows["parked-on-first"]
    assert f"Of {n} further draws, {k} look like those seven" in text
    k, n, fails = rows["loss-falls"]
    assert (f"below a quarter of the first copy's on all eight draws of seeds 0 to 7 (0.12 to 0.19) and on "
            f"{k} of {n} further draws; seed 45") in text
    assert f"above a quarter, and so do seeds {fails.replace(', ', ' and ')} of the further draws" in text
    assert f"(below a quarter on seeds 0 to 7, and on {k} of {n} further draws; seed 45" in guide
    k, n, _ = rows["tokens-3-5-idle"]
    assert f"On seeds 0 to 7, and on {k} of {n} further draws, tokens 3 to 5 take 0.01 or less each" in text
    k, n, _ = rows["second-worst"]
    assert f"on {k} of {n} further draws (on the other {WORDS[n - k]}, a later token is predicted worse)" \
        in text


def test_the_further_draws_that_break_a_claim_are_described_as_they_are(real_model):
    """Review round 7 (the tokens-3-to-5 sentence held on seeds 16 to 31 but not on two fresh draws, 45 and
    1006): the held-out draws are now seeds 16 to 31 and 48 to 63. Where a claim fails on some of them, the
    lesson says how (where layers 3 to 9 park their weight, the counts over the first three tokens, the
    loss ratio), checked here by hand on each failing draw of docs/held-out/08.md; and seed 1006, the
    reviewer's draw, is named as a second seed 45, checked here too."""
    rows = held_out()
    parked_fails = [int(x) for x in rows["parked-on-first"][2].split(", ")]
    threes_fails = [int(x) for x in rows["threes-128-152"][2].split(", ")]
    loss_fails = [int(x) for x in rows["loss-falls"][2].split(", ")]
    kinds: dict[str, list[int]] = {}
    threes, ratios = {}, {}
    for seed in sorted({*parked_fails, *threes_fails, *loss_fails, 1006}):
        R = rm.repeated_random_tokens(real_model, period=PERIOD, seed=seed)
        logits, weights = rm.forward(real_model, R, keep_weights=True)
        W, loss = np.stack(weights), hand_loss(logits, R)
        three, parked = first_three(W)
        threes[seed] = int((three > 0.5).sum())
        ratios[seed] = loss[PERIOD:].mean() / loss[:PERIOD - 1].mean()
        later = W[3:10, :, 6:, 3:6].mean(axis=(0, 1, 2))                # tokens 3, 4, 5, queries 6 on
        if seed == 1006:                                                 # like seed 45: tokens 3 to 5
            assert parked[0] < 0.5 and (later > 0.05).all(), (parked, later)
            continue
        if seed not in parked_fails:
            continue
        assert (later <= 0.015).all(), seed                              # 32 of 32: tokens 3 to 5 idle
        if parked[0] > 0.755 and (parked[1:] < 0.015).all():
            kinds.setdefault("first above 0.75", []).append(seed)
        elif parked[:2].sum() < 0.5:
            kinds.setdefault("under half on the first two", []).append(seed)
        elif parked[1] > 0.3:
            kinds.setdefault("the first two share", []).append(seed)
        elif parked[1] > 0.05 and parked[2] < 0.015:
            kinds.setdefault("the second takes part", []).append(seed)
        elif parked[2] > 0.05 and parked[1] < 0.015:
            kinds.setdefault("the third takes part", []).append(seed)
        else:
            kinds.setdefault("none of these", []).append(seed)
    assert {k: len(v) for k, v in kinds.items()} == {"first above 0.75": 5, "the second takes part": 3,
                                                     "the third takes part": 1, "the first two share": 2,
                                                     "under half on the first two": 1}, kinds
    assert kinds["the first two share"] == [19, 59] and kinds["under half on the first two"] == [58]
    text = said(cell("r08-sink-draws-read"))
    assert ("Of 32 further draws, 20 look like those seven. On five the first token takes a little more than "
            "0.75; on three the second token takes part of the weight, and on one the third; on seeds 19 and "
            "59 the first two tokens share it; and seed 58 puts less than half on the first two together")\
        in text
    assert sorted(threes[s] for s in threes_fails) == [127, 153, 157, 160] and threes[53] == 127
    assert all(ratios[s] > 0.25 for s in loss_fails) and loss_fails == [50, 58]
    assert "such a draw is rare, not unique: seed 1006 (`DRAWS_SEED = 1000`) is another." in text


def test_the_lesson_runs_with_seeds_outside_every_range_it_quotes(real_model, monkeypatch):
    """Review round 5, item 1: with SEQUENCE_SEED = 18 ((11, 1) is the strongest previous-token head, and
    the repeat's second token is not its worst) and DRAWS_SEED = 44 (seed 45 has 109 sink heads counting
    the first three tokens, below the 128 to 152 of seeds 0 to 7, and its second copy's loss is above a
    quarter of the first's), the lesson runs through every cell that depends on a draw, in a fresh kernel,
    and prints those draws' facts, checked here by hand. Review round 6, item 2: on seed 45 the parked
    weight moves to tokens 3 to 5, as the lesson now says, with its numbers, checked here by hand."""
    from lesson_helpers import run_lesson
    monkeypatch.setenv("MPLBACKEND", "Agg")            # the kernel draws no PNG of a figure (none is checked)
    # the model and the sentence's weights (the explorer's cell), then every cell a draw feeds
    nb = run_lesson("08", SEQUENCE_SEED=18, DRAWS_SEED=44,
                    cells=["r08-imports", "r08-load", "r08-explorer", "r08-scores", "r08-layers", "r08-seeds",
                           "r08-sink-draws", "r08-loss", "r08-loss-first", "r08-three-heads"])
    out = {c.id: "".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"}
    W18 = rm.attention_weights(real_model, rm.repeated_random_tokens(real_model, period=PERIOD, seed=18))
    first, previous, _ = by_hand(W18)
    p1, p2 = strongest(previous, 2)
    assert p1 == (11, 1) and p2 == (16, 0)                               # outside the lesson's story
    said18 = (f"on this draw (seed 18): previous-token heads {p1} ({previous[p1]:.3f}) then {p2} "
              f"({previous[p2]:.3f})")
    assert said18 in out["r08-scores"]
    assert f"on this draw (seed 18): {int((first > 0.5).sum())} sink heads;" in out["r08-layers"]
    R45 = rm.repeated_random_tokens(real_model, period=PERIOD, seed=45)
    logits45, weights45 = rm.forward(real_model, R45, keep_weights=True)
    W45, loss45 = np.stack(weights45), hand_loss(logits45, R45)
    sinks45, (three45, parked45) = int((by_hand(W45)[0] > 0.5).sum()), first_three(W45)
    later45 = W45[3:10, :, 6:, 3:6].mean(axis=(0, 1, 2))                # tokens 3, 4, 5, queries 6 on
    ratio45 = loss45[PERIOD:].mean() / loss45[:PERIOD - 1].mean()
    threes45 = int((three45 > 0.5).sum())
    assert (sinks45, threes45, f"{ratio45:.2f}") == (108, 109, "0.29") and threes45 < 128 and ratio45 > 0.25
    assert f"{parked45[0]:.2f}" == "0.40" and (parked45[1:] < 0.005).all()
    assert [f"{w:.2f}" for w in later45] == ["0.08", "0.20", "0.15"]
    line = next(x for x in out["r08-seeds"].splitlines() if x.startswith("seed 45: "))
    assert line.startswith(f"seed 45: {sinks45:3d} sink heads") and f"first copy {ratio45:.2f}," in line
    assert f"seed 45: {sinks45:3d} sink heads, {threes45} counting" in out["r08-sink-draws"]
    assert "of these 8 draws, " in out["r08-sink-draws"]
    text = said(cell("r08-sink-draws-read"))
    first45 = W45[3:10, :, 6:, 0].mean()                                  # the same queries, token 0
    assert parked45[0] < 0.5 and abs(later45.sum() - first45) < 0.1, (first45, later45)
    assert ("On seed 45 (set `DRAWS_SEED = 44`: the cell above prints it), layers 3 to 9 put less than half "
            "of it on the first token and almost none on the next two, but about as much on tokens 3, 4 and "
            "5 together") in text
    assert "it has 108 sink heads, and 109 counting the first three" in text
    assert "32 further draws; seed 45 (`DRAWS_SEED = 44`), though, gives 0.29, above a quarter" in \
        said(cell("r08-s5-loss"))
    assert "32 further draws; seed 45, though, gives 0.29)" in guide_08()
    assert "the repeat's number 2\n" not in out["r08-loss"]                 # seed 18: a later token is worse
    assert "on this draw (seed 18), with 'The' before it: " in out["r08-loss-first"]
    assert "candidate induction head (18, 6)" in out["r08-three-heads"]


def q4_1_rounding(W) -> float:
    """The RMS error of rounding to a Q4_1 grid, over the RMS of the weights, measured: each block of 32
    numbers down a column, on its 16 levels (min + k step, step = (max - min) / 15), with a value spread
    evenly between two levels rounded to the nearer one, written here with loops over the offsets."""
    B = W.reshape(-1, 32, W.shape[1]).astype(np.float64)           # (blocks, 32, columns)
    step = (B.max(axis=1) - B.min(axis=1)) / 15
    offsets = (np.arange(1000) + 0.5) / 1000                       # evenly between level k and k + 1
    err2 = np.mean([np.minimum(u, 1 - u) ** 2 for u in offsets])   # the nearer level, in steps²
    return float(np.sqrt(err2 * (step ** 2).mean()) / np.sqrt((B ** 2).mean()))


def test_the_weights_are_named_a_4_bit_approximation(real_model):
    """Review round 5, item 3: the float32 weights are dequantised Q4_1 ones, not the trained (bf16) ones;
    the lesson says so where it introduces them, with the size of the rounding (about 8 to 9 % of a
    typical weight: measured here on every Q4_1 matrix), and names the model as it is, SmolLM2-135M-Instruct
    with 4-bit weights, in every section that quotes a number of the model's, its summary and the guide."""
    W0 = real_model.blocks[0].W_q
    assert max(len(np.unique(W0[i:i + 32, j])) for i in range(0, 576, 32) for j in range(0, 576, 7)) <= 16
    ratios = [q4_1_rounding(W) for b in real_model.blocks for W in vars(b).values() if np.ndim(W) == 2]
    assert len(ratios) == 210 and 0.08 <= min(ratios) and max(ratios) < 0.095
    said0 = f"block 0's W_q: rounding error about {q4_1_rounding(W0):.0%} of a typical weight"
    assert said0 in shown("r08-load")
    text = said(cell("r08-s1"))
    assert "cannot restore the trained numbers" in text and "a 4-bit approximation, dequantised Q4_1" in text
    assert "by about 8 to 9 % of a typical weight" in text
    assert "SmolLM2-135M-Instruct with 4-bit weights" in text
    sections, heading = {}, ""
    for c in cells():
        if c["cell_type"] == "markdown":
            heading = source(c).splitlines()[0] if source(c).startswith("## ") else heading
            sections[heading] = sections.get(heading, "") + source(c)
    for start in ("## 3.", "## 5.", "## 6.", "## Summary"):                 # they quote the model's numbers
        (words,) = [w for h, w in sections.items() if h.startswith(start)]
        assert "4-bit" in words, start
    assert "SmolLM2-135M-Instruct with 4-bit weights" in said(cell("r08-s3"))
    assert "SmolLM2-135M-Instruct (4-bit weights)" in said(cell("r08-s5"))
    assert "4-bit weights" in guide_08() and "an approximation of the trained (bf16) weights" in guide_08()


def test_08_2_says_one_rope_pair_makes_a_previous_token_head_only_in_a_short_window():
    """Review round 5, item 4: with one pair turning 1 radian per position, the score comes round after 2π;
    a design that passes 08.2 (keys 0 to 5 back) spreads its weight over keys 7, 20 and 26 back when the
    keys are 0 to 39 back. RoPE written here, on adjacent pairs."""
    import attention_lab as al

    def turned(x, p, base=100.0):
        out = np.array(x, dtype=float)
        for j in range(len(x) // 2):
            a = p * base ** (-2 * j / len(x))
            out[2 * j] = np.cos(a) * x[2 * j] - np.sin(a) * x[2 * j + 1]
            out[2 * j + 1] = np.sin(a) * x[2 * j] + np.cos(a) * x[2 * j + 1]
        return out

    q, k = np.array([4.0, 0, 0, 0]), np.array([4 * np.cos(1), 4 * np.sin(1), 0, 0])   # length 4, pair 0
    assert al.EXERCISES["08.2"].evaluate(np.array([q, k])).status == "correct"
    for at in (5, 17, 40):
        s = np.array([turned(q, at) @ turned(k, at - back) for back in range(40)]) / 2
        w6, w40 = np.exp(s[:6] - s[:6].max()), np.exp(s - s.max())
        assert (w6 / w6.sum())[1] > 0.9 and (w40 / w40.sum())[1] < 0.2           # nine tenths; a fifth
        assert set(np.argsort(s)[::-1][1:4]) == {7, 20, 26}                       # "come close"
        assert round(s[7] / s[1], 2) == round(np.cos(6), 2) == 0.96               # "cos 6, 96 %"
    text = said(cell("ex-08-2"))
    assert "RoPE alone can make a previous-token head, within a short window of keys" in text
    assert "cos 6, 96 % of the best" in text and "over nine tenths" in text and "less than a fifth" in text
    assert "(those 7, 20 and 26 back come close)" in text and "mixes several pairs" in text


def test_the_answer_to_12_times_7_is_shown_to_its_end(real_model):
    """Review round 5, item 7: n_new=40 cut the answer mid-sentence, so "it never gets to 84" could not be
    seen. The question now asks for one number, and the screen shows the model's whole answer (shorter
    than the cell's n_new, with room for its <|im_end|>: it stopped on its own) with its wrong 72."""
    import inspect
    import re
    code = cell("r08-ask")
    (question,) = re.findall(r'(?m)^question = "(What is 12 times 7\?[^"]*)"$', code)
    (n_new,) = [int(n) for n in re.findall(r"rm\.answer\(model, question, n_new=(\d+)\)", code)]
    (answer,) = [line.split(question + " ", 1)[1] for line in shown("r08-ask").splitlines()
                 if line.startswith(question + " ")]
    assert answer.endswith(" 72.") and "84" not in answer
    assert len(rm.encode(real_model, answer)) + 1 < n_new                     # + its <|im_end|>: it ended
    text = said(cell("r08-s3"))
    assert "it never gets to 84" not in text and "it answers 72 (its whole answer" in text
    default = inspect.signature(rm.answer).parameters["n_new"].default
    assert f"at most {default} new tokens" in text and default >= 100


# ---------------------------------------------------------------- round 6 of the review (issue 44)
def test_the_eight_draws_are_named_by_their_seeds():
    """Review round 6, item 1: "these eight draws" meant seeds 0 to 7, and changed meaning silently when a
    student set DRAWS_SEED. The words name the seeds; every invitation to change a seed says from 0 up
    (NumPy refuses a negative seed)."""
    import re
    text, summary = said(prose()), said(cell("summary"))
    for words in ("these eight", "over eight draws", "on all eight draws,", "all eight draws and on"):
        assert words not in text, words
    assert "from 85 to 147 of 270 on seeds 0 to 7" in text
    assert "85 to 147 sink heads on seeds 0 to 7" in summary
    with pytest.raises(ValueError):
        np.random.default_rng(-1)
    everything = "\n".join(source(c) for c in cells()) + guide_08()
    for m in re.finditer(r"any whole number", everything):
        assert everything[m.end():m.end() + 10] == " from 0 up", everything[m.start() - 40:m.end() + 20]
    assert "# the draw: any whole number from 0 up" in cell("r08-scores")


def test_the_block_s_parts_name_the_papers_that_defined_them():
    """Review round 6, item 4: grouped-query attention, multi-query attention, RMSNorm, SwiGLU and pre-LN
    are credited to their papers."""
    text = said(cell("r08-s2"))
    for credit in ("grouped-query attention (Ainslie et al., 2023; below)",
                   "*multi-query attention* (Shazeer, 2019)", "RMSNorm (Zhang & Sennrich, 2019)",
                   "SwiGLU (Shazeer, 2020)", "*GLU variants improve Transformer*",
                   '"pre-LN" (analysed by Xiong et al., 2020)'):
        assert credit in text, credit


def test_the_circuit_asks_only_that_the_induction_head_sits_later(draws):
    """Review round 6, item 6: "five of them in the two layers right after it, as the two-step circuit
    needs" read as a requirement; the circuit needs only a later layer. On seeds 0 to 7, every candidate
    sits above both strong previous-token heads, (11, 1) and (16, 0)."""
    for seed, ((_, previous, induction), *_) in draws.items():
        assert {(16, 0), (11, 1)} == set(strongest(previous, 2)), seed
        assert np.argwhere(induction > 0.5)[:, 0].min() > 16, seed
    text = said(cell("r08-s5-read"))
    assert "right after it" not in text
    assert ("above both strong previous-token heads, (11, 1) and (16, 0), as the two-step circuit of "
            "lesson 07 needs") in text


# ---------------------------------------------------------------- round 7 of the review
def test_a_knockout_is_said_to_show_that_a_head_is_needed_not_what_it_does(real_model, runs):
    """Review round 7, item 1: "if the loss rises when the candidates are switched off, and not when other
    heads are, they do the copying" is a test the candidates fail: the previous-token head (16, 0), which
    copies nothing, raises the second-copy loss too (lesson 09). The lesson now says what a knockout shows
    (a head is needed), that the heads feeding the candidates are needed too, and leaves the rest to 09.
    The rise is measured here on seed 0's draw, the loss by hand (lesson 09's zero-ablation does the
    knocking out)."""
    from attention_lab import heads_at_work as hw
    R, logits, _ = runs[0]
    intact = hand_loss(logits, R)[PERIOD:].mean()
    without_16_0 = hw.second_copy_loss(real_model, R, [(16, 0)], period=PERIOD)
    assert intact < 2 and without_16_0 > 3 * intact, (intact, without_16_0)     # needed: it feeds them
    text = said(cell("r08-s5-loss"))
    assert "and not when other heads are, they do the copying" not in text
    assert "A knockout shows that a head is needed, not what it does" in text
    assert "they are needed for the copying" in text
    assert ("so are the heads that feed them, such as the previous-token head (16, 0): lesson 09 knocks out "
            "both") in text
    summary = said(cell("summary"))
    assert "lesson 09 knocks heads out to find out" not in summary
    assert "lesson 09 knocks heads out to find which the copying needs" in summary
    assert "answers it by knocking heads out" not in said(cell("r08-intro"))
    guide = guide_08()
    assert "a knockout shows that a head is needed, not what it does" in guide
    assert "Which heads do the copying is a question of cause" not in guide


def test_the_sink_counts_are_said_to_depend_on_the_first_token(real_model, runs):
    """Review round 7, item 2: every draw of section 5 begins with an ordinary token, while every chat
    begins with <|im_start|>. A cell puts it before seed 0's draw and measures section 3's chat prompt; the
    counts are recomputed here by hand from the weights, and the words say the counts depend on what the
    first token is."""
    start = rm.encode(real_model, "<|im_start|>")
    assert rm.token_strings(real_model, start) == ["<|im_start|>"]
    prompt = rm.encode(real_model, rm.chat_prompt("What is the capital of France?"))
    assert prompt[0] == start[0]                                         # the chat begins with it
    R0 = runs[0][0]
    found = {}
    for name, ids in (("im_start", np.concatenate([start, R0])), ("prompt", np.array(prompt)), ("R0", R0)):
        W = np.stack(runs[0][2]) if name == "R0" else rm.attention_weights(real_model, ids)
        first = W[:, :, 1:, 0].mean(axis=-1)                             # by hand
        none = [layer for layer in range(30) if first[layer].max() <= 0.5]
        found[name] = (int((first > 0.5).sum()), none, W[3:10, :, 4:, :4].mean(axis=(0, 1, 2)))
    assert found["R0"][:2] == (134, [0, 1, 2, 10, 11])
    assert found["im_start"][:2] == (86, list(range(12)))
    assert [f"{w:.2f}" for w in found["im_start"][2]] == ["0.21", "0.20", "0.19", "0.19"]
    assert f"{found['R0'][2][0]:.2f}" == "0.73"
    assert found["prompt"][0] == 194
    out = shown("r08-first-token")
    for name, label, n in (("im_start", "<|im_start|>, then seed 0's draw", 2 * PERIOD + 1),
                           ("prompt", "section 3's chat prompt", len(prompt))):
        count, none, _ = found[name]
        assert f"{label} ({n} tokens): {count} sink heads; no sink head in layers {none}" in out, out
    assert "layers 3-9 put [0.21 0.2  0.19 0.19] on tokens 0 to 3" in out, out
    text = said(cell("r08-first-token-read"))
    assert ("Put `<|im_start|>` before seed 0's draw, and 86 heads are sink heads instead of 134, none in "
            "layers 0 to 11: layers 3 to 9 spread their weight over the first four tokens (0.21, 0.20, 0.19 "
            "and 0.19) instead of putting 0.73 on the first") in text
    assert "on section 3's chat prompt, which begins the same way, 194 are" in text
    assert "what the token is, and what follows it, decides how much it is used" in text
    assert "The next cell puts `<|im_start|>` before seed 0's draw" in said(cell("r08-sink-draws-read"))
    assert "so is everything measured in section 5" not in said(cell("r08-s4"))
    assert "what the first token is matters too" in said(cell("r08-s5"))
    assert "with `<|im_start|>` before seed 0's draw, 86 heads are sink heads" in said(cell("summary"))
    assert "with `<|im_start|>` first (as every chat begins) the counts change" in guide_08()


def test_08_1_gives_no_hint_before_the_prediction():
    """Review round 7, item 3: "in layers 3, 7 and 28 ... only the numbers next to the sliders differ", said
    before the four options are answered, gave (a) away. It now comes after the answer cell."""
    ids = [c["id"] for c in cells()]
    question = said(cell("ex-08-1"))
    assert "look alike" not in question and "numbers next to the sliders differ" not in question
    assert "Then check with the explorer of section 4: layer 16, heads 0, 1 and 2" in question
    assert ids[ids.index("ex-08-1-code") + 1] == "ex-08-1-after"
    after = said(cell("ex-08-1-after"))
    assert after.startswith("**After you answer 08.1.**")
    assert "in layers 3, 7 and 28 the three heads of a group look alike" in after


def test_08_2_says_the_far_key_lags_the_query_by_more():
    """Review round 7, item 4: a key 7 positions back has been turned 6 radians *less* than one 1 back, not
    further; its angle to the query is 6 radians larger. Checked here with pair 0 (1 radian a position)."""
    at = 17.0
    lag = {back: at * 1.0 - (at - back) * 1.0 for back in (1, 7)}      # the query's angle minus the key's
    assert lag[7] - lag[1] == 6 and (at - 7) < (at - 1)                 # larger lag, smaller turn
    text = said(cell("ex-08-2"))
    assert "has turned 6 radians further than one 1 back" not in text
    assert "a key 7 positions back lags the query by 6 radians more than one 1 back" in text


def test_08_3_writes_the_group_as_floor_division_by_a_whole_number():
    """Review round 7, item 5: "i // (h / g)" divided by a true quotient; the code and hints say h // g."""
    text = said(cell("ex-08-3"))
    assert "(h / g)" not in text and "query head $i$ reads key/value head `i // (h // g)`" in text


@pytest.mark.parametrize("answer, mistake, phrase", [
    ([2 * 30 * 3 * 64 * 4, 2 * 30 * 9 * 64 * 4], "per token", "one token"),       # 256 left out
    ([11796000, 35389000], "close", "exact count"),                             # right, then rounded
    ([1.18e7, 3.54e7], "close", "exact count"),
    ([11_900_000, 35_600_000], "close", "exact count"),                         # within 1 %
])
def test_08_4_per_token_and_rounded_bytes_get_their_own_hints(answer, mistake, phrase):
    """Review round 7, item 6: one token's bytes, and the right bytes rounded, got only the generic
    message. Answers typed by hand, apart from the mistake table."""
    result = al.EXERCISES["08.4"].evaluate(answer)
    assert result.mistake == mistake, result.message
    assert phrase in result.message, result.message


def test_08_4_close_is_only_said_within_one_percent():
    exact = np.array([2 * 256 * 30 * 3 * 64 * 4, 2 * 256 * 30 * 9 * 64 * 4], dtype=float)   # by hand
    assert al.EXERCISES["08.4"].evaluate(exact).status == "correct"
    for off in (1.02, 0.97):
        assert al.EXERCISES["08.4"].evaluate(exact * off).mistake is None
    assert al.EXERCISES["08.4"].evaluate([11.8, 35.4]).mistake == "megabytes"     # the unit comes first


def test_the_three_heads_are_said_to_be_picked_on_the_draw():
    """Review round 7, item 7: the three heads are the strongest on the draw of SEQUENCE_SEED, and only
    shown on the sentence of section 4."""
    text = said(cell("r08-s5-loss"))
    assert "The strongest head of each kind, on the sentence of section 4:" not in text
    assert ("The strongest head of each kind on the draw of `SEQUENCE_SEED` (the scores cell), shown on the "
            "sentence of section 4:") in text


# ---------- the debug function as handed out: what to look for, not the fix, and no attempt --------------

def test_08_3_as_handed_out_says_what_to_look_for_and_counts_as_no_attempt():
    """The stored verdict of the planted cell said "repeat each key head in place (0, 0, 0, 1, 1, 1, ...)":
    the fix. As handed out, the function gets not yet and what to look for; Run All's check is no attempt."""
    check_as_handed_out("08.3", ("repeat", "in place", "0, 0, 0", "i // (h // g)", "i % g"))



def test_08_3_a_changed_function_with_the_planted_numbers_is_told_why():
    """Key head i % g for query head i, by index: np.tile's layout (by hand, for h = 6, g = 2: 0, 1, 0, 1,
    0, 1), made another way. The student changed the function: a hint that explains, and an attempt."""
    def gqa(Q, K, V):
        h, g, n = len(Q), len(K), Q.shape[1]
        K, V = K[np.arange(h) % g], V[np.arange(h) % g]
        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        return al.softmax(np.where(al.causal_mask(n), S, -np.inf)) @ V
    assert (np.arange(6) % 2).tolist() == [0, 1, 0, 1, 0, 1]
    result = al.EXERCISES["08.3"].evaluate(gqa)
    assert result.status == "mistake" and result.mistake == "planted numbers", result
    assert "head i % g" in result.message and "still the planted bug" not in result.message, result.message
