"""The collection's own small examples, hand-designed so that the numbers can be checked by hand."""

from __future__ import annotations

import numpy as np


def cats_chase_mice():
    """Four tokens with 4 readable features, and weights that make the verb look for animals.

    Features (columns): noun, verb, animal, small.  Row convention: Q = X @ W_q.
    """
    tokens = ["cats", "chase", "small", "mice"]
    features = ["noun", "verb", "animal", "small"]
    X = np.array([[1.0, 0.0, 1.0, 0.0],    # cats:  a noun, an animal
                  [0.0, 1.0, 0.0, 0.0],    # chase: a verb
                  [0.0, 0.0, 0.0, 1.0],    # small: an adjective meaning small
                  [1.0, 0.0, 1.0, 1.0]])   # mice:  a noun, an animal, small
    W_q = np.zeros((4, 4))
    W_q[1, 2] = 2.0          # a verb's query asks "are you an animal?" (feature 'animal')
    W_q[3, 0] = 1.0          # an adjective's query asks "are you a noun?"
    W_k = np.eye(4)          # keys: every token shows its own features
    W_v = np.diag([1.0, 1.0, 2.0, 0.5])   # values: what a token hands over (animal doubled,
                                          # small halved), so that v_j differs from x_j
    return {"tokens": tokens, "features": features, "X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v}


def the_cat_sat():
    """Six tokens, d_model = 4, and weights built so that with 2 heads each head has one job.

    Features: (cos, sin) of the position on a circle of 7 steps, 'content word', 'function word'.
    Head 1 (columns 0-1) turns each position one step back: its query finds the previous token.
    Head 2 (columns 2-3) matches the kind of word: content words find content words.
    """
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    features = ["cos pos", "sin pos", "content", "function"]
    theta = 2 * np.pi / 7                       # 7 steps per turn: 6 positions never wrap onto each other
    pos = np.arange(len(tokens))
    content = np.array([0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    X = np.column_stack([np.cos(theta * pos), np.sin(theta * pos), content, 1.0 - content])
    back = np.array([[np.cos(theta), -np.sin(theta)],    # row form: (cos tp, sin tp) @ back
                     [np.sin(theta), np.cos(theta)]])    #         = (cos t(p-1), sin t(p-1))
    sharp = 8.0                                          # larger = more decided heads
    W_q = np.zeros((4, 4))
    W_q[:2, :2] = sharp * back                           # head 1: 'where is the previous token?'
    W_q[2:, 2:] = sharp * np.eye(2)                      # head 2: 'which tokens are my kind?'
    return {"tokens": tokens, "features": features, "X": X, "W_q": W_q, "W_k": np.eye(4),
            "W_v": np.eye(4), "W_o": np.eye(4), "theta": theta}


def translation():
    """A toy translation step: English (encoder, padded to 6) -> French (decoder, 4 tokens so far).

    Features (columns): determiner, black, cat, be, sleep. French 'noir' comes after 'chat', so the
    alignment crosses; 'dort' is two English words, 'is sleeping'. Row convention throughout.
    """
    features = ["det", "black", "cat", "be", "sleep"]
    enc_tokens = ["the", "black", "cat", "is", "sleeping", "<pad>"]
    X_enc = np.array([[1.0, 0, 0, 0, 0],
                      [0, 1.0, 0, 0, 0],
                      [0, 0, 1.0, 0, 0],
                      [0, 0, 0, 1.0, 0.6],
                      [0, 0, 0, 0.3, 1.0],
                      [0, 0, 0, 0, 0]])                   # padding: no meaning at all
    dec_tokens = ["le", "chat", "noir", "dort"]
    X_dec = np.array([[1.0, 0, 0, 0, 0],
                      [0, 0, 1.0, 0, 0],
                      [0, 1.0, 0, 0, 0],
                      [0, 0, 0, 0.6, 1.0]])
    eye = np.eye(len(features))
    return {"features": features, "enc_tokens": enc_tokens, "enc_length": 5, "X_enc": X_enc,
            "dec_tokens": dec_tokens, "X_dec": X_dec,
            "self_W_q": 2.0 * eye, "self_W_k": eye.copy(), "self_W_v": eye.copy(),     # decoder
            "cross_W_q": 4.0 * eye, "cross_W_k": eye.copy(), "cross_W_v": eye.copy()}  # cross


def decoder_step(ex, causal=True, padding=True):
    """Masked self-attention over the decoder (with its residual), then cross-attention.

    Returns a dict with the self-attention weights (m, m), Z_masked (m, d), the cross-attention
    weights (m, n) and output (m, d_v).
    """
    from ._validate import as_matrix
    from .masks import causal_mask, cross_attention, padding_mask
    from .matrix import self_attention
    needed = ("X_dec", "X_enc", "enc_length", "self_W_q", "self_W_k", "self_W_v",
              "cross_W_q", "cross_W_k", "cross_W_v")
    missing = [k for k in needed if k not in ex]
    if missing:
        raise ValueError(f"the example lacks {missing}: expected a dict like translation() returns")
    m, n = len(as_matrix(ex["X_dec"], "X_dec")), len(as_matrix(ex["X_enc"], "X_enc"))
    self_mask = causal_mask(m) if causal else None
    z, w_self = self_attention(ex["X_dec"], ex["self_W_q"], ex["self_W_k"], ex["self_W_v"], mask=self_mask)
    Z = ex["X_dec"] + z                                   # residual: the token keeps its own meaning
    keys = padding_mask([ex["enc_length"]], n)[0] if padding else np.ones(n, dtype=bool)
    out, w_cross = cross_attention(Z, ex["X_enc"], ex["cross_W_q"], ex["cross_W_k"], ex["cross_W_v"],
                                   mask=np.broadcast_to(keys, (m, n)))
    return {"self_weights": w_self, "Z_masked": Z, "cross_weights": w_cross, "output": out}
