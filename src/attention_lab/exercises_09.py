"""Lesson 09's exercises (registered in exercises.EXERCISES): what a knockout costs, predicted before it
runs, a mean-ablation computed by hand, which of two sliding-window caches does better, a logit-lens rank
by hand, and what a lower temperature does to a close second. The predictions are measured on the real
model in tests/lessons/test_09_knockouts.py, test_09_window.py and test_09_text.py; 09.7, a cache designed
within a budget, is judged on a table of measured losses (no model needed to check it)."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial
from .matrix import softmax_unchecked

KNOCKOUTS_09_1 = {"A": [(18, 6)],                                             # the strongest candidate
                  "B": [(17, 3), (17, 4), (17, 5), (18, 7), (20, 6), (23, 2)],  # the other six candidates
                  "C": [(18, 8)]}                                             # a sink head
"""09.1's three knockouts, on lesson 09's draw (40 random tokens repeated, seed 0)."""

KNOCKOUT_09_2 = [(16, head) for head in range(1, 9)]
"""09.2's knockout: the eight heads of layer 16 other than the previous-token head (16, 0)."""

CACHES_09_4 = {"A": (128, 0), "B": (32, 1)}
"""09.4's two caches on hw.STREAM_TEXT, as (window, first tokens kept)."""

O93 = np.array([[[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]],               # 09.3: head 0's output, 3 tokens × 2
                [[3.0, 1.0], [0.0, 2.0], [3.0, 0.0]],               # head 1's
                [[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]]])              # head 2's: (3 heads, 3 tokens, 2)
W_O93 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0], [1.0, -1.0]])   # (6, 2)


X95 = np.array([[2.0, -1.0, 0.0, 1.0],               # 09.5: the last token's stream after blocks 0, 1, 2
                [0.0, 1.0, -2.0, 1.0],
                [0.0, -1.0, -2.0, -1.0]])           # (3 blocks, d = 4)
G95 = np.array([1.0, 2.0, 1.0, 0.5])                # the final RMSNorm's gain (d,)
E95 = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, -1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0],
                [-1.0, 0.0, 0.0, 1.0]])             # the tied embedding, one row per token (5, d)
WORDS95 = ("Rome", "Paris", "the", "city", "sea")
PARIS95 = WORDS95.index("Paris")


BUDGET_09_7 = 120
"""09.7's cache budget: window + first tokens kept, at most this many entries."""

WINDOWS_09_7 = tuple(range(16, 113, 16))
"""09.7's windows: pages of 16 tokens, 16 to 112 (a window of 128 alone is over the budget)."""

KEEPS_09_7 = tuple(range(9))
"""09.7's first tokens kept: 0 to 8."""

WITHIN_09_7 = 0.1
"""09.7's goal: a mean loss at most this many nats above full attention's."""

NEAR_09_7 = 0.01
"""09.7: a design less than this much over the goal is told its numbers, not sent to a longer window."""

FULL_09_7 = 3.4380
"""Full attention's mean loss on hw.STREAM_TEXT, in nats (measured; tests/lessons/test_09_window.py recomputes
it)."""

_LOSS_ROWS = {   # window: the mean loss (nats) keeping 0, 1, ..., 8 first tokens (hw.window_forward)
     16: (5.5023, 4.0782, 4.0124, 3.9965, 3.9925, 3.9742, 3.9594, 3.9525, 3.9319),
     32: (4.7949, 3.8006, 3.7772, 3.7616, 3.7601, 3.7552, 3.7499, 3.7440, 3.7388),
     48: (4.4574, 3.6919, 3.6755, 3.6625, 3.6613, 3.6563, 3.6532, 3.6495, 3.6485),
     64: (4.3052, 3.6133, 3.5965, 3.5861, 3.5836, 3.5826, 3.5786, 3.5727, 3.5714),
     80: (4.2048, 3.5680, 3.5608, 3.5471, 3.5439, 3.5452, 3.5427, 3.5349, 3.5336),
     96: (4.1534, 3.5496, 3.5443, 3.5383, 3.5358, 3.5398, 3.5375, 3.5315, 3.5306),
    112: (4.0316, 3.5159, 3.5135, 3.5099, 3.5079, 3.5136, 3.5115, 3.5055, 3.5047),
}
LOSSES_09_7 = {(window, keep): loss for window, row in _LOSS_ROWS.items() for keep, loss in enumerate(row)}
"""09.7's table, (window, keep) -> mean loss on hw.STREAM_TEXT: measured once, so that the check needs no
model (tests/lessons/test_09_window.py runs the model again on the designs near the goal)."""


