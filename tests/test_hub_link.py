"""The JupyterHub link, followed for real, on loopback only, on a hub that knows nothing of the course.

A teacher's repository is served by git's own smart-HTTP backend. A Jupyter server with nbgitpuller
runs at the address a hub's `user-redirect` would reach, so the very link that
`tools/launch_links.py --hub` prints works against it. The server and its kernels run in a fresh
Python environment without attention_lab and without two of its requirements, which pip finds in a local
folder of wheels, online or not (tools/fresh_venv.py).
Headless Chromium plays the student: the link clones the collection and opens lesson 00; the student
opens lesson 03, which JupyterLab saves, and answers an exercise in lesson 00; the teacher fixes the
title of lesson 03 and pushes; the student clicks the link again and gets the fix, byte for byte, with
the answer kept. Then the student runs lesson 00 to the end: its first cell installs the package from the
pulled copy (notebooks/install_here.py), saying so, and every later kernel imports it without help.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lab_session  # noqa: E402
from fresh_venv import LEFT_OUT, fresh_venv, package_index  # noqa: E402
from git_server import git, serve, teacher_repository  # noqa: E402

MISSING = lab_session.browser_missing_reason()
IN_CI = os.environ.get("CI") == "true"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(MISSING is not None and not IN_CI, reason=MISSING or "")]
HUB_PATH = "/hub/user-redirect/"       # where a hub sends /hub/user-redirect/...: here, the server itself
LESSON = "notebooks/03-many-heads.ipynb"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The teacher's working copy (the repository as it is now), its bare clone served over HTTP,
    an empty home for the student, and a Jupyter server with nbgitpuller at the hub's path, run by a
    fresh Python without attention_lab."""
    tmp = tmp_path_factory.mktemp("hub")
    teacher, projects = teacher_repository(tmp)
    home = tmp / "student-home"
    home.mkdir()
    python, environ = fresh_venv(tmp / "venv")
    environ |= package_index(tmp / "wheels")
    with serve(projects) as address, lab_session.jupyterlab(
            root=home, base_url=HUB_PATH, python=python, environ=environ) as (base, _), \
            lab_session.chromium_page() as page:
        yield {"teacher": teacher, "home": home, "base": base, "page": page, "repo": f"{address}/attention",
               "python": python, "environ": environ}


def hub_link(course) -> str:
    """The link exactly as tools/launch_links.py prints it."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "launch_links.py"), course["repo"],
                          "--hub", course["base"]], check=True, capture_output=True, text=True).stdout
    (line,) = [ln for ln in out.splitlines() if ln.startswith("JupyterHub:")]
    return line.split(None, 1)[1]


def open_in_lab(page, url: str, path: str) -> str:
    """Go to `url`, wait until JupyterLab shows the notebook `path` with its kernel idle; its text."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(
        """(path) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                       return w && w.context && w.context.path === path && w.sessionContext.session
                           && w.sessionContext.session.kernel
                           && w.sessionContext.session.kernel.status === 'idle'; }""",
        arg=path, timeout=120_000)
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.node.innerText")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_hub_link_clones_opens_and_later_delivers_the_teachers_fix(course):
    page, home, teacher = course["page"], course["home"], course["teacher"]
    link = hub_link(course)
    assert link.startswith(course["base"] + HUB_PATH + "git-pull?")
    python, environ = course["python"], course["environ"]
    missing = subprocess.run([python, "-c", "import attention_lab"], env=environ, capture_output=True,
                             text=True)
    assert "No module named 'attention_lab'" in missing.stderr, "the hub's Python must not have the package"

    # first click: nbgitpuller clones the collection into ~/attention and opens lesson 00
    text = open_in_lab(page, link, "attention/notebooks/00-start-here.ipynb")
    assert "00 · Start here" in text
    assert (home / "attention" / LESSON).read_bytes() == (teacher / LESSON).read_bytes()

    # the student opens lesson 03; JupyterLab saves it (autosave): the file must not change
    url = f"{course['base']}{HUB_PATH}lab/tree/attention/{LESSON}"
    open_in_lab(page, url, f"attention/{LESSON}")
    lab_session.save(page)
    assert (home / "attention" / LESSON).read_bytes() == (teacher / LESSON).read_bytes(), \
        "opening and saving lesson 03 changed it: the student would stop receiving the teacher's fixes"

    # the teacher fixes a sentence of lesson 03 and pushes
    lesson = teacher / LESSON
    before = lesson.read_text(encoding="utf-8")
    fixed = before.replace("# 03 · ", "# 03 · (revised) ", 1)
    assert fixed != before
    lesson.write_text(fixed, encoding="utf-8")
    git("commit", "-q", "-am", "lesson 03: a clearer title", cwd=teacher)
    git("push", "-q", "origin", "HEAD:main", cwd=teacher)

    # meanwhile the student answered an exercise of lesson 00 and saved it
    own = home / "attention" / "notebooks" / "00-start-here.ipynb"
    answered = own.read_text(encoding="utf-8").replace("answer_00_1 = None", "answer_00_1 = 2", 1)
    assert "answer_00_1 = 2" in answered
    own.write_text(answered, encoding="utf-8")

    # second click on the same link: the fix arrives, byte for byte, and the student's answer stays
    open_in_lab(page, link, "attention/notebooks/00-start-here.ipynb")
    assert (home / "attention" / LESSON).read_bytes() == fixed.encode("utf-8")
    assert own.read_text(encoding="utf-8") == answered
    log = git("log", "--format=%s", cwd=home / "attention")
    assert "lesson 03: a clearer title" in log

    # the student runs lesson 00 (open) to the end: its first cell installs attention_lab from the pulled
    # copy and says so (outputs cleared first: the stored ones would count as done)
    counts = """() => window.jupyterapp.shell.currentWidget.content.widgets
        .filter(c => c.model.type === 'code').map(c => c.model.executionCount)"""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    assert set(page.evaluate(counts)) == {None}
    shown = lab_session.run_all(page, name="hub-00-start-here")
    outputs = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
        .filter(c => c.model.type === 'code').map(c => c.model.outputs.toJSON())""")
    errors = [o for cell in outputs for o in cell if o["output_type"] == "error"]
    assert shown["ran_ok"] and not errors, f"lesson 00 stopped: {errors[:1]}"
    assert page.evaluate(counts) == list(range(1, len(outputs) + 1)), "not every cell ran, in order"
    said = "".join(o.get("text", "") for o in outputs[0])
    assert "not installed in this Python yet" in said and "Done. The lesson goes on." in said, said
    assert all(f"{name}>=" in said for name in LEFT_OUT), f"the installer did not install {LEFT_OUT}: {said}"

    # the student sees the teacher's fix in lesson 03
    assert "03 · (revised) " in open_in_lab(page, url + "?reset", f"attention/{LESSON}")
    # and a later kernel (a new Python process) finds the pulled package and what was installed
    probe = ("from importlib.util import find_spec\n"
             f"print(find_spec('attention_lab').origin, *(find_spec(m) is not None for m in {LEFT_OUT}))")
    later = subprocess.run([python, "-c", probe], env=environ, capture_output=True, text=True,
                           check=True).stdout.split()
    pulled = home / "attention" / "src" / "attention_lab" / "__init__.py"
    assert later == [str(pulled), *["True"] * len(LEFT_OUT)], f"a later kernel found {later}"
