"""How long the README's test command takes, and where the time goes: a benchmark, not a test.

    python tools/suite_time.py                 # runs `python -m pytest` (the README's test command)
    python tools/suite_time.py --from build/suite-times.xml    # reads an earlier run's report

It prints the wall time, then the worker seconds of each test file (set-up, call and tear-down of its
tests, as pytest's JUnit report counts them), slowest first, with its CPU seconds (its tests' own, with
the kernels and servers they ran: conftest.py records them; they depend much less on what ran beside
it), its test count and its slowest test, so that growth shows. Last, the run's CPU by kind of process
(test workers, kernels, Chromium, Jupyter servers...), sampled while it runs: the per-file CPU counts
little of Chromium's (tests/test_browser.py alone: 117 s counted, 91 of them its kernels', while its
Chromium used 71 s by these samples). `.ci/run` prints the same table
after its test phase. The budget is 420 s of wall time on a quiet 2-core machine (issue 43); the table is
how to keep it.
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 420
ORDER = ROOT / "tools" / "longest_first.txt"       # the order conftest.py hands the files to the workers
LISTED_FROM = 5.0                                   # worker seconds from which a file belongs in ORDER
LATE_FROM = 10.0                                    # ... and from which one missing there is named
ORDER_HEAD = """\
# The suite's test files that take longest, longest first (worker seconds of a quiet run of the README's
# test command: `python tools/suite_time.py --write-order` rewrites it from the run it makes, or from the
# JUnit report named by --from, e.g. the one .ci/run keeps in build/suite-times-readme.xml).
# conftest.py hands xdist's workers the files in this order, then every other file; each worker takes the
# next file when it is free, so the long files start first and the run ends on short ones.
# Only the order: a file missing here, or slower than listed, still runs, just later.
"""


def longest_first(order: Path = ORDER) -> dict[str, int]:
    """Test file (from the repository's root, with /) -> its place in `order` (0: the longest)."""
    lines = order.read_text(encoding="utf-8").splitlines() if order.exists() else []
    files = [line.split()[0] for line in lines if line.strip() and not line.startswith("#")]
    return {name: place for place, name in enumerate(files)}


def order_text(rows) -> str:
    """The text of ORDER for a run's table: each file of LISTED_FROM worker seconds or more, slowest first."""
    return ORDER_HEAD + "".join(f"{path}  {seconds:.0f}\n" for path, seconds, *_ in rows
                                if seconds >= LISTED_FROM)


def unlisted(rows, order: Path = ORDER) -> list[str]:
    """The files of a run's table that took LATE_FROM worker seconds or more and are not in `order` (a file
    near LISTED_FROM goes in and out of the list with the machine's load: not named)."""
    listed = longest_first(order)
    return [path for path, seconds, *_ in rows if seconds >= LATE_FROM and path not in listed]


def file_of(case: ET.Element) -> str:
    """The test file of a JUnit test case (an xunit1 report names it): tests/....py or notebooks/....ipynb."""
    return case.get("file") or case.get("classname", "")


def cpu_of(case: ET.Element) -> float | None:
    """The CPU seconds conftest.py recorded for a test case (its property cpu_s), or None."""
    for prop in case.iter("property"):
        if prop.get("name") == "cpu_s":
            return float(prop.get("value"))
    return None


def table(report: Path) -> list[tuple[str, float, float | None, int, str, float, int]]:
    """(file, worker seconds, CPU seconds, tests, slowest test, its seconds, failed) per file, slowest
    first. CPU seconds are None where the report has none (a run without psutil's process tree)."""
    per_file: dict[str, list] = defaultdict(lambda: [0.0, None, 0, "", 0.0, 0])
    for case in ET.parse(report).getroot().iter("testcase"):
        row = per_file[file_of(case)]
        seconds, cpu = float(case.get("time", 0)), cpu_of(case)
        row[0] += seconds
        if cpu is not None:
            row[1] = (row[1] or 0.0) + cpu
        row[2] += 1
        if seconds > row[4]:
            row[3], row[4] = case.get("name", ""), seconds
        row[5] += any(child.tag in ("failure", "error") for child in case)
    return sorted(((f, *row) for f, row in per_file.items()), key=lambda r: -r[1])


def timeline(report: Path) -> list[tuple[str, str, float, float]]:
    """(worker, file, start, end) for each stretch of one file's tests on one worker, in the order they ran,
    with times in seconds from the run's first test (from the start_s and worker properties conftest.py
    records; empty for a report without them)."""
    runs: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for case in ET.parse(report).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if "start_s" in props:
            start = float(props["start_s"])
            end = start + float(case.get("time", 0))
            runs[props.get("worker", "main")].append((start, end, file_of(case)))
    if not runs:
        return []
    first = min(start for cases in runs.values() for start, _, _ in cases)
    out = []
    for worker, cases in sorted(runs.items()):
        for start, end, path in sorted(cases):
            if out and out[-1][0] == worker and out[-1][1] == path:
                out[-1] = (worker, path, out[-1][2], end - first)
            else:
                out.append((worker, path, start - first, end - first))
    return out


def show_timeline(stretches, last: float) -> None:
    """Print what each worker ran in the run's last `last` seconds: the files that make its tail."""
    if not stretches:
        return
    end = max(s[3] for s in stretches)
    print(f"\nthe last {last:.0f} s of the run (of {end:.0f} s from the first test), by worker:")
    for worker in sorted({s[0] for s in stretches}):
        mine = [s for s in stretches if s[0] == worker]
        done = max(s[3] for s in mine)
        shown = [f"{Path(p).name} {a:.0f}-{b:.0f}" for w, p, a, b in mine if b > end - last]
        print(f"  {worker}: idle from {done:.0f} s; " + ("; ".join(shown) or "nothing"))


def show(rows, wall: float | None) -> None:
    total = sum(r[1] for r in rows)
    cpu = sum(r[2] or 0.0 for r in rows)
    tests = sum(r[3] for r in rows)
    counted = f"; {cpu:.0f} CPU seconds counted per test file" if any(r[2] is not None for r in rows) else ""
    if wall is not None:
        verdict = "within" if wall <= BUDGET else "OVER"
        print(f"wall time {wall:.0f} s ({verdict} the {BUDGET} s budget); {tests} tests; "
              f"{total:.0f} worker seconds{counted}")
    else:
        print(f"{tests} tests; {total:.0f} worker seconds{counted}")
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'file':<{width}}  {'worker s':>8}  {'CPU s':>6}  {'tests':>5}  slowest test")
    for path, seconds, used, count, slowest, slowest_s, failed in rows:
        flag = f"  ({failed} failed)" if failed else ""
        used_text = f"{used:6.1f}" if used is not None else f"{'-':>6}"
        print(f"{path:<{width}}  {seconds:8.1f}  {used_text}  {count:5d}  "
              f"{slowest_s:6.1f} s {slowest[:70]}{flag}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="report", type=Path, help="read this JUnit report instead of running")
    parser.add_argument("--report", dest="out", type=Path, default=ROOT / "build" / "suite-times.xml",
                        help="where the run writes its JUnit report (default: build/suite-times.xml)")
    parser.add_argument("--write-order", action="store_true",
                        help=f"rewrite {ORDER.relative_to(ROOT)} from this run's (or the report's) table")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (default: none)")
    args = parser.parse_args()
    if args.report:
        rows = table(args.report)
        show(rows, None)
        show_timeline(timeline(args.report), 120)
        show_order(rows, args.write_order)
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    stolen = stolen_seconds()
    start, used = time.perf_counter(), cpu_seconds()
    run = subprocess.Popen([sys.executable, "-m", "pytest", f"--junitxml={args.out}",
                            "-o", "junit_family=xunit1", *args.pytest_args], cwd=ROOT)
    by_kind = sample_tree(run)
    status = run.returncode
    wall, used = time.perf_counter() - start, cpu_seconds() - used
    rows = table(args.out)
    show(rows, wall)
    show_timeline(timeline(args.out), 120)
    show_order(rows, args.write_order)
    # worker seconds depend on what ran beside a test; the CPU time of the whole run does much less
    print(f"CPU time {used:.0f} s (user + system, every process the run waited for): "
          f"{used / wall:.2f} of {os.cpu_count()} cores busy")
    show_kinds(by_kind, wall)
    after = stolen_seconds()
    show_stolen(after - stolen if after is not None and stolen is not None else None, wall)
    return status


def show_order(rows, write: bool) -> None:
    """Rewrite ORDER from the table, or say which long files it lacks (they start late: the run's tail)."""
    if write:
        ORDER.write_text(order_text(rows), encoding="utf-8")
        print(f"wrote {ORDER.relative_to(ROOT)}: the files of {LISTED_FROM:.0f} worker seconds or more")
    elif missing := unlisted(rows):
        print(f"{LATE_FROM:.0f} worker seconds or more, not in {ORDER.relative_to(ROOT)}, so started late: "
              f"{', '.join(missing)} "
              f"(python tools/suite_time.py --write-order)")


def process_kind(cmdline: list[str]) -> str:
    """What a process of the run is, from its command line: the table of CPU by kind names these."""
    words = " ".join(cmdline)
    program = Path(cmdline[0]).name if cmdline else ""
    if "chrom" in program:
        return "Chromium (browser tests)"
    if "ipykernel" in words:
        return "kernels"
    if "configurable-http-proxy" in words:
        return "the hub's proxy"
    if re.search(r"jupyter[-_ ]?(hub|lab|server|singleuser|notebook)|jupyterhub", words):
        return "Jupyter servers and hubs"
    if "playwright" in words:
        return "Playwright's driver"
    if "exec(eval(sys.stdin.readline()))" in words:
        return "pytest workers"
    if "-m pytest" in words or "pytest" in program:
        return "pytest (this run, or one a test runs)"
    return "other (git, pip, the site's build, ...)"


def sample_tree(run: subprocess.Popen, every: float = 0.5) -> Counter:
    """Wait for `run`; meanwhile read the CPU seconds (user + system) of it and of every process below it
    each `every` seconds, and return them summed by process_kind (psutil, if installed; else empty). A
    process's last reading counts, so one that lives less than `every` may be missed: a floor, not a sum."""
    try:
        import psutil
    except ImportError:
        run.wait()
        return Counter()
    last: dict = {}

    def read():
        try:
            root = psutil.Process(run.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        for proc in procs:
            try:
                with proc.oneshot():
                    key = (proc.pid, proc.create_time())
                    times = proc.cpu_times()
                    kind = last[key][0] if key in last else process_kind(proc.cmdline())
                last[key] = (kind, times.user + times.system)
            except psutil.Error:
                continue                    # gone between the listing and the reading

    while run.poll() is None:
        read()
        time.sleep(every)
    by_kind: Counter = Counter()
    for kind, seconds in last.values():
        by_kind[kind] += seconds
    return by_kind


def show_kinds(by_kind: Counter, wall: float) -> None:
    """The run's CPU by kind of process, largest first: where the budget goes, the browser's included."""
    if not by_kind:
        return
    total = sum(by_kind.values())
    print(f"CPU by kind of process (sampled twice a second, so a floor: {total:.0f} s, "
          f"{total / wall:.2f} cores over the run):")
    for kind, seconds in by_kind.most_common():
        print(f"  {kind:<40} {seconds:7.1f} s")


def stolen_seconds(stat: Path = Path("/proc/stat")) -> float | None:
    """CPU seconds the host gave to other machines while this one's cores wanted them (Linux's `steal`, summed
    over the cores since boot), or None where /proc/stat does not say."""
    try:
        fields = stat.read_text(encoding="ascii").splitlines()[0].split()
    except OSError:
        return None
    if fields[0] != "cpu" or len(fields) < 9:
        return None
    return int(fields[8]) / os.sysconf("SC_CLK_TCK")


def show_stolen(stolen: float | None, wall: float) -> None:
    """What the host gave to other machines while the run wanted its cores (nothing printed where unknown)."""
    if stolen is not None:
        print(f"taken by the host for other machines (steal): {stolen:.1f} core-seconds over the run's "
              f"{wall:.0f} s")


def cpu_seconds() -> float:
    """User and system time of this process's finished children and all they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
