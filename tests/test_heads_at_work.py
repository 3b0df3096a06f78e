"""Lesson 08's experiments (heads_at_work.py), checked against code written here.

A float64 llama forward pass below has its own rotary embedding (complex numbers), its own sharing of
key/value heads (query head q reads key head q // (h/g)), a mask built with explicit loops, and heads replaced
by hand; a block without attention is written from rms_norm, swiglu and the block's weights. It runs on a
tiny random model built here, and on the real SmolLM2 file where that can be fetched.
"""

import dataclasses

import numpy as np
import pytest

from attention_lab import heads_at_work as hw
from attention_lab import real_model as rm

D, H, G, K, FF, LAYERS, VOCAB = 32, 4, 2, 8, 48, 3, 60


def tiny_model(seed=0):
    """A random llama-architecture RealModel: 3 blocks, 4 query heads sharing 2 key/value heads."""
    rng = np.random.default_rng(seed)

    def w(rows, cols, scale=1.0):
        return (scale * rng.standard_normal((rows, cols)) / np.sqrt(rows)).astype(np.float32)

    def gain():
        return (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)

    blocks = [rm.Block(gain(), w(D, H * K, 3.0), w(D, G * K, 3.0), w(D, G * K), w(H * K, D), gain(),
                       w(D, FF), w(D, FF), w(FF, D)) for _ in range(LAYERS)]
    embedding = rng.standard_normal((VOCAB, D)).astype(np.float32)
    return rm.RealModel("tiny", H, G, K, 1000.0, 1e-5, embedding, blocks, gain(), None, [])


def hand_mask(n, window=None, keep=0):
    """allowed[i, j]: key j is at or before query i, and inside the window or among the first `keep`."""
    allowed = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(i + 1):
            allowed[i, j] = window is None or i - j < window or j < keep
    return allowed


def reference(model, ids, knock=(), ablation="zero", allowed=None, no_attention=()):
    """Logits (n, vocab) and the residual stream after each block (layers, n, d), in float64."""
    n, h, g, k, eps = len(ids), model.n_heads, model.n_kv_heads, model.head_width, model.eps
    allowed = hand_mask(n) if allowed is None else allowed

    def norm(x, gain):
        return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * gain

    def rotate(x):                              # (n, k): adjacent pairs as complex numbers, turned by p theta
        z = x[:, 0::2] + 1j * x[:, 1::2]
        z = z * np.exp(1j * np.arange(n)[:, None] * model.rope_base ** (-np.arange(0, k, 2) / k))
        out = np.empty_like(x)
        out[:, 0::2], out[:, 1::2] = z.real, z.imag
        return out

    x, streams = model.embedding[np.asarray(ids)].astype(np.float64), []
    for layer, b in enumerate(model.blocks):
        if layer in no_attention:               # the block without attention, by hand
            x = x + rm.swiglu(rm.rms_norm(x, b.ffn_norm, eps), b.W_gate, b.W_up, b.W_down)
            streams.append(x)
            continue
        a = norm(x, b.attn_norm.astype(np.float64))
        q, kk, v = (a @ W.astype(np.float64) for W in (b.W_q, b.W_k, b.W_v))
        heads = []
        for hq in range(h):
            hk = hq // (h // g)
            s = rotate(q[:, hq * k:(hq + 1) * k]) @ rotate(kk[:, hk * k:(hk + 1) * k]).T / np.sqrt(k)
            s = np.where(allowed, s, -np.inf)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            out = p @ v[:, hk * k:(hk + 1) * k]                             # (n, k)
            if (layer, hq) in knock:
                out = np.zeros_like(out) if ablation == "zero" else np.tile(out.mean(axis=0), (n, 1))
            heads.append(out)
        x = x + np.concatenate(heads, axis=1) @ b.W_O.astype(np.float64)
        f = norm(x, b.ffn_norm.astype(np.float64))
        gate, up = f @ b.W_gate.astype(np.float64), f @ b.W_up.astype(np.float64)
        x = x + (gate / (1 + np.exp(-gate)) * up) @ b.W_down.astype(np.float64)
        streams.append(x)
    streams = np.array(streams)
    normed = norm(streams, model.final_norm.astype(np.float64))             # (layers, n, d)
    E = model.embedding
    logits = np.concatenate([normed @ E[s:s + 8192].T.astype(np.float64) for s in range(0, len(E), 8192)],
                            axis=-1)
    return logits[-1], logits                                               # (n, vocab), (layers, n, vocab)


