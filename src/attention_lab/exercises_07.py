"""Lesson 07's exercises (registered in exercises.EXERCISES): predict, design, debug, fresh data.

07.2 and 07.3 are judged by running the student's matrix or function on fresh sequences; 07.3 runs with
the package's shortcuts switched off (finite differences and every backward pass of the package).
"""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial
from .judging import SHORTCUTS, as_numbers, judge_fix, still_planted
from .matrix import softmax_unchecked

# ---------------------------------------------------------------- 07.2 · design a QK circuit for induction
V72, N72, S72 = 8, 10, 3          # tokens, places, segment length of the fresh sequences


def stream_72(ids: np.ndarray) -> np.ndarray:
    """The residual stream after an ideal previous-token head: [one_hot(own token), one_hot(previous)]."""
    n = len(ids)
    R = np.zeros((n, 2 * V72))                                      # (n, 2V)
    R[np.arange(n), ids] = 1.0
    R[np.arange(1, n), V72 + ids[:-1]] = 1.0                        # place 0 has no previous token
    return R


def sequences_72(count: int = 12, seed: int = 72) -> list[tuple[np.ndarray, int, int]]:
    """Fresh sequences: distinct tokens, except a segment of S72 that appears twice, at random places."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        ids = rng.permutation(V72)[: N72 - S72]
        a = int(rng.integers(0, N72 - 2 * S72 + 1))
        b = int(rng.integers(a + S72, N72 - S72 + 1))
        rest = list(ids[S72:])
        seq = []
        for i in range(N72):
            if a <= i < a + S72:
                seq.append(ids[i - a])
            elif b <= i < b + S72:
                seq.append(ids[i - b])
            else:
                seq.append(rest.pop())
        out.append((np.array(seq), a, b))
    return out


def weights_72(M: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Causal attention weights of the stream with the QK circuit M: softmax(R M Rᵀ), future masked."""
    R = stream_72(ids)
    S = R @ M @ R.T                                                 # (n, n) no scaling
    S = np.where(np.triu(np.ones((len(ids),) * 2, dtype=bool), 1), -np.inf, S)
    return softmax_unchecked(S)                                     # (n, n) causal weights


