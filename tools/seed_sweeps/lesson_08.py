"""Lesson 08's claims about a draw of 40 random tokens repeated (section 5), checked on one seed each.

The lesson measures seed SEQUENCE_SEED (0) in its first cell of section 5 and eight draws, seeds DRAWS_SEED
(0) to DRAWS_SEED + 7, in the next; its words were fitted on seeds 0 to 7, and name seed 45 (DRAWS_SEED =
44) as a draw whose parked weight moves to tokens 3 to 5, seed 1006 (DRAWS_SEED = 1000, found by review
round 7) as another, and seed 249 (DRAWS_SEED = 242, found by review round 18) as a draw with only 4 sink
heads. The cell after the loss cell runs the draw of SEQUENCE_SEED again with one ordinary token ('The')
before it. Held out: seeds 16 to 31, and 48 to 63 since review round 7 (the rest of 8 to 47, and 1000 to
1007 were published by the reviews that ran them). Each claim below is one sentence of the lesson (or of the
guide's lesson-08 section) about a draw; measure(seed) computes it with the package from two forward passes
of SmolLM2-135M-Instruct (4-bit weights): on that seed's tokens, and on them with 'The' before.
"""

from __future__ import annotations

import numpy as np

SEED_NAMES = ("SEQUENCE_SEED", "DRAWS_SEED")
SHOWN = (*range(8), 45, 249, 1006)
PERIOD = 40
CLAIMS = {
    "previous-16.0": "the strongest previous-token head is (16, 0)",
    "previous-top-two": "(16, 0) and (11, 1) are the two strongest previous-token heads",
    "induction-18.6": "the strongest candidate induction head is (18, 6)",
    "candidates-above-16": "every candidate induction head (score above 0.5) sits above layer 16",
    "a-handful": "1 to 10 previous-token heads and 1 to 10 candidate induction heads score above 0.5",
    "least-0.1.11": "layers 0, 1 and 11 use the first token least (the three lowest layer means)",
    "no-sink-0.1.11": "layers 0, 1 and 11 have no sink head",
    "no-sink-0.1.10.11": "layers 0, 1, 10 and 11 have no sink head",
    "sinks-85-147": "85 to 147 of the 270 heads are sink heads",
    "threes-128-152": "128 to 152 heads are sink heads counting the first three tokens together",
    "parked-on-first": "layers 3 to 9 put 0.70 to 0.75 on the first token and 0.01 or less on each of the "
                       "next two (seeds 0 to 7 but 2)",
    "tokens-3-5-idle": "layers 3 to 9 put 0.01 or less on each of tokens 3, 4 and 5 (queries 6 on; seed 45 "
                       "puts 0.08, 0.20 and 0.15 there)",
    "loss-falls": "the first copy's mean loss is above a uniform guess's, the second copy's below a "
                  "quarter of it",
    "second-worst": "the repeat's second token has the highest loss of the second copy after its first token",
    "before-lowers": "with 'The' before the draw, the loss on the repeat's second token falls",
    "before-not-worst": "with 'The' before the draw, the repeat's second token is not the worst predicted "
                        "of the second copy after its first token",
    "before-above-1": "with 'The' before the draw, the loss on the repeat's second token stays above 1 nat "
                      "(seeds 1 to 7; seed 0 falls to 0.1)",
}
FIRST = "The"
"""The ordinary token put before the draw (review round 18, item 1: the draw's first token is the sink)."""

_MODEL: list = []


def model():
    """SmolLM2-135M-Instruct, loaded once per process."""
    from attention_lab import real_model as rm
    if not _MODEL:
        _MODEL.append(rm.load_model())
    return _MODEL[0]


def verdicts(scores: dict, W: np.ndarray, loss: np.ndarray, vocab: int, loss_first: np.ndarray
             ) -> dict[str, bool]:
    """Each claim on one draw, from the package's three scores (30, 9) each, the weights (30, 9, 80, 80),
    the loss on each next token (79,), and the same 79 losses with FIRST put before the draw."""
    first, previous, induction = scores.values()
    top2 = {divmod(int(i), 9) for i in np.argsort(previous, axis=None)[-2:]}
    low3 = set(np.argsort(first.mean(axis=1))[:3].tolist())
    none = {layer for layer in range(30) if (first[layer] <= 0.5).all()}
    threes = int((W[:, :, 3:, :3].sum(axis=-1).mean(axis=-1) > 0.5).sum())
    parked = W[3:10, :, 3:, :3].mean(axis=(0, 1, 2))
    later = W[3:10, :, 6:, 3:6].mean(axis=(0, 1, 2))
    mean1, mean2 = loss[:PERIOD - 1].mean(), loss[PERIOD:].mean()
    return {
        "previous-16.0": divmod(int(previous.argmax()), 9) == (16, 0),
        "previous-top-two": top2 == {(16, 0), (11, 1)},
        "induction-18.6": divmod(int(induction.argmax()), 9) == (18, 6),
        "candidates-above-16": min(np.argwhere(induction > 0.5)[:, 0], default=0) > 16,
        "a-handful": 1 <= (previous > 0.5).sum() <= 10 and 1 <= (induction > 0.5).sum() <= 10,
        "least-0.1.11": low3 == {0, 1, 11},
        "no-sink-0.1.11": {0, 1, 11} <= none,
        "no-sink-0.1.10.11": {0, 1, 10, 11} <= none,
        "sinks-85-147": 85 <= (first > 0.5).sum() <= 147,
        "threes-128-152": 128 <= threes <= 152,
        "parked-on-first": 0.695 <= parked[0] < 0.755 and bool((parked[1:] < 0.015).all()),
        "tokens-3-5-idle": bool((later < 0.015).all()),
        "loss-falls": mean1 > np.log(vocab) and mean2 < mean1 / 4,
        "second-worst": loss[PERIOD] == loss[PERIOD:].max(),
        "before-lowers": loss_first[PERIOD] < loss[PERIOD],
        "before-not-worst": loss_first[PERIOD] < loss_first[PERIOD:].max(),
        "before-above-1": loss_first[PERIOD] > 1.0,
    }


def measure(seed: int) -> dict[str, bool]:
    """Every claim on the draw with this seed."""
    from attention_lab import real_model as rm
    m = model()
    R = rm.repeated_random_tokens(m, period=PERIOD, seed=seed)
    logits, weights = rm.forward(m, R, keep_weights=True)
    W = np.stack(weights)
    R_first = np.concatenate([rm.encode(m, FIRST), R])
    loss_first = rm.token_losses(rm.forward(m, R_first)[0], R_first)[1:]     # the same 79 predictions
    out = verdicts(rm.head_scores(W, period=PERIOD), W, rm.token_losses(logits, R), len(m.embedding),
                   loss_first)
    return {k: bool(v) for k, v in out.items()}
