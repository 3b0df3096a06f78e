"""Lesson 09, section 3 (the logit lens): lens_rank and plot_lens against numbers worked out here, the
section's printed ranks and probabilities recomputed in float64 from the residual streams with a norm and
a softmax written here, its claims as worded, and exercise 09.5 by hand (its wrong answers written here,
apart from exercises_09.py)."""

import re

import matplotlib
import numpy as np
import pytest
from lesson09_cells import cell, cells, shown, source

import attention_lab as al
from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm
from attention_lab.answer_keys import answer_key
from attention_lab.exercises_09 import E95, G95, X95

matplotlib.use("Agg")


# ---------------------------------------------------------------------------------- lens_rank, by hand
def test_lens_rank_counts_the_tokens_strictly_above_and_takes_a_softmax():
    lens = np.array([[3.0, 1.0, 2.0, 1.0],      # token 1 ties token 3: both rank 3 (two tokens above)
                     [0.0, 5.0, 1.0, 2.0],      # token 1 on top
                     [1.0, 1.0, 1.0, 1.0]])     # all tied: rank 1, probability 1/4
    ranks, probs = hw.lens_rank(lens, 1)
    assert ranks.tolist() == [3, 1, 1]
    e = np.exp(lens[0])
    assert np.allclose(probs, [e[1] / e.sum(), np.exp(5) / (1 + np.exp(5) + np.exp(1) + np.exp(2)), 0.25])
    assert lens.tolist()[0] == [3.0, 1.0, 2.0, 1.0]                      # not mutated


@pytest.mark.parametrize("call, error, words", [
    (lambda: hw.lens_rank(np.zeros(5), 1), ValueError, "(n_layers, vocab), one row per block"),
    (lambda: hw.lens_rank(np.zeros((3, 4, 5)), 1), ValueError, "last_only=True), or take lens[:, -1]"),
    (lambda: hw.lens_rank(np.zeros((2, 5)), 1.0), TypeError, "token is 1.0 of type float"),
    (lambda: hw.lens_rank(np.zeros((2, 5)), True), TypeError, "token is True of type bool"),
    (lambda: hw.lens_rank(np.zeros((2, 5)), 5), ValueError, "token is 5 but the lens scores 5 tokens"),
    (lambda: hw.lens_rank(np.zeros((2, 5)), -1), ValueError, "expected an id in 0..4"),
    (lambda: hw.lens_rank(np.array([[0.0, np.nan]]), 0), ValueError, "lens"),
    (lambda: hw.lens_rank(np.zeros((2, 5)), " Paris"), TypeError, "rm.encode(model, ' Paris')[0]"),
])
def test_lens_rank_refuses_bad_input_by_name(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_plot_lens_draws_the_probabilities_and_the_ranks():
    lens = np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 1.0], [0.0, 3.0, 0.0]])
    fig = hw.plot_lens(lens, 1, "b", title="t")
    left, right = fig.axes
    heights = [bar.get_height() for bar in left.patches]
    e = np.exp(lens)
    assert np.allclose(heights, e[:, 1] / e.sum(axis=1))
    assert right.get_lines()[0].get_ydata().tolist() == [2, 1, 1]
    assert right.get_yscale() == "log" and right.yaxis_inverted()         # rank 1 drawn at the top
    assert right.get_yticks().tolist() == [1, 3]                         # rank 1 and the last rank, 3
    assert left.get_xticks().tolist() == [0, 2]                          # no tick past the last block
    assert [t.get_text() for t in left.texts] == [f"{heights[1]:.2f}"]   # the first block with it on top
    matplotlib.pyplot.close(fig)


def test_plot_lens_labels_ranks_down_to_the_vocabulary():
    """Round 20, item 5: ranks in the thousands (blocks 0 to 22 of the lesson) sit between labelled ticks:
    every power of 10 up to 10000, and 49152, the vocabulary's size, at the bottom."""
    lens = np.zeros((3, 49152))
    lens[:, 7] = [-1.0, 0.0, 1.0]                                        # ranks 49152, 1 (ties), 1
    fig = hw.plot_lens(lens, 7, "w")
    right = fig.axes[1]
    fig.canvas.draw()
    labels = [t.get_text() for t in right.get_yticklabels()]
    assert labels == ["1", "10", "100", "1000", "10000", "49152"]
    low, high = right.get_ylim()
    assert low > 49152 > 2000 > 1 > high                                 # every rank inside, rank 1 on top
    matplotlib.pyplot.close(fig)


