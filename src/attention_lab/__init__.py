"""attention_lab: the shared code of the lessons 'Attention, step by step'.

Row convention everywhere: a sequence is an (n, d) array, one token per row, and Q = X @ W_q.
Lesson -> module: 01 loop, 02 matrix (+ experiments), 03 heads, 04 masks, 05 positions (+ decoding),
06 training (+ training_plots), 07 induction (+ exercises_07), 10 sources (appendix); examples, plots,
explorers (built on explorer_kit; both draw with heatmaps), checks, exercises and notation serve every
lesson. The picture and explorer modules (and with them matplotlib, seaborn and ipywidgets) are
imported on first use of one of their names.
"""

import importlib

from . import alt_text
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
from .exercises import EXERCISES, check, progress
from .experiments import saturation_experiment, scaling_experiment, score_matrix_bytes, time_forms
from .heads import concat_heads, multi_head_attention, split_heads, split_weights
from .induction import (
    InductionConfig,
    InductionRun,
    hardest_keys,
    head_scores,
    induction_attention,
    induction_explorer,
    induction_loss,
    induction_loss_and_grads,
    init_induction,
    letters,
    on_this_run,
    phase_change,
    repeated_batch,
    train_induction,
    train_induction_seeds,
)
from .loop import attend_one
from .masks import DecoderStep, causal_mask, cross_attention, decoder_step, padding_mask
from .matrix import project, scaled_dot_product_attention, self_attention, softmax
from .notation import from_column_convention, from_torch_linear
from .positions import add_positions, rope, sinusoidal_positions
from .sources import (
    SourceAttention,
    SourceEncoderDecoder,
    SourceTorchLayout,
    printout_problems,
    rounding_limit,
    source_000,
    source_001,
    source_002,
    source_003,
    source_004,
)
from .training import (
    PARAMS,
    ModelConfig,
    Run,
    accuracy,
    attention_backward,
    commonest_of_others,
    commonest_other_baseline,
    commonest_token_baseline,
    counting_baseline,
    init_params,
    largest_digit,
    loss_and_grads,
    loss_of,
    numerical_gradient,
    predict,
    relative_change,
    relative_error,
    task_batch,
    train,
    train_seeds,
)

__version__ = "0.2.0"

# In a notebook, every figure is shown with alt text that says what it shows (alt_text.py).
alt_text.install()

# The pictures and explorers need matplotlib, seaborn and ipywidgets (about half a second to
# import): their names are loaded on first use (PEP 562), so `import attention_lab` stays quick.
_LAZY = {
    "explorers": ("cross_explorer", "dk_explorer", "heads_explorer", "matrix_explorer",
                  "position_explorer", "token_explorer", "training_explorer"),
    "heatmaps": ("ROLE_COLORS", "WEIGHTS_CMAP", "heatmap", "heatmap_row", "role_legend"),
    "plots": ("plot_block", "plot_cost", "plot_decoding_cost", "plot_encoder_decoder", "plot_flow",
              "plot_heads", "plot_scaling", "plot_shapes"),
    "training_plots": ("plot_learning_curve", "plot_model_flow", "plot_saturation"),
}
_LAZY_HOME = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str):
    """A picture or explorer name, or the module holding them, imported on first use."""
    if name in _LAZY or name == "explorer_kit":
        return importlib.import_module(f"{__name__}.{name}")
    if name not in _LAZY_HOME:
        # not an input check: Python's protocol for a missing module attribute (kept here)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY_HOME[name]}"), name)
    globals()[name] = value     # later look-ups do not come here again
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_HOME})


__all__ = [
    "EXERCISES",
    "PARAMS",
    "ROLE_COLORS",
    "WEIGHTS_CMAP",
    "BlockWeights",
    "DecoderStep",
    "HeadsSentence",
    "InductionConfig",
    "InductionRun",
    "KVCache",
    "ModelConfig",
    "PatternDecoder",
    "Run",
    "Sentence",
    "SourceAttention",
    "SourceEncoderDecoder",
    "SourceTorchLayout",
    "Translation",
    "accuracy",
    "add_positions",
    "attend_one",
    "attention_backward",
    "cats_chase_mice",
    "causal_mask",
    "check",
    "commonest_of_others",
    "commonest_other_baseline",
    "commonest_token_baseline",
    "concat_heads",
    "counting_baseline",
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
    "hardest_keys",
    "head_scores",
    "heads_explorer",
    "heatmap",
    "heatmap_row",
    "induction_attention",
    "induction_explorer",
    "induction_loss",
    "induction_loss_and_grads",
    "init_induction",
    "init_params",
    "it_was_tired",
    "largest_digit",
    "layer_norm",
    "letters",
    "loss_and_grads",
    "loss_of",
    "matrix_explorer",
    "multi_head_attention",
    "numerical_gradient",
    "on_this_run",
    "padding_mask",
    "pattern_decoder",
    "phase_change",
    "plot_block",
    "plot_cost",
    "plot_decoding_cost",
    "plot_encoder_decoder",
    "plot_flow",
    "plot_heads",
    "plot_learning_curve",
    "plot_model_flow",
    "plot_saturation",
    "plot_scaling",
    "plot_shapes",
    "position_explorer",
    "predict",
    "printout_problems",
    "progress",
    "project",
    "relative_change",
    "relative_error",
    "repeated_batch",
    "role_legend",
    "rope",
    "rounding_limit",
    "saturation_experiment",
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
    "task_batch",
    "the_cat_sat",
    "time_forms",
    "token_explorer",
    "train",
    "train_induction",
    "train_induction_seeds",
    "train_seeds",
    "training_explorer",
    "transformer_block",
    "translation",
]
