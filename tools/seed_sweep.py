"""Held-out evidence for a lesson's claims about a random draw: each claim checked on seeds you name.

    python tools/seed_sweep.py 07 --seeds 32-47            # a table: each claim, on how many seeds it holds
    python tools/seed_sweep.py 07 --seeds 32-47 --markdown > docs/held-out/07.md

A claim about a draw is worded from the seeds the lesson shows, then checked here on at least 16 other
seeds that played no part in choosing the words; the lesson words it with the count ("on 16 of 16 further
runs") or the rate. The suite tests seeds 0-7; seeds from 16 up are the held-out ones.

Each lesson with a draw has a module tools/seed_sweeps/lesson_NN.py with:
- SEED_NAMES: the lesson's seed variables (e.g. ("TRAINING_SEED",)), which a student may change;
- SHOWN: the seeds the lesson's words were fitted on (the sweep refuses them as held-out seeds);
- CLAIMS: {claim id: the lesson's words};
- measure(seed) -> {claim id: bool}: whether each claim holds with that seed, computed with the package
  (the lesson's own numbers), never with a stored output.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def lessons_with_sweeps() -> list[str]:
    """The lessons that have a sweep module, by number."""
    return sorted(p.stem.removeprefix("lesson_") for p in (HERE / "seed_sweeps").glob("lesson_[0-9][0-9].py"))


def sweep_module(lesson: str):
    """tools/seed_sweeps/lesson_NN.py, with a message that lists the lessons that have one."""
    if lesson not in lessons_with_sweeps():
        known = ", ".join(lessons_with_sweeps())
        raise SystemExit(f"no sweep for lesson {lesson!r}: lessons with one are {known}")
    return importlib.import_module(f"seed_sweeps.lesson_{lesson}")


def parse_seeds(text: str) -> list[int]:
    """'16-31' or '16,18,20-23' -> a sorted list of distinct seeds."""
    seeds: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            seeds.update(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            raise argparse.ArgumentTypeError(f"seeds look like 16-31 or 16,18,20-23; got {text!r}") from None
    return sorted(seeds)


def spans(seeds: list[int]) -> str:
    """[16, ..., 31, 48, ..., 63] -> '16-31,48-63' (one seed alone stays one number); parse_seeds reads it."""
    runs: list[list[int]] = []
    for seed in sorted(seeds):
        if runs and seed == runs[-1][-1] + 1:
            runs[-1].append(seed)
        else:
            runs.append([seed])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def measure(lesson: str, seed: int) -> dict[str, bool]:
    """One seed's verdict on every claim of the lesson (a top-level function, for the process pool)."""
    return sweep_module(lesson).measure(seed)


def sweep(lesson: str, seeds: list[int], jobs: int = 1) -> dict[int, dict[str, bool]]:
    """{seed: {claim id: holds}} for the held-out seeds; refuses the seeds the words were fitted on."""
    module = sweep_module(lesson)
    fitted = sorted(set(seeds) & set(module.SHOWN))
    if fitted:
        raise SystemExit(f"seeds {fitted} are ones lesson {lesson} was worded from; hold them out")
    if jobs == 1:
        return {seed: module.measure(seed) for seed in seeds}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(seeds, pool.map(measure, [lesson] * len(seeds), seeds)))


def table(lesson: str, results: dict[int, dict[str, bool]], markdown: bool = False) -> str:
    """Each claim: on how many of the seeds it holds, and the seeds where it does not."""
    module = sweep_module(lesson)
    seeds = sorted(results)
    span = spans(seeds)
    rows = []
    for cid, words in module.CLAIMS.items():
        fails = [s for s in seeds if not results[s][cid]]
        held = f"{len(seeds) - len(fails)} of {len(seeds)}"
        rows.append((cid, words, held, ", ".join(map(str, fails)) or "-"))
    title = f"Lesson {lesson}: held-out seeds {span} ({', '.join(module.SEED_NAMES)})"
    if not markdown:
        return "\n".join([title] + [f"{c}: holds on {k}; fails on seeds {f}   ({w})" for c, w, k, f in rows])
    return "\n".join([f"# {title}", "", f"Worded from seeds {', '.join(map(str, module.SHOWN))}; made by "
                      f"`python tools/seed_sweep.py {lesson} --seeds {span} --markdown`.", "",
                      "| claim | the lesson's words | holds on | fails on seeds |", "|---|---|---|---|"]
                     + [f"| {c} | {w} | {k} | {f} |" for c, w, k, f in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lesson", help="two digits, e.g. 07")
    parser.add_argument("--seeds", type=parse_seeds, default=parse_seeds("16-31"), help="default 16-31")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1; the machine has 2 cores)")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table, as docs/held-out/ keeps")
    args = parser.parse_args(argv)
    import one_kernel
    one_kernel.pin()   # the lessons' numerical path, before NumPy loads in the workers
    print(table(args.lesson, sweep(args.lesson, args.seeds, args.jobs), args.markdown))
    return 0


if __name__ == "__main__":
    # run as the importable module, so that its worker processes find measure()
    import seed_sweep
    sys.exit(seed_sweep.main())
