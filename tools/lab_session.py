"""Drive a real JupyterLab in headless Chromium: used by tests/test_browser.py and the benchmark.

JupyterLab runs on a free loopback port, without token, from a temporary copy of the repository,
with news and update checks off the way the README's install turns them off (README_LAB_FLAGS).
Chromium is Debian's (/usr/bin/chromium) driven by Playwright; no browser is downloaded.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("ATTENTION_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
EXPLORER = ".attention-lab-explorer"
# the README's own flags: its settings folder turns off the news question and the update check
README_LAB_FLAGS = [f"--LabApp.app_settings_dir={ROOT / 'binder' / 'lab-settings'}"]
# The Binder image has its own settings folder (binder/postBuild: the same news settings, plus JupyterLab
# 4.4's windowing mode); there the README's flag would replace it, so the image's folder is kept.
IMAGE_SETTINGS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


# nbgrader (a test tool: tools/make_assignments.py) puts four server extensions into every JupyterLab of the
# README's install. The students' image has none of them, and the lessons never use them; a test's server
# starts without them, as in the image. Each costs start-up time, and once nbgrader's JupyterLab extension
# has called them (JupyterLab with no settings folder loads it), the server hangs on SIGTERM for over 20 s.
NO_NBGRADER_SERVER = ("--ServerApp.jpserver_extensions={" + ", ".join(
    f"'nbgrader.server_extensions.{name}': False"
    for name in ("formgrader", "assignment_list", "course_list", "validate_assignment")) + "}")


def lab_flags() -> list[str]:
    """JupyterLab's flags here: the image's own settings where it has them, else the README's."""
    return [] if IMAGE_SETTINGS.exists() else README_LAB_FLAGS


NEWS_QUESTION = "Would you like to get notified about official Jupyter news?"
SHOTS = ROOT / "build" / "screenshots"   # where a stuck page is photographed


def browser_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None if they can."""
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -r requirements.txt)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_repository(dest: Path) -> None:
    """The repository's files as they are now (not its history, environment or build output)."""
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "__pycache__", ".ipynb_checkpoints", "*.egg-info", ".pytest_cache"))


