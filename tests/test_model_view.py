"""Lesson 08's model view (every head at once): placement, frames, fixed scale and bad input."""
import numpy as np
import pytest

from attention_lab import real_model as rm


def causal_uniform(n):
    """Each query spreads its weight evenly over itself and the keys before it (written by hand)."""
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def weights(L=3, h=2, n=4):
    """Head (layer, head) of a toy model: the uniform causal pattern, except one sink head and one
    previous-token head, so every thumbnail can be told apart by its position."""
    w = np.stack([[causal_uniform(n) for _ in range(h)] for _ in range(L)])
    w[1, 0] = np.eye(n)[[0] * n]                            # sink: every query on key 0
    w[2, 1] = np.eye(n)[[0, *range(n - 1)]]                 # previous token (query 0 on itself)
    return w


def test_each_thumbnail_sits_at_its_layer_column_and_head_row():
    w = weights()
    fig = rm.plot_model_view(w)
    ax = fig.axes[0]
    image = np.ma.filled(ax.images[0].get_array(), np.nan)
    n, gap = 4, 2                                           # gap: round(0.25 * 4) = 1, at least 2
    assert image.shape == (2 * (n + gap) - gap, 3 * (n + gap) - gap)
    for layer in range(3):
        for head in range(2):
            r, c = head * (n + gap), layer * (n + gap)
            np.testing.assert_array_equal(image[r:r + n, c:c + n], w[layer, head])
    assert np.isnan(image[n, 0]) and np.isnan(image[0, n])   # the gaps between thumbnails stay blank
    assert ax.images[0].get_clim() == (0.0, 1.0)            # the fixed scale of attention weights
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "1"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("layer", "head")


def test_picks_are_framed_where_their_heads_are_and_named_in_the_legend():
    fig = rm.plot_model_view(weights(), {"sink": (1, 0), "previous": (2, 1)})
    ax = fig.axes[0]
    frames = [p for p in ax.patches if not p.get_fill()]
    n, gap = 4, 2
    corners = [(round(p.get_x() + 0.5 + gap / 2), round(p.get_y() + 0.5 + gap / 2)) for p in frames]
    assert corners == [(1 * (n + gap), 0), (2 * (n + gap), 1 * (n + gap))]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["sink: layer 1, head 0",
                                                                   "previous: layer 2, head 1"]
    role_colours = {"#0072b2", "#d55e00", "#009e73"}        # query, key, value: never a frame
    from matplotlib.colors import to_hex
    assert not {to_hex(p.get_edgecolor()) for p in frames} & role_colours


def test_a_model_of_smollm2s_size_gets_all_270_thumbnails():
    w = np.zeros((30, 9, 5, 5))
    w[..., 0] = 1.0
    fig = rm.plot_model_view(w)
    assert len(fig.axes[0].get_xticklabels()) == 30 and len(fig.axes[0].get_yticklabels()) == 9


def test_input_is_not_changed():
    w = weights()
    before = w.copy()
    rm.plot_model_view(w, {"sink": (1, 0)})
    np.testing.assert_array_equal(w, before)


@pytest.mark.parametrize("bad, kind, words", [
    (np.ones((2, 4, 4)), ValueError, "4-D"),
    (np.full((1, 1, 3, 3), 1.5), ValueError, "0..1"),
    (np.full((1, 1, 3, 3), np.nan), ValueError, "finite"),
    (np.zeros((1, 1, 65, 65)), ValueError, "at most 64"),
    ("weights", TypeError, "weights"),
])
def test_bad_weights_are_named(bad, kind, words):
    with pytest.raises(kind, match=words):
        rm.plot_model_view(bad)


@pytest.mark.parametrize("picks, kind, words", [
    ({"x": (3, 0)}, ValueError, "layers 0..2"),
    ({"x": (0, 2)}, ValueError, "heads 0..1"),
    ({"x": (0.5, 1)}, TypeError, "whole numbers"),
    ({"x": "0,1"}, TypeError, "whole numbers"),
    ([(0, 1)], TypeError, "dict"),
])
def test_bad_picks_are_named(picks, kind, words):
    with pytest.raises(kind, match=words):
        rm.plot_model_view(weights(), picks)
