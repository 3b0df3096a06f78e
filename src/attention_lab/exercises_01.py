"""Lesson 01's exercises (registered in exercises.EXERCISES): one output by hand."""

from __future__ import annotations

import numpy as np

from .checks import TOLERANCE, Choice, Exercise, Trial
from .examples import cats_chase_mice
from .judging import SHORTCUTS, as_numbers, judge_fix, run_student, same_numbers, still_planted
from .matrix import default_scale, softmax, softmax_unchecked

# fresh sentences for 01.3 (features: noun, verb, animal, small): in each, the last word is the only
# one that is a noun and small; a distractor has as many features as it (or more) without being both
FRESH_013 = (
    np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]),   # hunts-like noun
    np.array([[0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0],
              [1.0, 0.0, 1.0, 1.0]]),                                              # a small non-noun
    np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]]),   # the small noun is
)                                                                                  # no animal; cats is

# 01.3's hints for a query with which mice wins in the lesson's sentence but not on a fresh one; mice's
# win may also be too weak (its weight 0.7 or less), which the hint then says first (review round 24, 24-D)
WEAK_WIN = "mice wins here, though by too little (make your entries larger too)"
MORE_FEATURES = ("on a fresh sentence small listens as much (or more) to a word that is not a small noun: "
                 "your query rewards features that other words have too. Ask for exactly what makes mice "
                 "the target: noun and small.")
ASKS_ANIMAL = ("your query asks 'animal?' as much as 'small?' (or more). On a fresh sentence whose small "
               "noun is not an animal, an animal noun (cats) then scores as high as the small noun. Ask "
               "'animal?' less than 'small?', or (simplest) not at all: 'noun? and small?'.")

