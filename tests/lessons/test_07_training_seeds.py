"""Lesson 07's claims about its training runs, on training seeds 0-7 (review of lesson 07, issue 29).

Every sentence of the lesson about a training run must hold for seeds 0-7 as worded (the lesson tells
seed 0's story, and quotes for each claim how often it held on further seeds 32-47: tools/seed_sweep.py 07,
docs/held-out/07.md).
Each seed is trained once, with the lesson's own functions and the lesson's data, and every claim is
checked on that run (the runs are cached for the module: about 15 s per seed). The expectations are the
lesson's words, written here; the measurements are redone here where the lesson computes them in a cell.

Its bounds were fitted on training seeds 0-15. CI checks seeds 0-7; the others are checked on request,
with the seeds named in the environment variable LESSON_07_SEEDS (a list of seeds and ranges):

    LESSON_07_SEEDS=8-15 python -m pytest tests/lessons/test_07_training_seeds.py

Also here, as they need the lesson's run or another seed's: the head scores' halves are drawn without
repeated tokens, the explorer's numbers and the guide's answer are the run's, and the review's round 3
claims about training seeds 16 and 18 and the content task. Lesson 07's claims that need no training run
are in test_07_attention_learns_to_look_things_up.py; the lesson's text is read by lesson07_cells.py.
"""

import functools
import os
import re

import numpy as np
import pytest
from lesson07_cells import guide_lesson_07, screen, words

import attention_lab as al

LN24 = np.log(24)
CFG = al.InductionConfig()
STEPS = 1200                          # the lesson's training runs (section 4, section 8)