def close(got, want, rtol=2e-5):
    """Equal up to float32 rounding, measured on the scale of the logits."""
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= rtol * np.abs(want).max(), np.abs(got - want).max()


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


IDS = [3, 17, 42, 8, 3, 17, 42, 8, 59, 0, 25]


# ---------------------------------------------------------------------------- knock heads out
def test_tiny_knockout_with_nothing_knocked_out_is_forward_exactly(tiny):
    logits, weights = rm.forward(tiny, IDS, keep_weights=True)
    for ablation in hw.ABLATIONS:
        got, got_w = hw.knockout_forward(tiny, IDS, [], ablation, keep_weights=True)
        assert np.array_equal(got, logits) and len(got_w) == LAYERS
        assert all(np.array_equal(a, b) for a, b in zip(got_w, weights))


@pytest.mark.parametrize("ablation", hw.ABLATIONS)
def test_tiny_knockout_matches_the_reference(tiny, ablation):
    knock = [(0, 1), (1, 3), (1, 0), (2, 2)]
    got, _ = hw.knockout_forward(tiny, IDS, knock, ablation)
    close(got, reference(tiny, IDS, knock, ablation)[0])
    assert not np.allclose(got, reference(tiny, IDS)[0], atol=1e-2)     # the knockout changes the logits
    other = "mean" if ablation == "zero" else "zero"
    assert not np.allclose(got, reference(tiny, IDS, knock, other)[0], atol=1e-2)


def hand_token_losses(logits, ids):
    """Cross-entropy of each next token, in float64, written here."""
    z = np.asarray(logits, dtype=np.float64)[:-1]
    logp = z - z.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(ids) - 1), np.asarray(ids)[1:]]


KNOCKS = [[], [(0, 1)], [(2, 3)], [(1, 0), (1, 3), (2, 2)], [(0, 0), (2, 1)]]


@pytest.mark.parametrize("ablation", hw.ABLATIONS)
def test_tiny_batched_knockouts_are_each_knockout_to_the_last_bit(tiny, ablation):
    """knockout_runs (the clean stream up to each set's first knocked block, the sets stacked) gives each
    set's knockout_forward losses and weights exactly, and the float64 reference's losses."""
    losses, weights = hw.knockout_runs(tiny, IDS, KNOCKS, ablation, keep_weights=True)
    assert losses.shape == (len(KNOCKS), len(IDS) - 1)
    for k, knock in enumerate(KNOCKS):
        logits, w = hw.knockout_forward(tiny, IDS, knock, ablation, keep_weights=True)
        assert np.array_equal(losses[k], rm.token_losses(logits, IDS)) and np.array_equal(weights[k], w)
        want = hand_token_losses(reference(tiny, IDS, knock, ablation)[0], IDS)
        assert np.abs(losses[k] - want).max() < 1e-4
    later, _ = hw.knockout_runs(tiny, IDS, KNOCKS, ablation, start=6)
    assert np.array_equal(later, losses[:, 6:])                          # only the losses asked for


def test_tiny_knockout_rows_split_the_two_copies(tiny):
    ids = [3, 17, 42, 8, 51, 3, 17, 42, 8, 51]                           # period 5
    rows = hw.knockout_rows(tiny, ids, {"none": [], "one": [(1, 2)]}, 5, [(2, 0)])
    for name, knock in (("none", []), ("one", [(1, 2)])):
        for ablation in hw.ABLATIONS:
            per_token = hand_token_losses(reference(tiny, ids, knock, ablation)[0], ids)
            assert abs(rows[name][f"first copy, {ablation}"] - per_token[:4].mean()) < 1e-4
            assert abs(rows[name][f"second copy, {ablation}"] - per_token[5:].mean()) < 1e-4
    assert rows["one"]["second copy, zero"] != rows["one"]["second copy, mean"]


def test_tiny_knockout_rows_give_each_watched_heads_own_prefix_score(tiny):
    """Round 20, item 2: each watched head's score, by hand from knockout_forward's weights (query q reads
    key q - period + 1), and their mean is the row's prefix score."""
    ids, watch = [3, 17, 42, 8, 51, 3, 17, 42, 8, 51], [(2, 0), (1, 3), (2, 3)]
    rows = hw.knockout_rows(tiny, ids, {"none": [], "one": [(1, 2)]}, 5, watch)
    for name, knock in (("none", []), ("one", [(1, 2)])):
        for ablation in hw.ABLATIONS:
            _, weights = hw.knockout_forward(tiny, ids, knock, ablation, keep_weights=True)
            by_head = rows[name][f"prefix score by head, {ablation}"]
            assert list(by_head) == watch
            for layer, head in watch:
                want = np.mean([weights[layer][head][q, q - 4] for q in range(5, 9)])   # queries 5..8
                assert abs(by_head[layer, head] - want) < 1e-6, (name, ablation, layer, head)
            assert abs(np.mean(list(by_head.values())) - rows[name][f"prefix score, {ablation}"]) < 1e-6


