"""The Binder and nbgitpuller links, checked against addresses written out by hand."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import launch_links as ll


@pytest.mark.parametrize("remote", ["git@github.com:alice/attention.git", "https://github.com/alice/attention",
                                    "https://github.com/alice/attention.git", "ssh://git@github.com/alice/attention"])
def test_remote_forms(remote):
    assert ll.web_url(remote) == "https://github.com/alice/attention"


def test_binder_link_github():
    assert ll.binder_link("git@github.com:alice/attention.git") == (
        "https://mybinder.org/v2/gh/alice/attention/main"
        "?urlpath=lab%2Ftree%2Fnotebooks%2F00-start-here.ipynb")


def test_binder_link_other_host():
    assert ll.binder_link("https://git.example.edu/course/attention", "spring") == (
        "https://mybinder.org/v2/git/https%3A%2F%2Fgit.example.edu%2Fcourse%2Fattention/spring"
        "?urlpath=lab%2Ftree%2Fnotebooks%2F00-start-here.ipynb")


def test_hub_link():
    assert ll.hub_link("https://github.com/alice/attention", "https://hub.uni.edu/") == (
        "https://hub.uni.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Falice%2Fattention"
        "&branch=main&urlpath=lab%2Ftree%2Fattention%2Fnotebooks%2F00-start-here.ipynb")


def test_links_that_open_one_lesson():
    """The course site's buttons: the same links, opening the page's own lesson."""
    lesson = "notebooks/03-many-heads.ipynb"
    assert ll.binder_link("https://github.com/alice/attention", path=lesson) == (
        "https://mybinder.org/v2/gh/alice/attention/main?urlpath=lab%2Ftree%2Fnotebooks%2F03-many-heads.ipynb")
    assert ll.hub_link("https://github.com/alice/attention", "https://hub.uni.edu", path=lesson) == (
        "https://hub.uni.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Falice%2Fattention"
        "&branch=main&urlpath=lab%2Ftree%2Fattention%2Fnotebooks%2F03-many-heads.ipynb")


def test_links_that_open_a_graded_release(capsys):
    """--open: the links open the release's copy at the top of the class branch, not the lesson in notebooks/
    (teacher's review 4, item 1: a lesson handed in scores 0)."""
    assert ll.main(["https://github.com/alice/attention", "--branch", "class-1", "--hub", "https://hub.uni.edu",
                    "--open", "week1/00-start-here.ipynb"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Binder:      https://mybinder.org/v2/gh/alice/attention/class-1"
        "?urlpath=lab%2Ftree%2Fweek1%2F00-start-here.ipynb",
        "JupyterHub:  https://hub.uni.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Falice"
        "%2Fattention&branch=class-1&urlpath=lab%2Ftree%2Fattention%2Fweek1%2F00-start-here.ipynb"]


def test_a_plain_http_server_keeps_its_scheme():
    assert ll.web_url("http://git.school.lan:8080/course/attention.git") == \
        "http://git.school.lan:8080/course/attention"


def test_bad_address():
    with pytest.raises(ValueError, match=r"cannot read 'not a url' as a repository address"):
        ll.web_url("not a url")
