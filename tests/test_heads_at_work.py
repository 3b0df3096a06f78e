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


def reference(model, ids, knock=(), ablation="zero", allowed=None, no_attention=(), lens=False):
    """Logits (n, vocab), in float64; and with `lens`, the logits read from the residual stream after each
    block (layers, n, vocab), else None (for the real model the lens is 30 products with its 49,152-word
    embedding, about a second of CPU, which a test of the last logits does not need)."""
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
    streams = np.array(streams if lens else streams[-1:])
    normed = norm(streams, model.final_norm.astype(np.float64))             # (layers, n, d)
    E = model.embedding
    logits = np.concatenate([normed @ E[s:s + 8192].T.astype(np.float64) for s in range(0, len(E), 8192)],
                            axis=-1)
    return logits[-1], (logits if lens else None)                           # (n, vocab), (layers, n, vocab)


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


def test_tiny_batched_knockouts_are_the_forward_pass_to_the_last_bit_in_float64_too(tiny):
    """The batched knockouts turn Q and K by RoPE's angles in the queries' dtype, as the forward pass does."""
    def wide(arrays):
        return {f.name: getattr(arrays, f.name).astype(np.float64) for f in dataclasses.fields(arrays)}

    model = dataclasses.replace(tiny, embedding=tiny.embedding.astype(np.float64),
                                final_norm=tiny.final_norm.astype(np.float64),
                                blocks=[dataclasses.replace(b, **wide(b)) for b in tiny.blocks])
    assert rm.rope_turn(model, np.arange(3))[0].dtype == np.float64                   # the queries' dtype
    losses, _ = hw.knockout_runs(model, IDS, KNOCKS[:2], "zero")
    for k, knock in enumerate(KNOCKS[:2]):
        logits, _ = hw.knockout_forward(model, IDS, knock, "zero")
        assert logits.dtype == np.float64 and np.array_equal(losses[k], rm.token_losses(logits, IDS))


@pytest.mark.parametrize("ablation", hw.ABLATIONS)
def test_tiny_batched_knockouts_use_the_models_own_eps(tiny, ablation):
    rough = dataclasses.replace(tiny, eps=0.5)                           # every RMSNorm: 0.5, not 1e-5
    losses, _ = hw.knockout_runs(rough, IDS, [[(1, 2)], [(0, 0), (2, 1)]], ablation, start=2)
    for got, knock in zip(losses, [[(1, 2)], [(0, 0), (2, 1)]]):
        want = hand_token_losses(reference(rough, IDS, knock, ablation)[0], IDS)[2:]
        assert np.abs(got - want).max() < 1e-4


def test_tiny_a_clean_run_handed_in_is_the_one_used(tiny):
    other = [5, 18, 43, 9, 4, 18, 43, 9, 58, 1, 26]
    alone, _ = hw.knockout_runs(tiny, IDS, [[(1, 3)]])
    own, _ = hw.knockout_runs(tiny, IDS, [[(1, 3)]], clean=hw.clean_run(tiny, np.array(IDS), False))
    wrong, _ = hw.knockout_runs(tiny, IDS, [[(1, 3)]], clean=hw.clean_run(tiny, np.array(other), False))
    assert np.array_equal(own, alone) and not np.allclose(wrong, alone, atol=1e-2)


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
    (lambda m: hw.random_head_sets(m, 2, 3, -1), ValueError, "seed is -1"),
    (lambda m: hw.knockout_rows(m, [3, 17, 42, 8, 51] * 2, {1: [], "1": []}, 5, [(0, 0)]), ValueError,
     "^sets use the name"),
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
    assert len(weights) == LAYERS and all(w.shape == (H, len(IDS), len(IDS)) for w in weights)
    for w in weights:                                                    # (h, n, n) per block
        assert np.all(w[:, ~allowed] == 0) and np.allclose(w.sum(axis=-1), 1.0, atol=1e-6)
    assert np.array_equal(hw.window_mask(len(IDS), window, keep), allowed)


def test_tiny_a_window_as_long_as_the_text_is_full_attention(tiny):
    logits, _ = rm.forward(tiny, IDS)
    for window, keep in [(len(IDS), 0), (len(IDS) + 5, 0), (len(IDS), 3), (1, len(IDS))]:
        assert np.array_equal(hw.window_forward(tiny, IDS, window, keep)[0], logits)
    assert not np.allclose(hw.window_forward(tiny, IDS, 3)[0], logits, atol=1e-3)


def test_by_default_no_weights_are_kept_and_no_first_token(tiny):
    assert hw.window_forward(tiny, IDS, 3)[1] == [] and hw.knockout_forward(tiny, IDS, [(0, 1)])[1] == []
    np.testing.assert_array_equal(hw.window_mask(6, 2), hand_mask(6, 2, 0))
    np.testing.assert_array_equal(hw.window_forward(tiny, IDS, 3)[0], hw.window_forward(tiny, IDS, 3, 0)[0])


def test_window_of_one_token_attends_to_itself(tiny):
    _, weights = hw.window_forward(tiny, IDS, 1, keep_weights=True)
    for w in weights:
        np.testing.assert_array_equal(w, np.broadcast_to(np.eye(len(IDS)), w.shape))


# ---------------------------------------------------------------------------- the logit lens
def test_tiny_logit_lens_uses_the_models_own_eps(tiny):
    rough = dataclasses.replace(tiny, eps=0.5)                           # not RMSNorm's usual 1e-5
    lens = hw.logit_lens(rough, IDS)
    for layer, want in enumerate(reference(rough, IDS, lens=True)[1]):
        close(lens[layer], want)


