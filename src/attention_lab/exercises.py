"""The registry of every lesson's exercises (each lesson's own in exercises_NN.py): `EXERCISES` and `check`.

Kinds: 'compute' (fresh data), 'predict' (a letter, a reason for each wrong one), 'design' (the check
runs the student's matrix or mask) and 'debug' (the check runs the student's fixed function on fresh
inputs). No exercise is passed by a value the lesson has computed or printed
(tests/test_exercises_on_screen.py), nor a compute or debug exercise by one call of a package function
(tests/test_one_call.py; the one exception is 00.2). Each exercise keeps its right answer in a private
field; teachers and tests read it with `attention_lab.answer_keys.answer_key`, which the package never
imports.
"""

from __future__ import annotations

from .exercises_00 import lesson00
from .exercises_01 import lesson01
from .exercises_02 import lesson02
from .exercises_03 import lesson03
from .exercises_04 import lesson04
from .exercises_05 import lesson05
from .exercises_06 import lesson06
from .exercises_07 import lesson07
from .exercises_08 import lesson08
from .exercises_09 import lesson09
from .exercises_10 import lesson10
from .records import Verdict, progress_table, read_record

EXERCISES = {e.key: e for e in (*lesson00(), *lesson01(), *lesson02(), *lesson03(), *lesson04(),
                                *lesson05(), *lesson06(), *lesson10(), *lesson07(), *lesson08(),
                                *lesson09())}
"""Every exercise by its key ('01.2'): lessons 00-06 and 10 (the appendix,
once 09), then 07, 08 and 09 (the order they were written)."""


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def exercise_key(key, known) -> str:
    """`key` if it names one of the `known` exercises ('01.2'): TypeError or ValueError otherwise."""
    if not isinstance(key, str):
        raise TypeError(f"the exercise key is a {type(key).__name__}: expected a string such as '01.2'")
    if key not in known:
        raise ValueError(f"no exercise {key!r}: the exercises are {sorted(known)}")
    return key


# pragma: no mutate end
def check(key: str, answer: object) -> Verdict:
    """Check the answer to exercise `key` (for example '01.2'): print ✓ or a hint, keep it in this
    computer's record (al.progress), and return the verdict, truthy on ✓."""
    return EXERCISES[exercise_key(key, EXERCISES)].check(answer)


def progress() -> None:
    """Print this student's table: per lesson, the exercises solved (✓), tried (~) and not yet (·)."""
    print(progress_table(sorted(EXERCISES), read_record()))
