"""Build the course website offline into build/site/ with Jupyter Book 1: build_site.py [REPO] [--hub HUB].

Two books: the students' site (a front page, site/index.md with the lessons, their times and how to
launch them filled in, then every lesson) in build/site/, and the teaching guide on a page of its own in
build/site/teachers/, a separate build so that no student page, menu or search result leads to it.
"""

from __future__ import annotations

import argparse
import functools
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from attention_lab.alt_text import CAPTION_CLASS

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
SITE = ROOT / "site"                       # the committed configuration: _config.yml, _toc.yml, favicon
OUT = ROOT / "build" / "site"
FRONT = "index.md"                          # the students' front page: site/index.md, filled in by the build
GUIDE = "docs/teaching-guide.md"            # the teachers' page, a book of its own
TEACHERS = "teachers"                       # ... built into <out>/teachers/
# links from a student page to these become plain text: they are for teachers
TEACHERS_ONLY = (GUIDE, "solutions/")
MATHJAX_ENV = "ATTENTION_LAB_MATHJAX"       # a MathJax 3 package folder, instead of npm's global one
# what the site needs of the MathJax package: the TeX-to-HTML component and its fonts, the TeX extensions
# it loads on demand (\require, autoload), and what its menu's accessibility options load: the explorer
# and speech (a11y, sre), which read MathML (input/mml)
MATHJAX_PARTS = ("es5/tex-chtml.js", "es5/output/chtml/fonts/woff-v2", "es5/input/tex/extensions",
                 "es5/a11y", "es5/sre", "es5/input/mml.js", "es5/input/mml")
STATIC = "_site_static"                     # html_static_path in site/_config.yml: copied to _static/
EXPLORER_TAG = "nbval-ignore-output"        # only the cells that display a slider explorer carry it
# the caption of an explorer's still picture on the site, in place of the one JupyterLab shows (which points
# to the live explorer above it: the site has none)
STILL_NOTE = "This is a still picture of the explorer: its sliders work in JupyterLab or on Binder."

sys.path.insert(0, str(TOOLS))
import launch_links  # noqa: E402

CAPTION = re.compile(rf'(<figcaption class="{CAPTION_CLASS}"[^>]*>)[^<]*(</figcaption>)')


class MissingTool(RuntimeError):
    """Something the build needs is not installed; the message says how to install it."""


# -- what the build needs ------------------------------------------------------------------------------

@functools.cache
def npm_root() -> Path | None:
    """npm's global package folder (`npm root -g`), or None without npm; asked once per process."""
    npm = shutil.which("npm")
    if npm is None:
        return None
    got = subprocess.run([npm, "root", "-g"], capture_output=True, text=True)
    return Path(got.stdout.strip()) if got.returncode == 0 and got.stdout.strip() else None


def mathjax_folder() -> Path:
    """MathJax 3's package folder: $ATTENTION_LAB_MATHJAX, else npm's global one."""
    given = os.environ.get(MATHJAX_ENV)
    folder = Path(given) if given else (npm_root() or Path("(npm not found)")) / "mathjax"
    how = ("install it with `npm install -g mathjax@3` (as .ci/run does), or set "
           f"{MATHJAX_ENV} to a MathJax 3 package folder")
    package = folder / "package.json"
    if not package.exists() or not (folder / MATHJAX_PARTS[0]).exists():
        raise MissingTool(f"MathJax 3 not found at {folder}: {how}")
    version = json.loads(package.read_text(encoding="utf-8")).get("version", "")
    if not version.startswith("3."):
        raise MissingTool(f"{folder} holds MathJax {version}, not MathJax 3: {how}")
    return folder


def missing_reason() -> str | None:
    """Why the site cannot be built here (jupyter-book or MathJax missing), or None if it can."""
    try:
        import jupyter_book
    except ImportError:
        return "jupyter-book is not installed (pip install -r requirements.txt)"
    if not jupyter_book.__version__.startswith("1."):
        return f"jupyter-book {jupyter_book.__version__} is installed; the site needs 1.x (requirements.txt)"
    try:
        mathjax_folder()
    except MissingTool as exc:
        return str(exc)
    return None