# ------------------------------------------------------------------ the section's numbers, recomputed
@pytest.fixture(scope="module")
def read(real_model):
    """After each block, from the residual streams: RMSNorm, the tied head, the rank and probability of
    ' Paris' and the top word, all in float64 here."""
    prompt = rm.encode(real_model, "The capital of France is")
    streams = []
    rm.forward_unchecked(real_model, np.asarray(prompt), streams=streams)
    paris = rm.encode(real_model, " Paris")
    assert len(paris) == 1
    E = real_model.embedding.astype(np.float64)
    gain = real_model.final_norm.astype(np.float64)
    out = []
    for x in streams:
        x = x[-1].astype(np.float64)
        z = x / np.sqrt(np.mean(x * x) + real_model.eps) * gain @ E.T       # (vocab,)
        p = np.exp(z - z.max())
        p /= p.sum()
        top = rm.decode(real_model, [int(z.argmax())])
        out.append((1 + int(np.sum(z > z[paris[0]])), float(p[paris[0]]), top))
    return out


def test_the_printed_lines_are_what_the_streams_give(read):
    text = shown("r09-lens")
    for block in (0, 10, 20, 22, 23, 24, 25, 26, 27, 28, 29):
        rank, prob, top = read[block]
        line = next(line for line in text.splitlines() if re.match(rf"after block +{block}:", line))
        assert f"rank {rank:4d}, probability {prob:.3f}; top guess {top!r}" in line, block
    assert f"best rank in blocks 0 to 22: {min(r for r, _, _ in read[:23])}" in text


def test_the_claims_as_worded(read):
    ranks = [r for r, _, _ in read]
    tops = [t for _, _, t in read]
    words = cell("r09-lens-read")
    assert ranks[29] == 1 and min(ranks[:29]) > 1                        # top only after the last block
    assert ranks[28] == 3 and tops[28] == " capital" and ranks[27] == 7  # third; seventh
    assert min(ranks[:23]) == 2005 and len(read) == 30
    assert [ranks[23], ranks[24], ranks[25], ranks[26]] == [396, 92, 113, 34]   # "with one step back"
    assert all(ranks[b + 1] < ranks[b] for b in (22, 23, 25, 26, 27, 28)) and ranks[25] > ranks[24]
    # the top guesses: " a", a space or "." up to block 25 (" the" after 24), " the" after 26 and 27,
    # " capital" (a word of the prompt) after 28
    assert tops[0] == " a" and {tops[b] for b in range(1, 26) if b != 24} <= {" ", "."}
    assert tops[24] == tops[26] == tops[27] == " the" and tops[28] == " capital"
    assert " capital " in " The capital of France is "                   # "a word of the prompt itself"
    tops_said = ('" a", a space or "." up to block 25 (" the" after block 24), " the" after blocks 26 '
                 'and 27, and after block 28 " capital", a word of the prompt itself')
    steps = "with one step back: 396 after block 23, 92 after block 24, 113 after block 25, 34 after block 26"
    for quoted in (f"(probability {read[29][1]:.3f})", "After block 28 it is third, after block 27 seventh",
                   "rank 2005 (of 49152 tokens)", steps, tops_said):
        assert quoted in words, quoted
    summary = cell("summary")
    assert "\" Paris\" on top only after the last block" in summary and "ranks in the thousands" in summary
    assert "not that the model does not know" in summary
    assert sum(r >= 1000 for r in ranks) >= 15                           # "for most of the model"


# ------------------------------------------------------------------------------------------- 09.5
def by_hand(X, g, E, token=1, centred=False, gain=True, over_blocks=False, rank="above"):
    """The token's rank (1 = top) after each block, with loops, as a student writes lens_ranks (and its
    slips: a LayerNorm, no gain, the norm taken down the columns, other ways of counting)."""
    X, g, E = [list(map(float, x)) for x in X], list(map(float, g)), [list(map(float, e)) for e in E]
    cols = [(sum(x[j] ** 2 for x in X) / len(X)) ** 0.5 for j in range(len(g))]
    out = []
    for x in X:
        if centred:
            x = [v - sum(x) / len(x) for v in x]
        r = (sum(v * v for v in x) / len(x)) ** 0.5
        z = [v / (cols[j] if over_blocks else r) * (g[j] if gain else 1.0) for j, v in enumerate(x)]
        logits = [sum(a * b for a, b in zip(z, row)) for row in E]
        mine = logits[token]
        if rank == "above":
            out.append(1 + sum(1 for v in logits if v > mine))
        elif rank == "from 0":
            out.append(sum(1 for v in logits if v > mine))
        elif rank == "below":
            out.append(1 + sum(1 for v in logits if v < mine))
        elif rank == "itself":
            out.append(1 + sum(1 for v in logits if v >= mine))
        elif rank == "argsort":                                       # the id in place `token`, plus 1
            out.append(sorted(range(len(logits)), key=lambda t: -logits[t])[token] + 1)
        else:                                                         # the token's probability
            top = max(logits)
            out.append(2.718281828459045 ** (mine - top) / sum(2.718281828459045 ** (v - top)
                                                               for v in logits))
    return out


