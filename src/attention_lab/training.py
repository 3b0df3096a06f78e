"""Lesson 06: attention learns. One attention layer trained in NumPy: backward pass by hand, Adam.

The model (row convention, a batch of B sequences of n tokens, h heads of width d_k = d / h):

    X = E[ids] + P                      (B, n, d)   token embedding + learned position
    Q, K, V = split(X W_q), ...         (B, h, n, d_k)
    Y, A = attention(Q, K, V)           (B, h, n, d_k), (B, h, n, n)
    H = X + concat(Y) W_O               (B, n, d)   residual
    logits = H W_u                      (B, n, vocab)

Every gradient is written by hand in `backward_unchecked` and checked against central finite differences.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    as_array,
    as_count,
    as_matrix,
    as_seeds,
    attention_inputs,
    batch_ids,
    one_per_seed,
    whole_ids,
    wrong_record,
)
from .blas import on_one_blas_thread
from .heads import concat_heads_unchecked, split_heads_unchecked
from .matrix import attention_unchecked, default_scale, log_softmax_unchecked
from .run_memo import once

PARAMS = ("E", "P", "W_q", "W_k", "W_v", "W_O", "W_u")


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def enough_snapshots(steps, maker: str, at_least: int) -> None:
    """A run that kept at least `at_least` snapshots (`steps` are the kept steps)."""
    if len(steps) < at_least:
        raise ValueError(f"the run kept {len(steps)} snapshot(s): expected at least {at_least}, "
                         f"e.g. {maker}(cfg, snapshots=range(0, 301, 10))")


def config_sizes(cfg, record_name: str, sizes: tuple[str, ...]) -> None:
    """Each of a config's `sizes` a whole number (vocab_size >= 2), and d divisible by n_heads."""
    for name in sizes:
        as_count(getattr(cfg, name), f"{record_name}.{name}", minimum=2 if name == "vocab_size" else 1)
    if cfg.d % cfg.n_heads:
        raise ValueError(f"{record_name}.d = {cfg.d} is not divisible by n_heads = {cfg.n_heads}: "
                         "expected a whole number of columns per head")


def as_model_config(cfg) -> ModelConfig:
    """A ModelConfig whose sizes are whole numbers (vocab_size >= 2) and whose d splits into n_heads."""
    if not isinstance(cfg, ModelConfig):
        raise wrong_record(cfg, "an al.ModelConfig")
    config_sizes(cfg, "ModelConfig", ("vocab_size", "n", "d", "n_heads"))
    return cfg


def training_run(run, at_least: int = 2) -> Run:
    """The Run that train() returns, keeping at least `at_least` snapshots."""
    if not isinstance(run, Run):
        raise wrong_record(run, "the Run that train() returns")
    enough_snapshots(run.snapshot_steps, "train", at_least)
    return run


def task_name(task, tasks, what: str) -> str:
    """One of the names in `tasks`: TypeError if not a string, ValueError if unknown."""
    if not isinstance(task, str):
        raise TypeError(f"{what} is {task!r} of type {type(task).__name__}: expected one of {sorted(tasks)}")
    if task not in tasks:
        raise ValueError(f"{what} is {task!r}: expected one of {sorted(tasks)}")
    return task


def targets_fit(targets: np.ndarray, ids: np.ndarray) -> None:
    """One target per token id."""
    if targets.shape != ids.shape:
        raise ValueError(f"targets has shape {targets.shape} and ids {ids.shape}: expected one "
                         "target per token")


