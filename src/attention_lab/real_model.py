"""Lesson 08: inside a real language model, SmolLM2-135M, run in NumPy with the lessons' own pieces.

The forward pass is built from the package: the batched kernel with a causal mask (grouped-query attention
by broadcasting 3 key/value heads over 9 query heads), lesson 05's `rope` and its KV-cache idea; RMSNorm
and SwiGLU stand beside lesson 05's LayerNorm and ReLU feed-forward. Everything runs in float32, as the
weights are and as PyTorch runs the model (attention too: in float64 it took longer). `gguf` reads the
weights and ByteBPE rebuilds its tokenizer from the file; gguf is imported inside the functions that need
it, so that `import attention_lab` stays light for the other lessons.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import mmap
import numbers
import os
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import pairwise
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._validate import as_array, as_count, weights_in_0_1, whole_ids, wrong_record
from .blas import one_blas_thread
from .explorer_kit import Control, Explorer, Panel
from .masks import causal_mask
from .matrix import attention_unchecked, log_softmax_unchecked, scaled_dot_product_attention
from .model_file import (  # noqa: F401  (lesson 08 and its tests reach them as rm.*)
    MODEL_FILE,
    WHEEL,
    BrokenModelFile,
    ModelUnavailable,
    broken,
    cache_folder,
    fetch_model,
    find_model,
    how_to_get_it,
)
from .positions import rope_angles, rope_rotate
from .run_memo import once

MODEL_VIEW_MOST = 64                  # tokens per thumbnail in plot_model_view
SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"   # the file's chat template


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def as_real_model(model) -> RealModel:
    """The model that load_model() returns (a dict or anything else: TypeError)."""
    if not isinstance(model, RealModel):
        raise wrong_record(model, "a RealModel", "model")
    return model


def llama_file(arch, file_name: str, tied: bool) -> None:
    """A GGUF file of the llama architecture whose output head is the embedding (tied)."""
    if arch != "llama":
        raise ValueError(f"{file_name} holds a {arch!r} model: expected the llama architecture")
    if not tied:
        raise ValueError(f"{file_name} has its own output head: expected a tied head (output = embedding)")


def norm_inputs(X, gain) -> tuple[np.ndarray, np.ndarray]:
    """X (..., d) and a gain (d,), as float32."""
    X, gain = np.asarray(X, dtype=np.float32), np.asarray(gain, dtype=np.float32)
    if X.ndim < 1 or gain.shape != X.shape[-1:]:
        raise ValueError(f"X has shape {X.shape} and the gain {gain.shape}: expected X (..., d) and a "
                         "gain (d,)")
    return X, gain


def swiglu_inputs(X, W_gate, W_up, W_down) -> tuple[np.ndarray, ...]:
    """X (n, d), W_gate and W_up (d, d_ff), W_down (d_ff, d)."""
    X, W_gate, W_up, W_down = (np.asarray(a) for a in (X, W_gate, W_up, W_down))
    d = X.shape[-1] if X.ndim else 0
    if W_gate.shape != W_up.shape or W_gate.ndim != 2 or W_gate.shape[0] != d \
            or W_down.shape != W_gate.shape[::-1]:
        raise ValueError(f"X {X.shape}, W_gate {W_gate.shape}, W_up {W_up.shape}, W_down {W_down.shape}: "
                         "expected X (n, d), W_gate and W_up (d, d_ff), W_down (d_ff, d)")
    return X, W_gate, W_up, W_down


def grouped_inputs(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q (h, m, d_k) and K, V (g, n, d_k) with g dividing h."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.ndim != 3 or K.ndim != 3 or V.ndim != 3 or K.shape[0] != V.shape[0] or Q.shape[0] % K.shape[0]:
        raise ValueError(f"Q {Q.shape}, K {K.shape}, V {V.shape}: expected Q (h, m, d_k) and "
                         "K, V (g, n, d_k) with g dividing h")
    return Q, K, V


def model_ids(ids, vocab_size: int) -> np.ndarray:
    """One sequence of token ids, each in 0..vocab_size-1 (floats: TypeError)."""
    ids = np.asarray(ids)
    if ids.size:
        ids = whole_ids(ids, "token ids")
    if ids.ndim != 1 or not len(ids) or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(f"token ids {ids.tolist()!r}: expected one or more whole numbers in "
                         f"0..{vocab_size - 1}")
    return ids


def period_fits(period, n: int) -> int:
    """A whole-number repeat period with a second copy to score: n > period + 1."""
    period = as_count(period, "period")
    if n <= period + 1:
        raise ValueError(f"period {period} with {n} tokens: expected a sequence longer than period + 1")
    return period


def period_count(period, most: int) -> int:
    """A whole number of distinct tokens, 1..most."""
    period = as_count(period, "period")
    if period > most:
        raise ValueError(f"period {period}: expected 1 to {most} distinct ordinary tokens")
    return period


def logits_fit(logits: np.ndarray, n_ids: int) -> None:
    """Logits (n, vocab): one row per token id."""
    if logits.ndim != 2 or len(logits) != n_ids:
        raise ValueError(f"logits of shape {logits.shape} for {n_ids} tokens: expected (n, vocab), "
                         "one row per token")


def tokens_fit(tokens, n: int) -> None:
    """One token word per row of the weights."""
    if len(tokens) != n:
        raise ValueError(f"{len(tokens)} tokens for weights over {n}: expected one token per row")


def head_picks(picks, n_layers: int, n_heads: int) -> dict[str, tuple[int, int]]:
    """{name: (layer, head)} with whole numbers inside the model (layers and heads counted from 0)."""
    if picks is None:
        return {}
    if not isinstance(picks, dict):
        raise TypeError(f"picks is {type(picks).__name__}: expected a dict {{name: (layer, head)}}, "
                        "e.g. {'sink head': (5, 3)}")
    out = {}
    for name, pick in picks.items():
        if isinstance(pick, (str, bytes)) or not hasattr(pick, "__len__") or len(pick) != 2 or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in pick):
            raise TypeError(f"picks[{name!r}] is {pick!r}: expected a (layer, head) pair of whole numbers")
        layer, head = (int(v) for v in pick)
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ValueError(f"picks[{name!r}] is head {head} of layer {layer}: expected layers "
                             f"0..{n_layers - 1} and heads 0..{n_heads - 1}")
        out[str(name)] = (layer, head)
    return out
# pragma: no mutate end


@dataclass(frozen=True, eq=False)
class Block:
    """One llama block's weights, row convention (Q = X @ W_q)."""
    attn_norm: np.ndarray   # (d,) RMSNorm gain before attention
    W_q: np.ndarray         # (d, h * d_k)
    W_k: np.ndarray         # (d, g * d_k)   g key/value heads, fewer than h
    W_v: np.ndarray         # (d, g * d_k)
    W_O: np.ndarray         # (h * d_k, d)
    ffn_norm: np.ndarray    # (d,) RMSNorm gain before the feed-forward
    W_gate: np.ndarray      # (d, d_ff)
    W_up: np.ndarray        # (d, d_ff)
    W_down: np.ndarray      # (d_ff, d)


