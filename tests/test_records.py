"""attention_lab/records.py: `al.check` returns its verdict (truthy on ✓, nothing shown below it in a
notebook), keeps the student's record on this computer, and `al.progress()` prints it per lesson. Every
expected table here is written by hand from the answers given."""

import ast
import json
import linecache
import os
import stat
from datetime import datetime

import numpy as np
import pytest
from handed_out import HANDED_OUT
from IPython.core.formatters import DisplayFormatter
from lesson_helpers import lesson_cells

import attention_lab as al
from attention_lab import records
from attention_lab.answer_keys import answer_key


@pytest.fixture
def record(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "progress.json"
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(path))
    return path


def test_check_returns_a_verdict_truthy_on_a_right_answer_only(record, capsys):
    right = al.check("01.5", answer_key("01.5"))
    assert right and right.status == "correct" and right.key == "01.5"
    assert "✓" in capsys.readouterr().out                     # still printed, as before
    assert not al.check("01.5", np.asarray(answer_key("01.5")) + 1.0)
    assert not al.check("01.5", None)
    assert not al.check("01.2", "Z")                          # a predict exercise: no such letter
    assert al.EXERCISES["01.5"].check(answer_key("01.5"))     # the exercise's own method does the same


def test_a_notebook_shows_nothing_below_the_printed_verdict(record):
    data, metadata = DisplayFormatter().format(al.check("01.5", answer_key("01.5")))
    assert data == {} and metadata == {}


def test_the_record_keeps_the_best_verdict_and_counts_the_answers(record):
    al.check("01.5", None)                                     # not answered yet: no attempt
    assert json.loads(record.read_text())["01.5"] == {"status": "unanswered", "attempts": 0, "solved": None}
    al.check("01.5", np.asarray(answer_key("01.5")) + 1.0)
    al.check("01.5", answer_key("01.5"))
    al.check("01.5", np.asarray(answer_key("01.5")) + 1.0)    # a later slip does not undo the ✓
    entry = json.loads(record.read_text())["01.5"]
    assert entry["status"] == "correct" and entry["attempts"] == 3 and entry["solved"].endswith("+00:00")
    first = entry["solved"]
    al.check("01.5", answer_key("01.5"))
    assert json.loads(record.read_text())["01.5"]["solved"] == first


def test_progress_prints_each_lesson_solved_tried_and_not_yet(record, capsys):
    al.check("01.5", answer_key("01.5"))
    al.check("01.2", "Z")
    capsys.readouterr()
    assert al.progress() is None
    out = capsys.readouterr().out
    keys01 = sorted(k for k in al.EXERCISES if k.startswith("01."))
    line01 = next(line for line in out.splitlines() if line.startswith("  01 "))
    assert f"1 of {len(keys01)}" in line01
    assert line01.endswith("· 01.1  ~ 01.2  · 01.3  · 01.4  ✓ 01.5")
    assert f"solved 1 of {len(al.EXERCISES)} exercises; kept in {record}" in out
    assert len([line for line in out.splitlines() if line.startswith("  ")]) == \
        len({k.split(".")[0] for k in al.EXERCISES})


def test_a_spoilt_record_starts_afresh(record):
    record.parent.mkdir(parents=True)
    record.write_text("{not json")
    assert al.check("01.5", answer_key("01.5"))
    assert json.loads(record.read_text())["01.5"]["status"] == "correct"
    record.write_text('{"01.5": [1, 2], "01.1": {"attempts": "many"}, "02.4": {"status": 3}}')
    assert al.check("01.5", answer_key("01.5")) and al.check("01.1", answer_key("01.1"))
    assert not al.check("02.4", None)
    assert {k: v["status"] for k, v in json.loads(record.read_text()).items()} == \
        {"01.5": "correct", "01.1": "correct", "02.4": "unanswered"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_that_cannot_be_written_never_stops_the_check(record, capsys):
    record.parent.mkdir(parents=True)
    record.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert al.check("01.5", answer_key("01.5"))
        assert al.check("01.5", answer_key("01.5"))
    finally:
        record.parent.chmod(stat.S_IRWXU)
    out = capsys.readouterr().out
    assert out.count("your progress is not saved") == 1 and "ATTENTION_LAB_PROGRESS" in out


@pytest.fixture
def blocked(record, monkeypatch):
    """A record whose folder cannot be made, for any user (root too): a file stands where it should be."""
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(record.parent / "a-file" / "progress.json"))
    record.parent.mkdir(parents=True)
    (record.parent / "a-file").write_text("a file where the folder should be")
    monkeypatch.setattr(records, "_unwritable_told", set())
    return record.parent / "a-file"


