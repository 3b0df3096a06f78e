"""Lesson 05's claims about a draw: the RoPE figure's two corners (ROPE_SEED), as printed and as labelled.

The lesson's other draws (ORDER_SEED, TABLE_SEED, BLOCK_SEED) carry no claim that depends on the draw:
every assert after them is an identity (permutation equivariance, LayerNorm of a flat row, a silent
block), and the text quotes none of their numbers.
"""

from __future__ import annotations

import numpy as np

import attention_lab as al

SEED_NAMES = ("ROPE_SEED",)
SHOWN = (0, 4)                 # the lesson shows seed 0 and quotes seed 4's corners

CLAIMS = {
    "difference_shown": "the printed difference of the corners (offset +9 minus -9, 3 significant digits) "
                        "is not 0",
    "figure_corners_differ": "the figure's two corners (offset +9 and -9), labelled to one decimal, differ",
}


def measure(seed: int) -> dict[str, bool]:
    """Section 4's figure with ROPE_SEED = seed: one q and one k at every pair of positions 0-9."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    pos = np.arange(10)
    S = al.rope(np.tile(q, (10, 1)), pos) @ al.rope(np.tile(k, (10, 1)), pos).T
    return {"difference_shown": f"{S[0, 9] - S[9, 0]:+.3g}" not in ("+0", "-0"),
            "figure_corners_differ": f"{S[0, 9]:.1f}" != f"{S[9, 0]:.1f}"}
