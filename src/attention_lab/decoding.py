"""Lesson 05 (continued): writing one token at a time with a KV cache, and the block around attention."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_count,
    as_matrix,
    as_positive,
    as_scale,
    head_width,
    projection_inputs,
    shape_of,
    square,
    wrong_record,
)
from .examples import PatternDecoder
from .heads import multi_head_unchecked
from .masks import causal_mask_unchecked
from .matrix import attention_unchecked, default_scale


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def as_pattern_decoder(dec) -> PatternDecoder:
    """The decoder record (a dict or anything else: TypeError)."""
    if not isinstance(dec, PatternDecoder):
        raise wrong_record(dec, "a PatternDecoder", "dec (the decoder)")
    return dec


def as_block_weights(p) -> BlockWeights:
    """The block's weights record (a dict or anything else: TypeError)."""
    if not isinstance(p, BlockWeights):
        raise wrong_record(p, "a BlockWeights", "p (the block's weights)")
    return p


def ffn_inputs(X, W_1, W_2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (n, d), W_1 (d, d_ff) and W_2 (d_ff, d): the feed-forward network's matrices chain."""
    X = as_matrix(X, "X", "(n, d)")
    W_1, W_2 = as_matrix(W_1, "W_1", "(d, d_ff)"), as_matrix(W_2, "W_2", "(d_ff, d)")
    if W_1.shape[0] != X.shape[1] or W_2.shape != (W_1.shape[1], X.shape[1]):
        raise ValueError(f"X {shape_of(X)}, W_1 {shape_of(W_1)} and W_2 {shape_of(W_2)} do not chain: "
                         f"expected W_1 of shape ({X.shape[1]}, d_ff) and W_2 of shape (d_ff, {X.shape[1]})")
    return X, W_1, W_2


def block_inputs(X, p):
    """X (n, d_model) and a copy of the BlockWeights p, every matrix checked against d_model."""
    X = as_matrix(X, "X", "(n, d_model)")
    d = X.shape[1]
    square_ones = {name: square(getattr(p, name), name, d) for name in ("W_q", "W_k", "W_v", "W_O")}
    head_width(d, p.n_heads)
    _, W_1, W_2 = ffn_inputs(X, p.W_1, p.W_2)
    return X, replace(p, **square_ones, W_1=W_1, W_2=W_2)


def known_tokens(tokens, vocab: list[str]) -> list[str]:
    """One or more tokens, each in the vocabulary."""
    unknown = [t for t in tokens if t not in vocab]
    if unknown or not len(tokens):
        raise ValueError(f"tokens {list(tokens)!r}: expected one or more of the vocabulary {vocab}")
    return list(tokens)


def fits_positions(n_prompt: int, n_new: int, room: int) -> None:
    """A prompt and the tokens to write fit in the decoder's `room` positions."""
    if n_prompt + n_new > room:
        raise ValueError(f"{n_prompt} prompt tokens + {n_new} new ones = {n_prompt + n_new}: this decoder's "
                         f"circle of positions has room for at most {room} tokens")


# pragma: no mutate end
@dataclass
class KVCache:
    """The keys and values of every token decoded so far: one row appended per step."""
    keys: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))     # (t, d_k)
    values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))   # (t, d_v)

    def append(self, k: np.ndarray, v: np.ndarray) -> None:
        """Add one token's key (d_k,) and value (d_v,)."""
        self.keys = np.vstack([self.keys.reshape(-1, len(k)), k])
        self.values = np.vstack([self.values.reshape(-1, len(v)), v])


def _cache_step(cache, x, W_q, W_k, W_v, scale):
    """One decoding step: the new token's key and value join the cache, its query reads the cache."""
    cache.append(x @ W_k, x @ W_v)                   # (d_k,), (d_v,): only the new token is projected
    y, w = attention_unchecked((x @ W_q)[None, :], cache.keys, cache.values, None, scale)  # (1, d_v), (1, t):
    return y[0], w[0]                                # the past and itself, never the future: (d_v,), (t,)


def _decode(X, W_q, W_k, W_v, scale):
    """Causal self-attention token by token with a KV cache; returns outputs and the cache."""
    cache = KVCache()
    outputs = [_cache_step(cache, x, W_q, W_k, W_v, scale)[0] for x in X]   # one new token per step
    return np.array(outputs), cache


def decode_with_cache(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike,
                      scale: float | None = None) -> tuple[np.ndarray, KVCache]:
    """Causal self-attention computed one token at a time, keeping keys and values in a cache."""
    X, _, W_q, W_k, W_v = projection_inputs(X, W_q, W_k, W_v)
    return _decode(X, W_q, W_k, W_v, as_scale(scale, W_q.shape[1]))


