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