def backward_inputs(Q, K, V, dY, scale):
    """attention_backward's door: the kernel's inputs, with equal leading dimensions, and dY shaped like Y."""
    Q, K, V, _, scale = attention_inputs(Q, K, V, None, scale)
    dY = as_array(dY, "dY", "(..., m, d_v): one gradient per output number")
    if not Q.shape[:-2] == K.shape[:-2] == V.shape[:-2]:
        raise ValueError(f"Q {Q.shape}, K {K.shape} and V {V.shape} have different batch or head "
                         "dimensions: expected the same leading dimensions (no broadcasting here)")
    expected = Q.shape[:-1] + V.shape[-1:]
    if dY.shape != expected:
        raise ValueError(f"dY has shape {dY.shape}, but the output Y has shape {expected} (Q {Q.shape}, "
                         f"V {V.shape}): expected dY of the same shape as Y")
    return Q, K, V, dY, scale


def small_step(eps) -> float:
    """A finite-difference step strictly between 0 and 1."""
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps = {eps!r} of type {type(eps).__name__}: expected a small positive step "
                        "such as 1e-6")
    if not 0 < eps < 1:
        raise ValueError(f"eps = {eps!r}: expected a small positive step such as 1e-6")
    return float(eps)


def baseline_ids(a, b, c, d) -> None:
    """Training ids and targets of one shape (B, n), test ids and targets of one shape (B', n)."""
    if not (a.shape == b.shape and c.shape == d.shape and a.ndim == c.ndim == 2 and a.shape[1] == c.shape[1]):
        raise ValueError(f"shapes {a.shape}, {b.shape}, {c.shape}, {d.shape}: expected training ids "
                         "and targets of one shape (B, n), test ids and targets of one shape (B', n)")


def paired_ids(ids: np.ndarray, targets: np.ndarray) -> None:
    """Token ids and targets of one shape (B, n)."""
    if ids.ndim != 2 or ids.shape != targets.shape:
        raise ValueError(f"ids {ids.dtype} {ids.shape} and targets {targets.dtype} {targets.shape}: "
                         "expected two arrays of token ids (whole numbers >= 0) of one shape (B, n)")


def sequences_of_two(ids: np.ndarray) -> None:
    """Token ids (B, n) with n >= 2."""
    if ids.ndim != 2 or ids.shape[1] < 2:
        raise ValueError(f"ids {ids.dtype} {ids.shape}: expected token ids (whole numbers >= 0) of shape "
                         "(B, n) with n >= 2")


def has_attention(cfg) -> None:
    """A training run whose model has an attention layer."""
    if not cfg.attention:
        raise ValueError("this run has no attention layer (ModelConfig(attention=False)): nothing to show")


def as_function(f, what: str):
    """A callable."""
    if not callable(f):
        raise TypeError(f"f must be {what}, got {type(f).__name__}")
    return f


def one_number(value, name: str) -> float:
    """What a function of an array returned, as the one real number it must be (a loss)."""
    if value is None:
        raise ValueError(f"{name} returned None: did the function forget to `return` its loss? It must "
                         "return one number (a loss)")
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)                  # int, float, np.float64, fractions.Fraction, ...
    if isinstance(value, (tuple, list)):
        raise ValueError(f"{name} returned a {type(value).__name__} of {len(value)}: it must return the loss "
                         "alone, one number (e.g. write `return loss`, or wrap it: lambda x: f(x)[0])")
    if isinstance(value, (bool, np.bool_)) or np.dtype(getattr(value, "dtype", object)) == np.bool_:
        raise ValueError(f"{name} returned {_short(value)}, a truth value: it must return a loss, one "
                         "real number")
    try:
        arr = np.asarray(value) if not isinstance(value, (str, bytes)) else np.asarray(None)
    except ValueError:                      # ragged nesting
        arr = np.asarray(None)
    if arr.dtype != object and np.iscomplexobj(arr):
        raise ValueError(f"{name} must return one real number (a loss), got {type(value).__name__} "
                         f"{_short(value)}, which is complex: a loss has no imaginary part")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must return one number (a loss), got {type(value).__name__} "
                         f"{_short(value)}")
    if arr.size != 1:
        raise ValueError(f"{name} must return one number (a loss), got {type(value).__name__} of shape "
                         f"{arr.shape}: sum or average it to one number")
    return float(arr.reshape(()))


