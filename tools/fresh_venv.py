"""A fresh Python environment without attention_lab, as a JupyterHub that knows nothing of the course has:
used by tests/test_hub_link.py and tests/test_install_here.py.

Made in well under a second, with nothing downloaded: `python -m venv --without-pip`, plus a `.pth` line
that puts a folder of links to this environment's installed packages on its path. A path line in a `.pth`
file does not make Python read that folder's own `.pth` files, and the links leave out attention_lab (its
editable install is such a `.pth` file) and a few of its requirements (`LEFT_OUT`), which the lessons'
installer must then install with pip. JupyterLab and nbgitpuller come along, and find their data, settings
and server extensions through the usual JUPYTER_* variables (the environment variables returned).

`package_index` gives pip those left-out packages without a network (the suite also runs offline, in
tools/verify_binder.sh): each is packed back into a wheel from its files installed here, in a folder that
pip reads as its only index.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

LEFT_OUT = ("seaborn", "gguf")        # light, pure-Python requirements of attention_lab


def fresh_venv(dest: Path, left_out: tuple[str, ...] = LEFT_OUT) -> tuple[Path, dict[str, str]]:
    """Make the environment in `dest`; its python, and the environment variables to run it with (this
    process's, less PYTHONPATH, which would make attention_lab importable)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    python = dest / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = Path(sysconfig.get_paths(vars={"base": str(dest), "platbase": str(dest)})["purelib"])
    here = Path(sysconfig.get_paths()["purelib"])
    hidden = re.compile(rf"(attention_lab|__editable__|{'|'.join(left_out)})([-_.].*)?$|.*\.pth$", re.I)
    borrowed = dest / "borrowed-site-packages"
    borrowed.mkdir()
    for entry in here.iterdir():
        if not hidden.match(entry.name):
            (borrowed / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    (purelib / "borrowed.pth").write_text(f"{borrowed}\n", encoding="utf-8")
    share = Path(sys.prefix) / "share" / "jupyter"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"JUPYTER_PATH": str(share), "JUPYTERLAB_DIR": str(share / "lab"),
            "JUPYTER_CONFIG_PATH": str(Path(sys.prefix) / "etc" / "jupyter")}
    return python, env


def package_index(dest: Path, names: tuple[str, ...] = LEFT_OUT) -> dict[str, str]:
    """Wheels of the distributions `names`, packed from their files installed in this environment, in
    `dest`; the environment variables that make pip install from that folder alone (no index, no network,
    no configuration file)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        dist = importlib.metadata.distribution(name)
        wheel = dict(line.split(": ", 1) for line in dist.read_text("WHEEL").splitlines() if ": " in line)
        if wheel.get("Root-Is-Purelib") != "true":
            raise ValueError(f"{name} is not pure Python: its wheel cannot be packed back from its files")
        info = next(f.parent.as_posix() for f in dist.files if f.name == "METADATA")  # NAME-VERSION.dist-info
        added_by_pip = {f"{info}/{n}" for n in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")}
        record = []
        with zipfile.ZipFile(dest / f"{info.removesuffix('.dist-info')}-{wheel['Tag']}.whl", "w") as whl:
            for file in dist.files:
                path = file.as_posix()
                if path.startswith("..") or "__pycache__" in path or path in added_by_pip:
                    continue               # scripts (pip writes them again), bytecode, and what pip adds
                data = file.read_binary()
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                whl.writestr(path, data)
                record.append(f"{path},sha256={digest},{len(data)}")
            whl.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(dest), "PIP_CONFIG_FILE": os.devnull}
