"""attention_lab/run_memo.py: a result computed once per test run and shared; never a stale or patched one."""

import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_heads_at_work import tiny_model

import attention_lab as al
from attention_lab import induction, run_memo
from attention_lab import real_model as rm

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def memo(tmp_path, monkeypatch):
    """A run's folder of its own, empty."""
    monkeypatch.setenv(run_memo.ENV, str(tmp_path))
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
