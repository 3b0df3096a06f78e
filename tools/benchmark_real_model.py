"""Lesson 08's model on this machine: medians of load + dequantize, a 32-token forward pass, generation
speed with the KV cache and without it (lesson 08, section 3: the same tokens, each step re-running the whole
sequence), lesson 09's knockout experiment, its sliding window, its text explorer (a new text of 64 tokens,
the model run and every view redrawn; a τ step), and the peak memory of the process. Prints the figures and
the issues' limits.

    python tools/benchmark_real_model.py [--repeats 3]
    python tools/benchmark_real_model.py --map-vs-copy [--rounds 5]
    python tools/benchmark_real_model.py --pages [--rounds 5]
    python tools/benchmark_real_model.py --allocator [--rounds 5] [--threads 1 2]

--map-vs-copy (issue 47) times the forward pass (12, 32, 80 and 256 tokens) and generation three ways, in
alternating rounds, each way with a mapping of its own: the weights as mapped from the float32 file, let go
once the model is idle (what the lessons do: held during a pass, PagesHeld, then release_when_idle, so that a
kernel at rest holds no weights);
mapped and let go at the end of every forward pass (what they did before: the next pass faults every page
back in); and an anonymous copy of every weight (np.array(w, copy=True)) in this process's own memory. It
prints the median of each and the ratios to the copy.

--pages (issue 47) times the same passes from two copies of the float32 file, each in a temporary folder:
one that the file cache holds in 4 KB pieces (read page by page in a random order, as a cache filled by
writing it or by small reads may hold it), and one that it holds in 2 MB pieces (read back through the
lessons' own mapping, which asks for huge pages: real_model.in_large_pieces). It prints the medians, their
ratio, and how much of each mapping Linux mapped in 2 MB pieces (/proc/self/smaps, FilePmdMapped).

--allocator (issue 47) times passes of 12, 32, 80 and 256 tokens with glibc's allocator as the lessons set
it (real_model.reuse_freed_memory: the heap keeps up to KEPT_MB, 16 MB, of freed memory for the next pass,
and gives it back once the model is idle) and as glibc sets it by default (its heap gives its top back to
Linux whenever a few MB are free there, and grows again, page by zeroed page), for each thread count: each
length and way in a fresh process, as a kernel that runs only texts of that length (glibc's default adapts
to the blocks a process has freed: one that has run a pass of about 30-170 tokens faults as little), the
ways in turn. It prints the medians, their ratio, the minor page faults of a pass and the resident memory
once the model is idle (release_pages, which in glibc's default way gives back nothing but the weights).

Not a test: timings depend on the machine and on what else runs. The limits, on 2 cores (issue 24):
load + dequantize <= 10 s, a 32-token prompt's forward <= 1 s, generation >= 10 tokens/s, peak <= 1 GB;
(issue 30) a knockout experiment <= 2 s: the 7 strongest candidate induction heads knocked out on 40 random
tokens seen twice, and the second copy's loss; a new text of 64 tokens in the text explorer <= 2 s, and a
slider step <= 100 ms (here in the kernel; tools/benchmark_explorers.py --browser measures it from the key
press to the pixels in JupyterLab). The sliding window (32 tokens, the first one kept, on
STREAM_TEXT, 333 tokens) is printed beside full attention on the same text, without a limit.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import mmap
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm


def median_time(fn, repeats: int) -> float:
    """Median wall time of fn() over `repeats` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def anonymous_copy(model: rm.RealModel) -> rm.RealModel:
    """The same model with every weight copied into this process's own (anonymous) memory."""
    def copied(w):
        return np.array(w, copy=True)
    blocks = [rm.Block(*(copied(getattr(b, f.name)) for f in dataclasses.fields(b))) for b in model.blocks]
    return dataclasses.replace(model, embedding=copied(model.embedding), blocks=blocks,
                               final_norm=copied(model.final_norm), mapping=None, mapped_as=None)


