"""The size of a set of packages and everything they need, in the environment that runs this script.

    python tools/image_size.py jupyterlab numpy ...        # the named packages
    python tools/image_size.py -r binder/requirements.txt  # a requirements file's packages

Each distribution counts once, with the files its installer recorded (RECORD: code, data, compiled .pyc,
scripts), in whole 4-KiB blocks as `du` counts them; pip counts too, as every venv holds it. So one
environment answers for any set of its packages: tools/verify_binder.sh measures the bare runtime and the
student image in the environment it builds anyway, instead of installing each into a venv of its own.
Prints the size in MB (MiB, as `du -m`), then the distributions counted.
"""

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

BLOCK = 4096


def canonical(name: str) -> str:
    """A distribution name as pip compares them: lower case, runs of -_. as one -."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(path: Path) -> list[str]:
    """The distributions a requirements file names (pins, comments and options dropped; `-e .` is the
    project of the file's repository, read from its pyproject.toml)."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line in ("-e .", "."):
            project = (path.resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
            names.append(re.search(r'^name\s*=\s*"([^"]+)"', project, re.M).group(1))
        elif line and not line.startswith("-"):
            names.append(re.split(r"[\s<>=!~;\[]", line, maxsplit=1)[0])
    return names


def closure(names: list[str]) -> dict[str, metadata.Distribution]:
    """Every installed distribution the named ones need, themselves included (markers evaluated here,
    no extras). A name that is not installed is an error: the size would be too small."""
    from packaging.requirements import Requirement
    found: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = canonical(todo.pop())
        if name in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{name} is not installed in {sys.prefix}: cannot measure it") from None
        found[name] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return found


def size_bytes(dists) -> int:
    """The recorded files of the distributions, each rounded up to whole blocks, each file once."""
    seen, total = set(), 0
    for dist in dists:
        for f in dist.files or []:
            path = Path(dist.locate_file(f)).resolve()
            if path in seen or not path.is_file():
                continue
            seen.add(path)
            total += -(-path.stat().st_size // BLOCK) * BLOCK
    return total


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="distributions to measure")
    parser.add_argument("-r", "--requirements", type=Path, help="a requirements file to measure")
    args = parser.parse_args(argv)
    names = [*args.names, *(requirement_names(args.requirements) if args.requirements else [])]
    if not names:
        parser.error("name packages or a requirements file")
    dists = closure([*names, "pip"])
    print(round(size_bytes(dists.values()) / 2**20))
    print(" ".join(sorted(dists)))


if __name__ == "__main__":
    main()
