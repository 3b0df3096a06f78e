"""Lesson 08's NumPy model beside Hugging Face transformers on the same GGUF file (issue 47): load time,
resident memory, forward passes and generation, at 1 and 2 threads. On a quiet machine only: anything else
running (another kernel, a test run, a second benchmark) moves the figures by tens of percent, and with
2 threads on 2 cores a single busy core stalls every step.

A contributor's tool, never a test and never a dependency of the collection: torch and transformers live in
a scratch venv outside the repository. Make it in two commands, from the repository's top:

    python3 -m venv /work/scratch/hf
    /work/scratch/hf/bin/pip install torch transformers accelerate gguf numpy threadpoolctl -e .

(a CPU-only wheel of torch is enough, e.g. torch==2.13.0+cpu; give numpy the collection's version), then

    /work/scratch/hf/bin/python tools/benchmark_vs_transformers.py [--rounds 5] [--threads 1 2]

Both sides read the file that attention_lab.real_model.find_model() finds: ours through load_model() (the
float32 copy in the cache folder, mapped), transformers through AutoModelForCausalLM.from_pretrained(folder,
gguf_file=name), PyTorch on the CPU, float32, attn_implementation="eager", and its tokenizer likewise.

For each thread count, each model runs in a fresh process of its own (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS
and MKL_NUM_THREADS set before the imports, then threadpoolctl and torch.set_num_threads), so that neither
library's idle threads spin beside the other's work. This process drives both in turn:

- the load (the load call, after the imports) and the resident memory (VmRSS) after it, ours first;
- that they agree: the token ids of lesson 09's stream text from both tokenizers, and the logits of its
  first 12 tokens (the largest absolute difference, printed beside the logits' scale);
- in alternating rounds (ours first in even rounds, transformers first in odd ones): the forward pass of
  the first 12, 32, 80 and 256 tokens without a cache, and generation: 32 new tokens after the first 16,
  greedy, with the KV cache (the prefill included: 32 tokens over the whole call). Each forward is a loop
  of three passes, as lesson 09 runs them: the first pass is timed apart (the first of its length in the
  round; for ours also the first after release_pages, as after a pause: the weight pages and the heap's
  kept memory handed back), the other two give the row. Ours runs
  forward_computed as lesson 08 does (the pages of the mapped weights held during a run and let go once
  the model is idle for half a second: PagesHeld, release_when_idle); transformers runs model(...) and
  model.generate(...) under torch.inference_mode(). Both must produce the same tokens: they are printed
  and compared; how much of our mapped weights Linux mapped in 2 MB pieces after each loop is printed too
  (real_model.in_large_pieces: 2 MB pieces come back after a pause in a few ms, 4 KB ones in tens);
- the peak resident memory (ru_maxrss) after all of it.

The table gives the medians and the ratio (> 1: ours ahead) for each thread count, and for each timing the
rounds in which ours was the quicker (a count that the machine's drift between rounds moves less). The
figures depend on the machine, its load (printed before and after) and the library versions (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LENGTHS = (12, 32, 80, 256)
PROMPT, NEW = 16, 32                       # generation: a 16-token prompt, 32 new tokens
CHECK = 12                                 # the logits compared on a 12-token prompt


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status: this benchmark needs Linux")


def peak_mb() -> float:
    """This process's peak resident memory (ru_maxrss, kilobytes on Linux), in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def limit_threads(n: int):
    """n threads for NumPy's BLAS (threadpoolctl) and for torch (if imported); the limiter, kept alive."""
    from threadpoolctl import threadpool_limits

    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(n)
    return threadpool_limits(limits=n)


