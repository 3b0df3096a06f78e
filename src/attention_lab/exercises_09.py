"""Lesson 09's exercises (registered in exercises.EXERCISES): what a knockout costs, predicted before it
runs, a mean-ablation computed by hand, which of two sliding-window caches does better, a logit-lens rank
by hand, and what a lower temperature does to a close second. The predictions are measured on the real
model in tests/lessons/test_09_knockouts.py, test_09_window.py and test_09_text.py; 09.7, a cache designed
within a budget, is judged on a table of measured losses (no model needed to check it)."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Correct, Exercise, Trial
from .judging import SHORTCUTS, judge_fix
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
    if isinstance(answer, (int, float, np.integer, np.floating)) and not isinstance(answer, (bool, np.bool_)):
        return "one number"                                              # a loss, or a window alone
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return form
    window, keep = answer
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in answer):
        return form
    if (int(keep), int(window)) in LOSSES_09_7 and (int(window), int(keep)) not in LOSSES_09_7:
        return "swapped"                                                 # (keep, window)
    if (int(window), int(keep)) not in LOSSES_09_7 and window + keep <= BUDGET_09_7:
        return form + f"; ({window}, {keep}) is not one of them"
    return int(window), int(keep)


def _judge_09_7(answer) -> str | None:
    """None if the cache fits the budget and comes within 0.1 nats of full attention; else the mistake."""
    design = _design_09_7(answer)
    if isinstance(design, str):
        return design                        # a named mistake ("one number", "swapped"), or the form
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


LOCKED_09_5 = (*SHORTCUTS, "rms_norm", "lens_rank", "logit_lens", "layer_norm")
"""Package functions that would do 09.5 for the student (the final norm, the lens, its ranks): switched off
while its judge runs the student's function (each with its twin `<name>_unchecked`)."""


def _fresh_09_5() -> list[tuple]:
    """09.5's inputs, (X, g, E, token): the lesson's toy model (Paris, token 1), then two made up here, of
    other sizes, with gains of their own and other tokens asked for."""
    rng = np.random.default_rng(95)
    made = [(rng.standard_normal((4, 6)), rng.uniform(0.3, 2.0, 6), rng.standard_normal((7, 6)), 3),
            (rng.standard_normal((5, 3)) + 1.0, rng.uniform(0.3, 2.0, 3), rng.standard_normal((6, 3)), 0)]
    return [(X95, G95, E95, PARIS95), *made]


def _lens_logits(X, g, E, gain=True, centred=False, axis=1):
    """The lens logits (blocks, vocab): each row over its root mean square (taken along `axis`; centred
    first, as a LayerNorm does), times the gain, times E transposed."""
    X = np.asarray(X, dtype=float)
    Z = X - X.mean(axis=1, keepdims=True) if centred else X
    Z = Z / np.sqrt((Z * Z).mean(axis=axis, keepdims=True))
    return (Z * g if gain else Z) @ np.asarray(E, dtype=float).T


def _rank_of(logits, token, how="above"):
    """The token's rank in each row: 1 + how many logits are above it (or, wrongly: how many are above, 1 +
    how many are below, 1 + how many are at or above it, or the argsort's entry read at the token)."""
    mine = logits[:, [token]]
    if how == "argsort":
        return np.argsort(-logits, axis=1, kind="stable")[:, token] + 1
    return {"above": 1 + (logits > mine).sum(axis=1), "from 0": (logits > mine).sum(axis=1),
            "below": 1 + (logits < mine).sum(axis=1), "itself": (logits >= mine).sum(axis=1) + 1}[how]


def _lens_ranks(gain=True, centred=False, axis=1, how="above", paris_only=False):
    """A version of lens_ranks(X, g, E, token) (paris_only: the toy's Paris whatever the token asked)."""
    def lens_ranks(X, g, E, token):
        return _rank_of(_lens_logits(X, g, E, gain, centred, axis), PARIS95 if paris_only else token, how)
    return lens_ranks


