"""Re-execute the lessons in place, top to bottom, so that their stored outputs are current.

    python tools/run_notebooks.py                 # every notebooks/NN-*.ipynb
    python tools/run_notebooks.py notebooks/01-*.ipynb

First it runs tools/navigation.py (links, lesson map, slide types), then executes.

Deterministic: fixed hash seed, no timing metadata, no widget state, consecutive prints joined into
one output, widget views blanked (a stored widget id would show 'Error displaying widget: model not
found' before a re-run). The metadata is the kernelspec and the kernel's own language_info, which is
what JupyterLab writes on open: opening and saving a lesson changes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import navigation
import one_kernel

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def lessons() -> list[Path]:
    """Every numbered lesson, in order."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def coalesce(outputs: list) -> list:
    """Join consecutive prints to the same stream into one output (how a print is split into
    messages depends on timing)."""
    joined: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and joined and joined[-1].get("output_type") == "stream"
                and joined[-1]["name"] == out["name"]):
            joined[-1]["text"] += out["text"]
        else:
            joined.append(out)
    return joined


def clean(nb) -> None:
    """Keep only what students need and what is stable from run to run."""
    # language_info exactly as the kernel reported it: JupyterLab writes the same on open, so opening
    # and saving a lesson leaves the file byte-identical (tests/test_browser.py checks this)
    language_info = nb.metadata.get("language_info", {})
    if set(language_info) <= {"name"}:
        raise RuntimeError("the kernel did not report its language_info; cannot store a clean lesson")
    nb.metadata = nbformat.from_dict({"kernelspec": KERNELSPEC, "language_info": language_info})
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
        if "outputs" in cell:
            cell.outputs = coalesce(cell.outputs)
        for out in cell.get("outputs", []):
            if WIDGET in out.get("data", {}):
                out["data"][WIDGET]["model_id"] = ""   # hidden until the cell is run again


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    clean(nb)
    nbformat.validate(nb)
    nbformat.write(nb, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every lesson)")
    args = parser.parse_args(argv)
    os.environ["PYTHONHASHSEED"] = "0"   # inherited by the kernel: stable set/dict order
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # small matrices: BLAS threads only contend
    records = tempfile.TemporaryDirectory(prefix="attention-lab-progress-")   # the lessons' al.check calls:
    os.environ["ATTENTION_LAB_PROGRESS"] = os.path.join(records.name, "progress.json")   # not the author's
    one_kernel.pin()                     # one numerical path on every x86-64 CPU: see one_kernel.py
    navigation.main([])
    for path in args.paths or lessons():
        print(f"executing {path.relative_to(ROOT) if path.is_absolute() else path}", flush=True)
        run(path.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
