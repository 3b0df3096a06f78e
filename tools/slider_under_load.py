"""Issue 43, item 6: does a slider step get lost when the cores are busy? A contributor's tool, not a test.

    python tools/slider_under_load.py [--lesson 03-many-heads.ipynb] [--bursts 60] [--hogs 2]

Starts JupyterLab and headless Chromium (as tests/test_browser.py does), runs the lesson, then, with `--hogs`
CPU-bound processes beside it, sends bursts of 12 arrow keys to the first explorer's sliders in turn (right,
right, right, right, left x4, right x4, with random gaps of 0 to 200 ms, so that steps reach the kernel
while it is still drawing the one before). After each burst it waits, up to 40 s, until the numbers the
kernel last drew (the explorer's data-state) equal every slider's readout. A burst where they never do is
a lost step: a slider that moved and a picture that did not. Prints each such burst and the count.
"""

import argparse
import json
import random
import re
import subprocess
import sys
import time

import lab_session


def number(text: str) -> float:
    """The number a slider's readout shows."""
    return float(re.search(r"-?\d+(?:\.\d+)?", text).group())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="03-many-heads.ipynb")
    parser.add_argument("--bursts", type=int, default=60)
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound processes beside the browser")
    args = parser.parse_args()
    random.seed(0)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    lost = 0
    try:
        with lab_session.jupyterlab() as (base, _), lab_session.chromium_page() as page:
            lab_session.open_and_run_all(page, base, args.lesson)
            explorer = page.locator(lab_session.EXPLORER).first
            explorer.scroll_into_view_if_needed()
            explorer.locator(".widget-readout").first.wait_for(state="visible")
            handles = explorer.locator(".widget-slider .noUi-handle")
            for burst in range(args.bursts):
                handles.nth(burst % handles.count()).focus()
                for k in range(12):
                    page.keyboard.press("ArrowRight" if (k // 4) % 2 == 0 else "ArrowLeft", delay=0)
                    time.sleep(random.choice([0, 0.02, 0.05, 0.1, 0.2]))
                start = time.time()
                while True:
                    shown = [number(t) for t in explorer.locator(".widget-readout").all_text_contents()]
                    state = json.loads(explorer.locator(".al-numbers").get_attribute("data-state"))
                    drawn = [v for v in state.values()
                             if isinstance(v, (int, float)) and not isinstance(v, bool)]
                    if len(drawn) == len(shown) and all(abs(a - b) <= 1e-6 + 1e-3 * abs(b)
                                                        for a, b in zip(drawn, shown)):
                        break
                    if time.time() - start > 40:
                        lost += 1
                        print(f"burst {burst}: sliders show {shown}, the kernel drew {drawn}", flush=True)
                        break
                    time.sleep(0.5)
    finally:
        for hog in hogs:
            hog.kill()
    print(f"{args.lesson}: {lost} of {args.bursts} bursts lost a step, "
          f"with {args.hogs} CPU-bound processes beside")
    return 0


if __name__ == "__main__":
    sys.exit(main())
