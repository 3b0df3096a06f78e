"""Shared by lessons 06-08: NumPy's BLAS on one thread while a lesson trains or runs its model.

The lessons multiply small matrices (a batch of 8-16 tokens of width 32; one row at a time through
SmolLM2). Extra BLAS threads then only wait for a core: on two busy cores a lesson-06 training step took
7.6 ms with OpenBLAS's threads and 0.7 ms on one (tools/benchmark_training.py), and lesson 08's
generation ran at 4.5 tokens/s against 31 (tools/benchmark_real_model.py). A Binder session, with its
CPU quota, behaves the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)
_CONTROLLER: list = []     # threadpoolctl's controller, made on first use (it inspects the loaded libraries)


def one_blas_thread():
    """A context in which NumPy's BLAS uses one thread (restored afterwards)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def on_one_blas_thread(fn: F) -> F:
    """Decorator: run `fn` inside one_blas_thread()."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with one_blas_thread():
            return fn(*args, **kwargs)
    return wrapper