def _lens_probabilities(X, g, E, token):
    """The token's probability after each block (a softmax of each row of lens logits), not its rank."""
    return softmax_unchecked(_lens_logits(X, g, E))[:, token]


WRONG_09_5 = {
    "no gain": _lens_ranks(gain=False), "LayerNorm": _lens_ranks(centred=True),
    "LayerNorm, no gain": _lens_ranks(gain=False, centred=True), "counted from 0": _lens_ranks(how="from 0"),
    "from the bottom": _lens_ranks(how="below"), "counted itself": _lens_ranks(how="itself"),
    "argsort read at the token": _lens_ranks(how="argsort"), "norm over the blocks": _lens_ranks(axis=0),
    "Paris only": _lens_ranks(paris_only=True), "probabilities": _lens_probabilities}
"""09.5's wrong versions of lens_ranks, by name: the judge names the one a student's function agrees with."""

HINTS_09_5 = {
    "numbers": "hand in your function itself, lens_ranks without brackets: the check runs it on the toy "
               "model and on two fresh ones it makes up (with the package's norm and lens switched off), so "
               "a list of ranks, however it was computed, is not the answer.",
    "no gain": "you left out the final RMSNorm's gain g: the lens applies the whole final norm, each row "
               "over its root mean square and then times g, number by number, before E's transpose. Leaving "
               "out the division alone would not change a rank (it scales a row by one positive number); "
               "leaving out g does.",
    "LayerNorm": "you subtracted each row's mean first, as a LayerNorm does: SmolLM2's final norm is an "
                 "RMSNorm, which only divides by the root mean square (lesson 08).",
    "LayerNorm, no gain": "you subtracted each row's mean (a LayerNorm) and left out the gain g: SmolLM2's "
                          "final norm is an RMSNorm, each row over its root mean square only, and then times "
                          "g, number by number.",
    "counted from 0": "you counted the tokens above the token: its rank is one more (1 = top).",
    "from the bottom": "you ranked from the lowest logit up: rank 1 is the token with the largest logit, the "
                       "lens's top guess.",
    "counted itself": "you counted the logits at or above the token's, which counts the token itself: its "
                      "rank is 1 + the number of logits strictly larger than its own (> rather than >=), so "
                      "the top guess has rank 1.",
    "argsort read at the token": "you read np.argsort's result at the token's index: argsort lists token "
                                 "ids, largest logit first, so its entry `token` is the id of the token in "
                                 "that place, not the token's place. The rank is where the token's id sits "
                                 "in that list, plus 1 (or count the logits above it).",
    "norm over the blocks": "you took the root mean square down each column of X, over the blocks: the final "
                            "norm works on one stream at a time, so each row (one block's stream, d numbers) "
                            "is divided by its own root mean square (axis=1, keepdims=True).",
    "Paris only": "your function gives the rank of token 1 (Paris in the toy) whatever token it is asked "
                  "for: the check asks for other tokens of other vocabularies too. Read the logit of "
                  "`token`, the argument.",
    "probabilities": "your function returns the token's probabilities after each block: the question asks "
                     "for its rank, 1 + the number of tokens whose logit is larger.",
}
"""09.5's hints, by mistake."""


REMARK_09_5 = ("(A rank cannot show whether each row was divided by its root mean square: dividing a row "
               "by one positive number never changes which logits are larger, so no rank moves; the gain g, "
               "one factor per coordinate, is what can move one. The lens's probabilities, a softmax of each "
               "row, do need that division.)")
"""09.5's remark after every ✓: why a function with or without the final norm's division passes alike."""


def _judge_09_5():
    """09.5's judge: the student's lens_ranks on the toy model and on two fresh ones, with the package's
    norm and lens switched off; a list of numbers (a value computed elsewhere) is refused."""
    fixed = judge_fix(_lens_ranks(), WRONG_09_5, _fresh_09_5(),
                      "one whole number per row of X, the rank (1 = top) of the token after that block",
                      locked=LOCKED_09_5)

    def judge(answer):
        if not callable(answer) or isinstance(answer, type):
            return "numbers"
        verdict = fixed(answer)
        if verdict is None:                          # right: and what a rank cannot show
            return Correct(REMARK_09_5)
        return verdict
    return judge


