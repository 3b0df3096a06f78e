"""One numerical path on every x86-64 CPU, for the stored outputs and the tests (no NumPy imported here:
both settings are read when NumPy loads, so they must be set before).

Lessons 06 and 07 train for hundreds of steps, which turns a last-bit difference into a different second
decimal. Two things pick code by CPU:
- OpenBLAS picks its kernels (Haswell, SkylakeX, Sandybridge, ...), and kernels round differently: 07's
  fixed-distance run, 800 steps, printed 0.49 with Haswell kernels and 0.46 with Sandybridge on one
  machine. OPENBLAS_CORETYPE=Sandybridge (AVX, no FMA) is the one the stored outputs were made with.
- NumPy's own loops (exp, log, sums) have AVX-512 versions that round differently from the AVX2 ones: on
  an AVX-512 machine, 07's run of 1200 steps printed 0.49 and 3.79 where the pinned path (AVX2 loops)
  printed 0.47 and 3.85, on the fixed-distance data of that time. NPY_DISABLE_CPU_FEATURES switches the
  AVX-512 versions off.
"""

from __future__ import annotations

import os
import platform
from importlib.metadata import PackageNotFoundError, version

# NumPy's names for its AVX-512 code paths (what it may dispatch to above AVX2), by release
AVX512_PATHS_2_4 = "X86_V4 AVX512_ICL AVX512_SPR"
AVX512_PATHS_OLDER = ("AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL "
                      "AVX512_SPR")

# Set by conftest.py at the first pytest run of a process: was NumPy still unloaded then (pinned in time)?
# pytest runs conftest.py again on each pytest.main() in one process; this module stays loaded.
pinned_before_numpy: bool | None = None


def numpy_release() -> tuple[int, int]:
    """(major, minor) of the installed NumPy, read from its metadata (NumPy is not imported)."""
    try:
        major, minor = version("numpy").split(".")[:2]
        return int(major), int(minor)
    except (PackageNotFoundError, ValueError):
        return (0, 0)


def pin(environ=os.environ) -> None:
    """Set one BLAS kernel and NumPy's AVX2 loops in `environ`, unless the caller chose otherwise."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    environ.setdefault("OPENBLAS_CORETYPE", "Sandybridge")
    paths = AVX512_PATHS_2_4 if numpy_release() >= (2, 4) else AVX512_PATHS_OLDER
    environ.setdefault("NPY_DISABLE_CPU_FEATURES", paths)
