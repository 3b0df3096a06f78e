"""Lesson 06's training charts (training_plots.py), as a student sees them: every drawn line's numbers,
every axis label, title, colour and line style, compared with values worked out in the test from
weights and runs built by hand (never with the module's own output)."""

import math

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgba

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import attention_lab as al
from attention_lab.training import ModelConfig, Run

CFG = ModelConfig(vocab_size=10, n=4, d=16)
IDS = [3, 1, 4, 1]


def by_hand(weights_out: bool) -> dict:
    """E puts token v on feature v, no positions, every attention matrix 0 (so H = X), and W_u reads
    feature v back as token v (or, with weights_out False, W_u = 0: every token's logits are 0)."""
    d, v = CFG.d, CFG.vocab_size
    zero = np.zeros((d, d))
    return {"E": np.eye(v, d), "P": np.zeros((CFG.n, d)), "W_q": zero, "W_k": zero, "W_v": zero,
            "W_O": zero, "W_u": np.eye(v, d).T.copy() if weights_out else np.zeros((d, v))}


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def same_colour(a, b) -> bool:
    return np.allclose(to_rgba(a), to_rgba(b))


def test_the_model_flow_shows_x_the_weights_h_and_the_probabilities_with_their_labels():
    """One render (four heatmaps and a colour bar, the slowest figure here), drawn in the test itself:
    mutmut maps a test to the functions its call reaches, not to what a fixture calls."""
    flow = al.plot_model_flow(by_hand(True), CFG, IDS)
    panels = flow.axes[:4]
    one_hot = np.zeros((4, 16))
    one_hot[np.arange(4), IDS] = 1.0
    e = math.e
    probs = np.full((4, 10), 1 / (e + 9))
    probs[np.arange(4), IDS] = e / (e + 9)
    expected = [one_hot, np.full((4, 4), 0.25), one_hot, probs]     # all scores 0: each key gets 1/4
    for ax, values in zip(panels, expected):
        assert np.allclose(np.asarray(ax.collections[0].get_array()).reshape(values.shape), values)
    assert [ax.get_title() for ax in panels] == ["X = E[token] + P", "attention weights",
                                                  "H = X + attention output", "softmax(H W_u)"]
    assert [ax.get_xlabel() for ax in panels] == ["feature", "key token", "feature", "output token"]
    assert [ax.get_ylabel() for ax in panels] == ["token", "", "", ""]
    features = ["0", "", "", "", "", "", "", "", "8", "", "", "", "", "", "", ""]
    columns = [features, ["3", "1", "4", "1"], features, [str(v) for v in range(10)]]
    for ax, cols in zip(panels, columns):
        assert [t.get_text() for t in ax.get_xticklabels()] == cols
        assert [t.get_text() for t in ax.get_yticklabels()] == ["3", "1", "4", "1"]
        assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
        assert ax.xaxis.label.get_size() == 13 and ax.title.get_size() == 14
    # panel widths: a feature panel d/3 = 16/3, the weights n = 4, the probabilities vocab_size = 10
    ratios = panels[0].get_subplotspec().get_gridspec().get_width_ratios()
    assert ratios == pytest.approx([16 / 3, 4, 16 / 3, 10])
    assert list(flow.get_size_inches()) == [15, 4.2]
    assert type(flow.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert len(flow.axes) == 5 and not any(ax.texts for ax in panels)   # one colour bar, no numbers in cells
    assert flow.get_suptitle() == "one held-out sequence through the model →"
    assert flow._suptitle.get_size() == 14
    bar = flow.axes[4]
    assert bar.get_ylabel() == "weight, probability (0 to 1)" and bar.yaxis.label.get_size() == 13
    assert all(t.get_size() == 13 for t in bar.get_yticklabels())
    assert panels[3].collections[0].colorbar.ax is bar
    assert bar.get_ylim() == pytest.approx((0, 1))
    # shrink 0.85 of the panels' height, a pad of 0.01 of the figure beside the last panel
    assert bar.get_position().height / panels[3].get_position().height == pytest.approx(0.85)
    assert 0 < bar.get_position().x0 - panels[3].get_position().x1 < 0.02
    flow.canvas.draw()          # laid out: the bar takes its room from all four panels, not the last alone
    widths = [ax.get_position().width for ax in panels]
    assert [w / widths[0] for w in widths] == pytest.approx([1, 4 / (16 / 3), 1, 10 / (16 / 3)])


HELD = np.array([[3, 1, 4, 1], [5, 0, 2, 6]])
TARGETS = np.array([[3, 0, 4, 0], [0, 0, 0, 6]])    # untrained (argmax 0): 5 of 8 right; by hand: 4 of 8


def a_run() -> Run:
    losses = np.array([2.5, 2.0, 1.25, 0.5, 0.25])
    return Run(CFG, by_hand(True), losses, snapshot_steps=[0, 4],
               snapshot_params=[by_hand(False), by_hand(True)])


def test_the_learning_curve_draws_the_losses_and_the_accuracy_against_the_baseline():
    fig = al.plot_learning_curve(a_run(), HELD, TARGETS, baseline=0.375)
    left, right = fig.axes[:2]
    loss, = left.get_lines()[:1]
    assert list(loss.get_xdata()) == [0, 1, 2, 3, 4] and list(loss.get_ydata()) == [2.5, 2.0, 1.25, 0.5, 0.25]
    assert same_colour(loss.get_color(), "#333333") and loss.get_linewidth() == 2
    uniform = left.get_lines()[1]
    assert np.allclose(uniform.get_ydata(), math.log(10))
    assert same_colour(uniform.get_color(), (0.5, 0.5, 0.5))
    assert uniform.get_linestyle() == ":" and uniform.get_linewidth() == 1.5
    (note,) = left.texts
    assert note.get_text() == "ln 10: a uniform guess"
    assert note.get_position() == pytest.approx((4, math.log(10) * 1.03))
    assert (note.get_ha(), note.get_va(), note.get_size()) == ("right", "bottom", 13)
    assert (left.get_xlabel(), left.get_ylabel()) == ("step", "training loss")
    assert left.get_ylim() == pytest.approx((0, 1.2 * math.log(10)))
    accuracy = right.get_lines()[0]
    assert list(accuracy.get_xdata()) == [0, 4]
    assert list(accuracy.get_ydata()) == [5 / 8, 4 / 8]
    assert same_colour(accuracy.get_color(), "#0072B2") and accuracy.get_linewidth() == 2
    assert accuracy.get_marker() == "o" and accuracy.get_linestyle() == "-"
    baseline = right.get_lines()[1]
    assert np.allclose(baseline.get_ydata(), 0.375) and same_colour(baseline.get_color(), "#D55E00")
    assert baseline.get_linestyle() == "--" and baseline.get_linewidth() == 2
    assert (right.get_xlabel(), right.get_ylabel()) == ("step", "held-out accuracy")
    assert right.get_ylim() == pytest.approx((0, 1.05))
    legend = right.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["model", "counting baseline (an average)"]
    assert all(t.get_size() == 13 for t in legend.get_texts()) and legend._loc == 7       # 7: center right
    for ax in (left, right):
        assert ax.xaxis.label.get_size() == 13 and ax.yaxis.label.get_size() == 13
        assert all(t.get_size() == 13 for t in ax.get_xticklabels() + ax.get_yticklabels())
        grid = ax.xaxis.get_gridlines()[0]
        assert grid.get_visible() and grid.get_alpha() == 0.3
    assert list(fig.get_size_inches()) == [12, 3.6]
    assert right.get_position().x0 > left.get_position().x1          # side by side, loss on the left
    assert right.get_position().y0 == pytest.approx(left.get_position().y0)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def a_table() -> dict:
    steps = np.arange(120.0)
    # (4 names, 2 seeds, 120 steps)
    losses = np.stack([[10 + k + s + steps / 1000 for s in range(2)] for k in range(4)])
    return {"names": np.array(["scaled, spread", "unscaled, one-hot", "scaled, one-hot", "unscaled, spread"]),
            "losses": losses, "max_weight": np.array([[0.5, 0.6], [0.9, 0.8], [0.75, 0.75], [0.76, 0.74]])}


def test_the_saturation_chart_colours_by_the_start_and_dashes_the_unscaled():
    table = a_table()
    fig = al.plot_saturation(table)
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert len(lines) == 8
    red, grey = "#b00020", "#333333"
    # mean largest weight 0.55 (grey), 0.85 (red), 0.75 (not above 0.75: grey), 0.75 (grey)
    colours, styles = [grey, red, grey, grey], ["-", "--", "-", "--"]
    peaks = ["0.55", "0.85", "0.75", "0.75"]
    for k, name in enumerate(table["names"]):
        for s in range(2):
            line = lines[2 * k + s]
            assert list(line.get_xdata()) == list(range(100))
            assert np.array_equal(line.get_ydata(), 10 + k + s + np.arange(100) / 1000)
            assert same_colour(line.get_color(), colours[k]) and line.get_linestyle() == styles[k]
            assert line.get_linewidth() == 1.8 and line.get_alpha() == 0.8
            assert (line.get_label() == f"{name} (step 0: largest weight {peaks[k]})") == (s == 0)
            assert line.get_label().startswith("_") == (s == 1)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("step", "training loss")
    assert ax.xaxis.label.get_size() == 13 and ax.yaxis.label.get_size() == 13
    assert ax.get_title() == "2 seeds each. Red: rows start nearly one-hot; grey: spread out"
    assert ax.title.get_size() == 14
    assert all(t.get_size() == 13 for t in ax.get_xticklabels() + ax.get_yticklabels())
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [f"{n} (step 0: largest weight {p})"
                                                           for n, p in zip(table["names"], peaks)]
    assert all(t.get_size() == 12 for t in legend.get_texts())
    assert legend._loc == 9 and legend._ncols == 2                                      # 9: upper center
    anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    assert tuple(anchor.bounds[:2]) == pytest.approx((0.5, -0.2))
    grid = ax.xaxis.get_gridlines()[0]
    assert grid.get_visible() and grid.get_alpha() == 0.3
    assert list(fig.get_size_inches()) == [10, 4.6]
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def test_the_saturation_chart_shows_the_steps_asked_for():
    fig = al.plot_saturation(a_table(), show_steps=7)
    assert all(list(line.get_xdata()) == list(range(7)) for line in fig.axes[0].get_lines())
    assert np.array_equal(fig.axes[0].get_lines()[3].get_ydata(), 12 + np.arange(7) / 1000)
