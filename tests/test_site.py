"""The course website (tools/build_site.py, Jupyter Book 1), built offline and opened page by page in
headless Chromium: no script error, no failed request, no broken image or link, every formula typeset,
no serious accessibility violation of the lessons' own (axe-core), no line wider than the page's content
column (code scrolls inside its own block, printed output wraps), the launch buttons exactly the links
of tools/launch_links.py, and every lesson on the site, its slider explorers replaced by their pictures.
The front page is for students (the lessons in order, each with its time, and how to launch them); the
teaching guide is a page of its own that no student page, menu or search result leads to.

The site is built once (into a temporary folder) and served on 127.0.0.1; axe-core's table is printed
per page and its findings written to build/axe-site.json. Outside CI the browser tests are skipped, with
the reason, where jupyter-book, MathJax (npm), axe-core (npm), Chromium or Playwright is missing;
.ci/run installs them all, and in CI a missing one is a failure.
"""

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402
import lab_session  # noqa: E402
import launch_links  # noqa: E402

REPO, HUB = "https://github.com/alice/attention", "https://hub.uni.edu"
LESSONS = [p.name for p in build_site.lessons()]
# the pages a reader opens: the students' front page, every lesson, Sphinx's own index and search pages,
# and the teachers' page (a book of its own under teachers/, whose index.html only redirects to it)
STUDENT_PAGES = ["index.html", *[f"notebooks/{Path(n).stem}.html" for n in LESSONS], "genindex.html",
                 "search.html"]
GUIDE_PAGE = "teachers/docs/teaching-guide.html"
PAGES = [*STUDENT_PAGES, GUIDE_PAGE]
IN_CI = os.environ.get("CI") == "true"


def missing_reason() -> str | None:
    if build_site.missing_reason():
        return build_site.missing_reason()
    if lab_session.axe_script() is None:
        return "axe-core not found: npm install -g axe-core@4 (as .ci/run does), or set ATTENTION_LAB_AXE"
    return lab_session.browser_missing_reason()


MISSING = missing_reason()
# Outside CI a missing tool skips the tests of the built site with its reason (the `served` fixture);
# in CI, which installs them all, it is a failure.

# Violations that the theme (sphinx-book-theme / pydata-sphinx-theme) causes on every page, not the
# lessons: matched by rule and by the element's own selector (axe's), each with the reason.
THEME_KNOWN: dict[tuple[str, str], str] = {}
# impacts that fail the test; 'moderate' and 'minor' are printed in the table only
AXE_REPORT = ROOT / "build" / "axe-site.json"      # every page's violations, element by element
FAILING = ("critical", "serious")


# ---------------------------------------------------------------------------- without a browser

def test_browser_tools_are_available_in_ci():
    if not IN_CI:
        pytest.skip("only required in CI (CI=true)")
    assert MISSING is None, MISSING


def test_a_missing_mathjax_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv(build_site.MATHJAX_ENV, str(tmp_path))
    with pytest.raises(build_site.MissingTool, match=r"npm install -g mathjax@3"):
        build_site.mathjax_folder()
    (tmp_path / "package.json").write_text('{"version": "4.0.0"}')
    (tmp_path / "es5").mkdir()
    (tmp_path / "es5" / "tex-chtml.js").write_text("")
    with pytest.raises(build_site.MissingTool, match=r"MathJax 4\.0\.0, not MathJax 3"):
        build_site.mathjax_folder()


def test_links_to_files_that_are_not_pages(tmp_path):
    """A link to a page stays; one to another file becomes its repository address, or plain text."""
    pages = {"README.md", "docs/teaching-guide.md", "notebooks/00-start-here.ipynb"}
    text = ("[start](notebooks/00-start-here.ipynb) [guide](docs/teaching-guide.md#misconceptions) "
            "[heads](src/attention_lab/heads.py) [tools](tools/) [web](https://example.org) "
            "[top](#notation)\n"
            "```text\n[kept](tools/)\n```\n")
    got = build_site.rewrite_links(text, "README.md", pages, "https://github.com/alice/attention", "main",
                                   tmp_path)
    assert got == ("[start](notebooks/00-start-here.ipynb) [guide](docs/teaching-guide.md#misconceptions) "
                   "[heads](https://github.com/alice/attention/blob/main/src/attention_lab/heads.py) "
                   "[tools](https://github.com/alice/attention/tree/main/tools) [web](https://example.org) "
                   "[top](#notation)\n```text\n[kept](tools/)\n```\n")
    plain = build_site.rewrite_links("see [heads](../src/attention_lab/heads.py).", "docs/teaching-guide.md",
                                     pages, None, "main", tmp_path)
    assert plain == "see heads."
    with pytest.raises(SystemExit, match=r"links to no-such-file\.md"):
        build_site.rewrite_links("[x](no-such-file.md)", "README.md", pages, None, "main", tmp_path)
    # on a student page, the teachers' files are plain text, even where the repository's address is known
    student = build_site.rewrite_links("[guide](../docs/teaching-guide.md#plan-for-90-minutes) and "
                                       "[answers](../solutions/answers.py), "
                                       "[lesson](01-one-output-by-hand.ipynb)",
                                       "notebooks/00-start-here.ipynb",
                                       {*pages, "notebooks/01-one-output-by-hand.ipynb"},
                                       "https://github.com/alice/attention", "main", tmp_path,
                                       build_site.TEACHERS_ONLY)
    assert student == "guide and answers, [lesson](01-one-output-by-hand.ipynb)"


