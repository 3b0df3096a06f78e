"""tools/make_assignments.py, the graded edition: its cells (without nbgrader), then nbgrader's own round trip
on lesson 01 (generate_assignment -> a student's submission -> autograde) scoring as al.check does."""

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_assignments as ma  # noqa: E402

LESSON = ROOT / "notebooks" / "01-one-output-by-hand.ipynb"
KEYS = ["01.1", "01.2", "01.3", "01.4", "01.5"]

# A student's answers to lesson 01, written here: the right ones worked out by hand, the wrong ones slips of
# the test's own (none taken from the package's tables of typical mistakes). Each replaces the line(s) of
# the exercise cell it names; the cell's al.check line stays.
E = np.e
STUDENT = {
    # right: small = (0, 0, 0, 1) dotted with cats (1, 0, 1, 0), chase (0, 1, 0, 0), small, mice (1, 0, 1, 1)
    # gives 0, 0, 1, 1; the softmax of that is (1, 1, e, e) / (2 + 2e)
    "01.1": ("answer_01_1 = None", "answer_01_1 = [[0, 0, 1, 1], "
             f"[1 / {2 + 2 * E!r}, 1 / {2 + 2 * E!r}, {E / (2 + 2 * E)!r}, {E / (2 + 2 * E)!r}]]"),
    "01.2": ("answer_01_2 = None", 'answer_01_2 = "c"'),                     # wrong: the letter is b
    # right: small's query asks noun? and small? with weight 3: mice scores 6, cats and small 3, chase 0
    "01.3": ("answer_01_3 = None", "answer_01_3 = np.zeros((4, 4))\nanswer_01_3[3, [0, 3]] = 3.0"),
    # wrong: divides by the length of e instead of its sum
    "01.4": ("    return e / e.max()", "    return e / np.sqrt((e * e).sum())"),
    # right: q = M x_1 = (2, 1); scores with the keys x_j: 3, 2, 2; v_3 from y_1 = sum_j w_1j v_j
    "01.5": ("answer_01_5 = None", "s = np.array([3.0, 2.0, 2.0])\nw = np.exp(s) / np.exp(s).sum()\n"
             "answer_01_5 = (y_1 - w[0] * np.array([0.0, 2.0]) - w[1] * np.array([1.0, 0.0])) / w[2]"),
}
RIGHT = {"01.1", "01.3", "01.5"}


def cells(nb: dict) -> list[str]:
    return ["".join(c["source"]) for c in nb["cells"]]


def lesson() -> dict:
    return json.loads(LESSON.read_text(encoding="utf-8"))


# ------------------------------------------------------------ the cells, without nbgrader
def test_each_exercise_becomes_an_answer_cell_then_a_locked_test_cell():
    source, original = ma.graded_notebook(LESSON), lesson()
    graded = [(i, c["metadata"]["nbgrader"]) for i, c in enumerate(source["cells"])
              if "nbgrader" in c["metadata"]]
    assert len(graded) == 2 * len(KEYS)
    for k, key in enumerate(KEYS):
        (i, answer), (j, test) = graded[2 * k], graded[2 * k + 1]
        tag = key.replace(".", "_")
        assert j == i + 1
        assert answer == {"grade": False, "grade_id": f"answer_{tag}", "locked": False, "schema_version": 3,
                          "solution": True, "task": False}
        assert test == {"grade": True, "grade_id": f"test_{tag}", "locked": True, "points": 1,
                        "schema_version": 3, "solution": False, "task": False}
    # every other cell is the lesson's, in its order, outputs cleared
    others = [c for c in source["cells"] if "nbgrader" not in c["metadata"]]
    plain = [c for c in original["cells"]
             if not re.search(r'^al\.check\("01\.\d"', "".join(c["source"]), re.M)]
    assert cells({"cells": others}) == cells({"cells": plain})
    assert all(c.get("outputs", []) == [] for c in source["cells"])
    assert len(original["cells"]) + len(KEYS) == len(source["cells"])


