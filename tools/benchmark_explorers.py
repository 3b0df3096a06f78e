"""Benchmark: how long one slider step takes in the kernel, ours vs. the naive redraw, same run.

    python tools/benchmark_explorers.py [--steps 60] [--no-naive] [--browser [--lessons 07,08]] [--no-kernel]

'ours'  : the explorer's own update (recompute, update heatmap artists in place, blit, PNG), which
          pastes back the pixels of annotated cells it has drawn before: 'first' is the median over
          slider positions visited for the first time, 'again' over positions visited before.
'before': the same update drawing every number again (Renderer.keep_cells = False), as before
          issue 22's cell cache: same explorer, same values, timed right after 'ours'.
'naive' : what ipywidgets.interact with a rebuilt sns.heatmap does on every change: a new figure,
          new annotated heatmaps, rendered to PNG as the inline backend does (bbox_inches='tight').
All are interleaved step by step, so machine noise hits both alike. Medians are printed,
with the ratio naive / ours. --browser also measures key press -> repainted heatmap in a real
JupyterLab in headless Chromium (needs Chromium, Playwright and `jupyter-lab` on PATH; the kernel
imports attention_lab as Python finds it, so PYTHONPATH=<some checkout>/src measures that checkout).
First line: how long `import attention_lab` takes in a fresh interpreter (median of 7).
Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explorer_registry import demo_explorers, model_explorers

TARGET_KERNEL_MS = 30.0
TARGET_IMPORT_S = 0.25      # issue 22; before the UI stack was made lazy it took about 0.65 s
IMPORT_TIMER = ("import time; t = time.perf_counter(); import attention_lab; "
                "print(time.perf_counter() - t)")


def import_seconds(runs: int = 7) -> float:
    """Median time of `import attention_lab` in `runs` fresh interpreters."""
    return statistics.median(float(subprocess.run([sys.executable, "-c", IMPORT_TIMER], check=True,
                                                  capture_output=True, text=True).stdout)
                             for _ in range(runs))


def slider_positions(slider, n: int = 13) -> list:
    """Positions across a slider's range: every option, both states, or n evenly spaced values."""
    if hasattr(slider, "options"):
        return [value for _, value in slider.options]
    if isinstance(slider.value, bool):
        return [not slider.value, slider.value]
    return [float(v) for v in np.linspace(slider.min, slider.max, n)]


def naive_redraw(explorer, values) -> bytes:
    """Rebuild every panel from scratch with sns.heatmap and render it, as interact() would."""
    result = explorer.compute(values)
    fig, axes = plt.subplots(1, len(explorer.panels), figsize=explorer.figure.get_size_inches())
    for ax, p in zip(np.atleast_1d(axes), explorer.panels):
        data = result[p.key]
        if p.kind == "curve":
            ax.plot(np.asarray(p.col_labels, dtype=float), data)
            continue
        vmin, vmax = (0, 1) if p.kind == "weights" else (p.vmin, p.vmax)
        sns.heatmap(data, ax=ax, annot=True, fmt=".2f", vmin=vmin, vmax=vmax,
                    xticklabels=p.col_labels, yticklabels=p.row_labels)
        ax.set_title(p.title or "")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def median(xs: list) -> float:
    """The median, or NaN for no values (e.g. no position visited twice)."""
    return statistics.median(xs) if xs else float("nan")