def test_launch_buttons_only_with_a_web_address():
    """No origin, or a local path (CI's clone): no buttons; a web address: the lesson's links."""
    assert not build_site.usable(None) and not build_site.usable("/srv/git/attention")
    assert not build_site.usable("file:///srv/git/attention")
    assert build_site.usable("git@github.com:alice/attention.git")
    links = build_site.lesson_links(REPO, None, "main", "03-many-heads.ipynb")
    assert links == {"Binder": launch_links.binder_link(REPO, path="notebooks/03-many-heads.ipynb")}
    assert links["Binder"].endswith("?urlpath=lab%2Ftree%2Fnotebooks%2F03-many-heads.ipynb")


def test_the_launch_menu_of_a_lesson_page():
    """The Sphinx hook puts the lesson's own links in the theme's launch menu; no repository, no menu."""
    def context_of(repo, page):
        app = SimpleNamespace(config=SimpleNamespace(launch_repo=repo, launch_hub=HUB, launch_branch="main"))
        context = {"header_buttons": [{"label": "fullscreen-button"}]}
        build_site.add_launch_buttons(app, page, "page.html", context, None)
        return context["header_buttons"]

    assert context_of("", "notebooks/03-many-heads") == [{"label": "fullscreen-button"}]
    assert len(context_of(REPO, "index")) == len(context_of(REPO, "docs/teaching-guide")) == 1
    menu = context_of(REPO, "notebooks/03-many-heads")[0]
    lesson = "notebooks/03-many-heads.ipynb"
    assert [b["url"] for b in menu["buttons"]] == [launch_links.binder_link(REPO, path=lesson),
                                                  launch_links.hub_link(REPO, HUB, path=lesson)]


def test_without_a_web_address_the_build_says_how_to_add_the_buttons(monkeypatch, capsys, tmp_path):
    built = []
    monkeypatch.setattr(build_site, "build", lambda out, repo, hub, branch: built.append(repo) or out)
    monkeypatch.setattr(build_site, "origin", lambda: "/srv/git/attention")      # CI's clone: a local path
    assert build_site.main(["--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert built == [None] and lines[0].startswith("no launch buttons:") and "--repo https://" in lines[0]
    assert re.match(r"built the site in \d+\.\d s: ", lines[1])
    assert lines[2].startswith("the teaching guide, linked from no student page: ")
    with pytest.raises(SystemExit):                     # an address given that is not one: an error
        build_site.main(["--repo", "/srv/git/attention", "--out", str(tmp_path)])


def _readme_setup_command() -> str:
    """The README's command that installs the collection and opens JupyterLab: its one line that runs
    `jupyter lab` (read here by line, not as build_site reads it)."""
    lines = [ln for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if "pip install -r requirements.txt" in ln and "jupyter lab" in ln]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_front_page_without_a_web_address():
    """No address: no launch links and no empty column; the way to run the lessons on one's own computer
    (the README's set-up command), and every lesson in order with its time."""
    text = build_site.front_page(None, None, "main")
    assert "<!--" not in text                                # both placeholders filled in
    assert "mybinder" not in text and "hub/user-redirect" not in text and "git clone" not in text
    assert "Open it on" not in text and "| Lesson | Time |" in text
    assert f"```bash\n{_readme_setup_command()}\n```" in text
    rows = re.findall(r"^\| \[(\d\d) · [^\]]+\]\(notebooks/([^)]+)\) \| about (\d+) min \|$", text, re.M)
    assert [(n, f) for n, f, _ in rows] == [(name[:2], name) for name in LESSONS], rows
    assert all(int(minutes) % 5 == 0 and int(minutes) >= 5 for _, _, minutes in rows)
    assert ("A time is for working through the lesson on your own: reading its text at about 150 words a "
            "minute, a minute for each code cell") in text                    # what a time means


def test_the_front_page_with_an_address():
    text = build_site.front_page(REPO, HUB, "main")
    assert f"git clone {REPO}\ncd attention\n{_readme_setup_command()}\n" in text
    for name in LESSONS:
        lesson = f"notebooks/{name}"
        row = next(ln for ln in text.splitlines() if f"]({lesson})" in ln)
        hrefs = [html.unescape(h) for h in re.findall(r'<a href="([^"]+)">', row)]
        assert hrefs == [launch_links.binder_link(REPO, path=lesson),
                         launch_links.hub_link(REPO, HUB, path=lesson)], row
    assert "JupyterHub" not in build_site.front_page(REPO, None, "main")


def _notebook(tmp_path, name: str, cells: list[tuple[str, str]]) -> Path:
    path = tmp_path / "notebooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": text}
                                          for kind, text in cells]}), encoding="utf-8")
    return path


