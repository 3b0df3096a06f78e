"""Lesson 08, section 6 (knock heads out): the package helpers checked against code written here, and the
section's claims about random draws run with the lesson's own cells on sequence seeds 0 to 7."""

import json

import matplotlib
import numpy as np
import pytest
from test_heads_at_work import reference, tiny_model
from test_review_08 import LESSON, cell, said, shown

from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm

matplotlib.use("Agg")
SEEDS = range(8)


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


def hand_loss(logits, ids, period):
    """Mean cross-entropy of tokens period + 1 on, written here in float64."""
    z = np.asarray(logits, dtype=np.float64)[:-1]
    logp = z - z.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(ids) - 1), np.asarray(ids)[1:]][period:].mean())


REPEAT = [3, 17, 42, 8, 51, 3, 17, 42, 8, 51]                          # period 5


def test_second_copy_loss_matches_a_float64_reference(tiny):
    for knock in ([], [(0, 1), (2, 3)]):
        want = hand_loss(reference(tiny, REPEAT, knock)[0], REPEAT, 5)
        assert abs(hw.second_copy_loss(tiny, REPEAT, knock, 5) - want) < 1e-4
    mean = hand_loss(reference(tiny, REPEAT, [(1, 2)], "mean")[0], REPEAT, 5)
    assert abs(hw.second_copy_loss(tiny, REPEAT, [(1, 2)], 5, "mean") - mean) < 1e-4


def test_knockout_table_rows_are_loss_and_the_watched_heads_prefix_score(tiny):
    watch = [(1, 0), (2, 3)]
    table = hw.knockout_table(tiny, REPEAT, {"none": [], "two": [(0, 1), (2, 3)]}, 5, watch)
    assert list(table) == ["none", "two"]
    for name, knock in (("none", []), ("two", [(0, 1), (2, 3)])):
        _, weights = hw.knockout_forward(tiny, REPEAT, knock, keep_weights=True)
        by_hand = np.mean([np.mean([weights[layer][head][q, q - 4] for q in range(5, 9)])
                           for layer, head in watch])                    # query q reads key q - period + 1
        assert abs(table[name][1] - by_hand) < 1e-6
        assert abs(table[name][0] - hand_loss(reference(tiny, REPEAT, knock)[0], REPEAT, 5)) < 1e-4


def test_random_heads_are_distinct_seeded_and_cover_the_model(tiny):
    seen = set()
    for seed in range(200):
        heads = hw.random_heads(tiny, 5, seed)
        assert heads == sorted(set(heads)) and len(heads) == 5
        assert all(0 <= layer < 3 and 0 <= head < 4 for layer, head in heads)
        assert heads == hw.random_heads(tiny, 5, seed)
        seen |= set(heads)
    assert len(seen) == 12 and hw.random_heads(tiny, 12, 3) == sorted(seen)
    assert hw.random_heads(tiny, 5, 0) != hw.random_heads(tiny, 5, 1)


def test_plot_knockouts_labels_its_axes():
    import matplotlib.pyplot as plt
    fig = hw.plot_knockouts({"none": (1.8, 0.66), "seven": (11.7, 0.57)}, {"random": [1.5, 6.1]}, 14.2)
    left, right = fig.axes
    assert left.get_xlabel() == "loss on the second copy (nats)" and left.get_ylabel() == "heads knocked out"
    assert right.get_xlabel() == "prefix-matching score of the candidates"
    assert [t.get_text() for t in left.get_yticklabels()] == ["none", "seven", "random"]
    assert min(t.get_fontsize() for t in left.get_yticklabels()) >= 13      # readable on a projector
    plt.close(fig)


@pytest.mark.parametrize("call, error, words", [
    (lambda m: hw.random_heads(m, 13), ValueError, "count is 13: expected at most 12"),
    (lambda m: hw.random_heads(m, 0), ValueError, "count is 0"),
    (lambda m: hw.random_heads(m, 2, -1), ValueError, "seed is -1"),
    (lambda m: hw.second_copy_loss(m, REPEAT, [], 9), ValueError, "period 9 with 10 tokens"),
    (lambda m: hw.second_copy_loss(m, REPEAT, [(3, 0)], 5), ValueError, "head 0 of layer 3"),
    (lambda m: hw.knockout_table(m, REPEAT, [[]], 5, [(0, 0)]), TypeError, "expected a dict"),
    (lambda m: hw.knockout_table(m, REPEAT, {"a": []}, 5, []), ValueError, "watch is empty"),
    (lambda m: hw.plot_knockouts({"a": (1.0,)}), TypeError, "expected \\(loss, score\\)"),
    (lambda m: hw.plot_knockouts({"a": (1.0, 0.5)}, {"r": "12"}), TypeError, "a list of losses"),
])
def test_bad_inputs_say_what_was_expected(tiny, call, error, words):
    with pytest.raises(error, match=words):
        call(tiny)