def _design_07():
    seqs = sequences_72()

    def solution():
        M = np.zeros((2 * V72, 2 * V72))
        M[:V72, V72:] = 5.0 * np.eye(V72)                           # query's own token = key's previous
        return M

    def targets(M):
        """For every place of every second copy (its last excluded): (weight on the right key, the
        place attended most minus the right key)."""
        got = []
        for ids, a, b in seqs:
            A = weights_72(M, ids)
            for j in range(S72 - 1):
                q, right = b + j, a + j + 1
                got.append((A[q, right], int(A[q].argmax()) - right))
        return np.array(got)

    def judge(answer):
        M = as_numbers(answer, (2 * V72, 2 * V72), "M (rows: the query's stream, columns: the key's stream)")
        if isinstance(M, str):
            return M
        got = targets(M)
        if (got[:, 0] >= 0.9).all():
            return None
        blocks = {"own-own": M[:V72, :V72], "own-prev": M[:V72, V72:], "prev-own": M[V72:, :V72],
                  "prev-prev": M[V72:, V72:]}
        off = ~np.eye(V72, dtype=bool)
        # how much a block's diagonal stands out from the rest of the block: a block with no diagonal of
        # its own (a constant, say) favours no pair of equal tokens, whatever its size
        lift = {k: float(np.diag(b).mean() - b[off].mean()) for k, b in blocks.items()}
        best = max(lift, key=lambda k: (lift[k], k == "own-prev"))   # a tie goes to the right block
        if lift[best] <= 0:
            if np.trace(blocks["own-prev"]) < 0:
                return "negative"
            return (f"your scores never favour the right key (mean weight on it {got[:, 0].mean():.2f}): "
                    "the right key is the one whose previous token (columns 8-15) is the query's own "
                    "token (rows 0-7); give each such pair a large positive score, above every other "
                    "pair's.")
        if best == "own-own":
            return "same token"
        if best == "prev-own":
            return "transposed"
        if best == "prev-prev":
            return "previous with previous"
        if (got[:, 1] == 0).all():
            return "too weak"
        return (f"the query's own token meets the key's previous token, but other entries pull the "
                f"weight away (mean weight on the right key {got[:, 0].mean():.2f}): keep only the "
                "matching block's diagonal.")

    streams = np.stack([stream_72(ids) for ids, _, _ in seqs])          # (12, N72, 2V)
    future = np.triu(np.ones((N72, N72), dtype=bool), 1)
    where = np.array([(s, b + j, a + j + 1) for s, (_, a, b) in enumerate(seqs) for j in range(S72 - 1)])

    def may_pass(stack):
        """(N, 2V, 2V) circuits: False where a query of a second copy gives its right key less than 0.9 of
        its weight (the judge's ✓ needs at least 0.9 everywhere; 1e-9 below it: the judge's own rounding)."""
        out = np.zeros(len(stack), dtype=bool)
        for start in range(0, len(stack), 256):                         # 256 circuits at a time
            M = stack[start:start + 256, None]                            # (m, 1, 2V, 2V)
            S = streams @ M @ streams.transpose(0, 2, 1)                  # (m, 12, N72, N72)
            A = softmax_unchecked(np.where(future, -np.inf, S))
            out[start:start + 256] = (A[:, where[:, 0], where[:, 1], where[:, 2]] >= 0.9 - 1e-9).all(axis=1)
        return out

    return Trial("07.2", "Design the QK circuit (16 × 16) of an induction head.", "design", solution, judge, {
        "same token": (lambda: np.pad(5.0 * np.eye(V72), ((0, V72), (0, V72))),
                       "your head looks at the earlier copy of its own token, one place too early: "
                       "the key must answer with its *previous* token (columns 8-15)."),
        "transposed": (lambda: solution().T,
                       "this is a previous-token head: the query asks with its previous token and "
                       "the key answers with its own. Rows are the query, columns the key: swap the "
                       "blocks."),
        "previous with previous": (lambda: np.pad(5.0 * np.eye(V72), ((V72, 0), (V72, 0))),
                                   "you compare previous tokens with previous tokens: the query must "
                                   "ask with its own token (rows 0-7)."),
        "too weak": (lambda: solution() / 5.0,
                     "the right key wins, but with less than 0.9 of the weight: against up to 8 other "
                     "keys (a query stands at place 8 at most), the winning score must be above "
                     "ln(0.9 / 0.1 · 8) ≈ 4.3."),
        "negative": (lambda: -solution(),
                     "your matching entries are negative: they push the right key away. The key whose "
                     "*previous* token equals the query's own token must get a large *positive* score."),
    }, may_pass=may_pass)


# ---------------------------------------------------------------- 07.3 · debug the stream's backward pass
def stream_forward(X, A1, A2, W1, W2):
    """Two residual layers with frozen attention: H1 = X + A1 X W1, H2 = H1 + A2 H1 W2."""
    H1 = X + A1 @ X @ W1
    return H1 + A2 @ H1 @ W2