def seeds_from(text: str) -> list[int]:
    """'0-7' -> 0, 1, ..., 7; '2,9-11' -> 2, 9, 10, 11."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


SEEDS = seeds_from(os.environ.get("LESSON_07_SEEDS", "0-7"))


def smoothed(curve):
    """The mean over 20 steps; entry k belongs to step k + 10 (as the lesson's plot)."""
    return np.convolve(curve, np.ones(20) / 20, mode="valid")


def stream(n):
    """The lesson's fixed data stream N: a child of SeedSequence(N), which no training seed draws."""
    return np.random.default_rng(np.random.SeedSequence(n).spawn(1)[0])


@functools.cache
def data():
    """The lesson's held-out sequences, probe and random tokens (section 2, 6)."""
    held, first, second = al.repeated_batch(stream(100), 500, CFG)
    seen = np.zeros(first.shape, dtype=bool)              # place i: token i + 1 already among 0..i?
    for r in range(len(held)):
        for i in range(CFG.n - 1):
            seen[r, i] = held[r, i + 1] in set(held[r, : i + 1].tolist())
    probe = al.repeated_batch(stream(984), 1, CFG)[0][0]
    rand = stream(12).integers(0, 24, size=(200, 16))
    return held, first, second, seen, probe, rand


@functools.cache
def probe_copies():
    """Where the probe's two copies start, from the masks the lesson's draw comes with (the places whose
    next token is a token of the first copy, of the second copy, from its second token on)."""
    _, first, second = al.repeated_batch(stream(984), 1, CFG)
    return int(np.flatnonzero(first[0])[0]), int(np.flatnonzero(second[0])[0]), np.flatnonzero(second[0])


@functools.cache
def content(seed):
    """Section 1, trained with `seed`."""
    cfg = al.ModelConfig(task="largest")
    held_ids, held_max = al.task_batch(stream(6), 500, cfg)
    run = al.train(cfg, steps=400, batch=32, seed=seed)
    blind = al.ModelConfig(task="largest", attention=False)
    train_ids, train_max = al.task_batch(stream(7), 5000, cfg)
    E, P, W = run.params["E"], run.params["P"], run.params
    digit = (E @ W["W_q"]) @ (E @ W["W_k"]).T / np.sqrt(32)
    _, A = al.predict(run.params, held_ids, cfg)
    looked = np.take_along_axis(held_ids, A[:, 0].argmax(axis=-1), axis=1)
    # the four parts of a score on the held-out sequences, each (500, 8, 8), written with einsum from the
    # vectors of each sequence (the lesson indexes its 10 x 10, 10 x 8, 8 x 10, 8 x 8 tables instead)
    dq, dk = E[held_ids] @ W["W_q"], E[held_ids] @ W["W_k"]              # (500, 8, 32) each
    pq, pk = P @ W["W_q"], P @ W["W_k"]                                  # (8, 32) each
    parts = {"digit × digit": np.einsum("bid,bjd->bij", dq, dk),
             "digit × place": np.einsum("bid,jd->bij", dq, pk),
             "place × digit": np.einsum("id,bjd->bij", pq, dk),
             "place × place": np.einsum("id,jd->ij", pq, pk)[None].repeat(len(held_ids), axis=0)}
    parts = {k: v / np.sqrt(32) for k, v in parts.items()}
    return {"params": run.params, "held": (held_ids, held_max), "parts": parts,
            "spread": {k: float(np.sqrt(np.var(v, axis=-1).mean())) for k, v in parts.items()},   # along rows
            "acc": al.accuracy(run.params, held_ids, held_max, cfg),
            "blind": al.accuracy(al.train(blind, steps=400, batch=32, seed=seed).params, held_ids, held_max,
                                 blind),
            "bound": al.counting_baseline(train_ids, train_max, held_ids, held_max),
            "digit": digit, "position": (P @ W["W_q"]) @ (P @ W["W_k"]).T / np.sqrt(32),
            "looked": (looked == held_max).mean()}


# the lesson's three runs with a training seed: section 4's (its weights kept every 20 steps), and section 8's
# with one layer and with the fixed offset
KINDS = {"two layers": (CFG, range(0, STEPS + 1, 20)), "one layer": (al.InductionConfig(n_layers=1), ()),
         "fixed offset": (al.InductionConfig(fixed_offset=True), ())}


@functools.cache
def side_by_side(kind: str) -> dict:
    """One kind of run for every seed of SEEDS but the lesson's own, trained together
    (al.train_induction_seeds: each seed's run is the one-seed run to the last bit, tests/test_induction.py)
    and shared with the test run's other processes under the one-seed run's key (run_memo). Seed 0 is
    trained alone: the lesson's kernels (nbval's, the browser's) ask for it, and would otherwise wait, their
    core idle, for the whole batch."""
    cfg, snapshots = KINDS[kind]
    others = [seed for seed in SEEDS if seed != 0]
    return dict(zip(others, al.train_induction_seeds(cfg, others, steps=STEPS, batch=32, lr=0.01,
                                                     snapshots=snapshots))) if others else {}


def trained(kind: str, seed: int) -> al.InductionRun:
    """The run of `kind` with `seed`: from the seeds trained together, or alone for seed 0 or another seed."""
    if seed in SEEDS and seed != 0:
        return side_by_side(kind)[seed]
    cfg, snapshots = KINDS[kind]
    return al.train_induction(cfg, steps=STEPS, batch=32, lr=0.01, seed=seed, snapshots=snapshots)


def two_layer(seed):
    """Section 4's run, trained with `seed`, its weights kept every 20 steps: the run lesson_07_run trains
    (tools/explorer_registry.py, for the explorer tests), which reads it back."""
    assert STEPS == 1200 and CFG == al.InductionConfig()          # the run lesson_07_run trains
    return trained("two layers", seed)


@functools.cache
def induction(seed):
    """Sections 4-8, trained with `seed`: everything the lesson measures on its run."""
    held, _, second, _, probe, rand = data()
    run = two_layer(seed)
    m = {"run": run, "phase": al.phase_change(run), "smooth": smoothed(run.second_losses)}
    L = al.induction_loss(run.params, held, CFG)
    m["loss"] = L
    m["at"] = table(run)                                                           # section 7's table
    # section 6's scores are the table's last row: the snapshot kept at step 1200 is the trained weights
    assert run.snapshot_steps[-1] == STEPS
    assert all(np.array_equal(w, run.snapshot_params[-1][k]) for k, w in run.params.items())
    m["scores"] = m["at"][STEPS]
    m["probe"] = al.induction_attention(run.params, probe, CFG)[:, 0, 0]
    A1 = al.induction_attention(run.params, rand, CFG)[0, :, 0]
    m["back"] = np.array([A1[:, i, i - 1].mean() for i in range(1, 16)])
    m["cut"] = {name: al.induction_loss(run.params, held, CFG, **kw)[second].mean() for name, kw in {
        "layer 1 knocked out": {"knock": [(1, 0)]}, "layer 2 knocked out": {"knock": [(2, 0)]},
        "keys": {"keys_from_tokens": True}, "queries": {"queries_from_tokens": True},
        "values": {"values_from_tokens": True}}.items()}
    one_cfg = al.InductionConfig(n_layers=1)
    run_one = trained("one layer", seed)
    m["one"] = al.induction_loss(run_one.params, held, one_cfg)
    E, W = run.params["E"], run.params
    query = E @ W["W_q2"]
    m["diagonal"] = [(M.argmax(axis=1) == np.arange(24)).mean()
                     for M in (query @ (E @ W["W_v1"] @ W["W_O1"] @ W["W_k2"]).T, query @ (E @ W["W_k2"]).T)]
    fixed = al.InductionConfig(fixed_offset=True)
    run_fixed = trained("fixed offset", seed)
    ids_f, _, second_f = al.repeated_batch(stream(100), 500, fixed)
    m["fixed"] = (al.induction_loss(run_fixed.params, ids_f, fixed)[second_f].mean(),
                  al.induction_loss(run_fixed.params, held, fixed)[second].mean(),
                  al.head_scores(run_fixed.params, fixed, seed=11)["prefix-matching"].max())
    m["slider"] = slider(run, probe)
    m["reversed"] = reversed_copy(run.params)
    return m


def table(run):
    """Section 7's table: the scores of section 6 at every kept step (every 20)."""
    return {t: {k: v[:, 0] for k, v in al.head_scores(w, CFG, seed=11).items()}
            for t, w in zip(run.snapshot_steps, run.snapshot_params)}


def slider(run, probe):
    """The explorer's two numbers at every kept step: layer 1's weight on the previous token at places
    1-10, layer 2's on the token after the earlier copy of the query's token, at the places of the second
    copy whose next token is in the copy, measured here on the probe from the kept weights. (The explorer
    itself is built for one seed below and driven through its widget in
    tests/lessons/test_07_attention_learns_to_look_things_up.py: building one per seed would draw 8
    figures for nothing.)
    Review round 7, item 2: the copy's last place is left out. Its next token is not in the copy, so no
    lookup can predict it, and before the phase change layer 2 looks from every place of the second copy
    at one fixed place, which is the key after the earlier copy for the last place only: with it, seed 0's
    number at step 120 was 0.46, without it 0.32 (which another fixed place lifts: review round 9, A1, in
    test_layer_2s_number_before_the_phase_change_is_fixed_places_not_a_lookup). Written here from the
    probe's draw: a place i of the second copy whose next token is in the copy (the draw's mask), and the
    key gap - 1 places back, after the earlier copy of token i."""
    a, b, q = probe_copies()
    assert np.array_equal(probe[a:a + CFG.segment], probe[b:b + CFG.segment])      # the draw's probe
    k = q - (b - a) + 1                                       # the earlier copy of token q is b - a back
    keys = np.arange(1, 11)
    numbers = {}
    for step, w in zip(run.snapshot_steps, run.snapshot_params):
        A1, A2 = al.induction_attention(w, probe, CFG)[:, 0, 0]
        numbers[step] = (A1[keys, keys - 1].mean(), A2[q, k].mean())
    return numbers


def reversed_copy(params):
    """Exercise 07.1 done as the lesson asks: the held-out second copies reversed. The loss there, and
    the mean probability given to the token that followed the earlier copy of the current token."""
    held, first, second, *_ = data()
    rev = held.copy()
    for r in range(len(held)):
        a, b = np.flatnonzero(first[r])[0], np.flatnonzero(second[r])[0]
        rev[r, b:b + CFG.segment] = held[r, a:a + CFG.segment][::-1]
    loss = al.induction_loss(params, rev, CFG)
    # the probability of a token at place i is exp(-loss) with that token put at place i + 1 (causal)
    wrong, places = [], []
    for r in range(len(rev)):
        for i in np.flatnonzero(second[r]):
            j = int(np.flatnonzero(rev[r, :i] == rev[r, i])[0])        # the earlier copy of token i
            seq = rev[r].copy()
            seq[i + 1] = rev[r, j + 1]                                   # what followed it back then
            wrong.append(seq)
            places.append(i)
    L = al.induction_loss(params, np.array(wrong), CFG)
    bet = np.exp(-L[np.arange(len(places)), places])
    return loss[second].mean(), float(bet.mean())


# ---------------------------------------------------------------- section 1: the content task
def check_content_task(seed):
    c = content(seed)
    assert c["acc"] > 0.97 and c["blind"] < c["bound"] + 0.02                     # cell 4's assert
    # "the two parts of the score that read the key's digit spread more than twice as wide as the two that
    # read its place, and query place × key digit alone picks a copy of the largest digit on over 95 %"
    sp = c["spread"]
    assert min(sp["digit × digit"], sp["place × digit"]) > 2 * max(sp["digit × place"], sp["place × place"])
    assert picks(c, "place × digit") > 0.95
    by_key = c["digit"].mean(axis=0)
    assert by_key.argmax() == 9                                                # "largest for a 9"
    assert (np.diff(by_key[5:]) > 0).all()                   # "rises step by step from digit 5 to digit 9"
    assert by_key[:5].max() < by_key[6]                      # "the small digits 0 to 4 all score below 6"
    assert (c["digit"].argmax(axis=1) == 9).sum() >= 6                         # "in most rows"
    assert c["looked"] > 0.97                                  # cell 6's assert; "above 97 % with each seed"


def picks(c, part):
    """How often one part of the score alone picks a copy of the largest digit (its top key), by loops."""
    (held_ids, held_max), v = c["held"], c["parts"][part]
    return float(np.mean([held_ids[r, v[r, i].argmax()] == held_max[r, i]
                          for r in range(len(held_ids)) for i in range(8)]))


# ---------------------------------------------------------------- section 4: the slow start, then the drop
def check_phase_change(seed):
    m = induction(seed)
    start, end = m["phase"]
    s = m["smooth"]
    assert s[:100].min() > 0.85 * LN24 and s[-100:].mean() < 0.5 * LN24          # cell 12's asserts
    assert s[190] < s[0] - 0.1                                                  # cell 12's assert
    # cell 13: "before the phase change the loss on the second copy already falls" (50 steps before it)
    assert s[start - 50 - 10] < s[0] - 0.1
    # the bounds the lesson checks on each run ("the fall within 400 steps, over by step 900"; fitted on
    # seeds 0-15, held out on 16-31); the guide: "falls slowly for a few hundred steps, then drops"
    assert 150 <= start <= 500 and 100 <= end - start <= 400 and end <= STEPS - 300


# ---------------------------------------------------------------- section 5: in-context learning
def check_in_context_learning_and_the_bet_on_seen_tokens(seed):
    _, first, second, seen, *_ = data()
    L = induction(seed)["loss"]
    assert L[second].mean() < 0.5 * L[first].mean() and L[first].mean() > LN24
    # "that bet pays only where the next token appeared earlier ... and costs everywhere else"
    assert L[first & seen].mean() < LN24 - 0.05 and L[first & ~seen].mean() > LN24 + 0.1


# ---------------------------------------------------------------- section 6: two heads with two jobs
def check_head_scores(seed):
    s = induction(seed)["scores"]
    prev, prefix, copy = s["previous-token"], s["prefix-matching"], s["copying"]
    assert prev[0] > 0.4 and prev[1] < 0.3 and prefix[1] > 0.6 and prefix[0] < 0.3
    assert copy[1] == 1.0 and copy[0] < 0.5


def check_layer_1_looks_back_only_where_a_first_copy_can_lie(seed):
    m = induction(seed)
    assert (m["probe"][1, 9:13].argmax(axis=1) == np.arange(2, 6)).all()
    assert m["back"][:9].mean() > 0.8 and m["back"][10:].mean() < 0.3


def test_place_10_weight_differs_a_lot_from_run_to_run():
    """'Place 10 is a border case: ... the weight there differs a lot from run to run' (the seeds run)."""
    at_10 = [induction(seed)["back"][9] for seed in SEEDS]
    assert len(SEEDS) < 2 or max(at_10) - min(at_10) > 0.3, at_10


def test_place_10_is_reached_by_one_pair_of_starts_in_28():
    """Counted from repeated_batch's own draws: the first copy starts at place 6 in 1/28 of them."""
    _, first, second = al.repeated_batch(np.random.default_rng(0), 20000, CFG)
    starts = {(int(np.flatnonzero(f)[0]), int(np.flatnonzero(s)[0])) for f, s in zip(first, second)}
    assert len(starts) == 28 and sum(a + CFG.segment - 1 >= 10 for a, b in starts) == 1


# ---------------------------------------------------------------- section 7: the slider and the table
def check_slider_the_patterns_form_together(seed):
    """'Before the phase change (the steps printed in section 4) both numbers stay below one half. During
    it they rise together: each passes one half within 160 steps of the other. After it both stay
    above 0.6.' Section 4 prints steps low to high: before it is a kept step below low, after it one from
    high on. (150 was fitted on seeds 0-31 with the probe of review round 6; the 100 fitted with the old
    probe failed on seeds 2 and 3 with it, by 140 and 120 steps. Since review round 7, item 2, layer 2's
    number leaves out the copy's last place; then seed 2 passes one half 160 steps apart (700 and 540),
    and the bound was refitted on seeds 0-31 to 160, which fails on the same seeds as before: 11, 18, 31.)"""
    m = induction(seed)
    start, end = m["phase"]
    low, high = 100 * (start // 100), 100 * -(-end // 100)                 # as section 4 prints them
    seen = m["slider"]
    assert all(v < 0.5 for t, pair in seen.items() if t < low for v in pair)
    assert all(v > 0.6 for t, pair in seen.items() if t >= high for v in pair)
    passes = [min(t for t, pair in seen.items() if pair[h] >= 0.5) for h in (0, 1)]
    assert abs(passes[0] - passes[1]) <= 160 and all(low <= t < high for t in passes)


def check_both_heads_copy_before_either_pattern_forms(seed):
    """'copying comes first: of the steps kept every 20, both copying scores pass one half at an earlier
    one than either pattern score reaches 0.3' (section 7's first printed check)."""
    at = induction(seed)["at"]
    copies = min(t for t, s in at.items() if (s["copying"] > 0.5).all())
    shows = min(t for t, s in at.items() if s["previous-token"][0] >= 0.3 or s["prefix-matching"][1] >= 0.3)
    assert copies < shows, (copies, shows)


def check_layer_1_stops_copying(seed):
    """'Then layer 1 stops copying' (section 7's second printed check, apart from the first since review
    round 7, item 5): its copying score below 0.1 at step 1200."""
    assert induction(seed)["at"][STEPS]["copying"][0] < 0.1


# ---------------------------------------------------------------- section 8: cuts, circuit, fixed distance
def check_only_the_keys_path_matters(seed):
    _, first, second, seen, *_ = data()
    m = induction(seed)
    intact, first_copy = m["loss"][second].mean(), m["loss"][first].mean()
    gain = first_copy - intact
    for name in ("layer 1 knocked out", "layer 2 knocked out", "keys"):          # "loses most of the gain"
        assert m["cut"][name] - intact > 0.5 * gain, name
    assert m["one"][second].mean() - intact > 0.5 * gain and m["one"][second].mean() < LN24
    for name in ("queries", "values"):                                     # "changes almost nothing"
        assert abs(m["cut"][name] - intact) < 0.15, name
    # "by betting on tokens it has already seen"
    assert m["one"][first & seen].mean() < LN24 < m["one"][first & ~seen].mean()


def check_k_composition_circuit(seed):
    """Review round 20, item 1: the diagonal is a necessary condition only, so the printed check asks for it
    and for layer 1 being a previous-token head (section 6's score above 0.4)."""
    m = induction(seed)
    composed, direct = m["diagonal"]
    assert composed == 1.0 and m["scores"]["previous-token"][0] > 0.4
    assert direct < 1 / 3                                       # "in fewer than a third of them" (rows)


def layer_1_vote(seed):
    """Layer 1's OV circuit E W_v1 W_O1 W_u at step 1200: Elhage et al.'s eigenvalue measure, written here
    as its trace (the sum of the eigenvalues) over the sum of the moduli of the eigenvalues of its
    transpose, and how many tokens' own logit is the lowest in their row (by a loop)."""
    p = induction(seed)["run"].params
    ov = p["E"] @ p["W_v1"] @ p["W_O1"] @ p["W_u"]
    measure = np.trace(ov) / np.abs(np.linalg.eigvals(ov.T)).sum()
    lowest = sum(all(ov[t, t] < ov[t, u] for u in range(24) if u != t) for t in range(24))
    return float(measure), int(lowest)


def check_layer_1_votes_against_the_token_it_reads(seed):
    """Review round 20, item 2: 'It even votes against it' (the printed check: the measure below 0)."""
    assert layer_1_vote(seed)[0] < 0


def check_fixed_distance(seed):
    _, first, second, *_ = data()
    m = induction(seed)
    on_fixed, on_random, prefix = m["fixed"]
    L = m["loss"]
    assert on_fixed < L[second].mean() and on_random > L[first].mean() and prefix < 0.1
    assert on_random > LN24                                          # "worse than a uniform guess"


# ---------------------------------------------------------------- exercise 07.1's hint (b)
def check_07_1_the_reversed_copy_costs_a_little_more(seed):
    """The hint: 'bets about a third of its probability on the token that followed it ... the reversed
    copy's loss comes out above the first copy's ... (0.05 to 0.3 on k of 16 further runs)'."""
    _, first, *_ = data()
    m = induction(seed)
    loss_reversed, bet = m["reversed"]
    assert 0.05 <= loss_reversed - m["loss"][first].mean() <= 0.3
    assert 0.25 <= bet <= 0.42


# ---------------------------------------------------------------- every claim, on every seed
CLAIMS = [
    check_content_task,
    check_phase_change,
    check_in_context_learning_and_the_bet_on_seen_tokens,
    check_head_scores,
    check_layer_1_looks_back_only_where_a_first_copy_can_lie,
    check_slider_the_patterns_form_together,
    check_both_heads_copy_before_either_pattern_forms,
    check_layer_1_stops_copying,
    check_only_the_keys_path_matters,
    check_k_composition_circuit,
    check_layer_1_votes_against_the_token_it_reads,
    check_fixed_distance,
    check_07_1_the_reversed_copy_costs_a_little_more,
]


@pytest.mark.parametrize("seed", SEEDS)
def test_lesson_07_claims_hold_for_training_seed(seed):
    """One test per seed (its runs are trained once, in one process): every claim checked on them."""
    failed = []
    for claim in CLAIMS:
        try:
            claim(seed)
        except AssertionError as exc:
            failed.append(f"{claim.__name__}: {exc}")
    assert not failed, f"seed {seed}:\n" + "\n".join(failed)


# ---------------------------------------------------------------- the head scores' repeated half
def test_prefix_matching_halves_hold_no_repeated_token():
    """Measured here on 3000 halves of 8 distinct tokens (drawn with the test's own generator): the
    lesson's prefix-matching score agrees. With repeats allowed (73 % of random halves of 8 from 24
    hold one) the score of the lesson's run is lower (0.78 on the reviewed commit)."""
    run = induction(0)["run"]
    rng = np.random.default_rng(2024)
    half = np.array([rng.choice(24, size=8, replace=False) for _ in range(3000)])
    A = al.induction_attention(run.params, np.concatenate([half, half], axis=1), CFG)[1, :, 0]
    j = np.arange(8, 16)
    mine = A[:, j, j - 7].mean()
    assert abs(al.head_scores(run.params, CFG, seed=11)["prefix-matching"][1, 0] - mine) < 0.03


# ---------------------------------------------------------------- the explorer's numbers and their baselines
def test_explorer_prints_layer_1_where_it_is_needed_and_the_even_spread():
    run = induction(0)["run"]
    probe = data()[4]
    ex = al.induction_explorer(run, probe, start=0)
    for step, (layer1, layer2) in induction(0)["slider"].items():       # what each slider step prints
        text = ex.describe({"step": step}, ex.compute({"step": step}))
        assert f"{layer1:.2f}   (spread" in text and f"{layer2:.2f}   (spread" in text
    text = ex.summary()
    # by hand: a causal head spread evenly gives place p the weight 1 / (p + 1) on each visible token
    even1 = np.mean([1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7, 1 / 8, 1 / 9, 1 / 10, 1 / 11])
    even2 = np.mean([1 / 9, 1 / 10, 1 / 11, 1 / 12])                     # the probe's queries: places 8-11
    assert "places 1-10" in text and f"(spread evenly: {even1:.2f})" in text
    assert "places 8-11 (whose next token came after that copy too)" in text
    assert f"(spread evenly: {even2:.2f})" in text


def test_explorer_prints_where_layer_2_looks_hardest():
    """The readout's last line: from each of places 8-11, the key layer 2 gives its largest weight (read
    here straight from the attention, row by row), beside the key after the earlier copy (from the draw).
    Each list is joined by no-break spaces: a narrow column wraps it as a whole, never inside it."""
    nbsp = "\N{NO-BREAK SPACE}"
    run = induction(0)["run"]
    probe = data()[4]
    a, b, q = probe_copies()
    ex = al.induction_explorer(run, probe, start=0)
    for step, w in zip(run.snapshot_steps, run.snapshot_params):
        A2 = al.induction_attention(w, probe, CFG)[1, 0, 0]
        mine = [int(np.argmax(A2[i])) for i in q]
        text = ex.describe({"step": step}, ex.compute({"step": step}))
        assert f"look at hardest:{' ' * 27}{nbsp.join(map(str, mine))}   (after the earlier copy: " \
               f"{nbsp.join(str(i - (b - a) + 1) for i in q)})" in text, (step, text)


def A2_at(run, step, probe):
    """Layer 2's attention on the probe with the weights kept at `step`: (16, 16)."""
    w = run.snapshot_params[list(run.snapshot_steps).index(step)]
    return al.induction_attention(w, probe, CFG)[1, 0, 0]


def test_layer_2s_number_before_the_phase_change_is_fixed_places_not_a_lookup():
    """Review round 9, A1: before the phase change layer 2 looks from every place of the copy at one or two
    fixed places; where one is a query's target the number jumps with no lookup. Section 7's words, for
    the lesson's run (seed 0), checked against its weights read here row by row: at step 100 places 8-11
    all look hardest at place 5 (number 0.00); at step 120 places 8 and 11 at place 1, place 8's target
    (0.32, the largest before the phase change); at step 140 0.22. And the cell prints those lines."""
    run, probe = induction(0)["run"], data()[4]
    a, b, q = probe_copies()
    target = q - (b - a) + 1                                          # after the earlier copy: 1 2 3 4
    hardest, number = {}, {}
    for step, w in zip(run.snapshot_steps, run.snapshot_params):
        A2 = al.induction_attention(w, probe, CFG)[1, 0, 0]
        hardest[step] = [int(np.argmax(A2[i])) for i in q]
        number[step] = A2[q, target].mean()
    start, _ = induction(0)["phase"]
    before = {t: v for t, v in number.items() if t < 100 * (start // 100)}
    assert max(before, key=before.get) == 120 and f"{before[120]:.2f}" == "0.32"
    assert hardest[100] == [5, 5, 5, 5] and f"{number[100]:.2f}" == "0.00"
    assert hardest[120] == [1, 5, 5, 1] and target[0] == 1 and f"{number[140]:.2f}" == "0.22"
    text = words()
    assert "On the slider neither comes first" not in text
    assert ("at step 100 places 8–11 all look hardest at place 5, and the number is 0.00; at step 120 places "
            "8 and 11 look hardest at place 1, which is place 8's target, and it jumps to 0.32") in text
    # round 10, items 2-3: the fixation is this run's; step 140's 0.22 is place 11 alone, on its target
    assert hardest[140] == [5, 5, 5, 4] and target[3] == 4
    assert f"{A2_at(run, 140, probe)[q[3], target[3]] / 4:.2f}" == f"{number[140]:.2f}"
    assert ("at step 140 it is 0.22, now from place 11 alone, on its target (place 4). What counts is the "
            "joint rise past one half.") in text
    assert "In this run, before the phase change layer 2 looks" in text
    for step in (100, 120, 140):
        places = " ".join(map(str, hardest[step]))
        line = f"  step {step}: places {places}   (layer 2's number {number[step]:.2f})"
        assert line in screen(), line


# ---------------------------------------------------------------- the guide's lesson-07 numbers
def test_guide_which_head_appears_first():
    """The guide's answer is the slider's: the two numbers pass one half together, at step 320; and the
    table's: in the lesson's run both heads copy by step 100 (both copying scores above one half)."""
    seen = induction(0)["slider"]
    passes = [min(t for t, pair in seen.items() if pair[h] >= 0.5) for h in (0, 1)]
    assert passes == [320, 320] and "both at step 320" in guide_lesson_07()
    assert (induction(0)["at"][100]["copying"] > 0.5).all() and "both copy by step 100" in guide_lesson_07()


# ---------------------------------------------------------------- round 5 (reviews/round5-lesson-07.md)
def test_07_the_four_parts_of_the_content_score_are_shown():
    """Item 3: with X = E + P a score is the sum of four parts, and the cross term query place × key digit,
    which the lesson left out, is the widest in its run; the lesson now prints each part's spread along a
    row and how often it alone picks a copy of the largest digit, as measured here (einsum per sequence,
    loops over rows), and words its claim from them."""
    c = content(0)
    (held_ids, _), p = c["held"], c["params"]
    X = c["params"]["E"][held_ids] + p["P"]                               # (500, 8, 32)
    full = np.einsum("bid,bjd->bij", X @ p["W_q"], X @ p["W_k"]) / np.sqrt(32)
    assert np.allclose(sum(c["parts"].values()), full)                    # the four parts are the score
    for name in c["parts"]:
        assert re.search(rf"{name} +{c['spread'][name]:.2f} +{100 * picks(c, name):.1f} % of places",
                         screen()), name
    sp = c["spread"]
    assert max(sp, key=sp.get) == "place × digit"                         # "the widest part, in this run"
    assert picks(c, "place × digit") > 0.995                              # "on nearly every place"
    assert "alone it picks a copy of the largest digit on nearly every place" in words()
    assert "query place ×" in words() and "key digit $(PW_q)(EW_k)^\\top$" in words()


# ---------------------------------------------------------------- round 3 (reviews-round3/lesson-07.md)
def test_training_seed_18_builds_its_induction_head_by_q_composition():
    """Defect 1: what the lesson (section 8) and the guide say of training seed 18, measured: layer 1 is a
    duplicate-token head, not a previous-token head; its output tells layer 2's query where the earlier
    copy stood, and the query asks for the place after it; cutting the queries' path loses most of the
    gain, cutting the keys' path much less. (The lesson's run, seed 0, is the other way round.)"""
    run = two_layer(18)
    held, first, second, *_ = data()
    L = al.induction_loss(run.params, held, CFG)
    intact, gain = L[second].mean(), L[first].mean() - L[second].mean()
    assert gain > 2                                                       # it does learn the lookup
    cut = {part: al.induction_loss(run.params, held, CFG, **{f"{part}_from_tokens": True})[second].mean()
           for part in ("queries", "keys")}
    assert cut["queries"] - intact > 0.5 * gain                           # "loses most of the gain"
    assert cut["keys"] - intact < 0.5 * (cut["queries"] - intact)         # "and the keys' path much less"
    assert al.head_scores(run.params, CFG, seed=11)["previous-token"][0, 0] < 0.05   # "near 0" (chance 0.16)
    # "at a token of the second copy it looks at the earlier copy of the same token" (measured by loops)
    A1 = al.induction_attention(run.params, held, CFG)[0, :, 0]
    on_copy = [A1[r, i, int(np.flatnonzero(held[r, :i] == held[r, i])[0])]
               for r in range(len(held)) for i in np.flatnonzero(second[r])]
    assert np.mean(on_copy) > 0.8
    # "writes that copy's place into the stream; layer 2's query reads it and asks for the place after it":
    # the positions' path through layer 1 into layer 2's query, against the keys' positions
    P, W = run.params["P"], run.params
    circuit = (P @ W["W_v1"] @ W["W_O1"] @ W["W_q2"]) @ (P @ W["W_k2"]).T
    places = np.arange(10)                                                # where a first copy can lie
    assert (circuit[places].argmax(axis=1) == places + 1).all()


def test_copying_first_is_read_at_every_kept_step():
    """Defect 3: at the table's 100-step resolution training seed 16 has both events on one row (step 200),
    and the old words ('an earlier step of the table') failed; at every kept step (every 20) copying
    comes first on seed 16 too. The lesson reads its ordering there and says so."""
    at = table(two_layer(16))
    hundreds = {t: s for t, s in at.items() if t % 100 == 0}

    def first_steps(steps):
        copies = min(t for t, s in steps.items() if (s["copying"] > 0.5).all())
        shows = min(t for t, s in steps.items()
                    if s["previous-token"][0] >= 0.3 or s["prefix-matching"][1] >= 0.3)
        return copies, shows

    copies, shows = first_steps(hundreds)
    assert copies == shows                                                # the tie of the 100-step table
    copies, shows = first_steps(at)
    assert copies < shows
    assert "of the kept steps (every 20): both copying scores first above one half" in screen()
    assert "of the steps kept every 20, both copying scores pass one half at an earlier one" in words()


def test_digit_scores_rise_only_over_the_large_digits():
    """Defect 4: in the lesson's run the mean score of a key digit does not rise over digits 0-4 (2 is the
    lowest), so 'rises with its digit' was not so; the new words (checked on every seed above) say what
    holds, and the lesson prints the ten means."""
    by_key = content(0)["digit"].mean(axis=0)
    assert not (np.diff(by_key) > 0).all() and by_key.argmin() == 2
    assert "a key's score rises step by step from digit 5 to digit 9" in words()
    assert "rises with its digit" not in words()
    assert "mean score of each key digit 0-9: " + " ".join(f"{v:.2f}" for v in by_key) in screen()



# ---------------------------------------------------------------- round 20 (reviews/round20-lesson-07.md)
def test_07_layer_1_votes_against_the_token_it_reads_as_printed_and_said():
    """Item 2: section 7 prints layer 1's eigenvalue measure and the count of tokens whose own logit is the
    lowest in their row, and the text quotes both, scoped to this run."""
    measure, lowest = layer_1_vote(0)
    assert measure < -0.5 and lowest >= 12
    assert (f"layer 1's OV circuit at step 1200: eigenvalue measure {measure:+.2f}; own logit the lowest in "
            f"its row for {lowest} of 24 tokens") in screen()
    said = words()
    assert f"layer 1 scores {measure:.2f} at step 1200 in this run".replace("-", "−") in said
    assert f"the token's own logit is the **lowest** in its row for {lowest} of 24 tokens" in said


def test_07_the_content_models_share_of_places_is_the_printed_one():
    """Item 3: the text quotes seed 0's share of places that look at a copy of the largest digit, as the
    cell prints it, and the printed check's bound (97 %), not a bound of its own."""
    share = 100 * content(0)["looked"]
    assert f"places whose largest weight is on a copy of the largest digit: {share:.1f} %" in screen()
    assert "in this run nearly every place gives its largest weight to a copy of the largest digit" in words()
    assert share > 99                                                     # "nearly every place"
    assert f"in this run {share:.1f} % of places look at a copy of the largest digit" in words()
    assert "above 97 %? this run: yes" in screen() and "more than 99 %" not in words()


def values_cut_change(seed):
    """How much cutting the values' path changes seed `seed`'s second-copy loss (section 8's cut)."""
    _, _, second, *_ = data()
    m = induction(seed)
    return m["cut"]["values"] - m["loss"][second].mean()


def test_07_the_values_cut_lowers_the_loss_in_this_run_and_moves_it_either_way_on_others():
    """Item 4: 'in this run the values' cut even lowers the loss a little ...; on other runs the change is
    small either way': lower on seed 0 (its printed check says yes), below 0.15 either way on every seed
    (check_only_the_keys_path_matters), and of both signs over seeds 0-7 (it rises on 1, 4 and 7, by at most
    0.054 as the text's rate says)."""
    assert values_cut_change(0) < 0
    assert "the values' cut lowers the loss? this run: yes" in screen()
    assert "in this run the values' cut even lowers the loss a little" in words()
    assert "on other runs the change is small either way" in words()
    changes = [values_cut_change(seed) for seed in SEEDS]
    assert len(SEEDS) < 8 or (min(changes) < 0 < max(changes)), changes
    # review round 24, 24-A: the text gives the rate it rises at, counted on seeds 0-47 (7 of 0-31, among
    # them 1, 4 and 7, where the printed check says NO; 1 of 32-47, the held-out table), and its largest
    # rise, on the stored outputs' numerical path. The suite trains seeds 0-7: of them it rises on 1, 4 and 7
    # only, by at most 0.054 (seed 26's +0.054, docs/held-out/07.md, is the largest of seeds 0-47); review
    # round 25, 25-B: the bound is the text's, to its three decimals; LESSON_07_SEEDS=0-31 checks the 7 of 32.
    said = " ".join(words().split())
    assert ("but higher on 8 of the 48 runs counted with seeds 0–47 (7 of seeds 0–31, among them 1, 4 and "
            "7), by at most 0.054; with those seeds the check above prints NO") in said
    assert "The counts are from one numerical path (tools/one_kernel.py's" in said
    assert "higher with training seeds 1, 4 and 7" not in said
    rises = {seed for seed, change in zip(SEEDS, changes) if change >= 0}
    assert rises & set(range(8)) == {1, 4, 7} & set(SEEDS), dict(zip(SEEDS, changes))
    assert all(changes[SEEDS.index(seed)] > 0 for seed in rises), dict(zip(SEEDS, changes))
    assert round(max(changes), 3) <= 0.054, dict(zip(SEEDS, changes))      # "by at most 0.054"
    if set(range(32)) <= set(SEEDS):
        assert len(rises & set(range(32))) == 7, dict(zip(SEEDS, changes))
