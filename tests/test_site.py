"""The course website (tools/build_site.py, Jupyter Book 1), built offline and opened page by page in
headless Chromium: no script error, no failed request, no broken image or link, every formula typeset,
no serious accessibility violation of the lessons' own (axe-core), the launch buttons exactly the links
of tools/launch_links.py, and every lesson on the site, its slider explorers replaced by their pictures.

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
# the pages a reader opens: the README (the landing page), every lesson, the teaching guide, and
# Sphinx's own index and search pages (index.html only redirects to README.html: checked apart)
PAGES = ["README.html", *[f"notebooks/{Path(n).stem}.html" for n in LESSONS], "docs/teaching-guide.html",
         "genindex.html", "search.html"]
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
    assert len(context_of(REPO, "README")) == len(context_of(REPO, "docs/teaching-guide")) == 1
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
    with pytest.raises(SystemExit):                     # an address given that is not one: an error
        build_site.main(["--repo", "/srv/git/attention", "--out", str(tmp_path)])


def test_every_explorer_cell_has_its_picture_after_it():
    """The layout the site relies on: each explorer cell, then the cell that shows its still picture."""
    for name in LESSONS:
        cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if build_site.EXPLORER_TAG in cell.get("metadata", {}).get("tags", []):
                assert i + 1 < len(cells) and cells[i + 1]["cell_type"] == "code", f"{name}: cell {i}"
                outputs = json.dumps(cells[i + 1].get("outputs", []))
                assert "image/png" in outputs or "<img" in outputs, f"{name}: cell {i + 1} shows no picture"


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
             if not p.relative_to(site).as_posix().startswith(("_static/", "_sources/"))}
    assert built == {*PAGES, "index.html"}, sorted(built ^ {*PAGES, "index.html"})
    assert 'url=README.html"' in (site / "index.html").read_text(encoding="utf-8")
    landing = (site / "README.html").read_text(encoding="utf-8")
    nav = re.search(r'<nav class="[^"]*\bbd-docs-nav\b.*?</nav>', landing, re.S).group(0)
    listed = re.findall(r'<a class="reference internal" href="([^"#]+)"', nav)
    assert listed == [p for p in PAGES if p.startswith(("notebooks/", "docs/"))], listed


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_launch_buttons_are_the_links_of_launch_links(served):
    """Every lesson page opens that lesson: Binder's and the hub's links exactly as launch_links writes
    them for the same repository and hub; the other pages have no launch button."""
    _, folder = served
    for name in PAGES:
        text = (folder / "site" / name).read_text(encoding="utf-8")
        hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', text)]
        binder = [h for h in hrefs if h.startswith("https://mybinder.org/")]
        hub = [h for h in hrefs if h.startswith(HUB)]
        if not name.startswith("notebooks/"):
            assert binder == hub == [], name
            continue
        lesson = f"notebooks/{Path(name).stem}.ipynb"
        assert binder == [launch_links.binder_link(REPO, path=lesson)], name
        assert hub == [launch_links.hub_link(REPO, HUB, path=lesson)], name


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_explorers_are_replaced_by_their_pictures(served):
    """No widget cell on the site; beside each explorer's still picture, the line that says where the
    sliders work."""
    _, folder = served
    for name in LESSONS:
        cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
        explorers = [c for c in cells if build_site.EXPLORER_TAG in c.get("metadata", {}).get("tags", [])]
        page = (folder / "site" / "notebooks" / f"{Path(name).stem}.html").read_text(encoding="utf-8")
        note = build_site.STILL_NOTE.strip("*")
        assert page.count(note) == len(explorers), name
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
    """Copies of lesson 03's page, each with one deliberate fault: {fault: page address under broken/}."""
    shutil.copytree(folder / "site", folder / "broken", dirs_exist_ok=True)
    lesson = folder / "broken" / "notebooks" / "03-many-heads.html"
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
    }
    found = {}
    for fault, address in _broken_copies(folder).items():
        url = f"{base}/{address}"
        found[fault] = problems(read_page(browser_page, url, axe=fault == "axe"), url)
        for kind in expected[fault]:
            assert found[fault][kind], f"the {fault} fault was not seen as {kind}: {found[fault]}"
    assert len(found["link"]["broken links"]) == 3, found["link"]["broken links"]
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
