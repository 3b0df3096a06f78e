"""Install attention_lab, the lessons' own package, from this copy of the course.

A JupyterHub link (nbgitpuller) copies the course's files into the student's home but installs
nothing. Each lesson's first cell therefore calls `install_attention_lab()` when `import attention_lab`
fails. It

1. reads the package's requirements from the course's pyproject.toml and asks pip for only those that
   are missing (or too old), into this Python's site-packages, or the user's own where that cannot be
   written;
2. makes the package importable from the course's `src/` folder: at once in the running kernel, and in
   every later one through a `.pth` file (a one-line pointer, which is what an editable install writes);
3. says in plain words what it did. Without a network it says which command installs what is missing.
   Where pip brought a JupyterLab extension (ipywidgets' sliders, on a hub whose JupyterLab lacks it), it
   stops and asks for a page reload: a JupyterLab page loads its extensions when it opens, so the sliders
   draw only in a page opened after the install.

This file stands alone (standard library only): the package cannot help before it is installed.
From a terminal: `python notebooks/install_here.py`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import shlex
import site
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NoReturn

PACKAGE = "attention_lab"
ROOT = Path(__file__).resolve().parents[1]      # the course: notebooks/ sits at its top
POINTER = "attention-lab-course.pth"            # the file that makes src/ importable in later kernels


class InstallError(RuntimeError):
    """attention_lab could not be installed here; the message says what to do instead."""


def stop(message: str) -> NoReturn:
    """Raise InstallError(message): the student's traceback ends in these two lines, not in the installer."""
    raise InstallError(message) from None