def test_random_head_sets_come_from_one_generator(tiny):
    sets = hw.random_head_sets(tiny, 5, 40, seed=7)
    assert sets[0] == hw.random_heads(tiny, 5, 7) and len({tuple(s) for s in sets}) > 30
    rng = np.random.default_rng(7)                                       # by hand: one draw after another
    assert sets == [sorted(divmod(int(i), H) for i in rng.choice(LAYERS * H, 5, replace=False))
                    for _ in range(40)]


def test_percentile_is_the_share_strictly_below():
    assert hw.percentile_of(3.0, [1.0, 2.0, 3.0, 4.0]) == 50.0 and hw.percentile_of(9, [1, 2]) == 100.0
    with pytest.raises(ValueError, match="others is empty"):
        hw.percentile_of(1.0, [])


@pytest.mark.parametrize("call, error, words", [
    (lambda m: hw.knockout_runs(m, IDS, []), TypeError, "expected a list of knockouts"),
    (lambda m: hw.knockout_runs(m, IDS, [[(0, 9)]]), ValueError, "head 9 of layer 0"),
    (lambda m: hw.knockout_runs(m, IDS, [[]], start=10), ValueError, "start is 10 with 11 tokens"),
    (lambda m: hw.knockout_rows(m, [3, 17, 42, 8, 51] * 2, {"a": []}, 5, [(0, 0)], "zero"), TypeError,
     "ablations is"),
    (lambda m: hw.random_head_sets(m, 2, 0), ValueError, "sets is 0"),
])
def test_batched_knockouts_refuse_bad_input(tiny, call, error, words):
    with pytest.raises(error, match=words):
        call(tiny)


def test_tiny_a_knockout_changes_only_the_blocks_after_it(tiny):
    _, clean = rm.forward(tiny, IDS, keep_weights=True)
    _, knocked = hw.knockout_forward(tiny, IDS, [(1, 2)], keep_weights=True)
    assert np.array_equal(knocked[0], clean[0]) and np.array_equal(knocked[1], clean[1])
    assert not np.allclose(knocked[2], clean[2], atol=1e-4)


@pytest.mark.parametrize("block", range(LAYERS))
def test_tiny_every_head_of_a_block_knocked_out_is_the_block_without_attention(tiny, block):
    got, _ = hw.knockout_forward(tiny, IDS, [(block, head) for head in range(H)])
    close(got, reference(tiny, IDS, no_attention={block})[0])


def test_duplicate_pairs_knock_a_head_once(tiny):
    once, _ = hw.knockout_forward(tiny, IDS, [(1, 1)], "mean")
    twice, _ = hw.knockout_forward(tiny, IDS, [(1, 1), (1, 1)], "mean")
    assert np.array_equal(once, twice)


# ---------------------------------------------------------------------------- the sliding window
@pytest.mark.parametrize("window, keep", [(1, 0), (3, 0), (3, 1), (2, 4), (4, 2), (5, 30)])
def test_tiny_window_matches_the_reference_with_a_mask_built_by_hand(tiny, window, keep):
    got, weights = hw.window_forward(tiny, IDS, window, keep, keep_weights=True)
    allowed = hand_mask(len(IDS), window, keep)
    close(got, reference(tiny, IDS, allowed=allowed)[0])
    for w in weights:                                                    # (h, n, n) per block
        assert np.all(w[:, ~allowed] == 0) and np.allclose(w.sum(axis=-1), 1.0, atol=1e-6)
    assert np.array_equal(hw.window_mask(len(IDS), window, keep), allowed)


def test_tiny_a_window_as_long_as_the_text_is_full_attention(tiny):
    logits, _ = rm.forward(tiny, IDS)
    for window, keep in [(len(IDS), 0), (len(IDS) + 5, 0), (len(IDS), 3), (1, len(IDS))]:
        assert np.array_equal(hw.window_forward(tiny, IDS, window, keep)[0], logits)
    assert not np.allclose(hw.window_forward(tiny, IDS, 3)[0], logits, atol=1e-3)