def _short(value) -> str:
    """A value's repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def same_shape(a: np.ndarray, a_name: str, b: np.ndarray, b_name: str) -> None:
    """Two arrays of one shape."""
    if a.shape != b.shape:
        raise ValueError(f"{a_name} has shape {a.shape} and {b_name} has shape {b.shape}: "
                         "expected the same shape")


def learning_rate(lr, example: str) -> float:
    """A learning rate strictly between 0 and 1: TypeError if not a number, ValueError if outside."""
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"lr = {lr!r} of type {type(lr).__name__}: expected a learning rate between 0 and 1, "
                        f"such as {example}")
    if not 0 < lr < 1:
        raise ValueError(f"lr = {lr!r}: expected a learning rate between 0 and 1, such as {example}")
    return float(lr)


def snapshot_steps(snapshots, steps: int) -> list[int]:
    """The sorted distinct steps to keep, each a whole number between 0 and `steps`."""
    keep = sorted({as_count(t, "a snapshot step", minimum=0) for t in snapshots})
    if keep and keep[-1] > steps:
        raise ValueError(f"snapshot step {keep[-1]} is after the last step ({steps}): expected "
                         f"steps between 0 and {steps}")
    return keep


def as_rng(rng) -> np.random.Generator:
    """A NumPy random Generator."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a np.random.Generator (np.random.default_rng(seed)), got "
                        f"{type(rng).__name__}")
    return rng


def weight_dict(p, shapes: dict[str, tuple[int, int]], cfg) -> dict[str, np.ndarray]:
    """Float copies of the weights `p`, a dict with exactly the keys of `shapes`, each of its shape."""
    if not isinstance(p, dict):
        raise TypeError(f"expected the weights as a dict with keys {list(shapes)}, got {type(p).__name__}")
    if set(p) != set(shapes):
        raise ValueError(f"expected the weights as a dict with keys {list(shapes)}, got {sorted(p)}")
    p = {k: as_matrix(p[k], k, str(shape)) for k, shape in shapes.items()}
    for k, shape in shapes.items():
        if p[k].shape != shape:
            raise ValueError(f"{k} has shape {p[k].shape}: expected {shape} for {cfg}")
    return p


# pragma: no mutate end
def largest_digit(ids: np.ndarray) -> np.ndarray:
    """Targets of lesson 07's content task: every place says the largest token of its sequence."""
    ids = whole_ids(ids, "ids")
    return np.broadcast_to(ids.max(axis=-1, keepdims=True), ids.shape).copy()


TASKS = {"reverse": lambda ids: ids[:, ::-1].copy(), "copy": lambda ids: ids.copy(), "largest": largest_digit}


# ------------------------------------------------------------------ the backward pass of attention
def softmax_backward_unchecked(A, dA):
    """dL/dS from dL/dA for A = softmax(S) along the last axis: A * (dA - rowsum(A * dA))."""
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))          # (..., m, n)


def attention_backward_unchecked(Q, K, V, A, dY, scale):
    """Gradients of Y = softmax(scale Q Kᵀ) V with respect to Q, K and V, given dL/dY."""
    dA = dY @ np.swapaxes(V, -1, -2)                 # (..., m, n)   Y = A V  ->  dA = dY Vᵀ
    dV = np.swapaxes(A, -1, -2) @ dY                 # (..., n, d_v)             dV = Aᵀ dY
    dS = softmax_backward_unchecked(A, dA)           # (..., m, n)   dL/dS, S = scale Q Kᵀ the scores
    dR = scale * dS                                  # (..., m, n)   dL/dR, R = Q Kᵀ before the scale
    return dR @ K, np.swapaxes(dR, -1, -2) @ Q, dV   # dQ (..., m, d_k), dK (..., n, d_k), dV


