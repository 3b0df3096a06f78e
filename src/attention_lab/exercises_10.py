"""Lesson 10's exercises (registered in exercises.EXERCISES): reading the sources critically."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise
from .judging import rounded_right
from .matrix import default_scale, softmax
from .sources import source_004

q102 = np.array([1.371, -3.702, 2.628])            # 10.2: a fresh query and key, as a tutorial would
SCALE103 = default_scale(2)                        # 10.3: source 004's d_k = 2
k102 = np.array([4.041, 1.368, -2.358])            # store them, printed with two decimals

ONE_ROUNDED_CLOSE = 1e-3
"""10.2: rounding only q gives -5.72697, only k -5.73498; the latter is 0.006 from the right answer, too close
for a named mistake (those keep twice the tolerance, 0.01, away). An answer within this of either, and not
accepted, is that slip: the k window ends 0.005 from the right answer, so no answer is both."""


SIGN_CLOSE = 0.05
"""10.2: a positive answer this close to minus the right one (-5.741) is that number with its sign lost: the
exact product's +5.7209 is 0.02 away."""


def one_rounded_10_2(got: np.ndarray) -> str | None:
    """10.2: the dot product with only one of q and k rounded, or its sign lost, or None. Given with 2
    decimals, both one-vector slips print -5.73, so that answer is told it rounded one of the two, not
    which."""
    value = float(got)
    if value > 0 and abs(value + np.round(q102, 2) @ np.round(k102, 2)) <= SIGN_CLOSE:
        return ("check the sign: two of the three products q_i k_i are negative, and together they outweigh "
                "the positive one.")
    q_only, k_only = np.round(q102, 2) @ k102, q102 @ np.round(k102, 2)
    tail = "the tutorial shows both vectors with two decimals, and computes with both as shown."
    if round(q_only, 2) == round(k_only, 2) and abs(value - round(q_only, 2)) < 5e-4:
        return f"you rounded only one of the two vectors (q or k); {tail}"
    if abs(value - q_only) <= ONE_ROUNDED_CLOSE:
        return f"you rounded q only; {tail}"
    if abs(value - k_only) <= ONE_ROUNDED_CLOSE:
        return f"you rounded k only; {tail}"
    return None


def lesson10():
    s4 = source_004()
    X4 = s4.X
    printed = s4.printed["self_weights"]                # (3, 3) the weights the source printed

    def read_back(w=printed, log=np.log):              # (3, 2): s_j - s_0 that a row of weights implies
        return log(w[:, 1:] / w[:, :1])

    def real(scale=SCALE103):                           # (3, 2): s_j - s_0 of the real scores X Xᵀ/√2
        S = X4 @ X4.T * scale
        return S[:, 1:] - S[:, :1]

    def rounded_10_3(got):                           # the right steps, the numbers rounded too far
        if rounded_right(got, read_back() - real()):
            return "right to one decimal: give at least two (or pass the array itself)."
        return None

    return [
        Choice("10.1", "Scores [1.2, 1.2, 0.3]: which printed weight row can be right?", "a", {
            "b": "equal scores must get equal weights: the first two differ (source 004 made this "
                 "slip).",
            "c": "the weights sum to 1.1, more than the rounding of three 2-decimal numbers allows "
                 "(1 ± 0.015); a softmax row sums to 1.",
            "d": "the order is wrong: the lowest score (0.3) gets the largest weight, and softmax "
                 "keeps the order of the scores."},
            remark='Section 1\'s helper agrees: al.printout_problems(scores, rows["a"], score_tol=0.05) '
                   "returns [] (score_tol=0.05 as the scores show 1 decimal; tol keeps its default, that of "
                   "2 decimals). On b, c and d it names what you checked by hand: unequal weights for equal "
                   "scores, a sum of 1.1, and the order."),
        Exercise(
            "10.2", "The dot product a tutorial prints if it computes with q and k rounded to 2 decimals.",
            lambda: np.round(q102, 2) @ np.round(k102, 2), {
                "full precision": (lambda: q102 @ k102,
                                   "this is the exact dot product; the tutorial computed with the "
                                   "numbers as printed, rounded to 2 decimals first."),
                "one decimal": (lambda: np.round(q102, 1) @ np.round(k102, 1),
                                "you rounded to one decimal; the tutorial shows two."),
                "result to one decimal": (lambda: np.round(np.round(q102, 2) @ np.round(k102, 2), 1),
                                          "you rounded the result to one decimal: at that precision "
                                          "the rounding cannot be seen (the exact dot product rounds "
                                          "to the same number). Give it with two decimals or more."),
                "cut off": (lambda: np.trunc(q102 * 100) / 100 @ (np.trunc(k102 * 100) / 100),
                            "you cut the digits off after two decimals; printing rounds them "
                            "(2.628 is shown as 2.63)."),
            }, expects="one number, the dot product the tutorial prints", fallback=one_rounded_10_2),
        Exercise(
            "10.3", "Source 004's printed weights, read back: the score differences s_j - s_0 (j = 1, 2) "
                    "that each printed row implies, minus those of the real scores X Xᵀ/√2 (3 × 2).",
            lambda: read_back() - real(), {
                "implied only": (read_back,
                                 "these are the differences the printed rows imply; subtract those of "
                                 "the real scores, X Xᵀ/√2, to see how far off each is."),
                "real only": (real,
                              "these are the differences of the real scores; the question asks for "
                              "the ones the printed weights imply, minus these."),
                "signs flipped": (lambda: real() - read_back(),
                                  "your signs are flipped: the question asks implied minus real, each "
                                  "as s_j - s_0; you have real minus implied, or differences s_0 - s_j "
                                  "on both sides."),
                "ratios inverted": (lambda: -read_back() - real(),
                                    "ln(w_0 / w_j) is s_0 - s_j: the ratio goes the other way, "
                                    "ln(w_j / w_0) = s_j - s_0."),
                "no logarithm": (lambda: printed[:, 1:] / printed[:, :1] - real(),
                                 "a ratio of weights is e to the power of a score difference: "
                                 "w_j / w_0 = exp(s_j - s_0). Take the natural logarithm of it."),
                "weight differences": (lambda: printed[:, 1:] - printed[:, :1] - real(),
                                       "a difference of weights is not a difference of scores: the "
                                       "softmax divides, so read the ratio, s_j - s_0 = ln(w_j / w_0)."),
                "base-10 logarithm": (lambda: read_back(log=np.log10) - real(),
                                      "the softmax uses e: take the natural logarithm (np.log), not "
                                      "np.log10."),
                "no scaling": (lambda: read_back() - real(scale=1.0),
                               "your real scores forgot to divide by √d_k = √2."),
                "divided by 2": (lambda: read_back() - real(scale=0.5),
                                 "you divided the real scores by d_k = 2; divide by its square root, "
                                 "√2."),
                "recomputed weights": (lambda: read_back(softmax(X4 @ X4.T * SCALE103)) - real(),
                                       "all zeros: either you read back the recomputed weights, which "
                                       "agree with the real scores by construction (read back the "
                                       "printed ones, s4.printed['self_weights']), or you rounded to "
                                       "whole numbers, which turns every difference below 0.5 in size "
                                       "into 0: give at least two decimals."),
            },
            expects="implied minus real score differences, a 3 × 2 array "
                    "(one row per printed row, one column per j = 1, 2)", fallback=rounded_10_3),
    ]