# ---------------------------------------------------------------- the lesson's cells on seeds 0 to 7
def run(code, ns, name):
    import matplotlib.pyplot as plt
    try:
        exec(compile(code, name, "exec"), ns)
    finally:
        plt.close("all")


@pytest.fixture(scope="module")
def knockouts(real_model):
    """Seed -> the namespace after section 6's cells, run on that sequence seed (the candidates and the
    previous-token head stay those section 5 found on seed 0, as the lesson's prose names them). Every
    assert in the cells must hold on every seed."""
    import matplotlib.pyplot as plt

    import attention_lab as al
    base = {"model": real_model, "np": np, "rm": rm, "hw": hw, "al": al, "plt": plt}
    run(cell("r08-scores"), base, "r08-scores")
    out = {}
    for seed in SEEDS:
        ns = dict(base)
        ns["R"] = rm.repeated_random_tokens(real_model, period=40, seed=seed)
        ns["logits_R"], _ = rm.forward(real_model, ns["R"])
        for cid in ("r08-loss", "r08-knock", "r08-knock-random"):
            run(cell(cid), ns, f"lesson 08, cell {cid}, sequence seed {seed}")
        out[seed] = ns
    return out


def test_the_cells_name_the_heads_of_section_5(knockouts):
    ns = knockouts[0]
    assert ns["candidates"] == [(17, 3), (17, 4), (17, 5), (18, 6), (18, 7), (20, 6), (23, 2)]
    assert ns["prev"] == (16, 0)
    assert sum(bool(set(h) & set(ns["candidates"])) for h in ns["randoms"].values()) == 1   # only set 0
    assert (18, 6) in ns["randoms"][0]


def test_seed_0_as_the_prose_says_it(knockouts, real_model):
    ns = knockouts[0]
    _, cands, alone = ns["table"].values()
    assert cands[0] > np.log(len(real_model.embedding))                  # "worse than a uniform guess"
    losses = list(ns["losses"].values())
    assert max(losses) == ns["losses"][0]                            # "the one set that hurts holds (18, 6)"
    assert sorted(losses)[-2] < alone[0] / 2
    text = said(cell("r08-knock-read"))
    for words in ("from 1.79 to 11.70 nats, worse than a uniform guess (10.8)", "prefix score 0.66 → 0.57",
                  "1.45 to 6.12 (median 2.10)", "(16, 0) alone raises the loss to 7.89",
                  "falls from 0.66 to 0.14", "similar numbers: 10.46 and 7.95"):
        assert words in text, words
    screen = shown("r08-knock") + shown("r08-knock-random")
    assert "7 random heads: 1.45 to 6.12 nats, median 2.10" in screen
    assert "the 7 candidates 10.46 nats, (16, 0) alone 7.95" in screen


def test_every_seed_as_the_prose_says_it(knockouts):
    """"On each of sequence seeds 0 to 7 ... the seven candidates cost more than every random set, (16, 0)
    alone costs more than every random set without a candidate, and it cuts the candidates' prefix score
    to under a quarter"; mean-ablation "similar": above every such random set as well."""
    for seed, ns in knockouts.items():
        none, cands, alone = ns["table"].values()
        plain = [v for s, v in ns["losses"].items() if not set(ns["randoms"][s]) & set(ns["candidates"])]
        assert len(plain) == 7, seed
        assert cands[0] > max(ns["losses"].values()), seed
        assert alone[0] > max(plain), seed
        assert alone[1] < none[1] / 4, seed
        assert cands[1] > 0.8 * none[1], seed                          # "their own patterns stay"
        assert min(ns["mean_abl"]) > max(plain), seed
        assert none[0] == ns["second"], seed
    text = said(cell("r08-knock-read"))
    assert ("On each of sequence seeds 0 to 7 (the tests run all eight, with the same eight random sets), "
            "the seven candidates cost more than every random set, (16, 0) alone costs more than every "
            "random set without a candidate, and it cuts the candidates' prefix score to under a quarter"
            in text)


def test_the_section_claims_only_what_a_knockout_shows():
    text = said(cell("r08-knock-read"))
    assert "K-composition" in text and "not *which* path (keys or queries)" in text
    assert "Zero-ablation" in said(cell("r08-s6-knock")) and "before $W_O$" in cell("r08-s6-knock")
    assert json.loads(LESSON.read_text(encoding="utf-8"))["cells"][-1]["id"] == "nav-bottom"
