"""Lesson 04: masks (causal, padding), cross-attention, and one decoder step that uses them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_count,
    as_flag,
    as_mask,
    as_scale,
    padding_lengths,
    projection_inputs,
    translation_inputs,
)
from .examples import Translation
from .matrix import attention_unchecked, default_scale, project_unchecked, self_attention_unchecked


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