def test_a_lessons_time(tmp_path, monkeypatch):
    """The time is reading (150 words a minute) + a minute per code cell + the exercises: the lesson's own
    labels where every exercise has one, else the allowance the teaching guide gave before the labels
    (15 minutes for four exercises, 5 for lesson 00's three)."""
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    # 1500 words with the title's five ("#", "05", "·", "A", "lesson"): 10 minutes
    text = "# 05 · A lesson\n\n" + "word " * 1495
    checks = ['al.check("05.1", a)', 'al.check("05.2", b)\nal.check("05.2", b)']   # two exercises
    facts = build_site.lesson_facts(_notebook(tmp_path, "05-a.ipynb", [("markdown", text), ("code", "x = 1"),
                                                                      *[("code", c) for c in checks]]))
    assert (facts["title"], facts["words"], facts["code_cells"], facts["exercises"]) == \
        ("05 · A lesson", 1500, 3, 2)
    assert facts["exercise_minutes"] == 7.5 and facts["minutes"] == 20       # 10 + 3 + 7.5 = 20.5
    zero = build_site.lesson_facts(_notebook(tmp_path, "00-a.ipynb", [("markdown", "# 00 · Start"),
                                                                     ("code", checks[0])]))
    assert zero["exercise_minutes"] == pytest.approx(5 / 3) and zero["minutes"] == 5    # 0 + 1 + 1.7
    labelled = [("markdown", "# 05 · A lesson\n\n**05.1** about 5 minutes · ★★"),
                ("markdown", "**05.2** about 10–20 minutes · ★★★"), *[("code", c) for c in checks]]
    facts = build_site.lesson_facts(_notebook(tmp_path, "05-b.ipynb", labelled))
    assert facts["labelled"] and facts["exercise_minutes"] == 20                  # 5 + (10 + 20) / 2
    half = build_site.lesson_facts(_notebook(tmp_path, "05-c.ipynb", labelled[:1] + labelled[2:]))
    assert not half["labelled"] and half["exercise_minutes"] == 7.5     # one label of two: the guide's time


def test_every_explorer_cell_has_its_picture_after_it():
    """The layout the site relies on: each explorer cell, then the cell that shows its still picture."""
    for name in LESSONS:
        cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if build_site.EXPLORER_TAG in cell.get("metadata", {}).get("tags", []):
                assert i + 1 < len(cells) and cells[i + 1]["cell_type"] == "code", f"{name}: cell {i}"
                outputs = json.dumps(cells[i + 1].get("outputs", []))
                assert "image/png" in outputs or "<img" in outputs, f"{name}: cell {i + 1} shows no picture"
                shown = "".join("".join(o.get("data", {}).get("text/html", ""))
                                for o in cells[i + 1]["outputs"])
                assert '<figcaption class="al-still-caption"' in shown, f"{name}: cell {i + 1}: no caption"


def test_the_still_picture_is_captioned_for_the_site(tmp_path):
    """On the site no live explorer stands above the still picture: its caption says where the sliders
    work instead, once, directly above the picture, and no output on the page says 'explorer above'."""
    name = "03-many-heads.ipynb"
    dest = tmp_path / "notebooks" / name
    build_site.stage_lesson(ROOT / "notebooks" / name, dest, set(), None, "main", tmp_path)
    cells = json.loads(dest.read_text(encoding="utf-8"))["cells"]
    at = [i for i, c in enumerate(cells) if build_site.EXPLORER_TAG in c["metadata"].get("tags", [])]
    assert len(at) == 1 and "remove-cell" in cells[at[0]]["metadata"]["tags"]
    shown = [o["data"] for o in cells[at[0] + 1]["outputs"] if "text/html" in o.get("data", {})]
    page = "".join(shown[0]["text/html"])
    caption = re.search(r"<figcaption[^>]*>([^<]*)</figcaption>\s*<img ", page)
    assert caption and html.unescape(caption.group(1)) == shown[0]["text/plain"] == \
        "This is a still picture of the explorer: its sliders work in JupyterLab or on Binder."
    assert "explorer above" not in json.dumps([c.get("outputs", []) for c in cells])