def _stream_backward(skip1=True, skip2=True, transpose_A=(True, True), transpose_W=(True, True),
                     layer1_reads="dH1"):
    """The reference backward pass, or a wrong version of it. `transpose_A`, `transpose_W`: whether
    layer 1's and layer 2's A and W are transposed on the way back."""
    def backward(X, A1, A2, W1, W2, dOut):
        def through(layer, A, W, d):
            return ((A.T if transpose_A[layer - 1] else A) @ d
                    @ (W.T if transpose_W[layer - 1] else W))
        dH1 = (dOut if skip2 else 0) + through(2, A2, W2, dOut)
        if layer1_reads == "dOut":                                  # layer 1 sent dOut, not dH1
            return dH1 + through(1, A1, W1, dOut)
        if layer1_reads == "layer 2 only":                          # dOut added once, at the end
            g = through(2, A2, W2, dOut)
            return g + through(1, A1, W1, g) + dOut
        if layer1_reads == "nothing":                               # stopped at dL/dH1
            return dH1
        if layer1_reads == "dOut only":                             # no path through a layer at all
            return dOut
        if layer1_reads == "side by side":                          # each layer sent dOut, not in a row
            return through(1, A1, W1, dOut) + through(2, A2, W2, dOut)
        if layer1_reads == "straight from dOut":                    # X's straight path carries dOut
            return dOut + through(1, A1, W1, dH1)
        if layer1_reads == "both layers, wrong order":              # four paths; the last undone 1, then 2
            return dOut + through(1, A1, W1, dOut) + through(2, A2, W2, dOut) + through(
                2, A2, W2, through(1, A1, W1, dOut))
        if layer1_reads in ("both layers, W's wrong order", "both layers, A's wrong order"):
            # four paths; in the last, one side undone layer 1 first: A1ᵀA2ᵀ dOut W1ᵀW2ᵀ or A2ᵀA1ᵀ dOut W2ᵀW1ᵀ
            A_first, A_then = (A1, A2) if "W's" in layer1_reads else (A2, A1)
            W_first, W_then = (W1, W2) if "W's" in layer1_reads else (W2, W1)
            return (dOut + through(1, A1, W1, dOut) + through(2, A2, W2, dOut)
                    + A_first.T @ A_then.T @ dOut @ W_first.T @ W_then.T)
        dX = (dH1 if skip1 else 0) + through(1, A1, W1, dH1)
        return dX + dOut if layer1_reads == "dOut again" else dX    # the straight path counted twice
    return backward


def _causal_weights(rng, n):
    S = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.standard_normal((n, n)), -np.inf)
    return softmax_unchecked(S)  # (n, n) causal weights