def test_window_of_one_token_attends_to_itself(tiny):
    _, weights = hw.window_forward(tiny, IDS, 1, keep_weights=True)
    for w in weights:
        np.testing.assert_array_equal(w, np.broadcast_to(np.eye(len(IDS)), w.shape))


# ---------------------------------------------------------------------------- the logit lens
def test_tiny_logit_lens_matches_the_reference_at_every_block(tiny):
    lens = hw.logit_lens(tiny, IDS)
    want = reference(tiny, IDS)[1]
    assert lens.shape == (LAYERS, len(IDS), VOCAB)
    for layer in range(LAYERS):
        close(lens[layer], want[layer])
    assert np.array_equal(lens[-1], rm.forward(tiny, IDS)[0])           # the last block: the logits
    last = hw.logit_lens(tiny, IDS, last_only=True)
    assert last.shape == (LAYERS, VOCAB)
    np.testing.assert_allclose(last, lens[:, -1], rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------- probabilities, sampling
LOGITS = np.array([2.0, -1.0, 0.5, 3.0, 0.5, -4.0, 1.25])


def hand_probs(z, tau, k):
    """softmax(z / tau) over the k largest entries (the lower index first on a tie), zeros elsewhere."""
    ranked = sorted(range(len(z)), key=lambda i: (-z[i], i))[:k]
    p = np.zeros(len(z))
    top = max(z[i] for i in ranked)
    for i in ranked:
        p[i] = np.exp((z[i] - top) / tau)
    return p / p.sum()


@pytest.mark.parametrize("tau", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
def test_probabilities_are_a_softmax_of_logits_over_tau_on_the_top_k(tau, k):
    p = hw.next_token_probs(LOGITS, tau, k)
    assert p.shape == LOGITS.shape and abs(p.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(p, hand_probs(LOGITS, tau, k), rtol=1e-12, atol=1e-15)
    assert np.count_nonzero(p) == k


def test_every_token_kept_when_top_k_is_none():
    z = LOGITS / 0.7
    want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose(hw.next_token_probs(LOGITS, 0.7), want, rtol=1e-12)
    np.testing.assert_allclose(hw.next_token_probs(LOGITS, 0.7, None), hw.next_token_probs(LOGITS, 0.7, 7))


def test_ties_keep_the_lower_id():
    p = hw.next_token_probs(LOGITS, 1.0, 4)                              # 0.5 twice: ids 2 and 4
    assert p[2] > 0 and p[4] == 0
    np.testing.assert_allclose(hw.next_token_probs(np.zeros(10), 2.0, 3), [1 / 3] * 3 + [0] * 7)
    np.testing.assert_allclose(hw.next_token_probs([0.0, 5.0, 5.0, 5.0, 5.0], 1.0, 2), [0, 0.5, 0.5, 0, 0])
    np.testing.assert_array_equal(hw.next_token_probs([1.0, 3.0, 3.0], 0), [0, 1, 0])      # greedy: argmax
    assert hw.sample_token([1.0, 3.0, 3.0], 0.0, None, 5) == 1 == hw.sample_token([1.0, 3.0, 3.0], 9.0, 1, 5)


def test_tau_zero_and_k_one_are_greedy():
    best = int(np.argmax(LOGITS))
    for tau, k in [(0, 1), (0.0, None), (0, 3), (1.0, 1), (5.0, 1)]:
        p = hw.next_token_probs(LOGITS, tau, k)
        assert p[best] == 1.0 and p.sum() == 1.0
        assert all(hw.sample_token(LOGITS, tau, k, seed) == best for seed in range(20))


def test_a_tiny_tau_is_greedy_without_overflow():
    z = np.array([1000.0, 999.0, -1000.0])
    np.testing.assert_array_equal(hw.next_token_probs(z, 1e-300), [1.0, 0.0, 0.0])


def test_samples_are_seeded_and_follow_the_probabilities():
    p = hand_probs(LOGITS, 1.5, 4)
    draws = [hw.sample_token(LOGITS, 1.5, 4, seed) for seed in range(4000)]
    assert draws[:50] == [hw.sample_token(LOGITS, 1.5, 4, seed) for seed in range(50)]
    freq = np.bincount(draws, minlength=len(LOGITS)) / len(draws)
    assert np.all(freq[p == 0] == 0)
    assert np.abs(freq - p).max() < 4 * np.sqrt(0.25 / len(draws))     # four standard errors at most
    assert len(set(draws[:20])) > 1                                      # the seed matters


# ---------------------------------------------------------------------------- bad inputs, no mutation
BAD = [
    (lambda m: hw.knockout_forward(m, IDS, [(LAYERS, 0)]), ValueError,
     f"head 0 of layer {LAYERS}: expected layers 0..{LAYERS - 1} and heads 0..{H - 1}"),
    (lambda m: hw.knockout_forward(m, IDS, [(-1, 0)]), ValueError, "expected layers 0.."),
    (lambda m: hw.knockout_forward(m, IDS, [(0, H)]), ValueError, f"head {H} of layer 0: expected layers"),
    (lambda m: hw.knockout_forward(m, IDS, [(0.0, 1)]), TypeError, "pairs of whole numbers"),
    (lambda m: hw.knockout_forward(m, IDS, [(0, 1, 2)]), TypeError, "expected \\(layer, head\\) pairs"),
    (lambda m: hw.knockout_forward(m, IDS, 3), TypeError, "expected a list of \\(layer, head\\) pairs"),
    (lambda m: hw.knockout_forward(m, IDS, [(0, 1)], "half"), ValueError, "ablation is 'half': expected"),
    (lambda m: hw.knockout_forward(m, [0.5, 1.0], []), TypeError, "expected token ids"),
    (lambda m: hw.knockout_forward(m, [VOCAB], []), ValueError, f"whole numbers in 0..{VOCAB - 1}"),
    (lambda m: hw.knockout_forward("model", IDS, []), TypeError, "model is a str: expected a RealModel"),
    (lambda m: hw.window_forward(m, IDS, 0), ValueError, "window is 0: expected a whole number >= 1"),
    (lambda m: hw.window_forward(m, IDS, 2.0), TypeError, "window is 2.0 of type float"),
    (lambda m: hw.window_forward(m, IDS, 4, -1), ValueError, "keep is -1: expected a whole number >= 0"),
    (lambda m: hw.window_forward(m, IDS, 4, True), TypeError, "keep is True of type bool"),
    (lambda m: hw.window_mask(0, 3), ValueError, "n \\(number of tokens\\) is 0"),
    (lambda m: hw.logit_lens(m, []), ValueError, "expected one or more whole numbers"),
    (lambda m: hw.next_token_probs(LOGITS, -0.5), ValueError, "tau is -0.5: expected a finite number >= 0"),
    (lambda m: hw.next_token_probs(LOGITS, float("inf")), ValueError, "tau is inf"),
    (lambda m: hw.next_token_probs(LOGITS, "hot"), TypeError, "tau is 'hot' of type str"),
    (lambda m: hw.next_token_probs(LOGITS, 1.0, 0), ValueError, "top_k is 0: expected a whole number >= 1"),
    (lambda m: hw.next_token_probs(LOGITS, 1.0, 2.0), TypeError, "top_k is 2.0 of type float"),
    (lambda m: hw.next_token_probs(LOGITS, 1.0, 8), ValueError, "top_k is 8 but there are 7 tokens"),
    (lambda m: hw.next_token_probs(np.ones((2, 7)), 1.0), ValueError, "expected one row \\(vocab,\\)"),
    (lambda m: hw.next_token_probs([1.0, np.nan], 1.0), ValueError, "every entry must be a finite number"),
    (lambda m: hw.sample_token(LOGITS, 1.0, 3, -1), ValueError, "seed is -1"),
    (lambda m: hw.sample_token(LOGITS, 1.0, 3, 0.5), TypeError, "seed is 0.5 of type float"),
]


@pytest.mark.parametrize("call, error, words", BAD, ids=[b[2][:40] for b in BAD])
def test_bad_inputs_are_refused_with_what_was_expected(tiny, call, error, words):
    with pytest.raises(error, match=words):
        call(tiny)


def test_inputs_are_not_changed(tiny):
    def arrays():
        held = {f"{i}.{f.name}": getattr(b, f.name) for i, b in enumerate(tiny.blocks)
                for f in dataclasses.fields(b)}
        return held | {"embedding": tiny.embedding, "final_norm": tiny.final_norm}

    before = {name: a.copy() for name, a in arrays().items()}
    ids, arr, knock = list(IDS), np.array(IDS), [(0, 1), (2, 3)]
    logits = np.array([2.0, -1.0, 0.5, 3.0, 0.5, -4.0, 1.25])
    hw.knockout_forward(tiny, ids, knock, "mean")
    hw.knockout_forward(tiny, arr, np.array(knock))
    hw.window_forward(tiny, arr, 2, 1)
    hw.logit_lens(tiny, ids, last_only=True)
    hw.next_token_probs(logits, 0.5, 3)
    hw.sample_token(logits, 0.0, 2, 1)
    assert ids == IDS and np.array_equal(arr, IDS) and knock == [(0, 1), (2, 3)]
    assert np.array_equal(logits, [2.0, -1.0, 0.5, 3.0, 0.5, -4.0, 1.25])
    assert all(np.array_equal(before[name], a) for name, a in arrays().items())


def test_stream_text_is_long_enough_for_the_window():
    assert len(hw.STREAM_TEXT.split()) > 250


# ---------------------------------------------------------------------------- the real model
@pytest.fixture(scope="module")
def paris(real_model):
    return rm.encode(real_model, "The capital of France is Paris, and the capital of Italy is")


def test_real_knockout_of_nothing_is_forward_and_a_knocked_block_has_no_attention(real_model, paris):
    logits, weights = rm.forward(real_model, paris, keep_weights=True)
    got, got_w = hw.knockout_forward(real_model, paris, [], keep_weights=True)
    assert np.array_equal(got, logits) and all(np.array_equal(a, b) for a, b in zip(got_w, weights))
    block = 3
    silent = dataclasses.replace(real_model.blocks[block], W_O=np.zeros_like(real_model.blocks[block].W_O))
    blocks = [*real_model.blocks[:block], silent, *real_model.blocks[block + 1:]]
    no_attention = dataclasses.replace(real_model, blocks=blocks)
    knocked, _ = hw.knockout_forward(real_model, paris, [(block, head) for head in range(real_model.n_heads)])
    assert np.array_equal(knocked, rm.forward(no_attention, paris)[0])
    close(knocked, reference(real_model, paris, no_attention={block})[0])


def test_real_knockout_and_window_match_the_reference(real_model, paris):
    knock = [(4, 6), (16, 0), (24, 2)]
    close(hw.knockout_forward(real_model, paris, knock, "mean")[0],
          reference(real_model, paris, knock, "mean")[0])
    allowed = hand_mask(len(paris), 4, 1)
    close(hw.window_forward(real_model, paris, 4, 1)[0], reference(real_model, paris, allowed=allowed)[0])


def test_real_full_window_is_forward_and_the_lens_ends_at_the_logits(real_model, paris):
    logits, _ = rm.forward(real_model, paris)
    assert np.array_equal(hw.window_forward(real_model, paris, len(paris))[0], logits)
    lens = hw.logit_lens(real_model, paris)
    assert lens.shape == (real_model.n_layers, len(paris), len(real_model.embedding))
    assert np.array_equal(lens[-1], logits)
    np.testing.assert_allclose(hw.logit_lens(real_model, paris, last_only=True), lens[:, -1],
                               rtol=1e-5, atol=1e-4)
    assert rm.decode(real_model, [int(np.argmax(lens[-1, -1]))]) == " Rome"


def test_a_clean_run_handed_in_is_part_of_the_shared_key(real_model, paris, tmp_path, monkeypatch):
    """Review 60: knockout_runs' result is shared within a test run (run_memo) under a key that holds the
    clean run handed in, not only whether one was: the clean run of another text of the same length, asked
    first, must not answer for the text's own."""
    from attention_lab import run_memo
    monkeypatch.setenv(run_memo.ENV, str(tmp_path))                      # an empty folder of this run's
    other = rm.encode(real_model, "The capital of Spain is Madrid, and the capital of Japan is")
    assert len(other) == len(paris)
    knock = [[(3, 1)]]
    others, _ = hw.knockout_runs(real_model, other, knock)                # the other text's own losses
    handed, _ = hw.knockout_runs(real_model, paris, knock, clean=hw.clean_run(real_model, np.array(other),
                                                                              False))
    right, _ = hw.knockout_runs(real_model, paris, knock, clean=hw.clean_run(real_model, np.array(paris),
                                                                             False))
    monkeypatch.delenv(run_memo.ENV)
    alone, _ = hw.knockout_runs(real_model, paris, knock)                 # computed here, nothing shared
    assert np.array_equal(right, alone)
    assert not np.allclose(handed, alone) and not np.allclose(others, alone)