@contextlib.contextmanager
def jupyterlab(root: Path | None = None, base_url: str = "/", flags: list[str] | None = None,
               python: Path | str = sys.executable, environ: dict[str, str] | None = None):
    """Start JupyterLab on a copy of the repo (or on `root`, as it is) at `base_url`, with the README's
    flags (or `flags`) and no nbgrader server extension (NO_NBGRADER_SERVER), run by `python` (its
    kernels too) with `environ` (default: this process's); yields (address, root_dir); stops it afterwards."""
    with tempfile.TemporaryDirectory(prefix="attention-lab-") as tmp:
        tmp = Path(tmp)
        copy = Path(root) if root is not None else tmp / "repo"
        if root is None:
            copy_repository(copy)
        env = dict(os.environ if environ is None else environ, JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
                   JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
                   PYTHONHASHSEED="0")
        port = _free_port()
        log = open(tmp / "lab.log", "w")  # closed in the finally below
        proc = subprocess.Popen(
            [str(python), "-m", "jupyterlab", "--no-browser", "--expose-app-in-browser",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
             "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.allow_root=True",
             "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={copy}",
             f"--ServerApp.base_url={base_url}", NO_NBGRADER_SERVER,
             *(lab_flags() if flags is None else flags)],
            cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        status = f"{base}{base_url.rstrip('/')}/api/status"
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    with urllib.request.urlopen(status, timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise RuntimeError("JupyterLab did not start:\n" + (tmp / "lab.log").read_text())
                time.sleep(0.3)
            yield base, copy
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:   # a loaded machine: JupyterLab still shutting down
                proc.kill()
                proc.wait(timeout=20)           # reap it: a Popen dropped while running warns (an error here)
            log.close()


@contextlib.contextmanager
def chromium_page(width=1400, height=1000):
    """A Playwright page in headless Debian Chromium."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


def open_and_run_all(page, base: str, notebook: str, timeout_s: float = 300,
                     save_first: bool = False, after_save=None, in_open_lab: bool = False) -> dict:
    """Open notebooks/<notebook>, run every cell, wait until done; returns what the page shows.
    With save_first, the lesson is saved once its kernel is idle and before anything runs; then
    after_save() (if given) is called, before Run All, and its result is returned as 'after_save'.
    (Read a saved file there: JupyterLab's autosave may write a half-run lesson during Run All.)
    With in_open_lab, a page that already shows this JupyterLab opens the lesson as a student opens the
    next one (open_in_lab); otherwise the page loads JupyterLab afresh with a reset workspace.
    timeout_s guards against a hang, never measures speed: lesson 09's Run All takes about a minute on a
    quiet machine and passed 120 s on 2 cores at a load of 8."""
    if not (in_open_lab and open_in_lab(page, base, f"notebooks/{notebook}")):
        page.goto(f"{base}/lab/tree/notebooks/{notebook}?reset", wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel",
                           timeout=timeout_s * 1000)
    before = page.evaluate("() => document.body.innerText.includes('Error displaying widget')")
    dirty_after_open = None
    if save_first:   # as JupyterLab's autosave would, had opening changed anything
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext"
                               ".session.kernel.status === 'idle'", timeout=timeout_s * 1000)
        dirty_after_open = page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.context.model.dirty")
        save(page, timeout_s)
    saved = after_save() if after_save is not None else None
    return run_all(page, timeout_s, notebook.removesuffix(".ipynb")) | {
        "widget_error_before_run": before, "dirty_after_open": dirty_after_open, "after_save": saved}


def open_in_lab(page, base: str, path: str) -> bool:
    """In a page that shows JupyterLab at `base`, close every open document (each notebook's kernel shut
    down first, its unsaved changes dropped) and open `path` from the running app, as a student opens the
    next lesson from the file browser: about 5 s quicker than loading JupyterLab again. False, with
    nothing done, where the page shows no JupyterLab of `base` (the caller then loads it)."""
    if not page.url.startswith(f"{base}/lab") or not page.evaluate(
            "() => !!(window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.commands)"):
        return False
    page.evaluate("""async (path) => { const app = window.jupyterapp;
        for (const w of [...app.shell.widgets('main')]) {
            if (w.sessionContext && w.sessionContext.session) { await w.sessionContext.shutdown(); }
            w.dispose();
        }
        await app.commands.execute('docmanager:open', {path: path}); }""", path)
    return True


STUCK_S = 30          # no cell finished and the kernel idle this long, cells still waiting: the page is stuck


def run_all(page, timeout_s: float = 300, name: str = "lesson") -> dict:
    """Run every cell of the notebook open in the page, wait until done; returns what the page shows
    (a stuck page is photographed as build/screenshots/<name>-stuck.png)."""
    # Run All, never awaited in the page: in JupyterLab 4.4 its promise once stayed pending for good
    # (offline CI run, lesson 05, no cell ran), which hung the test. Start it, wait for the cells with a
    # time-out, and start it once more (with a screenshot of the stuck page) if nothing finished.
    # 'done', or 'stuck': the kernel idle while cells wait, and no cell finished for STUCK_S (CI of efc913d:
    # lesson 10's last cell stayed queued behind an idle kernel, and the 300-s time-out cost 5 minutes)
    done = """(stuckMs) => { const nb = window.jupyterapp.shell.currentWidget;
        const idle = nb.sessionContext.session.kernel.status === 'idle';
        const left = nb.content.widgets.filter(c => c.model.type === 'code'
                                                  && c.model.executionCount === null).length;
        if (idle && left === 0) return 'done';
        const now = Date.now();
        if (!idle || left !== window.__al_left) { window.__al_left = left; window.__al_still = now; }
        return idle && now - window.__al_still > stuckMs ? 'stuck' : false; }"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    for attempt in range(2):
        page.evaluate("""() => { window.__al_ran = null;
            window.__al_left = -1; window.__al_still = Date.now();
            const nb = window.jupyterapp.shell.currentWidget;
            nb.sessionContext.ready
              .then(() => window.jupyterapp.commands.execute('notebook:run-all-cells'))
              .then(ok => { window.__al_ran = ok !== false; },
                    e => { window.__al_ran = 'failed: ' + e; }); }""")
        try:
            state = page.wait_for_function(done, arg=STUCK_S * 1000, polling=250,
                                           timeout=timeout_s * 1000).json_value()
            if state == "done":
                break
            raise PlaywrightTimeout(f"cells stayed queued behind an idle kernel for {STUCK_S} s")
        except PlaywrightTimeout as stuck:
            if attempt:
                raise
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{name}-stuck.png"))
            # Once (offline CI, JupyterLab 4.4.10, lesson 05) the cells stayed queued while the kernel
            # showed idle: their requests never reached it, and a second Run All queued behind them.
            # Restart the kernel (no dialog), which drops that queue, before running all again.
            page.evaluate("""() => { window.__al_restarted = null;
                window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart().then(
                    () => { window.__al_restarted = 'ok'; },
                    e => { window.__al_restarted = 'failed: ' + e; }); }""")
            page.wait_for_function("() => window.__al_restarted !== null && window.jupyterapp.shell"
                                   ".currentWidget.sessionContext.session.kernel.status === 'idle'",
                                   timeout=timeout_s * 1000)
            restarted = page.evaluate("() => window.__al_restarted")
            if restarted != "ok":
                raise RuntimeError(f"the stuck kernel could not be restarted: {restarted}") from stuck
    # the command's own verdict, if it has come (all cells ran; a pending promise is not a failure)
    _wait_quietly(page, "() => window.__al_ran !== null", None, timeout_ms=5_000)
    ran = page.evaluate("() => window.__al_ran")
    ok = True if ran is None else ran
    # every widget output of the model has its view on the page (not a fixed sleep)
    page.wait_for_function(
        """() => { const nb = window.jupyterapp.shell.currentWidget;
                   const widgets = nb.content.widgets.filter(c => c.model.type === 'code')
                       .flatMap(c => c.model.outputs.toJSON())
                       .filter(o => o.data && o.data['application/vnd.jupyter.widget-view+json']).length;
                   return document.querySelectorAll('__EXPLORER__').length >= widgets; }"""
        .replace("__EXPLORER__", EXPLORER), timeout=timeout_s * 1000)
    return page.evaluate(
        """(ok) => ({
            ran_ok: ok,
            stderr: [...document.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                .map(e => e.innerText.slice(0, 500)),
            widget_errors: document.body.innerText.split('\\n')
                .filter(l => /Error displaying widget|Error rendering|Could not create view/.test(l)),
            explorers: document.querySelectorAll('__EXPLORER__').length,
            clipped_images: [...document.querySelectorAll('__EXPLORER__ img')].filter(img => {
                const area = img.closest('.jp-OutputArea-output').getBoundingClientRect();
                const r = img.getBoundingClientRect();
                return r.right > area.right + 1 || r.width < 100; }).length,
            code_cells: window.jupyterapp.shell.currentWidget.content.widgets
                .filter(c => c.model.type === 'code').length,
        })""".replace("__EXPLORER__", EXPLORER), ok)


def save(page, timeout_s: float = 60) -> None:
    """Save the open notebook (as autosave would); waits with a time-out, never forever."""
    page.evaluate("""() => { window.__al_saved = null;
        window.jupyterapp.commands.execute('docmanager:save').then(
            () => { window.__al_saved = 'saved'; }, e => { window.__al_saved = 'failed: ' + e; }); }""")
    page.wait_for_function("() => window.__al_saved !== null", timeout=timeout_s * 1000)
    result = page.evaluate("() => window.__al_saved")
    if result != "saved":
        raise RuntimeError(f"JupyterLab could not save the notebook: {result}")


_INSTRUMENT = """(index) => {
    const ex = document.querySelectorAll('__EXPLORER__')[index];
    const img = ex.querySelector('img');
    window.__al = {keys: [], paints: [], img};
    document.addEventListener('keydown', e => window.__al.keys.push(performance.now()), true);
    new MutationObserver(() => window.__al.paints.push(performance.now()))
        .observe(img, {attributes: true, attributeFilter: ['src']});
    return ex.querySelectorAll('.widget-slider').length;
}""".replace("__EXPLORER__", EXPLORER)


# ------------------------------------------------------------ accessibility: axe-core (npm) in the page
# Violations that JupyterLab itself causes on every notebook page, not the lessons (matched by rule and
# by a selector of the element): we cannot fix them from a lesson.
JUPYTERLAB_KNOWN = {
    ("aria-allowed-attr", "jp-button"):
        "JupyterLab's toolbar buttons (the jp-button web component) carry aria-pressed without a button role",
    ("aria-input-field-name", ".cm-content"):
        "every cell's code editor (CodeMirror 6) is a textbox with no accessible name",
    ("aria-required-children", ".jp-WindowedPanel-viewport"):
        "the notebook's cell list has role=feed, but its cells are not marked as articles",
}
# what a lesson puts on the page: its outputs (figures, widgets, printed text) and its rendered Markdown
LESSON_CONTENT = ".jp-OutputArea-output, .jp-MarkdownOutput"


@functools.cache
def npm_global_root() -> str | None:
    """What `npm root -g` prints (npm's global package folder), or None without npm. Asked once per process:
    each run of npm costs half a second or more on a busy machine, and axe_script is called for every page."""
    try:
        got = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True, timeout=60)
        return got.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None


def axe_script() -> Path | None:
    """axe-core's axe.min.js, from npm's global folder (.ci/run installs it), or None."""
    path = os.environ.get("ATTENTION_LAB_AXE")
    if not path:
        root = npm_global_root()
        if root is None:
            return None
        path = str(Path(root) / "axe-core" / "axe.min.js")
    return Path(path) if Path(path).is_file() else None


def axe_elements(page, content: str = LESSON_CONTENT, known: dict | None = None) -> list[dict]:
    """axe-core's WCAG 2 A and AA violations on the page, one row per element: {rule, impact, target,
    html, owner}, where owner is 'lesson' (inside `content`: what the lesson itself put there), the
    reason of the `known` entry ((rule, CSS selector) -> reason) that the element matches, or 'page'."""
    script = axe_script()
    if script is None:
        raise RuntimeError("axe-core is not installed: npm install -g axe-core (as .ci/run does)")
    known = JUPYTERLAB_KNOWN if known is None else known
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(script))
    return page.evaluate(
        """async ([content, known]) => {
            const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']},
                                                    resultTypes: ['violations']});
            return result.violations.flatMap(v => v.nodes.map(node => {
                const el = document.querySelector(node.target[node.target.length - 1]);
                let owner = 'page';
                if (el && el.closest(content)) { owner = 'lesson'; }
                else if (el) {
                    const hit = known.find(([rule, selector]) => rule === v.id && el.matches(selector));
                    if (hit) { owner = hit[2]; }
                }
                return {rule: v.id, impact: node.impact || v.impact, target: node.target.join(' '),
                        html: node.html.slice(0, 160), owner: owner};
            }));
        }""", [content, [[rule, selector, reason] for (rule, selector), reason in known.items()]])


def axe_table(elements: list[dict]) -> list[dict]:
    """axe_elements' rows counted by rule, impact and owner: {rule, impact, owner, count, example}."""
    rows: dict = {}
    for e in elements:
        row = rows.setdefault((e["rule"], e["impact"], e["owner"]), {
            "rule": e["rule"], "impact": e["impact"], "owner": e["owner"], "count": 0, "example": e["html"]})
        row["count"] += 1
    return sorted(rows.values(), key=lambda r: (r["owner"] != "lesson", r["rule"]))


def axe_violations(page, content: str = LESSON_CONTENT, known: dict | None = None) -> list[dict]:
    """axe_elements, counted (axe_table): the table the browser test stores for each lesson."""
    return axe_table(axe_elements(page, content, known))


def _number(text: str) -> float:
    """A slider readout as a number (ipywidgets writes negatives with the Unicode minus sign)."""
    return float(text.strip().replace("\u2212", "-"))


def _wait_quietly(page, condition: str, arg, timeout_ms: int = 10_000) -> None:
    """Wait until `condition(arg)` holds in the page; if it never does, return and let the caller's
    assertion say what is wrong (instead of a bare time-out)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(condition, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout:
        return


def _wait_idle(page, timeout_ms: int = 20_000) -> None:
    """Wait until the lesson's kernel is idle (a step sent while it is busy waits in its queue)."""
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext"
                           ".session.kernel.status === 'idle'", timeout=timeout_ms)