PLANTED_073 = "dH1 = A2.T @ dOut @ W2.T"                   # 07.3's wrong line, as the lesson prints it
HANDED_OUT_073 = """\
def stream_backward(X, A1, A2, W1, W2, dOut):
    dH1 = A2.T @ dOut @ W2.T
    return dH1 + A1.T @ dH1 @ W1.T
"""
"""07.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _debug_07():
    rng = np.random.default_rng(73)
    inputs = []
    for n, d in ((4, 3), (5, 2)):
        X = rng.standard_normal((n, d))
        inputs.append((X, _causal_weights(rng, n), _causal_weights(rng, n), rng.standard_normal((d, d)),
                       rng.standard_normal((d, d)), rng.standard_normal((n, d))))
    def planted(X, A1, A2, W1, W2, dOut):     # the function printed in the lesson, bug included
        dH1 = A2.T @ dOut @ W2.T                 # (n, d) dL/dH1
        return dH1 + A1.T @ dH1 @ W1.T           # (n, d) dL/dX

    wrong = {"planted": planted, "no skip 1": _stream_backward(skip1=False),
             "A not transposed": _stream_backward(transpose_A=(False, False)),
             "W not transposed": _stream_backward(transpose_W=(False, False)),
             "nothing transposed": _stream_backward(transpose_A=(False, False), transpose_W=(False, False)),
             "A1 not transposed": _stream_backward(transpose_A=(False, True)),
             "A2 not transposed": _stream_backward(transpose_A=(True, False)),
             "W1 not transposed": _stream_backward(transpose_W=(False, True)),
             "W2 not transposed": _stream_backward(transpose_W=(True, False)),
             "layer 1 gets dOut": _stream_backward(layer1_reads="dOut"),
             "dOut added last": _stream_backward(layer1_reads="layer 2 only"),
             "layer 1 forgotten": _stream_backward(layer1_reads="nothing"),
             "straight path twice": _stream_backward(layer1_reads="dOut again"),
             "straight path only": _stream_backward(layer1_reads="dOut only"),
             "no straight paths": _stream_backward(skip1=False, skip2=False),
             "layers side by side": _stream_backward(layer1_reads="side by side"),
             "straight path from dOut": _stream_backward(layer1_reads="straight from dOut"),
             "path through both layers undone in the wrong order":
                 _stream_backward(layer1_reads="both layers, wrong order"),
             "path through both layers, its W's in the wrong order":
                 _stream_backward(layer1_reads="both layers, W's wrong order"),
             "path through both layers, its A's in the wrong order":
                 _stream_backward(layer1_reads="both layers, A's wrong order")}
    by_numbers = judge_fix(_stream_backward(), wrong, inputs,
                           "expected dL/dX (shape of X) for L = sum(H2 * dOut), the sum over every path.",
                           locked=(*SHORTCUTS, "induction_loss_and_grads"))

    def judge(fn):
        """The planted numbers from the function as handed out get a hint that says what to look for; from
        a changed function (the same path left out, written another way), one that explains."""
        verdict = by_numbers(fn)
        return "planted numbers" if verdict == "planted" and not still_planted(fn, PLANTED_073) else verdict

    shown = wrong | {"planted numbers": _stream_backward(skip2=False)}     # a changed function, same numbers
    hints = {
        "planted": "still the planted bug: it misses two of the four paths of section 3. Count the paths "
                   "from X to H2: each layer adds its output to its input, so at each layer the signal goes "
                   "through the layer or past it. Which of those paths does each line of the function add "
                   "up?",
        "planted numbers": "you changed the function, but it still gives the planted numbers: your dL/dH1 is "
                           "only what comes back through layer 2. Count the paths from X to H2: which of "
                           "them does each line of your function add up, and which does it leave out?",
        "no skip 1": "layer 2 is right now, but layer 1 has a straight path too: dX = dH1 + (what comes "
                     "back through layer 1).",
        "A not transposed": "output i read row i of A; going back, input j collects column j of A: "
                            "use Aᵀ.",
        "W not transposed": "for Z = H W the gradient of H is dZ Wᵀ, not dZ W.",
        "nothing transposed": "going back through Z = A H W, the gradient of H is Aᵀ dZ Wᵀ: "
                              "transpose both A and W, in both layers.",
        "A1 not transposed": "layer 2's step is right; in layer 1, input j collects column j of A1 on the "
                             "way back: use A1ᵀ.",
        "A2 not transposed": "layer 1's step is right; in layer 2, input j collects column j of A2 on the "
                             "way back: use A2ᵀ.",
        "W1 not transposed": "layer 2's step is right; in layer 1, for Z = H W1 the gradient of H is dZ W1ᵀ, "
                             "not dZ W1.",
        "W2 not transposed": "layer 1's step is right; in layer 2, for Z = H W2 the gradient of H is dZ W2ᵀ, "
                             "not dZ W2.",
        "layer 1 forgotten": "you return dH1 = dL/dH1, which is right, but X lies one layer further "
                             "back: H1 = X + A1 X W1, so dX = dH1 (straight) + what comes back through "
                             "layer 1.",
        "straight path twice": "dOut is already inside dH1 (the straight path past layer 2), and dH1 "
                               "goes straight on to X: adding dOut once more counts the path X → H1 → H2 "
                               "twice.",
        "layer 1 gets dOut": "layer 1 wrote into H1, and H1 reaches the loss along two paths (straight, "
                             "and through layer 2): send their sum dH1 back through layer 1, not dOut.",
        "dOut added last": "adding dOut at the end counts the straight path X → H1 → H2, but misses "
                           "the path that goes straight past layer 2 and *through* layer 1: add dOut "
                           "into dH1 first, then send dH1 back through layer 1.",
        "straight path only": "dOut alone is the straight path X → H1 → H2 only; three more paths go "
                              "through a layer: dH1 = dOut + (back through layer 2), then dX = dH1 + "
                              "(back through layer 1).",
        "no straight paths": "you follow only the path through both layers. Each layer adds its output to "
                             "its input, so the gradient also goes straight past it: dH1 = dOut + (back "
                             "through layer 2), dX = dH1 + (back through layer 1).",
        "layers side by side": "you send dOut back through each layer on its own, as if the two layers sat "
                               "side by side. They are in a row: layer 1's output reaches the loss through "
                               "H1, so compute dH1 = dOut + A2ᵀ dOut W2ᵀ first and send dH1 through layer 1.",
        "straight path from dOut": "layer 1's part is right, but X's straight path carries dL/dH1, not dOut: "
                                   "dX = dH1 + (back through layer 1). With dOut you drop the path through "
                                   "layer 2 and then straight past layer 1.",
        "path through both layers undone in the wrong order":
            "three of your four paths are right, but the path X → layer 1 → layer 2 is undone in the wrong "
            "order. Going back, the gradient meets layer 2 first, then layer 1: A1ᵀ (A2ᵀ dOut W2ᵀ) W1ᵀ, not "
            "A2ᵀ A1ᵀ dOut W1ᵀ W2ᵀ.",
        "path through both layers, its W's in the wrong order":
            "three of your four paths are right, and in the path X → layer 1 → layer 2 the A's are too "
            "(A1ᵀ A2ᵀ dOut), but its W's are undone in the wrong order. Going back, the gradient meets "
            "layer 2's W first, then layer 1's: … W2ᵀ W1ᵀ, not … W1ᵀ W2ᵀ.",
        "path through both layers, its A's in the wrong order":
            "three of your four paths are right, and in the path X → layer 1 → layer 2 the W's are too "
            "(dOut W2ᵀ W1ᵀ), but its A's are undone in the wrong order. Going back, the gradient meets "
            "layer 2's A first, then layer 1's: A1ᵀ A2ᵀ …, not A2ᵀ A1ᵀ ….",
    }
    return Trial("07.3", "Fix stream_backward: the gradient must follow every path.", "debug",
                 _stream_backward, judge,
                 {name: (lambda f=shown[name]: f, hint) for name, hint in hints.items()},
                 handed_out="planted", handed_out_source=HANDED_OUT_073)


# ---------------------------------------------------------------- 07.4 · the sum over paths, by hand
x74 = np.array([2.0, -1.0, 3.0, 1.0])                 # a 1-number stream, four tokens
A1_74 = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=float)   # previous token
A2_74 = np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.5, 0.3, 0.2, 0], [0.1, 0.1, 0.6, 0.2]])
w1_74, w2_74 = 0.5, -2.0                              # each head's W_v W_O, a single number here


def _paths_74(order="right", composed=True, w_both=None, token=3, rows=True):
    """The four paths to token `token`'s output; `rows=False` reads the columns of A (x @ A)."""
    A1, A2 = (A1_74, A2_74) if rows else (A1_74.T, A2_74.T)
    direct = x74[token]
    head1 = w1_74 * (A1 @ x74)[token]
    head2 = w2_74 * (A2 @ x74)[token]
    w = w1_74 * w2_74 if w_both is None else w_both
    both = w * ((A2 @ A1) if order == "right" else (A1 @ A2))[token] @ x74
    return np.array([direct, head1, head2, both if composed else 0.0])


