"""Lesson 04: masks (causal, padding), cross-attention, and one decoder step that uses them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_count, as_flag, as_mask, as_scale, projection_inputs, same
from .examples import Translation
from .matrix import attention_unchecked, default_scale, project_unchecked, self_attention_unchecked


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def padding_lengths(lengths, n: int) -> list[int]:
    """One whole-number length per sequence, each at most the padded length n."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths is {lengths!r}: expected a list of whole numbers, one length per sequence")
    out = []
    for b, length in enumerate(lengths):
        length = as_count(length, f"lengths[{b}]")
        if length > n:
            raise ValueError(f"lengths[{b}] is {length} but the padded length n is {n}: "
                             "a sequence cannot be longer than the padded length")
        out.append(length)
    if not out:
        raise ValueError("lengths is empty: expected one length per sequence")
    return out


def translation_inputs(ex):
    """A Translation whose arrays fit together, as fresh float64 copies."""
    if not isinstance(ex, Translation):
        raise TypeError(f"the example is a {type(ex).__name__}: expected a Translation, "
                        "as attention_lab.translation() returns")
    X_dec, _, sq, sk, sv = projection_inputs(ex.X_dec, ex.self_W_q, ex.self_W_k, ex.self_W_v,
                                             ex.X_dec, names=("X_dec", "X_dec"))
    same(X_dec, "X_dec", 1, sv, "self_W_v", 1, "the residual X_dec + self-attention output needs "
         f"self_W_v to keep the width d = {X_dec.shape[1]}")
    _, X_enc, cq, ck, cv = projection_inputs(X_dec, ex.cross_W_q, ex.cross_W_k, ex.cross_W_v,
                                             X_context=ex.X_enc, names=("X_dec", "X_enc"))
    length = padding_lengths([ex.enc_length], X_enc.shape[0])[0]
    for name, labels, count in (("dec_tokens", ex.dec_tokens, X_dec.shape[0]),
                                ("enc_tokens", ex.enc_tokens, X_enc.shape[0]),
                                ("features", ex.features, X_dec.shape[1])):
        if len(labels) != count:
            raise ValueError(f"there are {len(labels)} {name} but {count} rows or columns to name: "
                             "expected one per row of X_dec/X_enc, or one per feature")
    return replace(ex, X_dec=X_dec, X_enc=X_enc, enc_length=length, self_W_q=sq, self_W_k=sk,
                   self_W_v=sv, cross_W_q=cq, cross_W_k=ck, cross_W_v=cv)


# pragma: no mutate end
def causal_mask_unchecked(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))          # (n, n), True on and below the diagonal


def padding_mask_unchecked(lengths: list[int], n: int) -> np.ndarray:
    return np.arange(n)[None, :] < np.array(lengths)[:, None]   # (b, n)


def causal_mask(n: int) -> np.ndarray:
    """(n, n) boolean, True on and below the diagonal: token i may attend to tokens 0..i."""
    return causal_mask_unchecked(as_count(n, "n (number of tokens)"))


def padding_mask(lengths: Sequence[int], n: int) -> np.ndarray:
    """(len(lengths), n) boolean: row b is True for the first lengths[b] keys, False on padding."""
    n = as_count(n, "n (padded length)")
    return padding_mask_unchecked(padding_lengths(lengths, n), n)


def cross_attention_unchecked(Xq, Xc, W_q, W_k, W_v, mask, scale):
    """Queries from Xq, keys and values from Xc, on trusted arrays."""
    return attention_unchecked(*project_unchecked(Xq, Xc, W_q, W_k, W_v), mask, scale)


def cross_attention(X_query: ArrayLike, X_context: ArrayLike, W_q: ArrayLike, W_k: ArrayLike,
                    W_v: ArrayLike, mask: ArrayLike | None = None,
                    scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Queries from X_query (m rows), keys and values from X_context (n rows) -> ((m, d_v), (m, n))."""
    Xq, Xc, W_q, W_k, W_v = projection_inputs(X_query, W_q, W_k, W_v, X_context=X_context)
    mask = as_mask(mask, (Xq.shape[0], Xc.shape[0]))
    return cross_attention_unchecked(Xq, Xc, W_q, W_k, W_v, mask, as_scale(scale, W_q.shape[1]))


@dataclass(frozen=True, eq=False)
class DecoderStep:
    """What one decoder step computes, in order."""
    self_weights: np.ndarray    # (m, m) masked self-attention over the French words so far
    Z_self: np.ndarray          # (m, d) X_dec + its masked self-attention output: the residual sum
                                #        that cross-attention reads (the mask acts on the weights only)
    cross_weights: np.ndarray   # (m, n) French queries over English keys
    output: np.ndarray          # (m, d_v) cross-attention output


def decoder_step_unchecked(ex: Translation, causal: bool, padding: bool) -> DecoderStep:
    """Masked self-attention (with its residual), then cross-attention, on a trusted example."""
    m, n = len(ex.X_dec), len(ex.X_enc)
    z, w_self = self_attention_unchecked(ex.X_dec, ex.self_W_q, ex.self_W_k, ex.self_W_v,
                                         causal_mask_unchecked(m) if causal else None)  # (m, d), (m, m)
    Z = ex.X_dec + z                                     # residual: each word keeps its own meaning
    keys = padding_mask_unchecked([ex.enc_length], n) if padding else None  # (1, n): same for all rows
    out, w_cross = cross_attention_unchecked(Z, ex.X_enc, ex.cross_W_q, ex.cross_W_k, ex.cross_W_v, keys,
                                             default_scale(ex.cross_W_q.shape[1]))  # (m, d_v), (m, n)
    return DecoderStep(w_self, Z, w_cross, out)


def decoder_step(ex: Translation, causal: bool = True, padding: bool = True) -> DecoderStep:
    """One decoder step of a Translation: masked self-attention + residual, then cross-attention."""
    causal, padding = as_flag(causal, "causal"), as_flag(padding, "padding")
    return decoder_step_unchecked(translation_inputs(ex), causal, padding)
