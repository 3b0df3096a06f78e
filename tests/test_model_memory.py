"""Lesson 08's weights as a memory-mapped float32 copy (issue 31): the same numbers as the file, a copy
written once and all or nothing, kept in memory where it cannot be written, and let go of after each run.

The expected numbers come from the tiny GGUF file of tests/test_real_model.py (its own writer and dequantizer,
and its plain float64 forward pass), not from the loader under test.
"""

import errno
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from attention_lab import real_model as rm

gguf = pytest.importorskip("gguf")
from test_real_model import (  # noqa: E402  (no_wait_left_behind: the same autouse fixture here)
    QUANTIZED,
    my_dequantize,
    no_wait_left_behind,  # noqa: F401
    reference_logits,
    tiny_weights,
    write_tiny,
)

IDS = [1, 40, 90, 7, 200, 33]


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """The tiny model's file, a fresh cache folder, and the numbers the file holds (dequantized here)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(cache))
    path = tmp_path / "tiny.gguf"
    weights = tiny_weights()
    raw = write_tiny(path, weights)
    stored = dict(weights)
    for name, q in raw.items():
        stored[name] = my_dequantize(q, QUANTIZED[name], weights[name].shape)
    return path, cache, stored


def copies(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_the_first_load_writes_a_copy_that_later_loads_map(tiny):
    path, cache, stored = tiny
    first = rm.load_model(path)
    assert first.mapping is not None
    names = copies(cache)
    assert [n.rsplit(".", 1)[1] for n in names] == ["f32", "json"] and not any("part" in n for n in names)
    weights = cache / names[0]
    assert weights.stat().st_size == 4 * sum(a.size for a in stored.values())   # every weight, float32
    again = rm.load_model(path)                     # from the copy alone: the GGUF reader is not needed
    np.testing.assert_allclose(rm.forward(again, IDS)[0], reference_logits(stored, IDS), atol=2e-4)
    np.testing.assert_array_equal(again.blocks[1].W_up, stored["blk.1.ffn_up.weight"].T)
    assert again.tokenizer.encode("the hell") == first.tokenizer.encode("the hell")
    assert again.vocab == first.vocab and again.formats == first.formats and again.eos_id == 2


def test_mapped_weights_are_read_only(tiny):
    model = rm.load_model(tiny[0])
    for array in (model.embedding, model.final_norm, model.blocks[0].W_q):
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.0


def test_a_copy_cut_short_is_written_again(tiny):
    path, cache, stored = tiny
    rm.load_model(path)
    weights = next(cache.glob("*.f32"))
    size = weights.stat().st_size
    with open(weights, "r+b") as f:
        f.truncate(size // 2)
    model = rm.load_model(path)
    assert weights.stat().st_size == size
    np.testing.assert_allclose(rm.forward(model, IDS)[0], reference_logits(stored, IDS), atol=2e-4)


def test_a_spoilt_header_is_written_again(tiny):
    path, cache, stored = tiny
    rm.load_model(path)
    header = next(cache.glob("*.json"))
    header.write_text('{"layout": [')
    model = rm.load_model(path)
    np.testing.assert_allclose(rm.forward(model, IDS)[0], reference_logits(stored, IDS), atol=2e-4)
    assert header.read_text().startswith("{") and len(header.read_text()) > 100


def test_a_changed_file_gets_a_fresh_copy_and_the_old_one_goes(tiny):
    path, cache, _ = tiny
    rm.load_model(path)
    old = copies(cache)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))   # the file replaced by another
    rm.load_model(path)
    new = copies(cache)
    assert len(new) == 2 and not set(old) & set(new)


def test_where_no_copy_can_be_written_the_weights_stay_in_memory(tiny, monkeypatch, tmp_path):
    path, _, stored = tiny
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(blocked / "cache"))   # cannot be created
    model = rm.load_model(path)
    assert model.mapping is None
    np.testing.assert_allclose(rm.forward(model, IDS)[0], reference_logits(stored, IDS), atol=2e-4)


def test_a_disk_that_fills_up_part_way_leaves_nothing_behind(tiny):
    path, cache, _ = tiny
    header, unpacked = rm.read_gguf(path)
    written = []

    def fills_up(name, kind):                       # the third array does not fit
        if len(written) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(name)
        return unpacked(name, kind)

    with pytest.raises(OSError, match="No space left"):
        rm.write_unpacked(rm.unpacked_path(path), header, fills_up)
    assert copies(cache) == []                      # no .part file, no half copy


def test_forward_keeps_the_weight_pages_in_a_loop_and_lets_go_when_idle(real_model, monkeypatch):
    monkeypatch.delenv("ATTENTION_LAB_RUN_MEMO", raising=False)   # every forward computed here, pages touched

    def resident_mb():
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    if real_model.mapping is None or not Path("/proc/self/status").exists():
        pytest.skip("the weights are not mapped here (no writable cache folder), or no /proc")
    ids = rm.encode(real_model, "The capital of France is")
    rm.forward_unchecked(real_model, np.array(ids), release=False)   # every weight page touched
    touched = resident_mb()
    rm.release_pages(real_model)
    released = resident_mb()
    assert touched - released > 400                 # of the 513 MB of weights
    monkeypatch.setattr(rm, "IDLE_S", 60.0)         # no pause here: the pages stay for the next pass
    logits, _ = rm.forward(real_model, ids)         # read again from the file cache: the same answer
    assert rm.decode(real_model, [int(logits[-1].argmax())]) == " Paris"
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    rm.forward(real_model, ids)                     # a loop's next pass finds every page in place
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults < 1000   # each pass let go: ~6000
    assert touched - resident_mb() < 100
    monkeypatch.setattr(rm, "IDLE_S", 0.05)
    rm.forward(real_model, ids)
    deadline = time.monotonic() + 20                # idle: the kernel lets go by itself
    while touched - resident_mb() <= 400 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert touched - resident_mb() > 400
    while id(real_model.mapping) in rm.idle_timers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert id(real_model.mapping) not in rm.idle_timers   # once let go, the model is not held on to


def test_a_run_holds_the_weight_pages_until_it_ends_even_by_an_error(real_model, monkeypatch):
    """A run longer than IDLE_S kept its pages only if no wait to let go of them ran during it: the wait a
    pass starts when it ends must stop when the next begins, and a run that fails must still start it."""
    monkeypatch.delenv("ATTENTION_LAB_RUN_MEMO", raising=False)   # every forward computed here
    if real_model.mapping is None:
        pytest.skip("the weights are not mapped here (no writable cache folder)")
    key, ids = id(real_model.mapping), rm.encode(real_model, "The capital of France is")
    monkeypatch.setattr(rm, "IDLE_S", 60.0)         # a wait that would let go part way through a long run
    rm.forward(real_model, ids)
    assert key in rm.idle_timers                    # idle after the pass: the wait has begun
    waiting, seen = [], []
    swiglu = rm.swiglu

    def spy(*args):                                 # in each block of the next pass: is a wait running?
        waiting.append(key in rm.idle_timers)
        return swiglu(*args)

    monkeypatch.setattr(rm, "swiglu", spy)
    rm.generate(real_model, ids, 2)                 # a run of three passes: one prompt, two new tokens
    assert len(waiting) == 3 * real_model.n_layers and not any(waiting)
    assert key in rm.idle_timers and key not in rm.runs_under_way    # ended: the wait starts again

    def fails(*args):
        seen.append(key in rm.idle_timers)
        if len(seen) == 3:
            raise MemoryError("a block that fails")
        return swiglu(*args)

    rm.idle_timers.pop(key).cancel()                # no wait left from before
    monkeypatch.setattr(rm, "swiglu", fails)
    with pytest.raises(MemoryError):
        rm.forward(real_model, ids)
    assert seen == [False] * 3 and key not in rm.runs_under_way
    assert key in rm.idle_timers                    # the failed run lets go too, once idle


def test_lesson_09s_calls_and_runs_within_runs_hold_the_pages_throughout(real_model, monkeypatch):
    """Lesson 09's calls are one run each, their clean run, unembedding and lens included (review 59: the
    wait left by the cell before let go part way through them); a run that ends inside another starts no
    wait while the outer one is under way."""
    monkeypatch.delenv("ATTENTION_LAB_RUN_MEMO", raising=False)   # every forward computed here
    if real_model.mapping is None:
        pytest.skip("the weights are not mapped here (no writable cache folder)")
    from attention_lab import heads_at_work as hw

    key, ids = id(real_model.mapping), rm.repeated_random_tokens(real_model, period=4, seed=0)
    monkeypatch.setattr(rm, "IDLE_S", 60.0)
    waiting: dict[str, list[bool]] = {}

    def spy(module, name):                          # at each call: is a wait to let go running?
        real = getattr(module, name)

        def watched(*args, **kwargs):
            waiting.setdefault(name, []).append(key in rm.idle_timers)
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, watched)

    for module, name in ((rm, "swiglu"), (hw, "swiglu"), (hw, "token_losses"), (hw, "rms_norm")):
        spy(module, name)
    for call in (lambda: hw.knockout_rows(real_model, ids, {"none": [], "one": [(16, 0)]}, 4, [(16, 0)]),
                 lambda: hw.logit_lens(real_model, ids)):
        rm.forward(real_model, ids)                 # the cell before leaves its wait
        assert key in rm.idle_timers
        waiting.clear()
        call()
        assert set(waiting) >= {"swiglu", "rms_norm"} and not any(map(any, waiting.values())), waiting
        assert key in rm.idle_timers                # and the call leaves its own
    with rm.PagesHeld(real_model):
        rm.forward(real_model, ids)                 # a run that ends inside another
        assert key not in rm.idle_timers and rm.runs_under_way[key] == 1
    assert key in rm.idle_timers and key not in rm.runs_under_way


# A fresh kernel's passes of 256 tokens, as a kernel that runs only long texts: the minor page faults of
# filling an array the size of their logits, and of each pass (the first touches the weights and every
# array for the first time), and the resident memory (MB) after the load, during the passes, and once idle.
FRESH_PASSES = r"""
import json, resource, sys
from pathlib import Path
import numpy as np
from attention_lab import real_model as rm

