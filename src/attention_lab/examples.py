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