def lessons() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def origin() -> str | None:
    """This clone's 'origin' remote, as tools/launch_links.py reads it, or None."""
    got = subprocess.run(["git", "remote", "get-url", "origin"], cwd=ROOT, capture_output=True, text=True)
    if got.returncode != 0 or not got.stdout.strip():
        return None
    return got.stdout.strip()


def usable(repo: str | None) -> bool:
    """A repository address the launch links can be made from (not a local path)."""
    try:
        return repo is not None and bool(launch_links.web_url(repo))
    except ValueError:
        return False


# -- the staged copy: the pages as the site shows them ------------------------------------------------

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")


def file_address(web: str | None, rel: str, branch: str, is_dir: bool) -> str | None:
    """The address of a repository file on its host's web pages (GitHub's and GitLab's forms), or None."""
    if web is None:
        return None
    kind = "tree" if is_dir else "blob"
    if web.startswith("https://github.com/"):
        return f"{web}/{kind}/{branch}/{rel}"
    if web.startswith("https://gitlab.com/"):
        return f"{web}/-/{kind}/{branch}/{rel}"
    return None


def rewrite_links(text: str, source: str, pages: set[str], web: str | None, branch: str,
                  stage: Path, withheld: tuple[str, ...] = ()) -> str:
    """Links of the markdown `text` (of the repository file `source`) as the site needs them: a link to a
    page of the book stays; a link to a file under `withheld` (for teachers, on a student page) becomes
    plain text; a link to another file of the repository points to the file's address in the repository
    where that is known, else becomes plain text; an image is copied into the staged copy."""

    def one(m: re.Match) -> str:
        bang, label, target = m.groups()
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|#|/", target):
            return m.group(0)                           # an address, an anchor on this page, or absolute
        path = target.split("#", 1)[0]
        rel = os.path.normpath(os.path.join(os.path.dirname(source), path)).replace(os.sep, "/")
        if rel.startswith("../") or not (ROOT / rel).exists():
            raise SystemExit(f"{source} links to {target}, which is not a file of the repository")
        if bang:
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, stage / rel)
            return m.group(0)
        if any(rel == w or (w.endswith("/") and (rel + "/").startswith(w)) for w in withheld):
            return label
        if rel in pages:
            return m.group(0)
        address = file_address(web, rel, branch, (ROOT / rel).is_dir())
        return f"[{label}]({address})" if address else label

    parts, last = [], 0
    for fence in FENCE.finditer(text):                  # no link is read inside a fenced code block
        parts += [LINK.sub(one, text[last:fence.start()]), fence.group(0)]
        last = fence.end()
    return "".join([*parts, LINK.sub(one, text[last:])])


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _shows_a_picture(cell: dict) -> bool:
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        html = data.get("text/html", "")
        if "image/png" in data or "<img" in (html if isinstance(html, str) else "".join(html)):
            return True
    return False


def recaption(cell: dict) -> bool:
    """Put the site's words (STILL_NOTE) in place of the caption of the still picture the cell shows, in
    its HTML and its plain text; False if the cell shows no captioned picture."""
    found = False
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        page = data.get("text/html", "")
        page = page if isinstance(page, str) else "".join(page)
        if CAPTION.search(page):
            data["text/html"] = CAPTION.sub(lambda m: m.group(1) + html.escape(STILL_NOTE) + m.group(2), page)
            data["text/plain"] = STILL_NOTE
            found = True
    return found


