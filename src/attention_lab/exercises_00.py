"""Lesson 00's exercises (registered in exercises.EXERCISES): start here, shapes, layouts and indices."""

from __future__ import annotations

import numpy as np

from .checks import Exercise

SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def not_the_shape(got: np.ndarray) -> str:
    """00.1: what two numbers that are no known mistake are not."""
    if not all(float(g).is_integer() and g >= 0 for g in got):
        return "a shape holds whole numbers, counts of rows and columns; Q Kᵀ for n = 7 and d_k = 16 has " \
               "one row per query and one column per key."
    return (f"({got[0]:g}, {got[1]:g}) is not the shape of Q Kᵀ for n = 7 and d_k = 16: Q is (n, d_k), "
            "Kᵀ is (d_k, n), and a product (a, b) @ (b, c) has shape (a, c).")


def not_the_row(got: np.ndarray) -> str:
    """00.3: which token the row a student named holds."""
    i = float(got)
    if not i.is_integer():
        return "an index is a whole number: X[0] is the first row, X[1] the second, and so on."
    if abs(i) >= 1000:
        return "the lesson's X has a few rows, one per token; x₃ is the third from the start."
    if i < 0:
        return (f"X[{i:.0f}] counts from the end: it is token number {-i:.0f} from the end, whatever n is; "
                "x₃ is the third from the start.")
    return (f"row {i:.0f}, X[{i:.0f}], holds x{str(int(i) + 1).translate(SUBSCRIPT)}: Python counts rows "
            "from 0, maths counts tokens from 1.")


def lesson00():
    W_t = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])   # nn.Linear(3, 2).weight: (out, in)
    return [
        Exercise(
            "00.1", "The shape of Q Kᵀ for n = 7 tokens and d_k = 16, as [rows, columns].",
            lambda: np.array([7, 7]),
            {"shape of Q": (lambda: np.array([7, 16]),
                            "(7, 16) is the shape of Q (or K); Q Kᵀ compares every token with every "
                            "token: (n, d_k) @ (d_k, n)."),
             "Q transposed first": (lambda: np.array([16, 16]),
                                    "(16, 16) would be Qᵀ K; the scores are Q @ K.T, one row per "
                                    "query."),
             "shape of K.T": (lambda: np.array([16, 7]),
                              "(16, 7) is the shape of Kᵀ, the right factor; the product keeps the rows "
                              "of Q (7) and the columns of Kᵀ (7)."),
             "number of entries": (lambda: np.array(49),
                                   "49 = 7 × 7 is the number of scores; give the shape itself, "
                                   "[rows, columns]."),
             "three axes": (lambda: np.array([7, 7, 16]),
                            "Q Kᵀ has two axes, one row per query and one column per key: the d_k = 16 "
                            "products of each pair are summed into one score.")},
            expects="two numbers, the shape of Q Kᵀ as [rows, columns]", fallback=not_the_shape),
        Exercise(
            "00.2", "nn.Linear(3, 2) stores weight = [[1, 2, 3], [4, 5, 6]]. Give our W (3 × 2).",
            lambda: W_t.T,
            {"PyTorch layout": (lambda: W_t,
                                "that is PyTorch's layout (out_features, in_features) = (2, 3); ours "
                                "is (in, out): the transpose."),
             "reshaped": (lambda: W_t.reshape(3, 2),
                          "reshape keeps the numbers in reading order; you need the transpose, "
                          "weight.T."),
             "columns swapped": (lambda: W_t.T[:, ::-1],
                                 "the transpose puts weight's row 0, (1, 2, 3), in column 0 of W: "
                                 "W[i, j] = weight[j, i]."),
             "rows reversed": (lambda: W_t.T[::-1],
                               "your rows are in reverse order: row i of W is column i of weight, "
                               "W[i, j] = weight[j, i], so W's row 0 holds weight's column 0."),
             "inverse": (lambda: np.linalg.pinv(W_t),
                         "that is an inverse (pinv); the layouts differ by a transpose only, which "
                         "swaps rows and columns: weight.T.")},
            expects="our W, a 3 × 2 array (rows: the 3 inputs, columns: the 2 outputs)"),
        Exercise(
            "00.3", "Which row of X (a Python index) holds the token x₃?",
            lambda: np.array(2),
            {"counted from 1": (lambda: np.array(3),
                                "maths counts tokens from 1, Python from 0: x₃ is X[2]."),
             "one too few": (lambda: np.array(1),
                             "X[1] is x₂; x₃ is one further, X[2]."),
             "counted from the end": (lambda: np.array(-1),
                                      "X[-1] is the last token, whatever n is; x₃ is the third from "
                                      "the start, X[2].")}, expects="one index, the row of X that holds x₃",
            fallback=not_the_row),
    ]
