"""Bridges to other conventions: column vectors (q = W x) and PyTorch's nn.Linear weight layout."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_matrix


def from_column_convention(W: ArrayLike) -> np.ndarray:
    """W of a column-vector text (q = W x) -> our row form (q = x @ W): the transpose."""
    return as_matrix(W, "W", "(d_out, d_in)").T


def from_torch_linear(weight: ArrayLike) -> np.ndarray:
    """nn.Linear.weight, shape (out_features, in_features) -> our (d_in, d_out): the transpose."""
    return as_matrix(weight, "weight", "(out_features, in_features)").T
