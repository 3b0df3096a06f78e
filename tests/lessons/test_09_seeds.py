"""Lesson 09 with seeds a student might pick: section 1 (its seed-dependent cells, SEQUENCE_SEED and
HEAD_SET_SEED) executed in a fresh kernel with seeds outside every range the lesson quotes, a held-out seed
on which some of the lesson's claims about seed 0 fail (docs/held-out/09.md); and the rule that a seed
variable is set once, `NAME = 0` at the start of a line, and that no lesson cell asserts a claim about a
draw (round five's review, items 2, 3 and 5)."""

import re

from lesson09_cells import cells, source
from lesson_helpers import run_lesson

SEED_NAMES = ("SEQUENCE_SEED", "HEAD_SET_SEED", "SAMPLE_SEED")
OUTSIDE = {"SEQUENCE_SEED": 28, "HEAD_SET_SEED": 28}      # held out; see docs/held-out/09.md


def test_each_seed_is_one_named_variable_set_to_0_once():
    code = [c for c in cells() if c["cell_type"] == "code"]
    for name in SEED_NAMES:
        hits = [c["id"] for c in code if re.search(rf"(?m)^{name} = 0 ", "".join(c["source"]))]
        assert len(hits) == 1, (name, hits)
    for cid in ("r09-redo", "r09-knock-random", "r09-text"):
        assert "seed=0" not in source(cid) and "seed=s" not in source(cid), cid


def test_no_lesson_cell_asserts_a_claim_about_a_draw():
    """The asserts left hold for every seed: an identity (nothing knocked out is the plain loss), a window
    that drops nothing yet, the last lens row is the output."""
    left = {c["id"]: [line.strip() for line in "".join(c["source"]).splitlines() if line.strip().startswith(
        "assert")] for c in cells() if c["cell_type"] == "code"}
    for cid in ("r09-redo", "r09-loss", "r09-knock-random", "r09-text-static"):
        assert left[cid] == [], cid
    assert left["r09-knock"] == ['assert rows["none"]["second copy, zero"] == second           '
                                 '# nothing knocked out: the loss above']


def test_section_1_runs_with_seeds_outside_the_lessons_ranges():
    nb = run_lesson("09", until="r09-knock-random", **OUTSIDE)
    out = {c.id: "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells}
    assert "on this draw (sequence seed 28): " in out["r09-redo"]
    assert "of the 50 random sets" in out["r09-knock-random"]