def stage_lesson(path: Path, dest: Path, pages: set[str], web: str | None, branch: str, stage: Path):
    """The lesson as the site shows it: each slider explorer's cell removed (a static page cannot run
    it), and its still picture, in the cell after it, captioned with the site's words; links made to work
    on the site."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    source = path.relative_to(ROOT).as_posix()
    cells = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            cell["source"] = rewrite_links(_source(cell), source, pages, web, branch, stage, TEACHERS_ONLY)
        cells.append(cell)
        if EXPLORER_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        after = nb["cells"][i + 1] if i + 1 < len(nb["cells"]) else None
        if after is None or after["cell_type"] != "code" or not _shows_a_picture(after):
            raise SystemExit(f"{source}: the explorer in cell {i} has no still picture in the cell after it "
                             "(each explorer cell is followed by the cell that shows its snapshot)")
        if not recaption(after):
            raise SystemExit(f"{source}: the still picture after the explorer in cell {i} has no caption "
                             "(show it with the explorer's snapshot(); re-run tools/run_notebooks.py)")
        cell["metadata"]["tags"] = [*cell["metadata"]["tags"], "remove-cell"]
    nb["cells"] = cells
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# -- the front page: what the course is, the lessons with their times, how to launch them -------------

# A lesson's time, for a student working through it alone: its text read at READING_WPM (technical text
# with formulas and numbers to check: slower than the 238 words a minute at which adults read non-fiction
# silently, Brysbaert 2019's meta-analysis), a minute per code cell (read it, run it, read what it
# prints), and its exercises. An exercise takes the minutes its label in the lesson gives ("about 5
# minutes · ★★"), where every exercise of the lesson has one (tests/test_guide_promises.py checks that
# every lesson's do); otherwise the allowance the teaching guide gave before the labels, 15 minutes for
# a lesson's four exercises and 5 for lesson 00's three: 15/4 and 5/3 minutes each.
READING_WPM = 150
MINUTES_PER_CODE_CELL = 1
EXERCISE_MINUTES = {"00": 5 / 3}            # per exercise, lesson by lesson; every other lesson: 15 / 4
DEFAULT_EXERCISE_MINUTES = 15 / 4
CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\d\d\.\d+)["']""")
LABEL = re.compile(r"about (\d+)(?:\s*[–-]\s*(\d+))? min(?:utes?)?\s*·\s*★")
LESSONS_MARK = "<!-- the lessons: written by tools/build_site.py -->"
LAUNCH_MARK = "<!-- how to launch: written by tools/build_site.py -->"


def lesson_facts(path: Path) -> dict:
    """What the front page says of a lesson: its title (its first heading), the words of its text, its
    code cells and exercises (each `check("NN.k", ...)` call), and its time in minutes (rounded to 5)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    markdown = [_source(c) for c in cells if c["cell_type"] == "markdown"]
    code = [_source(c) for c in cells if c["cell_type"] == "code"]
    title = next((m.group(1).strip() for text in markdown for m in [re.search(r"^# (.+)$", text, re.M)] if m),
                 None)
    if title is None:
        raise SystemExit(f"{path.name}: no '# ' title in its markdown cells")
    words = sum(len(text.split()) for text in markdown)
    exercises = sorted({ex for text in code for ex in CHECK_CALL.findall(text)})
    labels = [m.groups() for text in markdown for m in LABEL.finditer(text)]
    if exercises and len(labels) == len(exercises):
        exercise_minutes, labelled = sum((int(a) + int(b or a)) / 2 for a, b in labels), True
    else:
        number = path.name[:2]
        exercise_minutes = len(exercises) * EXERCISE_MINUTES.get(number, DEFAULT_EXERCISE_MINUTES)
        labelled = False
    total = words / READING_WPM + MINUTES_PER_CODE_CELL * len(code) + exercise_minutes
    return {"file": path.relative_to(ROOT).as_posix(), "title": title, "words": words,
            "code_cells": len(code), "exercises": len(exercises), "labelled": labelled,
            "exercise_minutes": exercise_minutes, "minutes": max(5, 5 * int(total / 5 + 0.5))}


def setup_command() -> str:
    """The README's command that installs the collection and opens it in JupyterLab (its first bash
    block under 'Set up and run')."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^## Set up and run.*?^```bash\n(.+?)\n```", readme, re.S | re.M)
    if found is None:
        raise SystemExit("README.md: no ```bash block under '## Set up and run' (the front page shows it)")
    return found.group(1).strip()


def _cell(text: str) -> str:
    return text.replace("|", r"\|")