def attention_backward(Q: ArrayLike, K: ArrayLike, V: ArrayLike, dY: ArrayLike,
                       scale: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dL/dQ, dL/dK, dL/dV) for Y = softmax(scale Q Kᵀ) V, given dY = dL/dY of shape (..., m, d_v)."""
    Q, K, V, dY, scale = backward_inputs(Q, K, V, dY, scale)
    A = attention_unchecked(Q, K, V, None, scale)[1]
    return attention_backward_unchecked(Q, K, V, A, dY, scale)


def numerical_gradient(f: Callable[[np.ndarray], float], x: ArrayLike, eps: float = 1e-6) -> np.ndarray:
    """Central differences (f(x + eps) - f(x - eps)) / 2 eps, one entry of x at a time (x is not changed)."""
    f = as_function(f, "a function of one array returning a number")
    x = np.array(as_array(x, "x", "an array of numbers", min_ndim=0), dtype=float)   # a private copy
    eps = small_step(eps)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):            # slow on purpose: nothing here can share a mistake
        old = x[i]
        x[i] = old + eps
        up = one_number(f(x), "f(x)")
        x[i] = old - eps
        down = one_number(f(x), "f(x)")
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def relative_error(a: ArrayLike, b: ArrayLike) -> float:
    """|a - b| / (|a| + |b|) over all entries (Frobenius norms); 0 when both are zero."""
    a = as_array(a, "a", "an array of numbers", min_ndim=0)
    b = as_array(b, "b", "an array of numbers", min_ndim=0)
    same_shape(a, "a", b, "b")
    denominator = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denominator == 0 else float(np.linalg.norm(a - b) / denominator)


# ------------------------------------------------------------------ the model
@dataclass(frozen=True)
class ModelConfig:
    """The model's sizes and switches (the ablations turn them off)."""
    vocab_size: int = 10          # how many different tokens (ids 0..vocab_size-1)
    n: int = 8                    # tokens per sequence
    d: int = 32                   # model width
    n_heads: int = 1
    positions: bool = True        # False: no position table (P stays 0)
    attention: bool = True        # False: the attention layer is removed (H = X)
    scaled: bool = True           # False: scores Q Kᵀ without the 1/sqrt(d_k)
    task: str = "reverse"         # "reverse": target i = token n-1-i; "copy": target i = token i

    @property
    def scale(self) -> float:
        return default_scale(self.d // self.n_heads) if self.scaled else 1.0


def relative_change(after: ArrayLike, before: ArrayLike) -> float:
    """How far a weight moved, relative to where it started: |after - before| / |before| (Frobenius)."""
    after = as_array(after, "after", "an array of numbers", min_ndim=0)
    before = as_array(before, "before", "an array of numbers", min_ndim=0)
    same_shape(after, "after", before, "before")
    size = np.linalg.norm(before)
    if size == 0:
        raise ValueError("before is all zeros: a change relative to it is undefined")
    return float(np.linalg.norm(after - before) / size)


def checked_config(cfg) -> ModelConfig:
    """The ModelConfig `cfg`, checked: whole-number sizes, a known task, d divisible by n_heads."""
    cfg = as_model_config(cfg)
    task_name(cfg.task, TASKS, "ModelConfig.task")
    return cfg


def init_params(cfg: ModelConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Random weights: embeddings N(0, 1), matrices N(0, 1/fan_in); P is zero without positions."""
    cfg = checked_config(cfg)
    rng = np.random.default_rng(seed)
    d, v = cfg.d, cfg.vocab_size

    def matrix(rows, cols):
        return rng.standard_normal((rows, cols)) / np.sqrt(rows)

    p = {"E": rng.standard_normal((v, d)), "P": rng.standard_normal((cfg.n, d)),
         "W_q": matrix(d, d), "W_k": matrix(d, d), "W_v": matrix(d, d), "W_O": matrix(d, d),
         "W_u": np.zeros((d, v))}            # zero: the untrained model guesses uniformly
    if not cfg.positions:
        p["P"] = np.zeros((cfg.n, d))
    return p


def per_seed(M):
    """A weight matrix (rows, cols) as it is; a stack (S, rows, cols), one per seed, as (S, 1, rows, cols), so
    that np.matmul multiplies every sequence of seed s's batch by seed s's own matrix (one small product per
    sequence, as without the seed axis). Shared by lessons 06 and 07."""
    return M if M.ndim == 2 else M[:, None]


def embed(E, ids):
    """The rows E[ids] (..., B, n, d): with a leading seed axis (E (S, vocab, d), ids (S, B, n)) each seed's
    tokens read its own table. Shared by lessons 06 and 07."""
    return E[ids] if E.ndim == 2 else E[np.arange(len(E))[:, None, None], ids]


def forward_unchecked(p, ids, cfg):
    """Logits (..., B, n, vocab) and everything the backward pass needs. The weights may carry a leading
    seed axis (S, rows, cols), and the ids then (S, B, n): S models, each on its own batch."""
    X = embed(p["E"], ids)                                          # (..., B, n, d)
    if cfg.positions:
        X = X + per_seed(p["P"][..., : ids.shape[-1], :])           # without positions P is unused
    c = {"X": X, "ids": ids}
    H = X
    if cfg.attention:
        h = cfg.n_heads
        Q = split_heads_unchecked(X @ per_seed(p["W_q"]), h)        # (..., B, h, n, d_k)
        K = split_heads_unchecked(X @ per_seed(p["W_k"]), h)        # (..., B, h, n, d_k)
        V = split_heads_unchecked(X @ per_seed(p["W_v"]), h)        # (..., B, h, n, d_k)
        Y, A = attention_unchecked(Q, K, V, None, cfg.scale)        # (..., B, h, n, d_k), (..., B, h, n, n)
        C = concat_heads_unchecked(Y)                               # (..., B, n, d)
        H = X + C @ per_seed(p["W_O"])                              # (..., B, n, d) residual
        c |= {"Q": Q, "K": K, "V": V, "A": A, "C": C}
    c["H"] = H
    return H @ per_seed(p["W_u"]), c                                # (..., B, n, vocab)


def cross_entropy_unchecked(logits, targets):
    """Mean -log softmax(logits)[target] over a batch (B, n) and its gradient dL/dlogits; with a leading seed
    axis (S, B, n), one mean per seed (S,), each over its own batch alone."""
    logp = log_softmax_unchecked(logits)                           # (..., B, n, vocab)
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)  # (..., B, n, 1)
    grad = np.exp(logp)
    np.put_along_axis(grad, targets[..., None], np.take_along_axis(grad, targets[..., None], -1) - 1, -1)
    loss = -picked.mean() if targets.ndim == 2 else -np.array([seed.mean() for seed in picked])
    return loss, grad / (targets.shape[-2] * targets.shape[-1])    # softmax - one_hot, averaged per batch


def _flat(M):
    return M.reshape(*M.shape[:-3], -1, M.shape[-1])                # (..., B*n, cols)


def _t(M):
    return np.swapaxes(M, -1, -2)                                   # the transpose of every matrix in a stack


def backward_unchecked(p, c, dlogits, cfg):
    """Every gradient by hand, from dL/dlogits back to the embeddings (one set per seed, if a seed axis
    leads)."""
    g = {"W_u": _t(_flat(c["H"])) @ _flat(dlogits)}                 # (..., d, vocab)
    dH = dlogits @ per_seed(_t(p["W_u"]))                           # (..., B, n, d)
    dX = dH                                                         # the residual path
    for name in ("W_q", "W_k", "W_v", "W_O"):
        g[name] = np.zeros_like(p[name])
    if cfg.attention:
        g["W_O"] = _t(_flat(c["C"])) @ _flat(dH)                    # (..., d, d)
        dY = split_heads_unchecked(dH @ per_seed(_t(p["W_O"])), cfg.n_heads)    # (..., B, h, n, d_k)
        dQ, dK, dV = attention_backward_unchecked(c["Q"], c["K"], c["V"], c["A"], dY, cfg.scale)
        dQ, dK, dV = (concat_heads_unchecked(M) for M in (dQ, dK, dV))   # (..., B, n, d) each
        X = _t(_flat(c["X"]))
        g["W_q"], g["W_k"], g["W_v"] = X @ _flat(dQ), X @ _flat(dK), X @ _flat(dV)
        dX = dX + dQ @ per_seed(_t(p["W_q"])) + dK @ per_seed(_t(p["W_k"])) + dV @ per_seed(_t(p["W_v"]))
    ids = c["ids"]
    one_hot = np.eye(p["E"].shape[-2])[ids.reshape(*ids.shape[:-2], -1)]   # (..., B*n, vocab)
    g["E"] = _t(one_hot) @ _flat(dX)                                # a digit's row: sum over its tokens
    g["P"] = np.zeros_like(p["P"])
    if cfg.positions:
        g["P"][..., : dX.shape[-2], :] = dX.sum(axis=-3)            # (..., n, d)
    return g


def loss_and_grads(p: dict, ids: ArrayLike, targets: ArrayLike,
                   cfg: ModelConfig) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy of predicting `targets` from `ids` (both (B, n) integers), and its gradients."""
    cfg, p, ids, targets = batch_inputs(cfg, p, ids, targets)
    logits, c = forward_unchecked(p, ids, cfg)
    loss, dlogits = cross_entropy_unchecked(logits, targets)
    return float(loss), backward_unchecked(p, c, dlogits, cfg)


def loss_of(p: dict, ids: ArrayLike, targets: ArrayLike, cfg: ModelConfig) -> float:
    """Mean cross-entropy only (for finite differences)."""
    cfg, p, ids, targets = batch_inputs(cfg, p, ids, targets)
    return float(cross_entropy_unchecked(forward_unchecked(p, ids, cfg)[0], targets)[0])


def predict(p: dict, ids: ArrayLike, cfg: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
    """Predicted tokens (B, n) and attention weights (B, h, n, n) (empty without attention)."""
    cfg, p, ids, _ = batch_inputs(cfg, p, ids, None)
    logits, c = forward_unchecked(p, ids, cfg)
    return logits.argmax(axis=-1), c.get("A", np.zeros((len(ids), 0, ids.shape[1], ids.shape[1])))


def batch_inputs(cfg, p, ids, targets):
    """Check the config, the weights' shapes and the token ids once, at the door."""
    cfg = checked_config(cfg)
    v, d = cfg.vocab_size, cfg.d
    shapes = {"E": (v, d), "P": (cfg.n, d), "W_q": (d, d), "W_k": (d, d), "W_v": (d, d), "W_O": (d, d),
              "W_u": (d, v)}
    p = weight_dict(p, shapes, cfg)
    ids = batch_ids(ids, "ids", cfg.vocab_size, cfg.n)
    if targets is not None:
        targets = batch_ids(targets, "targets", cfg.vocab_size, cfg.n)
        targets_fit(targets, ids)
    return cfg, p, ids, targets


# ------------------------------------------------------------------ the task and the training loop
def task_batch(rng: np.random.Generator, batch: int, cfg: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
    """`batch` random sequences (B, n) of the task's tokens, and their targets (reversed or copied)."""
    rng = as_rng(rng)
    cfg, batch = checked_config(cfg), as_count(batch, "batch")
    ids = rng.integers(0, cfg.vocab_size, size=(batch, cfg.n))
    return ids, TASKS[cfg.task](ids)


def adam_step(p: dict, g: dict, state: dict, t: int, lr: float, b1=0.9, b2=0.999, eps=1e-8) -> None:
    """One Adam step (step number t, from 1) on every weight matrix of p, in place; state[k] holds the
    moments (m, v) of matrix k. Shared by lessons 06 and 07."""
    for k in p:
        m, v = state[k]
        m *= b1
        m += (1 - b1) * g[k]
        v *= b2
        v += (1 - b2) * g[k] ** 2
        p[k] -= lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)


def keep_snapshots(runs: list, keep: list, t: int, p: dict) -> None:
    """Before step t: if t is the next step in `keep` (sorted), copy each seed's weights (p's matrices stacked
    along a leading seed axis, one run per seed) into its run's snapshots. Shared by lessons 06 and 07."""
    if keep and t == keep[0]:
        keep.pop(0)
        for i, run in enumerate(runs):
            run.snapshot_steps.append(t)
            run.snapshot_params.append({k: w[i].copy() for k, w in p.items()})


@dataclass
class Run:
    """What one training run leaves: the final weights, the loss at every step, and snapshots."""
    cfg: ModelConfig
    params: dict
    losses: np.ndarray                                     # (steps,) training loss at every step
    snapshot_steps: list = field(default_factory=list)     # the steps at which weights were kept
    snapshot_params: list = field(default_factory=list)    # a copy of every weight matrix, per snapshot


@on_one_blas_thread
def train(cfg: ModelConfig, steps: int = 300, batch: int = 64, lr: float = 0.003, seed: int = 0,
          snapshots: Sequence[int] = (), start: dict | None = None) -> Run:
    """Adam on fresh random batches of the task; a copy of the weights before each step in `snapshots`
    (step 0 = untrained, step `steps` = the end). `start`: the weights to begin from (a copy is
    trained; default init_params(cfg, seed)). The run of train_seeds with this one seed."""
    seed = as_count(seed, "seed", minimum=0)
    if start is not None:
        return train_seeds(cfg, [seed], steps, batch, lr, snapshots, [start])[0]
    return once("train", (cfg, seed, steps, batch, lr, snapshots),                # once per test run
                lambda: train_seeds(cfg, [seed], steps, batch, lr, snapshots)[0])


@on_one_blas_thread
def train_seeds(cfg: ModelConfig, seeds: Sequence[int], steps: int = 300, batch: int = 64, lr: float = 0.003,
                snapshots: Sequence[int] = (), starts: Sequence[dict] | None = None) -> list[Run]:
    """train(cfg, seed=s, ...) for every seed s in `seeds`, trained side by side: every weight carries a
    leading seed axis, and each step runs the forward pass, the backward pass and Adam once for all seeds
    (each seed on its own batches, from its own data stream). Each Run is the one train() returns with
    that seed, to the last bit. `starts`: one start (as train's `start`) per seed."""
    cfg = checked_config(cfg)
    seeds = as_seeds(seeds)
    steps, batch = as_count(steps, "steps"), as_count(batch, "batch")
    lr, keep = learning_rate(lr, "0.003"), snapshot_steps(snapshots, steps)
    if starts is None:
        inits = [init_params(cfg, seed) for seed in seeds]
    else:
        starts = one_per_seed(starts, seeds, "starts")
        inits = [batch_inputs(cfg, start, np.zeros((1, 1), int), None)[1] for start in starts]   # copies
    p = {k: np.stack([w[k] for w in inits]) for k in PARAMS}          # (S, rows, cols) each
    rngs = [np.random.default_rng(seed + 1) for seed in seeds]       # the data, apart from the weights
    state = {k: (np.zeros_like(p[k]), np.zeros_like(p[k])) for k in PARAMS}
    runs = [Run(cfg, {}, np.zeros(steps)) for _ in seeds]
    for t in range(steps + 1):
        keep_snapshots(runs, keep, t, p)
        if t == steps:
            break
        ids, targets = (np.stack(part) for part in zip(*(task_batch(rng, batch, cfg) for rng in rngs)))
        logits, c = forward_unchecked(p, ids, cfg)             # forward, every seed at once
        losses, dlogits = cross_entropy_unchecked(logits, targets)
        for run, loss in zip(runs, losses):
            run.losses[t] = loss
        g = backward_unchecked(p, c, dlogits, cfg)             # backward, by hand
        adam_step(p, g, state, t + 1, lr)                      # update
    for i, run in enumerate(runs):
        run.params = {k: w[i].copy() for k, w in p.items()}
    return runs


def accuracy(p: dict, ids: ArrayLike, targets: ArrayLike, cfg: ModelConfig) -> float:
    """Fraction of tokens predicted right."""
    cfg, p, ids, targets = batch_inputs(cfg, p, ids, targets)
    return float((forward_unchecked(p, ids, cfg)[0].argmax(axis=-1) == targets).mean())


def counting_baseline(train_ids: ArrayLike, train_targets: ArrayLike, test_ids: ArrayLike,
                      test_targets: ArrayLike) -> float:
    """Held-out accuracy of the best guess from a token and its position alone (no attention):
    for each (position, token), the target seen most often with it in training."""
    a, b, c, d = (whole_ids(train_ids, "train_ids"), whole_ids(train_targets, "train_targets"),
                  whole_ids(test_ids, "test_ids"), whole_ids(test_targets, "test_targets"))
    baseline_ids(a, b, c, d)
    v = int(max(a.max(), b.max(), c.max(), d.max())) + 1
    n = a.shape[1]
    counts = np.zeros((n, v, v))                                    # (position, token, target)
    np.add.at(counts, (np.broadcast_to(np.arange(n), a.shape), a, b), 1)
    guess = counts.argmax(axis=-1)                                  # (n, v)
    return float((guess[np.arange(n), c] == d).mean())


def commonest_token_baseline(ids: ArrayLike, targets: ArrayLike) -> float:
    """Expected accuracy of guessing, at every place, the token that is commonest in the sequence
    (ties: one of them at random): the best a model can do that sees which tokens occur, not where."""
    ids, targets = whole_ids(ids, "ids"), whole_ids(targets, "targets")
    paired_ids(ids, targets)
    v = int(max(ids.max(), targets.max())) + 1
    counts = np.zeros((len(ids), v))
    np.add.at(counts, (np.arange(len(ids))[:, None], ids), 1)                   # (B, vocab)
    modes = counts == counts.max(axis=1, keepdims=True)                         # (B, vocab)
    hit = np.take_along_axis(modes, targets, axis=1)                            # (B, n)
    return float((hit / modes.sum(axis=1, keepdims=True)).mean())


def commonest_of_others(ids: ArrayLike, vocab_size: int | None = None) -> np.ndarray:
    """(B, n, vocab_size) booleans: True where a token is the commonest (or tied commonest) among the
    OTHER n - 1 tokens of its sequence, for every place (vocab_size: default the largest id + 1)."""
    ids = whole_ids(ids, "ids")
    sequences_of_two(ids)
    v = int(ids.max()) + 1 if vocab_size is None else as_count(vocab_size, "vocab_size",
                                                                minimum=int(ids.max()) + 1)
    counts = np.zeros((len(ids), v))
    np.add.at(counts, (np.arange(len(ids))[:, None], ids), 1)                   # (B, vocab) whole sequence
    others = counts[:, None, :] - np.eye(v)[ids]                    # (B, n, vocab) without place i
    return others == others.max(axis=-1, keepdims=True)


def commonest_other_baseline(ids: ArrayLike, targets: ArrayLike) -> float:
    """Expected accuracy of guessing, at every place, the token commonest among the OTHER tokens of the
    sequence (ties: one of them at random): the best a model can do that sees which tokens occur,
    and its own token, but not where they stand."""
    ids, targets = whole_ids(ids, "ids"), whole_ids(targets, "targets")
    paired_ids(ids, targets)
    modes = commonest_of_others(ids, vocab_size=int(max(ids.max(), targets.max())) + 1)   # (B, n, vocab)
    hit = np.take_along_axis(modes, targets[..., None], axis=-1)[..., 0]        # (B, n)
    return float((hit / modes.sum(axis=-1)).mean())