def _block_output(outs: np.ndarray, W_O: np.ndarray = W_O93) -> np.ndarray:
    """The heads' outputs (h, n, d_k) side by side, token by token, times W_O -> (n, d)."""
    return np.concatenate(list(outs), axis=1) @ W_O                       # (n, h d_k) @ (h d_k, d)


def _replaced(head: int, value) -> np.ndarray:
    """O93 with one head's output replaced by `value` (broadcast over its tokens)."""
    outs = O93.copy()
    outs[head] = value
    return outs


def _compute_09_5() -> Trial:
    """09.5: the logit lens by hand, as a function judged on fresh toy models (a list of ranks is refused:
    no value computed elsewhere passes)."""
    wrong = {"numbers": [2, 5, 1], **WRONG_09_5}
    return Trial("09.5", "The logit lens by hand, as a function: lens_ranks(X, g, E, token) gives the rank "
                         "(1 = top) of `token` after each block, from the last token's stream after each "
                         "block X, the final RMSNorm's gain g and the tied embedding E (eps = 0); judged on "
                         "the toy model (Paris, token 1) and on fresh ones.", "compute",
                 lambda: _lens_ranks(), _judge_09_5(),
                 {name: (lambda w=wrong[name]: w, hint) for name, hint in HINTS_09_5.items()})


def _token_1_replaced() -> np.ndarray:
    """O93 with token 1's row of every head replaced by that row's mean over the heads (outs[:, 1])."""
    outs = O93.copy()
    outs[:, 1] = O93[:, 1].mean(axis=0)
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
                "sum, not mean": (lambda: _block_output(_replaced(1, O93[1].sum(axis=0))),
                                  "you replaced head 1's output by the sum of its 3 rows: mean-ablation uses "
                                  "their mean, the sum divided by the 3 tokens (outs[1].mean(axis=0))."),
                "mean subtracted": (lambda: _block_output(_replaced(1, O93[1] - O93[1].mean(axis=0))),
                                    "you subtracted head 1's mean from its rows, which keeps what depends on "
                                    "the tokens and removes the average: mean-ablation does the opposite, "
                                    "every row of head 1 becomes the mean itself."),
                "token 1, not head 1": (lambda: _block_output(_token_1_replaced()),
                                        "you replaced token 1's row in every head (outs[:, 1]) by its mean "
                                        "over the heads: head 1 is outs[1], its 3 rows are the tokens, and "
                                        "each becomes their mean over the tokens."),
                "no W_O": (lambda: np.concatenate(list(_replaced(1, O93[1].mean(axis=0))), axis=1),
                           "those are the heads' outputs side by side, (3, 6), with head 1 mean-ablated: the "
                           "block's output is that times W_O, (3, 6) @ (6, 2), one row of 2 per token."),
                "heads not combined": (lambda: _replaced(1, O93[1].mean(axis=0)),
                                       "that is outs with head 1 mean-ablated, (3 heads, 3 tokens, 2): put "
                                       "each token's rows from heads 0, 1 and 2 side by side (a 3 × 6 array) "
                                       "and multiply by W_O, for the block's output (3 × 2)."),
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
        _compute_09_5(),
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
                   "one number": (lambda: 3.5159,
                                  "you handed in one number: the answer is the design itself, two "
                                  "whole numbers (window, keep), e.g. (48, 2), not the loss it gives "
                                  "(the check looks the loss up) nor the window alone."),
                   "swapped": (lambda: (1, 112),
                               "your pair reads as (keep, window): the window comes first, then the "
                               "number of first tokens kept, e.g. (112, 1) for a window of 112 tokens "
                               "and the first token."),
                   "window too short": (lambda: (64, 8),
                                        "you kept the first tokens, but the window is too short: each query "
                                        "still loses the text between the first tokens and its window, and "
                                        "the loss stays more than 0.1 nats above full attention. Spend "
                                        "more of the 120 entries on the window."),
               }),
    ]
