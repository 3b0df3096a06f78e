"""Lesson 04's exercises (registered in exercises.EXERCISES): masks and cross-attention."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial, read_numbers
from .judging import as_numbers, hinted, judge_fix, run_student, still_planted
from .masks import causal_mask
from .matrix import default_scale, scaled_dot_product_attention, softmax

PLANTED_043 = "S = S * mask"                              # 04.3's wrong line, as the lesson prints it
HANDED_OUT_043 = """\
def masked_weights(S, mask):
    S = S * mask
    return al.softmax(S, axis=-1)
"""
"""04.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


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
    additive = np.where(_packed(), 0.0, -np.inf)             # PyTorch's float attn_mask: added to the scores

    def judge(answer):
        got = read_numbers(answer)
        if not isinstance(got, str) and got.shape == (6, 6) and not np.isnan(got).any() \
                and ((got == 0) | (got <= -1)).all() and (got == 0).any() and (got < 0).any():
            return "additive float mask"     # 0 where allowed, -inf (or a large negative number) where masked
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
        parts = [f"{what}, (i, j) = {pairs[:4]}" + (f" and {len(pairs) - 4} more" if len(pairs) > 4 else "")
                 for what, pairs in (
            ("query i may look at key j where it must not", extra),
            ("query i may not look at key j where it should", missing)) if pairs]
        return ("with your mask " + "; ".join(parts) + ". A token sees itself and the earlier tokens "
                "of its own sentence, nothing else.")

    return Trial("04.2", "Design the mask for two sentences packed into one sequence of 6.", "design",
                 _packed, judge, hinted({**wrong, "additive float mask": additive}, {
        "causal only": "the future is hidden, but the second sentence still sees the first: "
                       "combine with a block mask (`&`) that keeps each sentence to itself.",
        "blocks only": "each sentence keeps to itself, but sees its own future: combine with the "
                       "causal mask, np.tril.",
        "upper triangle": "your mask is transposed: rows are queries, so row i may be True only at "
                          "columns j <= i.",
        "inverted": "your mask is the exact opposite: True where a token must not look. That is "
                    "PyTorch's convention (nn.MultiheadAttention: True = masked); here True means "
                    "'may look'.",
        "additive float mask": "that is an additive float mask, added to the scores (0 = allowed, -inf "
                               "or a large negative number = masked: PyTorch's float `attn_mask`). Here "
                               "the mask is boolean, True = may look: `yours == 0` turns yours into one.",
    }))


