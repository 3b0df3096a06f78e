"""A student's whole session, measured: every lesson run top to bottom in its own kernel, in order, each
kernel left running (as JupyterLab keeps a kernel when its tab is closed), beside a running JupyterLab server.

    python tools/benchmark_memory.py [--lessons 00 08] [--repeats 1]

For each lesson it prints its kernel's peak resident memory (VmHWM) and, once the lesson has run, its resident
memory (RSS), its proportional share (PSS: a page shared by k processes counts 1/k) and its anonymous memory
(the part no file backs: what a memory limit cannot reclaim), and the kernel's CPU-seconds. Then the sums over
the server and every kernel, against issue 31's goals: the whole session <= 1.5 GB of RSS (mybinder.org allows
2 GB), lesson 08's kernel <= 350 MB at rest.

Why RSS, PSS and anonymous side by side: lesson 08's weights are a memory-mapped file (load_model). Their
pages sit in the file cache, shared by every kernel that maps the file, and are dropped under pressure and
read again rather than swapped. The kernel lets go of them half a second after a run of the model, so
at rest they are not in its RSS. A container's memory limit (a hub's, Binder's) charges the file cache
too, but reclaims it before it would stop a kernel.

Not a test: memory depends on the machine's libraries; medians over --repeats runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab_session
import one_kernel

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
GOAL_SESSION_MB, GOAL_08_MB = 1536, 350
TICK = os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, float]:
    """Resident (RSS), peak resident (VmHWM), proportional (PSS) and anonymous memory of a process, in MB."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                  if ":" in line)
    rollup = dict(line.split(":", 1)
                  for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    mb = lambda text: int(text.split()[0]) / 1024   # noqa: E731 (kB -> MB)
    return {"rss": mb(status["VmRSS"]), "peak": mb(status["VmHWM"]), "pss": mb(rollup["Pss"]),
            "anon": mb(rollup["Anonymous"])}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    """The direct child processes of `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):   # a process that ended while we looked
            continue
    return found


def run_lesson(path: Path) -> tuple[KernelManager, dict]:
    """Run one lesson top to bottom in a fresh kernel that is left running; its memory and CPU time."""
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(NOTEBOOKS), env=dict(os.environ, PYTHONHASHSEED="0"))
    pid = km.provisioner.process.pid
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, km=km, timeout=900, resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    took = time.perf_counter() - start
    time.sleep(1.0)                                   # at rest: the last output has been sent
    return km, dict(memory(pid), cpu=cpu_seconds(pid), wall=took)


def session(lessons: list[Path]) -> list[dict]:
    """Every lesson in order beside a JupyterLab server; every kernel kept until the end."""
    rows, kernels = [], []
    with lab_session.jupyterlab():
        server = [pid for pid in children(os.getpid())
                  if b"jupyter" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        try:
            for path in lessons:
                km, row = run_lesson(path)
                kernels.append(km)
                rows.append(dict(row, lesson=path.name[:2]))
                print(f"  {path.name[:2]}: peak {row['peak']:5.0f}  at rest {row['rss']:5.0f} MB RSS, "
                      f"{row['pss']:5.0f} PSS, {row['anon']:5.0f} anonymous; {row['cpu']:5.1f} CPU-s",
                      flush=True)
            total = {key: sum(r[key] for r in rows) for key in ("rss", "pss", "anon")}
            srv = memory(server[0]) if server else {"rss": 0.0, "pss": 0.0, "anon": 0.0}
            rows.append({"lesson": "server", **srv, "cpu": cpu_seconds(server[0]) if server else 0.0,
                         "wall": 0.0})
            rows.append({"lesson": "total", **{k: total[k] + srv[k] for k in total}, "peak": 0.0,
                         "cpu": sum(r["cpu"] for r in rows[:-1]), "wall": sum(r["wall"] for r in rows[:-1])})
        finally:
            for km in kernels:
                km.shutdown_kernel(now=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", help="lesson numbers (default: every lesson)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    one_kernel.pin()
    lessons = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    if args.lessons:
        lessons = [p for p in lessons if p.name[:2] in args.lessons]
    runs = []
    for i in range(args.repeats):
        print(f"run {i + 1} of {args.repeats}:", flush=True)
        runs.append(session(lessons))
    names = [r["lesson"] for r in runs[0]]
    med = {name: {k: statistics.median(run[j][k] for run in runs) for k in runs[0][j] if k != "lesson"}
           for j, name in enumerate(names)}
    print(f"\nmedians of {args.repeats} run(s), MB (CPU in seconds of the kernel's own time):")
    print("| lesson | peak RSS | RSS at rest | PSS at rest | anonymous at rest | CPU-s | wall s |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        m = med[name]
        peak = f"{m['peak']:.0f}" if m["peak"] else ""
        print(f"| {name} | {peak} | {m['rss']:.0f} | {m['pss']:.0f} | {m['anon']:.0f} | {m['cpu']:.1f} | "
              f"{m['wall']:.1f} |")
    total = med["total"]["rss"]
    print(f"\nthe whole session: {total:.0f} MB RSS (goal <= {GOAL_SESSION_MB}: "
          f"{'met' if total <= GOAL_SESSION_MB else 'NOT met'})")
    lesson_rows = [name for name in names if name not in ("server", "total")]
    if lesson_rows:
        top = max(lesson_rows, key=lambda name: med[name]["rss"])
        most = med["server"]["rss"] + med[top]["rss"]
        print(f"a student who closes each finished lesson's tab (its kernel culled, binder/postBuild): the "
              f"server and one lesson at a time, at most {most:.0f} MB RSS at rest (lesson {top})")
    if "08" in med:
        rest = med["08"]["rss"]
        print(f"lesson 08's kernel at rest: {rest:.0f} MB RSS (goal <= {GOAL_08_MB}: "
              f"{'met' if rest <= GOAL_08_MB else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
