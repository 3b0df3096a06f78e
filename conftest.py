"""How a bare `pytest` differs from a chosen file.

`python -m pytest` (the README's test command, no paths) runs everything: the tests, and every
notebook re-executed under nbval, spread over every core. Naming paths is the quick lane:
`python -m pytest tests/test_attention.py` runs just that file, in one process, in seconds.
"""

import os
import sys
from pathlib import Path

import pytest

# The lessons multiply small matrices: OpenBLAS's threads only fight over the cores (on 2 busy cores a
# 120-step training run took 0.7-1.4 s with threads against 0.1 s without). Set before any kernel or
# xdist worker starts, so that every notebook and test runs single-threaded BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# One numerical path on every x86-64 CPU (one OpenBLAS kernel, NumPy's AVX2 loops), the one the stored
# outputs were made with, so that nbval compares like with like on any CI machine: see tools/one_kernel.py.
sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
import one_kernel

one_kernel.pin()
# Both settings are read when NumPy loads. pytest runs this file again on each pytest.main() in one
# process (mutmut does, tools/mutation.py): what counts is whether NumPy was loaded before the first run.
if one_kernel.pinned_before_numpy is None:
    one_kernel.pinned_before_numpy = "numpy" not in sys.modules
if not one_kernel.pinned_before_numpy:
    raise RuntimeError("NumPy was imported before conftest.py could pin its CPU path (a pytest plugin?)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return   # paths were named: run just those (a notebook path still needs --nbval)
    config.option.nbval = True
    if hasattr(config, "workerinput"):
        return   # an xdist worker runs this hook too: it must not start workers of its own
    if not config.option.numprocesses:     # one worker per core; a notebook or the browser per worker
        config.option.numprocesses = "auto"
        config.option.dist = "loadfile"


LESSON_08 = "08-inside-a-real-language-model.ipynb"
MODEL_LESSONS = (LESSON_08, "09-heads-at-work.ipynb")      # the lessons that run the real model


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Lessons 08 and 09's model file (98 MB): fetched once, before any worker starts, if they will run."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "nbval", False):
        return
    from attention_lab import real_model
    try:
        real_model.find_model()
    except real_model.ModelUnavailable as exc:
        print(f"\nlessons 08 and 09 will be skipped: {str(exc).splitlines()[0]}")


def pytest_collection_modifyitems(config, items):
    """Without their model file (offline, never fetched), lessons 08 and 09 are skipped, with the reason."""
    lesson = [item for item in items if any(name in str(item.path) for name in MODEL_LESSONS)]
    if not lesson:
        return
    from attention_lab import real_model
    try:
        real_model.find_model(fetch=False)
    except real_model.ModelUnavailable as exc:
        for item in lesson:
            name = next(name for name in MODEL_LESSONS if name in str(item.path))
            item.add_marker(pytest.mark.skip(reason=f"{name}: {str(exc).splitlines()[0]}"))
