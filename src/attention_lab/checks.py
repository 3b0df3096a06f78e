"""Self-checked exercises: ✓ for a right answer, a hint naming the likely mistake otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .examples import cats_chase_mice, the_cat_sat, translation
from .loop import attend_one
from .masks import causal_mask, padding_mask
from .matrix import project, scaled_dot_product_attention, softmax
from .notation import from_column_convention
from .sources import source_000, source_002, source_004

TOLERANCE = 5e-3   # answers rounded to 2 decimals still count


@dataclass(frozen=True)
class Result:
    """Outcome of a check: status is 'correct', 'unanswered', 'mistake' or 'wrong'."""
    status: str
    message: str
    mistake: str | None = None


@dataclass
class Exercise:
    """An exercise with its right answer and the typical wrong answers, each with its hint."""
    key: str
    question: str
    solution: Callable[[], np.ndarray]
    mistakes: dict[str, tuple[Callable[[], np.ndarray], str]] = field(default_factory=dict)
    fallback: str = "Not right yet: go through the steps of the lesson again, one at a time."

    def evaluate(self, answer) -> Result:
        """Compare an answer with the solution and with each known mistake."""
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        expected = np.asarray(self.solution(), dtype=float)
        try:
            got = np.array(answer, dtype=float)
        except (TypeError, ValueError):
            return Result("wrong", f"Exercise {self.key}: expected numbers of shape "
                                   f"{expected.shape}, got {type(answer).__name__} {answer!r}.")
        if got.dtype == object or not np.isfinite(got).all():
            return Result("wrong", f"Exercise {self.key}: your answer contains NaN or inf; "
                                   "did a softmax overflow? Subtract the maximum score first.")
        if got.shape == expected.shape and np.allclose(got, expected, rtol=0, atol=TOLERANCE):
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        for name, (wrong, hint) in self.mistakes.items():   # a known mistake may have its own shape
            mistaken = np.asarray(wrong(), dtype=float)
            if got.shape == mistaken.shape and np.allclose(got, mistaken, rtol=0, atol=TOLERANCE):
                return Result("mistake", f"Exercise {self.key}: not yet. Hint: {hint}", name)
        if got.shape != expected.shape:
            return Result("wrong", f"Exercise {self.key}: expected shape {expected.shape}, got "
                                   f"{got.shape}. One number per token or per component.")
        return Result("wrong", f"Exercise {self.key}: {self.fallback}")

    def check(self, answer) -> None:
        """Print ✓, a hint, or 'not answered yet' (never raises, so the notebook keeps running)."""
        print(self.evaluate(answer).message)


def _lesson00():
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
                                    "query.")}),
        Exercise(
            "00.2", "nn.Linear(3, 2) stores weight = [[1, 2, 3], [4, 5, 6]]. Give our W (3 × 2).",
            lambda: W_t.T,
            {"PyTorch layout": (lambda: W_t,
                                "that is PyTorch's layout (out_features, in_features) = (2, 3); ours "
                                "is (in, out): the transpose."),
             "reshaped": (lambda: W_t.reshape(3, 2),
                          "reshape keeps the numbers in reading order; you need the transpose, "
                          "weight.T (or al.from_torch_linear).")}),
        Exercise(
            "00.3", "Which row of X (a Python index) holds the token x₃?",
            lambda: np.array(2),
            {"counted from 1": (lambda: np.array(3),
                                "maths counts tokens from 1, Python from 0: x₃ is X[2]."),
             "one too few": (lambda: np.array(1),
                             "X[1] is x₂; x₃ is one further, X[2].")}),
    ]


def _lesson01():
    ex = cats_chase_mice()
    X, W_q, W_k, W_v = ex.X, ex.W_q, ex.W_k, ex.W_v
    src = source_000()
    Wk_row = from_column_convention(src["W_k"])
    return [
        Exercise(
            "01.1", "Without any W matrices, compute the weights w₃ⱼ of token 3 ('small').",
            lambda: softmax(X @ X[2]),
            {"raw scores": (lambda: X @ X[2],
                            "these are the scores x₃·xⱼ; turn them into weights with softmax."),
             "off by one (x₂)": (lambda: softmax(X @ X[1]),
                                 "these are the weights of token 2; Python counts from 0, so "
                                 "token 3 is X[2]."),
             "off by one (x₄)": (lambda: softmax(X @ X[3]),
                                 "these are the weights of token 4; Python counts from 0, so "
                                 "token 3 is X[2], not X[3]."),
             "no exp": (lambda: (X @ X[2]) / (X @ X[2]).sum(),
                        "you divided the scores by their sum; softmax takes exp of each score "
                        "first, then divides by the sum of the exps.")}),
        Exercise(
            "01.2", "With W_q, W_k, W_v of the lesson (no scaling), compute y₃ of token 'small'.",
            lambda: attend_one(2, X, W_q, W_k, W_v, scale=1.0)[0],
            {"forgot W_v": (lambda: softmax((X[2] @ W_q) @ (X @ W_k).T) @ X,
                            "you averaged the tokens xⱼ; the weighted sum runs over the values "
                            "vⱼ = xⱼ W_v."),
             "scaled": (lambda: attend_one(2, X, W_q, W_k, W_v)[0],
                        "you divided the scores by √d_k = 2; this lesson (like its source) does "
                        "not scale yet: use scale=1."),
             "transposed W": (lambda: attend_one(2, X, W_q.T, W_k.T, W_v.T, scale=1.0)[0],
                              "you used W.T: in the row convention a token is a row and "
                              "q = x @ W_q, not x @ W_q.T."),
             "off by one": (lambda: attend_one(1, X, W_q, W_k, W_v, scale=1.0)[0],
                            "that is y₂ of 'chase'; Python counts from 0, so token 3 is index 2.")}),
        Exercise(
            "01.3", "In our row convention, compute the key k₃ of the source's x₃ (source 000).",
            lambda: src["x"][2] @ Wk_row,
            {"no transpose": (lambda: src["x"][2] @ src["W_k"],
                              "the source writes k = W_k x with column vectors; for a row x "
                              "that is x @ W_k.T (from_column_convention(W_k))."),
             "off by one": (lambda: src["x"][1] @ Wk_row,
                            "that is k₂; Python counts from 0, so x₃ is x[2]."),
             "query": (lambda: src["x"][2] @ from_column_convention(src["W_q"]),
                       "you used W_q; the key comes from W_k.")}),
    ]


def _lesson02():
    ex = cats_chase_mice()
    Q, K, _ = project(ex.X, ex.W_q, ex.W_k, ex.W_v)
    s2 = source_002()
    S2 = s2["x"] @ s2["W_q"] @ (s2["x"] @ s2["W_k"]).T
    s4 = source_004()
    X4, I2 = s4["X"], s4["W"]
    printed4 = s4["printed"]["self_output"]
    return [
        Exercise(
            "02.1", "Compute the weight matrix A = softmax(Q Kᵀ / √d_k) of the lesson's example.",
            lambda: softmax(Q @ K.T / 2.0),
            {"no scaling": (lambda: softmax(Q @ K.T),
                            "you forgot to divide the scores by √d_k = 2 before the softmax."),
             "wrong axis": (lambda: softmax(Q @ K.T / 2.0, axis=0),
                            "your columns sum to 1, not your rows: the softmax runs along each "
                            "row (axis=-1), one row per query."),
             "no transpose": (lambda: softmax(Q @ K / 2.0),
                              "you multiplied Q @ K; the scores are Q @ K.T (every query row "
                              "with every key row)."),
             "divided by d_k": (lambda: softmax(Q @ K.T / 4.0),
                                "you divided by d_k = 4; divide by its square root, √d_k = 2."),
             "no softmax": (lambda: Q @ K.T / 2.0,
                            "these are the scaled scores; apply softmax to each row to get weights.")}),
        Exercise(
            "02.2", "Source 002 with scaling: the weights of input 1 (first row), dividing by √3.",
            lambda: softmax(S2[0] / np.sqrt(3)),
            {"unscaled": (lambda: softmax(S2[0]),
                          "these are the source's unscaled weights; divide the scores by √d_k = √3 "
                          "first."),
             "divided by d_k": (lambda: softmax(S2[0] / 3),
                                "you divided by d_k = 3; divide by √3 ≈ 1.732."),
             "wrong row": (lambda: softmax(S2[1] / np.sqrt(3)),
                           "that is the row of input 2; input 1 is row 0.")}),
        Exercise(
            "02.3", "Source 004's self-attention example: compute the output A V (3×2).",
            lambda: scaled_dot_product_attention(X4 @ I2, X4 @ I2, X4 @ I2)[0],
            {"source's printout": (lambda: printed4,
                                   "that is what the source printed, and it is wrong: recompute "
                                   "the softmax of each row of Q Kᵀ / √2."),
             "wrong axis": (lambda: softmax(X4 @ X4.T / np.sqrt(2), axis=0) @ X4,
                            "your softmax ran down the columns; it must run along each row."),
             "no scaling": (lambda: softmax(X4 @ X4.T) @ X4,
                            "you forgot to divide the scores by √d_k = √2.")}),
    ]


def exercise_03_output_weights() -> np.ndarray:
    """The W_O used in exercise 03.2 (fixed, seeded)."""
    return np.round(np.random.default_rng(3).standard_normal((4, 4)), 1)


def _lesson03():
    ex = the_cat_sat()
    X, W_q, W_k, W_v = ex.X, ex.W_q, ex.W_k, ex.W_v
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    heads = [scaled_dot_product_attention(Q[:, c], K[:, c], V[:, c])[0] for c in (slice(0, 2), slice(2, 4))]
    W_o = exercise_03_output_weights()   # a W_O that is not the identity
    return [
        Exercise(
            "03.1", "Concatenate the outputs of the two heads (each 6 × 2) into one 6 × 4 array.",
            lambda: np.hstack(heads),
            {"wrong order": (lambda: np.hstack(heads[::-1]),
                             "head 2 comes first in your answer; concatenate in order: head 1's "
                             "columns, then head 2's."),
             "stacked rows": (lambda: np.vstack(heads),
                              "you stacked the heads as extra rows (12 × 2); put them side by side: "
                              "np.hstack or np.concatenate(..., axis=1)."),
             "added": (lambda: heads[0] + heads[1],
                       "you added the heads; concatenating keeps both, side by side (6 × 4).")}),
        Exercise(
            "03.2", "Apply W_O = al.exercise_03_output_weights() to the concatenation of exercise 03.1.",
            lambda: np.hstack(heads) @ W_o,
            {"forgot W_O": (lambda: np.hstack(heads),
                            "this is the concatenation alone; multi-head attention ends with @ W_O."),
             "transposed W_O": (lambda: np.hstack(heads) @ W_o.T,
                                "you used W_O.T; in the row convention it is Concat(heads) @ W_O."),
             "W_O first": (lambda: W_o @ np.hstack(heads).T,
                           "W_O goes on the right: Concat(heads) @ W_O, shape (6, 4).")}),
        Exercise(
            "03.3", "Give the queries of head 2 only, Q⁽²⁾ (6 × 2), taken from Q = X W_q.",
            lambda: Q[:, 2:4],
            {"rows instead of columns": (lambda: Q[2:4, :],
                                         "you cut out rows (tokens); a head takes all tokens and "
                                         "a block of columns: Q[:, 2:4]."),
             "head 1": (lambda: Q[:, 0:2],
                        "these are head 1's columns 0-1; head 2 has columns k:2k = 2:4."),
             "whole Q": (lambda: Q,
                         "this is all of Q; head 2 uses only its own k = 2 columns.")}),
    ]


def _lesson04():
    ex = translation()
    Xd, Xe = ex.X_dec, ex.X_enc
    d = Xd.shape[1]
    S_self = (Xd @ ex.self_W_q) @ (Xd @ ex.self_W_k).T / np.sqrt(d)     # (4, 4)
    causal = causal_mask(len(Xd))
    S_cross = (Xd @ ex.cross_W_q) @ (Xe @ ex.cross_W_k).T / np.sqrt(d)  # (4, 6)
    keys = padding_mask([ex.enc_length], len(Xe))[0]                       # (6,)
    pad2 = padding_mask([4], 5)[0]                                            # sentence of 4, padded to 5
    return [
        Exercise(
            "04.1", "Causal-masked self-attention weights of the 4 French tokens (4 × 4).",
            lambda: softmax(np.where(causal, S_self, -np.inf)),
            {"mask after softmax": (lambda: softmax(S_self) * causal,
                                    "you masked after the softmax, so the rows no longer sum to 1; "
                                    "mask the scores (with -inf) before the softmax."),
             "wrong triangle": (lambda: softmax(np.where(causal.T, S_self, -np.inf)),
                                "you kept the upper triangle: each token saw the future; token i may "
                                "only see keys j <= i (np.tril)."),
             "no mask": (lambda: softmax(S_self),
                         "no mask at all: 'le' may not look at 'chat', which comes later.")}),
        Exercise(
            "04.2", "Cross-attention weights: French queries over the English keys, padding masked (4 × 6).",
            lambda: softmax(np.where(keys, S_cross, -np.inf)),
            {"no padding mask": (lambda: softmax(S_cross),
                                 "'<pad>' got some weight; mask the padding key (last column)."),
             "queries and keys swapped": (lambda: softmax(S_cross.T),
                                          "your rows are English words: the queries come from the "
                                          "decoder (French), keys and values from the encoder."),
             "wrong axis": (lambda: softmax(np.where(keys, S_cross, -1e9), axis=0),
                            "your columns sum to 1; in cross-attention each row (query) sums to 1, "
                            "columns need not.")}),
        Exercise(
            "04.3", "The boolean mask (5 × 5) for causal self-attention over a sentence of 4 tokens "
                    "padded to 5.",
            lambda: causal_mask(5) & pad2[None, :],
            {"causal only": (lambda: causal_mask(5),
                             "the padded position (last column) must be masked too: combine with &."),
             "padding only": (lambda: np.broadcast_to(pad2[None, :], (5, 5)),
                              "the future is visible; combine the padding mask with the causal mask."),
             "padding on queries": (lambda: causal_mask(5) & pad2[:, None],
                                    "you masked the padded query row; padding masks the keys "
                                    "(columns): mask[:, j] = False for padded j.")}),
    ]


EXERCISES = {e.key: e for e in (*_lesson00(), *_lesson01(), *_lesson02(), *_lesson03(), *_lesson04())}


def check(key: str, answer: object) -> None:
    """Check the answer to exercise `key` (for example '01.2') and print ✓ or a hint."""
    if key not in EXERCISES:
        raise ValueError(f"no exercise {key!r}: the exercises are {sorted(EXERCISES)}")
    EXERCISES[key].check(answer)