@dataclass(frozen=True, eq=False)
class RealModel:
    """A llama-architecture language model held as float32 NumPy arrays, with its tokenizer."""
    name: str
    n_heads: int            # query heads h
    n_kv_heads: int         # key/value heads g (h is a multiple of g)
    head_width: int         # d_k
    rope_base: float
    eps: float
    embedding: np.ndarray   # (vocab, d); also the output head (tied)
    blocks: list[Block]
    final_norm: np.ndarray  # (d,)
    tokenizer: ByteBPE = field(repr=False)
    vocab: list[str] = field(repr=False)
    eos_id: int = 2
    path: Path | None = None
    formats: dict[str, str] = field(default_factory=dict, repr=False)   # tensor name -> its stored format
    mapping: mmap.mmap | None = field(default=None, repr=False)   # the float32 file the weights are views of
    mapped_as: tuple | None = field(default=None, repr=False)     # the file and where each weight sits in it

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    @property
    def d(self) -> int:
        return self.embedding.shape[1]

    def __repr__(self) -> str:
        return (f"RealModel({self.name!r}: {self.n_layers} blocks, d = {self.d}, {self.n_heads} query heads "
                f"sharing {self.n_kv_heads} key/value heads of width {self.head_width}, "
                f"RoPE base {self.rope_base:g}, vocabulary {len(self.embedding)})")


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


def byte_alphabet() -> dict[int, str]:
    """Byte-level BPE's alphabet: a printable character for each of the 256 bytes (GPT-2's table)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        chars[b] = chr(b) if b in printable else chr(256 + extra)
        extra += b not in printable
    return chars


# GPT-2's split into words, with the standard library's `re`, on text without numbers (SmolLM first splits
# off every numeric character on its own): letters are [^\W\d_], anything else [^\s\w] or _.
WORDS = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")
NUMERIC = ("Nd", "Nl", "No")
"""The Unicode categories of a number (digits, letter numbers like Ⅻ, others like ½): Rust's
char::is_numeric, which Hugging Face's Digits pre-tokenizer uses. Python's str.isnumeric is wider: it is
also True for CJK numerals such as 一 (a letter, Lo), which SmolLM's tokenizer keeps inside words."""


def split_words(text: str) -> list[str]:
    """Every numeric character on its own (2025 -> 2, 0, 2, 5), the text between them split by WORDS."""
    words, start = [], 0
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in NUMERIC:
            words.extend(WORDS.findall(text[start:i]))
            words.append(ch)
            start = i + 1
    words.extend(WORDS.findall(text[start:]))
    return words


class ByteBPE:
    """A byte-level BPE tokenizer (GPT-2 style) from a GGUF file's vocabulary and merges, in plain Python.

    Text -> words (WORDS) -> bytes, each shown as one character of byte_alphabet() -> the merges applied
    in order of rank -> ids. Control tokens such as <|im_start|> are matched whole first.
    """

    def __init__(self, tokens: Sequence[str], merges: Sequence[str], token_types: Sequence[int]):
        self.tokens = list(tokens)
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ", 1)): r for r, m in enumerate(merges)}
        self.special = {t for t, kind in zip(self.tokens, token_types) if kind == 3}   # 3: control
        by_length = sorted(self.special, key=len, reverse=True)
        self.split = re.compile("(" + "|".join(map(re.escape, by_length)) + ")") if by_length else None
        self.to_char = byte_alphabet()
        self.to_byte = {c: b for b, c in self.to_char.items()}
        self.known: dict[str, list[int]] = {}

    def _word(self, word: str) -> list[int]:
        """The ids of one word: its bytes as characters, merged pair by pair, lowest rank first."""
        if word not in self.known:
            parts = [self.to_char[b] for b in word.encode("utf-8")]
            while len(parts) > 1:
                pairs = [(self.ranks.get(pair, len(self.ranks)), i) for i, pair in enumerate(pairwise(parts))]
                rank, i = min(pairs)
                if rank == len(self.ranks):
                    break                                   # no pair left to merge
                parts[i:i + 2] = [parts[i] + parts[i + 1]]
            self.known[word] = [self.ids[p] for p in parts]
        return self.known[word]

    def encode(self, text: str) -> list[int]:
        """Token ids of a text."""
        pieces = self.split.split(text) if self.split else [text]
        ids: list[int] = []
        for piece in pieces:
            if piece in self.special:
                ids.append(self.ids[piece])
            else:
                for word in split_words(piece):
                    ids.extend(self._word(word))
        return ids

    def decode(self, ids: Sequence[int], skip_special: bool = True) -> str:
        """The text of token ids."""
        out, raw = [], bytearray()
        for i in ids:
            t = self.tokens[int(i)]
            if t in self.special:
                out.append(raw.decode("utf-8", errors="replace"))
                raw = bytearray()
                out.append("" if skip_special else t)
            else:
                raw.extend(self.to_byte[c] for c in t)
        out.append(raw.decode("utf-8", errors="replace"))
        return "".join(out)


BLOCK_FIELDS = [f.name for f in fields(Block)]
GGUF_NAMES = {"attn_norm": "attn_norm", "W_q": "attn_q", "W_k": "attn_k", "W_v": "attn_v",
              "W_O": "attn_output", "ffn_norm": "ffn_norm", "W_gate": "ffn_gate", "W_up": "ffn_up",
              "W_down": "ffn_down"}
UNPACKED = "v1"            # the unpacked copy's format: bump it when the layout below changes


def unpacked_path(p: Path) -> Path:
    """Where the unpacked copy of model file `p` is kept (add .f32 for the weights, .json for the rest):
    the cache folder, named after p's size and time, so that a changed file gets a fresh copy (the time
    in whole seconds, as an image layer keeps it: a hub's copy of the image still finds its copy)."""
    st = p.stat()
    return cache_folder() / f"{p.stem}.{st.st_size}-{int(st.st_mtime)}.{UNPACKED}"


