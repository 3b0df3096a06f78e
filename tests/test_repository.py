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
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "README.md" in ci   # .ci/run reads the commands from the README, it does not copy them


def test_readme_maps_every_lesson_to_a_module():
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        assert nb.name in README, f"{nb.name} missing from the README's lesson map"
    assert (ROOT / "notebooks" / "00-start-here.ipynb").exists()
    for module in ("loop.py", "matrix.py", "heads.py", "masks.py"):
        assert module in README
        assert (ROOT / "src" / "attention_lab" / module).exists()


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


def test_binder_pins_agree_with_the_local_ranges():
    local = _requirements(ROOT / "requirements.txt")
    pinned = _requirements(ROOT / "binder" / "requirements.txt")
    assert set(local) == set(pinned), \
        f"only local: {set(local) - set(pinned)}, only binder: {set(pinned) - set(local)}"
    for name, spec in pinned.items():
        (pin,) = list(spec)
        assert pin.operator == "==", f"{name} is not pinned exactly in binder/requirements.txt"
        assert local[name].contains(pin.version), f"{name}=={pin.version} is outside {local[name]}"


def test_binder_post_build_is_strict():
    post = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert post.startswith("#!/bin/bash") and "set -euo pipefail" in post


def test_no_network_or_installs_at_run_time():
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        forbidden = r"urllib|requests|http\.client|socket|urlopen|pip install|subprocess"
        assert not re.search(forbidden, text), path
        assert "http://" not in text and "https://" not in text, path
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        text = nb.read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]+src=|https?://cdn|unpkg\.com|jsdelivr", text), nb.name
