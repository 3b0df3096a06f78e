"""Lesson 06's exercises (registered in exercises.EXERCISES): attention learns."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Exercise, Trial, read_numbers
from .judging import as_numbers, hinted, judge_fix, still_planted
from .masks import causal_mask
from .matrix import default_scale, softmax, softmax_unchecked


def _design_06():
    """06.2: position scores (8 × 8) with which attention rotates a sequence left by one place."""
    n = 8
    rng = np.random.default_rng(62)
    fresh = rng.integers(0, 10, size=(20, n))                  # 20 fresh sequences of digits
    places = np.arange(n)

    def scores(pairs, big=8.0):
        M = np.zeros((n, n))
        M[places, pairs % n] = big
        return M

    wrong = {"rotate right": scores(places - 1), "reversal": scores(n - 1 - places),
             "too weak": scores(places + 1, 3.0), "no wrap": scores(places + 1) * (places < n - 1)[:, None],
             "weights for scores": scores(places + 1, 1.0)}
    wrong_weights = {name: softmax(m) for name, m in wrong.items()}      # each mistake's weights, once

    def too_weak(M, A):
        """The first row whose right key gets < 0.9: 'too weak' if its other keys are level (the margin
        over all of them is too small), else the nearest rival and its margin, named."""
        i = int(np.flatnonzero(A[places, (places + 1) % n] < 0.9)[0])
        r = (i + 1) % n
        others = np.delete(np.arange(n), r)
        if np.ptp(M[i, others]) <= 1e-9 * max(1.0, np.abs(M[i][np.isfinite(M[i])]).max()):   # -inf: not level
            return "too weak"
        j = int(others[np.argmax(M[i, others])])
        return (f"not yet. Hint: with your scores, query place {i} reads the right key (place {r}), but "
                f"with only {A[i, r]:.2f} of the weight: key place {j} scores {M[i, j]:.10g} against its "
                f"{M[i, r]:.10g}, a margin of only {M[i, r] - M[i, j]:.2g}. The weight reaches 0.9 when the "
                "other keys' e^(s_j - s_right) add up to at most 1/9: a margin of ln(0.9 / 0.1 · 7) = "
                "ln 63 ≈ 4.1 over every one of the 7 other keys is enough.")

    def scores_of(answer):
        """The (n, n) scores, -inf kept as 'no weight' (lesson 04's mask) while a row keeps a finite score."""
        raw, what = read_numbers(answer), "position scores (query place, key place)"
        if not (isinstance(raw, np.ndarray) and raw.shape == (n, n) and np.isneginf(raw).any()):
            return as_numbers(answer, (n, n), what)
        if not np.isfinite(raw).any(axis=1).all():
            i = int(np.flatnonzero(~np.isfinite(raw).any(axis=1))[0])
            return (f"row {i} of your scores has no finite number: -inf means 'no weight', so that query "
                    "place would read no key at all. Keep a finite score for the key it must read.")
        M = as_numbers(np.where(np.isneginf(raw), 0.0, raw), (n, n), what)
        return M if isinstance(M, str) else np.where(np.isneginf(raw), -np.inf, M)

    def judge(answer):
        M = scores_of(answer)
        if isinstance(M, str):
            return M
        A = softmax(M)                                         # (n, n) the same for every sequence
        out = np.eye(10)[fresh].transpose(0, 2, 1) @ A.T      # (20, 10, n): attention reads one-hot tokens
        moved = (out.argmax(axis=1) == np.roll(fresh, -1, axis=1)).all()
        if moved and (A[places, (places + 1) % n] >= 0.9).all():
            return None
        for name, weights in wrong_weights.items():
            if np.allclose(weights, A, atol=0.05):
                return name
        tied = np.isclose(A, A.max(axis=1, keepdims=True), rtol=0, atol=1e-12)   # (n, n) each row's top
        wins = (tied.sum(axis=1) == 1) & (A.argmax(axis=1) == (places + 1) % n)  # (n,) the right key alone
        if np.allclose(M.sum(axis=1), 1.0) and (M >= 0).all() and wins.all():
            return "weights for scores"
        if wins.all():                                         # the right key wins, with < 0.9 somewhere
            return too_weak(M, A)
        if wins[:-1].all() and M[n - 1, 0] < M[n - 1].max() - 1.0:   # the last place did not try place 0
            return "no wrap"
        i = int(np.flatnonzero(~wins)[0])
        if tied[i].sum() > 1:
            top = ", ".join(str(int(j)) for j in np.flatnonzero(tied[i]))
            return (f"not yet. Hint: with your scores, query place {i} gives its largest weight to several "
                    f"key places at once ({top}), a tie: it must read place {(i + 1) % n}, with a larger "
                    "score than every other key; every place i must read place i + 1 (the last one place 0).")
        return (f"not yet. Hint: with your scores, query place {i} gives its largest weight to key place "
                f"{int(A[i].argmax())}: it must read place {(i + 1) % n}, and every place i must read "
                "place i + 1 (the last one place 0).")

    def may_pass(stack):
        """(N, n, n) scores: False where some place gives its right key less than 0.9 of its weight (the
        judge's ✓ needs at least 0.9 everywhere; 1e-9 below it: the judge's own rounding)."""
        A = softmax_unchecked(stack)                           # (N, n, n)
        return (A[:, places, (places + 1) % n] >= 0.9 - 1e-9).all(axis=1)

    return Trial("06.2", "Design position scores that rotate a sequence left by one place.", "design",
                 lambda: scores(places + 1), judge, hinted(wrong, {
        "rotate right": "your model reads the place before, so it rotates right. Rows are queries "
                        "(the place writing its output), columns are keys (the place it reads).",
        "reversal": "that is the reversal the model learned in this lesson; here place i must read "
                    "place i + 1.",
        "too weak": "the right key wins, with less than 0.9 of the weight: its score is not far enough "
                    "above the others. Against 7 other keys level with each other, it needs a margin "
                    "above ln(0.9 / 0.1 · 7) = ln 63 ≈ 4.1 over them (8 against 0, or 13 against 5).",
        "no wrap": "every place reads the next one, except the last: it must wrap around to place 0.",
        "weights for scores": "your rows sum to 1, like weights (or scores of 1 against 0). The check "
                              "takes your numbers as scores and applies the softmax, so a 1 against "
                              "seven 0s gets only e / (e + 7) of the weight: give scores, large for "
                              "the right key.",
    }), may_pass=may_pass)


def _grads_numeric(Q, K, V, dY, eps=1e-6):
    """dQ, dK, dV of L = sum(Y * dY), Y causal attention, by central differences: what a student who
    replaces the backward pass by finite differences hands in (plain NumPy, no package shortcut)."""
    future = np.triu(np.ones((len(Q), len(K)), dtype=bool), k=1)

    def L(Q_, K_, V_):
        S = np.where(future, -np.inf, Q_ @ K_.T * default_scale(K_.shape[1]))
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return float(((E / E.sum(axis=1, keepdims=True)) @ V_ * dY).sum())

    grads = []
    for i in range(3):
        args, g = [np.array(a, dtype=float) for a in (Q, K, V)], np.zeros(np.shape((Q, K, V)[i]))
        for idx in np.ndindex(g.shape):
            old = args[i][idx]
            args[i][idx] = old + eps
            up = L(*args)
            args[i][idx] = old - eps
            g[idx] = (up - L(*args)) / (2 * eps)
            args[i][idx] = old
        grads.append(g)
    return np.array(grads)


def diagonal_only(a: str, da: str, ds: str, right: str) -> str:
    """The hint for the softmax's derivative taken as its diagonal alone, a * (1 - a) * da, in an exercise's
    own names for the weights, their gradient and the scores' gradient, and its own way of writing the right
    formula (06.3: several queries, rowsum; 06.4: one query, a · dL/da)."""
    return (f"{a} * (1 - {a}) * {da} is only the diagonal of the softmax's Jacobian "
            "(∂a_j/∂s_j = a_j (1 - a_j)); the weights of a row also move with each other's scores "
            f"(∂a_k/∂s_j = -a_k a_j). Together: {ds} = {right}.")


def a_left_off(a: str, ds: str, right: str) -> str:
    """The hint for the softmax's derivative without its leading factor, in an exercise's own names for the
    weights and the scores' gradient, and its own way of writing the right formula (06.3: several queries,
    rowsum; 06.4: one query, a · dL/da)."""
    return (f"your {ds} is missing the factor {a} in front. Both parts of the softmax's derivative carry "
            "the weight a_j of the score s_j (∂a_j/∂s_j = a_j (1 - a_j), ∂a_k/∂s_j = -a_k a_j), so it "
            f"multiplies the whole bracket: {ds} = {right}.")


RIGHT_063 = "A * (dA - rowsum(A * dA))"          # dS as 06.3's hints write it (a row of weights per query)
RIGHT_064 = "a ⊙ (dL/da − a · dL/da)"            # dL/ds as 06.4's hints write it (one query)


PLANTED_063 = "dS = A * dA"                               # 06.3's wrong line, as the lesson prints it
HANDED_OUT_063 = """\
def causal_attention_grads(Q, K, V, dY):
    s = 1 / np.sqrt(K.shape[1])
    A = al.softmax(np.where(al.causal_mask(len(Q)), s * Q @ K.T, -np.inf))
    dA = dY @ V.T
    dS = A * dA
    return s * dS @ K, s * dS.T @ Q, A.T @ dY
"""
"""06.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""

TINY = 1e-30
"""06.3's last fresh input has V and dY of this size: dA = dY Vᵀ (about 1e-60) is below float32's smallest
number (1.4e-45), so a backward pass that passes through float32 anywhere returns dQ = dK = 0 there, while
float64 (and finite differences in float64) keep them."""


def _debug_06():
    """06.3: the backward pass of causal attention with one wrong line, caught by finite differences."""
    rng = np.random.default_rng(63)
    inputs = [tuple(rng.standard_normal((m, 3)) for _ in range(4)) for m in (4, 5)]
    Q, K, V, dY = (rng.standard_normal((6, 3)) for _ in range(4))
    inputs.append((4.0 * Q, 4.0 * K, V, dY))                  # steep softmax: finite differences drift
    Q, K, V, dY = (rng.standard_normal((5, 3)) for _ in range(4))
    inputs.append((Q, K, TINY * V, TINY * dY))                # float32 underflows here, float64 does not

    def backward(fix_softmax=True, scale_grads=True, transpose_dK=True, masked=True, axis=1, keepdims=True,
                 times=1, swap=False, weighted=True, rows="sum", diagonal=False, sign=1, leading=True,
                 allowed_only=False, future_zeroed=False):
        def grads(Q, K, V, dY):
            s = default_scale(K.shape[1])
            S = s * Q @ K.T
            A = softmax(np.where(causal_mask(len(Q)), S, -np.inf) if masked else S)
            dA = dY @ V.T
            row = getattr(A * dA if weighted else dA, rows)(axis=axis, keepdims=keepdims)   # rowsum(A ⊙ dA)
            if allowed_only:                                 # dA's plain mean over each query's allowed keys
                allowed = causal_mask(len(Q))
                row = (dA * allowed).sum(axis=1, keepdims=True) / allowed.sum(axis=1, keepdims=True)
            dS = sign * (A if leading else 1.0) * (dA - row) if fix_softmax else A * dA
            dS = np.where(causal_mask(len(Q)), dS, 0.0) if future_zeroed else dS   # as A would have zeroed it
            dS = A * (1 - A) * dA if diagonal else dS
            dR = s ** times * dS if scale_grads else dS      # dL/dR, R = Q Kᵀ before the scale s
            dQ, dK = dR @ K, (dR.T if transpose_dK else dR) @ Q
            return (dK, dQ, A.T @ dY) if swap else (dQ, dK, A.T @ dY)
        return grads

    def in_float32(out):                                     # numbers float32 holds exactly (or float16)
        if not isinstance(out, np.ndarray):
            return False
        with np.errstate(over="ignore", invalid="ignore"):  # 1e300 becomes inf in float32: not equal
            return np.array_equal(out, out.astype(np.float32))

    def near(out, ref):                                      # within what finite differences can reach
        return isinstance(out, np.ndarray) and out.shape == ref.shape and np.allclose(out, ref, atol=1e-4) \
            and not in_float32(out)                          # differences land between float32's numbers

    def decimals(out):                                       # the fewest decimals (1-9) out is rounded to
        if not isinstance(out, np.ndarray) or not np.isfinite(out).all():
            return None
        with np.errstate(over="ignore"):                     # 1e300 · 10^k overflows: not rounded to k
            return next((k for k in range(1, 10) if np.array_equal(out, np.round(out, k))), None)

    def rounded(out, ref):                                   # a right pass, its numbers kept in low precision
        if not isinstance(out, np.ndarray) or out.shape != ref.shape:
            return False
        if in_float32(out):
            return np.allclose(out, ref, rtol=1e-2, atol=1e-3 * max(1.0, float(np.abs(ref).max())))
        k = decimals(out)                    # np.round(g, k): within half a last place (ref is float32)
        big = max(1.0, float(np.abs(ref).max()))
        return k is not None and np.allclose(out, ref, rtol=0, atol=0.51 * 10.0 ** -k + 1e-6 * big)

    def in_low_precision(Q, K, V, dY):
        return tuple(g.astype(np.float32) for g in backward()(Q, K, V, dY))

    def through_float32(Q, K, V, dY):                        # float32 inside, a float64 result
        return backward()(*(x.astype(np.float32) for x in (Q, K, V, dY)))

    def underflowed(out, ref):                               # ref: through_float32 on the same input
        """Near the exact gradients; and where float32 underflowed to 0 (dQ and dK of the tiny input), 0
        too: float64, and finite differences in float64, keep numbers of about 1e-60 there."""
        if not (isinstance(out, np.ndarray) and out.shape == ref.shape and np.isfinite(out).all()):
            return False
        gone = [not g.any() for g in ref]                    # which of dQ, dK, dV underflowed
        if not any(gone):
            return np.allclose(out, ref, rtol=1e-2, atol=1e-2 * max(1.0, float(np.abs(ref).max())))
        return all(not o.any() for o, g in zip(out, gone) if g)

    def planted(Q, K, V, dY):                 # the function printed in the lesson, bug included
        s = 1 / np.sqrt(K.shape[1])
        A = softmax(np.where(causal_mask(len(Q)), s * Q @ K.T, -np.inf))
        dA = dY @ V.T
        dS = A * dA
        return s * dS @ K, s * dS.T @ Q, A.T @ dY

    wrong = {"planted": planted, "no scale": backward(scale_grads=False),
             "dK not transposed": backward(transpose_dK=False), "unmasked": backward(masked=False),
             "sum over axis 0": backward(axis=0), "no keepdims": backward(keepdims=False),
             "scaled twice": backward(times=2), "dQ and dK swapped": backward(swap=True),
             "A left out of the sum": backward(weighted=False), "diagonal only": backward(diagonal=True),
             "mean for the sum": backward(rows="mean"), "sign flipped": backward(sign=-1),
             "A left off": backward(leading=False), "unweighted mean": backward(weighted=False, rows="mean"),
             "A left off, future keys masked": backward(leading=False, future_zeroed=True),
             "unweighted mean of the allowed keys": backward(allowed_only=True),
             "low precision": (in_low_precision, rounded), "float32 inside": (through_float32, underflowed),
             "finite differences": (_grads_numeric, near)}

    # A backward pass, however it is written (matmul, einsum, loops), agrees with the reference to about
    # 1e-15 of the gradients' size; central differences at their best step (1e-5) come within 2e-11 to
    # 4e-11, on either BLAS kernel. 1e-12 lies between, with a margin of ~25 on the side of the differences.
    def exact(out, ref):
        return isinstance(out, np.ndarray) and out.shape == ref.shape and \
            np.abs(out - ref).max() <= 1e-12 * max(1.0, np.abs(ref).max())

    by_numbers = judge_fix(backward(), wrong, inputs, "expected (dQ, dK, dV), each of the shape of Q, K "
                           "and V: the exact gradients of causal attention, as the finite-difference check "
                           "estimates them.", close=exact, atol=1e-9)

    def judge(fn):
        """The planted numbers from the function as handed out get a hint that says what to look for; from
        a changed function (A * dA written another way), one that explains."""
        verdict = by_numbers(fn)
        return "planted numbers" if verdict == "planted" and not still_planted(fn, PLANTED_063) else verdict

    return Trial("06.3", "Fix causal_attention_grads: one line is wrong.", "debug", lambda: backward(),
                 judge, hinted(wrong | {"planted numbers": backward(fix_softmax=False)}, {
        "planted": "still the planted bug: one line is wrong. Run the finite-difference check of section 3 "
                   "on it: which of dQ, dK and dV does it find wrong? Which lines do the wrong ones pass "
                   "through that the right ones do not? Compare those with section 3's steps.",
        "planted numbers": "you changed the function, but it still gives the planted numbers: your dS is "
                           "A * dA, only part of the softmax's derivative. Compare your dS line with "
                           "section 3's steps through the softmax: "
                           "which part of the derivative does it leave out?",
        "no scale": "the softmax is right now, but the scores were multiplied by 1/√d_k on the way "
                    "in, so their gradient must be multiplied by it on the way back.",
        "dK not transposed": "dK uses dS as if key j were query j: row j of dK collects column j of "
                             "dS (dK = dSᵀ Q/√d_k).",
        "unmasked": "these are the gradients of attention without the mask (al.attention_backward): "
                    "the causal mask is part of the forward pass, so the backward pass must use the "
                    "masked weights.",
        "sum over axis 0": "the row sum runs over the wrong axis: rowsum(A * dA) adds along each row "
                           "(axis=1, a query's keys), one number per query.",
        "no keepdims": "without keepdims=True, the (n,) row sums line up with the columns: query i's "
                       "sum is subtracted from column i. Keep it as a column, (n, 1).",
        "A left out of the sum": "the row sum must weigh each dA by its weight: rowsum(A * dA), "
                                 "not rowsum(dA). It is Σ_k a_k dA_k, the weighted mean that each "
                                 "weight's own gradient is compared with.",
        "diagonal only": diagonal_only("A", "dA", "dS", RIGHT_063),
        "A left off": a_left_off("A", "dS", RIGHT_063),
        "A left off, future keys masked": "zeroing the future keys is only part of what the factor A does: "
                                          + a_left_off("A", "dS", RIGHT_063),
        "unweighted mean": "dA.mean() gives every key the same share, 1/n (the masked future keys too), "
                           "where the mean that each weight's own gradient is compared with weighs each dA "
                           "by its attention weight: Σ_k a_k dA_k = rowsum(A * dA), a sum, since the "
                           "weights already add up to 1.",
        "unweighted mean of the allowed keys": "a plain mean of dA over a query's allowed keys still gives "
                                               "each of them the same share, 1/(i + 1) for query i (from 0), "
                                               "where the mean that each weight's own gradient is compared "
                                               "with weighs each dA by its attention weight: Σ_k a_k dA_k = "
                                               "rowsum(A * dA), a sum, since the weights already add up to 1 "
                                               "(and are 0 on the masked keys).",
        "sign flipped": "your dS has the wrong sign: rowsum(A * dA) - dA is the other way round. Each "
                        "weight's own gradient comes first: dS = A * (dA - rowsum(A * dA)).",
        "mean for the sum": "a mean in place of the row sum: the weights already sum to 1, so "
                            "rowsum(A * dA) is the weighted mean itself; .mean() divides it by n once more.",
        "scaled twice": "the scale 1/√d_k is applied twice: once is enough, on the way back through "
                        "the scores.",
        "dQ and dK swapped": "your dQ is dK and your dK is dQ: dQ = dS K/√d_k (a query's row collects "
                             "its keys), dK = dSᵀ Q/√d_k.",
        "low precision": "your gradients are right, but only to float32's 7 digits (or float16's 3), or "
                         "rounded to a few decimals: the check compares to float64's last digits. Keep "
                         "the computation and the result in float64, unrounded: no .astype(np.float32), "
                         "no dtype=np.float32, no np.round.",
        "float32 inside": "your gradients are right to about float32's 7 digits, not to float64's last "
                          "ones: somewhere the computation passes through float32 (a cast of the inputs, "
                          "of A or of dS), even though the result is float64. On the check's input with "
                          f"tiny V and dY ({TINY:g}), dA underflows to 0 in float32, and so do your dQ and "
                          "dK. Keep every step in float64: no .astype(np.float32), no dtype=np.float32.",
        "finite differences": "these are close to the gradients, but not exact, as finite differences are "
                              "(the check compares to the last digits, on scores where the softmax is "
                              "steep). Finite differences check a backward pass; they are not one: fix "
                              "the line of the formula instead. (If you wrote no finite differences, look "
                              "for a step in float32 or float16.)",
    }), handed_out="planted", handed_out_source=HANDED_OUT_063)


q64 = np.array([2.0, 1.0])                       # 06.4: one query (d_k = 2), three keys,
K64 = np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]])
V64 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])   # their values,
g64 = np.array([1.0, -1.0])                      # and dL/dy, the gradient of the loss at the output y


def lesson06():
    def ds(subtract=True, weights=True, scale=None, back=1.0, diagonal=False, leading=True):
        """dL/ds for the scaled scores s = scale q Kᵀ (the right answer with the defaults: 1/√2)."""
        s_ = (default_scale(2) if scale is None else scale) * K64 @ q64     # (3,) the scores
        a = softmax(s_) if weights else s_
        da = V64 @ g64                                  # dL/da_j = v_j · g
        if diagonal:
            return a * (1 - a) * da
        return back * ((a if leading else 1.0) * (da - a @ da) if subtract else a * da)

    return [
        Choice("06.1", "Task 'copy' (target i = token i), attention removed: held-out accuracy?", "a", {
            "b": "reversing needs attention, because output i needs another place's token. Copying "
                 "needs only the token at the same place, and the residual path brings it there.",
            "c": "about 0.3 is the no-position model on reversal, guessing the commonest of the other "
                 "seven digits. Here the right token is the model's own input.",
            "d": "it trains fine: the embeddings, the positions and W_u still learn; only attention "
                 "is gone."}),
        _design_06(),
        _debug_06(),
        Exercise("06.4", "One query q = (2, 1), keys (1, 1), (0, 2), (2, 0), values (1, 0), (0, 1), "
                         "(1, 1), d_k = 2, dL/dy = (1, -1): compute dL/ds for the scores s = q Kᵀ/√2.",
                 ds, {
            "no subtraction": (lambda: ds(subtract=False),
                               "you used a * dL/da, the diagonal of the softmax's derivative only: "
                               "subtract a · dL/da from every entry first."),
            "softmax skipped": (lambda: V64 @ g64,
                                "that is dL/da, the gradient with respect to the weights; go one step "
                                "further back, through the softmax."),
            "scores for weights": (lambda: ds(weights=False),
                                   "you used the scores s where the softmax's derivative needs the "
                                   "weights a = softmax(s)."),
            "unscaled scores": (lambda: ds(scale=1.0),
                                "your weights come from q · k without the division by √d_k = √2: "
                                "s = q Kᵀ/√2, and a = softmax(s)."),
            "scores divided by 2": (lambda: ds(scale=0.5),
                                    "you divided q · k by d_k = 2; the scores divide by its square "
                                    "root, √2."),
            "through the scale": (lambda: ds(back=default_scale(2)),
                                  "you multiplied by 1/√2 once more: that is the gradient with respect "
                                  "to the unscaled products q · k. The question asks for dL/ds, the "
                                  "scores after the division."),
            "diagonal only": (lambda: ds(diagonal=True), diagonal_only("a", "dL/da", "dL/ds", RIGHT_064)),
            "leading a left off": (lambda: ds(leading=False), a_left_off("a", "dL/ds", RIGHT_064)),
            "sign flipped": (lambda: -ds(),
                             "your signs are flipped: dL/ds = a ⊙ (dL/da − a · dL/da), each weight's "
                             "own gradient minus the weighted mean."),
            "the weights": (lambda: softmax(default_scale(2) * K64 @ q64),
                            "these are the weights a = softmax(s), the forward pass; now go back: "
                            "dL/da = V g, then through the softmax."),
            "dL/dq": (lambda: default_scale(2) * ds() @ K64,
                      "that is dL/dq, two numbers (dQ = dS K/√d_k); the question stops one step "
                      "earlier: dL/ds, one number per key."),
        }, expects="dL/ds, three numbers (one per score)", softmax=True, flat=True),
    ]