def lessons_table(facts: list[dict], repo: str | None, hub: str | None, branch: str) -> str:
    """The front page's lessons: one row each, in order, with its time and (given an address) its links."""
    head = ["| Lesson | Time |", "|---|---|"]
    if repo:
        head = ["| Lesson | Time | Open it on |", "|---|---|---|"]
    rows = []
    for f in facts:
        row = f"| [{_cell(f['title'])}]({f['file']}) | about {f['minutes']} min |"
        if repo:
            links = lesson_links(repo, hub, branch, Path(f["file"]).name)
            # raw HTML: MyST writes a markdown link's `&` as `&amp;amp;` (MyST-Parser issue 760), which
            # would break the hub link's query
            row += " " + " · ".join(f'<a href="{html.escape(url)}">{name}</a>' for name, url in links.items())
            row += " |"
        rows.append(row)
    hours = sum(f["minutes"] for f in facts) / 60
    labelled = [f for f in facts if f["labelled"]]
    if len(labelled) == len(facts):
        exercises = "its exercises, each for the time its label gives"
    else:
        own = [f"lesson {f['title'][:2]}'s {f['exercises']} questions: about {f['exercise_minutes']:.0f} "
               "minutes in all" for f in facts if f["title"][:2] in EXERCISE_MINUTES and not f["labelled"]]
        exercises = (f"its exercises, about {DEFAULT_EXERCISE_MINUTES:.0f} minutes each"
                     + (f" ({'; '.join(own)})" if own else ""))
        if labelled:
            exercises += ", or the time each exercise's label gives where a lesson labels them"
    per_cell = "a minute" if MINUTES_PER_CODE_CELL == 1 else f"{MINUTES_PER_CODE_CELL} minutes"
    note = (f"A time is for working through the lesson on your own: reading its text at about "
            f"{READING_WPM} words a minute, {per_cell} for each code cell (read it, run it, read what it "
            f"prints), and {exercises}. All {len(facts)} lessons: about "
            f"{hours:.0f} hours.")
    return "\n".join([*head, *rows, "", note])


def launch_section(repo: str | None, hub: str | None, command: str) -> str:
    """How to start: in the browser (Binder, a JupyterHub) where the build was given an address, and on
    one's own computer always."""
    parts = ["The pages of this site show each lesson with what it printed when it was last run; its "
             "sliders move, and your own code runs, once you open the lesson in JupyterLab."]
    if repo:
        where = "on Binder"
        if hub:
            where += " or on your class's JupyterHub"
        parts.append(
            f"**In your browser, with nothing to install.** Open a lesson {where}: its links are in the "
            "table above and behind the rocket button at the top of every lesson page. JupyterLab opens the "
            "lesson with everything installed; run its cells with *Run › Run All Cells*, or one at a time "
            "with Shift+Enter. A Binder session is deleted when you leave it or leave it idle for some "
            "minutes, so download what you want to keep (*File › Download*)."
            + (" On the JupyterHub your copy and your edits stay." if hub else ""))
        web = launch_links.web_url(repo)
        fetch = f"git clone {web}\ncd {web.rstrip('/').rsplit('/', 1)[1]}\n"
        mine = "**On your own computer** (Python 3.10 or newer), in a terminal:"
    else:
        parts.append("**In your browser:** your teacher gives you the Binder or JupyterHub link that opens "
                     "the lessons in JupyterLab, with everything installed.")
        fetch = ""
        mine = ("**On your own computer** (Python 3.10 or newer): get a copy of the collection (your teacher "
                "says where), open a terminal in its folder and run:")
    parts += [mine, f"```bash\n{fetch}{command}\n```",
              "On Windows, write `.venv\\Scripts\\` where the command says `.venv/bin/`. JupyterLab opens "
              "lesson 00; the others are in the `notebooks` folder beside it. Lessons 08 and 09 fetch a "
              "98 MB language model file the first time they run."]
    return "\n\n".join(parts)


def front_page(repo: str | None, hub: str | None, branch: str) -> str:
    """site/index.md with the lessons and the ways to launch them written in."""
    text = (SITE / FRONT).read_text(encoding="utf-8")
    for mark in (LESSONS_MARK, LAUNCH_MARK):
        if text.count(mark) != 1:
            raise SystemExit(f"site/{FRONT} must hold the line {mark!r} once")
    facts = [lesson_facts(p) for p in lessons()]
    return (text.replace(LESSONS_MARK, lessons_table(facts, repo, hub, branch))
            .replace(LAUNCH_MARK, launch_section(repo, hub, setup_command())))