# ---------------------------------------------------------------------------- the built site

class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):   # the browser closed a page mid-transfer
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(address, folder): the folder holds site/ (built by tools/build_site.py) and is served."""
    if MISSING is not None:
        pytest.fail(MISSING) if IN_CI else pytest.skip(MISSING)
    folder = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_site.py"), "--repo", REPO, "--hub", HUB,
                          "--out", str(folder / "site")], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    print(run.stdout)
    assert re.search(r"^built the site in \d+\.\d s: ", run.stdout, re.M), run.stdout
    server = _Server(("127.0.0.1", 0),
                                             functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", folder
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def browser_page(served):
    with lab_session.chromium_page() as page:
        yield page


# What a page shows, read in the page once it is loaded and MathJax is done.
_READ_PAGE = r"""() => {
    const inContent = (el) => !!el.closest('article.bd-article');
    const images = [...document.images].map(i => ({src: i.getAttribute('src') || '',
        alt: i.getAttribute('alt'), loaded: i.complete && i.naturalWidth > 0, content: inContent(i)}));
    const links = [...document.querySelectorAll('a[href]')].map(a => a.href);
    const maths = [...document.querySelectorAll('.math')];
    const untypeset = maths.filter(e => !e.querySelector('mjx-container'))
        .map(e => e.textContent.slice(0, 80));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: (n) =>
        n.parentElement.closest('pre, code, script, style, textarea, mjx-container')
            ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    const raw = [];
    const tex = /\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\s][^$\n]*[\\^_{}][^$\n]*\$/;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (tex.test(n.textContent)) raw.push(n.textContent.trim().slice(0, 80));
    }
    return {images, links, maths: maths.length, typeset: document.querySelectorAll('mjx-container').length,
            untypeset, raw};
}"""

# What reaches past the page's content column, read at the window's width. Nothing may, except inside a
# box that scrolls and itself fits: a block of code (JupyterLab's editor keeps code lines too), a table, a
# displayed formula. Printed output wraps, as in JupyterLab, so an output block never needs to scroll.
_WIDE = r"""() => {
    const article = document.querySelector('article.bd-article');
    const wide = [];
    if (!article) return wide;
    const right = article.getBoundingClientRect().right + 1;
    const name = (el) => `${el.tagName.toLowerCase()}${[...el.classList].map(c => '.' + c).join('')}`;
    const what = (el) => `${name(el)} "${el.textContent.trim().replace(/\s+/g, ' ').slice(0, 60)}"`;
    const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
        && el.getBoundingClientRect().right <= right;
    const exempt = (el) => {
        if (el.closest('mjx-assistive-mml')) return true;   // MathJax's clipped copy for screen readers
        for (let a = el; a && a !== article; a = a.parentElement) if (scrolls(a)) return true;
        return false;
    };
    if (article.scrollWidth > article.clientWidth + 1)
        wide.push(`the column scrolls: ${article.scrollWidth} px in ${article.clientWidth} px`);
    for (const el of article.querySelectorAll('*')) {
        const box = el.getBoundingClientRect();
        if (box.width > 0 && box.right > right && !exempt(el))
            wide.push(`${what(el)} ends at ${Math.round(box.right)} px, the column ${Math.round(right)}`);
    }
    const texts = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = texts.nextNode(); n; n = texts.nextNode()) {
        if (!n.textContent.trim() || exempt(n.parentElement)) continue;
        range.selectNodeContents(n);
        const box = range.getBoundingClientRect();
        if (box.width > 0 && box.right > right)
            wide.push(`text in ${what(n.parentElement)} ends at ${Math.round(box.right)} px, `
                      + `the column ${Math.round(right)}`);
    }
    for (const pre of article.querySelectorAll('.cell_output pre')) {
        const [need, has] = [pre.scrollWidth, pre.clientWidth];
        if (need > has + 1) wide.push(`${what(pre)}: lines of ${need} px in ${has} px (not wrapped)`);
    }
    return wide;
}"""
NARROW = 390            # a phone's width (CSS px) at which the column is measured too


def read_page(page, url: str, axe: bool = True) -> dict:
    """Open `url` and read what a reader would meet: script errors, failed requests, images, links,
    formulas, and axe-core's violations (each with whether it lies in the page's own content)."""
    seen = {"console": [], "errors": [], "failed": []}
    pending = set()

    def on_console(message):
        if message.type == "error":
            seen["console"].append(message.text)

    def on_response(response):
        if response.status >= 400:
            seen["failed"].append(f"{response.url}: HTTP {response.status}")

    def on_failed(request):
        pending.discard(request)
        seen["failed"].append(f"{request.url}: {request.failure}")

    events = {"console": on_console, "pageerror": lambda e: seen["errors"].append(str(e)),
              "request": lambda r: pending.add(r), "requestfinished": lambda r: pending.discard(r),
              "requestfailed": on_failed,
              "response": on_response}
    for event, handler in events.items():
        page.on(event, handler)
    try:
        page.goto(url, wait_until="load")
        # formulas, and a page that loads MathJax: wait for it (a page without the script has nothing to
        # wait for; its formulas are reported untypeset below)
        if page.evaluate("() => document.querySelector('.math') !== null"
                         " && document.querySelector('script[src*=\"tex-chtml\"]') !== null"):
            try:      # Sphinx sets window.MathJax to its configuration; MathJax itself adds startup
                page.wait_for_function("() => window.MathJax && window.MathJax.startup"
                                       " && window.MathJax.startup.promise", timeout=15_000)
                page.evaluate("() => window.MathJax.startup.promise.then(() => true)")
            except Exception as exc:       # a timeout: reported here and by the math check below
                seen["errors"].append(f"MathJax did not start: {str(exc).splitlines()[0]}")
        quiet_since, deadline = time.monotonic(), time.monotonic() + 20
        while time.monotonic() - quiet_since < 0.5:       # no request in flight for half a second
            if pending:
                quiet_since = time.monotonic()
            if time.monotonic() > deadline:
                seen["failed"] += [f"{r.url}: still loading after 20 s" for r in pending]
                break
            page.wait_for_timeout(100)
        report = page.evaluate(_READ_PAGE)
        report["wide"] = page.evaluate(_WIDE)
        size = page.viewport_size                          # then on a phone's screen
        page.set_viewport_size({"width": NARROW, "height": size["height"]})
        try:
            report["wide"] += [f"at {NARROW} px: {w}" for w in page.evaluate(_WIDE)]
        finally:
            page.set_viewport_size(size)
        report["axe"] = lab_session.axe_elements(page, "article.bd-article", THEME_KNOWN) if axe else []
    finally:
        for event, handler in events.items():
            page.remove_listener(event, handler)
    return {**seen, **report}


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        self.ids |= {v for k, v in attrs if k in ("id", "name") and v}


@functools.cache
def _fetch(url: str) -> tuple[int, frozenset]:
    """(HTTP status, the ids in the page) of a same-site address."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read().decode("utf-8", "replace") if url.endswith((".html", "/")) else ""
            parser = _Ids()
            parser.feed(body)
            return r.status, frozenset(parser.ids)
    except urllib.error.HTTPError as exc:
        return exc.code, frozenset()


