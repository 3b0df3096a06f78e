"""Lesson 05's exercises (registered in exercises.EXERCISES): word order and decoding."""

from __future__ import annotations

import numpy as np

from . import matrix as al  # so that 05.3's planted function reads as the lesson prints it: al.softmax
from .checks import Choice, Exercise, Trial
from .examples import cats_chase_mice
from .judging import as_numbers, hinted, judge_fix, still_planted
from .masks import causal_mask
from .matrix import default_scale, scaled_dot_product_attention, softmax
from .positions import rope_unchecked

PLANTED_053 = "w = al.softmax(K @ (X[-1] @ W_q) / np.sqrt(W_q.shape[1]))"   # 05.3's wrong line, as printed
HANDED_OUT_053 = """\
def decode(X, W_q, W_k, W_v):
    K, V, Y = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
    for x in X:
        K = np.vstack([K, x @ W_k])
        V = np.vstack([V, x @ W_v])
        w = al.softmax(K @ (X[-1] @ W_q) / np.sqrt(W_q.shape[1]))
        Y.append(w @ V)
    return np.array(Y)
"""
"""05.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _design_05():
    """05.2: a learned position table with which 'chase' listens to the word before it, and only that."""
    ex = cats_chase_mice()
    X = ex.X[[0, 1, 3]]                                  # cats chase mice
    orders = (X, X[[2, 1, 0]])                           # and mice chase cats

    def weights(table):                                  # (2 sentences, 3, 3)
        scale = default_scale(ex.W_k.shape[1])
        return np.array([softmax(((Xo + table) @ ex.W_q) @ ((Xo + table) @ ex.W_k).T * scale)
                         for Xo in orders])

    def boost(row, col, value=3.0):
        T = np.zeros((3, 4))
        T[row, col] = value
        return T

    before = weights(np.zeros((3, 4)))
    GAIN = 0.005                     # a column of row 1 that costs position 0 less than this is not named
    wrong = {"last position": boost(2, 2), "not asked for": boost(0, 0), "too weak": boost(0, 2, 1.0),
             "others changed: noun": boost(0, 2) + boost(0, 0)}

    causes = (("others changed: small", 3, [0, 2]), ("others changed: noun", 0, [0, 1, 2]),
              ("others changed: verb", 1, [0, 2]))

    def changed_because(T):
        """The mistake that moved cats' or mice's weights, of the table columns no query but chase's may
        touch ('small' and 'verb' make a question, 'noun' answers mice's). Chase's own 'small' and 'verb'
        (row 1) change only chase's question, which no other word's weights read. Read by what the weights
        do, not by which entries are nonzero: the first column whose entries, taken out, give cats and mice
        their weights back; else the one whose entries, taken out, move their weights most (a 'verb' that
        moves them by 0.67 beside a 'small' of 0.01 that moves them by 3e-8: the 'verb'; with chase's 'noun'
        1 every key answers 'noun?' alike, so a 'small' in row 0 moves nothing); of equals (the same to 9
        decimals), the first."""
        w = weights(T)[:, [0, 2]]
        touched = []                                     # (how far taking it out moves them, name)
        for name, col, rows in causes:
            if np.any(T[rows, col] != 0):
                U = T.copy()
                U[rows, col] = 0
                u = weights(U)[:, [0, 2]]
                if np.allclose(u, before[:, [0, 2]], atol=1e-9):
                    return name
                touched.append((-round(float(np.abs(u - w).max()), 9), name))   # to 9 decimals
        if touched:
            return min(touched, key=lambda t: t[0])[1]
        return ("chase listens to the subject now, but cats' or mice's weights changed too: touch only "
                "'animal' (column 2), the feature chase's query asks about.")   # not reached: see above

    def share(x):                  # a weight; near the 0.9 bar a third decimal, cut (not rounded) below it
        if 0.8995 <= x < 0.9:
            return f"{np.floor(x * 1000) / 1000:.3f}"
        return f"{x:.3f}" if 0.895 <= x < 0.905 else f"{x:.2f}"

    def own_row(T, w):
        """What row 1 (chase's own position) does to chase's weights: the sentences naming each column of
        row 1 that, taken out alone, gives position 0 at least GAIN more of chase's weight, and what position
        0 gets with those columns out. A positive 'verb' (a louder 'animal?') or 'small' (a 'noun?', which
        cats and mice answer alike) is never named: it only sharpens a question whose answer rows 0 and 2
        set. None if no column of row 1 holds position 0 back by GAIN."""
        says = {0: "its 'noun' (column 0) answers, in chase's own key, the 'noun?' that row 1's 'small' "
                   "puts in chase's query, so chase finds itself",
                1: f"its 'verb' (column 1) sets how strongly chase's query asks 'animal?' (2 × chase's "
                   f"'verb', W_q row 1): {2 * (1 + T[1, 1]):g} rather than 2"
                   + (", so chase no longer looks for an animal" if T[1, 1] <= -1 else ""),
                2: "its 'animal' (column 2) is what chase's query asks about, so it draws chase's weight "
                   "to chase itself",
                3: f"its 'small' (column 3) puts a second question in chase's query, 'noun?' (W_q row 3), "
                   f"{T[1, 3]:g} times" + (": chase turns away from the nouns, cats and mice, and toward "
                                           "itself" if T[1, 3] < 0 else "")}

        def without(cols):                               # position 0's least weight with cols of row 1 out
            U = T.copy()
            U[1, cols] = 0
            return weights(U)[:, 1, 0].min()             # chase's row is the same in both orders

        def others_move(cols):                           # cats' or mice's weights, with cols of row 1 out
            U = T.copy()
            U[1, cols] = 0
            return not np.allclose(weights(U)[:, [0, 2]], w[:, [0, 2]], atol=1e-9)

        lowest = w[:, 1, 0].min()
        sharpens = {1: T[1, 1] > 0, 3: T[1, 3] > 0}
        held = [col for col in range(4) if T[1, col] != 0 and not sharpens.get(col, False)
                and without([col]) >= lowest + GAIN
                and not (col == 0 and others_move([col]))]   # a 'noun' mice read: told as theirs
        if not held:
            return None
        then = without(held)
        asks = 1 + (0 if 1 in held else T[1, 1])        # chase's 'animal?', halved, with those columns out
        more = "" if then >= 0.9 or asks <= 0 else ", so raise row 0's 'animal' (column 2) as well"
        return held, ("row 1 (chase's own position) holds position 0 back: "
                      + "; ".join(says[c] for c in held)
                      + f". Take {'it' if len(held) == 1 else 'them'} out of row 1: position 0 then gets "
                      + f"{share(then)}{more}.")

    def judge(answer):
        T = as_numbers(answer, (3, 4), "a position table")
        if isinstance(T, str):
            return T
        w = weights(T)
        others_same = np.allclose(w[:, [0, 2]], before[:, [0, 2]], atol=1e-9)
        chase_works = (w[:, 1, 0] >= 0.9).all()
        if others_same and chase_works:
            return None
        for name, m in wrong.items():
            if np.allclose(T, m):
                return name
        if not others_same and chase_works:
            return changed_because(T)
        own = own_row(T, w)
        lead = w[:, 1, 0] - np.maximum(w[:, 1, 1], w[:, 1, 2])     # (2,) position 0 against the best other
        if others_same and (lead > 1e-9).all():                    # a strict lead in both sentences
            k = int(np.argmin(w[:, 1, 0]))                         # the sentence where position 0 gets least
            if own and own[0] != [2]:                              # row 1's question, not (only) its key
                return (f"position 0 wins, but with {share(w[k, 1, 0])} of chase's weight, less than 0.9, "
                        "and " + own[1])
            if own or w[k, 1, 1] >= w[k, 1, 2]:                    # chase's own key is the rival that blocks
                return (f"position 0 wins, but chase's own key competes: its own weight is {w[k, 1, 1]:.2f} "
                        f"(position 0 gets {w[k, 1, 0]:.2f}). Chase's query asks about 'animal' (column "
                        "2), so anything row 1 (chase's own position) has there, or what the word itself "
                        "brings, draws its weight to itself: leave row 1 alone and raise row 0's 'animal'.")
            return "too weak"
        chase = (f"chase's weights are {np.round(w[0, 1], 2)} (cats chase mice) and "
                 f"{np.round(w[1, 1], 2)} (mice chase cats): position 0 (row 0 of the table) must get "
                 "at least 0.9 in both")
        tie = [int(j) for j in (1, 2) if np.any(np.abs(w[:, 1, 0] - w[:, 1, j]) <= 1e-9)]
        if tie:
            chase += f", and it ties with position {tie[0]}: it must win"
        said = f"with your table, {chase}" + (f". {own[1][0].upper()}{own[1][1:]}" if own else "")
        if not others_same:
            cause = changed_because(T)
            return (said + ("; and" if not own else " And") + " cats' or mice's weights changed too: "
                    + self_hints.get(cause, cause).split("too: ", 1)[1])
        if own:
            return said
        return f"{said}. Add to the feature chase's query asks about, 'animal' (column 2), in row 0."

    self_hints = {
        "others changed: small": "chase listens to the subject now, but cats' or mice's weights changed "
                                 "too: a word's query comes from its 'small' feature (W_q row 3) and "
                                 "asks 'noun?', so adding to 'small' (column 3) gives the word at that "
                                 "position a new question. Touch only 'animal' (column 2), the feature "
                                 "chase's query asks about.",
        "others changed: noun": "chase listens to the subject now, but mice's weights changed too: "
                                "mice's query asks 'noun?' and reads only the keys' 'noun' feature "
                                "(column 0), to which your table adds. Touch only 'animal' (column 2), "
                                "the feature chase's query asks about.",
        "others changed: verb": "chase listens to the subject now, but cats' or mice's weights changed "
                                "too: adding to 'verb' (column 1) outside chase's row gives the word at "
                                "that position chase's question, 'animal?'. Touch only 'animal' "
                                "(column 2), the feature chase's query asks about.",
    }
    wrong |= {name: boost(0, 2) + extra for name, extra in (
        ("others changed: small", boost(2, 3)), ("others changed: verb", boost(2, 1)))}

    return Trial("05.2", "Design a learned position table: chase listens to the word before it.", "design",
                 lambda: boost(0, 2), judge, hinted(wrong, {
        "last position": "chase now prefers the word after it (position 2, counting from 0); the "
                         "subject stands before the verb, at position 0 (row 0 of the table).",
        "not asked for": "chase's query asks only about the feature 'animal' (column 2): adding to "
                         "'noun' does not help chase, and it changes what mice's query finds.",
        "too weak": "position 0 wins, but with less than 0.9 of chase's weight: add more to its "
                    "'animal' feature.",
    } | self_hints))


def _debug_05():
    """05.3: decode(X, ...) uses the wrong query; the check compares with the masked computation."""
    rng = np.random.default_rng(53)
    X, W_q, W_k, W_v = (rng.standard_normal(s) for s in ((5, 6), (6, 2), (6, 2), (6, 3)))
    # d = 6, d_k = 2, d_v = 3: dividing by √d or √d_v gives other numbers than √d_k

    def reference(X_, Wq, Wk, Wv):
        return scaled_dot_product_attention(X_ @ Wq, X_ @ Wk, X_ @ Wv, mask=causal_mask(len(X_)))[0]

    def cached(query_of, scale=default_scale):
        def decode(X_, Wq, Wk, Wv):
            K, V, Y = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1])), []
            for t, x in enumerate(X_):
                K, V = np.vstack([K, x @ Wk]), np.vstack([V, x @ Wv])
                Y.append(softmax(K @ (query_of(X_, t) @ Wq) * scale(Wk.shape[1])) @ V)
            return np.array(Y)
        return decode

    def inverted(package_softmax):                       # True taken as 'masked': each row sees its future
        def decode(X_, Wq, Wk, Wv):
            S = np.where(causal_mask(len(X_)), -np.inf, (X_ @ Wq) @ (X_ @ Wk).T * default_scale(Wk.shape[1]))
            if package_softmax:                          # the last row has no key left: al.softmax raises
                return softmax(S) @ (X_ @ Wv)
            E = np.exp(S - S.max(axis=1, keepdims=True))  # plain NumPy: the last row becomes nan
            return E / E.sum(axis=1, keepdims=True) @ (X_ @ Wv)
        return decode

    def unmasked(X_, Wq, Wk, Wv):
        return softmax((X_ @ Wq) @ (X_ @ Wk).T * default_scale(Wk.shape[1])) @ (X_ @ Wv)

    # the function printed in the lesson, bug included: written out (not made from HANDED_OUT_053), so that
    # judging.still_planted can read its source, as it reads a student's
    def planted(X, W_q, W_k, W_v):
        K, V, Y = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
        for x in X:
            K = np.vstack([K, x @ W_k])
            V = np.vstack([V, x @ W_v])
            w = al.softmax(K @ (X[-1] @ W_q) / np.sqrt(W_q.shape[1]))
            Y.append(w @ V)
        return np.array(Y)

    def query_before_the_loop(X_, Wq, Wk, Wv):   # changed, the same numbers: one query, computed once
        q = X_[len(X_) - 1] @ Wq
        K, V, Y = X_[:0] @ Wk, X_[:0] @ Wv, []
        for x in X_:
            K, V = np.vstack([K, x @ Wk]), np.vstack([V, x @ Wv])
            Y.append(softmax(K @ q * default_scale(Wk.shape[1])) @ V)
        return np.array(Y)

    wrong = {"planted": planted,
             "previous token": cached(lambda X_, t: X_[t - 1]), "first token": cached(lambda X_, t: X_[0]),
             "no scaling": cached(lambda X_, t: X_[t], lambda d: 1.0),
             "divided by d_k": cached(lambda X_, t: X_[t], lambda d: 1.0 / d),
             "divided by √d": cached(lambda X_, t: X_[t], lambda d: 1.0 / np.sqrt(X.shape[1])),
             "divided by √d_v": cached(lambda X_, t: X_[t], lambda d: 1.0 / np.sqrt(W_v.shape[1])),
             "unmasked": unmasked,
             "inverted mask": inverted(False), "inverted mask, al.softmax": inverted(True)}

    by_numbers = judge_fix(reference, wrong, [(X, W_q, W_k, W_v)], "expected (5, 3), the same as causal "
                           "self-attention computed at once: row t uses tokens 0..t only.")

    def judge(fn):
        """The planted numbers from the function as handed out get a hint that says what to look for; from
        a changed function (the last token's query written another way, or computed before the loop), one
        that explains."""
        verdict = by_numbers(fn)
        return "planted numbers" if verdict == "planted" and not still_planted(fn, PLANTED_053) else verdict

    inverted_hint = ("your rows see the future and not the past: you took True as 'masked' (PyTorch's "
                     "nn.MultiheadAttention convention). Here True means 'may look', and a decoder step "
                     "sees only tokens 0..t.")
    return Trial("05.3", "Fix decode: one line is wrong.", "debug", lambda: cached(lambda X_, t: X_[t]),
                 judge, hinted(wrong | {"planted numbers": query_before_the_loop}, {
        "planted": "still the planted bug: one line is wrong, and through it the future leaks in. Print, "
                   "for each step t, the tokens the cache holds and the token the step's query comes "
                   "from: has the decoder seen that token yet?",
        "planted numbers": "you changed the function, but it still gives the planted numbers: every step "
                           "asks with one and the same query, the last token's (X[-1] written another "
                           "way, or a query computed once before the loop). At step t a decoder has seen "
                           "tokens 0..t only, and the last token is not among them until the last step. "
                           "Print, for each step t, the tokens the cache holds and the token the step's "
                           "query comes from: has the decoder seen that token yet?",
        "previous token": "step t now asks with the query of token t - 1 (and step 0 with the last "
                          "token's, X[-1]): the query of step t is token t's own, x = X[t].",
        "first token": "every step asks with the first token's query, X[0]: the query of step t is "
                       "token t's own, x = X[t].",
        "no scaling": "the right query now, but the scores lost their division by √d_k.",
        "divided by d_k": "the right query now, but you divide the scores by d_k = 2; the formula "
                          "divides by its square root, √d_k = √2.",
        "divided by √d": "the right query now, but you divide the scores by √d = √6, the root of the "
                         "tokens' width; the formula divides by √d_k = √2, the root of the width of a "
                         "query or key (W_q.shape[1] = 2).",
        "divided by √d_v": "the right query now, but you divide the scores by √d_v = √3, the root of the "
                           "width of a value (W_v.shape[1] = 3); the formula divides by √d_k = √2, the "
                           "root of the width of a query or key (W_q.shape[1] = 2).",
        "inverted mask": inverted_hint,
        "inverted mask, al.softmax": inverted_hint + " (That is why al.softmax refused the last row: "
                                     "with your mask it has no key left to look at.)",
        "unmasked": "every row sees the whole sequence, future included: a decoder step sees only "
                    "the cache, tokens 0..t.",
    }), handed_out="planted", handed_out_source=HANDED_OUT_053)


q54 = np.array([[1.0, 0.0, 0.0, 1.0]])       # exercise 05.4: a fresh query at position 2
k54 = np.array([[0.0, 1.0, 1.0, 0.0]])       # and a fresh key at position 5


def lesson05():
    def score(pq=2, pk=5, base=100.0, w1=None, unit=1.0, turn_q=True, turn_k=True):
        if w1 is None and unit == 1.0 and turn_q and turn_k:
            q, k = rope_unchecked(q54, np.array([pq]), base), rope_unchecked(k54, np.array([pk]), base)
            return (q @ k.T)[0, 0]
        w = np.array([1.0, 0.1 if w1 is None else w1]) * unit     # pair i turns by position * w_i

        def turn(v, p, on=True):
            c, s_ = np.cos(p * w * on), np.sin(p * w * on)
            x, y = v[0, 0::2], v[0, 1::2]
            return np.ravel(np.column_stack([c * x - s_ * y, s_ * x + c * y]))
        return turn(q54, pq, turn_q) @ turn(k54, pk, turn_k)

    def both(**how):
        return np.array([score(2, 5, **how), score(5, 2, **how)])

    return [
        Choice("05.1", "A decoder without positions (causal mask) reads 'cats chase mice', then "
                       "'mice chase cats'. Which words keep their own output?", "c", {
            "a": "without the mask each output would move with its word; with it, a word sees only "
                 "itself and the words before it, and reversing changes who those are: mice sees all "
                 "three words when it is last, only itself when it is first.",
            "b": "chase stays in the middle, but the word before it changes (cats, then mice), so its "
                 "output changes too.",
            "d": "cats and mice swap places, and with them the words they see: the first word sees "
                 "only itself, the last sees all three."}),
        _design_05(),
        _debug_05(),
        Exercise("05.4", "RoPE scores, base 100: q = (1, 0, 0, 1) at position 2 with k = (0, 1, 1, 0) at "
                         "position 5, then q at 5 with k at 2.", lambda: both(), {
            "no rotation": (lambda: np.zeros(2),
                            "q · k without any rotation is 0: rotate each pair first."),
            "unsigned offset": (lambda: np.array([score(2, 5), score(2, 5)]),
                                "you gave the same score twice: the score depends on the signed offset "
                                "(key position minus query position), 3 and then -3, and rotating the "
                                "other way changes it."),
            "second score twice": (lambda: np.array([score(5, 2), score(5, 2)]),
                                   "you gave the second score (q at 5 with k at 2, offset -3) twice: the "
                                   "first, q at 2 with k at 5, has the offset 3, and the opposite sign."),
            "signs flipped": (lambda: np.array([score(5, 2), score(2, 5)]),
                              "your two scores have the wrong signs: either they are in the wrong order "
                              "(first q at 2, k at 5), or your pairs turned the wrong way; a pair "
                              "(x, y) turns to (x cos a - y sin a, x sin a + y cos a)."),
            "w_1 = 1/100": (lambda: both(w1=0.01),
                            "your second pair turned with w_1 = 1/100 (base 10000 gives that, and so "
                            "does 100^(-1)); with base 100 and d = 4, w_1 = 100^(-2·1/4) = "
                            "100^(-1/2) = 1/10."),
            "w_1 = 10^(-1/2)": (lambda: both(w1=10 ** -0.5),
                                "your second pair turned with w_1 = 100^(-1/4) ≈ 0.316 (the 2 of "
                                "100^(-2i/4) left out), or with base 10 as in the lesson's sections "
                                "(10^(-2·1/4), the same number). Here the base is 100: w_1 = "
                                "100^(-2·1/4) = 1/10."),
            "one pair": (lambda: both(w1=0.0),
                         "only your first pair turned: the second pair (entries 2 and 3) turns too, "
                         "by the position times w_1 = 1/10."),
            "one score, w_1 = 1/100": (lambda: score(w1=0.01),
                                       "that is one score, computed with w_1 = 1/100. With base 100 "
                                       "and d = 4, w_1 = 100^(-2·1/4) = 100^(-1/2) = 1/10 (1/100 "
                                       "would be base 10000); and give both scores, q at 2 with k at "
                                       "5, then q at 5 with k at 2."),
            "degrees": (lambda: both(unit=np.pi / 180),
                        "your angles were taken as degrees: p · w_i is in radians (np.cos and np.sin "
                        "take radians)."),
            "only q turned": (lambda: both(turn_k=False),
                              "only q turned: RoPE turns the key too, k by its own position."),
            "only k turned": (lambda: both(turn_q=False),
                              "only k turned: RoPE turns the query too, q by its own position."),
            "divided by 2": (lambda: both() / 2,
                             "you divided by √d = 2, as attention does with its scores; the question "
                             "asks for the plain dot product q · k."),
            "one score": (lambda: score(),
                          "that is the first score, right; give both: q at 2 with k at 5, then q at 5 "
                          "with k at 2, as [first, second]."),
        }, expects="two scores, [q at 2 with k at 5, q at 5 with k at 2]"),
    ]