def test_tiny_logit_lens_matches_the_reference_at_every_block(tiny):
    lens = hw.logit_lens(tiny, IDS)
    want = reference(tiny, IDS, lens=True)[1]
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


def test_a_sample_by_default_is_at_tau_1_with_seed_0():
    p = hand_probs(LOGITS, 1.0, 7)
    assert hw.sample_token(LOGITS) == np.random.default_rng(0).choice(7, p=p)
    draws = {seed: hw.sample_token(LOGITS, seed=seed) for seed in range(30)}
    assert draws == {seed: np.random.default_rng(seed).choice(7, p=p) for seed in range(30)}
    assert hw.sample_token(LOGITS, 1.0, None) == hw.sample_token(LOGITS, 1.0, None, 0)
    flat = np.full(50, 1 / 50)                                           # 50 equal logits: seed 0's draw
    assert hw.sample_token(np.zeros(50)) == np.random.default_rng(0).choice(50, p=flat) \
        != np.random.default_rng(1).choice(50, p=flat)
    np.testing.assert_allclose(hw.next_token_probs(LOGITS), hand_probs(LOGITS, 1.0, 7), rtol=1e-12)


def test_a_tiny_tau_is_greedy_without_overflow():
    z = np.array([1000.0, 999.0, -1000.0])
    np.testing.assert_array_equal(hw.next_token_probs(z, 1e-300), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(hw.next_token_probs(z, 1e-307), [1.0, 0.0, 0.0])   # -2000 / tau: -inf


def test_many_ties_keep_the_lowest_ids():
    z = np.random.default_rng(3).integers(0, 3, 300).astype(float)      # 0, 1, 2: about 100 of each
    top = [i for i in range(300) if z[i] == 2][:10]                      # the 10 lowest ids of the largest
    p = hw.next_token_probs(z, 1.0, 10)
    assert np.flatnonzero(p).tolist() == top
    np.testing.assert_allclose(p[top], 0.1, rtol=1e-12)


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


# ---------------------------------------------------------------------------- issue 46: the quick lane
# The tests below run on the tiny model (no file) and compare with numbers worked out here: the float64
# reference above, losses by hand, ranks counted in a loop, orders of random sets enumerated.
REPEAT = [3, 17, 42, 8, 51, 3, 17, 42, 8, 51]                           # repeats after 5 tokens


def hand_prefix_score(weights, period, watch):
    """The mean weight each watched head gives, from queries period..n - 2, to the key period - 1 back."""
    n = weights[0].shape[-1]
    return [np.mean([weights[layer][head][q, q - period + 1] for q in range(period, n - 1)])
            for layer, head in watch]


@pytest.mark.parametrize("ablation", hw.ABLATIONS)
def test_tiny_second_copy_loss_and_the_table_by_hand(tiny, ablation):
    watch = [(2, 0), (1, 3)]
    sets = {"none": [], "two": [(1, 2), (0, 3)], "block 2": [(2, h) for h in range(H)]}
    table = hw.knockout_table(tiny, REPEAT, sets, 5, watch, ablation)
    assert list(table) == ["none", "two", "block 2"]
    for name, knock in sets.items():
        per_token = hand_token_losses(reference(tiny, REPEAT, knock, ablation)[0], REPEAT)   # tokens 1..9
        want = per_token[5:].mean()                                      # predicting tokens 6..9
        assert abs(hw.second_copy_loss(tiny, REPEAT, knock, 5, ablation) - want) < 1e-4
        assert abs(table[name][0] - want) < 1e-4
        _, weights = hw.knockout_forward(tiny, REPEAT, knock, ablation, keep_weights=True)
        assert abs(table[name][1] - np.mean(hand_prefix_score(weights, 5, watch))) < 1e-6
    assert table["two"][0] != table["none"][0] and table["two"][1] != table["none"][1]
    assert table["block 2"][1] == table["none"][1]                      # its own block's weights stay
    assert hw.second_copy_loss(tiny, REPEAT, [(1, 2)], 5) == hw.second_copy_loss(tiny, REPEAT, [(1, 2)], 5,
                                                                                    "zero")


@pytest.mark.parametrize("ablation", hw.ABLATIONS)
def test_tiny_random_control_knocks_out_each_drawn_set(tiny, ablation):
    drawn, losses = hw.random_control(tiny, REPEAT, 3, 6, 5, seed=4, ablation=ablation)
    rng = np.random.default_rng(4)                                       # by hand: one draw after another
    assert drawn == [sorted(divmod(int(i), H) for i in rng.choice(LAYERS * H, 3, replace=False))
                     for _ in range(6)]
    assert losses.shape == (6,)
    for knock, loss in zip(drawn, losses):
        per_token = hand_token_losses(reference(tiny, REPEAT, knock, ablation)[0], REPEAT)
        assert abs(loss - per_token[5:].mean()) < 1e-4
    assert hw.random_control(tiny, REPEAT, 3, 6, 5)[1].tolist() == hw.random_control(
        tiny, REPEAT, 3, 6, 5, 0, "zero")[1].tolist()


def test_random_heads_default_seed_is_zero(tiny):
    rng = np.random.default_rng(0)
    assert hw.random_heads(tiny, 4) == sorted(divmod(int(i), H) for i in rng.choice(LAYERS * H, 4,
                                                                                     replace=False))
    assert hw.random_head_sets(tiny, 4, 2) == hw.random_head_sets(tiny, 4, 2, 0)
    assert len(hw.random_heads(tiny, LAYERS * H)) == LAYERS * H         # every head, each once


@pytest.mark.parametrize("sets", [1, 2, 3, 4, 5])
def test_the_chance_of_a_random_control_counted_over_every_order(sets):
    """chance_at_least(below, sets): the share of the (sets + 1)! orders of distinct losses in which the
    last one (one more set) is above at least `below` of the others, counted here."""
    import itertools
    orders = list(itertools.permutations(range(sets + 1)))
    for below in range(sets + 1):
        counted = sum(sum(other < order[-1] for other in order[:-1]) >= below for order in orders)
        assert hw.chance_at_least(below, sets) == pytest.approx(counted / len(orders), abs=1e-12)
    assert hw.chance_at_least(50, 50) == pytest.approx(1 / 51) and hw.chance_at_least(0, 50) == 1.0


def test_percentile_of_reads_every_number_given():
    assert hw.percentile_of(2.5, [[1, 2], [3, 4]]) == 50.0
    assert hw.percentile_of(np.float32(2), (1, 1, 2, 3)) == 50.0
    assert hw.percentile_of(0, [1]) == 0.0 and hw.percentile_of(7, [1, 2, 3, 4, 5, 6, 7, 8]) == 75.0


def hand_ranks_and_probs(lens, token):
    """Rank (1 + how many score strictly more) and softmax probability of `token` in each row, by loops."""
    ranks, probs = [], []
    for row in np.asarray(lens, dtype=np.float64):
        ranks.append(1 + sum(1 for v in row if v > row[token]))
        probs.append(np.exp(row[token]) / sum(np.exp(v) for v in row))
    return ranks, probs


def test_lens_rank_counts_the_tokens_above_and_takes_a_softmax():
    lens = np.array([[1.0, 3.0, 3.0, -2.0, 0.5],                         # token 2 ties token 1: rank 1
                     [4.0, 2.0, 1.0, 1.0, 0.0],                          # 4.0 and 2.0 above token 2: rank 3
                     [0.0, 0.0, 0.0, 0.0, 0.0],
                     [-1.0, -2.0, 5.0, 9.0, 8.0]])
    ranks, probs = hw.lens_rank(lens, 2)
    want_ranks, want_probs = hand_ranks_and_probs(lens, 2)
    assert ranks.tolist() == want_ranks == [1, 3, 1, 3]
    np.testing.assert_allclose(probs, want_probs, rtol=1e-12)
    ranks, probs = hw.lens_rank(lens.tolist(), np.int64(0))
    assert ranks.tolist() == hand_ranks_and_probs(lens, 0)[0] == [3, 1, 1, 4]
    np.testing.assert_allclose(probs, hand_ranks_and_probs(lens, 0)[1], rtol=1e-12)
    big = np.array([[1000.0, 999.0, 0.0]])                               # no overflow: a row's max comes off
    np.testing.assert_allclose(hw.lens_rank(big, 1)[1], [1 / (1 + np.e + np.exp(-999.0))], rtol=1e-12)


def test_tiny_lens_rank_reads_the_lens_of_the_tiny_model(tiny):
    lens = hw.logit_lens(tiny, IDS, last_only=True)
    want = reference(tiny, IDS, lens=True)[1][:, -1]                    # (layers, vocab), float64
    ranks, probs = hw.lens_rank(lens, 17)
    assert ranks.tolist() == hand_ranks_and_probs(want, 17)[0]
    np.testing.assert_allclose(probs, hand_ranks_and_probs(want, 17)[1], rtol=1e-4)


def test_a_digest_tells_shapes_types_values_and_order_apart():
    a = np.arange(6, dtype=np.int32)
    same = [hw.digest([a]), hw.digest([a.copy()]), hw.digest([np.repeat(a, 2)[::2]])]
    assert len(set(same)) == 1 and len(same[0]) == 64
    assert hw.digest([a[::2]]) == hw.digest([np.array([0, 2, 4], np.int32)])   # a strided view: its values
    others = [hw.digest([a.reshape(2, 3)]), hw.digest([a.view(np.float32)]), hw.digest([a + 1]),
              hw.digest([a, a]), hw.digest([a[:3], a[3:]]), hw.digest([a[3:], a[:3]]), hw.digest([])]
    assert len({same[0], *others}) == 1 + len(others)


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    """The tiny model of tests/test_real_model.py loaded from its file, mapped as the real model is: its
    knockout losses are shared within a test run (run_memo) under shared_key."""
    pytest.importorskip("gguf")
    from test_real_model import tiny_weights, write_tiny
    where = tmp_path_factory.mktemp("mapped")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_LAB_CACHE", str(where / "cache"))
        write_tiny(where / "tiny.gguf", tiny_weights())
        model = rm.load_model(where / "tiny.gguf")
    assert rm.shared_key(model) is not None
    return model


def test_shared_knockouts_are_each_calls_own(mapped, tmp_path, monkeypatch):
    """Within a test run, knockout_runs' losses are read back under a key: each call below differs from the
    first in one part of what it asks (the text, the heads, the ablation, whether weights are kept, where
    the losses start, the clean run handed in) and must get its own result, the one computed with nothing
    shared."""
    from test_run_memo import as_a_student_has_it

    from attention_lab import run_memo
    as_a_student_has_it(monkeypatch)                                     # under mutmut too: sharing on
    ids, other = [1, 40, 90, 7, 200, 33, 40, 90], [5, 41, 91, 8, 201, 34, 41, 91]
    calls = [dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]]),
             dict(ids=other, sets=[[(1, 2)], [(0, 1), (1, 0)]]),
             dict(ids=ids, sets=[[(1, 3)], [(0, 1), (1, 0)]]),
             dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]], ablation="mean"),
             dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]], keep_weights=True),
             dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]], start=3),
             dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]], clean="other"),
             dict(ids=ids, sets=[[(1, 2)], [(0, 1), (1, 0)]], clean="own")]

    def run(call):
        call = dict(call)
        if "clean" in call:
            call["clean"] = hw.clean_run(mapped, np.array(other if call["clean"] == "other" else ids), False)
        return hw.knockout_runs(mapped, **call)

    monkeypatch.setenv(run_memo.ENV, str(tmp_path))                      # an empty folder of this run's
    shared = [run(call) for call in calls]
    assert len(list(tmp_path.glob("knocked_losses-*.pickle"))) == len(calls)      # one result each
    again = run(calls[4])                                                # read back: no new file
    assert len(list(tmp_path.glob("knocked_losses-*.pickle"))) == len(calls)
    assert np.array_equal(again[0], shared[4][0]) and np.array_equal(again[1][1], shared[4][1][1])
    monkeypatch.delenv(run_memo.ENV)
    for call, (losses, weights) in zip(calls, shared):
        alone, alone_w = run(call)                                       # computed here, nothing shared
        assert np.array_equal(losses, alone) and len(weights) == len(alone_w), call
        assert all(np.array_equal(a, b) for a, b in zip(weights, alone_w))
    first = shared[0][0]
    assert shared[5][0].shape == (2, len(ids) - 1 - 3)
    np.testing.assert_allclose(shared[5][0], first[:, 3:], atol=1e-4)    # the losses of tokens 4 on
    assert all(not np.array_equal(first, losses) for losses, _ in shared[1:4])
    assert np.array_equal(first, shared[-1][0]) and not np.allclose(first, shared[-2][0])


