"""attention_lab/run_memo.py: a result computed once per test run and shared; never a stale or patched one."""

import dataclasses
import os
import pickle
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from test_heads_at_work import tiny_model

import attention_lab as al
from attention_lab import induction, run_memo
from attention_lab import real_model as rm
from attention_lab.checks import Exercise

ROOT = Path(__file__).resolve().parents[1]


def as_a_student_has_it(monkeypatch):
    """Under mutmut (tools/mutation.py), each mutated module of the package holds mutmut's decorator, a
    function from elsewhere, so `package_untouched()` is False and every result is computed afresh (which
    keeps mutmut's map of the tests that reach each function whole). Hidden here, for the tests of the
    sharing itself: the decorator is used only while a module loads. Outside mutmut, nothing is hidden."""
    for name, module in list(sys.modules.items()):
        if name.startswith("attention_lab.") and module is not None and hasattr(module, "_mutmut_mutated"):
            monkeypatch.delattr(module, "_mutmut_mutated")


@pytest.fixture
def memo(tmp_path, monkeypatch):
    """A run's folder of its own, empty."""
    monkeypatch.setenv(run_memo.ENV, str(tmp_path))
    as_a_student_has_it(monkeypatch)
    return tmp_path


def counted():
    calls = []

    def compute():
        calls.append(1)
        return {"weights": np.arange(3.0)}
    return calls, compute


def test_the_suite_runs_with_a_fresh_folder_of_its_own():
    where = run_memo.folder()
    assert where is not None and where.name.startswith("attention-lab-run-memo-")


def test_without_a_run_folder_every_call_computes(monkeypatch):
    monkeypatch.delenv(run_memo.ENV, raising=False)
    calls, compute = counted()
    run_memo.once("test", (1,), compute)
    run_memo.once("test", (1,), compute)
    assert len(calls) == 2


def test_in_a_run_the_first_call_computes_and_later_ones_read_it_back(memo):
    calls, compute = counted()
    first = run_memo.once("test", (1, "a"), compute)
    again = run_memo.once("test", (1, "a"), compute)
    other = run_memo.once("test", (2, "a"), compute)
    assert len(calls) == 2                                  # (1, "a") once, (2, "a") once
    assert np.array_equal(again["weights"], [0.0, 1.0, 2.0]) and np.array_equal(other["weights"], [0, 1, 2])
    again["weights"][0] = 99.0                              # a caller's change stays with that caller
    assert run_memo.once("test", (1, "a"), compute)["weights"][0] == 0.0 and first["weights"][0] == 0.0
    assert not list(memo.glob("*.part"))


def test_an_error_is_not_kept(memo):
    def fails():
        raise ValueError("no")
    with pytest.raises(ValueError):
        run_memo.once("test", (3,), fails)
    calls, compute = counted()
    run_memo.once("test", (3,), compute)
    assert calls == [1]


def test_a_result_that_cannot_be_kept_is_still_returned(memo):
    def unpicklable():
        return lambda: 7                                    # pickle cannot write a lambda
    assert run_memo.once("test", (5,), unpicklable)() == 7
    assert not list(memo.glob("*.pickle")) and not list(memo.glob("*.part"))


def test_a_patched_package_function_turns_sharing_off(memo, monkeypatch):
    calls, compute = counted()
    run_memo.once("test", (4,), compute)
    monkeypatch.setattr(induction, "induction_attention", lambda *a, **k: None)   # a test's stand-in
    assert not run_memo.package_untouched()
    run_memo.once("test", (4,), compute)
    monkeypatch.setattr(induction, "induction_attention", induction.induction_loss)   # another's function
    assert not run_memo.package_untouched()
    monkeypatch.undo()
    monkeypatch.setenv(run_memo.ENV, str(memo))
    as_a_student_has_it(monkeypatch)
    assert run_memo.package_untouched()
    run_memo.once("test", (4,), compute)
    assert len(calls) == 2                                  # computed while patched; read back after


