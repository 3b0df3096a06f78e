"""Lesson 06's training charts: the model's flow on one sequence, the learning curve against a
baseline, and the saturation experiment's losses. Drawn with the plotting core (heatmaps.py)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import as_table
from .heatmaps import FONT, ROLE_COLORS, heatmap
from .matrix import softmax_unchecked
from .training import ModelConfig, Run, accuracy, batch_inputs, forward_unchecked, training_run


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def one_sequence_with_attention(ids: np.ndarray, attention: bool) -> np.ndarray:
    """Token ids of one sequence, (1, n), for a model with an attention layer: ValueError otherwise."""
    if len(ids) != 1 or not attention:
        raise ValueError(f"ids has shape {ids.shape} for a model with attention={attention}: "
                         "expected one sequence (n,) and a model with an attention layer")
    return ids
# pragma: no mutate end


def plot_model_flow(params: dict, cfg: ModelConfig, ids: ArrayLike, title: str = "the model") -> Figure:
    """Lesson 06's model on one sequence, left to right, from its real numbers: X = E[ids] + P ->
    attention weights -> H = X + attention output -> probabilities of each output token.
    `title` names the weights shown (e.g. "the untrained model")."""
    cfg, params, ids, _ = batch_inputs(cfg, params, ids, None)
    ids = one_sequence_with_attention(ids, cfg.attention)
    logits, c = forward_unchecked(params, ids, cfg)
    probs = softmax_unchecked(logits[0])  # (n, vocab)
    words, d = [str(t) for t in ids[0]], cfg.d
    dims = [str(j) if j % 8 == 0 else "" for j in range(d)]
    panels = [(c["X"][0], "input", "X = E[token] + P", dims, d / 3),
              (c["A"][0, 0], "weights", "attention weights", words, len(words)),
              (c["H"][0], "input", "H = X + attention output", dims, d / 3),
              (probs, "weights", "softmax(H W_u)", [str(v) for v in range(cfg.vocab_size)], cfg.vocab_size)]
    fig, axes = plt.subplots(1, 4, figsize=(15, 4.2), layout="constrained",
                             width_ratios=[p[4] for p in panels])
    for i, (ax, (values, kind, name, cols, _)) in enumerate(zip(axes, panels)):
        heatmap(values, words, cols, ax=ax, kind=kind, title=name, xlabel=["feature", "key token", "feature",
                "output token"][i], ylabel="token" if i == 0 else "", cbar=False, annot=False)
        ax.tick_params(axis="x", labelrotation=0)
    bar = fig.colorbar(axes[3].collections[0], ax=list(axes), shrink=0.85, pad=0.01)   # panels 2 and 4: 0..1
    bar.set_label("weight, probability (0 to 1)", fontsize=FONT["ticks"])
    bar.ax.tick_params(labelsize=FONT["ticks"])
    fig.suptitle(f"one held-out sequence through {title} →", fontsize=FONT["title"])
    return fig


def plot_learning_curve(run: Run, held_ids: ArrayLike, held_targets: ArrayLike, baseline: float) -> Figure:
    """Training loss at every step, and held-out accuracy at every snapshot against a baseline."""
    run = training_run(run)
    acc = [accuracy(p, held_ids, held_targets, run.cfg) for p in run.snapshot_params]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.6), layout="constrained")
    left.plot(run.losses, color="#333333", lw=2)
    left.axhline(np.log(run.cfg.vocab_size), color="0.5", ls=":", lw=1.5)
    left.text(len(run.losses) - 1, np.log(run.cfg.vocab_size) * 1.03,
              f"ln {run.cfg.vocab_size}: a uniform guess", ha="right", va="bottom", fontsize=FONT["ticks"])
    left.set(xlabel="step", ylabel="training loss", ylim=(0, np.log(run.cfg.vocab_size) * 1.2))
    right.plot(run.snapshot_steps, acc, "o-", color=ROLE_COLORS["query"], lw=2, label="model")
    right.axhline(baseline, color=ROLE_COLORS["key"], ls="--", lw=2, label="counting baseline (an average)")
    right.set(xlabel="step", ylabel="held-out accuracy", ylim=(0, 1.05))
    right.legend(fontsize=FONT["ticks"], loc="center right")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.xaxis.label.set_size(FONT["labels"])
        ax.yaxis.label.set_size(FONT["labels"])
        ax.tick_params(labelsize=FONT["ticks"])
    return fig


def plot_saturation(table: dict[str, np.ndarray], show_steps: int = 100) -> Figure:
    """The training losses of saturation_experiment(): colour = how the model starts (grey: spread
    weights, red: nearly one-hot rows at step 0), line style = scaled (solid) or unscaled (dashed)."""
    table = as_table(table, ("names", "losses", "max_weight"), "saturation_experiment()")
    fig, ax = plt.subplots(figsize=(10, 4.6), layout="constrained")
    for name, runs, peaks in zip(table["names"], table["losses"], table["max_weight"]):
        peak = float(np.mean(peaks))                    # over the seeds
        colour = "#b00020" if peak > 0.75 else "#333333"
        style = "--" if str(name).startswith("unscaled") else "-"
        for i, L in enumerate(runs):
            ax.plot(L[:show_steps], color=colour, ls=style, lw=1.8, alpha=0.8,
                    label=f"{name} (step 0: largest weight {peak:.2f})" if i == 0 else None)
    ax.set_xlabel("step", fontsize=FONT["labels"])
    ax.set_ylabel("training loss", fontsize=FONT["labels"])
    ax.set_title(f"{table['losses'].shape[1]} seeds each. Red: rows start nearly one-hot; grey: spread out",
                 fontsize=FONT["title"])
    ax.tick_params(labelsize=FONT["ticks"])
    ax.legend(fontsize=FONT["ticks"] - 1, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.grid(alpha=0.3)
    return fig