# ---------------------------------------------------------------------------- the figures, as drawn
def texts(ax):
    return {t.get_text(): t for t in ax.texts}


def test_plot_knockouts_draws_each_row_each_loss_and_the_first_copy():
    import matplotlib
    import matplotlib.colors as mcolors
    matplotlib.use("Agg")
    rows = {"none": (1.8, 0.66), "seven": (11.7, 0.57)}
    fig = hw.plot_knockouts(rows, {"8 random sets": [2.0, 3.5, 3.0]}, 14.2, title="zero-ablation")
    left, right = fig.axes
    assert tuple(fig.get_size_inches()) == pytest.approx((14, 0.8 * 3 + 1.7))
    assert fig.get_suptitle() == "zero-ablation" and fig._suptitle.get_fontsize() == 14
    for ax, values, color in ((left, (1.8, 11.7), "#333333"), (right, (0.66, 0.57), "#CC79A7")):
        bars = ax.patches
        assert [(b.get_width(), b.get_y() + b.get_height() / 2) for b in bars] == \
            [pytest.approx((values[0], 2)), pytest.approx((values[1], 1))]        # "none" on top
        assert all(b.get_height() == pytest.approx(0.6) and b.get_x() == 0 for b in bars)
        assert all(mcolors.to_hex(b.get_facecolor()) == color.lower() for b in bars)
        for value, y in zip(values, (2, 1)):
            label = texts(ax)[f" {value:.2f}"]
            assert label.get_position() == pytest.approx((value, y)) and label.get_fontsize() == 13
            assert label.get_va() == "center"
        assert ax.xaxis.label.get_fontsize() == 13
        assert all(t.get_fontsize() == 13 for t in ax.get_yticklabels() + ax.get_xticklabels())
    assert left.get_xlabel() == "loss on the second copy (nats)"
    assert right.get_xlabel() == "prefix-matching score of the candidates"
    dots = [line for line in left.get_lines() if line.get_marker() == "o"]
    assert len(dots) == 1 and list(dots[0].get_xdata()) == [2.0, 3.5, 3.0]
    np.testing.assert_allclose(dots[0].get_ydata(), [-0.25, 0.0, 0.25])   # row 0, spread up and down
    assert dots[0].get_markersize() == 9 and dots[0].get_alpha() == 0.7 and dots[0].get_linestyle() == "None"
    assert mcolors.to_hex(dots[0].get_color()) == "#333333"
    note = texts(right)["not measured"]
    assert note.get_position() == (0.02, 0) and note.get_fontsize() == 13 and note.get_va() == "center"
    assert mcolors.to_hex(note.get_color()) == "#777777"
    assert left.get_xlim() == pytest.approx((0, 1.2 * 14.2)) and right.get_xlim() == (0, 1)
    assert dict(zip(left.get_yticks(), (t.get_text() for t in left.get_yticklabels()))) == \
        {2: "none", 1: "seven", 0: "8 random sets"}
    assert left.get_ylabel() == "heads knocked out" and left.yaxis.label.get_fontsize() == 13
    line = next(line for line in left.get_lines() if line.get_marker() != "o")
    assert list(line.get_xdata()) == [14.2, 14.2] and line.get_linestyle() == "--"
    assert mcolors.to_hex(line.get_color()) == "#0072b2"
    mark = texts(left)["first copy "]
    assert mark.get_position() == (14.2, 0.5) and mark.get_ha() == "right" and mark.get_va() == "center"
    assert mark.get_fontsize() == 13 and mcolors.to_hex(mark.get_color()) == "#0072b2"
    matplotlib.pyplot.close(fig)

    from matplotlib.layout_engine import ConstrainedLayoutEngine
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    assert left.get_shared_y_axes().joined(left, right)
    assert left.get_subplotspec().get_gridspec().get_geometry() == (1, 2)
    matplotlib.pyplot.close(fig)

    fig = hw.plot_knockouts({"a": (0.5, 0.5)}, {"two": [0.25, 0.25]})    # two equal losses, apart
    dots = fig.axes[0].get_lines()[0]
    np.testing.assert_allclose(dots.get_ydata(), [-0.25, 0.25])
    assert fig.axes[0].get_xlim() == pytest.approx((0, 0.6))            # 1.2 x the largest loss, 0.5
    matplotlib.pyplot.close(fig)
    fig = hw.plot_knockouts({"a": (3.0, 0.5)}, {"one": [5.0]})            # no first copy, no title
    left, right = fig.axes
    assert fig._suptitle is None and [line.get_marker() for line in left.get_lines()] == ["o"]
    assert list(left.get_lines()[0].get_ydata()) == [0.0] and left.get_xlim() == pytest.approx((0, 6.0))
    assert tuple(fig.get_size_inches()) == pytest.approx((14, 0.8 * 2 + 1.7))
    matplotlib.pyplot.close(fig)
    fig = hw.plot_knockouts({"a": (3.0, 0.5), "b": (2.0, 0.25)}, first_copy=1.0)
    assert fig.axes[0].get_xlim() == pytest.approx((0, 3.6)) and texts(fig.axes[0])["first copy "] \
        .get_position() == (1.0, 0.5)
    matplotlib.pyplot.close(fig)