def lesson07() -> list:
    """The four exercises of lesson 07."""
    h1 = x74 + w1_74 * (A1_74 @ x74)
    return [
        Choice("07.1", "The second copy is the first one reversed: the trained model's loss on it?", "c", {
            "a": "the induction head looks up the earlier copy of the current token and predicts "
                 "the token that came *after* it; reversed, the right token came *before* it.",
            "b": "the induction head still fires: it finds the earlier copy of the current token and "
                 "bets about a third of its probability on the token that followed it, which is now the "
                 "wrong one. That costs: measured, the reversed copy's loss comes out above the first "
                 "copy's, `loss_first` on your screen (3.32 in the lesson's run, seed 0), by 0.25 in that "
                 "run and by 0.05 to 0.3 on 15 of 16 further runs (seeds 32–47).",
            "d": "nothing here can reach zero: even on true repeats the loss stays above zero."}),
        _design_07(),
        _debug_07(),
        Exercise("07.4", "The four paths' contributions to the last token's output (direct, head 1, "
                 "head 2, head 1 then head 2).", _paths_74, {
            "no composed path": (lambda: _paths_74(composed=False),
                                 "three paths are right, but head 2 also reads what head 1 wrote: "
                                 "the fourth path goes through both, w1 · w2 · (A2 A1 x)."),
            "order swapped": (lambda: _paths_74(order="swapped"),
                              "the composed path runs through head 1 first, then head 2: A2 (A1 x), "
                              "not A1 (A2 x)."),
            "composed path without w1": (lambda: _paths_74(w_both=w2_74),
                                         "the fourth path passes through both heads, so both weights "
                                         "scale it: w1 · w2 · (A2 A1 x), not w2 · (A2 A1 x)."),
            "composed path without w2": (lambda: _paths_74(w_both=w1_74),
                                         "the fourth path passes through both heads, so both weights "
                                         "scale it: w1 · w2 · (A2 A1 x), not w1 · (A2 A1 x)."),
            "composed path without weights": (lambda: _paths_74(w_both=1.0),
                                              "your fourth number has the wrong sign: the fourth path "
                                              "passes through both heads, so both weights scale it, "
                                              "w1 · w2 · (A2 A1 x), and w1 · w2 is negative here."),
            "head 2 on the stream, composed path too": (
                lambda: _paths_74() + np.array([0.0, 0.0, w2_74 * (A2_74 @ (h1 - x74))[3], 0.0]),
                "your third number is head 2's whole output, which already contains the composed "
                "path: you count that path twice. Head 2's own path reads x: w2 · (A2 x)."),
            "heads swapped": (lambda: _paths_74()[[0, 2, 1, 3]],
                              "the right numbers, in the wrong order: head 1's path comes second, "
                              "head 2's third."),
            "first token": (lambda: _paths_74(token=0),
                            "these are the four paths to the first token's output; the exercise asks "
                            "for the last token's (row 3 of each A)."),
            "straight path in head 1": (lambda: _paths_74() + np.array([0.0, x74[3], 0.0, 0.0]),
                                        "your second number is the stream after layer 1, x + w1 · "
                                        "(A1 x): it holds the straight path, which is already the first "
                                        "number. Head 1's own path is w1 · (A1 x)."),
            "columns of A": (lambda: _paths_74(rows=False),
                             "you read column 3 of each A (x @ A). The last token's output reads "
                             "row 3: the weights it gives to each token, A @ x."),
            "output at every token": (lambda: h1 + w2_74 * (A2_74 @ h1),
                                      "these are the outputs of the four tokens. The exercise asks "
                                      "for the last token's output only, split into its four paths "
                                      "(they add up to your last number)."),
            "the total only": (lambda: (h1 + w2_74 * (A2_74 @ h1))[3],
                               "that is the last token's whole output, the sum of the four paths: "
                               "split it into the four parts, in the order given."),
            "no weights": (lambda: _paths_74(w_both=1.0) / np.array([1.0, w1_74, w2_74, 1.0]),
                           "your numbers leave out the heads' weights: head 1's path is scaled by w1, "
                           "head 2's by w2, and the path through both by w1 · w2."),
            "running totals": (lambda: np.cumsum(_paths_74()),
                               "each of your numbers is the sum of the paths so far (your last is the "
                               "whole output): give each path on its own, in the order given."),
            "composed path as a product": (lambda: _paths_74(composed=False) + np.array(
                [0.0, 0.0, 0.0, w1_74 * (A1_74 @ x74)[3] * w2_74 * (A2_74 @ x74)[3]]),
                "your fourth number is head 1's number times head 2's. The composed path is not a "
                "product of the two: head 2 reads what head 1 wrote at every token, so it is "
                "w1 · w2 · (A2 A1 x), at the last token."),
            "head 2 on the stream": (lambda: np.array([x74[3], w1_74 * (A1_74 @ x74)[3],
                                                       w2_74 * (A2_74 @ h1)[3], 0.0]),
                                     "your third number is head 2's whole output, which already "
                                     "contains the composed path: split it into the part from x and "
                                     "the part from head 1."),
        }, expects="four numbers, one per path: [direct, head 1, head 2, head 1 then head 2]"),
    ]
