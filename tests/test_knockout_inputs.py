"""The knockout helpers refuse what would give a silent wrong answer or a library's raw error (review of
lesson 08's knockouts, round 5, defects 5 and 6)."""

import matplotlib
import numpy as np
import pytest
from test_heads_at_work import tiny_model

from attention_lab import heads_at_work as hw

matplotlib.use("Agg")
REPEAT = [3, 17, 42, 8, 51, 3, 17, 42, 8, 51]          # repeats after 5 tokens
NOT_A_REPEAT = [3, 17, 42, 8, 51, 3, 17, 42, 9, 51]     # token 8 is not token 3


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


@pytest.mark.parametrize("call, kind, words", [
    # the text does not repeat after the period given: the second copy is not a copy
    (lambda m: hw.second_copy_loss(m, NOT_A_REPEAT, [], 5), ValueError, "token 8 is 9, token 3 is 8"),
    (lambda m: hw.second_copy_loss(m, REPEAT, [], 3), ValueError, "do not repeat after period 3"),
    (lambda m: hw.knockout_table(m, REPEAT, {"a": []}, 4, [(0, 0)]), ValueError, "period 4"),
    # 1 and '1' would share one row
    (lambda m: hw.knockout_table(m, REPEAT, {1: [], "1": [(0, 1)]}, 5, [(0, 0)]), ValueError, "'1'"),
])
def test_knockout_helpers_refuse_silent_wrong_answers(tiny, call, kind, words):
    with pytest.raises(kind, match=words):
        call(tiny)


ROWS = {"none": (1.8, 0.66), "seven": (11.7, 0.57)}


@pytest.mark.parametrize("call, kind, words", [
    (lambda: hw.plot_knockouts(ROWS, first_copy="14"), TypeError, "first_copy is '14'"),
    (lambda: hw.plot_knockouts(ROWS, first_copy=np.zeros((30, 9))), TypeError, "first_copy"),
    (lambda: hw.plot_knockouts(ROWS, first_copy=float("nan")), ValueError, "finite"),
    (lambda: hw.plot_knockouts({"none": (float("nan"), 0.5)}), ValueError, "finite"),
    (lambda: hw.plot_knockouts({"none": (float("inf"), 0.5)}), ValueError, "finite"),
    (lambda: hw.plot_knockouts({"none": (-1.0, 0.5)}), ValueError, "0 or more"),
    (lambda: hw.plot_knockouts({"none": (1.0, 2.0)}), ValueError, "0..1"),
    (lambda: hw.plot_knockouts(ROWS, {"r": [1.0, float("nan")]}), ValueError, "finite"),
    (lambda: hw.plot_knockouts(ROWS, {"none": [1.0]}), ValueError, "'none'"),
    (lambda: hw.plot_knockouts({1: (1.0, 0.5), "1": (2.0, 0.5)}), ValueError, "more than once"),
])
def test_plot_knockouts_names_bad_input(call, kind, words):
    with pytest.raises(kind, match=words):
        call()


def test_equal_losses_stay_apart_and_the_figure_has_its_title():
    fig = hw.plot_knockouts(ROWS, {"8 random sets": [2.0, 2.0, 3.4, 3.4]}, 14.2, title="zero-ablation")
    left = fig.axes[0]
    dots = next(line for line in left.get_lines() if line.get_marker() == "o")
    points = set(zip(dots.get_xdata(), dots.get_ydata()))
    assert len(points) == 4                        # four dots, four places, though the losses pair up
    assert fig.get_suptitle() == "zero-ablation"