def running_mean(row, smooth):
    return np.array([np.mean(row[t - smooth + 1:t + 1]) for t in range(smooth - 1, len(row))])


@pytest.mark.parametrize("names", [3, 5, 6])
def test_plot_window_draws_the_mask_and_each_running_mean(names):
    import matplotlib
    import matplotlib.colors as mcolors
    matplotlib.use("Agg")
    rng = np.random.default_rng(names)
    losses = {f"run {k}": rng.uniform(0.5, 4.0, 40) for k in range(names)}
    fig = hw.plot_window(losses, 9, 5, title="a window" if names < 6 else "")
    left, right = fig.axes
    assert tuple(fig.get_size_inches()) == pytest.approx((15, 5.6))
    assert left.get_subplotspec().get_gridspec().get_width_ratios() == [1, 1.9]
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    mesh = left.collections[0]
    np.testing.assert_array_equal(np.asarray(mesh.get_array()).reshape(12, 12), hand_mask(12, 4, 1))
    assert mesh.cmap.name == "Greys"
    assert [t.get_text() for t in left.get_xticklabels()] == [str(i) for i in range(12)]
    assert [t.get_text() for t in left.get_yticklabels()] == [str(i) for i in range(12)]
    assert sorted(t.get_text() for t in left.texts) == ["0"] * (144 - int(hand_mask(12, 4, 1).sum())) + \
        ["1"] * int(hand_mask(12, 4, 1).sum())
    assert left.get_title() == "window 4, first token kept:\n1 = the query sees that key"
    styles = [("-", "#333333"), ("-", "#cc79a7"), ("--", "#e69f00"), (":", "#333333"), ("-.", "#cc79a7"),
              ("--", "#999999")]
    curves = right.get_lines()[:names]
    top = 0.0
    for (name, row), line, (style, color) in zip(losses.items(), curves, styles):
        assert list(line.get_xdata()) == list(range(4, 40))              # the last token of each mean
        np.testing.assert_allclose(line.get_ydata(), running_mean(row, 5), rtol=1e-12)
        assert line.get_linestyle() == style and mcolors.to_hex(line.get_color()) == color
        assert line.get_linewidth() == 2.5 and line.get_label() == f"{name}: mean {np.mean(row):.2f}"
        top = max(top, running_mean(row, 5).max())
    edge = right.get_lines()[names]
    assert list(edge.get_xdata()) == [9, 9] and edge.get_linewidth() == 1
    assert mcolors.to_hex(edge.get_color()) == mcolors.to_hex("0.5") and len(right.get_lines()) == names + 1
    rows = 1 if names <= 3 else -(-names // 2)
    top *= 1.2 + 0.12 * rows
    assert right.get_ylim() == pytest.approx((0, top), rel=1e-12)
    note = texts(right)[" token 9: token 0 leaves a window of 9"]
    assert note.get_position() == pytest.approx((9, 0.02 * top)) and note.get_fontsize() == 12
    assert mcolors.to_hex(note.get_color()) == mcolors.to_hex("0.35")
    assert right.get_xlabel() == "position t in the text" and right.xaxis.label.get_fontsize() == 13
    assert right.get_ylabel() == "loss (nats), mean over t − 4 … t" and right.yaxis.label.get_fontsize() == 13
    assert all(t.get_fontsize() == 13 for t in right.get_xticklabels() + right.get_yticklabels())
    legend = right.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [c.get_label() for c in curves]
    assert all(t.get_fontsize() == 12 for t in legend.get_texts())
    assert legend._ncols == (3 if names <= 3 else 2) and legend._loc == 9          # 9: "upper center"
    assert fig.get_suptitle() == ("a window" if names < 6 else "")
    if names < 6:
        assert fig._suptitle.get_fontsize() == 14
    matplotlib.pyplot.close(fig)


def test_plot_window_on_as_many_tokens_as_the_mean_and_a_last_window():
    import matplotlib
    matplotlib.use("Agg")
    fig = hw.plot_window({"one": [1.0, 3.0, 2.0, 6.0]}, 3, smooth=4)
    right = fig.axes[1]
    assert list(right.get_lines()[0].get_xdata()) == [3] and list(right.get_lines()[0].get_ydata()) == [3.0]
    assert right.get_ylim() == pytest.approx((0, 1.32 * 3.0)) and fig._suptitle is None   # no title
    row = np.arange(40.0) % 7
    fig2 = hw.plot_window({"one": row}, 35)                              # the default mean: over 32 tokens
    assert list(fig2.axes[1].get_lines()[0].get_xdata()) == list(range(31, 40))
    np.testing.assert_allclose(fig2.axes[1].get_lines()[0].get_ydata(), running_mean(row, 32), rtol=1e-12)
    assert fig2.axes[1].get_ylabel() == "loss (nats), mean over t − 31 … t"
    matplotlib.pyplot.close(fig)
    matplotlib.pyplot.close(fig2)


@pytest.mark.parametrize("blocks, vocab", [(7, 60), (12, 1000), (3, 9), (6, 9)])
def test_plot_lens_draws_each_blocks_probability_and_rank(blocks, vocab):
    import matplotlib
    import matplotlib.colors as mcolors
    matplotlib.use("Agg")
    rng = np.random.default_rng(blocks)
    lens = rng.normal(0.0, 1.0, (blocks, vocab))
    lens[-1, 5] = lens[-1].max() + 3.0                                  # the last block ranks token 5 first
    if blocks > 3:
        lens[2, 5] = lens[2].max() + 0.5                                 # and block 2 already did
    fig = hw.plot_lens(lens, 5, " Paris", title="the lens" if blocks < 12 else "")
    left, right = fig.axes
    ranks, probs = hand_ranks_and_probs(lens, 5)
    assert tuple(fig.get_size_inches()) == pytest.approx((14, 4.6))
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    assert left.get_subplotspec().get_gridspec().get_geometry() == (1, 2)
    assert [b.get_height() for b in left.patches] == pytest.approx(probs, rel=1e-9)
    assert [b.get_x() + b.get_width() / 2 for b in left.patches] == pytest.approx(list(range(blocks)))
    assert all(mcolors.to_hex(b.get_facecolor()) == "#333333" for b in left.patches)
    assert left.get_ylim() == (0, 1) and left.get_ylabel() == "probability of ' Paris'"
    line = right.get_lines()[0]
    assert list(line.get_xdata()) == list(range(blocks)) and list(line.get_ydata()) == ranks
    assert line.get_marker() == "o" and line.get_linestyle() == "-" and line.get_linewidth() == 2
    assert line.get_markersize() == 6 and mcolors.to_hex(line.get_color()) == "#cc79a7"
    assert right.get_yscale() == "log" and right.get_ylim() == pytest.approx((vocab * 1.5, 0.7))
    powers = [10 ** k for k in range(len(str(vocab)))]                   # 1, 10, ... up to the vocabulary
    assert list(right.get_yticks()) == sorted({*powers, vocab})
    fig.canvas.draw()
    assert [t.get_text() for t in right.get_yticklabels()] == [str(v) for v in sorted({*powers, vocab})]
    assert right.get_ylabel() == "rank of ' Paris' (1 = top guess)"
    minor = right.yaxis.get_minor_formatter()
    assert minor(20.0, 0) == "" and minor(300.0, 1) == ""               # no minor tick labels
    last = blocks - 1
    for ax in (left, right):
        assert ax.get_xlabel() == "block (the residual stream after it)"
        assert ax.xaxis.label.get_fontsize() == 13
        assert ax.yaxis.label.get_fontsize() == 13
        assert list(ax.get_xticks()) == [*range(0, last, 5), last] and ax.get_xlim() == (-0.7, blocks - 0.3)
        assert all(t.get_fontsize() == 13 for t in ax.get_xticklabels() + ax.get_yticklabels())
    first = 2 if blocks > 3 else last                                    # the first block with rank 1
    (label,) = left.texts
    assert label.get_text() == f"{probs[first]:.2f}"
    assert label.get_position() == pytest.approx((first, probs[first]), rel=1e-12)
    assert label.get_ha() == "center" and label.get_va() == "bottom" and label.get_fontsize() == 13
    assert fig.get_suptitle() == ("the lens" if blocks < 12 else "")
    if blocks < 12:
        assert fig._suptitle.get_fontsize() == 14
    matplotlib.pyplot.close(fig)
    lens[:, 5] = lens.min() - 1.0                                        # never first: no number written
    fig = hw.plot_lens(lens, 5, "x")
    assert fig._suptitle is None and len(fig.axes[0].texts) == 0               # no title either
    assert list(fig.axes[1].get_lines()[0].get_ydata()) == [vocab] * blocks
    matplotlib.pyplot.close(fig)


# ---------------------------------------------------------------------------- your own text (section 4)
@pytest.fixture(scope="module")
def small():
    """The tiny model of tests/test_real_model.py in memory (2 blocks of 4 heads, 263 tokens, its tokenizer),
    with its weights for the float64 forward pass written there."""
    from test_real_model import in_memory
    return in_memory()


def hand_softmax(z, tau=1.0, top_k=None):
    """softmax(z / tau) over the top_k largest (the lower id first on a tie), zeros elsewhere, float64."""
    z = np.asarray(z, dtype=np.float64)
    keep = sorted(range(len(z)), key=lambda i: (-z[i], i))[:top_k or len(z)]
    p = np.zeros(len(z))
    if tau == 0:
        p[keep[0]] = 1.0
        return p
    for i in keep:
        p[i] = np.exp((z[i] - z[keep[0]]) / tau)
    return p / p.sum()


def test_text_run_is_the_plain_forward_pass(small):
    from test_real_model import plain_forward
    model, weights = small
    words, every, last = hw.text_run(model, "hello there, the tall hill")
    assert words == ["he", "ll", "o", "_the", "r", "e", ",", "_the", "_t", "a", "ll", "_", "h", "i", "ll"]
    ids = [259, 262, 114, 261, 117, 104, 47, 261, 260, 100, 262, 35, 107, 108, 262]
    want_w, want_logits = plain_forward(weights, ids)
    assert every.shape == (2, 4, 15, 15) and last.shape == (263,)
    np.testing.assert_allclose(every, want_w, atol=1e-5)
    np.testing.assert_allclose(last, want_logits[-1], rtol=1e-4, atol=1e-4)


def test_draw_counts_are_one_generators_draws_counted():
    p = hand_softmax([2.0, -1.0, 0.5, 3.0, 0.5, -4.0, 1.25], 1.5)
    tokens = np.array([3, 0, 6, 2])
    for seed in (0, 7, 31):
        drawn = np.random.default_rng(seed).choice(7, size=100, p=p)
        counts, first = hw.draw_counts(p, tokens, 100, seed)
        assert counts.tolist() == [sum(1 for d in drawn if d == t) for t in tokens]
        assert first == drawn[0] == hw.sample_token([2.0, -1.0, 0.5, 3.0, 0.5, -4.0, 1.25], 1.5, None, seed)


@pytest.mark.parametrize("n, width, layers, heads", [(5, 13.4, 30, 9), (12, 13.4, 30, 9), (64, 27.4, 30, 9),
                                                     (15, 14.0, 2, 4), (3, 10.0, 4, 4)])
def test_the_model_views_height_keeps_each_thumbnails_shape(n, width, layers, heads):
    gap = max(2, round(n / 4))                                          # blank cells between thumbnails
    tall = heads * n + (heads - 1) * gap                                 # the mosaic in cells, down
    wide = layers * n + (layers - 1) * gap                               # and across
    inches = 1.1 + (width - 1.2) * tall / wide                           # 1.2 in. beside it, 1.1 above/below
    assert hw.model_view_height(n, width, layers, heads) == pytest.approx(inches, rel=1e-12)
    if (layers, heads) == (30, 9):
        assert hw.model_view_height(n, width) == pytest.approx(inches, rel=1e-12)


GLYPHS = pytest.mark.filterwarnings("ignore:Glyph .* missing from font")   # the tiny model's byte tokens


@pytest.fixture(scope="module")
def text_explorer(small):
    model, _ = small
    return hw.text_explorer(model, "hello there", layer=1, head=2, bars=5, picks={"a pick": (0, 3)}, seed=4)


@GLYPHS
def test_the_text_explorers_sliders(text_explorer):
    got = [(c.key, c.label, c.value, c.low, c.high, c.step, c.integer, c.options, c.text)
           for c in text_explorer.controls]
    assert got == [("tau", "τ (temp.)", 1.0, 0.0, 3.0, 0.05, False, (), False),
                   ("top_k", "top-k", 0, -3.0, 3.0, 0.1, False, (("all", 0), 50, 20, 10, 5, 3, 2, 1), False),
                   ("seed", "sample seed", 4, 0, 99, 1, True, (), False),
                   ("layer", "layer", 1, 0, 1, 1, True, (), False),
                   ("head", "head", 2, 0, 3, 1, True, (), False),
                   ("text", "your text", "hello there", -3.0, 3.0, 0.1, False, (), True)]


def tiny_explorer_by_hand(model, weights, text, tau, top_k, seed, layer, head, bars=5):
    """What the text explorer shows, from the float64 forward pass and a generator of its own."""
    from test_real_model import plain_forward
    ids = rm.encode(model, text)
    words = rm.token_strings(model, ids)
    every, logits = plain_forward(weights, ids)
    z = logits[-1]
    top = sorted(range(len(z)), key=lambda i: (-z[i], i))[:bars]
    p = hand_softmax(z, tau, top_k)
    drawn = np.random.default_rng(seed).choice(len(p), size=100, p=p)
    counts = [int(sum(drawn == t)) for t in top]
    a = every[layer, head]
    return dict(words=words, every=every, top=top, p=p, counts=counts, first=int(drawn[0]), a=a,
                p1=hand_softmax(z)[top[0]], looks=words[int(np.argmax(a[-1]))])


@GLYPHS
@pytest.mark.parametrize("values", [dict(), dict(tau=0.0, top_k=3, layer=0, head=3, seed=11),
                                    dict(text="the tall hill", tau=1.3, top_k=50, seed=9)])
def test_a_text_explorer_of_its_own_shows_the_forward_pass_and_the_draws(small, values):
    """Each test builds its explorer (mutmut maps a mutant of text_explorer to the tests that call it)."""
    model, weights = small
    text_explorer = hw.text_explorer(model, "hello there", layer=1, head=2, bars=5, picks={"a pick": (0, 3)},
                                     seed=4)
    text_explorer.set(**values)
    v = text_explorer.values
    want = tiny_explorer_by_hand(model, weights, v["text"], v["tau"], v["top_k"] or None, v["seed"],
                                 v["layer"], v["head"])
    r = text_explorer.result
    n = len(want["words"])
    np.testing.assert_allclose(r["every"], want["every"], atol=1e-5)
    np.testing.assert_allclose(r["weights"], want["a"], atol=1e-5)
    assert r["open"] == (v["layer"], v["head"])
    np.testing.assert_allclose(r["next"][0], want["p"][want["top"]], atol=1e-5)
    assert r["next"][1].tolist() == [c / 100 for c in want["counts"]]
    assert r["first"] == want["first"] and r["greedy"] == want["top"][0]
    assert r["outside"] == 100 - sum(want["counts"]) and abs(r["p1"] - want["p1"]) < 1e-5
    assert r["looks"] == want["looks"]
    top_words = rm.token_strings(model, want["top"])
    weights_panel, bars, every = text_explorer.panels
    side = max(6.6, 3.0 + 0.25 * n)                                      # the head view: 8 x 6.6 to 14 tokens
    w = side + 1.4
    assert (weights_panel.key, weights_panel.row_labels, weights_panel.col_labels, weights_panel.kind) == \
        ("weights", want["words"], want["words"], "weights")
    assert (weights_panel.vmin, weights_panel.vmax, weights_panel.annot, weights_panel.row) == \
        (0.0, 1.0, False, 0)
    assert weights_panel.width == n - 0.5 and weights_panel.title == "the open head's weights (0 to 1)"
    assert (bars.key, bars.row_labels, bars.col_labels, bars.kind, bars.vmin, bars.vmax, bars.fmt) == \
        ("next", top_words, [], "bars", 0.0, 1.0, ".2f")
    assert bars.xlabel == "probability (bars); share of 100 draws (◆)" and bars.title == "the next token"
    assert bars.width == pytest.approx((n - 0.5) * 5.0 / side, rel=1e-12) and bars.row == 0
    gap = max(2, round(n / 4))
    tall = 1.1 + (w + 5.4 - 1.2) * (4 * n + 3 * gap) / (2 * n + gap)    # the model view, 2 blocks of 4 heads
    assert (every.key, every.row_labels, every.col_labels, every.kind, every.mark, every.row) == \
        ("every", [], [], "thumbnails", "open", 1)
    assert every.picks == (("a pick", (0, 3)),) and every.height == pytest.approx(tall / side, rel=1e-12)
    assert every.title == f"the model view: every head's weights, {n} × {n} each (0 to 1)"
    assert tuple(text_explorer.figure.get_size_inches()) == pytest.approx((w + 5.4, side + tall), rel=1e-6)
    order = sorted(range(5), key=lambda i: (-want["counts"][i], i))      # most drawn first; ties: by bar
    drawn = ", ".join(f"{top_words[i]} {want['counts'][i]}" for i in order[:3] if want["counts"][i] > 0)
    k = v["top_k"] or "all"
    a = want["a"]
    assert text_explorer.summary() == (
        f"{n} tokens; open: layer {v['layer']}, head {v['head']}\n"
        f"  '{want['words'][-1]}' looks most at '{want['looks']}' ({a[-1].max():.2f})\n"
        f"greedy: '{top_words[0]}', {want['p1']:.2f} at τ = 1\n"
        f"τ = {v['tau']:.2f}, top-k {k}: '{top_words[0]}' {want['p'][want['top'][0]]:.2f}\n"
        f"100 draws, seed {v['seed']}: {100 - sum(want['counts'])} off the bars\n"
        f"  most drawn: {drawn}\n"
        f"first draw (hw.sample_token): '{rm.token_strings(model, [want['first']])[0]}'")


@GLYPHS
def test_the_text_explorer_on_one_token(small):
    model, _ = small
    ex = hw.text_explorer(model, "a", layer=0, head=1, bars=3, seed=150)   # (layer 16: the real model's)
    assert ex.summary().startswith("1 token; open: layer 0, head 1\n  'a' looks most at 'a' (1.00)\n")
    assert [(c.value, c.high) for c in ex.controls if c.key == "seed"] == [(150, 150)]
    assert [c.value for c in ex.controls] == [1.0, 0, 150, 0, 1, "a"]
    assert len(ex.panels[1].row_labels) == 3 and ex.panels[2].picks == ()        # 3 bars, no picks
    default = hw.text_explorer(model, "a", layer=0)
    assert len(default.panels[1].row_labels) == 10 and default.controls[4].value == 0
    assert "seed 0:" in default.summary()


@GLYPHS
def test_a_text_explorer_ranks_tied_tokens_by_id_and_keeps_any_text(small):
    """Three distinct rows of the embedding, each shared by a third of the 263 tokens: the last token's
    logits take three values, so the bars are the lowest ids among the largest (np.argsort's stable order)."""
    from test_real_model import plain_forward
    model, weights = small
    rows = np.arange(263) % 3
    tied = dataclasses.replace(model, embedding=np.ascontiguousarray(model.embedding[rows]))
    ex = hw.text_explorer(tied, "ab", layer=0, bars=5)
    _, logits = plain_forward(weights | {"token_embd.weight": weights["token_embd.weight"][rows]},
                              rm.encode(tied, "ab"))
    z = logits[-1]
    top = sorted(range(263), key=lambda i: (-z[i], i))[:5]
    assert top == [t for t in range(263) if t % 3 == top[0] % 3][:5]    # one third, the lowest ids
    assert ex.panels[1].row_labels == rm.token_strings(tied, top) and ex.result["greedy"] == top[0]
    assert ex.summary().startswith("2 tokens; open: layer 0, head 0\n")
    for text in ["cd", "ef", "gh", "ij"]:                                # 5 texts: more than the 4 it keeps
        ex.set(text=text)
        assert ex.error is None and ex.panels[0].row_labels == list(text)
    assert ex.values["text"] == "ij"
    ex.set(text="")                                                      # impossible: the reason, no figure
    assert ex.summary() == "the text is empty: type a few words, and the model predicts the next token"
    assert ex.image.layout.display == "none"


def test_a_text_explorer_starts_on_lesson_09s_text_at_layer_16(small):
    model, _ = small
    assert hw.text_explorer(model, layer=0).controls[-1].value == "The capital of France is"
    with pytest.raises(ValueError, match=r"^layer 16, head 0: the model has layers 0\.\.1 and heads 0\.\.3"):
        hw.text_explorer(model)                                          # the real model's head 16.0


@GLYPHS
def test_a_word_drawn_once_is_among_the_most_drawn(small):
    model, weights = small
    ex = hw.text_explorer(model, "hello there", layer=0, bars=1, seed=2)
    ex.set(tau=3.0, top_k=50)
    want = tiny_explorer_by_hand(model, weights, "hello there", 3.0, 50, 2, 0, 0, bars=1)
    assert want["counts"] == [1]                                         # the greedy token, drawn once
    assert f"\n  most drawn: {rm.token_strings(model, want['top'])[0]} 1\n" in ex.summary()