def test_every_lesson_gets_a_graded_cell_per_exercise():
    """Any lesson can be chosen: each exercise of al.EXERCISES gets its answer and test cell, in order."""
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        source = ma.graded_notebook(path)
        ids = [c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"] if "nbgrader" in c["metadata"]]
        keys = sorted((k for k in al.EXERCISES if k.startswith(path.name[:2] + ".")),
                      key=lambda k: int(k.split(".")[1]))
        wanted = [f"{kind}_{k.replace('.', '_')}" for k in keys for kind in ("answer", "test")]
        assert ids == wanted, path.name
        assert len({c["id"] for c in source["cells"]}) == len(source["cells"]), "cell ids repeat"


def solution_region(text: str) -> tuple[str, str]:
    """(the cell without its solution region, the code inside it)."""
    outside = re.sub(r"### BEGIN SOLUTION\n.*?### END SOLUTION\n", "", text, flags=re.S)
    (inside,) = re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION\n", text, flags=re.S)
    return outside, inside


def test_an_answer_cell_is_the_lessons_cell_around_the_worked_solution(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(tmp_path / "progress.json"))
    source = ma.graded_notebook(LESSON)
    answers = [c for c in source["cells"] if c["metadata"].get("nbgrader", {}).get("solution")]
    handed_out = [c for c in cells(lesson()) if re.search(r'^al\.check\("01\.\d"', c, re.M)]
    for key, cell, original in zip(KEYS, answers, handed_out):
        outside, inside = solution_region("".join(cell["source"]))
        assert outside == original.rstrip("\n")
        assert "solutions/answers.py" not in inside and "answer_key" not in inside
        name = re.search(r'al\.check\("\d\d\.\d", (\w+)\)', original).group(1)
        space = {"np": np, "al": al}
        exec(inside, space)                                       # the teacher's source earns a ✓
        assert al.check(key, space[name]), key


def hidden_test(key: str) -> str:
    cell = ma.test_cell(key, "answer")
    (inside,) = re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)\n### END HIDDEN TESTS", cell["source"], re.S)
    return inside


@pytest.mark.parametrize("answer", [
    [[0, 0, 1, 1], [0.5, 0.5, 0.5, 0.5]], [[0, 0, 1, 1], [0.1345, 0.1345, 0.3655, 0.3655]], "b", None])
def test_the_hidden_test_passes_exactly_where_al_check_says_yes(answer, monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(tmp_path / "progress.json"))
    for key in ("01.1", "01.2"):
        try:
            exec(hidden_test(key), {"answer": answer})
            passed = True
        except AssertionError:
            passed = False
        assert passed == bool(al.check(key, answer)), (key, answer)


def test_an_unknown_lesson_is_refused_by_name(tmp_path):
    for bad in ("12", "1", "ab"):
        with pytest.raises(ValueError, match=rf"no lesson '{bad}': expected a lesson number of two digits, "
                                             r"one of 00, 01, .*, 10"):
            ma.write_course(["01", bad], tmp_path)
    assert not (tmp_path / "source").exists(), "wrote something before refusing"
    with pytest.raises(SystemExit, match="make_assignments: no lesson '12'"):
        ma.main(["12", "--out", str(tmp_path)])
    with pytest.raises(ValueError, match="assignment name 'week 1'"):
        ma.write_course(["01"], tmp_path, assignment="week 1")