LOCKED_014 = (*SHORTCUTS, "softmax", "softmax_unchecked")   # 01.4's bug is in the softmax: write it out
PLANTED_014 = "return e / e.max()"                          # the wrong line, as the lesson prints it
HANDED_OUT_014 = """\
def weights_of(q, K):
    scores = K @ q
    e = np.exp(scores - scores.max())
    return e / e.max()
"""
"""01.4's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _design_01():
    """01.3: a W_q with which 'small' listens most to 'mice' (weight > 0.7), keys = X, no scaling; on
    fresh sentences small must still prefer the word that is a noun and small."""
    ex = cats_chase_mice()
    X = ex.X

    def weights(W, X_=X, who=2):
        return softmax((X_[who] @ W) @ X_.T)               # (n,) small's weights, W_k = I, scale 1

    def solution():
        W = np.zeros((4, 4))
        W[3, 0] = W[3, 3] = 2.0                            # small asks: "a noun? and small?"
        return W

    def small_of(X_):
        return int(np.flatnonzero((X_ == [0, 0, 0, 1]).all(axis=1))[0])

    def passes_fresh(W):
        """For each fresh sentence: does small listen most to its last word, the small noun?"""
        for X_ in FRESH_013:
            wf = weights(W, X_, small_of(X_))
            yield bool(np.argmax(wf) == len(X_) - 1 and wf[-1] - np.sort(wf)[-2] > 1e-9)

    def mice_wins(W):
        """Does small score mice strictly highest? A question of W's direction only: any c > 0 scaling
        W scales every score by c, and a strict winner's weight goes to 1 as c grows. So the margin is
        judged on the scores scaled to largest size 1 (review round 24, 24-C: tiny entries too)."""
        s = X[2] @ W @ X.T
        top = np.abs(s).max()
        if not top > 0:
            return False
        s = s / top
        return bool(np.argmax(s) == 3 and s[3] - np.sort(s)[-2] > 1e-9)

    def on_fresh(W):
        """For a W_q with which mice wins by more than 0.7: None if it passes the fresh sentences too,
        else the hint that says why not. The hint depends on W's direction only, not on its size: W is
        first scaled to largest entry 1, and mice's win without 'animal?' is judged by its scores."""
        if all(passes_fresh(W)):
            return None
        W = W / np.abs(W).max()                            # the direction: c·W gets the hint W gets
        no_animal = W.copy()
        no_animal[:, 2] = 0.0                              # the same questions without 'animal?'
        if W[3, 2] > 0 and mice_wins(no_animal) and all(passes_fresh(no_animal)):
            return "asks animal"
        return "more features"

    def judge(answer):
        W = as_numbers(answer, (4, 4), "W_q (rows: features of x, columns: what the query asks for)")
        if isinstance(W, str):
            return W
        if np.array_equal(W, ex.W_q):
            return "lesson's W_q"
        w = weights(W)
        wins = np.argmax(w) == 3 and w[3] - np.sort(w)[-2] > 1e-9
        if wins and w[3] > 0.7:
            return on_fresh(W)
        wt = weights(W.T)
        if np.argmax(wt) == 3 and wt[3] > 0.7 and wt[3] - np.sort(wt)[-2] > 1e-9:
            return "transposed"
        if not W[3].any():
            return "empty row"
        if wins or mice_wins(W):   # mice wins by too little: would W pass if its entries were larger? Before
            strong = W             # the tie hints: with tiny entries all weights are near 0.25 (24-C)
            for _ in range(1100):                          # mice wins, so scaling up lifts its weight
                if weights(strong)[3] > 0.7:               # passes when larger, or fails fresh then too
                    why = on_fresh(strong)
                    return f"{why}, too weak" if why else "too weak"
                strong = 2.0 * strong
            return "too weak"
        q = W[3] / np.abs(W[3]).max()                      # small's question, scaled to largest entry 1:
        s = X @ q                                          # the ties on its scores do not depend on size
        top = s.max() - 1e-12
        if np.isclose(s[0], s[3]) and s[3] >= top and s[3] > max(s[1], s[2]) + 1e-9:
            # mice is cats plus 'small', so cats and mice tie only if q asks nothing of 'small?'
            if np.isclose(q[1], 0) and np.isclose(q[2], 0):
                return "noun only"                         # the lesson's question: 'noun?' alone
            return "small not asked"                       # other questions, which both answer alike
        if np.isclose(s[2], s[3]) and s[3] >= top and s[3] > max(s[0], s[1]) + 1e-9:
            if np.isclose(q[0], 0) and np.isclose(q[2], 0):
                return "small only"                        # nothing asked of mice's noun and animal
            return "noun cancelled" if W[3, 0] > 0 else "noun penalised"   # noun? + animal? = 0
        return (f"with your W_q, small's weights are {np.round(w, 3)}: mice (the last) must get the "
                "most, more than 0.7. Row 'small' of W_q decides what small's query asks for.")

    def small_row(row):
        W = np.zeros((4, 4))
        W[3] = row
        return W

    def only(col, value=2.0):
        W = np.zeros((4, 4))
        W[3, col] = value
        return W

    weak = solution() * 0.2
    return Trial("01.3", "Design W_q so that 'small' listens most to 'mice'.", "design", solution, judge, {
        "transposed": (lambda: solution().T,
                       "your matrix works when transposed: row i of W_q belongs to feature i of x "
                       "(q = x @ W_q), so small's question goes in row 'small' (index 3)."),
        "lesson's W_q": (lambda: ex.W_q,
                         "this is the lesson's W_q: small's row asks only 'noun?', so cats and mice tie. "
                         "Ask for a second feature that only mice has."),
        "noun only": (lambda: only(0),
                      "cats and mice tie, ahead of chase and small: both are nouns. Ask for a second "
                      "feature that only mice has."),
        "small not asked": (lambda: only(2),
                            "cats and mice tie, ahead of chase and small: mice differs from cats only in "
                            "being small, and your query does not ask 'small?', so cats and mice answer "
                            "every question it asks alike. Ask 'small?' too, the one feature mice has and "
                            "cats does not."),
        "small only": (lambda: only(3),
                       "small ties with mice: your query asks 'small?' but neither 'noun?' nor 'animal?', "
                       "the two features mice has and small lacks, so small and mice score the same "
                       "(x_small · q = x_mice · q): ask for 'noun' too."),
        "noun cancelled": (lambda: np.array([[0.0] * 4] * 3 + [[2.0, 0.0, -2.0, 2.0]]),
                           "small ties with mice. Your row 'small' does ask 'noun?', but its other entries "
                           "take back what mice gains from being a noun: mice is an animal too, and your "
                           "negative 'animal?' entry costs mice as much. Ask for noun and small, and "
                           "leave 'animal?' at 0."),
        "noun penalised": (lambda: np.array([[0.0] * 4] * 3 + [[-2.0, 0.0, 2.0, 2.0]]),
                           "small ties with mice. Your row 'small' asks 'animal?' but gives 'noun?' a "
                           "negative entry, and mice is both a noun and an animal: what it gains as an "
                           "animal it loses as a noun, so it scores only what small scores. Ask 'noun?' "
                           "with a positive entry, and leave 'animal?' at 0."),
        "empty row": (lambda: np.diag([1.0, 1.0, 1.0, 0.0]),
                      "row 'small' (index 3) of your W_q is zero, so small's query is zero: every score "
                      "is 0 and all four words tie at 0.25. Small's question goes in that row."),
        "too weak": (lambda: weak,
                     "mice wins, but by too little: make your entries larger, so that the softmax "
                     "decides more sharply."),
        "more features": (lambda: np.ones((4, 4)) * 3.0, f"mice wins here, but {MORE_FEATURES}"),
        "more features, too weak": (lambda: np.ones((4, 4)) * 0.1, f"{WEAK_WIN}, and {MORE_FEATURES}"),
        "asks animal": (lambda: small_row([2.0, 0.0, 2.0, 2.0]), f"mice wins here, but {ASKS_ANIMAL}"),
        "asks animal, too weak": (lambda: small_row([0.1, 0.0, 0.1, 0.1]), f"{WEAK_WIN}, and {ASKS_ANIMAL}"),
    })