def minor_faults() -> int:
    """Minor page faults of this process so far (a page mapped in from the file cache is one)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def map_vs_copy(rounds: int) -> int:
    """Forward passes and generation: mapped and let go when idle, mapped and let go after each pass, an
    anonymous copy; each mapped way with its own mapping (letting go of one does not touch the other)."""
    model = rm.load_model()
    ways = {"map, let go when idle": (model, True),                 # held during a pass, as the lessons run
            "map, let go each pass": (rm.load_model(), False),
            "anonymous copy": (anonymous_copy(model), False)}
    text = rm.encode(model, hw.STREAM_TEXT)
    rows = [*((n, "loop") for n in (12, 32, 80, 256)), (12, "first"), ("generate", "loop")]
    times: dict = {(way, row): [] for way in ways for row in rows}
    faults: dict = {(way, n): [] for way in ways for n in (12, 32, 80, 256)}
    with rm.one_blas_thread():
        for m, held in ways.values():                                # a warm-up of each way
            rm.forward_computed(m, np.array(text[:12]), release=held)
            rm.release_pages(m)
        for _ in range(rounds):
            for n in (12, 32, 80, 256):
                ids = np.array(text[:n])
                for way, (m, held) in ways.items():                  # alternating: drift hits all alike
                    rm.release_pages(m)                              # each way starts as after a pause
                    for i in range(4):                               # a loop of passes, as lesson 09 runs
                        start, minflt = time.perf_counter(), minor_faults()
                        rm.forward_computed(m, ids, release=held)    # held: PagesHeld, then the idle wait
                        if not held:
                            rm.release_pages(m)                      # the copy has none to let go
                        took = time.perf_counter() - start
                        if i == 0 and n == 12:
                            times[(way, (12, "first"))].append(took)
                        elif i > 0:
                            times[(way, (n, "loop"))].append(took)
                            faults[(way, n)].append(minor_faults() - minflt)
            for way, (m, held) in ways.items():
                cache, ids = rm.new_cache(m), np.array(text[:16])
                start = time.perf_counter()
                with rm.PagesHeld(m) if held else contextlib.nullcontext():   # one run, as rm.generate
                    logits, _ = rm.forward_computed(m, ids, cache, release=False)
                    for _ in range(32):
                        logits, _ = rm.forward_computed(m, np.array([int(np.argmax(logits[-1]))]), cache,
                                                        release=False)
                if not held:
                    rm.release_pages(m)
                times[(way, ("generate", "loop"))].append(time.perf_counter() - start)
    print(f"median of {rounds} alternating rounds (3 passes in a loop each); OPENBLAS_NUM_THREADS "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'not set')}, {os.cpu_count()} cores seen")
    print(f"{'':36s}" + "".join(f"{way:>22s}" for way in ways) + "   ratios to the copy")
    for row in rows:
        medians = {way: statistics.median(times[(way, row)]) for way in ways}
        name = f"forward, {row[0]} tokens (ms)" if row[1] == "loop" else "forward, 12, first after a pause"
        name = "16 + 32 generated (ms)" if row[0] == "generate" else name
        ratios = " ".join(f"{medians[way] / medians['anonymous copy']:.2f}" for way in ways)
        print(f"{name:36s}" + "".join(f"{medians[way] * 1000:22.0f}" for way in ways) + f"   {ratios}")
    for n in (12, 32, 80, 256):
        print(f"{f'page faults, a {n}-token pass':36s}"
              + "".join(f"{statistics.median(faults[(w, n)]):22.0f}" for w in ways))
    return 0


def pmd_mapped_mb(mapping) -> float:
    """How many MB of `mapping` Linux maps in 2 MB pieces now (/proc/self/smaps; 0 elsewhere)."""
    address = np.frombuffer(mapping, np.uint8).ctypes.data
    inside = False
    with contextlib.suppress(OSError):
        for line in open("/proc/self/smaps", encoding="ascii"):
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside and head == "FilePmdMapped:":
                return int(line.split()[1]) / 1024
    return 0.0


def cached_in_pieces(folder: Path, model: rm.RealModel, large: bool) -> rm.RealModel:
    """The model, mapped from a copy of its float32 file in `folder` that the file cache holds in 2 MB pieces
    (large) or in 4 KB ones."""
    weights = Path(model.mapped_as[0])
    for part in (weights, weights.with_suffix(".json")):
        shutil.copyfile(part, folder / part.name)
    copy = folder / weights.name
    fd = os.open(copy, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)          # the cache forgets the copy's pages
        if not large:                                               # then reads them back page by page
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
            pages = list(range(os.fstat(fd).st_size // mmap.PAGESIZE))
            random.Random(0).shuffle(pages)
            for page in pages:
                os.pread(fd, 1, page * mmap.PAGESIZE)
    finally:
        os.close(fd)
    previous = os.environ.get("ATTENTION_LAB_CACHE")
    os.environ["ATTENTION_LAB_CACHE"] = str(folder)
    try:
        got = rm.load_model(model.path, fetch=False)
    finally:
        if previous is None:
            del os.environ["ATTENTION_LAB_CACHE"]
        else:
            os.environ["ATTENTION_LAB_CACHE"] = previous
    assert got.mapped_as[0] == str(copy), got.mapped_as
    return got


def pages(rounds: int) -> int:
    """Passes from a file cache holding the weights in 4 KB pieces against one holding them in 2 MB pieces."""
    model = rm.load_model()
    text = rm.encode(model, hw.STREAM_TEXT)
    with tempfile.TemporaryDirectory() as small, tempfile.TemporaryDirectory() as large:
        ways = {"4 KB pieces": cached_in_pieces(Path(small), model, large=False),
                "2 MB pieces": cached_in_pieces(Path(large), model, large=True)}
        rows = [(12, "first"), *((n, "loop") for n in (12, 32, 80, 256))]
        times: dict = {(way, row): [] for way in ways for row in rows}
        mapped: dict = {}
        with rm.one_blas_thread():
            for m in ways.values():                                  # a warm-up of each way
                rm.forward_computed(m, np.array(text[:12]), release=False)
            for _ in range(rounds):
                for n in (12, 32, 80, 256):
                    ids = np.array(text[:n])
                    for way, m in ways.items():                      # alternating: drift hits both alike
                        rm.release_pages(m)                          # each way starts as after a pause
                        for i in range(3):
                            start = time.perf_counter()
                            rm.forward_computed(m, ids, release=False)
                            took = time.perf_counter() - start
                            if i == 0 and n == 12:
                                times[(way, (12, "first"))].append(took)
                            elif i > 0:
                                times[(way, (n, "loop"))].append(took)
                        mapped[way] = pmd_mapped_mb(m.mapping)
        print(f"median of {rounds} alternating rounds; OPENBLAS_NUM_THREADS "
              f"{os.environ.get('OPENBLAS_NUM_THREADS', 'not set')}, {os.cpu_count()} cores seen")
        print(f"{'':36s}" + "".join(f"{way:>16s}" for way in ways) + "   ratio")
        for row in rows:
            medians = [statistics.median(times[(way, row)]) for way in ways]
            name = f"forward, {row[0]} tokens (ms)" if row[1] == "loop" else "forward, 12, after a pause"
            print(f"{name:36s}" + "".join(f"{t * 1000:16.1f}" for t in medians)
                  + f"   {medians[0] / medians[1]:.2f}")
        print(f"{'mapped in 2 MB pieces (MB)':36s}" + "".join(f"{mapped[way]:16.0f}" for way in ways)
              + f"   of {len(model.mapping) / 2**20:.0f}")
    return 0                      # (the folders go; Linux keeps a file that is still mapped until unmapped)


def allocator_round(default: bool, n: int) -> dict:
    """In this fresh process (its BLAS threads set by OPENBLAS_NUM_THREADS): 3 passes of n tokens, as a
    kernel that runs a text of that length; the first maps the weights in, the other two are timed, with
    their page faults. Last, the resident memory once the model is let go (release_pages)."""
    if default:
        rm.glibc = lambda: None                                      # glibc as it starts: no setting, no trim
    model = rm.load_model()
    ids, took, faults = np.array(rm.encode(model, hw.STREAM_TEXT)[:n]), [], []
    for i in range(3):
        start, minflt = time.perf_counter(), minor_faults()
        rm.forward_computed(model, ids, release=False)
        if i:
            took.append(time.perf_counter() - start)
            faults.append(minor_faults() - minflt)
    rm.release_pages(model)
    return {"ms": 1000 * statistics.median(took), "faults": statistics.median(faults),
            "rss_mb": resident_mb()}


def resident_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def allocator(rounds: int, thread_counts: list[int]) -> int:
    """The lessons' allocator setting against glibc's default: a fresh process per way, length and round."""
    if rm.glibc() is None:
        print("glibc's allocator is not in use here (not Linux with glibc): nothing to compare")
        return 1
    ways = {"as the lessons set it": False, "glibc's default": True}
    for threads in thread_counts:
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads)}
        got: dict = {(way, n): [] for way in ways for n in (12, 32, 80, 256)}
        for r in range(rounds):
            for n in (12, 32, 80, 256):
                for way in list(ways) if r % 2 == 0 else list(reversed(ways)):   # alternating, for drift
                    run = subprocess.run([sys.executable, __file__, "--allocator-round", str(int(ways[way])),
                                          str(n)], env=env, capture_output=True, text=True, check=True)
                    got[(way, n)].append(json.loads(run.stdout.strip().splitlines()[-1]))
        print(f"{threads} BLAS thread(s); median of {rounds} rounds, each pass length and way in a fresh "
              f"process; {os.cpu_count()} cores seen")
        print(f"{'':34s}" + "".join(f"{way:>24s}" for way in ways) + "   ratio")
        for n in (12, 32, 80, 256):
            med = {(way, k): statistics.median(o[k] for o in got[(way, n)]) for way in ways
                   for k in ("ms", "faults", "rss_mb")}
            ours, default = (med[(way, "ms")] for way in ways)
            print(f"{f'forward, {n} tokens (ms)':34s}{ours:24.1f}{default:24.1f}   {default / ours:.2f}")
            for label, k in (("  page faults in a pass", "faults"), ("  resident, let go (MB)", "rss_mb")):
                print(f"{label:34s}" + "".join(f"{med[(way, k)]:24.0f}" for way in ways))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--map-vs-copy", action="store_true", help="issue 47: the mapped file against a copy")
    parser.add_argument("--pages", action="store_true",
                        help="issue 47: the file cache in 4 KB or 2 MB pieces")
    parser.add_argument("--allocator", action="store_true",
                        help="issue 47: glibc's allocator as the lessons set it, against its default")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts of --allocator")
    parser.add_argument("--allocator-round", nargs=2, type=int, help=argparse.SUPPRESS)   # one child's round
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --map-vs-copy, --pages, --allocator")
    args = parser.parse_args(argv)
    if args.allocator_round:
        print(json.dumps(allocator_round(bool(args.allocator_round[0]), args.allocator_round[1])))
        return 0
    rm.find_model()                                   # fetch first (if needed), outside the timings
    if args.allocator:
        return allocator(args.rounds, args.threads)
    if args.map_vs_copy:
        return map_vs_copy(args.rounds)
    if args.pages:
        return pages(args.rounds)
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
    peak_before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # issue 24's figure
    period = 40
    repeated = rm.repeated_random_tokens(model, period, seed=0)
    prefix = rm.prefix_matching_scores(rm.attention_weights(model, repeated), period)       # (30, 9)
    induction = [divmod(int(i), model.n_heads) for i in np.argsort(-prefix, axis=None)[:7]]

    def knockout():
        logits, _ = hw.knockout_forward(model, repeated, induction)
        return rm.token_losses(logits, repeated)[period:].mean()

    knock_s = median_time(knockout, args.repeats)
    text = rm.encode(model, hw.STREAM_TEXT)
    window_s = median_time(lambda: rm.token_losses(hw.window_forward(model, text, 32, 1)[0], text),
                           args.repeats)
    full_s = median_time(lambda: rm.token_losses(rm.forward(model, text)[0], text), args.repeats)
    explorer = hw.text_explorer(model)
    texts = [rm.decode(model, text[start:start + 64]) for start in range(0, 64 * 5, 64)]   # 64 tokens each
    assert all(len(rm.encode(model, t)) == 64 for t in texts)
    fresh = iter(texts)                                        # never seen before: the model runs each time
    text_s = median_time(lambda: setattr(explorer.sliders["text"], "value", next(fresh)),
                         min(args.repeats, len(texts)))
    taus = iter(np.tile([1.05, 1.0], 50))
    tau_long_s = median_time(lambda: setattr(explorer.sliders["tau"], "value", float(next(taus))), 20)
    explorer.reset()                                                     # the lesson's text, 5 tokens
    tau_s = median_time(lambda: setattr(explorer.sliders["tau"], "value", float(next(taus))), 20)
    layers = iter(np.tile([17, 16], 50))                       # the red frame moves, another head opens
    layer_s = median_time(lambda: setattr(explorer.sliders["layer"], "value", int(next(layers))), 20)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024     # Linux: kilobytes
    rows = [("load + dequantize (s)", load_s, "<= 10", load_s <= 10),
            ("forward, 32-token prompt (s)", forward, "<= 1", forward <= 1),
            ("generation with the cache (tokens/s)", tokens_per_s, ">= 10", tokens_per_s >= 10),
            ("generation without the cache (tokens/s)", uncached_per_s, "none", True),
            ("peak memory so far (MB)", peak_before_mb, "<= 1024", peak_before_mb <= 1024),
            ("knockout, 7 heads, 80 tokens, loss (s)", knock_s, "<= 2", knock_s <= 2),
            (f"window 32 + first, {len(text)} tokens (s)", window_s, "none", True),
            (f"full attention, {len(text)} tokens (s)", full_s, "none", True),
            ("text explorer: a new text of 64 tokens (s)", text_s, "<= 2", text_s <= 2),
            ("text explorer: a τ step, the lesson's text (ms)", tau_s * 1000, "<= 100", tau_s <= 0.1),
            ("text explorer: a τ step, 64 tokens (ms)", tau_long_s * 1000, "none", True),
            ("text explorer: a layer step, the lesson's text (ms)", layer_s * 1000, "<= 100", layer_s <= 0.1),
            (f"peak memory, with the {len(text)}-token runs (MB)", peak_mb, "<= 1024", peak_mb <= 1024)]
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "not set")
    width = max(len(name) for name, *_ in rows)
    print(f"median of {args.repeats} runs ({args.repeats * 2} for the forward pass); "
          f"OPENBLAS_NUM_THREADS {threads}, {os.cpu_count()} cores seen")
    for name, value, limit, ok in rows:
        print(f"{name:{width}s} {value:8.2f}   limit {limit:8s} {'ok' if ok else 'OVER'}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