def _debug_04():
    """04.3: masked_weights multiplies by the mask; the check runs the fix on two fresh inputs."""
    rng = np.random.default_rng(43)
    S = 3 * rng.standard_normal((3, 4))
    mask = np.array([[True, False, True, False], [True, True, False, False], [False, True, True, True]])

    def right(S_, m):
        return softmax(np.where(m, S_, -np.inf))

    def planted(S, mask):                     # the function printed in the lesson, bug included
        S = S * mask
        return softmax(S, axis=-1)

    def zero_fill(S_, m):                     # the line changed, the same numbers: masked scores set to 0
        return softmax(np.where(m, S_, 0.0))

    wrong = {"planted": planted,
             "after softmax": lambda S_, m: softmax(S_) * m,
             "inverted": lambda S_, m: softmax(np.where(m, -np.inf, S_)),
             "wrong axis": lambda S_, m: softmax(np.where(m, S_, -np.inf), axis=0)}

    wrong["no mask"] = lambda S_, m: softmax(S_)
    wrong["finite fill"] = lambda S_, m: softmax(np.where(m, S_, -10.0))
    wrong["not renormalised"] = lambda S_, m: softmax(np.where(m, S_, -10.0)) * m
    # a second input whose allowed scores lie 50 below S's (the masked keys keep theirs): there a finite
    # fill or penalty a student types (-20, S - 20 where masked) gives the masked keys most of the weight,
    # where on S it hides below 1e-8. -inf passes, and so does any fill far enough down to be 0 in float64.
    low = np.where(mask, S - 50.0, S)
    by_outputs = judge_fix(right, wrong, [(S, mask), (low, mask)], "expected weights that are 0 on masked "
                           "keys and sum to 1 in every row (a softmax over the allowed keys).")
    ref = right(S, mask)                                     # (3, 4) each row's allowed keys sum to 1

    def judge(fn):
        """By outputs, and then by the symptoms of an unnamed result: the allowed keys in the right
        ratios to each other (e^(S_ij - S_ik)) with masked keys > 0 and rows summing to 1 is a finite fill
        or penalty, whatever its form (np.where(mask, S, c), S - 10 (~mask), (mask - 1) * 10, ...);
        masked keys at 0 with rows summing to less than 1 (or far from it) is a mask applied after the
        softmax, rows not renormalised. The planted numbers from the function as handed out get a hint that
        says what to look for; from a changed function (a fill of 0), one that explains."""
        verdict = by_outputs(fn)
        if verdict == "planted" and not still_planted(fn, PLANTED_043):
            return "planted numbers"         # a changed function: its own hint, which explains
        if verdict is None or verdict in wrong:
            return verdict
        out = run_student(fn, S, mask)
        if isinstance(out, str) or out.shape != S.shape or not np.isfinite(out).all() or (out < 0).any():
            return verdict
        allowed = np.where(mask, out, 0.0).sum(axis=1, keepdims=True)      # (3, 1)
        if (allowed <= 0).any() or not np.allclose(np.where(mask, out, 0.0) / allowed, ref, rtol=1e-5,
                                                   atol=1e-9):
            return verdict                   # the allowed keys are not a softmax of their scores
        masked, sums = out[~mask], out.sum(axis=1)
        sums_to_1 = np.allclose(sums, 1.0, rtol=0, atol=1e-6)
        if (masked > 0).any() and sums_to_1:
            return "finite fill"
        if sums_to_1:                        # right on S: do the masked keys take weight on the far scores?
            far = run_student(fn, low, mask)
            if not isinstance(far, str) and far.shape == S.shape and np.isfinite(far).all() \
                    and (far[~mask] > 0).any() and np.allclose(far.sum(axis=1), 1.0, rtol=0, atol=1e-6):
                return "finite fill"
        short = (sums < 1 - 1e-6).any() or (np.abs(sums - 1) > 1e-3).any()   # mass taken away, or far off
        if not (masked > 0).any() and short:           # (all rows a hair above 1: a precision question)
            return "not renormalised"
        if (masked > 0).any():
            return (f"your masked keys still get weight (up to {masked.max():.2g}), and your rows sum to "
                    f"{', '.join(f'{v:.3g}' for v in sums)}, not 1. The allowed keys are in the right ratios "
                    "to each other: give the masked keys a score of -inf before the softmax, and let the "
                    "softmax make each row sum to 1.")
        return verdict

    return Trial("04.3", "Fix masked_weights(S, mask): one line is wrong.", "debug", lambda: right, judge,
                 hinted(wrong | {"planted numbers": zero_fill}, {
        "planted": "still the planted bug: one line is wrong. Print masked_weights(S, mask) for a small S "
                   "and mask: how much weight does a key the mask hides get, and how much should it get?",
        "planted numbers": "you changed the function, but it still gives the planted numbers: your masked "
                           "scores end up 0 (a score times False is 0, and a fill of 0 does the same). A "
                           "score of 0 is an ordinary score, and exp(0) = 1 is not 0: a masked key gets as "
                           "much weight as an allowed key that scores 0. Print masked_weights(S, mask) for "
                           "a small S and mask: how much weight does a key the mask hides get, and how much "
                           "should it get?",
        "after softmax": "masking after the softmax leaves rows that no longer sum to 1: mask the "
                         "scores before it.",
        "inverted": "you hid the allowed keys and kept the masked ones: here True means 'may look'. "
                    "(PyTorch's nn.MultiheadAttention takes the opposite, True = masked: convert with "
                    "~mask.)",
        "wrong axis": "the mask is right, but your softmax runs down the columns: each query's row of "
                      "weights must sum to 1 (axis=-1).",
        "no mask": "your weights are the plain softmax of the scores: the mask is not used at all. Give "
                   "the masked keys a score of -inf before the softmax.",
        "finite fill": "your rows sum to 1 and the allowed keys have the right weights relative to each "
                       "other, but your masked keys still get some weight: a finite fill c, or a finite "
                       "penalty (S - 10 where masked, or S + (mask - 1) * 10), leaves each masked key the "
                       "weight e^(its score) / (its row's sum of e^s), perhaps small but not 0 "
                       "(section 2). Fill with -inf, so that e^(-inf) = 0 exactly.",
        "not renormalised": "your masked keys get 0 and the allowed keys have the right weights relative "
                            "to each other, but your rows do not sum to 1: they were not renormalised "
                            "(weights set to 0 after a softmax, or e^s not divided by its row's sum). "
                            "Mask the scores before the softmax (fill with -inf), so that the softmax "
                            "spreads each row's weight over the allowed keys only.",
    }), handed_out="planted", handed_out_source=HANDED_OUT_043)


Xd44 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])                    # 04.4: 2 fresh decoder tokens
SCALE44 = default_scale(3)                                    # 04.4: d_k = 3
Xe44 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])   # 3 + <pad>


