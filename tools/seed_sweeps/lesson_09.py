"""Lesson 09's claims about a draw: the repeated random tokens (SEQUENCE_SEED), the random head sets of the
control (HEAD_SET_SEED) and the explorer's 100 draws of the next token (SAMPLE_SEED). A held-out seed sets
all three. Every number comes from the package, computed as the lesson's cells compute it (the candidates
found again on each draw, as the lesson's first cells find them; (16, 0) knocked out by name, beside the
draw's strongest other previous-token head, as its knockout cell does)."""

from __future__ import annotations

import numpy as np

from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm
from attention_lab.exercises_09 import KNOCKOUT_09_2, KNOCKOUTS_09_1

SEED_NAMES = ("SEQUENCE_SEED", "HEAD_SET_SEED", "SAMPLE_SEED")
SHOWN = tuple(range(8))
EARLY = (1, 5)
PREV = (16, 0)                             # the previous-token head the lesson's words name
CONTROL_PERIOD, CONTROL_SETS = 20, 50      # the lesson's random control: 50 sets as large as the candidates'
                                           # set, 20 tokens twice

CLAIMS = {
    "prev": "the strongest previous-token head is (16, 0)",
    "seven": "the draw has 7 candidate induction heads (prefix score above 0.5)",
    "repeat": "the second-copy loss is under a quarter of the first copy's",
    "rival_is_11_1": "the strongest previous-token head other than (16, 0) is (11, 1)",
    "rival_cheap": "that head zero-ablated costs less than a quarter of (16, 0)'s extra second-copy loss, "
                   "and leaves the candidates over 0.8 of their prefix score",
    "cands_high": "the candidates, zero-ablated, cost more than (16, 0) alone",
    "prev_quarter": "(16, 0) zero-ablated cuts the candidates' prefix score to under a quarter",
    "patterns_stay": "the candidates knocked out keep over 0.8 of their prefix score",
    "latest_falls": "the candidates knocked out, the one in the highest layer keeps under 0.8 of its own "
                    "prefix score",
    "first_copy": "zero-ablating the candidates or (16, 0) moves the first-copy loss by less than 0.3 nats",
    "first_copy_mean_falls": "mean-ablating the candidates lowers the first-copy loss",
    "early_general": "zero-ablating (1, 5) raises the first-copy loss by more than 0.3 nats",
    "mean_agrees": "mean-ablation costs at least 3/4 of zero-ablation's extra second-copy loss for the "
                   "candidates and for (16, 0)",
    "mean_halves_early": "mean-ablating (1, 5) costs less than half of zero-ablation's extra second-copy "
                         "loss",
    "early_below_prev": "(1, 5) zero-ablated costs less than (16, 0) alone",
    "control_cands": "the candidates cost more than at least 95 % of 50 random sets of as many heads (20 "
                     "tokens twice)",
    "control_prev": "(16, 0) alone costs more than at least 90 % of the 50 random sets",
    "control_top_early": "the random set that costs most holds an early head (layer 0-2), a candidate or "
                         "the previous-token head",
    "ex_09_1": "09.1: B costs more than A, A more than C, and C is within 0.1 nats of no knockout",
    "ex_09_2": "09.2: layer 16 without (16, 0) costs less than half of (16, 0) alone",
    "draws_paris": "100 draws at tau = 1: ' Paris' comes 69 to 85 times (its probability 0.773, give or "
                   "take 2 standard deviations)",
    "draws_off": "100 draws at tau = 2: 80 to 96 land outside the ten bars",
}


