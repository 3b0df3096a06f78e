"""Print the links that open the collection: a Binder link and a JupyterHub (nbgitpuller) link.

    python tools/launch_links.py                               # from this clone's 'origin' remote
    python tools/launch_links.py https://github.com/OWNER/REPO --hub https://hub.example.edu
    python tools/launch_links.py URL --branch class-1 --open week1/00-start-here.ipynb   # a graded release

Both open JupyterLab on notebooks/00-start-here.ipynb (--open: another file of the branch). nbgitpuller
clones the repository into a folder named after it in the student's home, and on later clicks merges
updates while keeping the student's own changes. It installs nothing: where the hub lacks attention_lab,
each lesson's first cell installs it from that folder (notebooks/install_here.py).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from urllib.parse import quote

START = "notebooks/00-start-here.ipynb"


def web_url(remote: str) -> str:
    """git@host:owner/name.git or https://host/owner/name(.git) -> https://host/owner/name.
    An http:// address (a git server on the school's own network) keeps its scheme."""
    remote = remote.strip()
    m = re.fullmatch(r"git@([^:]+):(.+?)(\.git)?/?", remote) or re.fullmatch(
        r"(?:https?|ssh|git)://(?:[^@/]+@)?([^/]+)/(.+?)(\.git)?/?", remote)
    if not m:
        raise ValueError(f"cannot read {remote!r} as a repository address: expected "
                         "https://host/owner/name or git@host:owner/name.git")
    scheme = "http" if remote.startswith("http://") else "https"
    return f"{scheme}://{m.group(1)}/{m.group(2)}"


def binder_link(repo: str, branch: str = "main", path: str = START) -> str:
    """Binder, opening JupyterLab on `path` (a file of the repository; the start lesson by default)."""
    url = web_url(repo)
    gh = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+)", url)
    spec = f"gh/{gh.group(1)}/{gh.group(2)}" if gh else f"git/{quote(url, safe='')}"
    return f"https://mybinder.org/v2/{spec}/{branch}?urlpath={quote('lab/tree/' + path, safe='')}"


def hub_link(repo: str, hub: str, branch: str = "main", path: str = START) -> str:
    """The hub's nbgitpuller link, opening JupyterLab on `path` (the start lesson by default)."""
    url = web_url(repo)
    folder = url.rstrip("/").rsplit("/", 1)[-1]
    return (f"{hub.rstrip('/')}/hub/user-redirect/git-pull?repo={quote(url, safe='')}"
            f"&branch={quote(branch, safe='')}"
            f"&urlpath={quote(f'lab/tree/{folder}/{path}', safe='')}")


def badge(repo: str, branch: str = "main") -> str:
    return (f"[![Launch on Binder](https://mybinder.org/badge_logo.svg)]"
            f"({binder_link(repo, branch)})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", help="repository address (default: the 'origin' remote)")
    parser.add_argument("--hub", default="https://YOUR-HUB", help="your JupyterHub's address")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--open", default=START, metavar="PATH",
                        help=f"the file the links open, from the repository's top (default: {START}); "
                             "for a graded class, the release's copy, e.g. week1/00-start-here.ipynb")
    args = parser.parse_args(argv)
    repo = args.repo
    if repo is None:
        got = subprocess.run(["git", "remote", "get-url", "origin"], capture_output=True, text=True)
        if got.returncode != 0:
            print("no 'origin' remote here: pass the repository address, e.g. "
                  "python tools/launch_links.py https://github.com/OWNER/REPO", file=sys.stderr)
            return 2
        repo = got.stdout.strip()
    print("Binder:     ", binder_link(repo, args.branch, args.open))
    print("JupyterHub: ", hub_link(repo, args.hub, args.branch, args.open))
    if args.open == START:
        print("README badge:", badge(repo, args.branch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