def _debug_01():
    """01.4: weights_of(q, K) has one planted bug; the check runs the fix on fresh inputs."""
    rng = np.random.default_rng(14)
    q, K = rng.standard_normal(3), rng.standard_normal((5, 3))   # fresh: nowhere in the lesson
    big = q * (1000.0 / (K @ q).max())                            # top score 1000: exp(1000) overflows

    def reference(q_, K_):
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / e.sum()

    def planted(q_, K_):                      # the function printed in the lesson, bug included
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / e.max()

    def no_max(q_, K_):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(K_ @ q_)
            return e / e.sum()

    def no_exp(q_, K_):
        s = K_ @ q_
        return s / s.sum()

    def by_count(q_, K_):                     # divides by the number of keys
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / len(e)

    def by_score_sum(q_, K_):                 # divides by the sum of the scores, not of the exps
        s = K_ @ q_
        e = np.exp(s - s.max())
        return e / s.sum()

    def min_shift(q_, K_):                    # subtracts the smallest score: exp overflows
        with np.errstate(over="ignore", invalid="ignore"):
            s = K_ @ q_
            e = np.exp(s - s.min())
            return e / e.sum()

    def no_division(q_, K_):                  # the planted line taken out: e.max() is 1, the same numbers
        s = K_ @ q_
        return np.exp(s - s.max())

    def shift_changed(q_, K_):                # the shift taken out, the planted line left: on small scores
        with np.errstate(over="ignore", invalid="ignore"):    # the planted numbers, near 1000 exp overflows
            scores = K_ @ q_
            e = np.exp(scores)
            return e / e.max()

    def unshifted_sum(q_, K_):                # the shifted exps over the sum of the unshifted ones
        with np.errstate(over="ignore"):
            s = K_ @ q_
            e = np.exp(s - s.max())
            return e / np.exp(s).sum()

    wrong = {"planted": planted, "no exp": no_exp, "no max": no_max, "by count": by_count,
             "by score sum": by_score_sum, "min shift": min_shift, "unshifted sum": unshifted_sum}
    by_numbers = judge_fix(reference, wrong, [(q, K), (big, K)],
                           "expected 5 weights, positive and summing to 1 (a softmax of the scores K @ q), "
                           "also for very large scores.", locked=LOCKED_014)

    def judge(fn):
        """The planted numbers from the function as handed out get a hint that says what to look for;
        from a changed function (the division taken out gives the same numbers), one that explains. A
        function that keeps the planted line and gives its numbers on small scores but not near 1000 has
        had its shift changed: the shift was right."""
        verdict = by_numbers(fn)
        if verdict == "planted" and not still_planted(fn, PLANTED_014):
            return "no division"
        if verdict not in wrong and still_planted(fn, PLANTED_014) \
                and same_numbers(run_student(fn, q, K, locked=LOCKED_014), planted(q, K)):
            return "shift changed"
        return verdict

    return Trial("01.4", "Fix weights_of: one line is wrong.", "debug", lambda: reference, judge, {
        "planted": (lambda: planted,
                    "still the planted bug: one line of weights_of is wrong. Print weights_of(q, K) "
                    "for a small q and K: what do the weights add up to, and what should they add up "
                    "to?"),
        "no division": (lambda: no_division,
                        "your weights are the exps of the shifted scores, never divided by their sum: "
                        "after subtracting the maximum, e.max() is always 1, so the planted e / e.max() "
                        "and no division at all give the same numbers. Print weights_of(q, K) for a small "
                        "q and K: what do the weights add up to, and what should they add up to?"),
        "no max": (lambda: no_max,
                   "right on small scores, but scores near 1000 overflow exp and give nan: keep "
                   "subtracting the maximum score before exp."),
        "no exp": (lambda: no_exp,
                   "the scores divided by their sum can be negative and do not follow the softmax: "
                   "take exp of each score first."),
        "by count": (lambda: by_count,
                     "you divided by the number of keys; divide by the sum of the exps, so that the "
                     "weights sum to 1."),
        "by score sum": (lambda: by_score_sum,
                         "you divided by the sum of the scores; divide by the sum of the exps, e.sum()."),
        "min shift": (lambda: min_shift,
                      "you subtracted the smallest score: on scores near 1000 exp still overflows. "
                      "Subtract the largest, so that the largest exponent is exp(0) = 1."),
        "shift changed": (lambda: shift_changed,
                          "the line you changed was right: subtracting the largest score before exp is "
                          "what keeps exp from overflowing (near 1000 yours overflows), and on small "
                          "scores your weights are still the planted ones. Put that line back; the wrong "
                          "line is still there. Print weights_of(q, K) for a small q and K: what do the "
                          "weights add up to, and what should they add up to?"),
        "unshifted sum": (lambda: unshifted_sum,
                          "you divide the shifted exps e by the sum of the unshifted ones, "
                          "np.exp(scores).sum(): the two differ by the factor exp(max), and near 1000 that "
                          "sum overflows, so every weight becomes 0. Divide e by its own sum, e.sum()."),
    }, handed_out="planted", handed_out_source=HANDED_OUT_014)


