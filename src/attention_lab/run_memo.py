"""Results computed once per test run and shared by all of its processes (the suite's, never a student's).

The test suite (conftest.py) makes a fresh, empty folder for each run, names it in the environment variable
ATTENTION_LAB_RUN_MEMO, and deletes it when the run ends. Its workers, and the kernels that nbval and the
browser test start, inherit the name; so do the students' kernels of the class test's hub (tools/class_load.py
hands it to them) and a pytest that a test starts inside the run (given ATTENTION_LAB_RUN_MEMO_OF_RUN).
Then an expensive, deterministic result (a training run, a forward pass of the real model) is computed by
the first process that asks for it, under a lock, and read back by every later one: lesson 09's forward
passes run once per test run, not once in nbval's kernel, once in the browser's and once more in each test
file. Results never outlive the run, so a stale one cannot pass a test.

Without the variable (a student's kernel, a hub) `once` just computes. It also computes, and keeps nothing,
when any function of the package has been swapped in this process (a test's monkeypatch, an injected bug):
a result is only shared when the package's own code made it. A copy of the package elsewhere (or a file
changed during the run) and each of mutmut's mutants have results of their own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ENV = "ATTENTION_LAB_RUN_MEMO"
T = TypeVar("T")


def folder() -> Path | None:
    """This run's folder of shared results, or None outside a test run."""
    where = os.environ.get(ENV)
    return Path(where) if where and Path(where).is_dir() else None


def package_untouched() -> bool:
    """Is every function in the namespaces of the package's loaded modules the package's own, in its place?"""
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("attention_lab.") or module is None:
            continue
        for name, value in list(vars(module).items()):
            if isinstance(value, type) and value.__module__ == module_name and not methods_untouched(value):
                return False          # a method of one of the module's classes swapped (review 60)
            if not isinstance(value, types.FunctionType):
                continue
            home = value.__module__ or ""
            if not home.startswith("attention_lab"):
                if home.startswith(("numpy", "matplotlib", "seaborn", "functools", "typing")) or \
                        home in ("builtins", "dataclasses", "numbers", "math", "itertools", "contextlib"):
                    continue          # imported from a library, e.g. `from numpy.typing import ...`
                return False          # a function from elsewhere: a test's stand-in
            found = sys.modules.get(home)
            for part in value.__qualname__.split("."):
                found = getattr(found, part, None)
            if found is not value:    # not the function its own module defines under that name
                return False
            if home == module_name and name != value.__name__ and "<" not in value.__qualname__:
                return False          # one of the module's functions put under another's name
    return True


def methods_untouched(holder: type) -> bool:
    """Is every function that the class `holder` itself holds (a method, a static or class method, a
    property's getter) one of the package's, defined in that class under that name?"""
    for name, attr in list(vars(holder).items()):
        for fn in (getattr(attr, "__func__", attr), getattr(attr, "fget", None)):
            if not isinstance(fn, types.FunctionType):
                continue
            if not (fn.__module__ or "").startswith("attention_lab"):
                return False          # a test's stand-in, or a library's function put on the class
            if "<" not in fn.__qualname__ and fn.__qualname__ != f"{holder.__qualname__}.{name}":
                return False          # another method (or another class's) under this name
    return True


def package_files() -> tuple:
    """The package's source files as this process loaded them: (path, size, time) of each."""
    here = Path(__file__).resolve().parent
    return tuple((str(f), (s := f.stat()).st_size, s.st_mtime_ns) for f in sorted(here.glob("*.py")))


def once_each(name: str, keys: list, compute: Callable[[list[int]], list[T]]) -> list[T]:
    """One result per key, each shared as `once` shares it: the keys this run already has are read back,
    and compute(indices) makes the others together (e.g. seeds trained side by side), in that order."""
    where = folder()
    if where is None or not package_untouched():
        return compute(list(range(len(keys))))
    try:
        paths = [where / f"{name}-{digest(name, key)}.pickle" for key in keys]
    except (pickle.PicklingError, TypeError, AttributeError):
        return compute(list(range(len(keys))))    # a key that cannot be written down is not shared
    import fcntl  # POSIX: the test run's platform (a student never gets here)

    with contextlib.ExitStack() as held:
        for path in sorted(set(paths)):            # in one order, so that two askers never wait on each other
            lock = held.enter_context(open(path.with_suffix(".lock"), "a"))
            fcntl.flock(lock, fcntl.LOCK_EX)       # a later asker waits for the first one's results
        results: list = [None] * len(keys)
        missing = []
        for i, path in enumerate(paths):
            if path.exists():
                with open(path, "rb") as f:
                    results[i] = pickle.load(f)
            else:
                missing.append(i)
        if missing:
            for i, result in zip(missing, compute(missing), strict=True):
                results[i] = result
                keep(paths[i], result)
        return results


def digest(name: str, key: tuple) -> str:
    """The file name of a result: its name, its key, the package's files and mutmut's mutant."""
    blob = pickle.dumps((name, key, package_files(), os.environ.get("MUTANT_UNDER_TEST")), protocol=5)
    return hashlib.sha256(blob).hexdigest()[:40]


def keep(path: Path, result) -> None:
    """Write a result where later askers read it (whole or not at all)."""
    part = path.with_suffix(f".{os.getpid()}.part")
    try:
        with open(part, "wb") as f:
            pickle.dump(result, f, protocol=5)
        part.replace(path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):   # a full disk, an odd result:
        part.unlink(missing_ok=True)                                    # the next asker computes it


def once(name: str, key: tuple, compute: Callable[[], T]) -> T:
    """compute() for this name and key: run once per test run and shared (see the module's docstring)."""
    return once_each(name, [key], lambda missing: [compute()])[0]