def earlier_unpacked_path(p: Path) -> Path:
    """Where a copy written before the time was named in seconds is kept (named in nanoseconds): still
    read, so that a shared folder set up then needs no new copy."""
    st = p.stat()
    return cache_folder() / f"{p.stem}.{st.st_size}-{st.st_mtime_ns}.{UNPACKED}"


def read_gguf(p: Path):
    """The model file's header (a JSON-ready dict: sizes, tokenizer, layout) and a function that dequantizes
    one of its arrays to float32 in the lessons' layout."""
    import gguf

    try:
        reader = gguf.GGUFReader(str(p))
        tensors = {t.name: t for t in reader.tensors}
        arch = _field(reader, "general.architecture")
    except DAMAGE as exc:
        raise broken(p, f"has a damaged header ({type(exc).__name__}: {str(exc)[:100]})") from None

    def stored(name):                                  # as GGUF stores it: (out, in), float32
        t = tensors[name]
        shape = [int(s) for s in reversed(t.shape)]
        out = np.empty(shape, np.float32)
        rows = out.reshape(-1, shape[-1])
        data = t.data.reshape(len(rows), -1)           # one stored row (quantized blocks) per weight row
        for i in range(0, len(rows), 4096):            # in slices: no full-size temporary arrays
            rows[i:i + 4096] = gguf.quants.dequantize(data[i:i + 4096], t.tensor_type).reshape(-1, shape[-1])
        return out

    def unpacked(name, kind):                          # float32 in the lessons' layout
        if kind == "weight":                           # the row convention: (in, out)
            return np.ascontiguousarray(stored(name).T)
        if kind == "vector":
            t = tensors[name]
            return gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32).reshape(-1)
        return stored(name)                            # the embedding: (vocab, d), one row per token

    llama_file(arch, p.name, tied=True)
    try:
        return gguf_header(p, reader, tensors, arch, stored), unpacked
    except DAMAGE as exc:
        raise broken(p, f"has a damaged header ({type(exc).__name__}: {str(exc)[:100]})") from None


# what a damaged GGUF header makes gguf's reader, or the header's fields, raise
DAMAGE = (UnicodeDecodeError, KeyError, TypeError, IndexError, ValueError, MemoryError, OverflowError)


def gguf_header(p: Path, reader, tensors: dict, arch: str, stored) -> dict:
    """The model file's header as a JSON-ready dict: sizes, tokenizer, layout."""

    def meta(key, default=None):
        return _field(reader, f"llama.{key}", default)

    def shape(name, kind):
        dims = [int(s) for s in tensors[name].shape]   # GGUF lists (in, out): the row convention
        return [int(np.prod(dims))] if kind == "vector" else dims[::-1] if kind == "embedding" else dims

    n_layers = int(meta("block_count"))
    order = [(f"blk.{i}.{GGUF_NAMES[f]}.weight", "vector" if f.endswith("norm") else "weight")
             for i in range(n_layers) for f in BLOCK_FIELDS]
    order += [("token_embd.weight", "embedding"), ("output_norm.weight", "vector")]
    n_heads = int(meta("attention.head_count"))
    header = {
        "name": str(_field(reader, "general.name", p.stem)), "architecture": arch, "n_layers": n_layers,
        "n_heads": n_heads, "n_kv_heads": int(meta("attention.head_count_kv", n_heads)),
        "d": int(meta("embedding_length")), "rope_base": float(meta("rope.freq_base", 10000.0)),
        "eps": float(meta("attention.layer_norm_rms_epsilon", 1e-5)),
        "tied": "output.weight" not in tensors or bool(np.array_equal(stored("output.weight"),
                                                                       stored("token_embd.weight"))),
        "tokens": list(_field(reader, "tokenizer.ggml.tokens")),
        "merges": list(_field(reader, "tokenizer.ggml.merges")),
        "token_types": [int(t) for t in _field(reader, "tokenizer.ggml.token_type")],
        "eos_id": int(_field(reader, "tokenizer.ggml.eos_token_id", 2)),
        "formats": {t.name: t.tensor_type.name for t in reader.tensors},
        "layout": [[name, kind, shape(name, kind)] for name, kind in order],
    }
    return header


def write_unpacked(base: Path, header: dict, unpacked) -> None:
    """Write the layout's arrays, dequantized, to base.f32 and the header to base.json (all or nothing)."""
    base.parent.mkdir(parents=True, exist_ok=True)
    weights, about = base.with_name(base.name + ".f32"), base.with_name(base.name + ".json")
    parts = [f.with_name(f"{f.name}.{os.getpid()}.part") for f in (weights, about)]   # kernels never mix
    try:
        with open(parts[0], "wb") as f:
            for name, kind, _ in header["layout"]:
                f.write(unpacked(name, kind).data)           # one array at a time: little memory
            forget_written(f)
        parts[1].write_text(json.dumps(header), encoding="utf-8")
        parts[0].replace(weights)
        parts[1].replace(about)                              # the header last: it says the copy is whole
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    stem = base.name.rsplit(".", 2)[0]                       # the model file's name without .gguf
    for old in base.parent.glob(f"{stem}.*-*.v*.*"):         # the copy of an older file, or older format
        if not old.name.startswith(base.name + ".") and old.suffix in (".f32", ".json"):
            old.unlink(missing_ok=True)


def read_unpacked(base: Path) -> tuple[dict, mmap.mmap, tuple] | None:
    """The header, the mapped weights of a whole unpacked copy and the file's (path, size, time), or None if
    there is none (or it is cut)."""
    weights, about = base.with_name(base.name + ".f32"), base.with_name(base.name + ".json")
    if not (about.is_file() and weights.is_file()):
        return None
    try:
        header = json.loads(about.read_text(encoding="utf-8"))
        whole = weights.stat().st_size == 4 * sum(int(np.prod(shape)) for _, _, shape in header["layout"])
    except (ValueError, KeyError, TypeError):     # a header spoilt by hand: written again (kept on purpose)
        return None
    if not whole:
        return None
    with open(weights, "rb") as f:
        about = os.fstat(f.fileno())
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    in_large_pieces(mapping)
    return header, mapping, (str(weights), about.st_size, about.st_mtime_ns)