class Ours:
    """Lesson 08's model, run as the lesson runs it."""
    name = "ours"

    def __init__(self, path: Path):
        from attention_lab import real_model as rm

        self.rm = rm
        start = time.perf_counter()
        self.model = rm.load_model(path)
        self.load_s = time.perf_counter() - start

    def logits(self, ids: list[int]) -> np.ndarray:
        return self.rm.forward_computed(self.model, np.array(ids))[0]

    def generate(self, ids: list[int]) -> list[int]:
        rm = self.rm
        cache = rm.new_cache(self.model)
        with rm.PagesHeld(self.model):                       # one run, as rm.generate
            logits, _ = rm.forward_computed(self.model, np.array(ids), cache, release=False)
            new = [int(np.argmax(logits[-1]))]
            while len(new) < NEW:                            # greedy, no early stop: always NEW tokens
                logits, _ = rm.forward_computed(self.model, np.array(new[-1:]), cache, release=False)
                new.append(int(np.argmax(logits[-1])))
        return new

    def pause(self) -> None:
        self.rm.release_pages(self.model)                    # as after a pause of half a second


class Transformers:
    """The same file through Hugging Face transformers: PyTorch, CPU, float32, eager attention."""
    name = "transformers"

    def __init__(self, path: Path):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

        self.torch = torch
        start = time.perf_counter()
        self.tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        self.model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                          dtype=torch.float32, attn_implementation="eager")
        self.model.eval()
        self.load_s = time.perf_counter() - start
        if self.model.config._attn_implementation != "eager" or any(
                p.dtype != torch.float32 for p in self.model.parameters()):
            raise RuntimeError("transformers did not load the model as asked: float32, eager attention")
        self.greedy = GenerationConfig(max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False,
                                       use_cache=True, eos_token_id=None,
                                       pad_token_id=self.model.config.eos_token_id)

    def logits(self, ids: list[int]) -> np.ndarray:
        with self.torch.inference_mode():
            out = self.model(input_ids=self.torch.tensor([ids]), use_cache=False)
        return out.logits[0].numpy()

    def generate(self, ids: list[int]) -> list[int]:
        x = self.torch.tensor([ids])
        with self.torch.inference_mode():
            out = self.model.generate(x, attention_mask=self.torch.ones_like(x),
                                      generation_config=self.greedy)
        return [int(t) for t in out[0, len(ids):]]


