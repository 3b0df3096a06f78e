"""Lesson 10 (appendix; errata of 01-04): the sources' worked examples, what they printed, a checker.

Each function returns a fresh, frozen record with named fields (src.X, src.W_q, src.printed, ...),
as the collection's own examples do, so a lesson may change its own copy of the arrays freely.
`printed` maps the name of each printout to the values exactly as the source printed them, even
where they are wrong: lessons recompute and compare.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, as_count, as_positive, shape_of, to_array

FLOAT32_LIMIT = 1e-6
"""float32 rounding, relative to a printout's largest number, for sums of a few dozen terms of about that
size: each result is rounded to a relative 2^-24 (6e-8), a dozen such steps add up to about 1e-7, and
1e-6 leaves a margin. It grows with the length of the sums, and where large terms cancel."""

MASK_FILL = -1e4
"""A finite score at or below this is read as a mask fill (lesson 04's finfo(dtype).min, a tutorial's -1e9,
BERT's -10000) and refused: the checks need -inf at a masked key. No real score here is this low."""

NO_BOOLEANS = "a mask goes into the scores as -inf at each masked key"


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def refuse_mask_fill(values: np.ndarray, name: str) -> None:
    """A ValueError if `values` holds a finite number at or below MASK_FILL: a mask fill, not a score."""
    if values.dtype.kind in "iuf":
        fill = np.isfinite(values) & (values <= MASK_FILL)
        if fill.any():
            raise ValueError(f"{name} holds {values[fill].flat[0]:g}, which looks like a mask fill (a "
                             f"finite number at or below {MASK_FILL:g}, such as -1e9 or finfo(dtype).min): "
                             "pass -inf at each masked key instead")


def printout_rows(scores, weights) -> tuple[np.ndarray, np.ndarray]:
    """A source's printed scores and weights: the same shape, one row (n,) or rows (m, n). A score may be
    -inf (a masked key, as lesson 04 fills them; a NumPy masked array's masked scores count as -inf), not
    nan or +inf; every row keeps at least one key. Weights may not be masked: a masked key's weight is 0."""
    for given, name in ((scores, "scores"), (weights, "weights")):
        if isinstance(given, np.ma.MaskedArray) and np.ma.is_masked(given) and name == "weights":
            raise ValueError("weights is a masked array with masked entries: pass the printed weights as "
                             "plain numbers (0 at each masked key), and mask the scores (-inf, or a masked "
                             "array) instead")
    if isinstance(scores, np.ma.MaskedArray):       # a masked score is a masked key: -inf, as lesson 04 fills
        scores = np.ma.asarray(scores, dtype=float).filled(-np.inf)
    if isinstance(weights, np.ma.MaskedArray):
        weights = np.ma.getdata(weights)
    raw = to_array(scores, "scores")
    for given, name in ((raw, "scores"), (to_array(weights, "weights"), "weights")):
        if given.dtype == bool:
            raise TypeError(f"{name} holds booleans: expected real numbers; {NO_BOOLEANS}")
    refuse_mask_fill(raw, "scores")
    masked = np.isneginf(raw) if raw.dtype.kind == "f" else np.zeros(raw.shape, dtype=bool)
    if raw.dtype.kind == "f" and (np.isnan(raw) | np.isposinf(raw)).any():
        bad = raw[np.isnan(raw) | np.isposinf(raw)][0]
        raise ValueError(f"scores contain {bad}: expected finite numbers, or -inf at a masked key")
    S = as_array(np.where(masked, 0.0, raw) if masked.any() else raw, "scores", "(n,) or (m, n)",
                 min_ndim=1)
    W = as_array(weights, "weights", "(n,) or (m, n)", min_ndim=1)
    if S.shape != W.shape or S.ndim not in (1, 2):
        raise ValueError(f"scores have shape {shape_of(S)} and weights {shape_of(W)}: expected the "
                         "same shape, one row (n,) or rows (m, n)")
    S[masked] = -np.inf
    for r, row in enumerate(np.atleast_2d(masked)):
        if row.all():
            where = f"row {r} of scores" if S.ndim == 2 else "scores"
            raise ValueError(f"{where} is -inf at every key: a padded query with no unmasked key (lesson "
                             "04, section 2), routine and no bug; leave that row out of the check (its "
                             "weights are 0 or nan by convention)")
    return S, W


# pragma: no mutate end
@dataclass(frozen=True, eq=False)
class SourceAttention:
    """A source's self-attention example: tokens as rows of X and its three weight matrices, in the
    source's own convention (see the function that made it), and what the source printed."""
    X: np.ndarray        # (n, d): one token per row
    W_q: np.ndarray      # (d, d_k)
    W_k: np.ndarray      # (d, d_k)
    W_v: np.ndarray      # (d, d_v)
    printed: dict        # printout name -> the values the source printed


@dataclass(frozen=True, eq=False)
class SourceTorchLayout:
    """A source's example with PyTorch-layout weights (out x in): Q = encodings @ W_q_torch.T."""
    tokens: list[str]
    encodings: np.ndarray  # (n, d): one token per row
    W_q_torch: np.ndarray  # (d_k, d): nn.Linear's weight
    W_k_torch: np.ndarray  # (d_k, d)
    W_v_torch: np.ndarray  # (d_v, d)
    printed: dict          # printout name -> the values the source printed


@dataclass(frozen=True, eq=False)
class SourceEncoderDecoder:
    """A source's self- and cross-attention example with one weight matrix W for queries, keys, values."""
    X: np.ndarray          # (n, d): the self-attention input
    Z_encoder: np.ndarray  # (n, d): the encoder's output (keys and values of cross-attention)
    Z_self: np.ndarray     # (m, d): the decoder's masked self-attention output (the queries)
    W: np.ndarray          # (d, d): W_q = W_k = W_v
    printed: dict          # printout name -> the values the source printed


def source_000() -> SourceAttention:
    """y_2 of four 4-d tokens, column convention (q_i = W_q x_i: the source's columns x_i are the
    rows of X; W_q, W_k, W_v as the source wrote them), no scaling; float32 printout."""
    x = np.array([[-0.20886648, 0.5476398, 0.72447395, -1.1310507],
                  [0.1870852, -1.3414632, -1.1067361, -1.3406332],
                  [-1.4844604, 0.60378075, 0.39966342, -0.7903915],
                  [-0.39180905, -1.2203115, 1.0298591, -0.23658466]])
    W_q = np.array([[0.0558263, -1.7287809, 0.06325671, 0.8925434],
                    [0.44502732, 2.3946028, -0.7817421, -0.5631514],
                    [0.8664166, 0.14898889, -1.2681427, -1.3942317],
                    [-0.52701306, 0.6796619, 0.95935136, -0.8240369]])
    W_k = np.array([[1.4865062, 0.53539854, 0.707822, -0.3496642],
                    [-0.36981565, -0.43839103, 0.06208184, -0.34790948],
                    [1.5218863, -1.1896831, 0.3180406, 1.2518362],
                    [0.4551281, -1.190138, 1.8135393, 0.6393279]])
    W_v = np.array([[-1.9406502, 0.35411984, -0.59085363, -0.40704426],
                    [0.8450196, -0.21295227, 2.219851, -0.58515114],
                    [1.1703489, 1.7554591, 1.4085048, -0.09804194],
                    [0.40726846, -0.44613966, -0.89044726, 0.1120782]])
    printed = {
        "q_2": np.array([1.0629584, -1.5088519, 3.2348833, -0.9673554]),
        "k": np.array([[0.8910108, 0.27564165, -2.154867, -0.1560781],
                       [-0.75471485, 0.91660917, -0.14960161, -1.1825396],
                       [-1.3241341, 0.5840812, -3.839819, -1.174716],
                       [-0.42409754, 0.8261164, 0.8868669, 2.9904504]]),
        "scores": np.array([-6.288555, -1.5252657, -13.573791, -1.7212026]),
        # the source printed w_21, w_22, then (by a copy-paste slip) the raw scores w'_23, w'_24
        "weights": np.array([0.00466374, 0.5462668, -13.573791, -1.7212026]),
        "v": np.array([[0.63159657, 1.9769425, 1.8482281, -1.1012605],
                       [0.3615104, -1.2285581, -3.5633335, 1.5099082],
                       [3.1802108, -0.03328285, -0.03700471, -1.3184092],
                       [-0.18396774, 2.3533535, -1.1270034, -0.55869323]]),
        "y_2": np.array([0.11782318, 0.39491105, -2.4440105, 0.5687822]),
    }
    return SourceAttention(X=x, W_q=W_q, W_k=W_k, W_v=W_v, printed=printed)


def source_001() -> SourceAttention:
    """Two tokens X = I, W_q = W_k = I, W_v = [[1, 2], [3, 4]], scaled by sqrt(2)."""
    eye = np.eye(2)
    return SourceAttention(X=eye.copy(), W_q=eye.copy(), W_k=eye.copy(),
                           W_v=np.array([[1.0, 2.0], [3.0, 4.0]]),
                           printed={"output": np.array([[1.6604769, 2.6604769], [2.3395231, 3.3395231]])})


def source_002() -> SourceAttention:
    """Three 4-d inputs, 4x3 weights, not scaled (the source sets sqrt(d_k) to 1)."""
    return SourceAttention(
        X=np.array([[1.0, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]]),
        W_q=np.array([[1.0, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]]),
        W_k=np.array([[0.0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]]),
        W_v=np.array([[0.0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]),
        printed={
            "scores": np.array([[2.0, 4, 4], [4, 16, 12], [4, 12, 10]]),
            "weights": np.array([[0.06337894, 0.46831053, 0.46831053],
                                 [6.03366485e-06, 9.82007865e-01, 1.79861014e-02],
                                 [2.95387223e-04, 8.80536902e-01, 1.19167711e-01]]),
            "weights_row_1_rounded": np.array([0.06, 0.46, 0.46]),
            "output_row_1": np.array([1.93662106, 6.68310531, 1.59506841]),
            "sqrt_d_k": 1.75,
        },
    )


def source_003() -> SourceTorchLayout:
    """'Write a poem': 2-d encodings; weights in PyTorch layout (out x in), so Q = X @ W_q.T."""
    return SourceTorchLayout(
        tokens=["Write", "a", "poem"],
        encodings=np.array([[1.16, 0.23], [0.57, 1.36], [4.41, -2.16]]),
        W_q_torch=np.array([[0.5406, 0.5869], [-0.1657, 0.6496]]),
        W_k_torch=np.array([[-0.1549, 0.1427], [-0.3443, 0.4153]]),
        W_v_torch=np.array([[0.6233, -0.5188], [0.6146, 0.1323]]),
        printed={"scores_write": np.array([-0.09, 0.06, -0.61]),
                 "weights_write": np.array([0.36, 0.40, 0.24]),
                 "output_write_first": 1.0},
    )


def source_004() -> SourceEncoderDecoder:
    """Identity weights, scaled by sqrt(2): a 3-token self-attention and a 2-query cross-attention."""
    Z_enc = np.array([[1.0, 0], [0, 1], [1, 1]])
    return SourceEncoderDecoder(
        X=Z_enc.copy(), Z_encoder=Z_enc, Z_self=np.eye(2), W=np.eye(2),
        printed={
            "self_weights": np.array([[0.5, 0.183, 0.317], [0.183, 0.5, 0.317],
                                      [0.211, 0.211, 0.578]]),
            "self_output": np.array([[0.817, 0.317], [0.317, 0.817], [0.789, 0.789]]),
            "cross_weights": np.array([[0.5, 0.183, 0.317], [0.183, 0.5, 0.317]]),
            "cross_output": np.array([[0.817, 0.317], [0.317, 0.817]]),
        },
    )


def rounding_limit(printed: ArrayLike, decimals: int | None = None) -> float:
    """How far a correct printout may be from the values recomputed at full precision: the larger of
    float32 rounding (FLOAT32_LIMIT = 1e-6 times the printout's largest finite number) and half a unit in its
    last printed digit (0.5 * 10**-decimals; `decimals` is how many digits it shows after the point, None
    for a printout at float32's full precision). Anything larger is a finding. As in `printout_problems`,
    -inf marks a masked score (so do a NumPy masked array's masked entries) and is left out; a finite mask
    fill (at or below MASK_FILL, -1e4) is refused with a ValueError that says to pass -inf."""
    if isinstance(printed, np.ma.MaskedArray):
        printed = np.ma.asarray(printed, dtype=float).filled(-np.inf)
    # pragma: no mutate start  (the door: input checks are not mutated)
    raw = to_array(printed, "printed")
    if raw.dtype == bool:
        raise TypeError(f"printed holds booleans: expected real numbers; {NO_BOOLEANS}")
    refuse_mask_fill(raw, "printed")
    if raw.dtype.kind == "f" and raw.size and np.isneginf(raw).all():
        raise ValueError("printed is -inf (masked) everywhere: expected at least one finite number")
    # pragma: no mutate end
    if raw.dtype.kind == "f" and np.isneginf(raw).any():      # masked scores are left out
        raw = raw[~np.isneginf(raw)]
    # pragma: no mutate start
    P = as_array(raw, "printed", "(numbers as the source printed them; -inf at a masked key)", min_ndim=0)
    if decimals is not None:
        decimals = as_count(decimals, "decimals", minimum=0)
    # pragma: no mutate end
    limit = FLOAT32_LIMIT * float(np.abs(P).max())
    if decimals is not None:
        limit = max(limit, 0.5 * 10.0 ** -decimals)
    return limit


def tie_allowance(w_i: float, w_j: float, tol: float, score_tol: float) -> float:
    """How far apart, in either order, two correct printed weights may be when their printed scores are
    within 2 score_tol of each other. Each printed score is within `score_tol` of the true one, so the true
    scores may be in either order, and differ by d <= 2 score_tol; the true weights' ratio is exp(d): the
    larger true weight w exceeds the smaller by w (1 - exp(-d)) <= w (1 - exp(-2 score_tol)), where
    w <= max(w_i, w_j) + tol. Each printed weight is within `tol` of its true one, which adds up to 2 tol."""
    return 2 * tol + (max(w_i, w_j) + tol) * -np.expm1(-2 * score_tol)


def printout_problems(scores: ArrayLike, weights: ArrayLike, tol: float = 5e-3,
                      score_tol: float | None = None) -> list[str]:
    """What printed attention weights get wrong, judged from their own scores alone (no exp needed).

    `scores` and `weights` are one row (n,) or rows (m, n). Pass the scores the softmax saw: with a mask,
    the masked scores, -inf at each masked key (a NumPy masked array's mask counts too; a finite fill at or
    below MASK_FILL, -1e4, such as -1e9 or finfo(dtype).min, is refused with a ValueError: pass -inf).
    A masked key must have weight 0 and is left out of the order and tie checks. `tol` allows for the
    weights' rounding: `rounding_limit(weights, decimals)`, half a unit in their last printed digit (the
    default, 5e-3, is that of a printout with 2 decimals; 5e-5 for 4 decimals), or float32's limit for a
    printout at full precision. `score_tol` is the same for the scores, `rounding_limit(scores, decimals)` (by
    default `tol`: scores and weights printed with the same digits; for scores recomputed at full
    precision, `rounding_limit(scores)` if the source computed in float32, 0 only for exact scores).
    Printed scores within 2 score_tol of each other may truly be equal or in the other order, so their
    weights may differ by `tie_allowance`, in either order. A row's sum may be off by n tol, plus float32's
    FLOAT32_LIMIT (its rounding of a row printed at full precision).
    """
    S, W = printout_rows(scores, weights)
    # pragma: no mutate start  (the door: input checks are not mutated)
    tol = as_positive(tol, "tol", "5e-3 (half a unit in the last digit of a 2-decimal printout)", zero=True)
    if score_tol is not None:
        score_tol = as_positive(score_tol, "score_tol",
                                "half a unit in the last digit of the printed scores (0.05 for 1 decimal)",
                                zero=True)
    # pragma: no mutate end
    score_tol = tol if score_tol is None else score_tol
    problems = []
    for r, (s, w) in enumerate(zip(np.atleast_2d(S), np.atleast_2d(W))):
        row = f"row {r}: " if S.ndim == 2 else ""
        problems += [f"{row}weight {w[j]:g} of key {j} is outside 0..1" for j in range(len(w))
                     if not -tol <= w[j] <= 1 + tol]
        problems += [f"{row}key {j} is masked (score -inf) but has weight {w[j]:g}, not 0"
                     for j in range(len(w)) if np.isneginf(s[j]) and abs(w[j]) > tol]
        allowed_sum = tol * len(w) + FLOAT32_LIMIT
        if abs(w.sum() - 1) > allowed_sum:
            problems.append(f"{row}the weights sum to {w.sum():.10g}, not 1 (off by {w.sum() - 1:+.3g}; the "
                            f"rounding allows {allowed_sum:.2g})")
        kept = [j for j in range(len(s)) if not np.isneginf(s[j])]
        for a, i in enumerate(kept):
            for j in kept[a + 1:]:
                allowed = tie_allowance(w[i], w[j], tol, score_tol)
                if s[i] == s[j] and abs(w[i] - w[j]) > allowed * (1 + 1e-9):
                    problems.append(f"{row}keys {i} and {j} have equal scores ({s[i]:g}) but weights "
                                    f"{w[i]:g} and {w[j]:g}, further apart than the rounding allows "
                                    f"({allowed:.2g})")
                elif ((s[i] - s[j]) * (w[i] - w[j]) < 0
                      and abs(w[i] - w[j]) > (allowed * (1 + 1e-9) if abs(s[i] - s[j]) <= 2 * score_tol
                                              else tol)):
                    zero = [k for k in (i, j) if abs(w[k]) <= tol]
                    masked = (f" (key {zero[0]}'s weight rounds to 0 at tol={tol:g}: if key {zero[0]} was "
                              "masked, pass the masked scores, -inf at each masked key)") if zero else ""
                    problems.append(f"{row}key {i} scores {s[i]:g} and key {j} {s[j]:g}, but their "
                                    f"weights {w[i]:g} and {w[j]:g} are in the other order{masked}")
    return problems
