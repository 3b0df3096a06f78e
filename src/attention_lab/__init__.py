"""attention_lab: the shared code of the lessons 'Attention, step by step'.

Row convention everywhere: a sequence is an (n, d) array, one token per row, and Q = X @ W_q.
Lesson -> module: 01 loop, 02 matrix (+ experiments), 03 heads, 04 masks, 05 positions (+ decoding),
07 sources; examples, plots, explorers (built on explorer_kit), checks, exercises and notation serve
every lesson.
"""

from .decoding import (
    BlockWeights,
    KVCache,
    decode_with_cache,
    decoding_cost,
    embed,
    feed_forward,
    generate,
    layer_norm,
    transformer_block,
)
from .examples import (
    HeadsSentence,
    PatternDecoder,
    Sentence,
    Translation,
    cats_chase_mice,
    it_was_tired,
    pattern_decoder,
    the_cat_sat,
    translation,
)
from .exercises import EXERCISES, check
from .experiments import scaling_experiment, score_matrix_bytes, time_forms
from .explorers import (
    cross_explorer,
    dk_explorer,
    heads_explorer,
    matrix_explorer,
    position_explorer,
    token_explorer,
)
from .heads import concat_heads, multi_head_attention, split_heads, split_weights
from .loop import attend_one
from .masks import DecoderStep, causal_mask, cross_attention, decoder_step, padding_mask
from .matrix import project, scaled_dot_product_attention, self_attention, softmax
from .notation import from_column_convention, from_torch_linear
from .plots import (
    ROLE_COLORS,
    WEIGHTS_CMAP,
    heatmap,
    heatmap_row,
    plot_block,
    plot_cost,
    plot_decoding_cost,
    plot_encoder_decoder,
    plot_flow,
    plot_heads,
    plot_scaling,
    plot_shapes,
    role_legend,
)
from .positions import add_positions, rope, sinusoidal_positions
from .sources import (
    ORIGINS,
    printout_problems,
    source_000,
    source_001,
    source_002,
    source_003,
    source_004,
)

__version__ = "0.2.0"

__all__ = [
    "EXERCISES",
    "ORIGINS",
    "ROLE_COLORS",
    "WEIGHTS_CMAP",
    "BlockWeights",
    "DecoderStep",
    "HeadsSentence",
    "KVCache",
    "PatternDecoder",
    "Sentence",
    "Translation",
    "add_positions",
    "attend_one",
    "cats_chase_mice",
    "causal_mask",
    "check",
    "concat_heads",
    "cross_attention",
    "cross_explorer",
    "decode_with_cache",
    "decoder_step",
    "decoding_cost",
    "dk_explorer",
    "embed",
    "feed_forward",
    "from_column_convention",
    "from_torch_linear",
    "generate",
    "heads_explorer",
    "heatmap",
    "heatmap_row",
    "it_was_tired",
    "layer_norm",
    "matrix_explorer",
    "multi_head_attention",
    "padding_mask",
    "pattern_decoder",
    "plot_block",
    "plot_cost",
    "plot_decoding_cost",
    "plot_encoder_decoder",
    "plot_flow",
    "plot_heads",
    "plot_scaling",
    "plot_shapes",
    "position_explorer",
    "printout_problems",
    "project",
    "role_legend",
    "rope",
    "scaled_dot_product_attention",
    "scaling_experiment",
    "score_matrix_bytes",
    "self_attention",
    "sinusoidal_positions",
    "softmax",
    "source_000",
    "source_001",
    "source_002",
    "source_003",
    "source_004",
    "split_heads",
    "split_weights",
    "the_cat_sat",
    "time_forms",
    "token_explorer",
    "transformer_block",
    "translation",
]