def kernel_side(steps: int, naive: bool = True) -> list[dict]:
    rows = []
    for name, make in {**demo_explorers(), **model_explorers()}.items():
        explorer = make()
        key, slider = next(iter(explorer.sliders.items()))
        positions = slider_positions(slider)
        first, again, before, naive_ms, seen = [], [], [], [], set()
        for k in range(steps + 3):
            v = positions[k % len(positions)]
            explorer.renderer.keep_cells = True
            t0 = time.perf_counter()
            explorer.sliders[key].value = v
            t1 = time.perf_counter()
            explorer.renderer.keep_cells = False
            explorer.refresh()
            t2 = time.perf_counter()
            if naive:
                naive_redraw(explorer, explorer.values)
            t3 = time.perf_counter()
            if k >= 3:   # the first steps warm caches up
                (again if v in seen else first).append(1000 * (t1 - t0))
                before.append(1000 * (t2 - t1))
                naive_ms.append(1000 * (t3 - t2))
            seen.add(v)
        cells = sum(np.size(explorer.result[p.key]) for p in explorer.panels if p.annot and p.kind != "curve")
        rows.append({"explorer": name, "cells": cells, "ours": median(first + again),
                     "first": median(first), "again": median(again), "before": median(before),
                     "naive": median(naive_ms) if naive else float("nan"), "n": len(before)})
    return rows


def browser_side(only: tuple = ()) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import lab_session
    reason = lab_session.browser_missing_reason()
    if reason:
        print(f"browser measurement skipped: {reason}")
        return {}
    out = {}
    with lab_session.jupyterlab() as (base, _), lab_session.chromium_page() as page:
        for nb in sorted(p.name for p in (lab_session.ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")
                         if not only or p.name[:2] in only):
            shown = lab_session.open_and_run_all(page, base, nb)
            for i in range(shown["explorers"]):
                out[f"{nb} explorer {i}"] = lab_session.measure_explorer(page, i, steps_per_slider=6)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60, help="slider steps per explorer")
    parser.add_argument("--no-naive", action="store_true", help="time only the explorers' own update")
    parser.add_argument("--browser", action="store_true", help="also measure in JupyterLab + Chromium")
    parser.add_argument("--lessons", default="", help="browser: only these lessons, e.g. 07,08")
    parser.add_argument("--no-kernel", action="store_true", help="skip the kernel-side table")
    args = parser.parse_args(argv)
    print(f"import attention_lab, median of 7 fresh interpreters: {import_seconds():.3f} s "
          f"(target ≤ {TARGET_IMPORT_S} s; about 0.65 s before the UI stack was made lazy)\n")
    print(f"kernel-side update per slider step, median of {args.steps} interleaved steps (ms)")
    print(f"targets: ≥ 2× faster than naive for every explorer; ≤ {TARGET_KERNEL_MS:.0f} ms for one 4×4 "
          "annotated heatmap (≤ 16 annotated cells); several heatmaps: see the browser targets")
    print(f"{'explorer':<50} {'cells':>5} {'before':>7} {'ours':>7} {'first':>7} {'again':>7} {'naive':>7} "
          f"{'naive/ours':>11}  verdict")
    for r in [] if args.no_kernel else kernel_side(args.steps, naive=not args.no_naive):
        ratio = r["naive"] / r["ours"]
        ok = ratio >= 2 and (r["cells"] > 16 or r["ours"] <= TARGET_KERNEL_MS)
        scope = "≤30 ms & ≥2×" if r["cells"] <= 16 else "≥2×"
        verdict = "not compared (--no-naive)" if args.no_naive else f"{scope}: {'met' if ok else 'NOT met'}"
        print(f"{r['explorer']:<50} {r['cells']:5d} {r['before']:7.1f} {r['ours']:7.1f} {r['first']:7.1f} "
              f"{r['again']:7.1f} {r['naive']:7.1f} {ratio:10.1f}×  {verdict}")
    if args.browser:
        print("\nin JupyterLab + headless Chromium: key press -> repainted heatmap (ms)")
        print(f"{'explorer':<44} {'median':>7} {'max':>7} {'burst of 20: final paint':>26}")
        only = tuple(x.strip().zfill(2) for x in args.lessons.split(",") if x.strip())
        for name, m in browser_side(only).items():
            print(f"{name:<44} {m['median_step_ms']:7.1f} {max(m['step_latencies_ms']):7.1f} "
                  f"{m['burst_final_paint_after_last_key_ms']:26.1f}")
        print("targets: median ≤ 100 ms (one heatmap) / ≤ 150 ms (several); burst final ≤ 200 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
