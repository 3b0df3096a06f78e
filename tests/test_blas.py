"""blas.py: lessons 06-08 train and run their models with NumPy's BLAS on one thread. The thread
counts are read from threadpoolctl itself, around a limit of 2 threads set in the test."""

import ctypes
import ctypes.util
import importlib.util

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from attention_lab.blas import on_one_blas_thread


def blas_threads() -> list[int]:
    """The thread count of every BLAS library NumPy has loaded (as threadpoolctl reads it)."""
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def other_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] != "blas"]


def test_numpy_has_a_blas_to_limit():
    np.ones((2, 2)) @ np.ones((2, 2))
    assert blas_threads()


def a_fresh_copy_of_blas():
    """blas.py loaded anew, as on a lesson's first training step (no controller made yet), beside the
    package's own module: reloading that one in place would leave training.py and the others holding
    functions that are no longer blas.py's, which run_memo reads as a test's stand-in (sharing off for
    the rest of the process)."""
    spec = importlib.util.find_spec("attention_lab.blas")
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    return fresh


def test_one_blas_thread_inside_and_the_count_before_it_afterwards():
    fresh = a_fresh_copy_of_blas()
    with threadpool_limits(limits=2, user_api="blas"):
        assert set(blas_threads()) == {2}
        others = other_threads()
        for _ in range(2):                              # the second time with the controller already made
            with fresh.one_blas_thread():
                assert set(blas_threads()) == {1}
                assert other_threads() == others        # only BLAS: an OpenMP pool keeps its threads
            assert set(blas_threads()) == {2}


def test_a_decorated_function_runs_on_one_thread_with_its_arguments():
    @on_one_blas_thread
    def scaled(a, b, *, by):
        """a doc string"""
        return (a + b) * by, blas_threads()

    with threadpool_limits(limits=2, user_api="blas"):
        value, threads = scaled(1, 2, by=10)
        assert value == 30 and set(threads) == {1}
        assert set(blas_threads()) == {2}
    assert scaled.__name__ == "scaled" and scaled.__doc__ == "a doc string"


def openmp_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "openmp"]


def test_an_openmp_pool_beside_blas_keeps_its_threads():
    """NumPy here loads OpenBLAS and no OpenMP runtime, so a limit on every pool and a limit on BLAS alone
    look the same. A lesson run beside a library that loads one (PyTorch's or scikit-learn's libgomp) must
    keep that library's threads: GCC's OpenMP runtime is loaded here by hand (threadpoolctl finds the
    libraries a process has loaded), both pools are set to 2, and inside one_blas_thread() only BLAS drops
    to 1. The module is loaded afresh after the runtime, so that its controller sees it."""
    name = ctypes.util.find_library("gomp")
    assert name, "GCC's OpenMP runtime (libgomp, Debian's package libgomp1) is needed for this test"
    ctypes.CDLL(name)
    np.ones((2, 2)) @ np.ones((2, 2))
    fresh = a_fresh_copy_of_blas()
    with threadpool_limits(limits=2, user_api="blas"), threadpool_limits(limits=2, user_api="openmp"):
        assert openmp_threads() == [2] and set(blas_threads()) == {2}
        with fresh.one_blas_thread():
            assert set(blas_threads()) == {1}
            assert openmp_threads() == [2]
        assert openmp_threads() == [2] and set(blas_threads()) == {2}