def serve(which: str, threads: int, path: Path) -> None:
    """A worker: load one model, then answer requests, one JSON line in, one JSON line out."""
    if which == "transformers":
        import torch  # noqa: F401  (imported before the limits, so that they reach torch's threads too)
    from threadpoolctl import threadpool_info

    limiter = limit_threads(threads)
    before = rss_mb()
    m = Ours(path) if which == "ours" else Transformers(path)
    reply = {"load_s": m.load_s, "rss_before_mb": before, "rss_after_load_mb": rss_mb(),
             "pools": sorted({(p["internal_api"], p["num_threads"]) for p in threadpool_info()})}
    if which == "transformers":
        reply["torch_threads"] = sys.modules["torch"].get_num_threads()
    print(json.dumps(reply), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        ids = job.get("ids")
        if job["op"] == "tokenize":
            reply = {"ids": m.tokenizer(job["text"], add_special_tokens=False)["input_ids"]}
        elif job["op"] == "logits":
            np.save(job["to"], m.logits(ids))
            reply = {}
        elif job["op"] == "forward":                         # three passes: the first, then a loop
            if hasattr(m, "pause"):
                m.pause()
            took = []
            for _ in range(3):
                start = time.perf_counter()
                m.logits(ids)
                took.append(time.perf_counter() - start)
            reply = {"s": statistics.median(took[1:]), "first": took[0]}
            if which == "ours":                               # how the file cache held the weights
                from benchmark_real_model import pmd_mapped_mb
                reply["pmd_mb"] = pmd_mapped_mb(m.model.mapping)
        elif job["op"] == "generate":
            start = time.perf_counter()
            tokens = m.generate(ids)
            reply = {"s": time.perf_counter() - start, "tokens": tokens}
        else:
            reply = {"peak_mb": peak_mb()}
        print(json.dumps(reply), flush=True)
    del limiter


class Worker:
    """One model in a fresh process with `threads` threads (see serve)."""

    def __init__(self, which: str, threads: int, path: Path):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
                   MKL_NUM_THREADS=str(threads), TQDM_DISABLE="1", HF_HUB_OFFLINE="1",
                   TRANSFORMERS_VERBOSITY="error")
        self.name = which
        command = [sys.executable, __file__, "--serve", which, "--threads", str(threads), "--path", str(path)]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self.loaded = self.answer()

    def answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} worker stopped (exit code {self.process.wait()})")
        return json.loads(line)

    def ask(self, op: str, **job) -> dict:
        self.process.stdin.write(json.dumps({"op": op, **job}) + "\n")
        self.process.stdin.flush()
        return self.answer()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def measure(threads: int, rounds: int, path: Path, ids: list[int], text: str) -> dict:
    """Both models at `threads` threads: load, agreement, alternating timings, peak."""
    workers: tuple[Worker, ...] = ()
    try:
        workers = (Worker("ours", threads, path),)                # loaded one after the other
        workers += (theirs := Worker("transformers", threads, path),)
        out: dict = {"loaded": {w.name: w.loaded for w in workers}, "times": {}}
        out["same_ids"] = theirs.ask("tokenize", text=text)["ids"] == ids
        with tempfile.TemporaryDirectory() as folder:
            for w in workers:
                w.ask("logits", ids=ids[:CHECK], to=f"{folder}/{w.name}.npy")
            a, b = (np.load(f"{folder}/{w.name}.npy") for w in workers)
        out |= {"logit_diff": float(np.abs(a - b).max()), "logit_scale": float(np.abs(b).max()),
                "same_argmax": bool((a.argmax(-1) == b.argmax(-1)).all())}
        for w in workers:                                      # a warm-up of each, and the tokens to expect
            out[f"tokens_{w.name}"] = w.ask("generate", ids=ids[:PROMPT])["tokens"]
        for r in range(rounds):
            order = workers if r % 2 == 0 else workers[::-1]   # drift and warmth hit both alike
            for n in (*LENGTHS, "generate"):
                for w in order:
                    if n == "generate":
                        got = w.ask("generate", ids=ids[:PROMPT])
                        if got["tokens"] != out[f"tokens_{w.name}"]:
                            raise RuntimeError(f"{w.name} generated other tokens in round {r}")
                    else:
                        got = w.ask("forward", ids=ids[:n])
                        out["times"].setdefault(f"{w.name}|first {n}", []).append(got["first"])
                        if "pmd_mb" in got:
                            out.setdefault("pmd_mb", []).append(got["pmd_mb"])
                    out["times"].setdefault(f"{w.name}|{n}", []).append(got["s"])
        for w in workers:
            out["loaded"][w.name] |= w.ask("peak")
    finally:
        for w in workers:
            w.close()
    return out


def versions() -> str:
    import torch
    import transformers

    top = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "-C", str(top), "describe", "--always", "--dirty"],   # -dirty: changes
                            stdout=subprocess.PIPE, text=True).stdout.strip() or "?"   # not yet committed
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return (f"commit {commit}; {cpu}, {os.cpu_count()} cores seen; Python {platform.python_version()}, "
            f"NumPy {np.__version__}, torch {torch.__version__}, transformers {transformers.__version__}")


