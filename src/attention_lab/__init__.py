"""attention_lab: the shared code of the lessons 'Attention, step by step'.

Row convention everywhere: a sequence is an (n, d) array, one token per row, and Q = X @ W_q.
Lesson -> module: 01 loop, 02 matrix, 03 heads, 04 masks; plots, explorers and checks serve all.
"""

from .checks import EXERCISES, check
from .examples import cats_chase_mice
from .experiments import scaling_experiment, score_matrix_bytes, time_forms
from .explorers import (
    Control,
    Explorer,
    Panel,
    demo_explorers,
    dk_explorer,
    matrix_explorer,
    token_explorer,
)
from .heads import head_width, multi_head_attention, split_heads
from .loop import attend_one
from .masks import causal_mask, cross_attention, padding_mask
from .matrix import project, scaled_dot_product_attention, self_attention, softmax
from .notation import from_column_convention, from_torch_linear
from .plots import (
    ROLE_COLORS,
    WEIGHTS_CMAP,
    heatmap,
    heatmap_row,
    plot_cost,
    plot_scaling,
    role_cmap,
    subscript,
    update_heatmap,
)
from .sources import ORIGINS, source_000, source_001, source_002, source_003, source_004

__version__ = "0.1.0"

__all__ = [
    "EXERCISES", "ORIGINS", "ROLE_COLORS", "WEIGHTS_CMAP", "Control", "Explorer", "Panel",
    "attend_one", "cats_chase_mice", "causal_mask", "check", "cross_attention", "demo_explorers",
    "dk_explorer", "from_column_convention", "from_torch_linear", "head_width", "heatmap", "heatmap_row",
    "matrix_explorer", "multi_head_attention", "padding_mask", "plot_cost", "plot_scaling",
    "project", "role_cmap", "scaled_dot_product_attention", "scaling_experiment",
    "score_matrix_bytes", "self_attention", "softmax", "source_000", "source_001", "source_002",
    "source_003", "source_004", "split_heads", "subscript", "time_forms", "token_explorer",
    "update_heatmap",
]