def numbers(seed: int) -> dict:
    """The lesson's numbers with every seed variable set to `seed`."""
    model = rm.load_model()
    R = rm.repeated_random_tokens(model, period=40, seed=seed)
    scores = rm.head_scores(np.stack(rm.forward(model, R, keep_weights=True)[1]), period=40)
    candidates = [(int(i), int(j)) for i, j in np.argwhere(scores["induction (prefix matching)"] > 0.5)]
    prev = tuple(int(x) for x in np.unravel_index(scores["previous token"].argmax(), (30, 9)))
    others = scores["previous token"].copy()
    others[PREV] = -np.inf
    rival = tuple(int(x) for x in np.unravel_index(others.argmax(), others.shape))
    watch = candidates or [tuple(int(x) for x in np.unravel_index(
        scores["induction (prefix matching)"].argmax(), (30, 9)))]
    sets = {"none": [], "candidates": candidates, "prev": [PREV], "rival": [rival], "early": [EARLY],
            **{f"09.1 {k}": v for k, v in KNOCKOUTS_09_1.items()}, "09.2": KNOCKOUT_09_2}
    rows = hw.knockout_rows(model, R, sets, 40, watch)
    short = rm.repeated_random_tokens(model, period=CONTROL_PERIOD, seed=seed)
    drawn, control = hw.random_control(model, short, len(candidates or watch), CONTROL_SETS, CONTROL_PERIOD,
                                       seed=seed)
    chosen = hw.knockout_rows(model, short, {"candidates": candidates or watch, "prev": [PREV]},
                              CONTROL_PERIOD, watch, ("zero",))
    france = hw.text_run(model, "The capital of France is")[2]
    bars = np.argsort(-france, kind="stable")[:10]
    paris = int(hw.draw_counts(hw.next_token_probs(france, 1.0), bars, 100, seed)[0][0])
    off = 100 - int(hw.draw_counts(hw.next_token_probs(france, 2.0), bars, 100, seed)[0].sum())
    return {"rows": rows, "candidates": candidates, "prev": prev, "rival": rival, "drawn": drawn,
            "control": control,
            "chosen": chosen, "paris": paris, "off": off}


def measure(seed: int) -> dict[str, bool]:
    """Whether each claim holds with every seed variable set to `seed`."""
    return verdicts(numbers(seed))


def verdicts(n: dict) -> dict[str, bool]:
    """Each claim's verdict on one seed's numbers."""
    rows, cands, prev = n["rows"], n["candidates"], n["prev"]

    def get(name, what, ablation="zero"):
        return rows[name][f"{what}, {ablation}"]

    base2, base1 = get("none", "second copy"), get("none", "first copy")
    extra = {(k, a): get(k, "second copy", a) - base2 for k in ("candidates", "prev", "early")
             for a in ("zero", "mean")}
    top = n["drawn"][int(np.argmax(n["control"]))]
    special = set(cands) | {prev, PREV}
    return {
        "prev": prev == (16, 0),
        "seven": len(cands) == 7,
        "repeat": base2 < base1 / 4,
        "rival_is_11_1": n["rival"] == (11, 1),
        "rival_cheap": (get("rival", "second copy") - base2 < (get("prev", "second copy") - base2) / 4
                        and get("rival", "prefix score") > 0.8 * get("none", "prefix score")),
        "cands_high": get("candidates", "second copy") > get("prev", "second copy"),
        "prev_quarter": get("prev", "prefix score") < get("none", "prefix score") / 4,
        "patterns_stay": get("candidates", "prefix score") > 0.8 * get("none", "prefix score"),
        "latest_falls": latest_falls(rows, cands),
        "first_copy": all(abs(get(k, "first copy") - base1) < 0.3 for k in ("candidates", "prev")),
        "first_copy_mean_falls": get("candidates", "first copy", "mean") < base1,
        "early_general": get("early", "first copy") - base1 > 0.3,
        "mean_agrees": all(extra[k, "mean"] >= 0.75 * extra[k, "zero"] for k in ("candidates", "prev")),
        "mean_halves_early": extra["early", "mean"] < 0.5 * extra["early", "zero"],
        "early_below_prev": get("early", "second copy") < get("prev", "second copy"),
        "control_cands": hw.percentile_of(n["chosen"]["candidates"]["second copy, zero"], n["control"]) >= 95,
        "control_prev": hw.percentile_of(n["chosen"]["prev"]["second copy, zero"], n["control"]) >= 90,
        "control_top_early": any(layer <= 2 or (layer, head) in special for layer, head in top),
        "ex_09_1": (get("09.1 B", "second copy") > get("09.1 A", "second copy") > get("09.1 C", "second copy")
                    and abs(get("09.1 C", "second copy") - base2) < 0.1),
        "ex_09_2": get("09.2", "second copy") < get("prev", "second copy") / 2,
        "draws_paris": 69 <= n["paris"] <= 85,
        "draws_off": 80 <= n["off"] <= 96,
    }



def latest_falls(rows: dict, cands: list) -> bool:
    """The candidate in the highest layer (the last of them, if several share it) keeps under 0.8 of its own
    prefix score when the candidates are zeroed together."""
    if not cands:
        return False
    last = max(cands)
    clean = rows["none"]["prefix score by head, zero"][last]
    return rows["candidates"]["prefix score by head, zero"][last] < 0.8 * clean