def table(results: dict[int, dict], rounds: int) -> None:
    """The medians side by side, ours / transformers / ratio (> 1: ours ahead) for each thread count, and for
    the timings the rounds in which ours was the quicker of the two (each round runs both back to back, so
    a drift of the machine's speed between rounds, which moves both medians, moves this count less; a drift
    within a round still does)."""
    def loaded(key):
        return lambda res, who: res["loaded"][who][key]

    def ahead(key):
        return lambda res: sum(o < h for o, h in zip(res["times"][f"ours|{key}"],
                                                     res["times"][f"transformers|{key}"]))

    def forward(n):
        return lambda res, who: 1000 * statistics.median(res["times"][f"{who}|{n}"])

    def speed(res, who):
        return NEW / statistics.median(res["times"][f"{who}|generate"])

    rows = [("load (s)", loaded("load_s"), False, None),
            ("resident after load (MB)", loaded("rss_after_load_mb"), False, None),
            ("peak resident (MB)", loaded("peak_mb"), False, None),
            *((f"forward, {n} tokens, no cache (ms)", forward(n), False, ahead(n)) for n in LENGTHS),
            *((f"forward, {n} tokens, first after a pause (ms)", forward(f"first {n}"), False,
               ahead(f"first {n}")) for n in LENGTHS),
            (f"generation, {NEW} new after {PROMPT} (tokens/s)", speed, True, ahead("generate"))]
    width = max(len(label) for label, *_ in rows)
    print(f"\nmedians of {rounds} alternating rounds; ratio > 1: ours ahead; ahead: the rounds in which ours "
          "was quicker")
    print(f"{'':{width}s}" + "".join(f" | {f'{t} thread' + 's' * (t > 1):<31s}" for t in results))
    print(f"{'':{width}s}" + " |    ours  transf.   ratio  ahead" * len(results))
    for label, get, higher_is_better, wins in rows:
        line = f"{label:{width}s}"
        for res in results.values():
            o, h = get(res, "ours"), get(res, "transformers")
            count = f"{wins(res)}/{rounds}" if wins else ""
            line += f" | {o:7.1f} {h:8.1f} {o / h if higher_is_better else h / o:6.2f}× {count:>6s}"
        print(line)


def report(t: int, res: dict, model, ids: list[int]) -> None:
    """What one thread count showed besides the timings: the threads, the agreement, the tokens."""
    same = res["tokens_ours"] == res["tokens_transformers"]
    ours, theirs = res["loaded"]["ours"], res["loaded"]["transformers"]
    print(f"\n{t} thread{'s' * (t > 1)}: thread pools: ours {ours['pools']}, transformers {theirs['pools']}, "
          f"torch {theirs['torch_threads']}; resident before the load: ours {ours['rss_before_mb']:.0f} MB, "
          f"transformers {theirs['rss_before_mb']:.0f} MB")
    print(f"  token ids of the text ({len(ids)}): {'the same' if res['same_ids'] else 'DIFFERENT'} "
          f"from both tokenizers")
    if res.get("pmd_mb"):
        print(f"  ours' weights mapped in 2 MB pieces after its passes: {min(res['pmd_mb']):.0f} to "
              f"{max(res['pmd_mb']):.0f} MB of {len(model.mapping) / 2**20:.0f} (the rest in 4 KB pages)")
    print(f"  logits of a {CHECK}-token prompt: largest difference {res['logit_diff']:.2e}, "
          f"{res['logit_diff'] / res['logit_scale']:.1e} of the logits' scale ({res['logit_scale']:.1f}); "
          f"argmax {'the same' if res['same_argmax'] else 'DIFFERENT'} at every position")
    from attention_lab import real_model as rm

    print(f"  greedy, {NEW} tokens after {rm.decode(model, ids[:PROMPT])!r}: "
          f"{'the same' if same else 'DIFFERENT'} tokens from both")
    print(f"    ours:         {res['tokens_ours']}")
    print(f"    transformers: {res['tokens_transformers']}")
    print(f"    text: {rm.decode(model, res['tokens_ours'])!r}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of the timings")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--raw", help="also write every round's timings to this JSON file")
    parser.add_argument("--serve", choices=["ours", "transformers"], help=argparse.SUPPRESS)   # a worker
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.threads[0], Path(args.path))
        return 0
    from attention_lab import heads_at_work as hw
    from attention_lab import real_model as rm

    model = rm.load_model()                    # fetch and unpack first (if needed), outside the timings
    ids = rm.encode(model, hw.STREAM_TEXT)     # lesson 09's stream text, 333 tokens
    path = rm.find_model()
    print(versions())
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (on a quiet machine only)")
    results = {}
    for t in args.threads:
        results[t] = measure(t, args.rounds, path, ids, hw.STREAM_TEXT)
        report(t, results[t], model, ids)
    table(results, args.rounds)
    if args.raw:
        Path(args.raw).write_text(json.dumps({t: r["times"] for t, r in results.items()}, indent=1))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ok = all(r["same_ids"] and r["same_argmax"] and r["tokens_ours"] == r["tokens_transformers"]
             for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