def broken_links(report: dict, url: str) -> list[str]:
    """Every same-site link that does not resolve: its file missing, or its #fragment not in the page."""
    base = urlsplit(url)
    broken = []
    for href in report["links"]:
        target = urlsplit(urljoin(url, href))
        if target.scheme not in ("http", "https") or target.netloc != base.netloc:
            continue                        # another site (the launch buttons, the sources): not fetched
        address = target._replace(fragment="").geturl()
        status, ids = _fetch(address)
        if status != 200:
            broken.append(f"{href}: HTTP {status}")
        elif target.fragment and unquote(target.fragment) not in ids:
            broken.append(f"{href}: no element with id {unquote(target.fragment)!r}")
    return sorted(set(broken))


def known_reason(violation: dict) -> str | None:
    """The reason of the THEME_KNOWN entry the element matched, or None."""
    return None if violation["owner"] in ("lesson", "page") else violation["owner"]


def problems(report: dict, url: str) -> dict[str, list]:
    """What is wrong with a page, by kind; every list empty on a good page."""
    bad_alt = [i["src"] for i in report["images"] if i["content"] and (
        not (i["alt"] or "").strip() or re.search(r"\.(png|jpe?g|svg|gif)$", i["alt"]))]
    return {
        "console errors": report["console"],
        "page errors": report["errors"],
        "failed requests": report["failed"],
        "broken images": [i["src"] for i in report["images"] if not i["loaded"]],
        "broken links": broken_links(report, url),
        "formulas not typeset": report["untypeset"] + ([] if report["maths"] == 0 or report["typeset"] > 0
                                                       else ["no mjx-container on a page with math"]),
        "raw TeX in the text": report["raw"],
        "lines wider than the content column": report["wide"],
        "images whose alt text is missing or a file name": bad_alt,
        "serious accessibility violations (lesson or page content)": [
            f"{v['rule']} ({v['impact']}) at {v['target']}: {v['html']}" for v in report["axe"]
            if v["impact"] in FAILING and v["owner"] == "lesson"],
        "serious accessibility violations (theme, not known)": [
            f"{v['rule']} ({v['impact']}) at {v['target']}: {v['html']}" for v in report["axe"]
            if v["impact"] in FAILING and v["owner"] == "page"],
    }


