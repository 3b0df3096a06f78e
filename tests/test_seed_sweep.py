"""tools/seed_sweep.py (held-out evidence for a lesson's claims about a draw) and lesson_helpers.run_lesson
(a lesson run with the seeds a student might pick): their arguments and their arithmetic, on a made-up
lesson whose verdicts are known here."""

import sys
import types
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lesson_helpers  # noqa: E402
import seed_sweep  # noqa: E402
from lesson_helpers import run_lesson  # noqa: E402

# a made-up lesson: claim 'even' holds on even seeds, 'small' below 20, 'always' on every seed
MADE_UP = types.SimpleNamespace(SEED_NAMES=("TRAINING_SEED",), SHOWN=(0, 18),
                                CLAIMS={"even": "the seed is even", "small": "below 20", "always": "holds"},
                                measure=lambda s: {"even": s % 2 == 0, "small": s < 20, "always": True})


@pytest.fixture
def made_up(monkeypatch):
    monkeypatch.setattr(seed_sweep, "sweep_module", lambda lesson: MADE_UP)


def test_seeds_are_read_as_ranges_and_lists():
    assert seed_sweep.parse_seeds("16-19") == [16, 17, 18, 19]
    assert seed_sweep.parse_seeds("16,18,20-21,18") == [16, 18, 20, 21]
    with pytest.raises(Exception, match="16-31"):
        seed_sweep.parse_seeds("sixteen")


def test_the_table_counts_each_claim_and_names_the_seeds_where_it_fails(made_up):
    results = seed_sweep.sweep("99", [16, 17, 19, 20, 21])
    text = seed_sweep.table("99", results, markdown=True)
    assert "| even | the seed is even | 2 of 5 | 17, 19, 21 |" in text
    assert "| small | below 20 | 3 of 5 | 20, 21 |" in text
    assert "| always | holds | 5 of 5 | - |" in text
    assert "held-out seeds 16-17,19-21 (TRAINING_SEED)" in text and "--seeds 16-17,19-21 --markdown" in text
    assert "Worded from seeds 0, 18" in text
    plain = seed_sweep.table("99", seed_sweep.sweep("99", [20, 21, 22]))
    assert "even: holds on 2 of 3; fails on seeds 21" in plain and "held-out seeds 20-22" in plain


def test_the_seeds_are_named_as_runs_that_parse_back():
    """Held-out seeds in two runs (16-31 and 48-63) are named as such, not as 32 numbers, and the command
    the table quotes reads them back."""
    for seeds in ([16, 17, 18, 31], list(range(16, 32)) + list(range(48, 64)), [5], [3, 5, 7]):
        assert seed_sweep.parse_seeds(seed_sweep.spans(seeds)) == seeds
    assert seed_sweep.spans(list(range(16, 32)) + list(range(48, 64))) == "16-31,48-63"
    assert seed_sweep.spans([16, 17, 18, 31]) == "16-18,31" and seed_sweep.spans([20, 21, 22]) == "20-22"


def test_a_seed_the_words_were_fitted_on_is_refused(made_up):
    with pytest.raises(SystemExit, match=r"\[18\].*hold them out"):
        seed_sweep.sweep("99", [16, 17, 18])


def test_a_lesson_without_a_sweep_is_named_with_those_that_have_one():
    with pytest.raises(SystemExit, match="no sweep for lesson '99': lessons with one are"):
        seed_sweep.sweep_module("99")


def test_run_lesson_refuses_a_seed_the_lesson_does_not_set_and_an_unknown_cell():
    with pytest.raises(ValueError, match=r"sets NO_SUCH_SEED in 0 cells; expected one 'NO_SUCH_SEED = "):
        run_lesson("00", NO_SUCH_SEED=3)
    with pytest.raises(ValueError, match="lesson 00 has no cell with id 'no-such-cell'"):
        run_lesson("00", until="no-such-cell")


def test_run_lesson_runs_with_the_students_seed_up_to_the_cell_named(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("TRAINING_SEED = 0   # change me\nOTHER_SEED = 0", id="draw"),
        nbformat.v4.new_code_cell("print(TRAINING_SEED * 10, OTHER_SEED)", id="show"),
        nbformat.v4.new_code_cell("raise RuntimeError('after the cell named')", id="later")])
    nbformat.write(nb, tmp_path / "99-made-up.ipynb")
    monkeypatch.setattr(lesson_helpers, "NOTEBOOKS", tmp_path)
    ran = run_lesson("99", until="show", TRAINING_SEED=7)
    assert [c.id for c in ran.cells] == ["draw", "show"]
    assert ran.cells[0].source.startswith("TRAINING_SEED = 7 # change me\nOTHER_SEED = 0")
    assert ran.cells[1].outputs[0]["text"] == "70 0\n"
    with pytest.raises(Exception, match="after the cell named"):
        run_lesson("99", TRAINING_SEED=7)
    only = run_lesson("99", cells=["draw", "show"], TRAINING_SEED=3)
    assert [c.id for c in only.cells] == ["draw", "show"] and only.cells[1].outputs[0]["text"] == "30 0\n"
    with pytest.raises(ValueError, match=r"lesson 99 has no cells with ids \['nope'\]"):
        run_lesson("99", cells=["draw", "nope"])
