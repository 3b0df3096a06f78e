"""Lesson 04's exercises (registered in exercises.EXERCISES): masks and cross-attention."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial
from .judging import as_numbers, hinted, judge_fix
from .masks import causal_mask
from .matrix import default_scale, scaled_dot_product_attention, softmax


def _packed(causal=True, blocks=True) -> np.ndarray:
    """The mask of two sentences (tokens 0-2 and 3-5) packed into one sequence of 6."""
    same = np.kron(np.eye(2, dtype=bool), np.ones((3, 3), dtype=bool))
    return (causal_mask(6) if causal else True) & (same if blocks else True)


def _design_04():
    """04.2: a mask for two sentences packed into one sequence: causal, and blind to the other one."""
    rng = np.random.default_rng(42)
    Q, K, V = (rng.standard_normal((6, 3)) for _ in range(3))
    wrong = {"causal only": _packed(blocks=False), "blocks only": _packed(causal=False),
             "upper triangle": _packed().T, "inverted": ~_packed()}

    def judge(answer):
        M = as_numbers(answer, (6, 6), "a mask")
        if isinstance(M, str):
            return M
        if not np.isin(M, (0, 1)).all():
            return "a mask holds True/False (or 1/0): True where the query may look at the key."
        M = M.astype(bool)
        if np.array_equal(M, ~_packed()):
            return "inverted"
        if not M.any(axis=1).all():
            return (f"row {int(np.argmin(M.any(axis=1)))} of your mask is all False: that query "
                    "could look at nothing. Every token may at least look at itself.")
        w = scaled_dot_product_attention(Q, K, V, mask=M)[1]          # run it: who listens to whom
        if np.array_equal(w > 0, _packed()):
            return None
        for name, m in wrong.items():
            if np.array_equal(M, m):
                return name
        extra = [(int(i), int(j)) for i, j in zip(*np.nonzero(M & ~_packed()))]
        missing = [(int(i), int(j)) for i, j in zip(*np.nonzero(~M & _packed()))]
        parts = [f"{what}, (i, j) = {pairs[:4]}" for what, pairs in (
            ("query i may look at key j where it must not", extra),
            ("query i may not look at key j where it should", missing)) if pairs]
        return ("with your mask " + "; ".join(parts) + ". A token sees itself and the earlier tokens "
                "of its own sentence, nothing else.")

    return Trial("04.2", "Design the mask for two sentences packed into one sequence of 6.", "design",
                 _packed, judge, hinted(wrong, {
        "causal only": "the future is hidden, but the second sentence still sees the first: "
                       "combine with a block mask (& ) that keeps each sentence to itself.",
        "blocks only": "each sentence keeps to itself, but sees its own future: combine with the "
                       "causal mask, np.tril.",
        "upper triangle": "your mask is transposed: rows are queries, so row i may be True only at "
                          "columns j <= i.",
        "inverted": "your mask is the exact opposite: True where a token must not look. That is "
                    "PyTorch's convention (nn.MultiheadAttention: True = masked); here True means "
                    "'may look'.",
    }))


def _debug_04():
    """04.3: masked_weights multiplies by the mask; the check runs the fix on fresh scores."""
    rng = np.random.default_rng(43)
    S = 3 * rng.standard_normal((3, 4))
    mask = np.array([[True, False, True, False], [True, True, False, False], [False, True, True, True]])

    def right(S_, m):
        return softmax(np.where(m, S_, -np.inf))

    wrong = {"planted": lambda S_, m: softmax(S_ * m),
             "after softmax": lambda S_, m: softmax(S_) * m,
             "inverted": lambda S_, m: softmax(np.where(m, -np.inf, S_))}

    judge = judge_fix(right, wrong, [(S, mask)], "expected weights that are 0 on masked keys and sum "
                       "to 1 in every row (a softmax over the allowed keys).")

    return Trial("04.3", "Fix masked_weights(S, mask): one line is wrong.", "debug", lambda: right, judge,
                 hinted(wrong, {
        "planted": "still the planted bug: a masked score multiplied by False becomes 0, and "
                   "exp(0) = 1 is not 0. Replace masked scores with -inf instead.",
        "after softmax": "masking after the softmax leaves rows that no longer sum to 1: mask the "
                         "scores before it.",
        "inverted": "you hid the allowed keys and kept the masked ones: here True means 'may look'. "
                    "(PyTorch's nn.MultiheadAttention takes the opposite, True = masked: convert with "
                    "~mask.)",
    }))


Xd44 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])                    # 04.4: 2 fresh decoder tokens
SCALE44 = default_scale(3)                                    # 04.4: d_k = 3
Xe44 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])   # 3 + <pad>


def lesson04():
    keys = np.arange(4) < 3                                  # the encoder's real tokens; <pad> is last

    def layer(causal="tril", pad="mask", scale=SCALE44, first=True):
        """Causal self-attention of the decoder (W = I), then cross-attention to the encoder."""
        Y1 = Xd44
        if first:
            S = Xd44 @ Xd44.T * scale
            if causal == "tril":
                S = np.where(np.tril(np.ones((2, 2), dtype=bool)), S, -np.inf)
            Y1 = softmax(S) @ Xd44                           # (2, 3)
        S = (Y1 @ (2 * np.eye(3))) @ Xe44.T * scale          # (2, 4)
        allowed = {"mask": keys, "none": np.ones(4, dtype=bool), "inverted": ~keys}[pad]
        return softmax(np.where(allowed, S, -np.inf)) @ Xe44

    def swapped():
        """The encoder's real tokens as queries (W_q = 2I), Y_1 as keys and values: (3, 3)."""
        Y1 = softmax(np.where(np.tril(np.ones((2, 2), dtype=bool)), Xd44 @ Xd44.T * default_scale(3),
                              -np.inf)) @ Xd44
        return softmax((Xe44[:3] @ (2 * np.eye(3))) @ Y1.T * default_scale(3)) @ Y1

    return [
        Choice("04.1", "Replace the last French token 'dort' by another word. Which causal weights change?",
               "a", {
            "b": "the earlier queries are causal: 'le', 'chat' and 'noir' cannot see 'dort' at all, so "
                 "their rows do not change.",
            "c": "the last column above the diagonal is masked, 0 whatever 'dort' is; only 'dort' "
                 "itself looks at 'dort'.",
            "d": "the last row does change: its query is the new word's query, and it also sees its "
                 "own new key."}),
        _design_04(),
        _debug_04(),
        Exercise(
            "04.4", "A decoder layer: causal self-attention of the 2 decoder tokens (W = I), then "
                    "cross-attention from its output (W_q = 2I) to 3 encoder tokens + <pad> "
                    "(W_k = W_v = I), every score divided by √3; compute the output (2 × 3).",
            layer, {
                "skipped the self-attention": (
                    lambda: layer(first=False),
                    "your queries are the decoder tokens themselves: in this layer they are the "
                    "outputs of the causal self-attention, computed first."),
                "self-attention not causal": (
                    lambda: layer(causal="none"),
                    "the first decoder token saw the second one in the self-attention: mask the "
                    "future there (np.tril)."),
                "no padding mask": (lambda: layer(pad="none"),
                                    "'<pad>' took some weight: mask the padding key."),
                "inverted padding mask": (
                    lambda: layer(pad="inverted"),
                    "your mask keeps only '<pad>' and hides the real tokens: in this course True "
                    "means 'may look'. PyTorch's nn.MultiheadAttention (key_padding_mask, attn_mask "
                    "as booleans) uses the opposite: True = masked."),
                "divided by 3": (lambda: layer(scale=1 / 3),
                                 "you divided the scores by d_k = 3; divide by its square root, √3."),
                "no scaling": (lambda: layer(scale=1.0), "divide every score by √d_k = √3."),
                "queries and keys swapped": (
                    lambda: swapped(),
                    "your rows are encoder tokens: in cross-attention the queries come from the "
                    "decoder (here Y_1), the keys and values from the encoder."),
            }, expects="the layer's output, a 2 × 3 array (one row per decoder token)", softmax=True),
    ]
