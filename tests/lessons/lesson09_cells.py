"""Lesson 09's cells as its tests read them: the source (as written, or its words on one line) and the
printed output of a cell, by id. Shared by the tests of the lesson's sections."""

import json
import os
from pathlib import Path

NOTEBOOKS = Path(os.environ.get("LESSON_NOTEBOOKS", Path(__file__).resolve().parents[2] / "notebooks"))
LESSON = NOTEBOOKS / "09-heads-at-work.ipynb"


def cells() -> list:
    """The lesson's cells, as stored."""
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def source(cell_id) -> str:
    """A cell's source, as written."""
    return "".join(next(c for c in cells() if c["id"] == cell_id)["source"])


def cell(cell_id) -> str:
    """A cell's source with every run of white space made one space (prose wrapped anywhere)."""
    return " ".join(source(cell_id).split())


def shown(cell_id) -> str:
    """What a cell printed."""
    c = next(c for c in cells() if c["id"] == cell_id)
    return "".join("".join(o.get("text", "")) for o in c.get("outputs", []))
