"""tools/image_size.py: the size of a set of packages and all they need, as tools/verify_binder.sh reports
the student image beside the bare runtime."""

import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import image_size  # noqa: E402


def test_the_requirements_file_names_the_student_images_packages():
    names = image_size.requirement_names(ROOT / "binder" / "requirements.txt")
    assert names == ["jupyterlab", "notebook", "ipykernel", "ipywidgets", "numpy", "matplotlib", "seaborn",
                     "gguf", "threadpoolctl", "nbgitpuller", "attention-lab"]


def test_the_closure_holds_what_a_package_needs_and_nothing_else():
    found = image_size.closure(["seaborn"])
    assert {"seaborn", "numpy", "pandas", "matplotlib", "pillow"} <= set(found)
    assert not {"ipykernel", "jupyterlab", "pytest"} & set(found)
    with pytest.raises(SystemExit, match="no-such-package-here is not installed"):
        image_size.closure(["no-such-package-here"])


def test_each_recorded_file_counts_once_in_whole_blocks():
    dist = metadata.distribution("seaborn")
    files = {Path(dist.locate_file(f)).resolve() for f in dist.files}
    by_hand = sum((p.stat().st_size + 4095) // 4096 * 4096 for p in files if p.is_file())
    assert image_size.size_bytes([dist]) == by_hand == image_size.size_bytes([dist, dist])
    assert image_size.size_bytes(image_size.closure(["seaborn"]).values()) > by_hand
