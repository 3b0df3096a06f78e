"""Every explorer the lessons use, built on the lessons' data: for the sweep tests and the benchmark.

Not part of the runtime package: students never need it.
"""

from __future__ import annotations

import functools

import numpy as np

import attention_lab as al


def demo_explorers() -> dict:
    """name -> a function that builds the explorer as its lesson does."""
    ex, cat = al.cats_chase_mice(), al.the_cat_sat()
    args = (ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    return {
        "01 token_explorer (y₂, 1×4 + 1×4)": lambda: al.token_explorer(1, *args, scale=1.0),
        "02 matrix_explorer (4×4 + 4×4)": lambda: al.matrix_explorer(*args),
        "02 matrix_explorer, weights only (4×4)": lambda: al.matrix_explorer(*args, outputs=False),
        "02 dk_explorer (2×8)": al.dk_explorer,
        "03 heads_explorer (h × 6×6 + 6×4)": lambda: al.heads_explorer(
            cat.X, cat.W_q, cat.W_k, cat.W_v, cat.W_O, cat.tokens, cat.features),
        "04 cross_explorer (4×4 + 4×6)": al.cross_explorer,
        "05 position_explorer (3 × 3×3)": lambda: al.position_explorer(
            ex.X[[0, 1, 3]], ex.W_q, ex.W_k, ex.W_v, ["cats", "chase", "mice"]),
        "06 training_explorer (8×8 + 8×8 + loss curve)": _training_explorer,
        "07 induction_explorer (16×16 + 16×16 + loss curve)": _induction_explorer,
    }


def _training_explorer():
    """Lesson 06's explorer: the lesson's 120-step run, snapshots as in the lesson."""
    cfg = al.ModelConfig()
    held_rng = np.random.default_rng(np.random.SeedSequence(6).spawn(1)[0])    # as the lesson draws it
    held_ids, held_targets = al.task_batch(held_rng, 500, cfg)
    run = al.train(cfg, steps=120, seed=0, snapshots=[*range(0, 60, 2), *range(60, 121, 10)])
    return al.training_explorer(run, held_ids, held_targets)


@functools.cache
def lesson_07_run(seed: int = 0) -> al.InductionRun:
    """Lesson 07's 1200-step run (weights kept every 20 steps) with training `seed`: trained once per
    process, for the explorer and for every test file that needs it (never kept across runs)."""
    return al.train_induction(al.InductionConfig(), steps=1200, seed=seed, snapshots=range(0, 1201, 20))


def _induction_explorer():
    """Lesson 07's explorer: the lesson's 1200-step run and probe, snapshots as in the lesson, starting at the
    kept step nearest the middle of the phase change."""
    cfg = al.InductionConfig()
    probe_rng = np.random.default_rng(np.random.SeedSequence(984).spawn(1)[0])   # as the lesson draws it
    probe = al.repeated_batch(probe_rng, 1, cfg)[0][0]
    run = lesson_07_run(0)
    start, end = al.phase_change(run)
    return al.induction_explorer(run, probe, start=20 * round((start + end) / 40))


def model_explorers() -> dict:
    """Lesson 08's head view and lesson 09's text explorer, if the model file is cached (it is not fetched
    here): for the benchmark."""
    from attention_lab import real_model as rm
    if not (rm.cache_folder() / rm.MODEL_FILE).is_file():
        return {}

    def head_view():
        model = rm.load_model(fetch=False)
        ids = rm.encode(model, "My cat sat on the mat. My cat sat on the mat.")
        return rm.head_explorer(rm.attention_weights(model, ids), rm.token_strings(model, ids))

    def text_view():
        from attention_lab import heads_at_work as hw
        return hw.text_explorer(rm.load_model(fetch=False))

    return {"08 head_explorer (14×14, colours only)": head_view,
            "09 text_explorer (the model view, 5×5 colours + 10 bars; a new text runs the model)": text_view}
