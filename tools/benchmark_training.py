"""Benchmark the training of lessons 06 and 07: time per step beside the forward pass alone, and time
to the goal (lesson 06: held-out accuracy; lesson 07: the end of the phase change).

    python tools/benchmark_training.py [--lesson 06|07|both] [--repeats 7] [--seeds 5] [--profile]
    python tools/benchmark_training.py --mode seeds [--lesson 06|07|both] [--batched 8] [--rounds 5]
        [--steps N]

Lesson 06's model (ModelConfig(): 10 digits, n = 8, d = 32, one head, batches of 64) and lesson 07's
(InductionConfig(): 24 tokens, n = 16, d = 32, one head per layer, two layers, batches of 32):
- forward : the forward pass and the loss of one batch (the baseline a step is compared with);
- step    : a whole training step (fresh batch, forward, backward by hand, Adam), as train() and
  train_induction() run it;
- to target: lesson 06, steps and seconds until held-out accuracy first reaches 0.99 (checked every 2
  steps); lesson 07, the steps over which the smoothed loss on the second copy falls from 80 % to 20 %
  of the way down (al.phase_change), and the seconds of training until its end; over several seeds.
Medians are printed, with the ratio step / forward. --profile prints where a lesson-06 step's time goes
(cProfile, 200 steps).

--mode seeds: the time per seed of training --batched seeds one after another (train, train_induction)
against all of them in one batched run (train_seeds, train_induction_seeds: a leading seed axis), in
alternating rounds (odd rounds start with the batched run); medians over the rounds of the CPU time
(this process's, what a shared machine's load disturbs least) and of the wall time, and a check that the
batched runs are the one-seed runs to the last bit.

The numerical path is the one the tests and the stored lessons use (tools/one_kernel.py: one OpenBLAS
kernel, NumPy's AVX2 loops), on one BLAS thread as the lessons train. Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import one_kernel  # before NumPy loads: the tests' numerical path

one_kernel.pin()

import numpy as np  # noqa: E402

import attention_lab as al  # noqa: E402
from attention_lab import induction, training  # noqa: E402

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


def same_runs(a, b) -> bool:
    """Two runs alike to the last bit: every loss curve, every snapshot and the final weights."""
    curves = [name for name in ("losses", "second_losses", "first_losses") if hasattr(a, name)]
    return (all(np.array_equal(getattr(a, name), getattr(b, name)) for name in curves)
            and a.snapshot_steps == b.snapshot_steps
            and all(np.array_equal(x[k], y[k]) for x, y in zip([a.params, *a.snapshot_params],
                                                               [b.params, *b.snapshot_params]) for k in x))


def one_seed_vs_batched(label: str, one, batched, seeds: list[int], rounds: int) -> None:
    """Print the medians of the time per seed: each seed trained alone, one after another, against all
    seeds in one batched run (alternating rounds)."""
    cpu: dict[str, list[float]] = {"one seed at a time": [], "batched": []}
    wall: dict[str, list[float]] = {kind: [] for kind in cpu}
    runs: dict[str, list] = {}
    for r in range(rounds):
        for kind in (list(cpu) if r % 2 == 0 else list(cpu)[::-1]):
            start_wall, start_cpu = time.perf_counter(), time.process_time()
            runs[kind] = [one(seed) for seed in seeds] if kind == "one seed at a time" else batched(seeds)
            cpu[kind].append((time.process_time() - start_cpu) / len(seeds))
            wall[kind].append((time.perf_counter() - start_wall) / len(seeds))
    same = all(same_runs(a, b) for a, b in zip(*runs.values()))
    print(f"model: {label}; {len(seeds)} seeds, medians of {rounds} alternating rounds, time per seed")
    for kind in cpu:
        print(f"  {kind:<19}: CPU {statistics.median(cpu[kind]):7.3f} s   wall "
              f"{statistics.median(wall[kind]):7.3f} s")
    ratio = statistics.median(cpu["batched"]) / statistics.median(cpu["one seed at a time"])
    print(f"  batched / one seed : {ratio:.2f} (CPU)   every run the same to the last bit: {same}")


def seeds_mode(args) -> None:
    seeds = list(range(args.batched))
    if args.lesson in ("06", "both"):
        cfg, steps = al.ModelConfig(), args.steps or 300
        one_seed_vs_batched(f"lesson 06, {cfg}, batch 64, {steps} steps",
                            lambda seed: al.train(cfg, steps=steps, seed=seed),
                            lambda seeds: al.train_seeds(cfg, seeds, steps=steps), seeds, args.rounds)
    if args.lesson in ("07", "both"):
        cfg, steps = al.InductionConfig(), args.steps or 300
        one_seed_vs_batched(f"lesson 07, {cfg}, batch 32, {steps} steps",
                            lambda seed: al.train_induction(cfg, steps=steps, seed=seed),
                            lambda seeds: al.train_induction_seeds(cfg, seeds, steps=steps), seeds,
                            args.rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", choices=("06", "07", "both"), default="both")
    parser.add_argument("--repeats", type=int, default=7, help="timing repeats (default 7)")
    parser.add_argument("--seeds", type=int, default=5, help="training runs to the goal (default 5)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of 200 lesson-06 steps")
    parser.add_argument("--mode", choices=("steps", "seeds"), default="steps",
                        help="steps: a step against the forward pass, and the time to the goal (default); "
                             "seeds: one seed at a time against a batched run of several")
    parser.add_argument("--batched", type=int, default=8, help="seeds in the batched run (default 8)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds, --mode seeds (default 5)")
    parser.add_argument("--steps", type=int, default=0, help="steps per run in --mode seeds (default 300)")
    args = parser.parse_args(argv)
    if args.mode == "seeds":
        seeds_mode(args)
        return 0
    if args.lesson in ("06", "both"):
        print("== lesson 06: one attention layer, reversal")
        lesson_06(args)
    if args.lesson in ("07", "both"):
        print("== lesson 07: two attention-only layers, induction")
        lesson_07(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
