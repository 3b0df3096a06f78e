"""Benchmark lesson 07's two-layer model: time per step, beside the forward pass alone, and time to the
phase change.

    python tools/benchmark_induction.py [--repeats 7] [--seeds 5]

Measured for the lesson's model (InductionConfig(): 24 tokens, n = 16, d = 32, one head per layer, two
layers, batches of 32):
- forward : the forward pass and the loss of one batch (the baseline a step is compared with);
- step    : a whole training step (fresh batch, forward, backward by hand, Adam), as train_induction()
  runs it;
- phase change: the steps over which the smoothed loss on the second copy falls from 80 % to 20 % of
  the way down (al.phase_change), and the seconds of training until its end, over several seeds.
Medians are printed, with the ratio step / forward. Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import attention_lab as al
from attention_lab import induction

STEPS = 800


def per_call_ms(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timing repeats (default 7)")
    parser.add_argument("--seeds", type=int, default=5, help="training runs for the phase change (default 5)")
    args = parser.parse_args(argv)
    cfg = al.InductionConfig()
    p = al.init_induction(cfg, 0)
    p["W_u"] = np.random.default_rng(1).standard_normal(p["W_u"].shape) / 6   # a non-trivial model
    ids = al.repeated_batch(np.random.default_rng(2), 32, cfg)[0]

    def forward():
        induction._next_token_loss(induction._forward(p, ids, cfg)[0], ids)

    forward_ms, step_ms = [], []
    for _ in range(args.repeats):        # interleaved, so that machine noise hits both alike
        forward_ms.append(per_call_ms(forward, 300))
        start = time.perf_counter()
        al.train_induction(cfg, steps=200, seed=0)
        step_ms.append((time.perf_counter() - start) / 200 * 1e3)
    f, s = statistics.median(forward_ms), statistics.median(step_ms)
    print(f"model: {cfg}, batch 32")
    print(f"forward + loss of one batch : {f:7.3f} ms (median of {args.repeats})")
    print(f"one training step           : {s:7.3f} ms (median of {args.repeats})")
    print(f"step / forward              : {s / f:7.2f}x")

    ends, seconds = [], []
    for seed in range(args.seeds):
        start = time.perf_counter()
        run = al.train_induction(cfg, steps=STEPS, seed=seed)
        elapsed = time.perf_counter() - start
        first, last = al.phase_change(run)
        ends.append(last)
        seconds.append(last * elapsed / STEPS)
        print(f"seed {seed}: phase change over steps {first}-{last} (~{last * elapsed / STEPS:.2f} s of "
              f"training; whole {STEPS}-step run {elapsed:.2f} s)")
    print(f"to the end of the phase change: median {statistics.median(ends):.0f} steps, "
          f"{statistics.median(seconds):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