def test_the_course_folder_is_nbgraders_layout(tmp_path):
    written = ma.write_course(["03", "01"], tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "source/lesson03/03-many-heads.ipynb", "source/lesson01/01-one-output-by-hand.ipynb"]
    (week,) = {p.parent for p in ma.write_course(["00", "01"], tmp_path / "one", assignment="week1")}
    assert week == tmp_path / "one" / "source" / "week1"
    assert sorted(p.name for p in (tmp_path / "source").iterdir()) == ["lesson01", "lesson03"]
    config = (tmp_path / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.ClearSolutions.code_stub" in config
    # the exchange's settings, commented out: only where students have nbgrader (teacher's review 4, item 3)
    assert '\n# c.CourseDirectory.course_id = "' in config and "\n# c.Exchange.root = " in config
    assert "\nc.CourseDirectory" not in config and "\nc.Exchange" not in config
    assert "Never hand out `source/`" in (tmp_path / "README.md").read_text(encoding="utf-8")
    # each assignment's folder carries the lessons' installer, to be released beside its notebooks
    installer = (ROOT / "notebooks" / "install_here.py").read_bytes()
    for folder in (tmp_path / "source" / "lesson01", tmp_path / "source" / "lesson03", week):
        assert (folder / "install_here.py").read_bytes() == installer, folder


def test_the_released_installer_installs_from_the_course_copy_around_it(tmp_path):
    """A release handed out as a folder at the top of a copy of the course (beside notebooks/) installs the
    package from that copy's src/, as a lesson does; anywhere else it says so, instead of the lesson's
    first cell failing with "No module named 'install_here'" (teacher's review 4, item 4)."""
    import importlib.util
    ma.write_course(["01"], tmp_path / "course")
    handed_out = tmp_path / "copy" / "lesson01" / "install_here.py"
    handed_out.parent.mkdir(parents=True)
    handed_out.write_bytes((tmp_path / "course" / "source" / "lesson01" / "install_here.py").read_bytes())
    spec = importlib.util.spec_from_file_location("released_install_here", handed_out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.ROOT == tmp_path / "copy"          # the course copy the release folder sits in
    with pytest.raises(module.InstallError, match=r"not a complete copy of the course \(no src/"):
        module.install_attention_lab()             # this copy has no src/: it says so, and installs nothing


def test_check_submitted_lists_what_autograde_would_score_0_or_should_not_trust(tmp_path, capsys):
    """Teacher's review 4, items 1 and 5: the lesson as the link opens it, handed in, scores 0 without a
    warning; a renamed download is not graded; a submission that patches the judge scores without al.check's
    ✓. --check-submitted names each; a released notebook under its own name passes."""
    course = tmp_path / "course"
    ma.write_course(["01"], course)
    graded = json.loads((course / "source" / "lesson01" / LESSON.name).read_text(encoding="utf-8"))
    for cell in graded["cells"]:                  # as nbgrader releases it: no solution, no hidden test
        cell["source"] = re.sub(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n.*?### END \1\n?", "",
                                "".join(cell["source"]), flags=re.S)
    patched, graded = copy.deepcopy(graded), json.dumps(graded)
    cell = next(c for c in patched["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
    cell["source"] = "al.EXERCISES['01.1'].evaluate = lambda answer: None\n" + "".join(cell["source"])
    for student, name, text in [("ada", LESSON.name, graded), ("finn", LESSON.stem + " (1).ipynb", graded),
                                ("erin", LESSON.name, LESSON.read_text(encoding="utf-8")),
                                ("dave", LESSON.name, json.dumps(patched))]:
        folder = course / "submitted" / student / "lesson01"
        folder.mkdir(parents=True)
        (folder / name).write_text(text, encoding="utf-8")
    problems = ma.submitted_problems(course)
    assert [line.split(":")[0] for line in problems] == [
        f"submitted/dave/lesson01/{LESSON.name}", f"submitted/erin/lesson01/{LESSON.name}",
        f"submitted/finn/lesson01/{LESSON.stem} (1).ipynb", f"submitted/finn/lesson01/{LESSON.name}"]
    assert "EXERCISES, evaluate" in problems[0] and "not the release" in problems[1]
    assert "not a notebook of lesson01" in problems[2] and "missing" in problems[3]   # under its own name
    with pytest.raises(SystemExit) as stop:
        ma.main(["--check-submitted", str(course)])
    assert stop.value.code == 1 and capsys.readouterr().out.splitlines() == problems
    for student in ("dave", "erin", "finn"):
        for path in (course / "submitted" / student / "lesson01").iterdir():
            path.unlink()
    with pytest.raises(SystemExit) as stop:
        ma.main(["--check-submitted", str(course)])
    assert stop.value.code == 0 and "every submission is a released notebook" in capsys.readouterr().out
    # teacher's review 6, item 3: a student who handed in only some of an assignment's notebooks
    two = tmp_path / "two"
    ma.write_course(["00", "01"], two, assignment="week1")
    folder = two / "submitted" / "bea" / "week1"
    folder.mkdir(parents=True)
    (folder / LESSON.name).write_text(graded, encoding="utf-8")
    assert ma.submitted_problems(two) == [
        "submitted/bea/week1/00-start-here.ipynb: missing: autograde would score its exercises 0"]
    with pytest.raises(SystemExit, match="no notebooks in submitted"):
        ma.main(["--check-submitted", str(tmp_path)])


def test_the_guides_greps_find_what_it_says(tmp_path):
    """The teaching guide's two greps over submitted/ (teacher's review 4, items 1 and 5): '"grade_id"' is in
    every graded notebook and in no lesson as the link opens it; the judge's names are in no lesson, and in a
    submission that patches the judge."""
    guide = " ".join((ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8").split())
    (graded,) = re.findall(r"`grep -L '(\S+)' submitted/\*/\*/\*\.ipynb`", guide)
    (judge,) = re.findall(r"`grep -lE '(\S+)' submitted/\*/\*/\*\.ipynb`", guide)
    assert "--check-submitted ../course" in guide and "--open week1/00-start-here.ipynb" in guide
    lessons = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))]
    assert len(lessons) == 11 and not any(graded in text or re.search(judge, text) for text in lessons)
    graded_notebooks = [p.read_text(encoding="utf-8") for p in ma.write_course(["00", "01", "02"], tmp_path)]
    assert all(graded in text for text in graded_notebooks)
    assert re.search(judge, json.dumps("al.EXERCISES['01.5'].evaluate = lambda answer: None"))


def test_nbgraders_lab_extension_is_off_in_the_students_jupyterlab():
    """nbgrader (a test tool here) installs a JupyterLab extension for teachers. The settings folder of the
    README's command (and of the image: binder/postBuild copies it) turns it off, as JupyterLab reads it."""
    from jupyter_core.paths import jupyter_path
    from jupyterlab_server.config import get_page_config
    page = get_page_config(jupyter_path("labextensions"), str(ROOT / "binder" / "lab-settings"))
    assert "@jupyter/nbgrader" in [e["name"] for e in page["federated_extensions"]], "nbgrader is not here"
    assert "@jupyter/nbgrader" in page["disabledExtensions"]
    assert "page_config.json" in (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")


# ------------------------------------------------------------ nbgrader's round trip
def nbgrader(course: Path, *args: str) -> None:
    """Run nbgrader in the course folder, as a teacher does in the activated environment (nbgrader runs
    alembic, for its gradebook, from the PATH)."""
    env = os.environ | {"PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=course,
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr


def submit(release: dict) -> tuple[dict, dict]:
    """The student's copy of the release with STUDENT's answers, and what al.check says of each."""
    nb = json.loads(json.dumps(release))
    verdicts = {}
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        found = re.search(r'^al\.check\("(\d\d\.\d)", (\w+)\)$', text, re.M)
        if not found:
            continue
        key, name = found.groups()
        old, new = STUDENT[key]
        assert text.count(old) == 1, (key, text)
        cell["source"] = text.replace(old, new)
        space = {"np": np, "al": al}                     # the same cell, run here: what al.check says
        exec(cell["source"].replace(found.group(0), ""), space)
        verdicts[key] = bool(al.check(key, space[name]))
    return nb, verdicts


def test_nbgraders_round_trip_scores_each_exercise_as_al_check_does(tmp_path, monkeypatch):
    course = tmp_path / "course"
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(tmp_path / "progress.json"))
    ma.write_course(["01"], course)
    nbgrader(course, "generate_assignment", "lesson01")

    # the release: the notebook only, with neither solutions nor hidden tests nor answer keys
    release_dir = course / "release" / "lesson01"
    assert sorted(p.name for p in release_dir.rglob("*")) == [LESSON.name, "install_here.py"]
    release_text = (release_dir / LESSON.name).read_text(encoding="utf-8")
    installer = (release_dir / "install_here.py").read_text(encoding="utf-8")
    assert installer == (ROOT / "notebooks" / "install_here.py").read_text(encoding="utf-8")
    source_text = (course / "source" / "lesson01" / LESSON.name).read_text(encoding="utf-8")
    lesson_text = LESSON.read_text(encoding="utf-8")
    for secret in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "worked_", ".evaluate("):
        assert secret in source_text and secret not in release_text, secret
    for key_or_file in ("answer_key", "solutions/", "SOLUTIONS"):    # nowhere: the source needs none
        assert key_or_file not in source_text and key_or_file not in release_text, key_or_file
    guide = (course / "README.md").read_text(encoding="utf-8")   # the check it tells the teacher to run
    (pattern,) = re.findall(r'grep -rE "([^"]+)" release/', guide)
    assert re.search(pattern, source_text) and not re.search(pattern, release_text + installer)
    for key in KEYS:
        for line in ma.worked_solution(key).splitlines():
            code = json.dumps(line.strip(), ensure_ascii=False)[1:-1]   # as the files store it
            if len(code) > 8 and code not in lesson_text:
                assert code in source_text and code not in release_text, (key, line)
    release = json.loads(release_text)
    handed_out = [c for c in cells(lesson()) if re.search(r'^al\.check\("01\.\d"', c, re.M)]
    shown = [c for c in cells(release) if re.search(r'^al\.check\("01\.\d"', c, re.M)]
    assert [[line for line in c.splitlines() if line] for c in shown] == \
           [[line for line in c.splitlines() if line] for c in handed_out], "the student's cells changed"

    # a student's submission, autograded
    nb, verdicts = submit(release)
    assert {k for k, v in verdicts.items() if v} == RIGHT, verdicts      # the answers are what they say
    submitted = course / "submitted" / "ada" / "lesson01"
    submitted.mkdir(parents=True)
    (submitted / LESSON.name).write_text(json.dumps(nb), encoding="utf-8")
    nbgrader(course, "autograde", "lesson01")

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {key: gb.find_grade(f"test_{key.replace('.', '_')}", LESSON.stem, "lesson01", "ada").score
                  for key in KEYS}
    assert scores == {key: 1.0 if verdicts[key] else 0.0 for key in KEYS}
