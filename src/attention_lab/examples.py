"""The collection's own small examples, hand-designed so that the numbers can be checked by hand.

Each function returns a fresh, frozen record with named fields (ex.X, ex.W_q, ...), so a lesson
may change its own copy of the arrays without touching anyone else's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Sentence:
    """Tokens with readable features (one row of X per token) and hand-designed projections."""
    tokens: list[str]
    features: list[str]
    X: np.ndarray        # (n, d)
    W_q: np.ndarray      # (d, d_k)
    W_k: np.ndarray      # (d, d_k)
    W_v: np.ndarray      # (d, d_v)


@dataclass(frozen=True, eq=False)
class HeadsSentence(Sentence):
    """A Sentence whose weights give each head its own job, with an output projection W_O."""
    W_O: np.ndarray      # (d_model, d_model)
    theta: float         # the angle of one step along the sentence


@dataclass(frozen=True, eq=False)
class Translation:
    """A toy translation step: an English sentence (encoder side) and the French words so far."""
    features: list[str]
    enc_tokens: list[str]
    enc_length: int      # real English tokens; the rest is padding
    X_enc: np.ndarray    # (n, d)
    dec_tokens: list[str]
    X_dec: np.ndarray    # (m, d)
    self_W_q: np.ndarray  # the decoder's masked self-attention
    self_W_k: np.ndarray
    self_W_v: np.ndarray
    cross_W_q: np.ndarray  # cross-attention: French queries, English keys and values
    cross_W_k: np.ndarray
    cross_W_v: np.ndarray


@dataclass(frozen=True, eq=False)
class PatternDecoder:
    """A one-layer, one-head decoder with designed weights: it predicts the token two places back."""
    vocab: list[str]
    theta: float         # the angle of one position step
    W_q: np.ndarray      # (d, d): d = len(vocab) token features + (cos, sin) of the position
    W_k: np.ndarray      # (d, d)
    W_v: np.ndarray      # (d, d)


def pattern_decoder() -> PatternDecoder:
    """Tokens a, b, c, d as one-hot rows plus the position on a circle of 16 steps.

    The query turns the position two steps back (like the heads of lesson 03), the key shows the
    position, the value hands over the token. So each output is (nearly) the token two places back,
    and a prompt 'a b c' continues as 'a b c a b c ...'.
    """
    vocab = ["a", "b", "c", "d"]
    v = len(vocab)
    theta = 2 * np.pi / 16                           # 16 steps per turn: sequences of up to 12 tokens
    back2 = np.array([[np.cos(2 * theta), -np.sin(2 * theta)],
                      [np.sin(2 * theta), np.cos(2 * theta)]])   # row form: position p -> p - 2
    W_q, W_k, W_v = (np.zeros((v + 2, v + 2)) for _ in range(3))
    W_q[v:, v:] = 40.0 * back2                      # 'where is the token two places back?'
    W_k[v:, v:] = np.eye(2)                         # 'I am at this position'
    W_v[:v, :v] = np.eye(v)                         # 'this is my token'
    return PatternDecoder(vocab, theta, W_q, W_k, W_v)


def cats_chase_mice() -> Sentence:
    """Four tokens with 4 readable features, and weights that make the verb look for animals.

    Features (columns): noun, verb, animal, small.  Row convention: Q = X @ W_q.
    """
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
    return Sentence(["cats", "chase", "small", "mice"], ["noun", "verb", "animal", "small"],
                    X, W_q, W_k, W_v)


def it_was_tired() -> Sentence:
    """Why attention: the pronoun 'it' means nothing alone, and takes its meaning from the animal.

    Features (columns): animal, place, pronoun, other word. A pronoun's query asks "are you an
    animal?" (something that can be tired); every other query is zero and listens evenly.
    """
    tokens = ["cat", "crossed", "road", "because", "it", "was", "tired"]
    kind = [0, 3, 1, 3, 2, 3, 3]                  # the one feature each word has
    X = np.eye(4)[kind]                           # (7, 4) one-hot rows
    W_q = np.zeros((4, 4))
    W_q[2, 0] = 8.0                               # pronoun -> "animal?", sharp enough to decide
    return Sentence(tokens, ["animal", "place", "pronoun", "other"], X, W_q, np.eye(4), np.eye(4))


def the_cat_sat() -> HeadsSentence:
    """Six tokens, d_model = 4, and weights built so that with 2 heads each head has one job.

    Features: (cos, sin) of the position on a circle of 7 steps, 'content word', 'function word'.
    Head 1 (columns 0-1) turns each position one step back: its query finds the previous token.
    Head 2 (columns 2-3) matches the kind of word: content words find content words.
    W_O mixes the heads: output column c = head column c + 0.5 x the other head's column c.
    """
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
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
    W_O = np.eye(4)
    W_O[0, 2] = W_O[2, 0] = 0.5                          # each output feature reads both heads: its own
    W_O[1, 3] = W_O[3, 1] = 0.5                          # head's column, plus half of the other head's
    return HeadsSentence(tokens, ["cos pos", "sin pos", "content", "function"], X, W_q, np.eye(4),
                         np.eye(4), W_O=W_O, theta=theta)


def translation() -> Translation:
    """A toy translation step: English (encoder, padded to 6) -> French (decoder, 4 tokens so far).

    Features (columns): determiner, black, cat, be, sleep. French 'noir' comes after 'chat', so the
    alignment crosses; 'dort' is two English words, 'is sleeping'. Row convention throughout.
    """
    X_enc = np.array([[1.0, 0, 0, 0, 0],
                      [0, 1.0, 0, 0, 0],
                      [0, 0, 1.0, 0, 0],
                      [0, 0, 0, 1.0, 0.6],
                      [0, 0, 0, 0.3, 1.0],
                      [0, 0, 0, 0, 0]])                   # padding: no meaning at all
    X_dec = np.array([[1.0, 0, 0, 0, 0],
                      [0, 0, 1.0, 0, 0],
                      [0, 1.0, 0, 0, 0],
                      [0, 0, 0, 0.6, 1.0]])
    eye = np.eye(5)
    return Translation(
        features=["det", "black", "cat", "be", "sleep"],
        enc_tokens=["the", "black", "cat", "is", "sleeping", "<pad>"], enc_length=5, X_enc=X_enc,
        dec_tokens=["le", "chat", "noir", "dort"], X_dec=X_dec,
        self_W_q=2.0 * eye, self_W_k=eye.copy(), self_W_v=eye.copy(),
        cross_W_q=4.0 * eye, cross_W_k=eye.copy(), cross_W_v=eye.copy())