X5 = np.array([[1.0, 1.0], [0.0, 2.0], [1.0, 0.0]])     # exercise 01.5: fresh tokens, as rows; M x_1,
#                                                          x_1 M and x_1 differ: (2, 1), (1, 2), (1, 1)
Wq5 = np.array([[1.0, 1.0], [0.0, 1.0]])                 # the text's M, column vectors: q = M x
V5 = np.array([[0.0, 2.0], [1.0, 0.0], [3.0, -1.0]])     # the values; the text prints only v_1, v_2


def y1_of_01_5() -> np.ndarray:
    """The output y_1 the text prints (its v_3 is smudged): the student recovers v_3 from it."""
    return softmax_unchecked(X5 @ (Wq5 @ X5[0])) @ V5


def rounded_weights_01_5(got: np.ndarray) -> str | None:
    """01.5: the right method with the weights rounded to 1 or 2 decimals, as the heatmaps show them (at 3
    the answer counts), or None."""
    w = softmax_unchecked(X5 @ (Wq5 @ X5[0]))                # (3,) the weights of y_1
    for decimals in (1, 2):
        r = np.round(w, decimals)
        if np.allclose(got, (y1_of_01_5() - r[0] * V5[0] - r[1] * V5[1]) / r[2], rtol=0, atol=TOLERANCE):
            return (f"your method is right, but you rounded the weights to {decimals} decimal"
                    f"{'' if decimals == 1 else 's'} (w = {r.tolist()}); dividing by w_13 magnifies that "
                    "error. Keep at least 3 decimals of each weight.")
    return None


def _missing_value(q_of=lambda x: Wq5 @ x, k_of=lambda x: x, who=0, scale=1.0, divide=True):
    """v_3 recovered from y_1 = sum_j w_1j v_j, with the weights computed one way or another."""
    w = softmax_unchecked(np.array([k_of(x) for x in X5]) @ q_of(X5[who]) * scale)
    rest = y1_of_01_5() - w[0] * V5[0] - w[1] * V5[1]
    return rest / w[2] if divide else rest


