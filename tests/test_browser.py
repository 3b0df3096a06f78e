"""Every lesson in a real JupyterLab, in headless Chromium: runs clean, widgets render, sliders work.

Screenshots go to build/screenshots/, measured latencies to build/browser-latency.json, and the time
from opening a lesson to the end of its Run All to build/browser-run-all.json.
Skipped (with the reason) where Chromium or Playwright is missing; .ci/run installs both.
"""

import json
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lab_session  # noqa: E402

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
SHOTS = ROOT / "build" / "screenshots"
MISSING = lab_session.browser_missing_reason()
IN_CI = os.environ.get("CI") == "true"
# Outside CI a missing browser skips with its reason; in CI (which installs it) it is a failure.
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(MISSING is not None and not IN_CI, reason=MISSING or "")]


def test_browser_is_available_in_ci():
    if not IN_CI:
        pytest.skip("only required in CI (CI=true)")
    assert MISSING is None, MISSING


def explorer_cells(name):
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    return sum("nbval-ignore-output" in c.get("metadata", {}).get("tags", []) for c in nb["cells"])


@pytest.fixture(scope="module")
def lab():
    with lab_session.jupyterlab() as (base, _copy), lab_session.chromium_page() as page:
        yield base, page


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_lesson_in_jupyterlab(lab, name):
    base, page = lab
    start = time.perf_counter()
    shown = lab_session.open_and_run_all(page, base, name)
    run_all_s = time.perf_counter() - start             # reported, never asserted (machines are noisy)
    assert not shown["widget_error_before_run"], "a stored widget output shows an error before Run All"
    assert shown["ran_ok"], "Run All stopped on an error"
    assert shown["stderr"] == [], f"error or warning output: {shown['stderr']}"
    assert shown["widget_errors"] == []
    assert shown["explorers"] == explorer_cells(name)
    assert shown["rise_slideshow"], "RISE (jupyterlab-rise) is not loaded: no slides for this lesson"
    assert shown["clipped_images"] == 0, "an explorer's heatmap is wider than its output area"
    SHOTS.mkdir(parents=True, exist_ok=True)
    results = {}
    for i in range(shown["explorers"]):
        m = lab_session.measure_explorer(page, i, steps_per_slider=2)   # right, then back left
        assert m["sliders"] >= 1
        assert m["every_step_changed_image"], "a slider step did not change its heatmap"
        assert m["every_toggle_changed_image"], "a mask button did not change its heatmap"
        assert m["burst_final"] > m["burst_start"]
        assert m["state_shown_after_burst"] == pytest.approx(m["burst_final"]), \
            "after a burst the explorer does not show the final slider position"
        assert m["reset_restored"], "Reset did not put the sliders back"
        page.locator(lab_session.EXPLORER).nth(i).screenshot(path=SHOTS / f"{name[:-6]}-explorer{i}.png")
        results[f"{name}#{i}"] = m
    page.screenshot(path=SHOTS / f"{name[:-6]}.png")
    assert (SHOTS / f"{name[:-6]}.png").stat().st_size > 10_000
    out = ROOT / "build" / "browser-latency.json"
    previous = json.loads(out.read_text()) if out.exists() else {}
    out.write_text(json.dumps(previous | results, indent=1))
    timings = ROOT / "build" / "browser-run-all.json"      # open + Run All until idle, per lesson
    before = json.loads(timings.read_text()) if timings.exists() else {}
    timings.write_text(json.dumps(before | {name: round(run_all_s, 2)}, indent=1))