def student(**slip):
    """A student's lens_ranks(X, g, E, token) with the given slip (none: the right one)."""
    paris_only = slip.pop("paris_only", False)
    return lambda X, g, E, token: by_hand(X, g, E, 1 if paris_only else token, **slip)


def test_09_5_the_numbers_the_cell_shows_are_the_exercises():
    ns = {"np": np}
    exec(source("ex-09-5-code").split("answer_09_5")[0], ns)
    assert np.array_equal(ns["X"], X95) and np.array_equal(ns["g"], G95) and np.array_equal(ns["E"], E95)
    assert ns["lens_ranks"](X95, G95, E95, 1) is None                  # the student's to write
    assert "(Rome, Paris, the, city, sea, in the order of E's rows)" in cell("ex-09-5")
    assert "`lens_ranks(X, g, E, 1)` gives Paris's three ranks" in cell("ex-09-5")


def test_09_5_by_hand():
    right = by_hand(X95.tolist(), G95.tolist(), E95.tolist())
    assert right == [2, 5, 1]
    assert X95[2].tolist() == [0.0, -1.0, -2.0, -1.0]
    assert answer_key("09.5")(X95, G95, E95, 1).tolist() == right
    assert al.EXERCISES["09.5"].evaluate(student()).status == "correct"
    # leaving out the division by the root mean square alone changes no rank (one positive number a row)
    scaled = (X95 * G95) @ E95.T
    assert (1 + (scaled > scaled[:, [1]]).sum(axis=1)).tolist() == right


# lens_ranks as students write it with NumPy: with the root mean square, without it, or with another size
def with_rms(X, g, E, token):
    Z = X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True)) * g
    logits = Z @ E.T
    return 1 + (logits > logits[:, [token]]).sum(axis=1)


def with_rms_as_a_power(X, g, E, token):
    rms = ((X * X).mean(1, keepdims=True)) ** 0.5          # the root mean square, as a power
    logits = (X / rms * g) @ E.T
    return 1 + (logits > logits[:, [token]]).sum(1)


def without_the_division(X, g, E, token):
    logits = (X * g) @ E.T                                  # no np.sqrt, no mean: the ranks are the same
    return 1 + (logits > logits[:, [token]]).sum(axis=1)


def over_the_std(X, g, E, token):
    logits = (X / X.std(axis=1, keepdims=True) * g) @ E.T
    return 1 + (logits > logits[:, [token]]).sum(axis=1)


def over_the_length(X, g, E, token):
    logits = (X / np.linalg.norm(X, axis=1, keepdims=True) * g) @ E.T
    return 1 + (logits > logits[:, [token]]).sum(axis=1)


def test_09_5_says_why_a_function_without_the_root_mean_square_passes():
    """Review round 7, item 6, and round 10, item 1: a lens_ranks that skips the final norm's division (or
    divides by the standard deviation, or the row's length) passes, rightly: a row over one positive number
    keeps its ranks. Every ✓ says so, and that the lens's probabilities need the division: one remark for
    every right function, whatever its code looks like (a guess from the text told right functions that
    divide that they seemed not to)."""
    plain = "Exercise 09.5: ✓ correct."
    ns = {"np": np}
    exec("def made_by_exec(X, g, E, token):\n"
         "    Z = X / np.sqrt((X ** 2).mean(axis=1, keepdims=True)) * g\n"
         "    return 1 + (Z @ E.T > (Z @ E.T)[:, [token]]).sum(axis=1)\n", ns)
    said_by = {}
    for fn in (with_rms, with_rms_as_a_power, without_the_division, over_the_std, over_the_length,
               ns["made_by_exec"]):
        assert fn(X95, G95, E95, 1).tolist() == [2, 5, 1]                  # the ranks worked out by hand
        result = al.EXERCISES["09.5"].evaluate(fn)
        assert result.status == "correct" and result.message.startswith(plain + " ("), fn.__name__
        said = " ".join(result.message.split())
        assert "dividing a row by one positive number never changes which logits are larger" in said
        assert "the gain g" in said and "The lens's probabilities" in said and "do need that division" in said
        assert "seems not" not in said and "yours" not in said        # nothing guessed about this function
        said_by[fn.__name__] = said
    assert len(set(said_by.values())) == 1, said_by


