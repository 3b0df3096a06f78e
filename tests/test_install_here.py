"""notebooks/install_here.py, the installer that a lesson's first cell runs where attention_lab is missing.

The whole way, from the hub link to lesson 00's last cell, is tests/test_hub_link.py (a browser test).
Here, without a browser: a lesson's first cell, run by IPython in a fresh Python without the package
(tools/fresh_venv.py) and without a network, says exactly which command installs what is missing, and
stops with a short error of its own; the requirements it reads are pyproject.toml's; and where pip brings
a JupyterLab extension (ipywidgets' sliders), it asks for a page reload.
"""

import base64
import hashlib
import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "notebooks"))
import install_here  # noqa: E402
from fresh_venv import LEFT_OUT, fresh_venv  # noqa: E402

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def first_cell(lesson: str = "00") -> str:
    import json
    (path,) = (ROOT / "notebooks").glob(f"{lesson}-*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "".join(next(c for c in cells if c["cell_type"] == "code")["source"])


def test_without_a_network_the_first_cell_says_what_to_install_and_stops(tmp_path):
    python, environ = fresh_venv(tmp_path / "venv")
    environ = {k: v for k, v in environ.items() if not k.startswith("PIP_")} | {
        "PIP_CONFIG_FILE": os.devnull,                  # no index, mirror or wheel folder from pip's config
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",   # nothing listens on port 9: no network
        "PIP_RETRIES": "0", "PIP_TIMEOUT": "5", "IPYTHONDIR": str(tmp_path / "ipython")}
    run = subprocess.run([python, "-m", "IPython", "--no-banner", "--colors=NoColor", "-c", first_cell()],
                         cwd=ROOT / "notebooks", env=environ, capture_output=True, text=True, timeout=120)
    said = run.stdout + run.stderr
    lacking = [r for r in PROJECT["dependencies"] if re.match(r"[\w.-]+", r).group(0) in LEFT_OUT]
    assert len(lacking) == len(LEFT_OUT)
    assert f"  - it needs {', '.join(lacking)}, which this Python lacks: installing them with pip" in said
    assert f"\n    {shlex.join([str(python), '-m', 'pip', 'install', *lacking])}\n" in said, said
    assert f"InstallError: attention_lab needs {', '.join(lacking)}, which pip could not install" in said
    assert "No module named" not in said and "During handling" not in said, "a bare traceback"
    purelib = Path(python).parents[1] / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    installed = [p.name for p in (purelib / "site-packages").iterdir()]
    assert installed == ["borrowed.pth"], f"it installed something: {installed}"


def test_requirements_are_pyprojects_with_or_without_a_toml_parser():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert install_here.requirements(ROOT) == PROJECT["dependencies"]
    assert install_here.requirements_from_text(text) == PROJECT["dependencies"]     # Python 3.10's way
    other = ('[build-system]\nrequires = ["setuptools"]\n[project]\nname = "x"\n'
             "dependencies = [\n  'a>=1',  # why\n  \"b[c]<2; python_version < '3.12'\",\n]\n[tool.y]\n")
    assert install_here.requirements_from_text(other) == ["a>=1", "b[c]<2; python_version < '3.12'"]
    with pytest.raises(install_here.InstallError, match="no \\[project\\] dependencies"):
        install_here.requirements_from_text("[project]\nname = 'x'\n")


def test_only_what_is_missing_or_too_old_is_installed():
    assert install_here.missing(PROJECT["dependencies"]) == []          # this Python has them all
    assert install_here.missing(["numpy>=1", "numpy>=999", "no-such-dist-here>=1", "Numpy>=1"]) == [
        "numpy>=999", "no-such-dist-here>=1"]
    assert install_here.missing(["no-such-dist-here; python_version < '3'"]) == []   # not for this Python


def test_a_read_only_site_packages_sends_pip_to_the_users_own(monkeypatch):
    import site
    monkeypatch.setattr(install_here.os, "access", lambda path, mode: False)
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    target, user = install_here.where_to_install()
    assert user and target == Path(site.getusersitepackages())
    assert install_here.pip_command(["gguf>=0.17,<1"], user)[-3:] == ["install", "--user", "gguf>=0.17,<1"]
    monkeypatch.setattr(install_here.os, "access", lambda path, mode: True)
    assert install_here.where_to_install()[1] is False


def demo_wheel(folder: Path, name: str, extension: str | None = None) -> None:
    """A tiny wheel of distribution `name` (version 1.0), with a JupyterLab extension among its data files
    where `extension` is given: pip puts it in <prefix>/share/jupyter/labextensions/<extension>, as it does
    jupyterlab_widgets' (ipywidgets' sliders)."""
    module, info = name.replace("-", "_"), f"{name.replace('-', '_')}-1.0"
    files = {f"{module}/__init__.py": b"",
             f"{info}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
             f"{info}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                        b"Tag: py3-none-any\n"}
    if extension:
        files[f"{info}.data/data/share/jupyter/labextensions/{extension}/package.json"] = \
            f'{{"name": "{extension}", "version": "1.0.0"}}'.encode()
    digest = {path: base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
              for path, data in files.items()}
    record = [f"{path},sha256={digest[path]},{len(data)}" for path, data in files.items()]
    with zipfile.ZipFile(folder / f"{info}-py3-none-any.whl", "w") as whl:
        for path, data in files.items():
            whl.writestr(path, data)
        whl.writestr(f"{info}.dist-info/RECORD", "\n".join([*record, f"{info}.dist-info/RECORD,,"]) + "\n")


def install_into_fresh_python(tmp_path: Path, needs: list[str]) -> str:
    """install_attention_lab run in a fresh Python for a course that needs `needs`, the demo wheels its only
    package index: what it says."""
    course = tmp_path / "course"
    (course / "src" / "attention_lab").mkdir(parents=True)
    (course / "src" / "attention_lab" / "__init__.py").write_text("", encoding="utf-8")
    (course / "pyproject.toml").write_text(f'[project]\nname = "course"\ndependencies = {needs!r}\n',
                                           encoding="utf-8")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    demo_wheel(wheels, "sliders-demo", extension="sliders-demo")
    demo_wheel(wheels, "plain-demo")
    python, environ = fresh_venv(tmp_path / "venv")
    environ = {k: v for k, v in environ.items() if not k.startswith("PIP_")} | {
        "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_CONFIG_FILE": os.devnull,
        "HOME": str(tmp_path / "home")}                  # pip --user, if it came to that: an empty home
    code = f"import install_here, pathlib; install_here.install_attention_lab(pathlib.Path({str(course)!r}))"
    run = subprocess.run([python, "-c", code], cwd=ROOT / "notebooks", env=environ, capture_output=True,
                         text=True, timeout=120)
    return run.stdout + run.stderr


def test_a_new_jupyterlab_extension_asks_for_a_page_reload(tmp_path):
    """Teacher's review, round 2, item 7, checked in headless Chromium: on a server whose Python lacked
    ipywidgets, lesson 00's first cell installed it (and jupyterlab_widgets with it); the page already open
    had no renderer for widgets and drew none of lesson 00's sliders, and after a reload it drew all five.
    So where pip brings a JupyterLab extension, the cell says to reload the page and run the lesson again,
    and stops there; where it brings none, the lesson goes on."""
    said = install_into_fresh_python(tmp_path / "plain", ["plain-demo>=1"])
    assert "installing them with pip" in said and said.rstrip().endswith("Done. The lesson goes on."), said
    said = install_into_fresh_python(tmp_path / "sliders", ["sliders-demo>=1", "plain-demo>=1"])
    assert "pip also installed the JupyterLab extension sliders-demo" in said, said
    assert "reload this browser page (F5), then run the lesson again" in said
    assert "InstallError: reload this browser page, then run the lesson again" in said
    assert "Done. The lesson goes on." not in said
