"""Mutation testing of the lesson kernels and the judges, a contributor tool (not run in CI).

    pip install -e ".[mutation]"            # once: mutmut, pinned in pyproject.toml
    python tools/mutation.py                # every mutant, then the table below
    python tools/mutation.py --survivors    # re-test only the survivors (after adding a test)
    python tools/mutation.py --report       # the table of the last run, running nothing
    python tools/mutation.py --module alt_text   # one module's mutants only (with any of the above)

mutmut (configured in pyproject.toml's [tool.mutmut]) copies the package to mutants/, plants one
small bug at a time (a changed operator, constant, argument...) and runs the quick lane (the fast
unit tests named there, one process, no nbval, no browser) on it. A mutant is *killed* when a test
fails, *survived* when every test still passes. This script installs nothing; it runs mutmut over
the modules below and prints killed / survived / timeout / total and the kill rate per module.
Inspect a survivor with `mutmut show <name>`; see docs/mutation-testing.md.
"""

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "attention_lab"

# module -> mutmut name patterns (mutmut names a mutant `attention_lab.<module>.x_<function>__mutmut_<n>`,
# or `...xǁ<Class>ǁ<method>__mutmut_<n>` for a method).
TARGETS = {
    "loop": ["attention_lab.loop.*"],
    "matrix": ["attention_lab.matrix.*"],
    "heads": ["attention_lab.heads.*"],
    "masks": ["attention_lab.masks.*"],
    "positions": ["attention_lab.positions.*"],
    "decoding": ["attention_lab.decoding.*"],
    "training": ["attention_lab.training.*"],
    "checks": ["attention_lab.checks.*"],
    # the judges' shared tools, and the registry's check (a lesson's exercises file has its own entry)
    "judging": ["attention_lab.judging.*", "attention_lab.exercises.x_check__mutmut_*"],
    # figures in words: the alt text a screen reader reads for every figure
    "alt_text": ["attention_lab.alt_text.*"],
    # the pictures: every heatmap, its colours and the colour of each number on it
    "heatmaps": ["attention_lab.heatmaps.*"],
    # the explorers' figure: every slider step repainted in place, with its kept cells
    "explorer_kit": ["attention_lab.explorer_kit.*"],
    # lessons' exercises: each one's right answer, mistake table, hints and judge (built in the tests afresh)
    "exercises_00": ["attention_lab.exercises_00.*"],
    "exercises_02": ["attention_lab.exercises_02.*"],
    "exercises_04": ["attention_lab.exercises_04.*"],
    "exercises_05": ["attention_lab.exercises_05.*"],
    "exercises_10": ["attention_lab.exercises_10.*"],
    # the hand-designed examples every lesson's worked numbers start from
    "examples": ["attention_lab.examples.*"],
    # lesson 02's and 06's experiments: scaling, the loop's and the matrix's cost, saturation
    "experiments": ["attention_lab.experiments.*"],
    # the bridges from column vectors and from nn.Linear's layout to the row form
    "notation": ["attention_lab.notation.*"],
    # a student's own record of every check, and al.progress()'s table
    "records": ["attention_lab.records.*"],
    # the teachers' accessor of every exercise's answer key and its listed mistakes
    "answer_keys": ["attention_lab.answer_keys.*"],
    # lesson 06's training charts: the model's flow, the learning curve, the saturation losses
    "training_plots": ["attention_lab.training_plots.*"],
    # NumPy's BLAS on one thread while lessons 06-08 train or run a model
    "blas": ["attention_lab.blas.*"],
    # lesson 10's source passages: their worked examples, their printouts, the printout checker
    "sources": ["attention_lab.sources.*"],
    # results shared between the test run's processes: a stale or patched one must never pass a test
    "run_memo": ["attention_lab.run_memo.*"],
    # lesson 07's exercises (built in the tests afresh)
    "exercises_07": ["attention_lab.exercises_07.*"],
    # lessons 01 and 03's exercises (built in the tests afresh, as lessons 00, 02, 04, 05 and 10's)
    "exercises_01": ["attention_lab.exercises_01.*"],
    "exercises_03": ["attention_lab.exercises_03.*"],
    "exercises_06": ["attention_lab.exercises_06.*"],
    # lessons 08 and 09's exercises (built in the tests afresh; their judges need no model)
    "exercises_08": ["attention_lab.exercises_08.*"],
    "exercises_09": ["attention_lab.exercises_09.*"],
    # lesson 07's model: its forward and backward pass, its training, its head scores and its explorer
    "induction": ["attention_lab.induction.*"],
    # lessons 02-05's pictures: the cost and scaling charts, the flow, the shapes, the heads, the block
    "plots": ["attention_lab.plots.*"],
    # lesson 08's model file: where it is kept, how it is fetched, what it must pass before it is read
    "model_file": ["attention_lab.model_file.*"],
    # lesson 08's model in NumPy: its file, tokenizer, forward pass, cache, head scores and figures
    "real_model": ["attention_lab.real_model.*"],
    # every lesson's slider explorer: what each slider moves, the heatmaps' cells and the numbers beside them
    "explorers": ["attention_lab.explorers.*"],
    # lesson 09's experiments: knockouts (zero and mean), the window, the logit lens, random control sets
    "heads_at_work": ["attention_lab.heads_at_work.*"],
}

