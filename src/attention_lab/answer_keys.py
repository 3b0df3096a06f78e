"""Answer keys of every lesson's exercises, for teachers and tests: `answer_key('01.1')`, and
the typical wrong answers with their hints, `mistakes_of('01.1')`.

The package never imports this module, so a student's `al.<Tab>` (and tab completion on an exercise)
does not find it: each exercise keeps its right answer, and its wrong ones (often the right one turned
round), in private fields. Import it yourself:
`from attention_lab.answer_keys import answer_key`. The worked solutions, computed from scratch, are in
`solutions/answers.py`.
"""

from __future__ import annotations

import dataclasses

from .exercises import EXERCISES, exercise_key


def _field(key: str, what: str):
    exercise = EXERCISES[exercise_key(key, EXERCISES)]
    (holder,) = [f.name for f in dataclasses.fields(exercise) if f.metadata.get(what)]
    return getattr(exercise, holder)


def mistakes_of(key: str) -> dict:
    """The typical wrong answers of exercise `key`, each with its hint: name -> (wrong answer, hint); for a
    predict exercise, each wrong letter -> (the letter, the reason it is wrong)."""
    return dict(_field(key, "mistakes"))


def answer_key(key: str) -> object:
    """The right answer to exercise `key`: its numbers (an array), its letter, or for a design exercise
    a matrix that passes, for a debug exercise a function that passes."""
    return _field(key, "answer key")()