def requirements(root: Path = ROOT) -> list[str]:
    """The package's requirements, as pyproject.toml's [project] dependencies lists them."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11 and later
    except ModuleNotFoundError:
        return requirements_from_text(text)
    return list(tomllib.loads(text)["project"]["dependencies"])


def requirements_from_text(text: str) -> list[str]:
    """The same list read without a TOML parser (Python 3.10 has none): the quoted strings of the
    `dependencies = [...]` array in the [project] table."""
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    array = project and re.search(r"^dependencies\s*=\s*\[", project.group(1), re.M)
    if not array:
        stop("pyproject.toml has no [project] dependencies list: this copy of the course is incomplete")
    item = re.compile(r"""(?:\s|#[^\n]*)*(?:"([^"]*)"|'([^']*)'|(\]))\s*,?""")   # comments may sit between
    found, at = [], array.end()
    while (m := item.match(project.group(1), at)) and not m.group(3):
        found.append(m.group(1) if m.group(1) is not None else m.group(2))
        at = m.end()
    if not m:
        stop("pyproject.toml's dependencies list could not be read: this copy of the course is incomplete")
    return found


def dist_name(requirement: str) -> str:
    """'seaborn>=0.13,<0.14' -> 'seaborn' (lower case, '-' for '_' and '.', as pip compares names)."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", requirement.strip()).group(0)).lower()


def missing(requirements: list[str]) -> list[str]:
    """The requirements not met by what is installed: absent, or of a version outside the range.
    (Without the `packaging` library, which every Jupyter kernel has, only absence is checked.)"""
    try:
        from packaging.requirements import Requirement
    except ModuleNotFoundError:
        Requirement = None
    out = []
    for text in requirements:
        req = Requirement(text) if Requirement else None
        if req is not None and req.marker is not None and not req.marker.evaluate():
            continue                                    # not needed on this platform
        try:
            version = importlib.metadata.version(dist_name(text))
        except importlib.metadata.PackageNotFoundError:
            out.append(text)
            continue
        if req is not None and not req.specifier.contains(version, prereleases=True):
            out.append(text)
    return out


def loaded_old_versions(requirements: list[str]) -> list[str]:
    """The modules of these requirements that this kernel already imported (an older version: pip's
    newer one takes effect only after a restart)."""
    by_module = importlib.metadata.packages_distributions()
    wanted = {dist_name(r) for r in requirements}
    return sorted(module for module, dists in by_module.items()
                  if module in sys.modules and any(dist_name(d) in wanted for d in dists))


def where_to_install() -> tuple[Path, bool]:
    """(site-packages folder, whether it is the user's own): this Python's own where it can be written,
    else the user's (pip's --user), as pip itself would choose."""
    own = Path(sysconfig.get_paths()["purelib"])
    if os.access(own, os.W_OK) or not site.ENABLE_USER_SITE:
        return own, False
    return Path(site.getusersitepackages()), True


def lab_extensions() -> set[str]:
    """The JupyterLab extensions installed where pip puts them for this Python: its own
    share/jupyter/labextensions, and the user's (pip --user). A JupyterLab server run by this Python
    finds them there; a page already open does not load one added after it opened."""
    found = set()
    for base in (Path(sys.prefix), Path(site.getuserbase())):
        folder = base / "share" / "jupyter" / "labextensions"
        for pattern in ("*/package.json", "@*/*/package.json"):     # 'name' or '@scope/name'
            found |= {str(p.parent.relative_to(folder).as_posix()) for p in folder.glob(pattern)}
    return found


def pip_command(requirements: list[str], user: bool) -> list[str]:
    return [sys.executable, "-m", "pip", "install", *(["--user"] if user else []), *requirements]


def install_attention_lab(root: Path = ROOT) -> None:
    """Install what attention_lab needs and make it importable, now and in later kernels; say what was done.
    Raises InstallError, after saying what to run instead, where pip cannot install what is missing."""
    __tracebackhide__ = True        # IPython shows the student the lesson's cell and the error, not this file
    src = root / "src"
    if not (src / PACKAGE / "__init__.py").is_file() or not (root / "pyproject.toml").is_file():
        stop(f"{root} is not a complete copy of the course (no src/{PACKAGE} or no pyproject.toml): "
             "click the course's link again to fetch it")
    print(f"{PACKAGE}, the lessons' own package, is not installed in this Python yet (a hub link copies "
          f"the course's files, not its package). Installing it from {root}, once:")
    target, user = where_to_install()
    needed = missing(requirements(root))
    extensions_before = lab_extensions()
    if needed:
        print(f"  - it needs {', '.join(needed)}, which this Python lacks: installing them with pip …",
              flush=True)
        command = pip_command(needed, user)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            said = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()][-3:]
            print("\npip could not install them. It said:\n    " + "\n    ".join(said) +
                  "\nMost likely this computer cannot reach a package index (no network). To install them, "
                  "run this command in a terminal (File › New › Terminal), or ask whoever runs your hub:\n\n"
                  f"    {shlex.join(command)}\n\n"
                  "Then run this cell again.")
            stop(f"{PACKAGE} needs {', '.join(needed)}, which pip could not install: "
                 "see the message above for the command that installs them")
        print("    installed")
    else:
        print("  - everything it needs is installed already")
    pointer = target / POINTER
    try:
        target.mkdir(parents=True, exist_ok=True)
        pointer.write_text(f"# written by {Path(__file__).name}: makes {PACKAGE} importable from the "
                           f"course's own folder\n{src}\n", encoding="utf-8")
        later = f"and in every later one through {pointer}"
    except OSError as exc:
        later = f"only ({pointer} could not be written: {exc.strerror}; each new kernel repeats this step)"
    for folder in (str(target), str(src)):              # this kernel read its .pth files when it started
        if folder not in sys.path:
            sys.path.append(folder)
    importlib.invalidate_caches()
    print(f"  - {PACKAGE} is now imported from {src}: in this kernel, {later}")
    stale = loaded_old_versions(needed)
    if stale:
        print(f"\nThis kernel had already loaded an older {', '.join(stale)}. Restart it "
              "(Kernel › Restart Kernel) and run the lesson again.")
        stop(f"restart the kernel: an older {', '.join(stale)} is still loaded")
    added = sorted(lab_extensions() - extensions_before)
    if added:
        print(f"\npip also installed the JupyterLab extension {', '.join(added)}, which draws the lessons' "
              "sliders. This page opened before it existed, and a page loads its extensions only when it "
              "opens: reload this browser page (F5), then run the lesson again (Run › Run All Cells). "
              "If the sliders still do not show after the reload, your hub's JupyterLab runs in another "
              "Python: ask whoever runs the hub to install ipywidgets where JupyterLab runs.")
        stop("reload this browser page, then run the lesson again: the sliders' JupyterLab extension "
             "was just installed")
    print("Done. The lesson goes on.")


if __name__ == "__main__":
    try:
        importlib.import_module(PACKAGE)
    except ModuleNotFoundError:
        install_attention_lab()
    else:
        print(f"{PACKAGE} is installed already: nothing to do")