def axe_table(page_name: str, report: dict) -> str:
    counts = {}
    for v in report["axe"]:
        owner = {"lesson": "lesson", "page": "theme"}.get(v["owner"], "theme (known)")
        key = (v["rule"], v["impact"], owner)
        counts[key] = counts.get(key, 0) + 1
    rows = [f"  {rule:<28} {impact:<9} {n:>4}  {owner}"
            for (rule, impact, owner), n in sorted(counts.items())]
    return "\n".join([f"axe on {page_name}: {len(report['axe'])} violating elements", *rows])


@pytest.fixture(scope="module")
def reports(served, browser_page):
    base, _ = served
    got = {name: read_page(browser_page, f"{base}/site/{name}") for name in PAGES}
    for name, report in got.items():
        print(axe_table(name, report))
    AXE_REPORT.parent.mkdir(parents=True, exist_ok=True)
    AXE_REPORT.write_text(json.dumps({name: r["axe"] for name, r in got.items()}, indent=1), encoding="utf-8")
    return got


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", PAGES)
def test_page(reports, served, name):
    base, _ = served
    found = problems(reports[name], f"{base}/site/{name}")
    for kind, items in found.items():
        assert not items, f"{name}: {kind}:\n  " + "\n  ".join(items)


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_site_has_every_page_and_the_toc_lists_every_lesson(served):
    _, folder = served
    site = folder / "site"
    built = {p.relative_to(site).as_posix() for p in site.rglob("*.html")
             if not re.match(r"(teachers/)?(_static|_sources)/", p.relative_to(site).as_posix())}
    expected = {*PAGES, "teachers/index.html", "teachers/genindex.html", "teachers/search.html"}
    assert built == expected, sorted(built ^ expected)
    assert 'url=docs/teaching-guide.html"' in (site / "teachers" / "index.html").read_text(encoding="utf-8")
    front = (site / "index.html").read_text(encoding="utf-8")
    nav = re.search(r'<nav class="[^"]*\bbd-docs-nav\b.*?</nav>', front, re.S).group(0)
    listed = re.findall(r'<a class="reference internal" href="([^"#]+)"', nav)
    assert listed == [p for p in PAGES if p.startswith("notebooks/")], listed


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_front_page_is_for_students(served):
    """The front page says what the course is and for whom, lists every lesson in order with its time
    and its launch links, and says how to run the lessons at home; the README is no page of the site."""
    _, folder = served
    site = folder / "site"
    front = (site / "index.html").read_text(encoding="utf-8")
    article = re.search(r'<article class="bd-article">.*?</article>', front, re.S).group(0)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", article)).split())
    assert "Who it is for" in text and "How to start" in text
    for developer_word in ("pytest", "mutation", "nbval", "conftest", "Contributors"):
        assert developer_word not in text, developer_word
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", article, re.S)[1:]          # the lessons, after the head
    assert len(rows) == len(LESSONS)
    for row, name in zip(rows, LESSONS):
        lesson = f"notebooks/{name}"
        cells = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split())
        assert f'href="notebooks/{Path(name).stem}.html"' in row, row
        assert re.search(rf"^{name[:2]} · .+ about \d+ min Binder · JupyterHub$", cells), cells
        hrefs = [html.unescape(h) for h in re.findall(r'href="(https://[^"]+)"', row)]
        assert hrefs == [launch_links.binder_link(REPO, path=lesson),
                         launch_links.hub_link(REPO, HUB, path=lesson)]
    unbroken = "".join(html.unescape(re.sub(r"<[^>]+>", "", article)).split())    # code: one span a word
    assert "".join(_readme_setup_command().split()) in unbroken
    assert not list(site.rglob("README*")), "the README is not a page of the students' site"


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_teaching_guide_is_a_page_no_student_page_leads_to(served, reports):
    """The teachers' page holds the guide; no student page links to it (nor to any teachers' file), no
    student page's menu lists it, and the students' search index does not know it."""
    base, folder = served
    site = folder / "site"
    guide = (ROOT / "docs" / "teaching-guide.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#{1,2} (.+)$", guide, re.M)        # its title first
    page = " ".join(html.unescape((site / GUIDE_PAGE).read_text(encoding="utf-8")).split())
    assert headings and all(" ".join(h.replace("`", "").split()) in page for h in headings), headings
    for name in STUDENT_PAGES:
        links = [urljoin(f"{base}/site/{name}", h) for h in reports[name]["links"]]
        to_teachers = [h for h in links if "/teachers/" in h or "teaching-guide" in h or "/solutions/" in h]
        assert to_teachers == [], (name, to_teachers)
    for path in site.rglob("*"):                           # every file of the students' site, pages and data
        rel = path.relative_to(site).as_posix()
        if path.is_file() and not rel.startswith("teachers/") and path.suffix in (".html", ".js", ".md"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "teaching-guide" not in text and headings[0] not in text, rel


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_launch_buttons_are_the_links_of_launch_links(served):
    """Every lesson page opens that lesson: Binder's and the hub's links exactly as launch_links writes
    them for the same repository and hub; the front page lists every lesson's; the other pages have none."""
    _, folder = served
    for name in PAGES:
        text = (folder / "site" / name).read_text(encoding="utf-8")
        hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', text)]
        binder = [h for h in hrefs if h.startswith("https://mybinder.org/")]
        hub = [h for h in hrefs if h.startswith(HUB)]
        if name == "index.html":                        # the front page: every lesson's, in order
            lessons = [f"notebooks/{n}" for n in LESSONS]
            assert binder == [launch_links.binder_link(REPO, path=lesson) for lesson in lessons]
            assert hub == [launch_links.hub_link(REPO, HUB, path=lesson) for lesson in lessons]
            continue
        if not name.startswith("notebooks/"):
            assert binder == hub == [], name
            continue
        lesson = f"notebooks/{Path(name).stem}.ipynb"
        assert binder == [launch_links.binder_link(REPO, path=lesson)], name
        assert hub == [launch_links.hub_link(REPO, HUB, path=lesson)], name


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_explorers_are_replaced_by_their_pictures(served):
    """No widget cell on the site; above each explorer's still picture, its caption says where the
    sliders work."""
    _, folder = served
    for name in LESSONS:
        cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
        explorers = [c for c in cells if build_site.EXPLORER_TAG in c.get("metadata", {}).get("tags", [])]
        page = (folder / "site" / "notebooks" / f"{Path(name).stem}.html").read_text(encoding="utf-8")
        note = build_site.STILL_NOTE
        assert page.count(note) == len(explorers), name
        assert len(re.findall(rf"<figcaption[^>]*>{re.escape(note)}</figcaption>\s*<img ", page)) \
            == len(explorers), f"{name}: the note is not the caption right above each still picture"
        assert re.findall(r"<figcaption[^>]*>([^<]*)</figcaption>", page) == [note] * len(explorers), name
        assert "widget-view" not in page and "Loading widget" not in page, name
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
        for cell in explorers:                    # the explorer's code is not on the page either
            assert " ".join("".join(cell["source"]).split()) not in text, name


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_mathjax_accessibility_options_work_offline(served, browser_page):
    """MathJax's menu offers the explorer and speech: what they load (copied into the site) is there, and
    the speech rule engine speaks a formula with its English rules."""
    base, _ = served
    page, failed = browser_page, []

    def on_response(response):
        if response.status >= 400:
            failed.append(f"{response.url}: HTTP {response.status}")

    page.on("response", on_response)
    try:
        page.goto(f"{base}/site/notebooks/03-many-heads.html", wait_until="load")
        spoken = page.evaluate("""async () => {
            await MathJax.startup.promise;
            await MathJax.loader.load('a11y/explorer', 'a11y/complexity');   // rejects if a file is missing
            const sre = MathJax._.a11y.sre.Sre;
            await sre.sreReady();
            return sre.toSpeech('<math><mi>x</mi><mo>+</mo><mn>1</mn></math>');
        }""")
    finally:
        page.remove_listener("response", on_response)
    assert spoken == "x plus 1" and failed == [], (spoken, failed)


# ---------------------------------------------------------------------------- the checks can fail

def _broken_copies(folder: Path) -> dict[str, str]:
    """Copies of lesson 01's page, each with one deliberate fault: {fault: page address under broken/}.
    (Lesson 01 is the smallest page with formulas, pictures and a launch menu; each fault loads it again.)"""
    shutil.copytree(folder / "site", folder / "broken", dirs_exist_ok=True)
    lesson = folder / "broken" / "notebooks" / "01-one-output-by-hand.html"
    good = lesson.read_text(encoding="utf-8")
    article, body = '<article class="bd-article">', re.search(r"<body[^>]*>", good).group(0)
    logo = "../_static/images/logo_binder.svg"          # a picture the page has (its launch menu's)
    assert f'src="{logo}"' in good

    def into(where, extra):
        return good.replace(where, where + extra, 1)

    faults = {
        "image": into(article, '<img alt="a picture" src="../_images/removed.png">'),
        "request": into(article, '<script src="http://127.0.0.1:9/a-cdn.js"></script>'),   # as a CDN offline
        "link": into(article, '<a href="no-such-page.html">a</a> <a href="#no-such-id">b</a> '
                              '<a href="01-one-output-by-hand.html#no-such-section">c</a>'),
        "math": re.sub(r'<script defer="defer" src="[^"]*mathjax/tex-chtml\.js[^"]*"></script>', "", good),
        "script": into(article, '<script>console.error("deliberate");</script>'
                                '<script>noSuchFunction();</script>'),
        "axe": into(body, '<button id="deliberate-theme-button"></button>').replace(
            article, article + f'<button id="deliberate-lesson-button"></button><img src="{logo}">', 1),
        "alt": into(article, f'<img alt="logo_binder.svg" src="{logo}">'),
        # a paragraph that does not wrap, and printed output that does not (the site's stylesheet wraps it)
        "wide": into(article, '<p id="deliberate-wide" style="white-space: nowrap">' + "a long line " * 60
                     + '</p><div class="cell_output"><pre style="white-space: pre">' + "printed " * 60
                     + "</pre></div>"),
    }
    for fault, text in faults.items():
        assert text != good, fault
        (lesson.parent / f"broken-{fault}.html").write_text(text, encoding="utf-8")
    return {fault: f"broken/notebooks/broken-{fault}.html" for fault in faults}


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_checks_catch_a_broken_page(served, browser_page, monkeypatch):
    """Each check fails on a page broken on purpose, and a known theme violation is matched narrowly."""
    base, folder = served
    expected = {
        "image": ["broken images", "failed requests", "console errors"],
        "request": ["failed requests", "console errors"],
        "link": ["broken links"],
        "math": ["formulas not typeset", "raw TeX in the text"],
        "script": ["console errors", "page errors"],
        "axe": ["serious accessibility violations (lesson or page content)",
                "serious accessibility violations (theme, not known)",
                "images whose alt text is missing or a file name"],
        "alt": ["images whose alt text is missing or a file name"],
        "wide": ["lines wider than the content column"],
    }
    found = {}
    for fault, address in _broken_copies(folder).items():
        url = f"{base}/{address}"
        found[fault] = problems(read_page(browser_page, url, axe=fault == "axe"), url)
        for kind in expected[fault]:
            assert found[fault][kind], f"the {fault} fault was not seen as {kind}: {found[fault]}"
    assert len(found["link"]["broken links"]) == 3, found["link"]["broken links"]
    wide = found["wide"]["lines wider than the content column"]
    assert any(w.startswith("the column scrolls") for w in wide), wide
    assert any(w.startswith('text in p "a long line') for w in wide), wide
    assert any(w.startswith('pre "printed') and w.endswith("(not wrapped)") for w in wide), wide
    assert all("a long line" in w or "printed" in w or w.removeprefix(f"at {NARROW} px: ").startswith(
        "the column scrolls") for w in wide), wide      # the rest of lesson 01's page fits
    lesson = found["axe"]["serious accessibility violations (lesson or page content)"]
    assert any(v.startswith("button-name (critical) at #deliberate-lesson-button") for v in lesson), lesson
    assert any(v.startswith("image-alt (critical)") for v in lesson), lesson
    # a known entry silences its own rule at its own selector, nothing else
    axe_page = f"{base}/broken/notebooks/broken-axe.html"
    monkeypatch.setitem(THEME_KNOWN, ("button-name", "#deliberate-theme-button"), "deliberate, in this test")
    monkeypatch.setitem(THEME_KNOWN, ("color-contrast", "#deliberate-lesson-button"), "never matches: lesson")
    report = read_page(browser_page, axe_page)
    known = problems(report, axe_page)
    assert known["serious accessibility violations (theme, not known)"] == [], known
    assert known["serious accessibility violations (lesson or page content)"] == lesson
    assert [v["owner"] for v in report["axe"] if v["target"] == "#deliberate-theme-button"] == \
        ["deliberate, in this test"]