# -- the two books: staged, then built ------------------------------------------------------------------

def _common(dest: Path, mathjax: Path, config: dict) -> None:
    """What both books need: MathJax's copy, the site's stylesheet, the favicon, the configuration."""
    import yaml
    for part in MATHJAX_PARTS:
        src, to = mathjax / part, dest / STATIC / "mathjax" / Path(part).relative_to("es5")
        to.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, to)
    shutil.copy2(SITE / "site.css", dest / STATIC / "site.css")
    shutil.copy2(SITE / "favicon.svg", dest / "favicon.svg")
    (dest / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _config(repo: str | None, hub: str | None, branch: str) -> dict:
    import yaml
    config = yaml.safe_load((SITE / "_config.yml").read_text(encoding="utf-8"))
    config["sphinx"]["config"].update(launch_repo=repo or "", launch_hub=hub or "", launch_branch=branch)
    return config


def stage(dest: Path, repo: str | None, hub: str | None, branch: str, mathjax: Path) -> None:
    """The students' book: the front page, every lesson under its repository path, MathJax."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    web = launch_links.web_url(repo) if repo else None
    lesson_files = [p.relative_to(ROOT).as_posix() for p in lessons()]
    pages = {FRONT, *lesson_files}
    (dest / FRONT).write_text(front_page(repo, hub, branch), encoding="utf-8")
    for rel in lesson_files:
        stage_lesson(ROOT / rel, dest / rel, pages, web, branch, dest)
    _common(dest, mathjax, _config(repo, hub, branch))
    shutil.copy2(SITE / "_toc.yml", dest / "_toc.yml")


def stage_teachers(dest: Path, repo: str | None, branch: str, mathjax: Path) -> None:
    """The teachers' book: the teaching guide alone (its own menu and search), no launch buttons."""
    import yaml
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    web = launch_links.web_url(repo) if repo else None
    text = rewrite_links((ROOT / GUIDE).read_text(encoding="utf-8"), GUIDE, {GUIDE}, web, branch, dest)
    title, rest = text.split("\n", 1)
    back = "/".join([".."] * (GUIDE.count("/") + 1)) + "/index.html"   # from teachers/docs/ to the site
    text = (f"{title}\n\n*For teachers: no page of the students' site links here. The students' site starts "
            f'at <a href="{back}">its front page</a>.*\n{rest}')
    (dest / GUIDE).parent.mkdir(parents=True, exist_ok=True)
    (dest / GUIDE).write_text(text, encoding="utf-8")
    config = _config(None, None, branch)
    config["title"] = f"{config['title']}: for teachers"
    _common(dest, mathjax, config)
    toc = {"format": "jb-book", "root": GUIDE.removesuffix(".md")}
    (dest / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")


def _sphinx(src: Path, out: Path) -> None:
    from jupyter_book.sphinx import build_sphinx
    html = src / "_build" / "html"
    status = build_sphinx(src, html, noconfig=True, path_config=str(src / "_config.yml"),
                          confoverrides={"external_toc_path": (src / "_toc.yml").as_posix(),
                                         "latex_individualpages": False},
                          builder="html", freshenv=True, warningiserror=True, keep_going=True, quiet=True)
    if status != 0:
        raise SystemExit(f"the site was not built from {src}: Sphinx reported the warnings above")
    shutil.rmtree(out, ignore_errors=True)
    shutil.move(html, out)     # a rename where it can (both lie beside `out`): no second copy of MathJax


def build(out: Path = OUT, repo: str | None = None, hub: str | None = None, branch: str = "main") -> Path:
    """Stage the two books next to `out` (as <out>-src/ and <out>-teachers-src/) and build the students'
    site into `out`, the teachers' page into `out`/teachers/; returns `out`.
    Raises MissingTool where jupyter-book or MathJax is missing, SystemExit on a build warning."""
    reason = missing_reason()
    if reason:
        raise MissingTool(reason)
    mathjax = mathjax_folder()
    students, teachers = out.parent / f"{out.name}-src", out.parent / f"{out.name}-{TEACHERS}-src"
    stage(students, repo, hub, branch, mathjax)
    stage_teachers(teachers, repo, branch, mathjax)
    _sphinx(students, out)
    _sphinx(teachers, out / TEACHERS)
    return out


# -- the Sphinx extension: each lesson's launch buttons, the links of tools/launch_links.py -----------

def lesson_links(repo: str, hub: str | None, branch: str, lesson: str) -> dict[str, str]:
    """{'Binder': ..., 'JupyterHub': ...} for notebooks/<lesson>, exactly as launch_links writes them."""
    path = f"notebooks/{lesson}"
    links = {"Binder": launch_links.binder_link(repo, branch, path=path)}
    if hub:
        links["JupyterHub"] = launch_links.hub_link(repo, hub, branch, path=path)
    return links


def add_launch_buttons(app, pagename, templatename, context, doctree) -> None:
    """Sphinx's html-page-context: a lesson's page gets the theme's rocket menu with its launch links."""
    repo, hub, branch = app.config.launch_repo, app.config.launch_hub, app.config.launch_branch
    if not repo or not re.fullmatch(r"notebooks/\d\d-[^/]+", pagename):
        return
    links = lesson_links(repo, hub, branch, f"{pagename.split('/', 1)[1]}.ipynb")
    buttons = [{"type": "link", "text": name, "tooltip": f"Open this lesson on {name}", "url": url,
                "icon": f"_static/images/logo_{name.lower()}.svg"} for name, url in links.items()]
    context["header_buttons"].insert(0, {"type": "group", "tooltip": "Open this lesson in JupyterLab",
                                         "icon": "fas fa-rocket", "buttons": buttons,
                                         "label": "launch-buttons"})


def setup(app):
    app.add_config_value("launch_repo", "", "html")
    app.add_config_value("launch_hub", "", "html")
    app.add_config_value("launch_branch", "main", "html")
    app.connect("html-page-context", add_launch_buttons, priority=502)   # after the theme's buttons
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", help="repository address for the launch buttons (default: the "
                                                "'origin' remote, as tools/launch_links.py reads it)")
    parser.add_argument("--repo", dest="repo_option", metavar="REPO", help="the same, as an option")
    parser.add_argument("--hub", help="your JupyterHub's address, for a JupyterHub button beside Binder's")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default: {OUT})")
    args = parser.parse_args(argv)
    if args.repo and args.repo_option and args.repo != args.repo_option:
        parser.error("two different repository addresses: give one")
    given = args.repo or args.repo_option
    repo = given if given is not None else origin()
    if given is not None and not usable(repo):
        parser.error(f"cannot read {repo!r} as a repository address: expected https://host/owner/name "
                     "or git@host:owner/name.git")
    if not usable(repo):
        repo = None
        print("no launch buttons: this clone has no 'origin' remote with a web address; add them with "
              "--repo https://github.com/OWNER/REPO (and --hub https://YOUR-HUB). Without them the front "
              "page says how to run the lessons on one's own computer, and the lesson pages have no launch "
              "menu")
    elif not args.hub:
        print("no JupyterHub button: add one with --hub https://YOUR-HUB (the Binder button is there)")
    # jupyter-book's configuration imports jsonschema, which (where the optional rfc3987-syntax is installed,
    # as here) compiles that package's 38 grammars at import: 2-3 s of CPU for its 'iri' format checks.
    # Jupyter Book never runs them (its validator has no format checker): this process skips the import.
    sys.modules.setdefault("rfc3987_syntax", None)
    start = time.perf_counter()
    try:
        out = build(args.out.resolve(), repo, args.hub, args.branch)
    except MissingTool as exc:
        print(f"cannot build the site: {exc}", file=sys.stderr)
        return 1
    print(f"built the site in {time.perf_counter() - start:.1f} s: {out}/ (open {out / 'index.html'})")
    print(f"the teaching guide, linked from no student page: {out / TEACHERS / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
