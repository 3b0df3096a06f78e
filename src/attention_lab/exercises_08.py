"""Lesson 08's exercises (registered in exercises.EXERCISES): GQA heads, a RoPE previous-token head, a
grouped-query bug, and the memory a KV cache needs. Each judge looks at what the answer does."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Result, Trial, differences, read_numbers, switched_off
from .judging import as_numbers, fresh, run_student, still_planted
from .matrix import default_scale, softmax_unchecked
from .positions import rope, rope_unchecked

LOCKED = ("grouped_attention", "scaled_dot_product_attention", "self_attention", "multi_head_attention",
          "decode_with_cache", "forward", "attention_weights", "attention_unchecked", "multi_head_unchecked",
          "multi_head_parts", "cross_attention")
"""Package functions that would do 08.3 in one call: switched off while its judge runs the student's code
(each with its twin `<name>_unchecked`; the kernel's inner form `attention_unchecked` is named too)."""


# ---------------------------------------------------------------- 08.2 · design: a previous-token head
QUERY_POSITIONS = (5, 17, 40)      # fresh positions: the score must depend on the distance only
DISTANCES = np.arange(6)           # the key is 0..5 tokens before the query (0: the query's own token)


def rope_weights(pair: np.ndarray) -> np.ndarray:
    """Weights (3 positions, 6 distances): query pair[0] at p, key pair[1] at p - distance, base 100."""
    at = np.array(QUERY_POSITIONS)
    back = (at[:, None] - DISTANCES[None, :]).ravel()                            # (18,) the keys' places
    qr = rope(np.repeat(pair[:1], len(at), axis=0), at, base=100.0)            # (3, 4)
    kr = rope(np.repeat(pair[1:], len(back), axis=0), back, base=100.0)        # (18, 4)
    kr = kr.reshape(len(at), len(DISTANCES), -1)                               # (3, 6, 4)
    return softmax_unchecked(default_scale(4) * np.einsum("pdk,pk->pd", kr, qr))   # (3, 6)


def may_pass_08(pairs: np.ndarray) -> np.ndarray:
    """(N, 2, 4) pairs: False where some query position gives distance 1 less than 0.8 of the weight (the
    judge's ✓ needs at least 0.8 at every position; 1e-9 below it: the judge's own rounding)."""
    at = np.array(QUERY_POSITIONS)
    back = (at[:, None] - DISTANCES[None, :]).ravel()                            # (18,) the keys' places
    qr = rope_unchecked(np.repeat(pairs[:, :1], len(at), axis=1), at, 100.0)    # (N, 3, 4)
    kr = rope_unchecked(np.repeat(pairs[:, 1:], len(back), axis=1), back, 100.0)
    kr = kr.reshape(len(pairs), len(at), len(DISTANCES), -1)                   # (N, 3, 6, 4)
    w = softmax_unchecked(default_scale(4) * np.einsum("npdk,npk->npd", kr, qr))   # (N, 3, 6)
    return (w[:, :, 1] >= 0.8 - 1e-9).all(axis=1)


def _design_08():
    right = np.array([[4.0, 0.0, 0.0, 0.0], [4 * np.cos(1.0), 4 * np.sin(1.0), 0.0, 0.0]])

    def judge(answer):
        pair = as_numbers(answer, (2, 4), "pair (row 0 the query, row 1 the key)")
        if isinstance(pair, str):
            return pair
        w = rope_weights(pair)
        if (w[:, 1] >= 0.8).all():
            return None
        if np.ptp(w) < 1e-9:                       # every score the same: nothing for RoPE to turn
            return "no direction"
        fast = np.linalg.norm(pair[0, :2]) * np.linalg.norm(pair[1, :2])
        slow = np.linalg.norm(pair[0, 2:]) * np.linalg.norm(pair[1, 2:])
        if fast < 1e-9 and slow > 0:
            return "slow pair"
        if (w.argmax(axis=1) == 1).all():
            return "too weak"
        turn = np.angle(complex(*pair[1, :2])) - np.angle(complex(*pair[0, :2]))   # the key's head start
        turn = (turn + np.pi) % (2 * np.pi) - np.pi
        if abs(turn) < 0.3:
            return "same direction"
        if abs(turn + 1.0) < 0.3:
            return "wrong sign"
        if turn >= 0.3 and abs(turn - 1.0) >= 0.3:
            return "other angle"
        return (f"not yet: with your pair the weights over distances 0..5 are {np.round(w[0], 2).tolist()}: "
                "distance 1 (the previous token) needs at least 0.8.")

    wrong = {"same direction": np.array([[4.0, 0, 0, 0], [4.0, 0, 0, 0]]),
             "wrong sign": np.array([[4.0, 0, 0, 0], [4 * np.cos(1.0), -4 * np.sin(1.0), 0, 0]]),
             "too weak": right / 4,
             "slow pair": np.array([[0, 0, 4.0, 0], [0, 0, 4 * np.cos(0.1), 4 * np.sin(0.1)]]),
             "no direction": np.array([[4.0, 0, 0, 0], [0, 0, 0, 0]]),
             "other angle": np.array([[4.0, 0, 0, 0], [4 * np.cos(2.0), 4 * np.sin(2.0), 0, 0]])}
    hints = {
        "same direction": "query and key point the same way, so the score is largest at distance 0: the "
                          "token itself. Turn the key ahead by the angle one position adds (1 radian in "
                          "pair 0), so that one step of rotation brings them together.",
        "wrong sign": "the key starts 1 radian behind the query instead of ahead of it, so the two line "
                      "up one token in the future, never seen. A key one position back has been turned "
                      "1 radian less than the query: start the key 1 radian ahead of the query.",
        "too weak": "distance 1 wins, but with less than 0.8: make the vectors longer, so the scores differ "
                    "by more.",
        "slow pair": "pair 1 turns by only 0.1 radian per position: distances 0 to 5 look almost alike. "
                     "Use pair 0, which turns a full radian per position.",
        "no direction": "all six scores are equal (0 with your pair), so every distance gets 1/6 of the "
                        "weight. RoPE turns the key's pair 0 against the query's pair 0, and pair 1 against "
                        "pair 1: a query or key that is zero in a pair has no direction there to turn. Put "
                        "both in pair 0, the key turned 1 radian ahead.",
        "other angle": "the key starts ahead of the query, but not by 1 radian, so the two line up at "
                       "another distance: the one whose turning makes up the head start (2 radians ahead: "
                       "distance 2; half a radian: between distances 0 and 1). A key one position back "
                       "has been turned 1 radian less than the query in pair 0: start the key exactly 1 "
                       "radian ahead.",
    }
    return Trial("08.2", "Design a query and a key (rows of a 2 × 4 array) whose RoPE score picks the "
                         "previous token.", "design", lambda: right, judge,
                 {name: (lambda a=wrong[name]: a, hint) for name, hint in hints.items()},
                 may_pass=may_pass_08)


# ---------------------------------------------------------------- 08.3 · debug: grouped-query attention
PLANTED_083 = ("K = np.tile(K, (h // g, 1, 1))", "V = np.tile(V, (h // g, 1, 1))")
"""08.3's wrong lines, as the lesson prints them: one idea, the heads laid out by np.tile, in two lines."""
HANDED_OUT_083 = """\
def gqa(Q, K, V):
    h, g, n = len(Q), len(K), Q.shape[1]
    K = np.tile(K, (h // g, 1, 1))
    V = np.tile(V, (h // g, 1, 1))
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(al.causal_mask(n), S, -np.inf)
    return al.softmax(S) @ V
"""
"""08.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _planted_gqa(Q, K, V):                     # 08.3's function as the lesson prints it, bug included
    h, g, n = len(Q), len(K), Q.shape[1]
    K = np.tile(K, (h // g, 1, 1))
    V = np.tile(V, (h // g, 1, 1))
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    S = np.where(np.tril(np.ones((n, n), bool)), S, -np.inf)
    return softmax_unchecked(S) @ V


def _gqa(share, scale="sqrt d_k", mask="causal", share_values=None, axis=-1):
    """A version of grouped-query attention; `share(K, r)` lays the g key heads out for the h query heads
    (and the value heads too, unless `share_values` lays them out another way).
    scale: 'sqrt d_k', 'd_k' or 'none'; mask: 'causal', 'transposed' or 'none'; the softmax runs over
    `axis` (-1: the keys, each query's row; -2: the queries)."""
    def gqa(Q, K, V):
        r = len(Q) // len(K)
        Kh = share(K, r)
        Vh = (share_values or share)(V, r)
        d = Q.shape[-1]
        s = Q @ np.swapaxes(Kh, -1, -2) / {"sqrt d_k": np.sqrt(d), "d_k": d, "none": 1.0}[scale]
        n = s.shape[-1]
        if mask != "none":
            allowed = np.tril(np.ones((n, n), bool))
            s = np.where(allowed.T if mask == "transposed" else allowed, s, -np.inf)
        e = np.exp(s - s.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True) @ Vh
    return gqa


def _returns_tuple(fn, args) -> bool:
    """Whether a student's function, run as the judge runs it (shortcuts off), returns a tuple."""
    try:
        with np.errstate(all="ignore"), switched_off(fn, LOCKED):
            return isinstance(fn(*fresh(args)), tuple)
    except Exception:            # a student's function may fail in any way: then it is not a tuple
        return False


def _debug_08():
    rng = np.random.default_rng(83)
    inputs = [tuple(rng.standard_normal(s) for s in ((9, 5, 4), (3, 5, 4), (3, 5, 4))),
              tuple(rng.standard_normal(s) for s in ((6, 4, 3), (2, 4, 3), (2, 4, 3))),
              tuple(rng.standard_normal(s) for s in ((8, 4, 3), (2, 4, 3), (2, 4, 3)))]   # h // g = 4 here
    said = [f"on {len(Q)} query heads and {len(K)} key/value heads (Q of shape {Q.shape}, K and V of shape "
            f"{K.shape})" for Q, K, _ in inputs]

    def repeat(K, r):
        return np.repeat(K, r, axis=0)

    def tile(K, r):
        return np.tile(K, (r, 1, 1))

    def g_copies(K, r):                        # each key head g times (h // g is wanted): np.repeat(K, g)
        return np.repeat(K, len(K), axis=0)

    reference = _gqa(repeat)
    wrong = {"planted": _gqa(tile), "values still tiled": _gqa(repeat, share_values=tile),
             "keys still tiled": _gqa(tile, share_values=repeat),
             "no mask": _gqa(repeat, mask="none"), "no scaling": _gqa(repeat, scale="none"),
             "mask transposed": _gqa(repeat, mask="transposed"), "divided by d_k": _gqa(repeat, scale="d_k"),
             "softmax over the queries": _gqa(repeat, axis=-2), "g, not h // g": _gqa(g_copies)}

    def with_weights(Q, K, V):                 # returns (output, weights), as the package's kernels do
        return reference(Q, K, V), None

    def same(o, f, a):
        return isinstance(o, np.ndarray) and o.shape == f(*a).shape and np.allclose(o, f(*a))

    def judge(fn):
        """The planted numbers from the function as handed out (both planted lines still there) get a hint
        that says what to look for; from a changed function (the same layout made another way), one that
        explains."""
        verdict = by_outputs(fn)
        handed_out = all(still_planted(fn, line) for line in PLANTED_083)
        return "planted numbers" if verdict == "planted" and not handed_out else verdict

    def by_outputs(fn):
        outs = [run_student(fn, *args, locked=LOCKED) for args in inputs]
        raised = [isinstance(o, str) and o.startswith("your function raised") for o in outs]
        if same(outs[0], reference, inputs[0]) and raised[1]:
            return "g, not h // g"                 # right only where h // g and g are both 3
        if same(outs[0], reference, inputs[0]) and same(outs[1], reference, inputs[1]) and raised[2]:
            return "a fixed group size"            # right where h // g is 3, raises where it is 4
        shape = reference(*inputs[0]).shape
        if (not raised[0] and (isinstance(outs[0], str) or outs[0].shape != shape)
                and _returns_tuple(fn, inputs[0])):
            return "a tuple"
        for o, where, r in zip(outs, said, raised):
            if isinstance(o, str):
                return f"{where}, {o}" if r else o

        def agrees(f):
            return all(same(o, f, a) for o, a in zip(outs, inputs))
        if agrees(reference):
            return None
        for name, f in wrong.items():
            if name != "g, not h // g" and agrees(f):
                return name
        for o, a, where in zip(outs, inputs, said):
            ref = reference(*a)
            if o.shape != ref.shape:
                return f"{where}, your function returns shape {o.shape}, not {ref.shape} (h, n, d_k)."
            if not np.allclose(o, ref):
                return f"{where}, your function returns the right shape {o.shape}, but {differences(o, ref)}."
        return "your function does not agree with grouped-query attention."

    hints = {
        "planted": "still the planted bug: the key and value heads are shared with the wrong query heads. "
                   "Number the key heads (K = np.arange(2.0).reshape(2, 1, 1), g = 2) and lay them out "
                   "for h = 6 query heads as the function does: which key head does each query head read, "
                   "and which should it read?",
        "planted numbers": "you changed the function, but it still gives the planted numbers: with 9 query "
                           "heads and 3 key/value heads, query heads 0, 1, 2, 3, ... still read key heads "
                           "0, 1, 2, 0, ... (head i % g): the planted layout, the whole stack "
                           "of g heads again and again. So query head 1 reads key head 1. In grouped-query "
                           "attention neighbouring query heads share a key/value head. Number the key heads "
                           "(K = np.arange(2.0).reshape(2, 1, 1), g = 2) and lay them out for h = 6 query "
                           "heads as your function does: which key head does each query head read, and "
                           "which should it read?",
        "values still tiled": "the keys are right now, but the values are still laid out 0, 1, 2, 0, 1, 2, "
                              "... (as np.tile lays them out): a query head must read the values of the same "
                              "key/value head as its keys.",
        "keys still tiled": "the values are right now, but the keys are still laid out 0, 1, 2, 0, 1, 2, ... "
                            "(as np.tile lays them out): a query head must read the keys of the same "
                            "key/value head as its values. Repeat each key head in place too (0, 0, 0, 1, "
                            "1, 1, ...).",
        "g, not h // g": "your function is right on 9 query heads and 3 key/value heads, but raises an "
                         "error on 6 query heads and 2 key/value heads. With 9 and 3, h // g and g are "
                         "both 3; with 6 and 2, h // g is 3 and g is 2. Each key/value head serves h // g "
                         "query heads: h // g copies, not g (np.repeat(K, h // g, axis=0)), and query head "
                         "i reads key/value head i // (h // g).",
        "a fixed group size": "your function is right on 9 query heads and 3 key/value heads, and on 6 and "
                              "2, but raises an error on 8 query heads and 2 key/value heads: there each "
                              "key/value head serves h // g = 4 query heads, not 3. Compute the group size "
                              "from the shapes, r = len(Q) // len(K), rather than writing SmolLM2's 3.",
        "no mask": "the grouping is right, but the causal mask is gone: token t may not look at later "
                   "tokens.",
        "no scaling": "the grouping is right, but the scores lost their division by √d_k.",
        "mask transposed": "the grouping is right, but the mask is transposed: each token reads itself and "
                           "the tokens after it. The causal mask keeps key j for query i when j ≤ i, the "
                           "lower triangle (al.causal_mask(n) as it is, not its .T).",
        "divided by d_k": "the grouping is right, but the scores are divided by d_k: scaled dot-product "
                          "attention divides them by √d_k (np.sqrt(d_k)).",
        "softmax over the queries": "the grouping is right, but the softmax runs down each column, over the "
                                    "queries: each query's row of weights must sum to 1, so take the "
                                    "softmax over the keys, the last axis.",
        "a tuple": "your function returns a tuple, as the package's kernels return (output, weights); gqa "
                   "returns the output alone, one array of shape (h, n, d_k).",
    }
    shown = {**wrong, "a tuple": with_weights,       # each hint's wrong version, for the tests
             "a fixed group size": _gqa(lambda K, r: np.repeat(K, 3, axis=0)), "planted": _planted_gqa,
             "planted numbers": _gqa(lambda K, r: np.concatenate([K] * r))}
    return Trial("08.3", "Fix gqa: the key and value heads are shared with the wrong query heads.", "debug",
                 lambda: reference, judge,
                 {name: (lambda f=shown[name]: f, hint) for name, hint in hints.items()},
                 handed_out="planted", handed_out_source=HANDED_OUT_083)


# ---------------------------------------------------------------- 08.4 · compute: the cache's memory
def _cache_bytes(tokens=256, blocks=30, kv_heads=3, width=64, per_number=4, keys_and_values=2):
    """Bytes of a KV cache: keys and values of every token, in every block, for every key/value head."""
    return keys_and_values * blocks * kv_heads * width * tokens * per_number


def _both(**kw) -> np.ndarray:
    """[_cache_bytes with 3 key/value heads, with 9], other arguments as given."""
    return np.array([_cache_bytes(kv_heads=3, **kw), _cache_bytes(kv_heads=9, **kw)], dtype=float)


UNITS = {"megabytes": (1e6, 2.0 ** 20), "kilobytes": (1e3, 2.0 ** 10), "gigabytes": (1e9, 2.0 ** 30)}
"""08.4's answer given in a larger unit: the unit's sizes in bytes (decimal, binary)."""


CLOSE = 0.01
"""08.4: an answer of bytes within this fraction of the right one (and no named mistake) is the right count
rounded: the method is right."""


class ByteCount(Exercise):
    """08.4: a compute exercise whose answer is a count of bytes; an answer that is the right one given in
    megabytes (or kilo-, gigabytes, decimal or binary), rounded as a student rounds, gets the unit's hint,
    and the right bytes rounded (within CLOSE of them) get the hint "close"."""

    def evaluate(self, answer) -> Result:
        result = super().evaluate(answer)
        if result.status != "wrong":
            return result
        got, expected = read_numbers(answer), _both()
        if isinstance(got, str) or got.shape != expected.shape or not np.isfinite(got).all():
            return result
        with np.errstate(all="ignore"):                # a huge answer times a unit may overflow: not a size
            for unit, sizes in UNITS.items():
                if any(np.allclose(got * size, expected, rtol=0.02, atol=0) for size in sizes):
                    return self.named(unit)
        if np.allclose(got, expected, rtol=CLOSE, atol=0):
            return self.named("close")
        return result


def lesson08() -> list:
    """Lesson 08's exercises, in order."""
    return [
        Choice("08.1", "Query heads 0, 1 and 2 of a block share one key/value head. On one sentence, are "
                       "their attention weights the same?", "a", {
            "b": "they read the same keys, but the weights come from q · k, and each head has its own "
                 "W_q: three different questions to the same keys.",
            "c": "each row of weights sums to 1 in every head, so a constant factor between two heads could "
                 "only be 1, which would make them identical; and they are not.",
            "d": "the three heads have one key head between them; what differs is their queries."}),
        _design_08(),
        _debug_08(),
        ByteCount("08.4", "Bytes of the keys and values of 256 tokens in SmolLM2's KV cache (float32): [with "
                          "its 3 shared key/value heads, if each of the 9 query heads had its own].",
                 lambda: _both(), {
                     "half": (lambda: _both(keys_and_values=1),     # = _both(per_number=2): float16
                              "half the answer: did you count the keys only (the cache holds keys and "
                              "values, two numbers per slot), or 2 bytes per number (float32 takes 4)?"),
                     "twice": (lambda: _both(per_number=8),          # = _both(tokens=512): the reserved room
                               "twice the answer: did you count 8 bytes per number (float32 takes 4), or "
                               "the room the lesson's Cache reserves (512 slots) instead of the 256 "
                               "tokens?"),
                     "one byte": (lambda: _both(per_number=1),
                                  "that counts numbers, not bytes: a float32 number takes 4 bytes."),
                     "bits": (lambda: _both(per_number=32),
                              "that counts bits: a float32 number is 32 bits, 4 bytes."),
                     "one block": (lambda: _both(blocks=1),
                                   "every one of the 30 blocks keeps its own cache."),
                     "swapped": (lambda: _both()[::-1],
                                 "the first number is the model as it is (3 key/value heads): the "
                                 "smaller one."),
                     "queries too": (lambda: _both(keys_and_values=3),
                                     "one and a half times the answer: did you count queries too? A step "
                                     "computes the new token's query and uses it once; the cache keeps only "
                                     "keys and values."),
                     "as wide as W_q": (lambda: np.array([_cache_bytes(kv_heads=9)] * 2, dtype=float),
                                        "your first number is the second: with its 3 shared key/value "
                                        "heads, a block caches 192 numbers of K per token (3 heads of 64, "
                                        "W_k's width), not 576 (W_q's width, 9 heads of 64); V the same."),
                     "nine times": (lambda: np.array([1, 9]) * _cache_bytes(),
                                    "your second number is 9 times the first: with a key/value head of its "
                                    "own for each of the 9 query heads, the cache holds 9 heads instead of "
                                    "3: 3 times as many numbers, not 9."),
                     "width 192": (lambda: _both(width=192),
                                   "three times the answer: did you take 192 as the width of one key/value "
                                   "head? W_k's 192 columns hold all 3 key/value heads of a block, 64 "
                                   "numbers each."),
                     "255 tokens": (lambda: _both(tokens=255),
                                    "that counts 255 tokens: the cache keeps a key and a value for each of "
                                    "the 256."),
                     "257 tokens": (lambda: _both(tokens=257),
                                    "that counts 257 tokens: the cache keeps a key and a value for each of "
                                    "the 256."),
                     "29 blocks": (lambda: _both(blocks=29),
                                   "that counts 29 blocks: every one of the 30 blocks keeps its own cache."),
                     "per token": (lambda: _both(tokens=1),
                                   "that is the keys and values of one token: the question asks for 256 "
                                   "tokens, and the cache keeps a key and a value for each."),
                     "close": (lambda: np.round(_both(), -5),       # the right bytes, rounded
                               "the method is right, and your numbers are within 1 % of the answer: give "
                               "the exact count of bytes (whole numbers), not a rounded one."),
                     **{unit: (lambda size=sizes[0]: _both() / size,
                               f"that is the size in {unit}: the question asks for bytes (whole numbers; a "
                               f"float32 number takes 4 bytes).") for unit, sizes in UNITS.items()},
                 }, expects="two numbers of bytes, [with 3 key/value heads, with 9]"),
    ]
