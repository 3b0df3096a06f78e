"""A student's own progress: every `al.check` is recorded on this computer, and `al.progress()` shows it.

The record is one small JSON file, $ATTENTION_LAB_PROGRESS, else ~/.local/share/attention-lab/progress.json
($XDG_DATA_HOME is honoured). Per exercise it keeps the best verdict so far, how many answers were checked,
and when it was first solved. Nothing leaves the computer; a teacher sees a class's progress through a
graded edition (docs/teaching-guide.md), not through this file.

Recording never stops a lesson: a folder that cannot be written (a read-only home) leaves `al.check`
working, and says once where the record could not be kept.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

RANK = {"unanswered": 0, "wrong": 1, "mistake": 2, "correct": 3}
"""How far an answer got: a later check keeps the best verdict ('correct' once reached stays)."""

_unwritable_told: set[str] = set()   # the record files this kernel has already said it cannot write


@dataclass(frozen=True)
class Verdict:
    """What `al.check` returns: truthy on ✓. A notebook shows nothing for it (the message is printed)."""
    key: str
    status: str

    def __bool__(self) -> bool:
        return self.status == "correct"

    def _ipython_display_(self) -> None:
        """Jupyter shows nothing below the printed message when a cell ends with `al.check(...)`."""


def record_file() -> Path:
    """$ATTENTION_LAB_PROGRESS, else $XDG_DATA_HOME (or ~/.local/share)/attention-lab/progress.json."""
    chosen = os.environ.get("ATTENTION_LAB_PROGRESS", "").strip()
    if chosen:
        return Path(os.path.expandvars(chosen)).expanduser().absolute()
    data = os.environ.get("XDG_DATA_HOME", "").strip() or Path.home() / ".local" / "share"
    return Path(data).expanduser().absolute() / "attention-lab" / "progress.json"


def read_record(path: Path | None = None) -> dict[str, dict]:
    """{exercise key: {status, attempts, solved}}; an absent or unreadable file is an empty record."""
    path = record_file() if path is None else path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):        # none yet, or spoilt (by hand, a full disk): start afresh
        return {}
    return data if isinstance(data, dict) else {}


def record(key: str, status: str) -> Verdict:
    """Keep one checked answer's status ('correct', 'mistake', 'wrong', 'unanswered') in the record,
    atomically (two kernels may check at once)."""
    path = record_file()
    entries = read_record(path)
    entry = entries.get(key)
    if not (isinstance(entry, dict) and isinstance(entry.get("attempts"), int)     # spoilt by hand
            and entry.get("status") in RANK):
        entry = {"status": "unanswered", "attempts": 0, "solved": None}
    if status != "unanswered":
        entry["attempts"] = int(entry.get("attempts", 0)) + 1
    if RANK.get(status, 0) > RANK.get(entry.get("status"), 0):
        entry["status"] = status
    if status == "correct" and not entry.get("solved"):
        entry["solved"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    entries[key] = entry
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False,
                                         prefix=".progress-", suffix=".json") as tmp:
            json.dump(entries, tmp, indent=1, sort_keys=True)
        os.replace(tmp.name, path)
    except OSError as exc:               # a read-only home: the check itself still counts
        if str(path) not in _unwritable_told:
            _unwritable_told.add(str(path))
            print(f"(your progress is not saved: {path.parent} cannot be written ({exc.strerror}); "
                  "set ATTENTION_LAB_PROGRESS to a file you can write)")
    return Verdict(key, status)


def progress_table(keys: list[str], entries: dict[str, dict]) -> str:
    """One line per lesson: how many of its exercises are solved, and which ('✓ 01.1' or '· 01.2')."""
    lessons: dict[str, list[str]] = {}
    for key in keys:
        lessons.setdefault(key.split(".")[0], []).append(key)
    lines = ["lesson  solved  exercises (✓ solved, ~ tried, · not yet)"]
    for lesson in sorted(lessons):
        marks = []
        for key in lessons[lesson]:
            status = entries.get(key, {}).get("status", "unanswered")
            marks.append(("✓ " if status == "correct" else "~ " if status != "unanswered" else "· ") + key)
        solved = sum(m.startswith("✓") for m in marks)
        lines.append(f"  {lesson}    {solved:>2} of {len(marks):<2}  " + "  ".join(marks))
    total = sum(entries.get(k, {}).get("status") == "correct" for k in keys)
    lines.append(f"solved {total} of {len(keys)} exercises; kept in {record_file()}")
    return "\n".join(lines)