def lesson04():
    keys = np.arange(4) < 3                                  # the encoder's real tokens; <pad> is last

    def layer(causal="tril", pad="mask", scale=SCALE44, first=True, residual="", w_q=2.0, cross_scale=None):
        """Causal self-attention of the decoder (W = I), then cross-attention to the encoder; with
        `residual` "self", "cross" or "both", the residual connections of lesson 04's decoder step added
        (the exercise has none); `cross_scale`, when given, scales the cross-attention's scores alone."""
        Y1 = Xd44
        if first:
            S = Xd44 @ Xd44.T * scale
            if causal == "tril":
                S = np.where(np.tril(np.ones((2, 2), dtype=bool)), S, -np.inf)
            Y1 = softmax(S) @ Xd44                           # (2, 3)
        if residual in ("self", "both"):
            Y1 = Xd44 + Y1                                   # Z_self = X_dec + self-attention
        S = (Y1 @ (w_q * np.eye(3))) @ Xe44.T * (scale if cross_scale is None else cross_scale)   # (2, 4)
        allowed = {"mask": keys, "none": np.ones(4, dtype=bool), "inverted": ~keys}[pad]
        out = softmax(np.where(allowed, S, -np.inf)) @ Xe44
        return Y1 + out if residual in ("cross", "both") else out

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
                    "(W_k = W_v = I), every score divided by √3, no residual connections; compute the "
                    "output (2 × 3).",
            layer, {
                "skipped the self-attention": (
                    lambda: layer(first=False),
                    "your queries are the decoder tokens themselves: in this layer they are the "
                    "outputs of the causal self-attention, computed first."),
                "self-attention not causal": (
                    lambda: layer(causal="none"),
                    "the first decoder token saw the second one in the self-attention: mask the "
                    "future there (np.tril)."),
                "no padding mask": (
                    lambda: layer(pad="none"),
                    "'<pad>' took some weight, or you set its weight to 0 after the softmax without "
                    "renormalising (its value row is zero, so both give the same numbers): mask the "
                    "padding key's score with -inf before the softmax."),
                "inverted padding mask": (
                    lambda: layer(pad="inverted"),
                    "your mask keeps only '<pad>' and hides the real tokens: in this course True "
                    "means 'may look'. PyTorch's nn.MultiheadAttention (key_padding_mask, attn_mask "
                    "as booleans) uses the opposite: True = masked."),
                "divided by 3": (lambda: layer(scale=1 / 3),
                                 "you divided the scores by d_k = 3; divide by its square root, √3."),
                "no scaling": (lambda: layer(scale=1.0), "divide every score by √d_k = √3."),
                "cross-attention not scaled": (
                    lambda: layer(cross_scale=1.0),
                    "the cross-attention step forgot ÷√3: its scores must be divided by √d_k = √3 too, "
                    "as the self-attention's are."),
                "self-attention not scaled": (
                    lambda: layer(scale=1.0, cross_scale=SCALE44),
                    "the self-attention step forgot ÷√3: its scores must be divided by √d_k = √3 too, "
                    "as the cross-attention's are."),
                "residual after the self-attention": (
                    lambda: layer(residual="self"),
                    "you added the residual connection of section 4 (X_dec + Y_1) before the "
                    "cross-attention. This exercise has no residual connections: the queries come from "
                    "Y_1 itself."),
                "residual around the cross-attention": (
                    lambda: layer(residual="cross"),
                    "you added Y_1 to the cross-attention's output, a residual connection. This "
                    "exercise has none: the layer's output is the cross-attention's output itself."),
                "residual on both sub-layers": (
                    lambda: layer(residual="both"),
                    "you added a residual connection around both sub-layers (X_dec + Y_1, then its sum "
                    "with the cross-attention's output), as real layers do. This exercise has none: "
                    "Y_1 is the queries' input, and the cross-attention's output is the answer."),
                "cross W_q = I": (lambda: layer(w_q=1.0),
                                  "the cross-attention's W_q is 2I, not I: its queries are 2 Y_1."),
                "Y_1 only": (lambda: softmax(np.where(np.tril(np.ones((2, 2), dtype=bool)),
                                                      Xd44 @ Xd44.T * SCALE44, -np.inf)) @ Xd44,
                             "that is Y_1, the output of the causal self-attention: the layer goes on, "
                             "with cross-attention from Y_1 to the encoder."),
                "queries and keys swapped": (
                    lambda: swapped(),
                    "your rows are encoder tokens: in cross-attention the queries come from the "
                    "decoder (here Y_1), the keys and values from the encoder."),
            }, expects="the layer's output, a 2 × 3 array (one row per decoder token)", softmax=True),
    ]