def test_another_process_of_the_run_reads_the_result_back(memo):
    run = al.train_induction(al.InductionConfig(), steps=3, seed=5)
    out = memo / "w.npy"
    code = ("import sys, numpy as np, attention_lab as al\n"
            "np.random.default_rng = None          # training here would fail: the run is read back\n"
            "run = al.train_induction(al.InductionConfig(), steps=3, seed=5)\n"
            f"np.save({str(out)!r}, run.params['W_q1'])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(out), run.params["W_q1"])
    assert len(list(memo.glob("train_induction-*.pickle"))) == 1
    fresh = subprocess.run([sys.executable, "-c", code], env={**env, run_memo.ENV: str(memo / "none")},
                           capture_output=True, text=True, timeout=120)
    assert "TypeError" in fresh.stderr                      # without the run's folder it computes


def test_training_runs_are_the_same_read_back_or_computed(memo, monkeypatch):
    cfg = al.ModelConfig(task="largest")
    shared = [al.train(cfg, steps=5, batch=8, seed=3) for _ in range(2)]
    monkeypatch.delenv(run_memo.ENV)
    alone = al.train(cfg, steps=5, batch=8, seed=3)
    for run in shared:
        assert all(np.array_equal(run.params[k], alone.params[k]) for k in alone.params)
        assert np.array_equal(run.losses, alone.losses)
    assert len(list(memo.glob("train-*.pickle"))) == 1


def test_only_the_mapped_files_own_weights_are_shared(real_model):
    key = rm.shared_key(real_model)
    assert key is not None and key[0][0].endswith(".f32")
    blocks = list(real_model.blocks)
    blocks[3] = dataclasses.replace(blocks[3], W_q=blocks[3].W_k[:, :0])          # a weight swapped
    assert rm.shared_key(dataclasses.replace(real_model, blocks=blocks)) is None
    swapped = list(real_model.blocks)
    swapped[0], swapped[1] = swapped[1], swapped[0]                               # two blocks swapped
    assert rm.shared_key(dataclasses.replace(real_model, blocks=swapped)) is None
    assert rm.shared_key(dataclasses.replace(real_model, rope_base=1.0)) != key   # its numbers count too
    assert rm.shared_key(tiny_model()) is None                                    # weights in memory


def test_a_forward_read_back_is_the_computed_one(real_model, memo, monkeypatch):
    ids = np.array(rm.encode(real_model, "The capital of France is"))
    streams = []
    logits, weights = rm.forward_unchecked(real_model, ids, keep_weights=True, streams=streams)
    again_streams = []
    again, again_weights = rm.forward_unchecked(real_model, ids, keep_weights=True, streams=again_streams)
    assert len(list(memo.glob("forward-*.pickle"))) == 1
    computed_streams = []
    computed, computed_weights = rm.forward_computed(real_model, ids, None, True, streams=computed_streams)
    for got in (logits, again):
        assert np.array_equal(got, computed)
    for got in (weights, again_weights):
        assert all(np.array_equal(a, b) for a, b in zip(got, computed_weights, strict=True))
    for got in (streams, again_streams):
        assert all(np.array_equal(a, b) for a, b in zip(got, computed_streams, strict=True))
    knocked, _ = rm.forward_unchecked(real_model, ids, knock={16: [0]})              # another key: computed
    assert not np.array_equal(knocked, computed) and len(list(memo.glob("forward-*.pickle"))) == 2


def test_seeds_trained_together_share_each_run_with_a_seed_trained_alone(memo, monkeypatch):
    """train_induction_seeds keeps each seed's run under the key train_induction uses: a seed this run already
    has is read back (here a marked copy), the others are trained together, and each is the run alone."""
    cfg = al.InductionConfig()
    al.train_induction(cfg, steps=6, batch=4, seed=2)
    (kept,) = memo.glob("train_induction-*.pickle")
    marked = al.train_induction(cfg, steps=6, batch=4, seed=2)
    marked.losses[:] = -1.0                                          # what no training gives
    kept.write_bytes(pickle.dumps(marked))
    runs = al.train_induction_seeds(cfg, [1, 2, 3], steps=6, batch=4)
    assert (runs[1].losses == -1.0).all(), "seed 2 was trained again instead of read back"
    assert len(list(memo.glob("train_induction-*.pickle"))) == 3
    assert al.train_induction(cfg, steps=6, batch=4, seed=3).losses.tolist() == runs[2].losses.tolist()
    monkeypatch.delenv(run_memo.ENV)
    for seed, run in ((1, runs[0]), (3, runs[2])):
        alone = al.train_induction(cfg, steps=6, batch=4, seed=seed)
        assert np.array_equal(run.losses, alone.losses)
        assert all(np.array_equal(run.params[k], alone.params[k]) for k in alone.params)


# ---------- the quick lane's tests of run_memo (issue 46: each mutant of it must fail one of these) -------
def stand_in(home, qualname="stand_in"):
    """A function that says it comes from `home` (its __module__) under `qualname`."""
    def f():
        return None
    f.__module__, f.__qualname__ = home, qualname
    return f


def test_the_folder_is_the_named_one_only_while_it_exists(tmp_path, monkeypatch):
    monkeypatch.setenv(run_memo.ENV, str(tmp_path))
    assert run_memo.folder() == tmp_path
    for missing in (str(tmp_path / "gone"), ""):
        monkeypatch.setenv(run_memo.ENV, missing)
        assert run_memo.folder() is None
    monkeypatch.delenv(run_memo.ENV)
    assert run_memo.folder() is None
    assert run_memo.ENV == "ATTENTION_LAB_RUN_MEMO"            # the name conftest.py and the kernels pass on


LIBRARIES = ["numpy.linalg", "matplotlib.pyplot", "seaborn.matrix", "functools", "typing", "builtins",
             "dataclasses", "numbers", "math", "itertools", "contextlib"]


@pytest.mark.parametrize("home", LIBRARIES)
def test_a_librarys_function_in_the_package_is_not_a_stand_in(home, monkeypatch):
    """A function imported from a library (`from dataclasses import dataclass`) leaves sharing on; as the
    last name of a module, after its other names."""
    as_a_student_has_it(monkeypatch)
    monkeypatch.setattr(induction, "from_a_library", stand_in(home), raising=False)
    assert run_memo.package_untouched()


@pytest.mark.parametrize("home", ["test_run_memo", "builtins.extra", "mutmut.mutation.trampoline", None, ""])
def test_a_function_from_elsewhere_turns_sharing_off(home, monkeypatch):
    """A test's stand-in, put after every other name of a module (names that are not functions come first):
    its module is none of the libraries (no __module__ at all counts as elsewhere)."""
    as_a_student_has_it(monkeypatch)
    assert run_memo.package_untouched()
    monkeypatch.setattr(induction, "stand_in", stand_in(home), raising=False)
    assert not run_memo.package_untouched()


def test_a_package_function_must_be_its_own_modules_own(monkeypatch):
    """A function that claims a package module but is not the one defined there under its name; a module in
    sys.modules that failed to load (None) is passed over."""
    as_a_student_has_it(monkeypatch)
    monkeypatch.setitem(sys.modules, "attention_lab.failed_to_load", None)
    assert run_memo.package_untouched()
    unknown = stand_in("attention_lab.induction", "no_such_name")
    monkeypatch.setattr(induction, "stand_in", unknown, raising=False)
    assert not run_memo.package_untouched()
    monkeypatch.undo()
    as_a_student_has_it(monkeypatch)
    monkeypatch.setattr(induction, "another_name", induction.induction_loss, raising=False)   # an alias
    assert not run_memo.package_untouched()
    monkeypatch.undo()
    as_a_student_has_it(monkeypatch)
    evaluate = vars(Exercise)["evaluate"]            # a method, found through its class: the package's own
    assert evaluate.__qualname__ == "Exercise.evaluate"
    monkeypatch.setattr(induction, "evaluate", evaluate, raising=False)
    assert run_memo.package_untouched()


def test_the_package_files_are_each_source_files_size_and_time():
    here = Path(al.__file__).resolve().parent
    listed = run_memo.package_files()
    assert isinstance(listed, tuple)
    assert [Path(p) for p, _, _ in listed] == sorted(here.glob("*.py"))
    for path, size, mtime in listed:
        assert (size, mtime) == (Path(path).stat().st_size, Path(path).stat().st_mtime_ns)
    assert Path(run_memo.__file__).resolve() in [Path(p) for p, _, _ in listed]


def test_a_result_is_kept_under_its_name_key_package_and_mutant(memo, monkeypatch):
    """Each result's file is named by its name and 40 hex digits; another key, another copy of the package's
    files or another of mutmut's mutants gives another file, so none of them reads another's result."""
    calls, compute = counted()
    run_memo.once("kept", (1,), compute)
    (kept,) = memo.glob("*.pickle")
    stem = kept.stem
    assert stem.startswith("kept-") and len(stem) == len("kept-") + 40
    assert all(c in "0123456789abcdef" for c in stem[len("kept-"):])
    assert (memo / f"{stem}.lock").exists()
    assert run_memo.digest("kept", (1,)) == stem[len("kept-"):]
    names = {run_memo.digest("kept", (1,)), run_memo.digest("kept", (2,)), run_memo.digest("other", (1,))}
    assert len(names) == 3
    # the name of mutmut's mutant, seen by run_memo alone (mutmut reads it too, to switch its mutant on)
    environ = dict(os.environ)
    monkeypatch.setattr(run_memo, "os", types.SimpleNamespace(environ=environ, getpid=os.getpid))
    environ["MUTANT_UNDER_TEST"] = "attention_lab.training.x_train__mutmut_1"
    run_memo.once("kept", (1,), compute)
    environ["MUTANT_UNDER_TEST"] = "attention_lab.training.x_train__mutmut_2"
    run_memo.once("kept", (1,), compute)
    run_memo.once("kept", (1,), compute)                          # read back: this mutant has it now
    assert len(calls) == 3 and len(list(memo.glob("kept-*.pickle"))) == 3
    before = run_memo.digest("kept", (1,))
    monkeypatch.setattr(run_memo, "package_files", lambda: (("elsewhere/loop.py", 1, 2),))
    assert run_memo.digest("kept", (1,)) != before


def test_each_key_is_computed_once_and_the_others_read_back(memo):
    """once_each: the keys not yet kept are computed together, in their order; the kept ones are read back;
    a key named twice in one call takes its lock once (taking it twice would wait for ever)."""
    asked = []

    def compute(missing):
        asked.append(list(missing))
        return [f"result {i}" for i in missing]
    assert run_memo.once_each("each", [(1,), (2,)], compute) == ["result 0", "result 1"]
    assert run_memo.once_each("each", [(3,), (2,), (4,)], compute) == ["result 0", "result 1", "result 2"]
    assert asked == [[0, 1], [0, 2]]
    assert run_memo.once_each("each", [(5,), (5,)], compute) == ["result 0", "result 1"]
    assert asked[-1] == [0, 1] and len(list(memo.glob("each-*.pickle"))) == 5


def test_without_a_folder_or_a_writable_key_every_key_is_computed(memo, monkeypatch):
    asked = []

    def compute(missing):
        asked.append(list(missing))
        return list(missing)
    assert run_memo.once_each("none", [(1,), (lambda: 1,)], compute) == [0, 1]    # a key pickle cannot write
    assert asked == [[0, 1]] and not list(memo.iterdir())
    monkeypatch.delenv(run_memo.ENV)
    assert run_memo.once_each("none", [(1,), (2,), (3,)], compute) == [0, 1, 2]
    assert asked[-1] == [0, 1, 2]


def test_a_compute_that_returns_too_few_results_is_an_error(memo):
    """The results come back one per key, or not at all: a second key's result is never None."""
    with pytest.raises(ValueError):
        run_memo.once_each("few", [(1,), (2,)], lambda missing: ["only one"])
    assert run_memo.once_each("few", [(2,)], lambda missing: ["two"]) == ["two"]


class Watches:
    """A result that, while it is written, notes the files of its folder in `seen`."""
    def __init__(self, folder, seen):
        self.folder, self.seen = folder, seen

    def __reduce__(self):
        self.seen.append(sorted(p.name for p in Path(self.folder).iterdir()))
        return (str, ("watched",))


def test_a_result_is_written_whole_under_a_name_of_its_own_then_moved(memo):
    """keep writes into `<name>.<pid>.part` (a second process of the run writes its own) and then moves it
    to `<name>.pickle` in one step; where it cannot write (no such folder), it keeps nothing and no error."""
    seen = []
    target = memo / "w-0.pickle"
    run_memo.keep(target, Watches(memo, seen))
    assert seen == [[f"w-0.{os.getpid()}.part"]]
    assert sorted(p.name for p in memo.iterdir()) == ["w-0.pickle"]
    assert pickle.loads(target.read_bytes()) == "watched"
    run_memo.keep(memo / "no folder" / "w-1.pickle", 1)
    assert sorted(p.name for p in memo.iterdir()) == ["w-0.pickle"]


def test_a_patched_method_turns_sharing_off(monkeypatch):
    """Review 60: generate's result depends on Cache.append, a method. A test's stand-in on a class, another
    method under a method's name, a library's function or a property's swapped getter each turn sharing
    off; the class's own methods, a static method and a dataclass's made ones leave it on."""
    as_a_student_has_it(monkeypatch)
    assert run_memo.package_untouched() and run_memo.methods_untouched(rm.Cache)
    swaps = [("append", lambda self, *a: None), ("append", vars(rm.Cache)["__init__"]),
             ("append", stand_in("numpy", "dot")), ("extra", stand_in("attention_lab.real_model"))]
    for name, value in swaps:
        monkeypatch.setattr(rm.Cache, name, value, raising=False)
        assert not run_memo.package_untouched(), name
        monkeypatch.undo()
        as_a_student_has_it(monkeypatch)
    assert run_memo.package_untouched()

    class Held:
        @property
        def size(self):
            return 1

        @staticmethod
        def made():
            return 2
    Held.__module__ = Held.size.fget.__module__ = Held.made.__module__ = "attention_lab.real_model"
    Held.__qualname__ = "Held"
    Held.size.fget.__qualname__, Held.made.__qualname__ = "Held.size", "Held.made"
    assert run_memo.methods_untouched(Held)
    Held.size = property(lambda self: 3)                      # a getter from elsewhere
    assert not run_memo.methods_untouched(Held)