def _design_09_7(answer) -> tuple[int, int] | str:
    """The answer as (window, keep) on 09.7's grid, or what to hand in instead."""
    form = ("answer with two whole numbers, (window, keep): a window of 16, 32, ..., 112 tokens and 0 to 8 "
            "first tokens kept, e.g. (48, 2)")
    if isinstance(answer, np.ndarray) and answer.shape == (2,) and answer.dtype.kind in "iu":
        answer = tuple(answer.tolist())                                  # np.array([112, 1]) too
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return form
    window, keep = answer
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in answer):
        return form
    if (int(window), int(keep)) not in LOSSES_09_7 and window + keep <= BUDGET_09_7:
        return form + f"; ({window}, {keep}) is not one of them"
    return int(window), int(keep)


def _judge_09_7(answer) -> str | None:
    """None if the cache fits the budget and comes within 0.1 nats of full attention; else the mistake."""
    design = _design_09_7(answer)
    if isinstance(design, str):
        return design
    window, keep = design
    if window + keep > BUDGET_09_7:
        return "over the budget"
    if keep == 0:
        return "no first token"
    above = LOSSES_09_7[design] - FULL_09_7
    if above > WITHIN_09_7 + NEAR_09_7:
        return "window too short"
    if above > WITHIN_09_7:                  # just over: designs this close land on either side of the line
        return (f"not yet: ({window}, {keep}) gives {LOSSES_09_7[design]:.4f} nats, {above:.4f} above full "
                f"attention's {FULL_09_7:.4f}: just over the goal. Designs this close to the line fall on "
                "either side of it by a few thousandths; try another number of first tokens, or a longer "
                "window.")
    return None


def _ranks(logits: np.ndarray, token: int = PARIS95, above=np.greater) -> np.ndarray:
    """1 + how many tokens each row scores above `token` (np.greater: strictly; np.less: from the bottom)."""
    return 1 + above(logits, logits[:, [token]]).sum(axis=1)


def _lens(X: np.ndarray, gain: np.ndarray | float = G95, centred: bool = False) -> np.ndarray:
    """The lens logits (3, 5): each row over its root mean square (or, centred, its standard deviation
    after subtracting its mean: a LayerNorm), times the gain, times E95 transposed."""
    Z = X - X.mean(axis=1, keepdims=True) if centred else X
    return Z / np.sqrt((Z * Z).mean(axis=1, keepdims=True)) * gain @ E95.T


def _block_output(outs: np.ndarray, W_O: np.ndarray = W_O93) -> np.ndarray:
    """The heads' outputs (h, n, d_k) side by side, token by token, times W_O -> (n, d)."""
    return np.concatenate(list(outs), axis=1) @ W_O                       # (n, h d_k) @ (h d_k, d)


def _replaced(head: int, value) -> np.ndarray:
    """O93 with one head's output replaced by `value` (broadcast over its tokens)."""
    outs = O93.copy()
    outs[head] = value
    return outs


