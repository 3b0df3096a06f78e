"""Benchmark the training of lessons 06 and 07: time per step beside the forward pass alone, and time
to the goal (lesson 06: held-out accuracy; lesson 07: the end of the phase change).

    python tools/benchmark_training.py [--lesson 06|07|both] [--repeats 7] [--seeds 5] [--profile]

Lesson 06's model (ModelConfig(): 10 digits, n = 8, d = 32, one head, batches of 64) and lesson 07's
(InductionConfig(): 24 tokens, n = 16, d = 32, one head per layer, two layers, batches of 32):
- forward : the forward pass and the loss of one batch (the baseline a step is compared with);
- step    : a whole training step (fresh batch, forward, backward by hand, Adam), as train() and
  train_induction() run it;
- to target: lesson 06, steps and seconds until held-out accuracy first reaches 0.99 (checked every 2
  steps); lesson 07, the steps over which the smoothed loss on the second copy falls from 80 % to 20 %
  of the way down (al.phase_change), and the seconds of training until its end; over several seeds.
Medians are printed, with the ratio step / forward. --profile prints where a lesson-06 step's time goes
(cProfile, 200 steps). Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np

import attention_lab as al
from attention_lab import induction, training

TARGET = 0.99
PHASE_STEPS = 1200                  # lesson 07's run


def per_call_ms(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def step_vs_forward(label: str, forward, train_steps, steps: int, repeats: int) -> float:
    """Print the medians of one forward pass and of one training step (interleaved); return the step in ms."""
    forward_ms, step_ms = [], []
    for _ in range(repeats):             # interleaved, so that machine noise hits both alike
        forward_ms.append(per_call_ms(forward, 300))
        start = time.perf_counter()
        train_steps(steps)
        step_ms.append((time.perf_counter() - start) / steps * 1e3)
    f, s = statistics.median(forward_ms), statistics.median(step_ms)
    print(f"model: {label}")
    print(f"forward + loss of one batch : {f:7.3f} ms (median of {repeats})")
    print(f"one training step           : {s:7.3f} ms (median of {repeats})")
    print(f"step / forward              : {s / f:7.2f}x")
    return s


def lesson_06(args) -> None:
    cfg = al.ModelConfig()
    p = al.init_params(cfg, 0)
    p["W_u"] = np.random.default_rng(1).standard_normal(p["W_u"].shape) / 6   # a non-trivial model
    ids, targets = al.task_batch(np.random.default_rng(2), 64, cfg)
    s = step_vs_forward(f"{cfg}, batch 64",
                        lambda: training.cross_entropy_unchecked(training.forward_unchecked(p, ids, cfg)[0],
                                                                 targets),
                        lambda steps: al.train(cfg, steps=steps, seed=0), 300, args.repeats)
    held, held_targets = al.task_batch(np.random.default_rng(6), 500, cfg)
    steps_needed, seconds = [], []
    for seed in range(args.seeds):
        start = time.perf_counter()
        run = al.train(cfg, steps=200, seed=seed, snapshots=range(0, 201, 2))
        elapsed = time.perf_counter() - start
        reached = next(t for t, w in zip(run.snapshot_steps, run.snapshot_params)
                       if al.accuracy(w, held, held_targets, cfg) >= TARGET)
        steps_needed.append(reached)
        seconds.append(reached * s / 1e3)
        print(f"seed {seed}: held-out accuracy {TARGET} at step {reached} "
              f"(~{reached * s / 1e3:.3f} s of training; whole 200-step run with snapshots {elapsed:.2f} s)")
    print(f"to held-out accuracy {TARGET}: median {statistics.median(steps_needed):.0f} steps, "
          f"{statistics.median(seconds):.3f} s")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        al.train(cfg, steps=200, seed=0)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def lesson_07(args) -> None:
    cfg = al.InductionConfig()
    p = al.init_induction(cfg, 0)
    p["W_u"] = np.random.default_rng(1).standard_normal(p["W_u"].shape) / 6   # a non-trivial model
    ids = al.repeated_batch(np.random.default_rng(2), 32, cfg)[0]
    step_vs_forward(f"{cfg}, batch 32",
                    lambda: induction.next_token_loss_unchecked(induction.forward_unchecked(p, ids, cfg)[0],
                                                                ids),
                    lambda steps: al.train_induction(cfg, steps=steps, seed=0), 200, args.repeats)
    ends, seconds = [], []
    for seed in range(args.seeds):
        start = time.perf_counter()
        run = al.train_induction(cfg, steps=PHASE_STEPS, seed=seed)
        elapsed = time.perf_counter() - start
        first, last = al.phase_change(run)
        ends.append(last)
        seconds.append(last * elapsed / PHASE_STEPS)
        print(f"seed {seed}: phase change over steps {first}-{last} (~{last * elapsed / PHASE_STEPS:.2f} s "
              f"of training; whole {PHASE_STEPS}-step run {elapsed:.2f} s)")
    print(f"to the end of the phase change: median {statistics.median(ends):.0f} steps, "
          f"{statistics.median(seconds):.2f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", choices=("06", "07", "both"), default="both")
    parser.add_argument("--repeats", type=int, default=7, help="timing repeats (default 7)")
    parser.add_argument("--seeds", type=int, default=5, help="training runs to the goal (default 5)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of 200 lesson-06 steps")
    args = parser.parse_args(argv)
    if args.lesson in ("06", "both"):
        print("== lesson 06: one attention layer, reversal")
        lesson_06(args)
    if args.lesson in ("07", "both"):
        print("== lesson 07: two attention-only layers, induction")
        lesson_07(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
