"""Lesson 07 run as a student runs it with another training seed (review round 5, item 2; issue 44): the
lesson executed in a fresh kernel with TRAINING_SEED set (tests/lesson_helpers.run_lesson), as far as its
seed-dependent cells go. No cell may fail, and the runs the lesson points to show what it says they show,
in the lesson's own printed lines.

- Seed 18 (found by the round-5 sweep of seeds 16-31, since published) runs every training cell: its
  induction head is built by Q-composition, so the claims of seed 0's story print NO, and section 6
  prints the duplicate-token weight the text quotes.
- Seed 28 (from that sweep too): its attention finds a 9 but never an 8, and the model otherwise says 8,
  measured here from its weights.
- Seed 37 (held out, seeds 32-47): the further run section 8 names, whose lookup goes through layer 2's
  queries.
"""

import re

import numpy as np
from lesson_helpers import prose, run_lesson

import attention_lab as al


def printed(nb) -> dict[str, str]:
    """Each code cell's printed text, by cell id (a cell's output may come in several streams)."""
    return {c.id: "".join(o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream")
            for c in nb.cells if c.cell_type == "code"}


def number(pattern: str, text: str) -> float:
    return float(re.search(pattern, text)[1])


def test_07_training_seed_18_runs_every_seeded_cell_and_shows_q_composition():
    out = printed(run_lesson("07", until="l07-s8-fixed-code", TRAINING_SEED=18))
    verdicts = re.findall(r"\? this run: (yes|NO) \(seed 0, the text's run: yes;", "".join(out.values()))
    assert len(verdicts) >= 20 and "NO" in verdicts and "yes" in verdicts
    assert "layer 1 a previous-token head, layer 2 an induction head? this run: NO" in out["l07-s6-code"]
    assert "the queries' and values' not? this run: NO" in out["l07-s8-code"]
    # review round 20, item 1: its circuit through layer 1 is not diagonal either, and the check says NO
    assert "through layer 1: every row, and layer 1 a previous-token head (section 6: score above 0.4)? " \
           "this run: NO" in out["l07-s8-weights-code"]
    # review round 7, item 5: seed 18 copies first; whether its layer 1 still copies at step 1200 depends
    # on the numerical path (its copying score wanders between 0.08 and 0.38 over the printed rows from
    # step 600 on; the review's unpinned run printed 0.17). The two halves are printed apart, each verdict
    # agreeing with its number
    table = out["l07-s7-scores-code"]
    assert "copying first (both copying scores above one half before a pattern shows)? this run: yes" in table
    at_1200 = number(r"\n1200 +(\d\.\d\d)", table)                         # layer 1's copying, last row
    verdict = "yes" if at_1200 < 0.1 else "NO"
    assert f"layer 1 no longer copies at step 1200 (its copying score below 0.1)? this run: {verdict}" \
        in table
    assert "copying first; layer 1" not in table
    # the text: "layer 1's previous-token score is near 0 and most of its weight goes to the earlier copy
    # ..., cutting the queries' path loses most of the gain, and cutting the keys' path much less"
    assert number(r"layer 1, head 0 +(\d\.\d\d)", out["l07-s6-code"]) < 0.05
    assert number(r"weight on the earlier copy of the same token (\d\.\d\d)", out["l07-s6-probe-code"]) > 0.8
    intact, queries, keys = (number(rf"{name} +loss on the second copy (\d\.\d\d)", out["l07-s8-code"])
                             for name in ("nothing removed", "queries read X0 only", "keys read X0 only"))
    first = number(r"first copy (\d\.\d\d)", out["l07-s5-code"])
    assert queries - intact > 0.5 * (first - intact) and keys - intact < 0.5 * (queries - intact)


def test_07_training_seed_28_finds_a_9_but_never_an_8_and_otherwise_says_8():
    """The run section 1 points to, measured here without a kernel (seed 18's run above already executes
    every seeded cell): with seed 28 no place of a sequence whose largest digit is 8 looks hardest at an 8,
    while nearly every place of a sequence holding a 9 looks at a 9; the key digit 8 scores lowest.
    Review round 7, item 9: the pointer now says what the table of section 1 shows with seed 28. Where
    there is no 9 the model says 8: right where the largest digit is 8, without looking at one; wrong
    where it is 7 or 6, although it looks at a copy of it (forward pass written here, by a loop)."""
    cfg = al.ModelConfig(task="largest")
    held_rng = np.random.default_rng(np.random.SeedSequence(6).spawn(1)[0])   # the lesson's held-out data
    ids, largest = al.task_batch(held_rng, 500, cfg)
    p = al.train(cfg, steps=400, batch=32, seed=28).params
    scores = np.einsum("ad,bd->ab", p["E"] @ p["W_q"], p["E"] @ p["W_k"])    # (10, 10) query, key digit
    assert scores.mean(axis=0).argmin() == 8
    looked, said = [], []
    for seq, big in zip(ids, largest[:, 0]):                                  # each sequence, by a loop
        X = p["E"][seq] + p["P"]                                              # (8, 32)
        S = (X @ p["W_q"]) @ (X @ p["W_k"]).T / np.sqrt(32)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        A /= A.sum(axis=1, keepdims=True)                                     # no mask: the model of 06
        logits = (X + A @ X @ p["W_v"] @ p["W_O"]) @ p["W_u"]                 # (8, 10)
        looked.append((big, seq[S.argmax(axis=1)]))
        said.append((big, logits.argmax(axis=1)))

    def share(pairs, digit, of):                                              # over the places of the
        return np.mean([np.mean(got == of) for big, got in pairs if big == digit])   # sequences with it
    assert share(looked, 9, 9) > 0.95 and share(looked, 8, 8) == 0.0
    assert share(said, 9, 9) > 0.95 and share(said, 8, 8) > 0.95              # right on 9s and on 8s
    for digit in (7, 6):
        assert share(said, digit, 8) > 0.9 and share(said, digit, digit) < 0.1   # says 8: wrong
        assert share(looked, digit, digit) > 0.95                              # though it looks at it
    said_l07 = " ".join(prose("07", "l07-s1").split())
    assert ("seed 28, whose attention finds a 9 but never an 8 and which otherwise says 8: right where the "
            "largest digit is an 8 without looking at one, wrong on 7s and 6s although it looks at them"
            in said_l07)


def test_07_training_seed_37_routes_the_lookup_through_the_queries():
    """Section 8: 'the other one, seed 37, routes the lookup through layer 2's queries instead': cutting the
    queries' path loses most of the gain, cutting the keys' path much less (measured on the lesson's
    held-out sequences, a stream no training seed draws)."""
    cfg = al.InductionConfig()
    held_rng = np.random.default_rng(np.random.SeedSequence(100).spawn(1)[0])   # the lesson's held-out data
    held, first, second = al.repeated_batch(held_rng, 500, cfg)
    p = al.train_induction(cfg, steps=1200, batch=32, lr=0.01, seed=37).params
    L = al.induction_loss(p, held, cfg)
    intact, gain = L[second].mean(), L[first].mean() - L[second].mean()
    cut = {part: al.induction_loss(p, held, cfg, **{f"{part}_from_tokens": True})[second].mean() - intact
           for part in ("queries", "keys")}
    assert gain > 2 and cut["queries"] > 0.5 * gain and cut["keys"] < 0.5 * cut["queries"]
    # '... though its layer 1 is not the duplicate-token head that seed 18 grows': from a token of the second
    # copy, layer 1's weight on the same token in the first copy (seed 18's lesson run prints over 0.8)
    A1 = al.induction_attention(p, held, cfg)[0, :, 0]                        # (B, n, n): layer 1
    a, b = first.argmax(axis=1), second.argmax(axis=1)                        # where each copy starts
    on_copy = [A1[r, t, t - (b[r] - a[r])] for r in range(len(held)) for t in range(b[r], b[r] + cfg.segment)]
    assert np.mean(on_copy) < 0.2
    # review round 20, item 1: '... yet its circuit is diagonal in all rows or all but one (depending on the
    # numerical path)', while its layer 1 is no previous-token head (section 6's score, below 0.4), so
    # section 8's check, which asks for both, prints NO. The circuit token by token (the scale, 1/√32,
    # moves no largest entry); the score is section 6's (al.head_scores, its fixed sequences)
    E = p["E"]
    composed = np.array([[(E[a] @ p["W_q2"]) @ (E[b] @ p["W_v1"] @ p["W_O1"] @ p["W_k2"]) for b in range(24)]
                         for a in range(24)])
    assert (composed.argmax(axis=1) == np.arange(24)).sum() >= 23
    assert al.head_scores(p, cfg, seed=11)["previous-token"][0, 0] < 0.4
