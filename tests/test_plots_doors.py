"""The plotting core stands apart from the lesson pictures, and the pictures check their input at the door."""

import subprocess
import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import attention_lab as al
from attention_lab import heatmaps

KINDS = ["weights", "scores", "query", "key", "value", "input"]


def modules_after(code: str) -> set[str]:
    """The names in sys.modules after running `code` in a fresh interpreter."""
    shown = subprocess.run([sys.executable, "-c", f"{code}\nimport sys; print(*sys.modules)"],
                           check=True, capture_output=True, text=True).stdout
    return set(shown.split())


def test_the_explorer_kit_draws_with_the_core_only():
    code = ("import matplotlib; matplotlib.use('Agg')\n"
            "import numpy as np\n"
            "from attention_lab.explorer_kit import Control, Explorer, Panel\n"
            "Explorer([Control('a', 'a', 0.5, 0.0, 1.0)],\n"
            "         lambda v: {'w': np.array([[v['a'], 1 - v['a']]])},\n"
            "         [Panel('w', ['q'], ['k1', 'k2'])], describe=lambda v, r: '').set(a=0.25)")
    loaded = modules_after(code)
    assert "attention_lab.heatmaps" in loaded
    assert not loaded & {"attention_lab.plots", "attention_lab.training_plots"}, sorted(loaded)


def test_a_lesson_picture_does_not_load_the_training_charts():
    loaded = modules_after("from attention_lab import plot_heads, heatmap")
    assert "attention_lab.plots" in loaded and "attention_lab.training_plots" not in loaded


def test_the_public_picture_names_are_where_the_lessons_find_them():
    for name in ("heatmap", "heatmap_row", "role_legend", "ROLE_COLORS", "WEIGHTS_CMAP"):
        assert getattr(al, name) is getattr(heatmaps, name)
    assert al.plot_learning_curve.__module__ == "attention_lab.training_plots"
    assert al.plot_flow.__module__ == "attention_lab.plots"


def test_a_kind_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match=r"kind is 3 of type int: expected a str, one of "
                                        r"\['weights', 'scores', 'query', 'key', 'value', 'input'\]"):
        al.heatmap(np.full((1, 2), 0.5), ["q"], ["a", "b"], kind=3)


def test_an_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError, match=r"kind is 'Query': expected one of \['weights', 'scores', 'query'"):
        al.heatmap(np.full((1, 2), 0.5), ["q"], ["a", "b"], kind="Query")
    with pytest.raises(ValueError, match=r"role is 'weights': expected one of \['query', 'key', 'value'\]"):
        heatmaps.role_cmap("weights")
    with pytest.raises(TypeError, match=r"role is None of type NoneType: expected a str"):
        heatmaps.role_cmap(None)


def test_weights_outside_0_1_are_refused_beyond_rounding():
    al.heatmap(np.array([[1 + 1e-13, -1e-13]]), ["q"], ["a", "b"])            # rounding: accepted
    with pytest.raises(ValueError, match=r"weights range from 0 to 1.01: expected attention weights, which "
                                         r"lie in 0..1 \(did you pass the scores\? use kind='scores'\)"):
        al.heatmap(np.array([[1.01, 0.0]]), ["q"], ["a", "b"])


def test_titles_take_the_colour_of_their_role():
    ex = al.the_cat_sat()
    fig = al.plot_flow(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    colours = {ax.get_title(): matplotlib.colors.to_hex(ax.title.get_color()) for ax in fig.axes}
    # Okabe-Ito blue, vermillion, bluish green: the collection's query, key and value colours
    assert colours["Q = X W_q"] == "#0072b2" and colours["K = X W_k"] == "#d55e00"
    assert colours["V = X W_v"] == "#009e73" and colours["Y = weights · V"] == "#009e73"
    assert colours["weights = softmax"] == matplotlib.colors.to_hex("0.15")
    assert colours["scores Q Kᵀ·scale"] == "#a9373b"   # the red of a positive score, on lesson 00's key
    matplotlib.pyplot.close(fig)


def test_plot_heads_wants_one_word_per_row():
    ex = al.the_cat_sat()
    n = len(ex.tokens)
    with pytest.raises(ValueError, match=rf"X has {n} rows but there are {n - 1} tokens: "
                                         r"expected one word per row"):
        al.plot_heads(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 2, ex.tokens[:-1])


def test_plot_model_flow_draws_one_sequence_of_a_model_with_attention():
    cfg = al.ModelConfig()
    params = al.init_params(cfg, seed=0)
    ids = np.arange(cfg.n) % cfg.vocab_size
    with pytest.raises(ValueError, match=rf"ids has shape \(2, {cfg.n}\) for a model with attention=True: "
                                         r"expected one sequence \(n,\)"):
        al.plot_model_flow(params, cfg, np.stack([ids, ids]))
    fig = al.plot_model_flow(params, cfg, ids)
    assert [ax.get_title() for ax in fig.axes][1] == "attention weights"
    matplotlib.pyplot.close(fig)