# mutmut's exit codes (mutmut/stats.py), grouped as the table shows them
STATUS = {1: "killed", 3: "killed", 0: "survived", 36: "timeout", 24: "timeout", -24: "timeout",
          152: "timeout", 255: "timeout", 33: "no tests", 5: "no tests", None: "not checked"}


def results(modules=TARGETS) -> dict[str, dict[str, str]]:
    """{module: {mutant name: status}} from mutmut's files in mutants/, for `modules` (default: all)."""
    found = {module: {} for module in modules}
    for meta in (ROOT / "mutants" / "src" / PACKAGE).glob("*.py.meta"):
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in codes.items():
            for module in modules:
                patterns = TARGETS[module]
                if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                    found[module][name] = STATUS.get(code, "other")
    return found


def report(found: dict[str, dict[str, str]]) -> list[str]:
    """Print the table; return the survivors' names."""
    columns = ("killed", "timeout", "survived", "other")
    print(f"\n{'module':<20}" + "".join(f"{c:>10}" for c in (*columns, "total")) + f"{'caught':>9}")
    overall = Counter()
    for module, statuses in found.items():
        count = Counter(s if s in columns[:3] else "other" for s in statuses.values())
        overall += count
        total = len(statuses)
        rate = f"{(count['killed'] + count['timeout']) / total:.1%}" if total else "-"
        print(f"{module:<20}" + "".join(f"{count[c]:>10}" for c in columns) + f"{total:>10}{rate:>9}")
    total = sum(overall.values())
    rate = f"{(overall['killed'] + overall['timeout']) / total:.1%}" if total else "-"
    print(f"{'all':<20}" + "".join(f"{overall[c]:>10}" for c in columns) + f"{total:>10}{rate:>9}")
    print("caught = (killed + timeout) / total; 'other' = not checked, no tests or suspicious.")
    survivors = sorted(n for statuses in found.values() for n, s in statuses.items() if s == "survived")
    if survivors:
        print(f"\n{len(survivors)} survivors (`mutmut show <name>` prints the change):")
        print("\n".join(f"  {n}" for n in survivors))
    return survivors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--survivors", action="store_true", help="re-test only the last run's survivors")
    parser.add_argument("--report", action="store_true", help="print the last run's table, run nothing")
    parser.add_argument("--max-children", type=int, default=None, help="parallel workers (default: cores)")
    parser.add_argument("--module", choices=sorted(TARGETS), default=None,
                        help="only this module's mutants (run, survivors and table); default: every module")
    args = parser.parse_args(argv)
    modules = [args.module] if args.module else list(TARGETS)
    try:
        import mutmut  # noqa: F401  (only to say how to get it)
    except ImportError:
        print('mutmut is not installed: pip install -e ".[mutation]"', file=sys.stderr)
        return 2
    if not args.report:
        if args.survivors:
            names = report(results(modules))
            if not names:
                print("no survivors to re-test")
                return 0
        else:
            names = [p for module in modules for p in TARGETS[module]]
        command = [sys.executable, "-m", "mutmut", "run", *names]
        if args.max_children:
            command[4:4] = ["--max-children", str(args.max_children)]
        start = time.perf_counter()
        # mutmut runs each mutant's tests in a forked child that leaves with os._exit, past conftest.py's
        # atexit clean-up of its run folders (a day of helpers' runs left 32,070 of them in /tmp): the
        # children's temporary files go into a folder of this run's own, deleted with everything in it
        with tempfile.TemporaryDirectory(prefix="attention-lab-mutation-") as scratch:
            done = subprocess.run(command, cwd=ROOT, env={**os.environ, "TMPDIR": scratch})
        print(f"\nmutmut ran for {time.perf_counter() - start:.0f} s (exit code {done.returncode})")
    report(results(modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
