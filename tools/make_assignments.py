"""Write a graded edition of chosen lessons: nbgrader source notebooks in nbgrader's course layout.

    python tools/make_assignments.py 01 03 --out COURSE            # COURSE/source/lesson01/01-....ipynb, ...
    python tools/make_assignments.py 00 01 02 --out COURSE --assignment week1   # one assignment, 3 notebooks

Each lesson is copied cell by cell. Each exercise cell (its last line `al.check("NN.k", <answer>)`)
becomes an autograded answer cell: the student sees the lesson's cell as it is and writes the answer
there; between nbgrader's `### BEGIN SOLUTION` and `### END SOLUTION` it holds, for the teacher, the worked
solution of solutions/answers.py. Below it comes a locked test cell worth 1 point whose hidden test asks
the judge `al.check` asks (the exercise's `evaluate`) and asserts its verdict: a submission scores 1
exactly where al.check says ✓.

`nbgrader generate_assignment` (run in COURSE, whose nbgrader_config.py this writes) removes the solution
regions and the hidden tests, and writes only the notebooks: the release holds no worked solution, no
answer key and nothing of solutions/ (tests/test_make_assignments.py searches it). The installed package
still holds each exercise's answer in the student's kernel (the judge needs it): docs/teaching-guide.md,
"A graded edition", says what that means for a graded class.

Each assignment's folder also gets a copy of notebooks/install_here.py, which nbgrader releases beside the
notebooks: a release handed out as a folder at the top of a copy of the course (beside notebooks/) installs
the package from that copy's src/, as the lessons do.

    python tools/make_assignments.py --check-submitted COURSE     # before autograde: what will score 0

lists each submitted notebook that is not the release (no graded cell: the lesson as the link opens it, which
nbgrader scores 0 without a warning), whose name is not one of its assignment's notebooks (a browser's
" (1)"), or whose cells touch the judge (EXERCISES, evaluate, answer_keys), and each of an assignment's
notebooks missing from a student's folder; exit status 1 if any.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
WORKED = ROOT / "solutions" / "answers.py"
CHECK = re.compile(r'^al\.check\("(\d\d\.\d+)", (\w+)\)$')   # an exercise cell's last line
JUDGE = re.compile(r"\b(EXERCISES|evaluate|answer_keys)\b")   # what a submission's code never needs to name
INSTALLER = NOTEBOOKS / "install_here.py"                     # released beside the notebooks
POINTS = 1                                                  # per exercise; a teacher may change it
SCHEMA = 3                                                  # nbgrader 0.9's cell metadata

CONFIG = '''"""nbgrader's settings for this course (written by tools/make_assignments.py)."""
import os
from pathlib import Path

