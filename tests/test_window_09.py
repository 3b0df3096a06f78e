"""Lesson 09, section 2 (a sliding window must keep the first token): plot_window checked against numbers
worked out here, the section's printed losses and weights recomputed with a mask built by hand and a
float64 loss written here, its claims as worded, and exercise 09.4's answer measured on the real model
(its wrong answers written here, apart from exercises_09.py)."""

import json
import os
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import attention_lab as al
from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm
from attention_lab.exercises_09 import CACHES_09_4

matplotlib.use("Agg")
NOTEBOOKS = Path(os.environ.get("LESSON_NOTEBOOKS", Path(__file__).resolve().parents[1] / "notebooks"))
LESSON = NOTEBOOKS / "09-heads-at-work.ipynb"


def cells():
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def cell(cell_id) -> str:
    return " ".join("".join(next(c for c in cells() if c["id"] == cell_id)["source"]).split())


def shown(cell_id) -> str:
    c = next(c for c in cells() if c["id"] == cell_id)
    return "".join("".join(o.get("text", "")) for o in c.get("outputs", []))


def sees(n, window, keep):
    """allowed[i, j], written out: key j is not after query i, and among the last `window` or first `keep`."""
    allowed = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            allowed[i, j] = i - j <= window - 1 or j <= keep - 1
    return allowed


def loss64(logits, ids):
    """Per-token cross-entropy in float64, written here."""
    z = np.asarray(logits, dtype=np.float64)[:-1]
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(ids) - 1), np.asarray(ids)[1:]]


# ------------------------------------------------------------------------------- plot_window, by hand
def test_plot_window_draws_the_running_means_and_the_mask():
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    b = np.array([0.0, 0.0, 6.0, 0.0, 0.0, 6.0])
    fig = hw.plot_window({"a": a, "b": b}, window=2, smooth=3)
    left, right = fig.axes
    lines = [line for line in right.get_lines() if len(line.get_xdata()) > 2]
    assert [line.get_label() for line in lines] == ["a: mean 3.50", "b: mean 2.00"]
    assert np.allclose(lines[0].get_xdata(), [2, 3, 4, 5])               # the last token of each 3
    assert np.allclose(lines[0].get_ydata(), [2.0, 3.0, 4.0, 5.0])       # (1+2+3)/3, (2+3+4)/3, ...
    assert np.allclose(lines[1].get_ydata(), [2.0, 2.0, 2.0, 2.0])
    mask = left.collections[0].get_array().reshape(12, 12)
    assert np.array_equal(mask, sees(12, 4, 1).astype(float))
    assert mask[5, 0] == 1 and mask[5, 1] == 0 and mask[5, 2] == 1 and mask[5, 6] == 0
    assert "token 2: token 0 leaves a window of 2" in [t.get_text().strip() for t in right.texts]
    matplotlib.pyplot.close(fig)