def decoding_cost(n: int, d: int, d_k: int) -> dict[str, np.ndarray]:
    """Multiply-adds of step t = 1..n, one head of width d_k, recomputing vs. a KV cache (no W_O, no FFN).
    The table also keeps the widths it counted with, 'd' and 'd_k' (for the picture's title)."""
    n, d, d_k = as_count(n, "n"), as_count(d, "d"), as_count(d_k, "d_k")
    t = np.arange(1, n + 1)
    return {"t": t,
            "no_cache": 3 * t * d * d_k + 2 * t * t * d_k,   # project all t tokens; all t x t scores, A V
            "cache": 3 * d * d_k + 2 * t * d_k,               # project the new token; one row of scores, A V
            "d": d, "d_k": d_k}


def _embed(dec: PatternDecoder, ids, start: int = 0) -> np.ndarray:
    """Rows [one-hot token, cos, sin of the position] for tokens at positions start, start+1, ..."""
    p = start + np.arange(len(ids))
    return np.column_stack([np.eye(len(dec.vocab))[ids], np.cos(dec.theta * p), np.sin(dec.theta * p)])


def embed(dec: PatternDecoder, tokens: Sequence[str]) -> np.ndarray:
    """(n, d) inputs of a PatternDecoder: the one-hot token, then the position on the circle."""
    return _embed(dec, token_ids(dec, tokens))


def token_ids(dec: PatternDecoder, tokens: Sequence[str]) -> list[int]:
    """The vocabulary index of each token."""
    dec = as_pattern_decoder(dec)
    known_tokens(tokens, dec.vocab)
    return [dec.vocab.index(t) for t in tokens]


def generate(dec: PatternDecoder, prompt: Sequence[str], n_new: int) -> tuple[list[str], list[np.ndarray]]:
    """Read the prompt, then write n_new tokens, one step each, with a KV cache.

    Returns all tokens, and each step's weights over the cache (step t sees tokens 0..t).
    """
    ids = token_ids(dec, prompt)
    n_new = as_count(n_new, "n_new", minimum=0)
    fits_positions(len(ids), n_new, 12)
    total, cache, weights = len(ids) + n_new, KVCache(), []
    for t in range(total - 1 if n_new else total):           # the last new token is never read back
        x = _embed(dec, [ids[t]], start=t)[0]                 # (d,) the token at position t
        y, w = _cache_step(cache, x, dec.W_q, dec.W_k, dec.W_v, 1.0)   # scale 1: designed weights
        weights.append(w)
        if t >= len(prompt) - 1 and len(ids) < total:
            ids.append(int(np.argmax(y[:len(dec.vocab)])))    # the next token: the output's token part
    return [dec.vocab[i] for i in ids], weights


@dataclass(frozen=True, eq=False)
class BlockWeights:
    """The weights of one pre-LayerNorm transformer block: no biases (LayerNorm gains 1 and biases 0)."""
    W_q: np.ndarray       # (d, d)
    W_k: np.ndarray       # (d, d)
    W_v: np.ndarray       # (d, d)
    W_O: np.ndarray       # (d, d)
    n_heads: int
    W_1: np.ndarray       # (d, d_ff)
    W_2: np.ndarray       # (d_ff, d)


def _layer_norm(X, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)                       # (n, 1)
    var = X.var(axis=-1, keepdims=True)                       # (n, 1)
    return (X - mu) / np.sqrt(var + eps)                      # (n, d) each row: mean 0, variance ~1


def layer_norm(X: ArrayLike, eps: float = 1e-5) -> np.ndarray:
    """Each row: (x - mean) / sqrt(variance + eps), variance divided by d, gain 1 and bias 0."""
    return _layer_norm(as_matrix(X, "X", "(n, d)"), as_positive(eps, "eps", "1e-5", zero=True))


def _feed_forward(X, W_1, W_2):
    return np.maximum(X @ W_1, 0.0) @ W_2                     # (n, d_ff) -> ReLU -> (n, d)


def feed_forward(X: ArrayLike, W_1: ArrayLike, W_2: ArrayLike) -> np.ndarray:
    """ReLU(X W_1) W_2: the same small network applied to every token on its own."""
    return _feed_forward(*ffn_inputs(X, W_1, W_2))


def _block(X, p, causal):
    n = len(X)
    mask = causal_mask_unchecked(n) if causal else None
    H = _layer_norm(X)                                                     # (n, d)
    attn, weights = multi_head_unchecked(H, H, p.W_q, p.W_k, p.W_v, p.W_O, p.n_heads, mask,
                                         default_scale(X.shape[1] // p.n_heads))   # (n, d), (h, n, n)
    Z = X + attn                                                           # residual 1
    return Z + _feed_forward(_layer_norm(Z), p.W_1, p.W_2), weights        # residual 2: (n, d)


def transformer_block(X: ArrayLike, p: BlockWeights, causal: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Pre-LN block: Z = X + MHA(LN(X)); out = Z + FFN(LN(Z)) -> (out (n, d), weights (h, n, n))."""
    X, p = block_inputs(X, as_block_weights(p))
    return _block(X, p, bool(causal))
