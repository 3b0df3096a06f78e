"""Lesson 09's exercises (registered in exercises.EXERCISES): reading the sources critically."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise
from .matrix import default_scale, softmax
from .sources import source_004

q92 = np.array([1.371, -3.702, 2.628])            # 09.2: a fresh query and key, as a tutorial would
SCALE93 = default_scale(2)                        # 09.3: source 004's d_k = 2
k92 = np.array([4.041, 1.368, -2.358])            # store them, printed with two decimals


def lesson09():
    s4 = source_004()
    X4 = s4.X
    printed = s4.printed["self_output"]

    def right(scale=SCALE93, axis=-1):                 # identity weights: Q = K = V = X
        return softmax(X4 @ X4.T * scale, axis=axis) @ X4

    return [
        Choice("09.1", "Scores [1.2, 1.2, 0.3]: which printed weight row can be right?", "a", {
            "b": "equal scores must get equal weights: the first two differ (source 004 made this "
                 "slip).",
            "c": "the weights sum to 1.1; a softmax row always sums to 1.",
            "d": "the order is wrong: the lowest score (0.3) gets the largest weight, and softmax "
                 "keeps the order of the scores."}),
        Exercise(
            "09.2", "The dot product a tutorial prints if it computes with q and k rounded to 2 decimals.",
            lambda: np.round(q92, 2) @ np.round(k92, 2), {
                "full precision": (lambda: q92 @ k92,
                                   "this is the exact dot product; the tutorial computed with the "
                                   "numbers as printed, rounded to 2 decimals first."),
                "one decimal": (lambda: np.round(q92, 1) @ np.round(k92, 1),
                                "you rounded to one decimal; the tutorial shows two."),
                "cut off": (lambda: np.trunc(q92 * 100) / 100 @ (np.trunc(k92 * 100) / 100),
                            "you cut the digits off after two decimals; printing rounds them "
                            "(2.628 is shown as 2.63)."),
            }, expects="one number, the dot product the tutorial prints"),
        Exercise(
            "09.3", "Source 004's self-attention example: how far off is its printed output? "
                    "Give printed minus right (3 × 2).", lambda: printed - right(), {
                "the right output": (right,
                                     "that is the right output A V; the question asks how far the "
                                     "printout is from it: printed minus right."),
                "right minus printed": (lambda: right() - printed,
                                        "your signs are flipped: printed minus right, not right minus "
                                        "printed."),
                "no scaling": (lambda: printed - right(scale=1.0),
                               "your right output forgot to divide the scores by √d_k = √2."),
                "divided by 2": (lambda: printed - right(scale=0.5),
                                 "you divided the scores by d_k = 2; divide by its square root, √2."),
                "wrong axis": (lambda: printed - right(axis=0),
                               "your softmax ran down the columns; it must run along each row."),
            }, expects="printed minus right, a 3 × 2 array (one row per token)", softmax=True),
    ]