def test_a_write_that_fails_never_stops_the_check(blocked, capsys):
    """As above, for any user (root too): the folder cannot be made."""
    assert al.check("01.5", answer_key("01.5"))
    assert not al.check("01.5", None)
    out = capsys.readouterr().out
    assert out.count("your progress is not saved") == 1, out


def test_the_record_file_is_chosen_as_documented(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", "~/x/p.json")
    assert records.record_file() == (records.Path.home() / "x" / "p.json").absolute()
    monkeypatch.delenv("ATTENTION_LAB_PROGRESS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert records.record_file() == tmp_path / "attention-lab" / "progress.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert records.record_file() == records.Path.home() / ".local/share/attention-lab/progress.json"


# ---------- review round 8, S1: Run All checks the debug functions as handed out: no attempt ---------------

def weights_by_count(q, K):                   # changed, still wrong: divided by the number of keys
    scores = K @ q
    e = np.exp(scores - scores.max())
    return e / len(e)


def attention_axis_minus_2(Q, K, V):          # changed, and still the planted numbers
    S = Q @ K.T / np.sqrt(K.shape[1])
    A = al.softmax(S, axis=-2)
    return A @ V


def test_the_debug_functions_as_handed_out_are_not_counted_as_tried(record, capsys):
    """Review round 8, S1: Run All checks 01.4's and 02.3's functions before the student has touched them.
    The hint is printed, but the record counts no attempt, and al.progress() shows them as not tried (·),
    not as tried (~). A changed function that is still wrong counts, also one that still gives the planted
    numbers."""
    for key, fn in (("01.4", HANDED_OUT["01.4"]), ("02.3", HANDED_OUT["02.3"])):
        assert not al.check(key, fn)
        assert "Hint: still the planted bug" in capsys.readouterr().out
    untouched = {"status": "unanswered", "attempts": 0, "solved": None}
    assert json.loads(record.read_text()) == {"01.4": untouched, "02.3": untouched}
    al.progress()
    out = capsys.readouterr().out
    assert "· 01.4" in out and "· 02.3" in out and "~" not in out.split("\n", 1)[1], out

    for key, fn in (("01.4", weights_by_count), ("02.3", attention_axis_minus_2),
                    ("01.4", HANDED_OUT["01.4"])):
        assert not al.check(key, fn)
    tried = {"status": "mistake", "attempts": 1, "solved": None}
    assert json.loads(record.read_text()) == {"01.4": tried, "02.3": tried}    # handed out again: no count
    al.progress()
    out = capsys.readouterr().out
    assert "~ 01.4" in out and "~ 02.3" in out, out


def split_reshaped(M, h):                     # changed, and still the planted numbers
    return np.reshape(M, (h, len(M), -1))


def masked_weights_zero_fill(S, mask):        # changed, and still the planted numbers
    return al.softmax(np.where(mask, S, 0.0))


def decode_first_query(X, W_q, W_k, W_v):     # changed, still wrong: every step asks with token 0's query
    K, V, Y = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
    for x in X:
        K, V = np.vstack([K, x @ W_k]), np.vstack([V, x @ W_v])
        Y.append(al.softmax(K @ (X[0] @ W_q) / np.sqrt(W_q.shape[1])) @ V)
    return np.array(Y)


def grads_multiplied(Q, K, V, dY):            # changed, and still the planted numbers
    s = 1 / np.sqrt(K.shape[1])
    A = al.softmax(np.where(al.causal_mask(len(Q)), s * Q @ K.T, -np.inf))
    dS = np.multiply(dY @ V.T, A)
    return s * dS @ K, s * dS.T @ Q, A.T @ dY


def stream_backward_in_two_steps(X, A1, A2, W1, W2, dOut):   # changed, and still the planted numbers
    back2 = A2.T @ dOut
    dH1 = back2 @ W2.T
    return dH1 + A1.T @ dH1 @ W1.T


def gqa_by_index(Q, K, V):                    # changed, and still the planted numbers: key head i % g
    h, g, n = len(Q), len(K), Q.shape[1]
    K, V = K[np.arange(h) % g], V[np.arange(h) % g]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    return al.softmax(np.where(al.causal_mask(n), S, -np.inf)) @ V


def as_handed_out_count_no_attempt(functions, record, capsys):
    """Each {key: function} checked on a fresh record prints the planted hint; the record and
    al.progress() then show no attempt at any of them."""
    for key, fn in functions.items():
        assert not al.check(key, fn)
        assert "Hint: still the planted bug" in capsys.readouterr().out, key
    untouched = {"status": "unanswered", "attempts": 0, "solved": None}
    assert json.loads(record.read_text()) == {key: untouched for key in functions}
    al.progress()
    out = capsys.readouterr().out
    assert all(f"· {key}" in out for key in functions) and "~" not in out.split("\n", 1)[1], out


LATER = ("03.3", "04.3", "05.3", "06.3", "07.3", "08.3")
CHANGED = {"03.3": split_reshaped, "04.3": masked_weights_zero_fill, "05.3": decode_first_query,
           "06.3": grads_multiplied, "07.3": stream_backward_in_two_steps, "08.3": gqa_by_index}


def test_the_debug_functions_of_03_to_08_as_handed_out_are_not_counted_as_tried(record, capsys):
    """As 01.4 and 02.3: Run All checks 03.3's to 08.3's functions as handed out. Their hint is printed, but
    a fresh record counts no attempt. A changed function that is still wrong counts, also one that still
    gives the planted numbers; the one handed out, checked again, adds none."""
    as_handed_out_count_no_attempt({key: HANDED_OUT[key] for key in LATER}, record, capsys)

    for key in LATER:
        assert not al.check(key, CHANGED[key])
        assert not al.check(key, HANDED_OUT[key])
    tried = {"status": "mistake", "attempts": 1, "solved": None}
    assert json.loads(record.read_text()) == {key: tried for key in LATER}
    al.progress()
    out = capsys.readouterr().out
    assert all(f"~ {key}" in out for key in LATER), out


# ---------- review round 9, B1: only the function as handed out counts as not tried ----------------------

def weights_of_with_a_print(q, K):            # 01.4 as handed out, a print added to look inside
    scores = K @ q
    e = np.exp(scores - scores.max())
    print("sum of weights:", (e / e.max()).sum())
    return e / e.max()


def stream_backward_with_an_assert(X, A1, A2, W1, W2, dOut):    # 07.3, an assert added
    dH1 = A2.T @ dOut @ W2.T
    assert dH1.shape == X.shape
    return dH1 + A1.T @ dH1 @ W1.T


def stream_backward_named(X, A1, A2, W1, W2, dOut):    # 07.3, the result named before it is returned
    dH1 = A2.T @ dOut @ W2.T
    dX = dH1 + A1.T @ dH1 @ W1.T
    return dX


def stream_backward_reassociated(X, A1, A2, W1, W2, dOut):     # 07.3, the last product grouped otherwise
    dH1 = A2.T @ dOut @ W2.T
    return dH1 + A1.T @ (dH1 @ W1.T)


def gqa_counted_otherwise(Q, K, V):           # 08.3, its other lines changed without changing a number
    h, g = Q.shape[0], K.shape[0]
    K = np.tile(K, (h // g, 1, 1))
    V = np.tile(V, (h // g, 1, 1))
    S = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    return al.softmax(np.where(al.causal_mask(Q.shape[1]), S, -np.inf)) @ V


EDITED = [("01.4", weights_of_with_a_print), ("07.3", stream_backward_with_an_assert),
          ("07.3", stream_backward_named), ("07.3", stream_backward_reassociated),
          ("08.3", gqa_counted_otherwise)]


@pytest.mark.parametrize("key, fn", EDITED, ids=[fn.__name__ for _, fn in EDITED])
def test_a_function_changed_elsewhere_keeps_the_planted_hint_and_counts_as_tried(record, capsys, key, fn):
    """Review round 9, B1: a student who added a print or an assert, or rewrote a line to the same numbers,
    has tried: the hint is still the planted bug's, and al.progress() shows ~ with one attempt."""
    assert not al.check(key, fn)
    assert f"Exercise {key}: not yet. Hint: still the planted bug" in capsys.readouterr().out
    assert json.loads(record.read_text()) == {key: {"status": "mistake", "attempts": 1, "solved": None}}
    al.progress()
    assert f"~ {key}" in capsys.readouterr().out


def cell_functions(lesson: str, cid: str) -> dict:
    """The functions a lesson's cell defines, run as Jupyter runs a cell: its source kept in linecache under
    a name of its own (so that inspect.getsource reads it back), and only its `def`s executed (the rest of
    the cell needs the lesson's variables)."""
    source = lesson_cells(lesson)[cid]
    filename = f"<cell {cid}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    space = {"np": np, "al": al}
    exec(compile(tree, filename, "exec"), space)
    return {node.name: space[node.name] for node in tree.body}


DEBUG = ("01.4", "02.3", "03.3", "04.3", "05.3", "06.3", "07.3", "08.3")


def test_the_lessons_debug_cells_as_handed_out_count_no_attempt(record, capsys):
    """Run All: each debug exercise's cell, its function as the lesson hands it out, prints the planted
    hint and counts as no attempt."""
    functions = {}
    for key in DEBUG:
        (functions[key],) = cell_functions(key[:2], f"ex-{key[:2]}-{key[3:]}-code").values()
    as_handed_out_count_no_attempt(functions, record, capsys)


# ---------- the record file and the table, as a student reads them (issue 46: mutation testing) ----------

def test_progress_table_by_hand(monkeypatch, tmp_path):
    """The whole table for three lessons, written out here: the header, each lesson's count right-aligned in
    two places, its marks (✓ solved, ~ tried, · not yet, also for an exercise with no entry), and the total
    with the file it is kept in."""
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(tmp_path / "p.json"))
    keys = ["01.1", "01.2", "01.3", "02.1", "10.1", "10.2"]
    entries = {"01.1": {"status": "correct"}, "01.2": {"status": "mistake"}, "01.3": {"status": "unanswered"},
               "02.1": {"status": "wrong"}, "10.2": {"status": "correct"}, "99.9": {"status": "correct"}}
    assert records.progress_table(keys, entries) == (
        "lesson  solved  exercises (✓ solved, ~ tried, · not yet)\n"
        "  01     1 of 3   ✓ 01.1  ~ 01.2  · 01.3\n"
        "  02     0 of 1   ~ 02.1\n"
        "  10     1 of 2   · 10.1  ✓ 10.2\n"
        f"solved 2 of 6 exercises; kept in {tmp_path / 'p.json'}")
    twelve = [f"03.{i}" for i in range(1, 13)]
    line = records.progress_table(twelve, {k: {"status": "correct"} for k in twelve}).splitlines()[1]
    assert line.startswith("  03    12 of 12  ✓ 03.1  ✓ 03.2")


def test_the_record_file_is_sorted_json_a_person_can_read(record):
    al.check("01.5", None)
    al.check("01.1", np.asarray(answer_key("01.1")) + 1.0)
    assert record.read_text(encoding="utf-8") == (
        '{\n "01.1": {\n  "attempts": 1,\n  "solved": null,\n  "status": "wrong"\n },\n'
        ' "01.5": {\n  "attempts": 0,\n  "solved": null,\n  "status": "unanswered"\n }\n}')


def test_solved_is_the_first_right_answers_time_to_the_second_in_utc(record, monkeypatch):
    """On a clock of our own (each reading one day later, with microseconds): 'solved' is the time of the
    first ✓, in UTC, to the second; a later ✓ leaves it."""
    readings = []

    class Clock:
        @staticmethod
        def now(tz=None):
            readings.append(tz)
            return datetime(2026, 11, 1 + len(readings), 9, 30, 15, 123456, tzinfo=tz)

    monkeypatch.setattr(records, "datetime", Clock)
    al.check("01.5", np.asarray(answer_key("01.5")) + 1.0)    # not right: no time is read
    al.check("01.5", answer_key("01.5"))
    al.check("01.5", answer_key("01.5"))
    assert readings == [records.timezone.utc]
    assert json.loads(record.read_text())["01.5"] == {"status": "correct", "attempts": 3,
                                                       "solved": "2026-11-02T09:30:15+00:00"}


def test_the_record_is_written_whole_beside_itself_then_moved_into_place(record, monkeypatch):
    """Two kernels may check at once: each writes a hidden file in the record's own folder and renames it,
    so a reader never sees half a file (a rename is atomic only within one file system)."""
    moves = []
    real_replace = records.os.replace

    def replace(src, dst):
        moves.append((records.Path(src), records.Path(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(records.os, "replace", replace)
    al.check("01.5", answer_key("01.5"))
    ((src, dst),) = moves
    assert dst == record and src.parent == record.parent and src.name.startswith(".") and src != dst
    assert sorted(p.name for p in record.parent.iterdir()) == ["progress.json"]


def test_the_record_folder_is_made_however_deep(monkeypatch, tmp_path):
    path = tmp_path / "a" / "b" / "c" / "progress.json"
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", str(path))
    assert al.check("01.5", answer_key("01.5"))
    assert al.check("01.5", answer_key("01.5"))               # the folder is there now: no complaint
    assert json.loads(path.read_text())["01.5"]["attempts"] == 2


def test_read_record_reads_the_file_it_is_given(record, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"02.1": {"status": "wrong", "attempts": 4, "solved": null}}')
    assert records.read_record(other) == {"02.1": {"status": "wrong", "attempts": 4, "solved": None}}
    assert records.read_record() == {}                          # the chosen file: none yet


def test_a_record_that_is_not_a_table_starts_afresh(record):
    record.parent.mkdir(parents=True)
    record.write_text("[1, 2]")
    assert records.read_record(record) == {}
    assert not al.check("01.5", None)
    assert json.loads(record.read_text()) == {"01.5": {"status": "unanswered", "attempts": 0, "solved": None}}


def test_the_record_file_names_expand_variables(monkeypatch, tmp_path):
    monkeypatch.setenv("LAB_HOME_FOR_TEST", str(tmp_path))
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", "  $LAB_HOME_FOR_TEST/p.json  ")
    assert records.record_file() == tmp_path / "p.json"
    monkeypatch.setenv("ATTENTION_LAB_PROGRESS", "   ")       # blank: as if not set
    monkeypatch.setenv("XDG_DATA_HOME", f"  {tmp_path}  ")
    assert records.record_file() == tmp_path / "attention-lab" / "progress.json"


def test_the_message_for_a_record_that_cannot_be_written_in_full(blocked, capsys):
    assert al.check("01.5", answer_key("01.5"))
    out = capsys.readouterr().out
    assert (f"(your progress is not saved: {blocked} cannot be written (File exists); "
            "set ATTENTION_LAB_PROGRESS to a file you can write)\n") in out, out
    assert not blocked.is_dir()
