"""The test run computes on one numerical path (tools/one_kernel.py), the one the stored outputs were made
with: on x86-64, OpenBLAS's Sandybridge kernel and NumPy's AVX2 loops, whatever the CPU offers."""

import platform
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import one_kernel

X86 = platform.machine().lower() in ("x86_64", "amd64")


@pytest.mark.skipif(not X86, reason="the pin is for x86-64 CPUs")
def test_numpy_runs_no_avx512_loop_here():
    from numpy._core._multiarray_umath import __cpu_features__
    for path in one_kernel.AVX512_PATHS_2_4.split():
        assert __cpu_features__.get(path, False) is False, path


@pytest.mark.skipif(not X86, reason="the pin is for x86-64 CPUs")
def test_openblas_runs_the_sandybridge_kernel_here():
    config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    if config.get("name") not in ("scipy-openblas", "openblas"):
        pytest.skip(f"NumPy's BLAS is {config.get('name')}, not OpenBLAS")
    from threadpoolctl import threadpool_info
    cores = {info.get("architecture") for info in threadpool_info() if info.get("internal_api") == "openblas"}
    assert cores == {"Sandybridge"}


def test_pin_sets_both_and_keeps_a_choice_already_made(monkeypatch):
    monkeypatch.setattr(one_kernel.platform, "machine", lambda: "x86_64")
    env = {}
    one_kernel.pin(env)
    assert env["OPENBLAS_CORETYPE"] == "Sandybridge"
    assert set(env["NPY_DISABLE_CPU_FEATURES"].split()) >= {"AVX512_ICL", "AVX512_SPR"}
    chosen = {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": ""}
    one_kernel.pin(chosen)
    assert chosen == {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": ""}
    monkeypatch.setattr(one_kernel.platform, "machine", lambda: "aarch64")
    other = {}
    one_kernel.pin(other)
    assert other == {}
