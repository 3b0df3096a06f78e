"""How a bare `pytest` differs from a chosen file.

`python -m pytest` (the README's test command, no paths) runs everything: the tests, and every
notebook re-executed under nbval, spread over every core. Naming paths is the quick lane:
`python -m pytest tests/test_attention.py` runs just that file, in one process, in seconds.
"""

import os
import platform

import pytest

# The lessons multiply small matrices: OpenBLAS's threads only fight over the cores (on 2 busy cores a
# 120-step training run took 0.7-1.4 s with threads against 0.1 s without). Set before any kernel or
# xdist worker starts, so that every notebook and test runs single-threaded BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# OpenBLAS picks its kernels by CPU (Haswell, SkylakeX, Sandybridge, ...), and kernels round differently
# in the last bit. Lessons 06 and 07 train for hundreds of steps, which turns that last bit into a
# different second decimal (07's fixed-distance run, then 800 steps: 0.49 with Haswell kernels, 0.46 with
# Sandybridge, on one machine). One kernel everywhere, the one the stored outputs were made with (AVX, no
# FMA, on every x86-64 machine of the last decade), so nbval compares like with like on any such CI machine.
if platform.machine().lower() in ("x86_64", "amd64"):
    os.environ.setdefault("OPENBLAS_CORETYPE", "Sandybridge")


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