c = get_config()  # noqa: F821  (nbgrader provides it)
# The release keeps each exercise cell as the lesson hands it out: where the teacher's solution was,
# nothing (nbgrader's default, `raise NotImplementedError()`, would stop Run All at the first exercise).
c.ClearSolutions.code_stub = {"python": ""}
# Lessons 06-09 train or run a model: a cell may take minutes (nbgrader's default limit is 30 s).
c.Execute.timeout = 600
# autograde runs each submission's al.check calls: they keep their record here, not in the teacher's own
here = Path(__file__).resolve().parent
os.environ.setdefault("ATTENTION_LAB_PROGRESS", str(here / "autograde-progress.json"))
# nbgrader's exchange (release_assignment, fetch_assignment, submit, collect) needs a course id and an
# exchange root, and nbgrader in the students' environment, which the course's image does not have. Set
# these two only if your students have it; generate_assignment and autograde need neither.
# c.CourseDirectory.course_id = "attention-2026"
# c.Exchange.root = "/srv/nbgrader/exchange"
'''

GUIDE = """# A graded edition of Attention, step by step

Written by `tools/make_assignments.py` for lessons {lessons}. An nbgrader course folder: run every
`nbgrader` command here (this folder's `nbgrader_config.py` is part of the edition).

- `source/` is the teacher's: each exercise cell holds the worked solution (from `solutions/answers.py`)
  between `### BEGIN SOLUTION` and `### END SOLUTION`, and a hidden test (`### BEGIN HIDDEN TESTS`) that
  asks the same judge as `al.check`. Never hand out `source/`.
- `nbgrader generate_assignment <assignment>` writes `release/`: the lessons as students know them, without
  the solutions and hidden tests, no answer key and nothing of `solutions/` (`source/` holds only the
  notebooks and a copy of the lessons' `install_here.py`). Check it before you hand it out:
  `grep -rE "SOLUTION|HIDDEN|answer_key|worked_" release/` finds nothing.
- Students must work in the released copy: the lesson as the course's link opens it has no graded cells,
  and nbgrader scores it 0 without a warning. Hand out the release folder as a folder at the top of the class
  branch (beside `notebooks/`), and open it with the link: its `install_here.py` then installs the
  `attention_lab` package from that copy where it is missing, as the lessons do. Remove `solutions/` from
  that branch (`git rm -r solutions`): the links hand out the whole branch.
- Students save, then download (*File › Save Notebook*, then *File › Download*: a download is the file as
  last saved). Collect the submissions into `submitted/<student>/<assignment>/`, each under its notebook's
  exact name (browsers add " (1)" to a repeated download). Before autograding, `python
  REPOSITORY/tools/make_assignments.py --check-submitted .` (REPOSITORY: your copy of the course) lists every
  file that is not the release, is misnamed, is missing from a student's folder or touches the judge.
  Then `nbgrader autograde <assignment>`; `nbgrader export` writes every grade to `grades.csv`;
  `nbgrader generate_feedback <assignment>` writes each student's feedback, with al.check's hint under
  every exercise not yet right.
- Every exercise is worth {points} point: a submission scores it exactly where `al.check` says ✓.

Assignments: {assignments}.
"""


# ------------------------------------------------------------ the door: checks of this tool's inputs
def lesson_path(number: str) -> Path:
    """notebooks/NN-*.ipynb for lesson `number` ('01'); ValueError naming the lessons there otherwise."""
    known = {p.name[:2]: p for p in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))}
    text = str(number).strip()
    if not re.fullmatch(r"\d\d", text) or text not in known:
        raise ValueError(f"no lesson {number!r}: expected a lesson number of two digits, one of "
                         f"{', '.join(sorted(known))} (notebooks/NN-*.ipynb)")
    return known[text]


def assignment_name(name: str) -> str:
    """`name` if nbgrader can use it as an assignment (a folder name of letters, digits, - and _)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise ValueError(f"assignment name {name!r}: expected letters, digits, '-' or '_' (a folder name), "
                         "e.g. 'week1'")
    return name


# ------------------------------------------------------------ the worked solutions (teacher's side only)
@functools.cache
def worked_functions() -> tuple[str, dict[str, ast.FunctionDef]]:
    """solutions/answers.py's text and its functions by name (read once)."""
    text = WORKED.read_text(encoding="utf-8")
    return text, {node.name: node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}


def worked_solution(key: str) -> str:
    """The code of `answer_NN_k` in solutions/answers.py, renamed `worked_NN_k`, after the module's helper
    functions it calls (rows_softmax): code that defines `worked_NN_k()`, which returns the answer."""
    text, functions = worked_functions()
    name = f"answer_{key.replace('.', '_')}"
    if name not in functions:
        raise ValueError(f"exercise {key}: solutions/answers.py has no {name}(): every exercise needs its "
                         "worked solution there")
    node = functions[name]
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    helpers = [functions[h] for h in sorted(used) if h in functions and not h.startswith("answer_")]
    parts = [ast.get_source_segment(text, h) for h in helpers]
    parts.append(ast.get_source_segment(text, node).replace(f"def {name}(", f"def worked_{name[7:]}(", 1))
    return "\n\n".join(parts)


# ------------------------------------------------------------ the cells
def nbgrader_metadata(grade_id: str, *, solution: bool, grade: bool, locked: bool) -> dict:
    """nbgrader 0.9's cell metadata (schema 3): an autograded answer cell is solution, not grade; a test
    cell is grade (with points) and locked."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = POINTS
    return meta


def exercise_of(cell: dict) -> tuple[str, str] | None:
    """(key, the name the answer is given under) of an exercise cell, or None for any other cell."""
    if cell["cell_type"] != "code":
        return None
    lines = "".join(cell["source"]).rstrip("\n").splitlines()
    found = CHECK.match(lines[-1]) if lines else None
    return (found.group(1), found.group(2)) if found else None


def answer_cell(cell: dict, key: str, name: str) -> dict:
    """The lesson's exercise cell as an autograded answer cell: its lines as handed out, then the worked
    solution between the solution markers (removed on release), then the al.check line."""
    lines = "".join(cell["source"]).rstrip("\n").splitlines()
    region = ["### BEGIN SOLUTION", worked_solution(key), "",
              f"{name} = worked_{key.replace('.', '_')}()", "### END SOLUTION"]
    out = copy.deepcopy(cell)
    out["source"] = "\n".join([*lines[:-1], *region, lines[-1]])
    out["outputs"], out["execution_count"] = [], None
    out["metadata"] = {**cell["metadata"], "nbgrader": nbgrader_metadata(
        f"answer_{key.replace('.', '_')}", solution=True, grade=False, locked=False)}
    return out


def test_cell(key: str, name: str) -> dict:
    """A locked test cell worth POINTS: its hidden test asks the exercise's judge, the one al.check asks,
    and asserts ✓ (al.check's verdict is truthy exactly when evaluate's status is 'correct')."""
    tag = key.replace(".", "_")
    source = "\n".join([
        f"# Exercise {key} is graded here by a hidden test: it asks the same judge as al.check above.",
        "### BEGIN HIDDEN TESTS",
        "import attention_lab",
        f'result_{tag} = attention_lab.EXERCISES["{key}"].evaluate({name})',
        f'assert result_{tag}.status == "correct", result_{tag}.message',
        "### END HIDDEN TESTS",
    ])
    meta = nbgrader_metadata(f"test_{tag}", solution=False, grade=True, locked=True)
    return {"cell_type": "code", "execution_count": None, "id": f"test-{tag}", "outputs": [],
            "source": source, "metadata": {"nbgrader": meta}}


def graded_notebook(lesson: Path) -> dict:
    """Lesson `lesson` as an nbgrader source notebook: every other cell as it is (outputs cleared), each
    exercise cell an answer cell followed by its test cell."""
    nb = json.loads(lesson.read_text(encoding="utf-8"))
    cells = []
    for cell in nb["cells"]:
        found = exercise_of(cell)
        if found is None:
            cell = copy.deepcopy(cell)
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
            cells.append(cell)
        else:
            cells += [answer_cell(cell, *found), test_cell(*found)]
    if not any(exercise_of(c) for c in nb["cells"]):
        raise ValueError(f"{lesson.name}: no exercise cell (a cell ending in al.check(\"NN.k\", answer))")
    return {**nb, "cells": cells}


def write_course(lessons: list[str], out: Path, assignment: str | None = None) -> list[Path]:
    """Write out/source/<assignment>/<lesson>.ipynb for each lesson (its assignment 'lessonNN', or all of
    them in `assignment`), out/nbgrader_config.py and out/README.md. Returns the notebooks written."""
    paths = [lesson_path(n) for n in lessons]       # every number checked before anything is written
    if not paths:
        raise ValueError("no lesson given: expected one or more lesson numbers, e.g. 01 03")
    if assignment is not None:
        assignment_name(assignment)
    out = Path(out)
    written, assignments = [], []
    for path in paths:
        folder = assignment or f"lesson{path.name[:2]}"
        target = out / "source" / folder / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(graded_notebook(path), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.append(target)
        (target.parent / INSTALLER.name).write_bytes(INSTALLER.read_bytes())
        assignments += [folder] if folder not in assignments else []
    (out / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    (out / "README.md").write_text(GUIDE.format(lessons=", ".join(p.name[:2] for p in paths), points=POINTS,
                                                assignments=", ".join(assignments)), encoding="utf-8")
    return written


def submitted_problems(course: Path) -> list[str]:
    """What autograde would score 0 or should not trust, for each notebook in
    course/submitted/<student>/<assignment>/: 'PATH: <what is wrong>', one line each (none: all is well)."""
    course = Path(course)
    found = sorted((course / "submitted").glob("*/*/*.ipynb"))
    if not found:
        raise ValueError(f"{course / 'submitted'}: no notebooks in submitted/<student>/<assignment>/; "
                         "expected the course folder that make_assignments.py wrote, with the submissions "
                         "saved there")
    problems = []
    for path in found:
        where, assignment = path.relative_to(course), path.parent.name
        expected = sorted(p.name for p in (course / "source" / assignment).glob("*.ipynb"))
        if not expected:
            problems.append(f"{where}: no assignment '{assignment}' in source/ (one of "
                            f"{', '.join(sorted(p.name for p in (course / 'source').iterdir()))})")
            continue
        if path.name not in expected:
            problems.append(f"{where}: not a notebook of {assignment} ({', '.join(expected)}): renamed? "
                            "browsers add ' (1)' to a repeated download")
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (ValueError, KeyError, UnicodeDecodeError):
            problems.append(f"{where}: not a notebook that can be read (not JSON with cells)")
            continue
        if not any("grade_id" in c.get("metadata", {}).get("nbgrader", {}) for c in cells):
            problems.append(f"{where}: not the release (no graded cell; the lesson as the link opens it?): "
                            "autograde would score it 0")
        touched = sorted({w for c in cells if c["cell_type"] == "code"
                          for w in JUDGE.findall("".join(c["source"]))})
        if touched:
            problems.append(f"{where}: its code names {', '.join(touched)}: read it, it may change the judge")
    for folder in sorted({path.parent for path in found}):        # a download gone astray scores 0 too
        handed_in = {p.name for p in folder.glob("*.ipynb")}
        for name in sorted(p.name for p in (course / "source" / folder.name).glob("*.ipynb")):
            if name not in handed_in:
                problems.append(f"{folder.relative_to(course) / name}: missing: autograde would score its "
                                "exercises 0")
    return problems


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers, e.g. 01 03")
    parser.add_argument("--out", type=Path, help="the nbgrader course folder to write")
    parser.add_argument("--assignment",
                        help="put every lesson in this one assignment (default: lessonNN each)")
    parser.add_argument("--check-submitted", type=Path, metavar="COURSE",
                        help="instead: list the submissions in COURSE/submitted/ that autograde would "
                             "score 0 (not the release, misnamed, or missing) or that touch the judge")
    args = parser.parse_args(argv)
    if args.check_submitted is not None:
        try:
            problems = submitted_problems(args.check_submitted)
        except ValueError as exc:
            raise SystemExit(f"make_assignments: {exc}") from None
        print("\n".join(problems) or "every submission is a released notebook under its own name")
        raise SystemExit(1 if problems else 0)
    if not args.lessons or args.out is None:
        parser.error("give the lesson numbers and --out COURSE (or --check-submitted COURSE)")
    try:
        written = write_course(args.lessons, args.out, args.assignment)
    except ValueError as exc:
        raise SystemExit(f"make_assignments: {exc}") from None
    for path in written:
        print(f"wrote {path}")
    print(f"next: cd {args.out} && nbgrader generate_assignment {written[0].parent.name}")


if __name__ == "__main__":
    main()
