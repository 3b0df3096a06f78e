"""How a bare `pytest` differs from a chosen file.

`python -m pytest` (the README's test command, no paths) runs everything: the tests, and every
notebook re-executed under nbval, spread over one worker per core. Naming paths is the quick
lane: `python -m pytest tests/test_attention.py` runs just that file, in one process, in seconds.
"""

import atexit
import gc
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

# The lessons multiply small matrices: OpenBLAS's threads only fight over the cores (on 2 busy cores a
# 120-step training run took 0.7-1.4 s with threads against 0.1 s without). Set before any kernel or
# xdist worker starts, so that every notebook and test runs single-threaded BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# One numerical path on every x86-64 CPU (one OpenBLAS kernel, NumPy's AVX2 loops), the one the stored
# outputs were made with, so that nbval compares like with like on any CI machine: see tools/one_kernel.py.
# al.check keeps a student's record (attention_lab/records.py): the run's checks, in its tests and in
# its notebooks' kernels, go to a file of this run's own, never to the developer's record.
if "ATTENTION_LAB_PROGRESS" not in os.environ:
    _records = tempfile.mkdtemp(prefix="attention-lab-progress-")
    atexit.register(shutil.rmtree, _records, True)
    os.environ["ATTENTION_LAB_PROGRESS"] = os.path.join(_records, "progress.json")
# Expensive results (training runs, the real model's forward passes) are computed once per run and shared by
# its workers and kernels (attention_lab/run_memo.py): a fresh folder for each run, never an old one.
# A test that runs a lesson under a pytest of its own, inside this run, hands it this run's folder by setting
# ATTENTION_LAB_RUN_MEMO_OF_RUN to it (tests/test_model_faults.py); any other run starts a fresh one.
if "PYTEST_XDIST_WORKER" not in os.environ and not os.path.isdir(     # not handed over: a fresh folder
        (os.environ.get("ATTENTION_LAB_RUN_MEMO") or "")
        if os.environ.pop("ATTENTION_LAB_RUN_MEMO_OF_RUN", "") == os.environ.get("ATTENTION_LAB_RUN_MEMO")
        else ""):
    _memo = tempfile.mkdtemp(prefix="attention-lab-run-memo-")
    atexit.register(shutil.rmtree, _memo, True)
    os.environ["ATTENTION_LAB_RUN_MEMO"] = _memo
sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
import one_kernel
import suite_time

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
    if not config.option.numprocesses:
        # one worker per core: a third worker on 2 cores gave no gain (tools/suite_time.py, alternating
        # whole runs on one quiet machine: 548 and 543 s with 3 workers, 525 and 563 s with 2) and cost
        # 5 % more CPU seconds; the cores were busy 1.9 of 2 most of the run either way
        config.option.numprocesses = os.cpu_count() or 1
        config.option.dist = "loadfile"
        # the files in the order pytest_collection_modifyitems gives them (longest first), not xdist's own
        # (most tests first, which started the browser test at 269 s of 452 and ended on the hub's tests)
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    """The run is over: its garbage is collected once, and what the process still holds is frozen, so that the
    collections that follow (five in pytest's own unconfigure, more in Python's exit) do not walk it again.
    Each of them walked every object an xdist worker still held after its 2,000 tests: about 4 s per worker
    at the end of every run, both cores otherwise idle (perf: two thirds of the exit in gc_collect_main).
    Only in a process that ends with its run: a worker, or the README's bare run (mutmut runs pytest.main()
    again and again in one process, on named files)."""
    if hasattr(config, "workerinput") or config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        gc.collect()
        gc.freeze()