def lesson09() -> list:
    """Lesson 09's exercises, in order."""
    return [
        Choice("09.1", "Order three knockouts by the second-copy loss, the largest first: (A) the strongest "
                       "candidate (18, 6) alone; (B) the other six candidates; (C) the sink head (18, 8).",
               "a", {
                   "b": "(18, 6) has the clearest induction pattern, but it does not do most of the copying "
                        "alone: the six other candidates, knocked out together while (18, 6) keeps working, "
                        "cost more. One head, even the one with the clearest pattern, does not carry the "
                        "copying alone: here the work is shared.",
                   "c": "a sink head parks its weight on the first token, and what it writes there is not "
                        "what the copying needs: knocked out, (18, 8) leaves the second-copy loss almost "
                        "where it was. It costs least of the three, not most.",
                   "d": "the six weaker candidates are not spare copies of (18, 6): together they cost more "
                        "than (18, 6) alone. And the sink head (18, 8) costs least: without it the "
                        "second-copy loss hardly moves."}),
        Choice("09.2", "Knock out the eight heads of layer 16 other than (16, 0): compared with (16, 0) "
                       "alone, the second-copy loss is (a) less than half as high; (b) about as high; (c) "
                       "higher, eight heads being more than one; (d) higher, because they share (16, 0)'s "
                       "keys.", "a", {
                   "b": "the eight other heads of layer 16 do not share (16, 0)'s job: knocked out together, "
                        "they cost less than half of what (16, 0) alone costs. The previous-token head is "
                        "one head, not a layer.",
                   "c": "which heads you knock out matters more than how many: eight heads of layer 16 cost "
                        "less than half of what the one previous-token head costs. What the induction "
                        "heads need is written by (16, 0).",
                   "d": "(16, 1) and (16, 2) do read the same keys and values as (16, 0) (grouped-query "
                        "attention, lesson 08), but a knockout removes a head's output, not its keys; each "
                        "head asks its own query and writes its own output (exercise 08.1). And (16, 3) to "
                        "(16, 8) share nothing with it. Knocked out, the eight cost less than half of what "
                        "(16, 0) costs."}),
        Exercise(
            "09.3", "Three heads' outputs (3 tokens × 2 each) and W_O (6 × 2) given: the block's attention "
                    "output (3 × 2) with head 1 mean-ablated (its output replaced, at every token, by its "
                    "mean over the 3 tokens).",
            lambda: _block_output(_replaced(1, O93[1].mean(axis=0))), {
                "zero-ablation": (lambda: _block_output(_replaced(1, 0.0)),
                                  "that is zero-ablation: head 1's output set to 0. Mean-ablation keeps the "
                                  "head's average contribution: replace each of its rows by the mean of its "
                                  "3 rows (outs[1].mean(axis=0))."),
                "nothing knocked out": (lambda: _block_output(O93),
                                        "that is the block's output with every head working: replace head "
                                        "1's output by its mean over the tokens first."),
                "mean over the heads": (lambda: _block_output(_replaced(1, O93.mean(axis=0))),
                                        "you averaged over the heads, token by token: mean-ablation averages "
                                        "head 1's own output over the tokens (axis 0 of outs[1]), so every "
                                        "token gets the same row."),
                "one number": (lambda: _block_output(_replaced(1, O93[1].mean())),
                               "you replaced head 1's output by one number, the mean of all its entries: "
                               "average each of its 2 columns over the tokens, keeping a row of 2 numbers."),
                "mean over the width": (lambda: _block_output(_replaced(1, O93[1].mean(1, keepdims=True))),
                                        "you averaged each token's row of head 1 (over its 2 numbers): "
                                        "average over the tokens instead, column by column."),
                "head 0": (lambda: _block_output(_replaced(0, O93[0].mean(axis=0))),
                           "you mean-ablated the first head in the list: heads are numbered from 0, so head "
                           "1 is the second one."),
                "head 2": (lambda: _block_output(_replaced(2, O93[2].mean(axis=0))),
                           "you mean-ablated the last head: heads are numbered from 0, so head 1 is the "
                           "second one, the middle of the three."),
                "every head mean-ablated": (lambda: _block_output(np.repeat(O93.mean(axis=1, keepdims=True),
                                                                            3, axis=1)),
                                            "you replaced every head's output by its mean over the tokens "
                                            "(the same numbers as the block's whole output averaged over "
                                            "the tokens): only head 1 is knocked out; heads 0 and 2 keep "
                                            "their own rows, token by token."),
                "head 1's part alone": (lambda: np.tile(O93[1].mean(axis=0) @ W_O93[2:4], (3, 1)),
                                        "that is only head 1's part of the output (its mean row times its 2 "
                                        "rows of W_O): the block's output adds the parts of heads 0 and 2, "
                                        "which keep working."),
                "reshaped, not concatenated": (
                    lambda: _replaced(1, O93[1].mean(axis=0)).reshape(3, 6) @ W_O93,
                    "you reshaped the (3, 3, 2) array to (3, 6) directly, which lays head 0's three tokens "
                    "in the first row: concatenate the heads token by token instead, each token's row "
                    "holding its 2 numbers from head 0, then head 1, then head 2 (lesson 03)."),
            }, expects="a 3 × 2 array, the block's attention output, one row per token",
            fallback="Not right yet. The block's output is the heads' outputs side by side, token by token "
                     "(head 0's 2 numbers, then head 1's, then head 2's), times W_O (lesson 03); with head 1 "
                     "mean-ablated, only head 1's 2 columns change: each of its rows becomes the mean of "
                     "its 3 rows."),
        Choice("09.4", "Which cache gives the lower mean loss on the paragraph: (A) a window of 128 without "
                       "the first token, or (B) a window of 32 with the first token (33 entries)? (a) A; "
                       "(b) B; (c) within 0.1 nats of each other.", "b", {
                   "a": "four times as much recent text does not make up for the lost first token: from "
                        "token 128 on, every head that parked its weight on token 0 must spread it over "
                        "the window instead. With token 0 kept, 32 recent tokens do better than 128 "
                        "without it.",
                   "c": "the first token is one token, but not one like the others: it is where many heads "
                        "park their weight (the sink, lesson 08). Losing it costs more "
                        "than 96 recent tokens are worth: the two caches are more than 0.1 nats apart, "
                        "and the one with the first token is ahead."}),
        Exercise(
            "09.5", "The logit lens on a toy model (d = 4, five tokens): the rank of Paris (1 = top) after "
                    "blocks 0, 1 and 2, from the streams X (3 × 4), the final gain g and the tied "
                    "embedding E (5 × 4), eps = 0.",
            lambda: _ranks(_lens(X95)), {
                "no gain": (lambda: _ranks(_lens(X95, gain=1.0)),
                            "you left out the final RMSNorm's gain g: the lens applies the whole final norm, "
                            "each row over its root mean square and then times g, number by number, before "
                            "E's transpose. Leaving out the division alone would not change a rank (it "
                            "scales a row by one positive number); leaving out g does."),
                "LayerNorm": (lambda: _ranks(_lens(X95, centred=True)),
                              "you subtracted each row's mean first, as a LayerNorm does: SmolLM2's final "
                              "norm is an RMSNorm, which only divides by the root mean square (lesson 08)."),
                "LayerNorm, no gain": (lambda: _ranks(_lens(X95, gain=1.0, centred=True)),
                                       "you subtracted each row's mean (a LayerNorm) and left out the gain "
                                       "g: SmolLM2's final norm is an RMSNorm, each row over its root mean "
                                       "square only, and then times g, number by number."),
                "row 2": (lambda: _ranks(_lens(X95), token=2),
                          "that is the rank of E's row 2, 'the': rows count from 0, so Paris is row 1 (the "
                          "second row)."),
                "counted from 0": (lambda: _ranks(_lens(X95)) - 1,
                                   "you counted the tokens above Paris: its rank is one more (1 = top)."),
                "from the bottom": (lambda: _ranks(_lens(X95), above=np.less),
                                    "you ranked from the lowest logit up: rank 1 is the token with the "
                                    "largest logit, the lens's top guess."),
                "probabilities": (lambda: softmax_unchecked(_lens(X95))[:, PARIS95],
                                  "those look like Paris's probabilities after each block: the question asks "
                                  "for its rank, 1 + the number of tokens whose logit is larger."),
            }, expects="three whole numbers, the rank of Paris after blocks 0, 1 and 2 (1 = top)",
            fallback="Not right yet. For each row x of X: x / sqrt(mean(x²)) * g is the normed stream, and "
                     "times E's transpose it gives 5 logits (one per token: Rome, Paris, the, city, sea); "
                     "Paris's rank is 1 + the number of logits larger than Paris's."),
        Choice("09.6", "For 'The capital of Australia is', greedy says ' Sydney' and a draw at τ = 1 gives "
                       "' Canberra' with probability 0.34. At τ = 0.5, a draw gives ' Canberra' (a) more "
                       "often; (b) less often, τ below 1 moving towards greedy; (c) never, any τ below 1 "
                       "being greedy; (d) exactly as often, τ dividing every logit alike.", "a", {
                   "b": "a lower τ does lead to greedy in the end, but on the way it first takes probability "
                        "from the thousands of tokens far below the top two. ' Canberra' is almost level "
                        "with ' Sydney', so at τ = 0.5 it gets a share of what they lose. Only much closer "
                        "to 0 does ' Sydney' take everything. Check it at τ = 0.5.",
                   "c": "only τ = 0 itself is greedy. At τ = 0.5 the softmax of the logits divided by 0.5 "
                        "still gives every token some probability, and ' Canberra', almost level with "
                        "' Sydney', keeps a large share. Check it at τ = 0.5.",
                   "d": "τ divides every logit by the same number, but the softmax depends on the "
                        "differences between logits, and dividing by 0.5 doubles them: the tokens far "
                        "below lose, and the two almost level at the top share what they lose. Check it "
                        "at τ = 0.5."}),
        Trial("09.7", "Design a cache of at most 120 entries (a window of 16, 32, ..., 112 tokens and 0 to 8 "
                      "first tokens) whose mean loss on the paragraph is at most 0.1 nats above full "
                      "attention's: answer (window, keep).", "design", lambda: (112, 4), _judge_09_7, {
                   "over the budget": (lambda: (128, 1),
                                       "that cache holds more than 120 entries (the window plus the first "
                                       "tokens kept), and the budget is the point: choose a window of at "
                                       "most 112 and few enough first tokens that the two fit in 120."),
                   "no first token": (lambda: (112, 0),
                                      "without the first token, no window within the budget comes within "
                                      "0.5 nats of full attention: every head that parks its weight on "
                                      "token 0 must put it elsewhere once the window leaves it behind "
                                      "(section 2). Keep at least one first token."),
                   "window too short": (lambda: (64, 8),
                                        "you kept the first tokens, but the window is too short: each query "
                                        "still loses the text between the first tokens and its window, and "
                                        "the loss stays more than 0.1 nats above full attention. Spend "
                                        "more of the 120 entries on the window."),
               }),
    ]