@pytest.mark.parametrize("slip, mistake", [
    ({"gain": False}, "no gain"),
    ({"centred": True}, "LayerNorm"),
    ({"centred": True, "gain": False}, "LayerNorm, no gain"),
    ({"rank": "from 0"}, "counted from 0"),
    ({"rank": "below"}, "from the bottom"),                 # the lowest logit as rank 1
    ({"rank": "itself"}, "counted itself"),                 # round six, item 6: >= counts the token itself
    ({"rank": "argsort"}, "argsort read at the token"),     # the id in the token's place, not its place
    ({"over_blocks": True}, "norm over the blocks"),        # the root mean square down X's columns
    ({"paris_only": True}, "Paris only"),                   # token 1 whatever the token asked
    ({"rank": "probability"}, "probabilities"),             # softmax of each row, the token's entry
])
def test_09_5_wrong_functions_get_their_hint(slip, mistake):
    assert by_hand(X95.tolist(), G95.tolist(), E95.tolist(), centred=True) == [1, 5, 3]
    result = al.EXERCISES["09.5"].evaluate(student(**slip))
    assert result.status == "mistake" and result.mistake == mistake, result.message


def test_09_5_no_value_computed_elsewhere_passes():
    """Round five's item 7, round six's item 6: the review's shortcut (two package calls) is switched off
    while the check runs the function; the right ranks as numbers, or a function that returns them
    whatever it is given, do not pass."""
    from attention_lab import heads_at_work as hw_
    from attention_lab import real_model as rm_

    def shortcut(X, g, E, token):
        return hw_.lens_rank(rm_.rms_norm(X, g, 0) @ E.T, token)[0]
    assert shortcut(X95, G95, E95, 1).tolist() == [2, 5, 1]              # it works outside the check
    result = al.EXERCISES["09.5"].evaluate(shortcut)
    assert result.status == "wrong" and "is switched off in this exercise" in result.message
    for numbers in ([2, 5, 1], np.array([2, 5, 1]), (2, 5, 1)):
        result = al.EXERCISES["09.5"].evaluate(numbers)
        assert result.status == "mistake" and result.mistake == "numbers", result.message
        assert "hand in your function itself" in result.message
    result = al.EXERCISES["09.5"].evaluate(lambda X, g, E, token: [2, 5, 1])
    assert result.status != "correct"


def test_09_5_other_answers_are_told_what_is_wrong():
    result = al.EXERCISES["09.5"].evaluate(lambda X, g, E, token: [1] * len(X))
    assert result.status == "wrong" and "the rank (1 = top) of the token after that block" in result.message
    result = al.EXERCISES["09.5"].evaluate(lambda X, g, E, token: None)
    assert result.status == "wrong" and "returns None" in result.message


# ------------------------------------------------------------------------------- the lesson as a whole
def test_what_you_will_learn_is_one_list():
    """Round five's review, item 8: every item but the last ends with ';', the last with '.'."""
    intro = source("r09-intro")
    items = intro.split("**What you will learn**")[1].strip().split("\n- ")
    items = [" ".join(item.split()) for item in items]
    assert len(items) == 6 and all(item.endswith(";") for item in items[:-1]) and items[-1].endswith(".")


def test_the_model_is_named_as_it_is():
    """Round five's review, item 4: SmolLM2-135M-Instruct with 4-bit weights, in the intro, the figures'
    titles and the Summary; never the base model's name alone. Round 20, item 1: the embedding (the tied
    output head the lens reads through) is 8-bit, Q8_0, as lesson 08 says it."""
    intro = cell("r09-intro")
    assert "its weight matrices in blocks of 4-bit numbers (Q4_1)" in intro
    assert ("the embedding, which is also the output head (section 3's lens reads every block through it), "
            "in blocks of 8-bit numbers (Q8_0), and the norms' gains in float32") in intro
    assert "4 bits (Q4_1) and run" not in intro
    for cid in ("r09-knock-random", "r09-window-plot"):
        assert "SmolLM2-135M-Instruct (4-bit)" in source(cid), cid
    assert "SmolLM2-135M-Instruct (4-bit weight matrices, an 8-bit embedding)" in cell("summary")
    for c in cells():
        text = "".join(c["source"])
        assert text.count("SmolLM2-135M") == text.count("SmolLM2-135M-Instruct"), c["id"]


def test_the_formats_printed_are_the_files_own(real_model):
    """Round 20, item 1: the count the intro points to, read here from the file's header with gguf's own
    reader (not the project's loader): one tensor in Q8_0, the embedding; the 7 matrices of each block in
    Q4_1; the rest float32."""
    gguf = pytest.importorskip("gguf")
    stored = {t.name: t.tensor_type.name for t in gguf.GGUFReader(str(real_model.path)).tensors}
    count = {f: list(stored.values()).count(f) for f in sorted(set(stored.values()))}
    assert count == {"F32": 61, "Q4_1": 7 * 30, "Q8_0": 1}
    assert [name for name, f in stored.items() if f == "Q8_0"] == ["token_embd.weight"]
    assert f"tensors per format: {count} in Q8_0: ['token_embd.weight']" in shown("r09-redo")