def lesson01():
    ex = cats_chase_mice()
    X = ex.X

    def steps_01_1(who=2, scale=1.0, W=False):
        """(2, 4) exercise 01.1: token `who`'s scores over every token, then their softmax."""
        s = (X @ ex.W_k) @ (X[who] @ ex.W_q) if W else X @ X[who]
        return np.vstack([s * scale, softmax(s * scale)])
    return [
        Exercise(
            "01.1", "Without any W matrices, compute the scores s₃ⱼ and the weights w₃ⱼ of token 3 "
                    "('small'), as two rows: the scores first, then the weights.",
            lambda: steps_01_1(), {
             "weights only": (lambda: softmax(X @ X[2]),
                              "these are the weights alone; give two rows: the scores s₃ⱼ = x₃·xⱼ "
                              "first, then the weights."),
             "raw scores": (lambda: X @ X[2],
                             "these are the scores x₃·xⱼ alone; add a second row, the weights: their "
                             "softmax."),
             "scores twice": (lambda: np.vstack([X @ X[2], X @ X[2]]),
                              "your second row is the scores again: turn them into weights with "
                              "softmax."),
             "rows swapped": (lambda: steps_01_1()[::-1],
                              "the right numbers in the wrong order: the scores first, then the "
                              "weights."),
             "off by one (x₂)": (lambda: steps_01_1(1),
                                 "these are the scores and weights of token 2; Python counts from 0, "
                                 "so token 3 is X[2]."),
             "off by one (x₄)": (lambda: steps_01_1(3),
                                 "these are the scores and weights of token 4; Python counts from 0, "
                                 "so token 3 is X[2], not X[3]."),
             "no exp": (lambda: np.vstack([X @ X[2], (X @ X[2]) / (X @ X[2]).sum()]),
                        "you divided the scores by their sum; softmax takes exp of each score "
                        "first, then divides by the sum of the exps."),
             "exp not divided": (lambda: np.vstack([X @ X[2], np.exp(X @ X[2])]),
                                 "your second row is exp of each score; divide it by the sum of the "
                                 "exps, so that the weights sum to 1."),
             "exp minus max not divided": (lambda: np.vstack([X @ X[2], np.exp(X @ X[2] - 1.0)]),
                                           "your second row is exp(score - max); divide it by its "
                                           "sum, so that the weights sum to 1."),
             "scaled": (lambda: steps_01_1(scale=0.5),
                        "you divided the scores by √d_k = 2; this lesson does not scale yet "
                        "(lesson 02 adds ÷√d_k)."),
             "weights scaled": (lambda: np.vstack([X @ X[2], softmax(X @ X[2] / 2.0)]),
                                "your weights come from the scores divided by √d_k = 2; this lesson "
                                "does not scale yet (lesson 02 adds ÷√d_k)."),
             "output and weights": (lambda: np.vstack([softmax(X @ X[2]) @ X, softmax(X @ X[2])]),
                                    "your first row is small's output y₃ = Σⱼ w₃ⱼ xⱼ, not its scores: "
                                    "the scores are the dot products x₃·xⱼ."),
             "with the lesson's W": (lambda: steps_01_1(W=True),
                                     "you used the lesson's W_q and W_k; this exercise has none: the "
                                     "score is x₃·xⱼ, as in steps 2–3."),
            }, expects="two rows of four numbers: the scores s₃ⱼ, then the weights w₃ⱼ", softmax=True),
        Choice("01.2", "Double every entry of W_q. What happens to chase's weights?", "b", {
            "a": "the scores q·k double too, and the softmax of doubled scores is not the same: "
                 "it is sharper (try the temperature slider of lesson 00).",
            "c": "doubling makes the differences between scores larger, so the softmax gets "
                 "sharper, not flatter.",
            "d": "the weights are equal only when every score is equal; doubling keeps the "
                 "scores of cats and mice (2 → 4) apart from the others (0)."}),
        _design_01(),
        _debug_01(),
        Exercise(
            "01.5", "Column-convention text: recover the smudged value v_3 from the printed y_1 "
                    "(no scaling).", _missing_value, {
             "no transpose": (lambda: _missing_value(q_of=lambda x: x @ Wq5),
                              "your weights come from q = x @ M, the text's matrix used as ours (or, "
                              "the same scores, from q = x with keys M x). The text writes q = M x "
                              "with column vectors; for our rows that is x @ M.T "
                              "(al.from_column_convention(M)), and the keys are the tokens, k = x."),
             "no M": (lambda: _missing_value(q_of=lambda x: x),
                      "your weights come from q = x_1, without M: the text's query is q = M x, "
                      "for our rows x @ M.T (al.from_column_convention(M))."),
             "keys through M": (lambda: _missing_value(k_of=lambda x: Wq5 @ x),
                                "your keys also went through M (k = M x); here only the query does: "
                                "q = M x, and the keys are the tokens themselves, k = x."),
             "keys through M, no transpose": (lambda: _missing_value(q_of=lambda x: x @ Wq5,
                                                                     k_of=lambda x: x @ Wq5),
                                              "your queries and keys both come from x @ M: the keys "
                                              "are the tokens themselves (k = x), and the query is "
                                              "q = M x, for our rows x @ M.T."),
             "weights of token 2": (lambda: _missing_value(who=1),
                                    "you used the weights of token 2; y_1 is the output of x_1, X[0] "
                                    "in Python."),
             "not divided by w_13": (lambda: _missing_value(divide=False),
                                     "you found w_13 v_3 = y_1 - w_11 v_1 - w_12 v_2; divide by the "
                                     "weight w_13 to get v_3 itself."),
             "scaled": (lambda: _missing_value(scale=default_scale(2)),
                        "you divided the scores by √2; this text uses no scaling."),
             "y_1 itself": (y1_of_01_5, "that is y_1, the printed output; the question asks for the "
                                       "value v_3 hidden in it.")},
            expects="two numbers, the value v_3", softmax=True, fallback=rounded_weights_01_5),
    ]