def forget_written(f) -> None:
    """Write the open file `f` out to disk and let the file cache forget it. The pages a write leaves in the
    cache are mostly 4 KB pieces, and every kernel would map the weights from them; read back through a
    mapping (in_large_pieces), the cache holds them in 2 MB pieces instead."""
    f.flush()
    os.fsync(f.fileno())
    if hasattr(os, "posix_fadvise"):
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def in_large_pieces(mapping: mmap.mmap) -> None:
    """Ask Linux to map the weights in 2 MB pieces (transparent huge pages), where its file cache can hold
    them so: the first pass after release_pages then maps about 270 pieces again, not 131,000 pages
    (3 ms against 35-55 ms on a quiet machine, tools/benchmark_real_model.py --pages). Elsewhere, a no-op."""
    if hasattr(mmap, "MADV_HUGEPAGE"):
        with contextlib.suppress(OSError):   # no huge pages for files here: 4 KB pages (kept on purpose)
            mapping.madvise(mmap.MADV_HUGEPAGE)


@functools.cache
def glibc() -> ctypes.CDLL | None:
    """The C library where it is GNU's (Linux with glibc), whose allocator reuse_freed_memory tunes; else
    None: Windows has no confstr, macOS no such name, and musl lists the name but refuses it (OSError)."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):   # not glibc (kept on purpose: None is the answer)
        return None
    return ctypes.CDLL(None) if version.startswith("glibc") else None


KEPT_MB = 16               # free memory the heap keeps at its top, and the largest array it gives out
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3          # glibc's mallopt parameters (malloc.h)


def reuse_freed_memory() -> None:
    """Keep the memory of a pass's temporary arrays for the next pass. glibc adapts to what a process has
    freed: its heap gives its top back to Linux whenever more than twice the largest block it has unmapped
    so far is free there (blocks of up to 32 MiB count). A kernel whose passes were all of 256 tokens
    (their logits, 48 MiB, above that cap) shrank and grew its heap again for every block's arrays, each
    page zeroed afresh: 46,000-48,000 minor page faults a pass with one BLAS thread, 60,000-70,000 with
    two, a tenth and a sixth of its time (tools/benchmark_real_model.py --allocator). A kernel that has
    run a pass of about 30-170 tokens, as lessons 08 and 09 do first, had adapted already. Now the heap
    keeps up to KEPT_MB free at its top (M_TRIM_THRESHOLD), and gives out arrays of up to KEPT_MB
    (M_MMAP_THRESHOLD: setting either one turns glibc's adaptation off); larger ones, such as the logits
    of over 85 tokens, are mapped afresh for each pass. release_pages gives the kept memory back once the
    model is idle (where the weights are mapped: otherwise up to KEPT_MB stays). load_model calls it (at
    every load: the same setting again); elsewhere than glibc, nothing."""
    libc = glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, KEPT_MB << 20)
        libc.mallopt(M_TRIM_THRESHOLD, KEPT_MB << 20)


def release_pages(model: RealModel) -> None:
    """Let go of the mapped weight pages this process has touched: they stay in the file cache, ready for the
    next step, but no longer count in this kernel's resident memory (RSS). The heap's free memory, kept for
    the next pass (reuse_freed_memory), goes back to Linux too (malloc_trim)."""
    if model.mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(ValueError):   # a mapping already closed holds no pages (kept on purpose)
            model.mapping.madvise(mmap.MADV_DONTNEED)
    libc = glibc()
    if libc is not None:
        libc.malloc_trim(0)


IDLE_S = 0.5               # the model idle this long, its kernel lets go of the weight pages
idle_timers: dict[int, threading.Timer] = {}
runs_under_way: dict[int, int] = {}      # per mapping: the runs of the model that have begun and not ended
idle_lock = threading.Lock()


def release_when_idle(model: RealModel, after: float | None = None) -> None:
    """Let go of the weight pages once no run of the model has asked for them for `after` seconds.

    Letting go after every forward pass made the next one fault all 538 MB back in: 25-45 ms a pass
    (tools/benchmark_real_model.py --map-vs-copy), where the file cache held them in 4 KB pieces; in 2 MB
    pieces (in_large_pieces) about 3 ms. Runs one after another (lesson 09's calls, an explorer's
    steps) keep them; a kernel at rest holds none. While a run is under way (PagesHeld: a forward pass,
    generate, each of lesson 09's calls as a whole) nothing is let go: the last run to end starts the
    wait. `after`: IDLE_S."""
    if model.mapping is None:
        return
    key = id(model.mapping)

    def let_go():
        with idle_lock:                         # a run began since, or a later wait replaced this one: keep
            if idle_timers.get(key) is not timer:
                return
            del idle_timers[key]                # done: the model is no longer held here
            release_pages(model)                # under the lock: no run can begin in between

    timer = threading.Timer(IDLE_S if after is None else after, let_go)
    timer.daemon = True                         # never keeps a process from ending
    with idle_lock:
        if runs_under_way.get(key):             # the run under way starts the wait when it ends
            return
        earlier = idle_timers.pop(key, None)
        idle_timers[key] = timer
        try:
            timer.start()                       # under the lock: let_go finds it registered
        except RuntimeError:                    # no thread to be had: nothing is left registered
            del idle_timers[key]
            raise
    if earlier is not None:
        earlier.cancel()


class PagesHeld:
    """`with PagesHeld(model):` a run of the model. Its weight pages are kept while any run is under way, a
    run longer than IDLE_S included, and the wait to let go of them starts when the last run ends, by an
    error too (release_when_idle)."""

    def __init__(self, model: RealModel):
        self.model = model
        self.key = None if model.mapping is None else id(model.mapping)

    def __enter__(self) -> RealModel:
        if self.key is not None:
            with idle_lock:
                runs_under_way[self.key] = runs_under_way.get(self.key, 0) + 1
                waiting = idle_timers.pop(self.key, None)
            if waiting is not None:
                waiting.cancel()
        return self.model

    def __exit__(self, *exc) -> None:
        if self.key is not None:
            with idle_lock:
                runs_under_way[self.key] -= 1
                if not runs_under_way[self.key]:
                    del runs_under_way[self.key]
            release_when_idle(self.model)


def load_model(path: str | Path | None = None, fetch: bool = True) -> RealModel:
    """Read SmolLM2's GGUF file, dequantize every weight to float32, build its tokenizer.

    The first load writes the float32 weights once to the cache folder, with the file's header beside them;
    later loads map that copy (memory-mapped, shared by every kernel on the machine, ready in a tenth
    of a second).
    Where it cannot be written, the weights are kept in this kernel's memory instead.

    `path` may name another SmolLM2 GGUF file: the llama architecture with a tied output head and SmolLM's
    byte-level BPE tokenizer. Other llama files are not handled: an untied head is refused, and neither a
    SentencePiece tokenizer nor Llama 3's RoPE scaling is read.
    """
    p = find_model(path, fetch)
    found = read_unpacked(unpacked_path(p)) or read_unpacked(earlier_unpacked_path(p))
    if found is None:
        p = find_model(path, fetch, check_bytes=True)        # before its first read: its bytes, once
        base = unpacked_path(p)                              # (a file fetched again has a new time)
        header, unpacked = read_gguf(p)
        llama_file(header["architecture"], p.name, header["tied"])
        try:
            write_unpacked(base, header, unpacked)
            found = read_unpacked(base)
        except OSError as exc:  # a read-only or full cache folder: weights stay in memory (kept on purpose)
            print(f"(No float32 copy of the weights in {base.parent}: {exc.strerror or exc}. This kernel "
                  f"keeps them in its own memory instead. Whoever may write there can make the copy once, "
                  f"for every kernel, by running load_model() with this folder.)", flush=True)
            found = None
        if found is None:
            arrays = {name: unpacked(name, kind) for name, kind, _ in header["layout"]}
            mapping = None
    if found is not None:
        header, mapping, mapped_file = found
        llama_file(header["architecture"], p.name, header["tied"])
        flat = np.frombuffer(mapping, np.float32)            # read-only: the lessons never change weights
        arrays, at = {}, 0
        for name, _, shape in header["layout"]:
            size = int(np.prod(shape))
            arrays[name] = flat[at:at + size].reshape(shape)
            at += size
    h = header
    blocks = [Block(*(arrays[f"blk.{i}.{GGUF_NAMES[f]}.weight"] for f in BLOCK_FIELDS))
              for i in range(h["n_layers"])]
    tokenizer = ByteBPE(h["tokens"], h["merges"], h["token_types"])
    model = RealModel(h["name"], h["n_heads"], h["n_kv_heads"], h["d"] // h["n_heads"], h["rope_base"],
                      h["eps"], arrays["token_embd.weight"], blocks, arrays["output_norm.weight"], tokenizer,
                      h["tokens"], h["eos_id"], p, h["formats"], mapping)
    if mapping is not None:
        model = replace(model, mapped_as=(*mapped_file, places(model)))
    reuse_freed_memory()
    return model


def places(model: RealModel) -> tuple:
    """Where each weight array of the model sits in memory, with its shape and strides."""
    arrays = [model.embedding, model.final_norm, *(getattr(b, f) for b in model.blocks for f in BLOCK_FIELDS)]
    return tuple((a.__array_interface__["data"][0], a.shape, a.strides, a.flags.writeable) for a in arrays)


def shared_key(model: RealModel) -> tuple | None:
    """What names this model's results across the processes of a test run (run_memo.py): its mapped file,
    its numbers, and that every weight is still the file's own, untouched view. None for any other model."""
    if model.mapped_as is None or model.mapping is None or places(model) != model.mapped_as[3]:
        return None
    return (model.mapped_as[:3], model.name, model.n_heads, model.n_kv_heads, model.head_width,
            model.rope_base, model.eps, model.eos_id)


def storage(model: RealModel) -> dict[str, list[str]]:
    """How the model file stores its weights: each format (Q4_1, Q8_0, F32, ...) -> the tensors in it."""
    out: dict[str, list[str]] = {}
    for name, kind in model.formats.items():
        out.setdefault(kind, []).append(name)
    return out


# ---------------------------------------------------------------------------- the pieces of a block
def rms_norm(X: ArrayLike, gain: ArrayLike, eps: float = 1e-5) -> np.ndarray:
    """Each row divided by its root mean square, times a learned gain (no mean subtracted, no bias)."""
    X, gain = norm_inputs(X, gain)
    rms = np.sqrt((X * X).mean(axis=-1, keepdims=True) + np.float32(eps))    # (n, 1)
    return X / rms * gain                                                     # (n, d)


def swiglu(X: ArrayLike, W_gate: ArrayLike, W_up: ArrayLike, W_down: ArrayLike) -> np.ndarray:
    """(SiLU(X W_gate) * X W_up) W_down: a gated feed-forward network, token by token."""
    X, W_gate, W_up, W_down = swiglu_inputs(X, W_gate, W_up, W_down)
    G = X @ W_gate                                                           # (n, d_ff)
    sigmoid = 0.5 * (1.0 + np.tanh(0.5 * G))                                 # 1 / (1 + e^-G), never overflows
    return (G * sigmoid * (X @ W_up)) @ W_down                                # (n, d)


class Cache:
    """Lesson 05's KV cache, one per block: the rotated keys and the values of every token so far."""

    def __init__(self, n_kv_heads: int, head_width: int, capacity: int = 512):
        self.keys = np.zeros((n_kv_heads, capacity, head_width), np.float32)    # (g, capacity, d_k)
        self.values = np.zeros((n_kv_heads, capacity, head_width), np.float32)  # (g, capacity, d_k)
        self.length = 0

    def append(self, K: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Add n new tokens' keys and values (g, n, d_k); return every key and value so far (g, t, d_k)."""
        t, n = self.length, K.shape[1]
        if t + n > self.keys.shape[1]:                           # full: at least double the room
            room = max(t + n, 2 * self.keys.shape[1])
            for name in ("keys", "values"):
                old = getattr(self, name)
                new = np.zeros((old.shape[0], room, old.shape[2]), np.float32)
                new[:, :t] = old[:, :t]
                setattr(self, name, new)
        self.keys[:, t:t + n], self.values[:, t:t + n] = K, V
        self.length = t + n
        return self.keys[:, :self.length], self.values[:, :self.length]


def new_cache(model: RealModel) -> list[Cache]:
    """An empty cache per block."""
    return [Cache(model.n_kv_heads, model.head_width) for _ in model.blocks]


def grouped_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Grouped-query attention: Q (h, m, d_k) and K, V (g, n, d_k), one key/value head per h/g query heads.

    The kernel broadcasts K and V over a group axis (a view, no copies) -> ((h, m, d_k), (h, m, n)).
    """
    Q, K, V = grouped_inputs(Q, K, V)
    h, g = Q.shape[0], K.shape[0]
    Qg = Q.reshape(g, h // g, *Q.shape[1:])                    # (g, h/g, m, d_k): query heads by group
    out, w = scaled_dot_product_attention(Qg, K[:, None], V[:, None], mask)   # K: (g, 1, n, d_k)
    return out.reshape(Q.shape[0], Q.shape[1], -1), w.reshape(h, Q.shape[1], K.shape[1])


def grouped_attention_unchecked(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray
                                ) -> tuple[np.ndarray, np.ndarray]:
    """grouped_attention on the model's own float32 arrays, computed in float32 as PyTorch computes it."""
    h, g = Q.shape[0], K.shape[0]
    Qg = Q.reshape(g, h // g, *Q.shape[1:])                    # (g, h/g, m, d_k): query heads by group
    out, w = attention_unchecked(Qg, K[:, None], V[:, None], mask, float(1 / np.sqrt(Q.shape[-1])))
    return out.reshape(h, Q.shape[1], -1), w.reshape(h, Q.shape[1], K.shape[1])


def rope_turn(model: RealModel, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RoPE's cos and sin for `positions`, in the dtype of the model's queries (rms_norm gives float32 rows,
    times W_q: float32 for SmolLM2's): computed once a pass, and the same for every block."""
    kind = np.result_type(model.blocks[0].W_q, np.float32)
    return rope_angles(positions, model.head_width, model.rope_base, kind)


def _attention(model, b, H, turn, cache, mask, knocked=(), ablation="zero"):
    """Self-attention of one block on normalized tokens H (n, d), turned by RoPE's `turn` (cos, sin); keys
    join the cache. `mask` (n, t): who may attend to whom; each head in `knocked` has its output replaced
    before W_O, by zeros or (ablation 'mean') by its mean over the n positions."""
    n, d_k = len(H), model.head_width
    Q = (H @ b.W_q).reshape(n, model.n_heads, d_k).transpose(1, 0, 2)      # (h, n, d_k)
    K = (H @ b.W_k).reshape(n, model.n_kv_heads, d_k).transpose(1, 0, 2)   # (g, n, d_k)
    V = (H @ b.W_v).reshape(n, model.n_kv_heads, d_k).transpose(1, 0, 2)   # (g, n, d_k)
    Q, K = rope_rotate(Q, *turn), rope_rotate(K, *turn)                  # lesson 05: rotate pairs
    if cache is not None:
        K, V = cache.append(K, V)                                        # (g, t, d_k): the past and now
    out, w = grouped_attention_unchecked(Q, K, V, mask)                  # (h, n, d_k), (h, n, t)
    for head in knocked:                                                 # a fresh array: ours to change
        out[head] = out[head].mean(axis=0) if ablation == "mean" else 0.0   # (n, d_k): one row, or zeros
    return out.transpose(1, 0, 2).reshape(n, -1) @ b.W_O, w             # (n, d)


def forward(model: RealModel, ids: Sequence[int], cache: list[Cache] | None = None,
            keep_weights: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """Logits (n, vocab) for token ids, after the tokens already in `cache` (if any), and optionally
    every block's attention weights (h, n, t)."""
    ids = model_ids(ids, len(model.embedding))
    with one_blas_thread():
        return forward_unchecked(model, ids, cache, keep_weights)


def forward_unchecked(model: RealModel, ids: np.ndarray, cache: list[Cache] | None = None,
                      keep_weights: bool = False, mask: np.ndarray | None = None,
                      knock: dict[int, list[int]] | None = None, ablation: str = "zero",
                      streams: list[np.ndarray] | None = None, release: bool = True
                      ) -> tuple[np.ndarray, list[np.ndarray]]:
    """forward on checked ids, with BLAS as it is set. Changes for the experiments of heads_at_work.py
    (lesson 09): `mask` (n, t) in place of the causal mask; `knock` {block: heads} whose outputs are
    replaced before W_O (zeros, or their mean with ablation='mean'); `streams`, a list that receives the
    residual stream after each block. The weight pages are held during the run and let go once the model
    is idle (PagesHeld, release_when_idle); `release=False` leaves that to the caller."""
    key = shared_key(model) if cache is None else None
    if key is not None:                   # once per test run (run_memo.py); a student's kernel computes
        mask_key = None if mask is None else (np.shape(mask), np.packbits(np.asarray(mask, bool)).tobytes())
        knock_key = sorted((int(k), sorted(int(h) for h in v)) for k, v in (knock or {}).items())
        ids_key = np.asarray(ids, np.int64).tobytes()
        logits, weights, kept = once("forward", (key, ids_key, bool(keep_weights), mask_key, knock_key,
                                                 ablation, streams is not None),
                                     lambda: forward_streams(model, ids, keep_weights, mask, knock, ablation,
                                                             streams is not None, release))
        if streams is not None:
            streams.extend(kept)
        return logits, weights
    return forward_computed(model, ids, cache, keep_weights, mask, knock, ablation, streams, release)


def forward_streams(model: RealModel, ids: np.ndarray, keep_weights: bool, mask, knock, ablation: str,
                    keep_streams: bool, release: bool
                    ) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """forward_computed without a cache -> (logits, weights, the residual streams if kept)."""
    streams: list[np.ndarray] = []
    logits, weights = forward_computed(model, ids, None, keep_weights, mask, knock, ablation,
                                       streams if keep_streams else None, release)
    return logits, weights, streams


def forward_computed(model: RealModel, ids: np.ndarray, cache: list[Cache] | None = None,
                     keep_weights: bool = False, mask: np.ndarray | None = None,
                     knock: dict[int, list[int]] | None = None, ablation: str = "zero",
                     streams: list[np.ndarray] | None = None, release: bool = True
                     ) -> tuple[np.ndarray, list[np.ndarray]]:
    """forward_unchecked, computed in this process."""
    if release:                           # at rest, the weights count in the file cache, not in this kernel
        with PagesHeld(model):
            return forward_computed(model, ids, cache, keep_weights, mask, knock, ablation, streams, False)
    start = cache[0].length if cache is not None else 0
    positions = np.arange(start, start + len(ids))
    X = model.embedding[ids]                                             # (n, d)
    turn = rope_turn(model, positions)                                   # ((n, d_k/2), (n, d_k/2))
    if mask is None:
        mask = causal_mask(start + len(ids))[start:]                     # (n, t): no peeking ahead
    weights, knock = [], knock or {}
    for i, b in enumerate(model.blocks):                                 # the same angles and mask in each
        a, w = _attention(model, b, rms_norm(X, b.attn_norm, model.eps), turn,
                          None if cache is None else cache[i], mask, knock.get(i, ()), ablation)
        X = X + a                                                        # residual 1
        X = X + swiglu(rms_norm(X, b.ffn_norm, model.eps), b.W_gate, b.W_up, b.W_down)   # residual 2
        if keep_weights:
            weights.append(w.astype(np.float32))
        if streams is not None:
            streams.append(X)                                            # (n, d) after block i
    return unembed(rms_norm(X, model.final_norm, model.eps), model.embedding), weights     # (n, vocab)


SLICE_ROWS = 128                          # vocabulary rows per product in unembed


def unembed(X: np.ndarray, embedding: np.ndarray) -> np.ndarray:
    """X @ embeddingᵀ: the logits (..., vocab) of normed streams X (..., d), through the tied output head.
    A few rows against SmolLM2's 49,152 token rows: OpenBLAS streams the whole head for every few rows at a
    fraction of the memory's speed, so 2-159 rows are multiplied by slices of 128 token rows (measured with
    one thread: 12 rows 13 ms in place of 29, 80 rows 59 in place of 68; a 12-token forward pass 88 ms in
    place of 110). The same sums, each in its own order: the logits agree with the plain product to
    float32's rounding (6e-5 at most on SmolLM2's, 2e-6 of their scale; review 60), exactly from 16 rows
    on; below 16, a row's last bits depend on how many rows are multiplied with it."""
    rows = X.reshape(-1, X.shape[-1])                                    # (m, d)
    if not 2 <= len(rows) < 160:
        return X @ embedding.T
    out = np.empty((len(rows), len(embedding)), np.result_type(X, embedding))   # (m, vocab)
    columns = np.ascontiguousarray(rows.T)                               # (d, m)
    for i in range(0, len(embedding), SLICE_ROWS):
        out[:, i:i + SLICE_ROWS] = (embedding[i:i + SLICE_ROWS] @ columns).T
    return out.reshape(*X.shape[:-1], len(embedding))


def attention_weights(model: RealModel, ids: Sequence[int]) -> np.ndarray:
    """Every head's attention weights on a sequence: (layers, heads, n, n)."""
    return np.stack(forward(model, ids, keep_weights=True)[1])


def generate(model: RealModel, ids: Sequence[int], n_new: int, use_cache: bool = True) -> list[int]:
    """Greedy decoding: the prompt, then up to n_new tokens (stops after the end-of-turn token)."""
    ids = [int(i) for i in model_ids(ids, len(model.embedding))]
    key = shared_key(model)
    if key is None:                       # a model of its own: computed here
        return generated(model, ids, int(n_new), bool(use_cache))
    return list(once("generate", (key, tuple(ids), int(n_new), bool(use_cache)),      # once per test run
                     lambda: generated(model, ids, int(n_new), bool(use_cache))))    # (run_memo.py)


def generated(model: RealModel, ids: list[int], n_new: int, use_cache: bool) -> list[int]:
    """generate on checked ids, computed in this process."""
    ids = list(ids)
    cache = new_cache(model) if use_cache else None
    with one_blas_thread(), PagesHeld(model):                           # one run: the pages kept throughout
        logits, _ = forward_unchecked(model, np.array(ids), cache, release=False)
        for _ in range(n_new):
            nxt = int(np.argmax(logits[-1]))
            ids.append(nxt)
            if nxt == model.eos_id:
                break
            step = [nxt] if use_cache else ids
            logits, _ = forward_unchecked(model, np.array(step), cache, release=False)
    return ids


# ---------------------------------------------------------------------------- text in, text out
def chat_prompt(question: str, system: str = SYSTEM) -> str:
    """The model's chat template (ChatML) around one user question, ready for the assistant's answer."""
    return (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n"
            "<|im_start|>assistant\n")


def encode(model: RealModel, text: str) -> list[int]:
    """Token ids of a text (special tokens such as <|im_start|> included)."""
    return model.tokenizer.encode(text)


def decode(model: RealModel, ids: Sequence[int]) -> str:
    """The text of token ids (special tokens left out)."""
    return model.tokenizer.decode(ids)


def token_strings(model: RealModel, ids: Sequence[int]) -> list[str]:
    """Each token as readable text for an axis: a leading space shown as '_' (e.g. '_Paris')."""
    out = []
    for i in ids:
        s = model.tokenizer.decode([i], skip_special=False)
        out.append(s.replace(" ", "_").replace("\n", "\\n"))
    return out


def answer(model: RealModel, question: str, n_new: int = 100) -> str:
    """The model's greedy answer to one question, with its chat template: at most n_new tokens (a longer
    answer is cut off)."""
    prompt = encode(model, chat_prompt(question))
    return decode(model, generate(model, prompt, n_new)[len(prompt):]).strip()


# ---------------------------------------------------------------------------- what the heads do
def sink_scores(weights: ArrayLike) -> np.ndarray:
    """Mean weight on the first token (the attention sink), over queries 1..n-1: (layers, heads) from
    (layers, heads, n, n)."""
    w = np.asarray(weights)
    return w[..., 1:, 0].mean(axis=-1)


def previous_token_scores(weights: ArrayLike) -> np.ndarray:
    """Mean weight of query i on key i - 1, over i = 1..n-1: (layers, heads)."""
    w = np.asarray(weights)
    n = w.shape[-1]
    return w[..., np.arange(1, n), np.arange(n - 1)].mean(axis=-1)


def prefix_matching_scores(weights: ArrayLike, period: int) -> np.ndarray:
    """On a sequence that repeats after `period` tokens: mean weight of query i (second copy) on key
    i - period + 1, the token that followed the earlier copy of token i. (layers, heads)."""
    w = np.asarray(weights)
    n = w.shape[-1]
    period = period_fits(period, n)
    q = np.arange(period, n - 1)
    return w[..., q, q - period + 1].mean(axis=-1)


def head_scores(weights: ArrayLike, period: int) -> dict[str, np.ndarray]:
    """Lesson 08's three scores of every head on a sequence that repeats after `period` tokens, each
    (layers, heads): the weight on the first token, on the previous token (first copy only), and the
    prefix-matching score of a candidate induction head (second copy)."""
    w = np.asarray(weights)
    period = period_fits(period, w.shape[-1])
    return {"first token": sink_scores(w),
            "previous token": previous_token_scores(w[..., :period, :period]),
            "induction (prefix matching)": prefix_matching_scores(w, period)}


def repeated_random_tokens(model: RealModel, period: int = 40, seed: int = 0) -> np.ndarray:
    """`period` random ordinary tokens, then the same again: (2 period,) ids."""
    rng = np.random.default_rng(seed)
    ordinary = np.arange(1000, min(20000, len(model.embedding)))      # words and pieces, no control tokens
    period = period_count(period, len(ordinary))
    first = rng.choice(ordinary, size=period, replace=False)
    return np.concatenate([first, first])


def token_losses(logits: ArrayLike, ids: Sequence[int]) -> np.ndarray:
    """Cross-entropy (nats) of predicting each next token of `ids` from the logits (n, vocab): (n - 1,)."""
    logits = np.asarray(logits)
    logits_fit(logits, len(ids))
    targets = np.asarray(ids)[1:]
    out = np.empty(len(ids) - 1)
    for start in range(0, len(out), 64):       # 64 rows at a time: a long text's float64 copy stays small
        rows = logits[start:start + 64][: len(out) - start].astype(np.float64)   # (m, vocab)
        out[start:start + len(rows)] = -log_softmax_unchecked(rows, targets[start:start + len(rows)])
    return out


# ---------------------------------------------------------------------------- the head view
def head_explorer(weights: ArrayLike, tokens: Sequence[str], layer: int = 0, head: int = 0) -> Explorer:
    """Sliders for the layer and the head; the heatmap shows that head's weights over the tokens."""
    w = np.asarray(weights)
    L, h, n, _ = w.shape
    tokens_fit(tokens, n)
    controls = [Control("layer", "layer", layer, 0, L - 1, 1, integer=True),
                Control("head", "head", head, 0, h - 1, 1, integer=True)]

    def compute(values):
        a = w[values["layer"], values["head"]]
        if n < 2:                            # one token: no later token to weigh the first or the previous
            return {"weights": a, "sink": None, "previous": None}
        return {"weights": a, "sink": float(a[1:, 0].mean()),
                "previous": float(a[np.arange(1, n), np.arange(n - 1)].mean())}

    def describe(values, r):
        best = [tokens[int(j)] for j in r["weights"].argmax(axis=1)]
        def shown(x):
            return "n/a (one token)" if x is None else f"{x:.2f}"
        return (f"layer {values['layer']}, head {values['head']}\n"
                f"weight on the first token: {shown(r['sink'])}\n"
                f"weight on the previous token: {shown(r['previous'])}\n"
                f"'{tokens[-1]}' looks most at '{best[-1]}'")

    panels = [Panel("weights", list(tokens), list(tokens), vmin=0.0, vmax=1.0, annot=False,
                    width=n - 0.5)]   # narrower than the columns: key labels turned upright
    return Explorer(controls, compute, panels, describe=describe, figsize=head_view_size(n))


def head_view_size(n: int) -> tuple[float, float]:
    """The head view's size in inches for n tokens: 8 × 6.6 up to 14 tokens, then a quarter inch more per
    token, so that the token words (13 pt) never overlap."""
    side = max(6.6, 3.0 + 0.25 * n)
    return (side + 1.4, side)


def head_view(model: RealModel, text: str, layer: int = 0, head: int = 0) -> Explorer:
    """The head view of any text: its tokens, every head's weights, and the two sliders."""
    ids = encode(model, text)
    # pragma: no mutate start  (the door: input checks are not mutated)
    if not ids:
        raise ValueError(f"text {text!r} is empty: give at least one token, e.g. 'The cat sat'")
    # pragma: no mutate end
    return head_explorer(attention_weights(model, ids), token_strings(model, ids), layer, head)


# ---------------------------------------------------------------------------- figures
def plot_head_scores(scores: dict[str, ArrayLike]) -> Figure:
    """One heatmap per score, (layers, heads) each, on the fixed 0-1 scale of weights -> Figure."""
    import matplotlib.pyplot as plt

    from .heatmaps import heatmap
    names = list(scores)
    L, h = np.shape(scores[names[0]])
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 0.3 * L + 1.6), layout="constrained")
    for ax, name in zip(np.atleast_1d(axes), names):
        heatmap(np.asarray(scores[name], dtype=float), [str(i) for i in range(L)], [str(j) for j in range(h)],
                ax=ax, title=name, xlabel="head", ylabel="layer", vmin=0.0, vmax=1.0, fmt=".1f",
                annot_size=8, cbar=name == names[-1])
    return fig


def plot_model_view(weights: ArrayLike, picks: dict[str, tuple[int, int]] | None = None,
                    title: str = "") -> Figure:
    """Every head at once (bertviz's model view): one thumbnail per (layer, head), heads down, layers
    across, on the fixed 0-1 scale; picks = {name: (layer, head)} are framed in their own colours."""
    import matplotlib.pyplot as plt

    from .heatmaps import FONT, thumbnails
    # pragma: no mutate start  (the door: input checks are not mutated)
    w = weights_in_0_1(as_array(weights, "weights", "(layers, heads, n, n): every head's weights, e.g. "
                                "rm.attention_weights(model, ids)", ndim=4), "weights", tol=1e-6)
    L, h, m, n = w.shape
    if max(m, n) > MODEL_VIEW_MOST:
        raise ValueError(f"weights cover {m} queries and {n} keys: the model view draws at most "
                         f"{MODEL_VIEW_MOST} tokens per thumbnail (a short sentence); slice the weights, "
                         f"e.g. weights[:, :, :{MODEL_VIEW_MOST}, :{MODEL_VIEW_MOST}]")
    picks = head_picks(picks, L, h)
    # pragma: no mutate end
    fig, ax = plt.subplots(figsize=(0.45 * L + 1.8, 0.45 * h * m / n + 1.6), layout="constrained")
    image, _ = thumbnails(ax, w, picks, title=title)
    fig.colorbar(image, ax=ax, fraction=0.02, pad=0.01).set_label("weight", fontsize=FONT["labels"] - 2)
    return fig


def plot_heads(weights: ArrayLike, tokens: Sequence[str], picks: dict[str, tuple[int, int]]) -> Figure:
    """The weights of a few chosen heads over one sentence, side by side: picks = {title: (layer, head)}."""
    import matplotlib.pyplot as plt

    from .heatmaps import heatmap
    w = np.asarray(weights)
    fig, axes = plt.subplots(1, len(picks), figsize=(6.0 * len(picks), 6.2), layout="constrained")
    for ax, (title, (layer, head)) in zip(np.atleast_1d(axes), picks.items()):
        heatmap(w[layer, head].astype(float), list(tokens), list(tokens), ax=ax, annot=False, vmin=0.0,
                vmax=1.0, title=f"{title}: layer {layer}, head {head}", cbar=title == list(picks)[-1])
        ax.tick_params(axis="x", labelrotation=90)
    return fig