@pytest.mark.parametrize("call, error, words", [
    (lambda: hw.plot_window({}, 32), TypeError, "expected a dict {name: per-token losses}"),
    (lambda: hw.plot_window([1.0, 2.0], 32), TypeError, "losses is list"),
    (lambda: hw.plot_window({"a": [1.0, 2.0], "b": [1.0]}, 1, smooth=1), ValueError, "has shape (1,)"),
    (lambda: hw.plot_window({"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0]}, 1, smooth=1), ValueError,
     "lengths [2, 3]: expected one length"),
    (lambda: hw.plot_window({"a": [1.0, np.nan]}, 1, smooth=1), ValueError, "a NaN, an infinity"),
    (lambda: hw.plot_window({"a": [1.0, -2.0]}, 1, smooth=1), ValueError, "an infinity or a negative"),
    (lambda: hw.plot_window({"a": "12"}, 1, smooth=1), TypeError, "expected one loss per token"),
    (lambda: hw.plot_window({"a": [[1.0, 2.0]]}, 1, smooth=1), ValueError, "has shape (1, 2)"),
    (lambda: hw.plot_window({"a": ["x", "y"]}, 1, smooth=1), TypeError, "holds <U1 values"),
    (lambda: hw.plot_window({"a": (np.zeros((3, 5)), [np.zeros((2, 3, 3))])}, 1, smooth=1), TypeError,
     "not the (logits, weights) that window_forward returns"),
    (lambda: hw.plot_window({"a": [1 + 1j, 2.0]}, 1, smooth=1), TypeError, "holds complex128 values"),
    (lambda: hw.plot_window({"a": [True, False]}, 1, smooth=1), TypeError, "holds bool values"),
    (lambda: hw.plot_window({"a": [1.0, 2.0, 3.0]}, 3, smooth=1), ValueError,
     "window is 3 but the losses cover 3 predictions: a window that long drops nothing"),
    (lambda: hw.plot_window({str(i): [1.0, 2.0] for i in range(7)}, 1, smooth=1), ValueError,
     "holds 7 runs: expected at most 6"),
    (lambda: hw.plot_window({1: [1.0, 2.0], "1": [1.0, 2.0]}, 1, smooth=1), ValueError, "more than once"),
    (lambda: hw.plot_window({"a": [1.0, 2.0]}, 0, smooth=1), ValueError, "window is 0"),
    (lambda: hw.plot_window({"a": [1.0, 2.0]}, 1, smooth=3), ValueError, "smooth is 3 but the losses cover"),
    (lambda: hw.plot_window({"a": [1.0, 2.0]}, 1.5), TypeError, "window is 1.5 of type float"),
])
def test_plot_window_refuses_bad_input_by_name(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_plot_window_draws_six_runs_each_its_own_way_in_no_role_colour():
    fig = hw.plot_window({f"run {i}": np.arange(1.0, 11.0) + i for i in range(6)}, window=4, smooth=2)
    lines = [line for line in fig.axes[1].get_lines() if len(line.get_xdata()) > 2]
    looks = [(line.get_linestyle(), matplotlib.colors.to_hex(line.get_color())) for line in lines]
    assert len(set(looks)) == 6
    assert not {color for _, color in looks} & {"#0072b2", "#d55e00", "#009e73"}   # query, key, value
    legend = fig.axes[1].get_legend().get_window_extent(fig.canvas.get_renderer())
    axes = fig.axes[1].get_window_extent(fig.canvas.get_renderer())
    assert axes.x0 <= legend.x0 and legend.x1 <= axes.x1 and legend.y1 <= axes.y1   # inside the axes
    matplotlib.pyplot.close(fig)


def test_plot_window_leaves_its_input_alone():
    row = np.array([3.0, 1.0, 2.0])
    hw.plot_window({"x": row}, 1, smooth=2)
    assert row.tolist() == [3.0, 1.0, 2.0]
    matplotlib.pyplot.close("all")


# ------------------------------------------------------------------ the section's numbers, recomputed
RUNS = {"full attention": (None, 0), "window 32": (32, 0), "window 32 + first": (32, 1),
        "window 32 + first 4": (32, 4), "window 64": (64, 0), "window 64 + first": (64, 1),
        "window 128": (128, 0)}


@pytest.fixture(scope="module")
def measured(real_model):
    """Each run's mean loss, and over every head and the queries t >= 32 the mean weight on token 0 and
    on token t - 31; the mask built by hand, the loss in float64."""
    ids = rm.encode(real_model, hw.STREAM_TEXT)
    n = len(ids)
    later = list(range(32, n))
    out = {"n": n}
    for name, (window, keep) in RUNS.items():
        allowed = sees(n, window or n, keep)
        logits, weights = rm.forward_unchecked(real_model, np.asarray(ids), keep_weights=True, mask=allowed)
        first = np.mean([float(w[:, t, 0].mean()) for w in weights for t in later])
        oldest = np.mean([float(w[:, t, t - 31].mean()) for w in weights for t in later])
        out[name] = (float(loss64(logits, ids).mean()), first, oldest, loss64(logits, ids))
    return out


def test_the_printed_table_is_what_the_runs_give(measured):
    text = shown("r09-window")
    assert f"{measured['n']} tokens, {measured['n'] - 1} predictions." in text
    full = measured["full attention"][0]
    for name in list(RUNS)[:-1]:                                         # window 128 is 09.4's, not shown
        loss, first, oldest, _ = measured[name]
        line = next(line for line in text.splitlines() if re.match(rf"\s*{re.escape(name)}\s+loss", line))
        assert f"loss {loss:.2f} nats ({loss - full:+.2f})" in line, name
        assert f"token 0: {first:.2f}" in line and f"token t - 31: {oldest:.2f}" in line, name
    assert "window 128" not in text and "128" not in "".join(
        "".join(c["source"]) for c in cells() if c["cell_type"] == "code")


def test_the_claims_as_worded(measured):
    loss = {name: measured[name][0] for name in RUNS}
    first = {name: measured[name][1] for name in RUNS}
    oldest = {name: measured[name][2] for name in RUNS}
    words = cell("r09-window-read")
    full = loss["full attention"]
    # "keeping the first 4 instead helps only a little more"
    assert 0 < loss["window 32 + first"] - loss["window 32 + first 4"] < 0.1
    # "most of the damage is the lost first token": keeping it takes back more than half the extra loss
    assert loss["window 32 + first"] - full < 0.5 * (loss["window 32"] - full)
    # "a window of 32 with token 0 beats a window twice as long without it"
    assert loss["window 32 + first"] < loss["window 64"]
    # "does not simply move to the oldest token of the window"; "token 0 gets even more of it"
    assert oldest["window 32"] < 0.05 < first["full attention"]
    assert first["window 32 + first"] > first["full attention"]
    extra = {name: value - full for name, value in loss.items()}
    for quoted in (f"{full:.2f} to", f"{loss['window 32']:.2f} nats", f"(+{extra['window 32']:.2f})",
                   f"+{extra['window 32 + first']:.2f};", f"(+{extra['window 32 + first 4']:.2f})",
                   f"(+{extra['window 64']:.2f})", f"receives {first['full attention']:.2f}",
                   f"gets {oldest['window 32']:.2f}", f"even more of it: {first['window 32 + first']:.2f}"):
        assert quoted in words, quoted
    summary = cell("summary")
    assert (f"from {full:.2f} to {loss['window 32']:.2f} nats" in summary
            and f"back to {loss['window 32 + first']:.2f}" in summary)


def test_the_figure_lines_claims(measured):
    """'The window's line sits above full attention almost everywhere; with token 0 kept it runs much
    closer': running means over 32, at positions 32 on."""
    def running(name):
        return np.convolve(measured[name][3], np.ones(32) / 32, mode="valid")[1:]   # t = 32 on
    full, window, kept = running("full attention"), running("window 32"), running("window 32 + first")
    assert (window > full).mean() > 0.9
    assert np.abs(kept - full).mean() < 0.5 * np.abs(window - full).mean()


# ------------------------------------------------------------------------------------------- 09.4
def test_09_4_caches_are_the_ones_the_lesson_names():
    assert CACHES_09_4 == {"A": (128, 0), "B": (32, 1)}
    text = cell("ex-09-4")
    assert "(A) a window of 128 tokens, without the first" in text
    assert "(B) a window of 32 tokens and the first token, 33 entries in all" in text
    assert ("(a) A: four times as much of the recent text; (b) B; (c) neither: they are within 0.1 "
            "nats") in text


def test_09_4_answer_holds_on_the_real_model(measured):
    a, b = measured["window 128"][0], measured["window 32 + first"][0]
    assert b < a - 0.1                                                   # (b), and not within 0.1: not (c)
    assert al.EXERCISES["09.4"].evaluate("b").status == "correct"


@pytest.mark.parametrize("answer, words", [
    ("a", "four times as much recent text does not make up for the lost first token"),   # more is better
    ("c", "more than 0.1 nats apart"),                                   # one token cannot matter much
])
def test_09_4_wrong_answers_get_their_hint(answer, words):
    result = al.EXERCISES["09.4"].evaluate(answer)
    assert result.status == "mistake" and result.mistake == answer and words in result.message


@pytest.mark.parametrize("answer", ["d", 2, ["b"], "b c"])
def test_09_4_answers_that_are_not_a_letter_are_told_the_choices(answer):
    result = al.EXERCISES["09.4"].evaluate(answer)
    assert result.status == "wrong" and "a, b, c" in result.message