def process_tree_cpu() -> float:
    """CPU seconds (user + system) of this process, the children it has reaped, and every live descendant
    with the children each has reaped: a test's kernels, servers and browser count, while they run."""
    import resource
    used = sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))
    try:
        import psutil
    except ImportError:                 # without psutil (not a dependency): this process and its reaped ones
        return used
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue                    # gone between the listing and the reading: its parent has its time
        used += t.user + t.system + t.children_user + t.children_system
    return used


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """The CPU seconds a test file costs, from the set-up of its first test to the tear-down of its last, go
    into the JUnit report as the property `cpu_s` of its last test (tools/suite_time.py adds them up per
    file): worker seconds count the waits for a busy core too, CPU seconds what the file itself asked of the
    machine. (Read at the file's ends only: reading the process tree for every test cost a few CPU
    milliseconds each, 10-20 CPU seconds a run.) Each test's start (`start_s`, seconds since the epoch) and
    worker go in too: tools/suite_time.py shows what ran last."""
    if FILE_CPU.get("path") != item.path:               # the first test of a file (a stretch of one)
        FILE_CPU.update(path=item.path, start=process_tree_cpu())
    item.user_properties.append(("start_s", round(time.time(), 2)))   # when it began: the run's timeline
    item.user_properties.append(("worker", os.environ.get("PYTEST_XDIST_WORKER", "main")))
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    if FILE_CPU.get("path") == item.path and (nextitem is None or nextitem.path != item.path):
        item.user_properties.append(("cpu_s", round(process_tree_cpu() - FILE_CPU["start"], 3)))
        FILE_CPU.clear()                                # the file's last test: its CPU seconds, once


FILE_CPU: dict = {}          # the file whose tests this process runs now, and the CPU seconds at its start


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


class LeakSearch(pytest.Item):
    """After a lesson's last cell, in the kernel nbval ran it in: no exercise accepts a value the lesson has
    computed or printed (tests/exercise_leaks.py). The lesson is run once per test run, not once more for
    this search; tests/test_exercises_on_screen.py runs the same search in its own process when named."""

    def runtest(self):
        sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
        import exercise_leaks
        number = self.path.name[:2]
        kernel = self.parent.kernel
        if kernel is None or not kernel.is_alive():
            raise RuntimeError(f"lesson {number}'s kernel is not running: did an earlier cell stop it?")
        msg_id = kernel.execute_cell_input(exercise_leaks.kernel_code(number, self.path), allow_stdin=False)
        kernel.await_reply(msg_id, timeout=900)
        printed, errors = [], []
        while True:
            msg = kernel.get_message("iopub", timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                printed.append(content["text"])
            elif kind == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "status" and content["execution_state"] == "idle":
                break
        assert not errors, f"the search failed in lesson {number}'s kernel: {errors}"
        lines = [line for line in "".join(printed).splitlines() if line.startswith(exercise_leaks.MARK)]
        assert len(lines) == 1, f"the search printed no result: {''.join(printed)[:500]}"
        found = json.loads(lines[0][len(exercise_leaks.MARK):])
        assert found["exercises"] >= 3
        assert found["tried"] > 50          # the search really ran over the lesson's values
        assert not found["accepted"], f"lesson {number}: " + "\n".join(found["accepted"][:20])

    def reportinfo(self):
        return self.path, None, f"{self.path.name}: no exercise accepts an on-screen value"


def add_leak_searches(config, items) -> None:
    """A bare run, where nbval runs lessons 01-10: the leak search joins each, after its last cell, in its
    kernel; the same search in tests/test_exercises_on_screen.py (which would run the lesson again) is left
    out. Named paths run as named."""
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    last: dict = {}
    for i, item in enumerate(items):
        if type(item).__name__ == "IPyNbCell" and re.match(r"(0[1-9]|10)-", item.path.name):
            last[item.parent] = i
    moved = {f"test_no_exercise_accepts_an_on_screen_value[{nb.path.name[:2]}]" for nb in last}
    for nb, i in sorted(last.items(), key=lambda kv: -kv[1]):
        items.insert(i + 1, LeakSearch.from_parent(nb, name="no exercise accepts an on-screen value"))
    gone = [item for item in items if item.path.name == "test_exercises_on_screen.py" and item.name in moved]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [item for item in items if item not in gone]


def pytest_collection_modifyitems(config, items):
    """The files that take longest first (tools/longest_first.txt; the tests of a file keep their order), so
    that xdist's workers, each taking the next file when free, end the run together on short ones. Each
    lesson's leak search goes into its nbval run (above). Without their model file (offline, never fetched),
    lessons 08 and 09 are skipped, with the reason."""
    place = suite_time.longest_first()
    unlisted = len(place)
    items.sort(key=lambda item: place.get(Path(item.path).relative_to(config.rootpath).as_posix(), unlisted))
    add_leak_searches(config, items)
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