def _painted(page, n_paints: int, timeout_ms: int) -> bool:
    """Has the explorer drawn a heatmap beyond the first `n_paints`, within `timeout_ms`?"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(f"() => window.__al.paints.length > {n_paints}", timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def _stuck(page, what: str) -> None:
    """Fail with what was tried, where the focus is, the kernel's status and a screenshot."""
    where = page.evaluate("""() => ({focus: document.activeElement ? document.activeElement.className : null,
        kernel: window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status,
        dialogs: document.querySelectorAll('.jp-Dialog').length})""")
    shot = Path("build") / "screenshots" / "stuck.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=shot)
    raise AssertionError(f"{what}; focus on {where['focus']!r}, kernel {where['kernel']}, "
                         f"{where['dialogs']} dialog(s) open; screenshot {shot}")


def measure_explorer(page, index: int, steps_per_slider: int = 4, burst: int = 20) -> dict:
    """Slider steps by keyboard in explorer `index`: latency key -> new heatmap image, in ms."""
    page.evaluate("() => { if (window.__al) window.__al = null; }")
    n_sliders = page.evaluate(_INSTRUMENT, index)
    explorer = page.locator(EXPLORER).nth(index)
    explorer.scroll_into_view_if_needed()
    explorer.locator(".widget-readout").first.wait_for(state="visible")   # cells render lazily
    readouts_before = explorer.locator(".widget-readout").all_text_contents()
    latencies, changed, lost_keys = [], [], 0
    for s in range(n_sliders):
        handle = explorer.locator(".widget-slider .noUi-handle").nth(s)
        for k in range(steps_per_slider):
            key = "ArrowRight" if k % 2 == 0 else "ArrowLeft"
            _wait_idle(page)
            src_before = page.evaluate("() => window.__al.img.src")
            n_paints = page.evaluate("() => window.__al.paints.length")
            value_before = handle.get_attribute("aria-valuenow")
            handle.focus()
            page.keyboard.press(key)
            if not _painted(page, n_paints, 10_000) and handle.get_attribute("aria-valuenow") == value_before:
                lost_keys += 1                  # the key went elsewhere (focus moved): the slider never moved
                handle.focus()
                page.keyboard.press(key)
            if not _painted(page, n_paints, 30_000):
                _stuck(page, f"explorer {index}, slider {s}, step {k} ({key}): no new heatmap in 40 s; "
                             f"slider value {value_before} -> {handle.get_attribute('aria-valuenow')}")
            t_key = page.evaluate("() => window.__al.keys[window.__al.keys.length - 1]")
            t_paint = page.evaluate(f"() => window.__al.paints[{n_paints}]")
            latencies.append(t_paint - t_key)
            changed.append(page.evaluate("() => window.__al.img.src") != src_before)
    # every on/off button (e.g. a mask): a click must repaint the heatmaps; a second click undoes it
    toggled = []
    for b in range(explorer.locator("button.widget-toggle-button").count()):
        button = explorer.locator("button.widget-toggle-button").nth(b)
        for _ in range(2):
            src_before = page.evaluate("() => window.__al.img.src")
            n_paints = page.evaluate("() => window.__al.paints.length")
            button.click()
            if not _painted(page, n_paints, 40_000):
                _stuck(page, f"explorer {index}, button {b}: a click drew no new heatmap in 40 s")
            toggled.append(page.evaluate("() => window.__al.img.src") != src_before)
    # a burst of rapid steps on the first slider: how long until the final position is painted?
    handle = explorer.locator(".widget-slider .noUi-handle").first
    handle.focus()
    readout = explorer.locator(".widget-readout").first
    start_value = _number(readout.text_content())
    for _ in range(burst):
        page.keyboard.press("ArrowRight", delay=0)
    final_value = _number(readout.text_content())
    first_slider = explorer.locator(".al-numbers").get_attribute("data-state")
    key = next(iter(json.loads(first_slider)))   # the burst moves the first slider
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext"
                           ".session.kernel.status === 'idle'", timeout=20_000)
    _wait_quietly(page, """([index, key, final]) => {
        const ex = document.querySelectorAll('__EXPLORER__')[index];
        // the readout is rounded: compare numbers, not their spelling
        return Math.abs(JSON.parse(ex.querySelector('.al-numbers').dataset.state)[key] - final) < 1e-6; }"""
                  .replace("__EXPLORER__", EXPLORER), [index, key, final_value])
    t_last_key = page.evaluate("() => window.__al.keys[window.__al.keys.length - 1]")
    t_last_paint = page.evaluate("() => window.__al.paints[window.__al.paints.length - 1]")
    shown_state = json.loads(explorer.locator(".al-numbers").get_attribute("data-state"))
    explorer.locator("button", has_text="Reset").click()
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext"
                           ".session.kernel.status === 'idle'", timeout=20_000)
    _wait_quietly(page, """([index, before]) => {
        const ex = document.querySelectorAll('__EXPLORER__')[index];
        const now = [...ex.querySelectorAll('.widget-readout')].map(r => r.textContent);
        return JSON.stringify(now) === JSON.stringify(before); }"""
                  .replace("__EXPLORER__", EXPLORER), [index, readouts_before])
    readouts_after_reset = explorer.locator(".widget-readout").all_text_contents()
    return {
        "sliders": n_sliders,
        "step_latencies_ms": latencies,
        "median_step_ms": statistics.median(latencies),
        "every_step_changed_image": all(changed),
        "lost_keys": lost_keys,
        "toggles_clicked": len(toggled) // 2,
        "every_toggle_changed_image": all(toggled),
        "burst_steps": burst,
        "burst_start": start_value,
        "burst_final": final_value,
        "burst_final_paint_after_last_key_ms": t_last_paint - t_last_key,
        "state_shown_after_burst": shown_state[key],
        "reset_restored": readouts_after_reset == readouts_before and "" not in readouts_before,
    }
