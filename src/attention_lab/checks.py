"""Self-checked exercises: ✓ for a right answer, a hint naming the likely mistake otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .examples import cats_chase_mice, the_cat_sat, translation
from .loop import attend_one
from .masks import causal_mask, padding_mask
from .matrix import project, scaled_dot_product_attention, softmax
from .sources import source_002, source_004

TOLERANCE = 5e-3   # answers rounded to 2 decimals still count


@dataclass(frozen=True)
class Result:
    """Outcome of a check: status is 'correct', 'unanswered', 'mistake' or 'wrong'."""
    status: str
    message: str
    mistake: str | None = None


class _Checked:
    """What every kind of exercise shares: printing its verdict."""

    def check(self, answer) -> None:
        """Print ✓, a hint, or 'not answered yet' (never raises, so the notebook keeps running)."""
        print(self.evaluate(answer).message)


@dataclass
class Exercise(_Checked):
    """An exercise with its right answer and the typical wrong answers, each with its hint."""
    key: str
    question: str
    solution: Callable[[], np.ndarray]
    mistakes: dict[str, tuple[Callable[[], np.ndarray], str]] = field(default_factory=dict)
    fallback: str = "Not right yet: go through the steps of the lesson again, one at a time."
    kind: str = "compute"

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



@dataclass
class Choice(_Checked):
    """Predict before you run: one letter, and for each wrong letter the reason it is wrong."""
    key: str
    question: str
    answer: str
    reasons: dict[str, str]
    kind: str = "predict"

    def solution(self) -> str:
        return self.answer

    @property
    def mistakes(self) -> dict[str, tuple[Callable[[], str], str]]:
        return {letter: ((lambda letter=letter: letter), why) for letter, why in self.reasons.items()}

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        letter = str(answer).strip().lower().strip("()")
        if letter == self.answer:
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        if letter in self.reasons:
            return Result("mistake", f"Exercise {self.key}: not yet. ({letter}) {self.reasons[letter]}",
                          letter)
        choices = ", ".join(sorted([self.answer, *self.reasons]))
        return Result("wrong", f"Exercise {self.key}: answer with one letter: {choices}.")

@dataclass
class Trial(_Checked):
    """Design or debug: the check runs the student's matrix or function and judges what it does.

    `judge(answer)` returns None when right, else the name of a known mistake, or a message.
    """
    key: str
    question: str
    kind: str
    solution: Callable[[], object]
    judge: Callable[[object], str | None]
    mistakes: dict[str, tuple[Callable[[], object], str]]

    def evaluate(self, answer) -> Result:
        if answer is None or answer is Ellipsis:
            return Result("unanswered", f"Exercise {self.key}: not answered yet.")
        verdict = self.judge(answer)
        if verdict is None:
            return Result("correct", f"Exercise {self.key}: ✓ correct.")
        if verdict in self.mistakes:
            return Result("mistake", f"Exercise {self.key}: not yet. Hint: {self.mistakes[verdict][1]}",
                          verdict)
        return Result("wrong", f"Exercise {self.key}: {verdict}")

def _design_01():
    """01.3: a W_q with which 'small' listens most to 'mice' (weight > 0.6), keys = X, no scaling."""
    X = cats_chase_mice().X

    def weights(W):
        return softmax((X[2] @ W) @ X.T)                   # (4,) small's weights, W_k = I, scale 1

    def solution():
        W = np.zeros((4, 4))
        W[3, 0] = W[3, 3] = 2.0                            # small asks: "a noun? and small?"
        return W

    def judge(answer):
        try:
            W = np.array(answer, dtype=float)
        except (TypeError, ValueError):
            return f"expected a 4 × 4 matrix of numbers, got {type(answer).__name__}."
        if W.shape != (4, 4) or not np.isfinite(W).all():
            return (f"expected a finite 4 × 4 matrix (rows: features of x, columns: what the query "
                    f"asks for), got shape {W.shape}.")
        w = weights(W)
        if np.argmax(w) == 3 and w[3] > 0.6 and w[3] - np.sort(w)[-2] > 1e-9:
            return None
        wt = weights(W.T)
        if np.argmax(wt) == 3 and wt[3] > 0.6:
            return "transposed"
        if np.isclose(w[0], w[3]) and w[3] >= w.max() - 1e-12:
            return "noun only"
        if np.isclose(w[2], w[3]) and w[3] >= w.max() - 1e-12:
            return "small only"
        if np.argmax(w) == 3:
            return "too weak"
        return (f"with your W_q, small's weights are {np.round(w, 3)}: mice (the last) must get the "
                "most, more than 0.6. Row 'small' of W_q decides what small's query asks for.")

    def only(col, value=2.0):
        W = np.zeros((4, 4))
        W[3, col] = value
        return W

    weak = solution() * 0.2
    return Trial("01.3", "Design W_q so that 'small' listens most to 'mice'.", "design", solution, judge, {
        "transposed": (lambda: solution().T,
                       "your matrix works when transposed: row i of W_q belongs to feature i of x "
                       "(q = x @ W_q), so small's question goes in row 'small' (index 3)."),
        "noun only": (lambda: only(0),
                      "cats and mice tie: both are nouns. Ask for a second feature that only mice has."),
        "small only": (lambda: only(3),
                       "small ties with mice: x_small · x_small = x_small · x_mice = 1. Asking only "
                       "'small?' cannot separate them; ask for 'noun' too."),
        "too weak": (lambda: weak,
                     "mice wins, but by too little: make your entries larger, so that the softmax "
                     "decides more sharply."),
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

    def judge(fn):
        if not callable(fn):
            return f"expected your fixed function (weights_of itself), got {type(fn).__name__}."
        outs = []
        for q_ in (q, big):
            try:
                with np.errstate(all="ignore"):
                    outs.append(np.asarray(fn(q_.copy(), K.copy()), dtype=float))
            except Exception as exc:     # a student's function may fail in any way: report it
                return f"your function raised {type(exc).__name__}: {exc}"
        for (name, wrong) in (("planted", planted), ("no exp", no_exp)):
            if outs[0].shape == (5,) and np.allclose(outs[0], wrong(q, K)):
                return name
        if outs[0].shape == (5,) and np.allclose(outs[0], reference(q, K)):
            if outs[1].shape == (5,) and np.allclose(outs[1], reference(big, K)):
                return None
            return "no max"
        return (f"on fresh inputs your function returns {np.round(outs[0], 3)}; the weights must "
                "be positive and sum to 1 (a softmax of the scores K @ q).")

    return Trial("01.4", "Fix weights_of: one line is wrong.", "debug", lambda: reference, judge, {
        "planted": (lambda: planted,
                    "still the planted bug. Print weights_of(q, K) for a small q and K: what do "
                    "the weights add up to, and what should they add up to?"),
        "no max": (lambda: no_max,
                   "right on small scores, but scores near 1000 overflow exp and give nan: keep "
                   "subtracting the maximum score before exp."),
        "no exp": (lambda: no_exp,
                   "the scores divided by their sum can be negative and do not follow the softmax: "
                   "take exp of each score first."),
    })


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


X5 = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, -1.0]])    # exercise 01.5: fresh tokens, as rows
Wq5 = np.array([[1.0, 1.0], [0.0, 1.0]])                 # in a column-vector text: q = Wq5 x
Wv5 = np.array([[0.0, 1.0], [1.0, 0.0]])                 # v = Wv5 x: swaps the two features


def _lesson01():
    X = cats_chase_mice().X
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
            "01.5", "Fresh tokens, column-convention weights: compute y_1 (no scaling).",
            lambda: attend_one(0, X5, Wq5.T, np.eye(2), Wv5.T, scale=1.0)[0],
            {"no transpose": (lambda: attend_one(0, X5, Wq5, np.eye(2), Wv5, scale=1.0)[0],
                              "the text writes q = W x with column vectors; for our rows that is "
                              "x @ W.T (al.from_column_convention(W))."),
             "off by one": (lambda: attend_one(1, X5, Wq5.T, np.eye(2), Wv5.T, scale=1.0)[0],
                            "that is y_2; Python counts from 0, so y_1 is the output of X[0]."),
             "forgot W_v": (lambda: attend_one(0, X5, Wq5.T, np.eye(2), np.eye(2), scale=1.0)[0],
                            "you averaged the tokens x_j; the sum runs over the values "
                            "v_j = x_j @ W_v.T.")}),
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
