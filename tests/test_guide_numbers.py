"""The teaching guide is held to the lessons' standard: every decimal number it quotes is on screen in the
lesson it speaks of (in an output, or in the code), as tests/test_lesson_words.py checks for the lessons'
own prose.

Which lesson a number speaks of: the lessons its table row, bullet or paragraph names (`01`,
`00-start-here`, "Lesson `07`", "appendix `10`"); where it names none, the lessons its section's own
words name (the section on lesson 06 names `06` once, in its first line). A number in a part that names
no lesson at all, and is not on the short list below, fails: say which lesson it comes from.
"""

import re
from pathlib import Path

import pytest
from test_lesson_words import EXERCISE_KEY, NUMBER, cells, numbers, rounds_to, shown

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "teaching-guide.md"
LESSON = re.compile(r"`(0\d|10)(?:-[\w-]+)?`|\b[Ll]esson `?(0\d|10)\b`?|\bappendix `?(0\d|10)\b`?")

# Numbers the guide may quote without a lesson computing them. Keep this list short; each says why.
NOT_COMPUTED = {
    "3.10": "a Python version ('Python 3.10 or newer', the local install): a name, not a computed number",
}


def screen_of(lesson: str) -> set[float]:
    """Every number lesson `lesson` shows: in its code cells' code and outputs."""
    path = next((ROOT / "notebooks").glob(f"{lesson}-*.ipynb"))
    values: set[float] = set()
    for cell in cells(path):
        if cell["cell_type"] == "code":
            values |= numbers(shown(cell))
    return values


def lessons_in(text: str) -> set[str]:
    return {a or b or c for a, b, c in LESSON.findall(text)}


def parts(guide: str):
    """(section title, the section's own lessons, one part: a table row, a list item or a paragraph)."""
    for section in re.split(r"^## ", guide, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        prose = "\n".join(line for line in body.splitlines() if not line.startswith("|"))
        own = lessons_in(title) | lessons_in(prose)
        block: list[str] = []
        for line in [*body.splitlines(), ""]:
            starts_item = re.match(r"\s*(?:- |\d+\. )", line)
            if line.startswith("|") or not line.strip() or starts_item:
                if block:
                    yield title, own, " ".join(block)
                block = [] if line.startswith("|") or not line.strip() else [line.strip()]
                if line.startswith("|") and not re.match(r"\|[-| ]+\|$", line):
                    yield title, own, line
            else:
                block.append(line.strip())


def unsupported(guide: str, screens: dict[str, set[float]]) -> list[str]:
    """Each quoted decimal number that no lesson its part speaks of shows: '07: 0.48 (…)'."""
    missing = []
    for title, own, part in parts(guide):
        named = lessons_in(part) or own
        for quoted in NUMBER.findall(part):
            if quoted in NOT_COMPUTED or EXERCISE_KEY.fullmatch(quoted):
                continue
            if not named:
                missing.append(f"'{title}': {quoted} in a part that names no lesson: {part[:70]}…")
            elif not any(rounds_to(quoted, screens[lesson]) for lesson in named):
                missing.append(f"{'+'.join(sorted(named))}: {quoted} ({part[:70]}…)")
    return missing


@pytest.fixture(scope="module")
def screens():
    return {p.name[:2]: screen_of(p.name[:2]) for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")}


def test_the_mapping_by_hand(screens):
    """A row names its lesson; a part that names none takes its section's."""
    guide = ("## A session on 07\n\nLesson `07`, then:\n\n| a | b |\n|---|---|\n| x | loss 3.94 |\n"
             "| y | `01`, weight 0.48 |\n\n## Other\n\nA paragraph with 0.77.\n")
    found = list(parts(guide))
    assert [(own, part) for _, own, part in found] == [
        ({"07"}, "Lesson `07`, then:"), ({"07"}, "| a | b |"), ({"07"}, "| x | loss 3.94 |"),
        ({"07"}, "| y | `01`, weight 0.48 |"), (set(), "A paragraph with 0.77.")]
    fake = {"07": {3.9449}, "01": {0.4812}}
    assert unsupported(guide, fake) == ["'Other': 0.77 in a part that names no lesson: A paragraph with "
                                        "0.77.…"]
    fake = {"07": {3.95}, "01": {0.4812}}
    assert unsupported(guide, fake)[0].startswith("07: 3.94")


def test_every_number_the_guide_quotes_is_on_screen(screens):
    missing = unsupported(GUIDE.read_text(encoding="utf-8"), screens)
    assert not missing, ("numbers the teaching guide quotes that its lesson does not show:\n"
                         + "\n".join(missing))
