"""A teacher's repository served over git's own smart HTTP, on loopback: what a forge serves to nbgitpuller.
Used by tests/test_hub_link.py and tools/class_load.py.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

from lab_session import copy_repository

GIT = ["git", "-c", "user.name=Teacher", "-c", "user.email=teacher@example.org",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]


def git(*args, cwd):
    """Run git as the teacher; its output."""
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def git_http_backend(projects: Path):
    """A WSGI app that hands each request to `git http-backend` (CGI): smart HTTP, as a forge serves it."""
    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        env = {k: v for k, v in environ.items() if isinstance(v, str) and (
            k.startswith("HTTP_") or k in ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING",
                                           "CONTENT_TYPE", "CONTENT_LENGTH", "REMOTE_ADDR"))}
        env |= {"GIT_PROJECT_ROOT": str(projects), "GIT_HTTP_EXPORT_ALL": "1", "PATH": os.environ["PATH"]}
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, blank, payload = out.partition(b"\r\n\r\n")   # CGI: headers, blank line, body
        if not blank:
            head, blank, payload = out.partition(b"\n\n")
        headers = [tuple(part.strip() for part in line.split(":", 1))
                   for line in head.decode("latin-1").splitlines() if ":" in line]
        status = next((v for k, v in headers if k.lower() == "status"), "200 OK")
        start_response(status, [(k, v) for k, v in headers if k.lower() != "status"])
        return [payload]
    return app


def teacher_repository(tmp: Path) -> tuple[Path, Path]:
    """The repository's files as they are now, committed as the teacher's working copy in `tmp`, and its
    bare clone in a projects folder to serve: (working copy, projects)."""
    teacher = tmp / "teacher"
    copy_repository(teacher)
    git("init", "-q", cwd=teacher)
    git("add", "-A", cwd=teacher)
    git("commit", "-q", "-m", "the collection", cwd=teacher)
    projects = tmp / "srv"
    projects.mkdir()
    git("clone", "-q", "--bare", str(teacher), str(projects / "attention"), cwd=tmp)
    git("remote", "add", "origin", str(projects / "attention"), cwd=teacher)
    return teacher, projects


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):   # no request log on stderr
        return


@contextlib.contextmanager
def serve(projects: Path):
    """Serve every bare repository in `projects` at http://127.0.0.1:PORT/<name>; yields that address base."""
    server = make_server("127.0.0.1", 0, git_http_backend(projects), handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
