"""The teaching guide's "Where students work alone" says exactly what is true of the exercises: how many
each lesson has and of which kinds, and which two promises the tests keep (the tests themselves are
tests/test_exercises_on_screen.py and tests/test_one_call.py; here: that the guide's words and their
scope match them)."""

from pathlib import Path

import attention_lab as al
from attention_lab import judging

ROOT = Path(__file__).resolve().parents[1]
GUIDE = " ".join((ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8").split())
KINDS = {"compute", "predict", "design", "debug"}


def exercises_of(lesson: str) -> list:
    return [e for key, e in al.EXERCISES.items() if key.startswith(lesson + ".")]


def test_the_exercises_are_as_the_guide_counts_them():
    assert ("Lessons 01–08 each end with four exercises (01 with five), one of each kind at least: predict "
            "before you run, design a matrix or a mask, debug a planted bug, compute on fresh data.") in GUIDE
    for lesson in ("01", "02", "03", "04", "05", "06", "07", "08"):
        exercises = exercises_of(lesson)
        assert len(exercises) == (5 if lesson == "01" else 4), lesson
        assert {e.kind for e in exercises} == KINDS, lesson
    assert "Lesson 00 has three recall questions, and the appendix 10 three on reading printouts." in GUIDE
    assert ("Lesson 09 has four predictions checked against the real model (two about knockouts, one about "
            "a sliding-window cache, one about temperature), a cache designed within a budget (judged on the "
            "losses measured for every design on its grid) and two computations by hand: a mean-ablation and "
            "a logit-lens rank.") in GUIDE
    assert [e.kind for e in exercises_of("09")] == ["predict", "predict", "compute", "predict", "compute",
                                                   "predict", "design"]
    assert [e.key for e in exercises_of("09") if e.kind == "predict"] == ["09.1", "09.2", "09.4", "09.6"]
    assert len(exercises_of("00")) == 3 and len(exercises_of("09")) == 7
    assert {e.kind for e in exercises_of("00")} == {"compute"}                  # questions with one answer


def test_the_on_screen_promise_covers_the_lessons_it_names():
    import test_exercises_on_screen as on_screen
    assert ("No exercise of lessons 01–10 can be passed by copying a number the lesson has printed or "
            "computed (an array, or a row, column or block of one).") in GUIDE
    assert sorted(p.name[:2] for p in on_screen.LESSONS) == [f"{i:02d}" for i in range(1, 11)]


def test_the_switched_off_functions_the_guide_names_are_switched_off():
    assert "the package functions that would do the exercise in one call (`al.decode_with_cache`, " \
           "`al.numerical_gradient`, …) are switched off" in GUIDE
    assert {"decode_with_cache", "numerical_gradient"} <= set(judging.SHORTCUTS)
