"""Lesson 08's model on this machine: medians of load + dequantize, a 32-token forward pass, generation
speed with the KV cache and without it (lesson 08, section 3: the same tokens, each step re-running the whole
sequence), and the peak memory of the process. Prints the figures and the issue's limits.

    python tools/benchmark_real_model.py [--repeats 3]

Not a test: timings depend on the machine and on what else runs. The limits (issue 24), on 2 cores:
load + dequantize <= 10 s, a 32-token prompt's forward <= 1 s, generation >= 10 tokens/s, peak <= 1 GB.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

import numpy as np

from attention_lab import real_model as rm


def median_time(fn, repeats: int) -> float:
    """Median wall time of fn() over `repeats` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rm.find_model()                                   # fetch first (if needed), outside the timings
    held = {}

    def load():
        held.clear()                                  # free the previous copy first: one model at a time
        held["model"] = rm.load_model()

    load_s = median_time(load, args.repeats)
    model = held["model"]
    prompt = rm.encode(model, rm.chat_prompt("What is the capital of France? Answer in one short sentence."))
    prompt = (prompt * 2)[:32]                       # exactly 32 tokens
    forward = median_time(lambda: rm.forward(model, prompt), args.repeats * 2)
    n_new = 32

    def generate():
        cache = rm.new_cache(model)
        logits, _ = rm.forward(model, prompt, cache)
        for _ in range(n_new):                       # no early stop: always n_new tokens
            logits, _ = rm.forward(model, [int(np.argmax(logits[-1]))], cache)

    def generate_without_cache():
        ids = list(prompt)
        logits, _ = rm.forward(model, ids)
        for _ in range(n_new):                       # every step runs the whole sequence again
            ids.append(int(np.argmax(logits[-1])))
            logits, _ = rm.forward(model, ids)

    prefill = forward
    gen = median_time(generate, args.repeats)
    tokens_per_s = n_new / max(gen - prefill, 1e-9)
    uncached_per_s = n_new / max(median_time(generate_without_cache, args.repeats) - prefill, 1e-9)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024     # Linux: kilobytes
    rows = [("load + dequantize (s)", load_s, "<= 10", load_s <= 10),
            ("forward, 32-token prompt (s)", forward, "<= 1", forward <= 1),
            ("generation with the cache (tokens/s)", tokens_per_s, ">= 10", tokens_per_s >= 10),
            ("generation without the cache (tokens/s)", uncached_per_s, "none", True),
            ("peak memory of this process (MB)", peak_mb, "<= 1024", peak_mb <= 1024)]
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "not set")
    print(f"median of {args.repeats} runs ({args.repeats * 2} for the forward pass); "
          f"OPENBLAS_NUM_THREADS {threads}, {os.cpu_count()} cores seen")
    for name, value, limit, ok in rows:
        print(f"{name:40s} {value:8.2f}   limit {limit:8s} {'ok' if ok else 'OVER'}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
