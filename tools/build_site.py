"""Build the course website offline into build/site/ with Jupyter Book 1: build_site.py [REPO] [--hub HUB]."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
SITE = ROOT / "site"                       # the committed configuration: _config.yml, _toc.yml, favicon
OUT = ROOT / "build" / "site"
PAGES = ("README.md", "docs/teaching-guide.md")   # the book's pages besides the lessons
MATHJAX_ENV = "ATTENTION_LAB_MATHJAX"       # a MathJax 3 package folder, instead of npm's global one
# what the site needs of the MathJax package: the TeX-to-HTML component and its fonts, the TeX extensions
# it loads on demand (\require, autoload), and what its menu's accessibility options load: the explorer
# and speech (a11y, sre), which read MathML (input/mml)
MATHJAX_PARTS = ("es5/tex-chtml.js", "es5/output/chtml/fonts/woff-v2", "es5/input/tex/extensions",
                 "es5/a11y", "es5/sre", "es5/input/mml.js", "es5/input/mml")
STATIC = "_site_static"                     # html_static_path in site/_config.yml: copied to _static/
EXPLORER_TAG = "nbval-ignore-output"        # only the cells that display a slider explorer carry it
STILL_NOTE = "*This is a still picture of the explorer: its sliders work in JupyterLab or on Binder.*"

sys.path.insert(0, str(TOOLS))
import launch_links  # noqa: E402


class MissingTool(RuntimeError):
    """Something the build needs is not installed; the message says how to install it."""


# -- what the build needs ------------------------------------------------------------------------------

def npm_root() -> Path | None:
    """npm's global package folder (`npm root -g`), or None without npm."""
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
                  stage: Path) -> str:
    """Links of the markdown `text` (of the repository file `source`) as the site needs them: a link to a
    page of the book stays; a link to another file of the repository points to the file's address in the
    repository where that is known, else becomes plain text; an image is copied into the staged copy."""

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


def stage_lesson(path: Path, dest: Path, pages: set[str], web: str | None, branch: str, stage: Path):
    """The lesson as the site shows it: each slider explorer's cell removed (a static page cannot run
    it) and a line put above its still picture, the cell after it; links made to work on the site."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    source = path.relative_to(ROOT).as_posix()
    cells = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            cell["source"] = rewrite_links(_source(cell), source, pages, web, branch, stage)
        cells.append(cell)
        if EXPLORER_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        after = nb["cells"][i + 1] if i + 1 < len(nb["cells"]) else None
        if after is None or after["cell_type"] != "code" or not _shows_a_picture(after):
            raise SystemExit(f"{source}: the explorer in cell {i} has no still picture in the cell after it "
                             "(each explorer cell is followed by the cell that shows its snapshot)")
        cell["metadata"]["tags"] = [*cell["metadata"]["tags"], "remove-cell"]
        cells.append({"cell_type": "markdown", "id": f"site-still-{i}", "metadata": {},
                      "source": STILL_NOTE})
    nb["cells"] = cells
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def stage(dest: Path, repo: str | None, hub: str | None, branch: str, mathjax: Path) -> None:
    """The book's source folder: the pages under their repository paths, the configuration, MathJax."""
    import yaml
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    web = launch_links.web_url(repo) if repo else None
    lesson_files = [p.relative_to(ROOT).as_posix() for p in lessons()]
    pages = {*PAGES, *lesson_files}
    for page in PAGES:
        text = rewrite_links((ROOT / page).read_text(encoding="utf-8"), page, pages, web, branch, dest)
        (dest / page).parent.mkdir(parents=True, exist_ok=True)
        (dest / page).write_text(text, encoding="utf-8")
    for rel in lesson_files:
        stage_lesson(ROOT / rel, dest / rel, pages, web, branch, dest)
    for part in MATHJAX_PARTS:
        src, to = mathjax / part, dest / STATIC / "mathjax" / Path(part).relative_to("es5")
        to.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, to)
    config = yaml.safe_load((SITE / "_config.yml").read_text(encoding="utf-8"))
    config["sphinx"]["config"].update(launch_repo=repo or "", launch_hub=hub or "", launch_branch=branch)
    (dest / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    for name in ("_toc.yml", "favicon.svg"):
        shutil.copy2(SITE / name, dest / name)


def build(out: Path = OUT, repo: str | None = None, hub: str | None = None, branch: str = "main") -> Path:
    """Stage the pages next to `out` (as <out>-src/) and build the site into `out`; returns `out`.
    Raises MissingTool where jupyter-book or MathJax is missing, SystemExit on a build warning."""
    reason = missing_reason()
    if reason:
        raise MissingTool(reason)
    from jupyter_book.sphinx import build_sphinx
    src = out.parent / f"{out.name}-src"
    stage(src, repo, hub, branch, mathjax_folder())
    html = src / "_build" / "html"
    status = build_sphinx(src, html, noconfig=True, path_config=str(src / "_config.yml"),
                          confoverrides={"external_toc_path": (src / "_toc.yml").as_posix(),
                                         "latex_individualpages": False},
                          builder="html", freshenv=True, warningiserror=True, keep_going=True, quiet=True)
    if status != 0:
        raise SystemExit("the site was not built: Sphinx reported the warnings above")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html, out)
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
              "--repo https://github.com/OWNER/REPO (and --hub https://YOUR-HUB)")
    elif not args.hub:
        print("no JupyterHub button: add one with --hub https://YOUR-HUB (the Binder button is there)")
    start = time.perf_counter()
    try:
        out = build(args.out.resolve(), repo, args.hub, args.branch)
    except MissingTool as exc:
        print(f"cannot build the site: {exc}", file=sys.stderr)
        return 1
    print(f"built the site in {time.perf_counter() - start:.1f} s: {out}/ (open {out / 'index.html'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
