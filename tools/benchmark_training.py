"""Benchmark lesson 06's training: time per step, beside the forward pass alone, and time to target.

    python tools/benchmark_training.py [--repeats 7] [--profile]

Measured in one run, for the lesson's model (ModelConfig(): 10 digits, n = 8, d = 32, one head,
batches of 64):
- forward : the forward pass and the loss of one batch (the baseline a step is compared with);
- step    : a whole training step (fresh batch, forward, backward by hand, Adam), as train() runs it;
- to target: steps and seconds until held-out accuracy first reaches 0.99 (checked every 2 steps),
  over several seeds.
Medians are printed, with the ratio step / forward. --profile prints where a step's time goes
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
from attention_lab import training

TARGET = 0.99


def per_call_ms(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timing repeats (default 7)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of 200 steps")
    args = parser.parse_args(argv)
    cfg = al.ModelConfig()
    p = al.init_params(cfg, 0)
    p["W_u"] = np.random.default_rng(1).standard_normal(p["W_u"].shape) / 6   # a non-trivial model
    ids, targets = al.task_batch(np.random.default_rng(2), 64, cfg)

    def forward():
        training._cross_entropy(training._forward(p, ids, cfg)[0], targets)

    forward_ms, step_ms = [], []
    for _ in range(args.repeats):        # interleaved, so that machine noise hits both alike
        forward_ms.append(per_call_ms(forward, 300))
        start = time.perf_counter()
        al.train(cfg, steps=300, seed=0)
        step_ms.append((time.perf_counter() - start) / 300 * 1e3)
    f, s = statistics.median(forward_ms), statistics.median(step_ms)
    print(f"model: {cfg}, batch 64")
    print(f"forward + loss of one batch : {f:7.3f} ms (median of {args.repeats})")
    print(f"one training step           : {s:7.3f} ms (median of {args.repeats})")
    print(f"step / forward              : {s / f:7.2f}x")

    held, held_targets = al.task_batch(np.random.default_rng(6), 500, cfg)
    steps_needed, seconds = [], []
    for seed in range(5):
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
