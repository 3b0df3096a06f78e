"""tools/mutation.py, the contributor's mutation run: what it hands mutmut (the run itself is not a test)."""

import os
import sys
import tempfile
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import mutation


def test_mutmuts_children_leave_their_temporary_files_in_a_folder_the_run_deletes(monkeypatch, tmp_path):
    """Each mutant runs in a forked child that exits without its atexit clean-up: whatever it creates under
    the temporary folder (conftest.py's run folders) must go with the run, not pile up in /tmp."""
    seen = {}

    def fake_run(command, cwd, env):
        seen.update(command=command, cwd=cwd, tmpdir=env["TMPDIR"], path=env.get("PATH"))
        assert Path(env["TMPDIR"]).is_dir() and Path(env["TMPDIR"]).parent == Path(tempfile.gettempdir())
        (Path(env["TMPDIR"]) / "attention-lab-run-memo-left-by-a-child").mkdir()   # as a child leaves it
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setitem(sys.modules, "mutmut", types.ModuleType("mutmut"))   # not in the README's install
    monkeypatch.setattr(mutation.subprocess, "run", fake_run)
    monkeypatch.setattr(mutation, "results", lambda modules: {})
    monkeypatch.setattr(mutation, "report", lambda results: [])
    assert mutation.main(["--module", "loop", "--max-children", "1"]) == 0
    assert seen["command"][1:] == ["-m", "mutmut", "run", "--max-children", "1", "attention_lab.loop.*"]
    assert seen["cwd"] == mutation.ROOT and seen["path"] == os.environ.get("PATH")   # the rest of env kept
    assert Path(seen["tmpdir"]).name.startswith("attention-lab-mutation-")
    assert not Path(seen["tmpdir"]).exists(), "the run's temporary folder was left behind"
