"""Answer keys out of tab completion's reach.

A student's tab completion offers `al.`'s public names and an object's public attributes (IPython and
Jedi hide names with a leading underscore). None of them may hand over an answer: no public attribute of
an exercise holds or returns its answer (or another exercise's), no name in `al.__all__` does, and the
teachers' accessor `attention_lab.answer_keys` is never imported by the package, so `al.<Tab>` does not
offer it. Tests and teachers still read every key through it.
"""

import dataclasses
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attention_lab as al
from attention_lab.answer_keys import answer_key, mistakes_of
from attention_lab.checks import Choice, Exercise, Trial

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "solutions"))
import answers  # noqa: E402  (the teachers' worked solutions, computed apart from the exercises)


def reachable(value, depth: int = 0):
    """A value, what a call without inputs returns, and what it holds (dict values, tuple and list items,
    public fields and attributes), two levels deep."""
    yield value
    if depth >= 2:
        return
    if callable(value) and not isinstance(value, type):
        try:
            needs = [p for p in inspect.signature(value).parameters.values()
                     if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        except (TypeError, ValueError):
            needs = [None]
        if not needs:
            try:
                yield from reachable(value(), depth + 1)
            except Exception:       # a call that needs more than nothing: it hands over nothing
                pass
    if isinstance(value, dict):
        for item in value.values():
            yield from reachable(item, depth + 1)
    elif isinstance(value, (tuple, list)):
        for item in value[:50]:
            yield from reachable(item, depth + 1)
    elif isinstance(value, (Exercise, Choice, Trial)) or dataclasses.is_dataclass(value):
        for name in dir(value):
            if not name.startswith("_") and name not in ("check", "evaluate", "judge"):
                yield from reachable(getattr(value, name), depth + 1)


def right_for(answer, keys=None) -> list[str]:
    """The exercises (of `keys`, or all) this value would pass."""
    passed = []
    for key, ex in al.EXERCISES.items():
        if keys is not None and key not in keys:
            continue
        if isinstance(answer, str) and not isinstance(ex, Choice):
            continue
        try:
            if ex.evaluate(answer).status == "correct":
                passed.append(key)
        except Exception:           # a judge must not raise (test_judges_never_raise); here: not passed
            pass
    return passed


def test_the_keys_are_there_for_teachers_and_tests():
    """Every key passes its own exercise, and agrees with the worked solution in solutions/answers.py."""
    for key, ex in al.EXERCISES.items():
        key_answer = answer_key(key)
        assert ex.evaluate(key_answer).status == "correct", key
        assert ex.evaluate(answers.SOLUTIONS[key]()).status == "correct", key
    with pytest.raises(ValueError, match=r"no exercise '9\.9'"):
        answer_key("9.9")


def test_a_teacher_reads_lesson_00s_keys_as_the_lesson_works_them_out():
    """00.1: the shape of Q Kᵀ for Q, K of shape (7, 16); 00.2: nn.Linear(3, 2)'s weight
    [[1, 2, 3], [4, 5, 6]] turned round into the row form's W (3 × 2);
    00.3: x₃ is row 2 of X, counted from 0."""
    assert list(answer_key("00.1")) == list((np.zeros((7, 16)) @ np.zeros((16, 7))).shape)
    assert np.array_equal(answer_key("00.2"), [[1, 4], [2, 5], [3, 6]])
    assert int(answer_key("00.3")) == 2


def test_a_teacher_reads_each_listed_mistake_with_its_hint():
    """00.3's three listed mistakes, each wrong index and each hint as the student reads it."""
    listed = mistakes_of("00.3")
    assert {name: (int(wrong()), hint) for name, (wrong, hint) in listed.items()} == {
        "counted from 1": (3, "maths counts tokens from 1, Python from 0: x₃ is X[2]."),
        "one too few": (1, "X[1] is x₂; x₃ is one further, X[2]."),
        "counted from the end": (-1, "X[-1] is the last token, whatever n is; "
                                     "x₃ is the third from the start, X[2]."),
    }
    listed.clear()                                     # the teacher's copy: the exercise keeps its table
    assert len(mistakes_of("00.3")) == 3
    letters = mistakes_of("07.1")                      # a prediction: each wrong letter, with its reason
    assert {letter: wrong() for letter, (wrong, _why) in letters.items()} == {"a": "a", "b": "b", "d": "d"}
    assert answer_key("07.1") == "c"


def test_a_key_that_names_no_exercise_is_refused_in_words():
    with pytest.raises(TypeError, match=r"^the exercise key is a float: expected a string such as '01\.2'$"):
        answer_key(1.1)
    with pytest.raises(ValueError, match=r"^no exercise '1\.1': the exercises are \['00\.1', '00\.2'"):
        mistakes_of("1.1")


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_no_public_attribute_of_an_exercise_holds_an_answer(key):
    ex = al.EXERCISES[key]
    public = [name for name in dir(ex) if not name.startswith("_")]
    leaks = []
    for name in public:
        if name in ("check", "evaluate", "judge"):            # they take an answer; they hand none over
            continue
        for value in reachable(getattr(ex, name)):
            if right_for(value, [key]):        # (a wrong letter here may be another prediction's right one)
                leaks.append(f"al.EXERCISES[{key!r}].{name} holds its answer")
    assert not leaks, "\n".join(leaks)
    assert "solution" not in public and "answer" not in public


def test_no_name_in_al_all_holds_an_answer():
    """Every public name, and what its call without inputs returns (the examples, the sources), two
    levels deep. Left out: pictures, explorers and timing runs (they return no answers and take long); a
    package function handed in as a debug fix (tests/test_one_call.py tries those); a whole number held as
    a setting (`InductionConfig`'s 2 layers), which is no key even where an answer is the index 2 (00.3)."""
    slow = {"scaling_experiment", "time_forms", "role_legend", "plot_block"}
    leaks = []
    for name in al.__all__:
        if name in slow or name.endswith("_explorer") or name == "EXERCISES":
            continue
        for value in reachable(getattr(al, name)):
            handed_in = value is getattr(al, name) and inspect.isfunction(value)
            if handed_in or isinstance(value, (int, np.integer)):
                continue
            passed = right_for(value)
            if passed:
                leaks.append(f"al.{name} holds the answer to {passed}")
    assert not leaks, "\n".join(leaks)


def run_python(code: str, tmp_path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "IPYTHONDIR": str(tmp_path / "ipython"),
           "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_package_never_imports_the_answer_keys(tmp_path):
    out = run_python(
        "import sys\nimport numpy as np\nimport attention_lab as al\n"
        "for key in al.EXERCISES:\n"
        "    for answer in (None, 1.0, np.zeros((2, 2)), 'b', lambda *a: 0.0):\n"
        "        al.EXERCISES[key].evaluate(answer)\n"
        "print('attention_lab.answer_keys' in sys.modules, 'answer_keys' in dir(al))\n", tmp_path)
    assert out.split() == ["False", "False"]


COMPLETE = r"""
import json
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

config = Config()
config.HistoryManager.enabled = False
shell = InteractiveShell.instance(config=config)
shell.run_cell("import attention_lab as al\n"
               "exercises = {kind: next(e for e in al.EXERCISES.values() if type(e).__name__ == kind)"
               " for kind in ('Exercise', 'Choice', 'Trial')}")
offered = {}
for text in ["al.", "al.checks.", "al.exercises.", "al.judging.", "exercises['Exercise'].",
             "exercises['Choice'].", "exercises['Trial'].", "al.EXERCISES['07.3']."]:
    with provisionalcompleter():
        offered[text] = sorted({c.text for c in shell.Completer.completions(text, len(text))})
print(json.dumps(offered))
"""


def test_tab_completion_offers_no_answer_key(tmp_path):
    """What IPython's own completer offers (Jedi included) on `al.` and on an exercise of each kind."""
    offered = json.loads(run_python(COMPLETE, tmp_path).strip().splitlines()[-1])
    assert "EXERCISES" in offered["al."] and "check" in offered["al."]          # the completer ran
    everything = {name for names in offered.values() for name in names}
    assert not {name for name in everything if "answer_key" in name or name in ("solution", "answer")}
    for kind in ("Exercise", "Choice", "Trial"):
        names = offered[f"exercises['{kind}']."]
        assert "evaluate" in names and "question" in names                        # it offered attributes
        assert "mistakes" not in names and "judge" not in names and "reasons" not in names
        ex = next(e for e in al.EXERCISES.values() if type(e).__name__ == kind)
        for name in names:
            if name in ("check", "evaluate", "judge"):
                continue
            for value in reachable(getattr(ex, name)):
                assert not right_for(value, [ex.key]), f"{kind}.{name} holds its answer"


# accepts(answer), accepts_each(answers): only whether evaluate says ✓, no more than evaluate tells;
# handed_out: the name of the mistake a debug exercise's function has as handed out ('planted'), no answer;
# handed_out_source: that function's source, as the lesson prints it (bug included), no answer
PUBLIC = {"key", "question", "kind", "check", "evaluate", "named", "fallback", "expects", "softmax", "flat",
          "accepts", "accepts_each", "handed_out", "handed_out_source"}


@pytest.mark.parametrize("key", sorted(al.EXERCISES))
def test_an_exercise_shows_no_wrong_answers_and_no_judge(key):
    """Round-3 review of lesson 07: the letter missing from 07.1's public `reasons` was the answer, and
    `-mistakes['negative'][0]()` passed 07.2 (a wrong answer is often the right one turned round). A
    debug exercise's public `judge` held its reference fix in its closure. Only these are public now."""
    public = {name for name in dir(al.EXERCISES[key]) if not name.startswith("_")}
    assert public <= PUBLIC, sorted(public - PUBLIC)


def test_the_reviews_derivations_no_longer_work():
    assert not hasattr(al.EXERCISES["07.1"], "reasons") and not hasattr(al.EXERCISES["07.1"], "mistakes")
    assert not hasattr(al.EXERCISES["07.2"], "mistakes") and not hasattr(al.EXERCISES["06.3"], "judge")
