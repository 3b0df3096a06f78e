"""Lesson 07 as its tests read it: everything it shows as text (its code and its outputs), its prose, and
the teaching guide's lesson-07 session. Shared by the tests of its training runs and of its other claims."""

import functools
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "notebooks" / "07-attention-learns-to-look-things-up.ipynb"


@functools.cache
def screen() -> str:
    """Everything lesson 07 shows as text: its code and its outputs."""
    parts = []
    for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            parts.append("".join(cell["source"]))
            for out in cell.get("outputs", []):
                parts.append("".join(out.get("text", "")))
                parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def guide_lesson_07() -> str:
    """The guide's lesson-07 session (its plan and its misconceptions)."""
    guide = (ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    start = guide.index("## A third session (45 minutes): attention learns to look things up")
    return guide[start:guide.index("\n## ", start + 1)]


def words() -> str:
    """Lesson 07's prose, lines joined (a phrase may break across lines)."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")