def resident_mb():
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
    return int(line.split()[1]) / 1024

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

model = rm.load_model(fetch=False)
ids, passes, rest = np.arange(1000, 1256), [], resident_mb()
logits = np.empty((256, len(model.embedding)), np.float32)
before = faults()
logits[:] = 1.0                                 # mapped afresh each pass: 2 MB pages where Linux gives them
logits_faults = faults() - before
del logits
for _ in range(3):
    before = faults()
    rm.forward_computed(model, ids, release=False)
    passes.append(faults() - before)
busy = resident_mb()
rm.release_pages(model)
print(json.dumps({"logits": logits_faults, "passes": passes, "mapped": model.mapping is not None,
                  "rest": rest, "busy": busy, "idle": resident_mb()}))
"""


def test_a_pass_reuses_the_last_ones_memory_and_an_idle_kernel_gives_it_back(real_model):
    """A kernel whose passes were all of 256 tokens shrank and grew its heap again for every block's arrays
    (glibc's own setting: 48,136 minor page faults a pass here, measured; a sixth of its time with two
    threads). Now the heap keeps up to 16 MB for the next pass (reuse_freed_memory): only the logits
    (48 MiB) come afresh. The memory kept goes back once the model is idle (release_pages), as the weight
    pages do (review 65: without the trim, 11 MB more at rest)."""
    if rm.glibc() is None or not Path("/proc/self/status").exists():
        pytest.skip("glibc's allocator is not in use here (not Linux with glibc)")
    run = subprocess.run([sys.executable, "-c", FRESH_PASSES], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["passes"][0] > 1000                               # the first pass: all for the first time
    assert max(got["passes"][1:]) < got["logits"] + 2000, got    # then the logits only: glibc's own, 48,136
    assert got["busy"] - got["rest"] > 400 or not got["mapped"]  # the weights and the arrays kept, while busy
    assert got["idle"] - got["rest"] < 5, got                    # idle: both given back


@pytest.mark.parametrize("refused", [OSError(22, "Invalid argument"), ValueError("unrecognized name")])
def test_without_glibc_the_allocator_is_left_alone(monkeypatch, refused):
    """musl lists CS_GNU_LIBC_VERSION but refuses it (OSError), macOS has no such name (ValueError), Windows
    no confstr at all: glibc() says None there, so that reuse_freed_memory and release_pages leave the
    allocator alone (review 65: the OSError stopped load_model on musl)."""
    def confstr(name):
        raise refused

    monkeypatch.setattr(os, "confstr", confstr)
    assert rm.glibc.__wrapped__() is None                        # (glibc itself: the answer is cached)
    monkeypatch.delattr(os, "confstr")
    assert rm.glibc.__wrapped__() is None
