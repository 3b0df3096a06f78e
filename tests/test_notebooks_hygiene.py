"""Every lesson notebook: named, titled, executed in order, clean, offline, and importing attention_lab."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"
# Every lesson's first code cell begins with this: where attention_lab is missing (a hub that knows nothing
# of the course), notebooks/install_here.py installs it from the pulled copy (tests/test_install_here.py)
FIRST_CELL = """\
# On a hub without attention_lab (the lessons' package), install_here.py installs it from this folder
try:
    import attention_lab as al
except ModuleNotFoundError:
    import install_here
    install_here.install_attention_lab()
    import attention_lab as al
"""


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell):
    return "".join(cell["source"])


def test_lessons_are_numbered_without_gaps():
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers[:5] == [0, 1, 2, 3, 4], "lessons 00-04 must all be there"
    assert numbers == sorted(set(numbers)), "two lessons share a number"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
class TestLesson:
    def test_numbered_kebab_name(self, path):
        assert re.fullmatch(r"\d\d-[a-z0-9]+(-[a-z0-9]+)*\.ipynb", path.name)

    def test_h1_title_first(self, path):
        first = load(path)["cells"][0]
        assert first["cell_type"] == "markdown" and source(first).startswith("# ")
        assert source(first).count("\n# ") == 0

    def test_one_sitting(self, path):
        assert len(load(path)["cells"]) <= 45, "a lesson is at most 45 cells (one sitting)"

    def test_skeleton(self, path):
        text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
        for heading in ("What you will learn", "## Summary", "## Exercises"):
            assert heading in text, f"missing '{heading}'"
        steps = re.findall(r"^## (\d+)\. ", text, flags=re.M)
        assert steps and [int(s) for s in steps] == list(range(1, len(steps) + 1))

    def test_python3_kernel_and_clean_metadata(self, path):
        nb = load(path)
        assert nb["metadata"]["kernelspec"]["name"] == "python3"
        assert "widgets" not in nb["metadata"]
        for cell in nb["cells"]:
            assert "execution" not in cell.get("metadata", {}), "timing metadata stored"

    def test_executed_in_order_without_errors(self, path):
        counts = [c["execution_count"] for c in code_cells(load(path))]
        assert counts == list(range(1, len(counts) + 1))
        for cell in code_cells(load(path)):
            assert all(o["output_type"] != "error" for o in cell["outputs"])

    def test_first_code_cell_imports_the_package_or_installs_it(self, path):
        first = code_cells(load(path))[0]
        text = source(first)
        assert first["id"].endswith("imports") and first["outputs"] == []
        assert text.startswith(FIRST_CELL), f"the first code cell must begin with FIRST_CELL:\n{text}"
        rest = text.removeprefix(FIRST_CELL).splitlines()   # the lesson's other imports and print options
        allowed = r"|import [\w.]+ as \w+|from attention_lab import \w+ as \w+|np\.set_printoptions\(.*\)"
        assert all(re.fullmatch(allowed, line) for line in rest), rest

    def test_no_helper_defined_in_the_notebook(self, path):
        for cell in code_cells(load(path)):   # only a debug exercise holds a function: the student's
            if "al.check(" not in source(cell):
                assert not re.search(r"^(def|class) ", source(cell), re.M), "helpers belong in attention_lab"

    def test_offline_and_portable(self, path):
        for cell in load(path)["cells"]:
            text = source(cell)
            assert not re.search(r"(^|\s)[%!]\s*pip|pip install|conda install", text)
            assert not re.search(r"urllib|requests\.|wget|curl |urlopen|http\.client", text)
            assert not re.search(r"(?<![\w.])(/home/|/Users/|/tmp/|/work/|[A-Z]:\\\\)", text)
            if cell["cell_type"] == "code":
                assert "http://" not in text and "https://" not in text

    def test_no_bare_matplotlib_repr_on_screen(self, path):
        """A cell whose last line returns a matplotlib object shows its repr, e.g. `Text(-1.39, 0.5, 'query')`
        above the figure (lesson 08, review round 5, item 6): end the line with `;` or assign it."""
        for cell in code_cells(load(path)):
            for o in cell["outputs"]:
                shown = "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                for repr_start in ("Text(", "Line2D(", "<matplotlib.", "[<matplotlib."):
                    assert repr_start not in shown, f"{source(cell)[:60]!r} shows {shown[:80]!r}"

    def test_only_widget_cells_ignore_output(self, path):
        for cell in code_cells(load(path)):
            has_widget = any(WIDGET in o.get("data", {}) for o in cell["outputs"])
            ignored = "nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])
            assert has_widget == ignored, source(cell)[:60]
            for o in cell["outputs"]:
                if WIDGET in o.get("data", {}):
                    assert o["data"][WIDGET]["model_id"] == "", "re-run tools/run_notebooks.py"

    def test_every_explorer_has_a_checked_static_cell_next_to_it(self, path):
        cells = code_cells(load(path))
        for i, cell in enumerate(cells):
            if "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
                nxt = cells[i + 1]
                assert "nbval-ignore-output" not in nxt.get("metadata", {}).get("tags", [])
                assert any(o["output_type"] == "stream" for o in nxt["outputs"])
