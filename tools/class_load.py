"""A class on one machine: a real JupyterHub on loopback, N students, each running lessons cell by cell.

    python tools/class_load.py --students 4 [--lessons 00 08] [--json build/class-load.json]

- The hub: JupyterHub with configurable-http-proxy (npm), the dummy authenticator, SimpleLocalProcessSpawner
  with one home folder per student; the single-user servers run this Python (nbgitpuller included).
- The teacher's repository (the working tree as it is now) is served over git's smart HTTP on loopback.
- Each student, at once: signed in through the hub's REST API, its server started, then the nbgitpuller link
  that `tools/launch_links.py --hub` prints is followed (its page, then the pull it starts), and each lesson
  runs cell by cell through the kernel websocket of a notebook session, as JupyterLab in a browser does.
- Reported, per student and in total: time to a running server, time per lesson, errors, the outputs
  compared with the lessons' stored outputs (text: prints and results; a lost or mixed-up output shows as a
  difference), and the peak memory (RSS) of the hub's whole process tree, sampled every half second.
- It stops by itself and leaves no process behind (the hub runs in its own process group).

Not a test: timings depend on the machine (tests/test_class_load.py runs 3 students and asserts no error
and identical outputs, never a time).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab_session
import launch_links
from git_server import serve, teacher_repository

ROOT = Path(__file__).resolve().parents[1]
PROXY = shutil.which("configurable-http-proxy")
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")      # as tools/nbval-sanitize.cfg: memory addresses vary


def missing_reason() -> str | None:
    """Why a hub cannot run here, or None."""
    if PROXY is None:
        return ("configurable-http-proxy is not installed (npm install -g configurable-http-proxy; "
                ".ci/run does it)")
    try:
        import jupyterhub  # noqa: F401
        import nbgitpuller  # noqa: F401
        import tornado.websocket  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -r requirements.txt)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------- the processes and their memory
def process_tree(root: int) -> list[int]:
    """`root` and every process below it."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):      # a process that ended while we looked
            continue
        parents.setdefault(ppid, []).append(int(stat.parent.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += parents.get(pid, [])
    return tree


def memory_mb(pids: list[int]) -> tuple[float, float]:
    """The summed RSS and PSS of some processes, in MB. RSS counts a page shared by k processes k times
    (the model's mapped weights, the libraries); PSS counts 1/k in each: its sum is what the machine holds."""
    rss = pss = 0
    for pid in pids:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
            fields = dict(line.split(":", 1) for line in rollup)
            rss += int(fields["Rss"].split()[0])
            pss += int(fields["Pss"].split()[0])
        except (OSError, KeyError, ValueError):        # ended, or a process without memory of its own
            continue
    return rss / 1024, pss / 1024


class Sampler(threading.Thread):
    """The peaks of the summed RSS and PSS of a process tree, sampled every half second."""

    def __init__(self, root: int):
        super().__init__(daemon=True)
        self.root, self.peak, self.peak_pss, self.most_processes = root, 0.0, 0.0, 0
        self.seen: dict[int, str] = {}   # every server and kernel (pid: start time); they run in own sessions
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(0.5):
            tree = process_tree(self.root)
            self.seen.update({pid: started(pid) for pid in tree if pid not in self.seen})
            rss, pss = memory_mb(tree)
            self.peak, self.peak_pss = max(self.peak, rss), max(self.peak_pss, pss)
            self.most_processes = max(self.most_processes, len(tree))


def hub_config(tmp: Path, port: int, token: str, cache: str, timeout: int = 300) -> Path:
    """jupyterhub_config.py for a class on loopback."""
    homes = tmp / "homes"
    homes.mkdir()
    env = {"ATTENTION_LAB_CACHE": cache, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "JUPYTER_CONFIG_DIR": str(tmp / "jupyter-config")}
    if os.environ.get("ATTENTION_LAB_RUN_MEMO"):   # in the test suite: the students' kernels share the run's
        env["ATTENTION_LAB_RUN_MEMO"] = os.environ["ATTENTION_LAB_RUN_MEMO"]   # model results (run_memo.py)
    text = f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.command = [{PROXY!r}]
c.JupyterHub.db_url = "sqlite:///{tmp / 'hub.sqlite'}"
c.JupyterHub.cookie_secret_file = "{tmp / 'cookie_secret'}"
c.JupyterHub.pid_file = "{tmp / 'hub.pid'}"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{homes}/{{username}}"
c.Spawner.cmd = [{str(Path(sys.executable).parent / 'jupyterhub-singleuser')!r}]
c.Spawner.args = ["--LabApp.app_settings_dir={ROOT / 'binder' / 'lab-settings'}",
                  "--ServerApp.allow_root=True", {lab_session.NO_NBGRADER_SERVER!r}]
c.Spawner.environment = {env!r}
c.Spawner.start_timeout = {timeout}
c.Spawner.http_timeout = {timeout}
c.JupyterHub.services = [{{"name": "class-load", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "class-load", "services": ["class-load"],
                            "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}}]
c.JupyterHub.cleanup_servers = True
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}   # the API answers at once; we poll readiness
"""
    path = tmp / "jupyterhub_config.py"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------- one student
class Hub:
    def __init__(self, base: str, token: str):
        from tornado.httpclient import AsyncHTTPClient
        AsyncHTTPClient.configure(None, max_clients=64)
        self.base, self.token, self.client = base, token, AsyncHTTPClient()

    async def api(self, method: str, path: str, body=None, token: str | None = None, timeout: float = 300):
        from tornado.httpclient import HTTPRequest
        request = HTTPRequest(self.base + path, method=method, headers={
            "Authorization": f"token {token or self.token}"}, request_timeout=timeout,
            body=json.dumps(body or {}) if method in ("POST", "PUT", "PATCH") else None,
            follow_redirects=False)
        response = await self.client.fetch(request, raise_error=False)
        if response.code >= 400:
            raise RuntimeError(f"{method} {path}: HTTP {response.code} {response.body[:300]!r}")
        return json.loads(response.body) if response.body and response.body[:1] in b"[{" else response.body


def stored_text(cell) -> list[str]:
    """What a cell's stored outputs say in text: prints and results (images and widgets aside)."""
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append(o["name"] + ":" + o["text"])
        elif (o.get("output_type") in ("execute_result", "display_data") and "text/plain" in o.get("data", {})
              and not any(k.startswith("application/vnd.jupyter.widget") for k in o["data"])):
            out.append("result:" + o["data"]["text/plain"])
        elif o.get("output_type") == "error":
            out.append(f"error:{o['ename']}")
    joined: list[str] = []                   # consecutive prints to one stream are one output
    for text in out:
        if joined and text.split(":", 1)[0] in ("stdout", "stderr") and joined[-1].split(":", 1)[0] == \
                text.split(":", 1)[0]:
            joined[-1] += text.split(":", 1)[1]
        else:
            joined.append(text)
    return [ADDRESS.sub("0xADDRESS", t) for t in joined]


async def run_lesson(hub: Hub, user: str, token: str, path: str) -> dict:
    """One lesson, cell by cell, through a notebook session's kernel websocket; its outputs as text."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    session = await hub.api("POST", f"/user/{user}/api/sessions", token=token,
                            body={"path": path, "type": "notebook", "name": Path(path).name,
                                  "kernel": {"name": "python3"}})
    kernel, session_id = session["kernel"]["id"], uuid.uuid4().hex
    ws_url = (hub.base.replace("http", "ws", 1)
              + f"/user/{user}/api/kernels/{kernel}/channels?session_id={session_id}")
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}),
                                 max_message_size=512 * 2**20)
    lesson = nbformat.read(ROOT / path.split("/", 1)[1], as_version=4)
    start, mismatches, errors = time.perf_counter(), [], []
    try:
        for cell in lesson.cells:
            if cell.cell_type != "code":
                continue
            msg_id = uuid.uuid4().hex
            await ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "username": user, "session": session_id,
                           "msg_type": "execute_request", "version": "5.3",
                           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": cell.source, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
            outputs, idle, replied = [], False, False
            while not (idle and replied):
                raw = await asyncio.wait_for(ws.read_message(), timeout=900)
                if raw is None:
                    raise RuntimeError(f"{user}: the kernel websocket closed during {path}")
                if isinstance(raw, bytes):                  # a binary message (widget buffers): not ours
                    continue
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "status" and content["execution_state"] == "idle":
                    idle = True
                elif kind == "execute_reply":
                    replied = True
                elif kind in ("stream", "execute_result", "display_data", "error"):
                    outputs.append({"output_type": kind, **content})
            shown = stored_text({"outputs": outputs})
            if any(o["output_type"] == "error" for o in outputs):
                errors.append(f"{path} cell {cell.get('id')}: "
                              f"{next(o for o in outputs if o['output_type'] == 'error')['ename']}")
                break
            ignore = "nbval-ignore-output" in cell.metadata.get("tags", [])
            if not ignore and shown != stored_text(cell):
                mismatches.append(f"{path} cell {cell.get('id')}")
    finally:
        ws.close()
        await hub.api("DELETE", f"/user/{user}/api/sessions/{session['id']}", token=token)
    return {"lesson": Path(path).name[:2], "seconds": time.perf_counter() - start, "errors": errors,
            "mismatches": mismatches}


async def student(hub: Hub, user: str, repo: str, lessons: list[str]) -> dict:
    """Sign in, start the server, follow the hub link, run the lessons."""
    result: dict = {"student": user, "errors": [], "mismatches": [], "lessons": {}}
    try:
        await hub.api("POST", f"/hub/api/users/{user}")
        token = (await hub.api("POST", f"/hub/api/users/{user}/tokens", body={"note": "class load"}))["token"]
        start = time.perf_counter()
        await hub.api("POST", f"/hub/api/users/{user}/server")
        while True:
            model = await hub.api("GET", f"/hub/api/users/{user}")
            server = model.get("servers", {}).get("", {})
            if server.get("ready"):
                break
            if not model.get("pending") and not server:
                raise RuntimeError(f"{user}: the server stopped while starting")
            await asyncio.sleep(0.5)
        result["server_s"] = time.perf_counter() - start
        # the link exactly as tools/launch_links.py prints it; the hub's user-redirect sends this student to
        # /user/<name>/, where nbgitpuller's page starts the pull its script would start
        link = launch_links.hub_link(repo, hub.base)
        here = link.replace("/hub/user-redirect/", f"/user/{user}/", 1)
        page = await hub.api("GET", urlsplit(here).path + "?" + urlsplit(here).query, token=token)
        if b"git-pull" not in page and b"nbgitpuller" not in page.lower():
            raise RuntimeError(f"{user}: the hub link did not show nbgitpuller's page")
        query = parse_qs(urlsplit(here).query)
        pull = await hub.api("GET", f"/user/{user}/git-pull/api?" + urlencode(
            {"repo": query["repo"][0], "branch": query["branch"][0]}), token=token)   # as its page's script
        if b'"phase": "finished"' not in pull:
            raise RuntimeError(f"{user}: the pull did not finish: {pull[-300:]!r}")
        folder = query["urlpath"][0].split("/")[2]               # lab/tree/<folder>/notebooks/...
        start = time.perf_counter()
        for name in lessons:
            run = await run_lesson(hub, user, token, f"{folder}/notebooks/{name}")
            result["lessons"][run["lesson"]] = run["seconds"]
            result["errors"] += run["errors"]
            result["mismatches"] += run["mismatches"]
        result["all_lessons_s"] = time.perf_counter() - start
        await hub.api("DELETE", f"/hub/api/users/{user}/server")
    except Exception as exc:                 # one student's failure is reported, the others go on
        result["errors"].append(f"{type(exc).__name__}: {exc}")
    return result


# ---------------------------------------------------------------------------- the class
def started(pid: int) -> str:
    """When a process started (ticks since boot): with its pid, it names one process, never a later one."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def alive(pid: int, start: str) -> bool:
    """The process `pid` that started at `start` still runs (not a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z" and fields[19] == start


def stop_everything(proc: subprocess.Popen, seen: dict[int, str]) -> list[int]:
    """Stop the hub (it stops the servers, which stop their kernels), then anything of the class that is
    still there: servers and kernels run in sessions of their own, outside the hub's process group.
    Returns what had to be killed."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 1.0        # a second for the rest to end by themselves, not waited out
    while time.monotonic() < deadline and any(
            pid != proc.pid and alive(pid, start) for pid, start in seen.items()):
        time.sleep(0.05)
    stragglers = [pid for pid, start in seen.items() if pid != proc.pid and alive(pid, start)]
    for pid in stragglers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return stragglers


def run_class(students: int, lessons: list[str]) -> dict:
    reason = missing_reason()
    if reason:
        raise SystemExit(reason)
    names = [p.name for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")) if p.name[:2] in lessons]
    from attention_lab.real_model import cache_folder
    with tempfile.TemporaryDirectory(prefix="class-load-") as tmp_name:
        tmp = Path(tmp_name)
        _, projects = teacher_repository(tmp)   # the working tree, committed
        port, token = free_port(), secrets.token_hex(16)
        config = hub_config(tmp, port, token, str(cache_folder()),
                            int(os.environ.get("CLASS_LOAD_TIMEOUT", 300)))
        log = open(tmp / "hub.log", "w")      # closed below
        hub_proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", str(config)],
                                    cwd=tmp, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        sampler = Sampler(hub_proc.pid)
        sampler.start()
        try:
            base = f"http://127.0.0.1:{port}"
            hub = Hub(base, token)
            deadline = time.monotonic() + 120
            while True:
                try:
                    asyncio.run(hub.api("GET", "/hub/api/", timeout=5))
                    break
                except Exception as exc:      # not up yet (connection refused, 503 from the proxy)
                    if hub_proc.poll() is not None or time.monotonic() > deadline:
                        log.flush()
                        raise RuntimeError("the hub did not start:\n"
                                           + (tmp / "hub.log").read_text()[-3000:]) from exc
                    time.sleep(0.5)
            with serve(projects) as address:
                start = time.perf_counter()

                async def everyone():
                    return await asyncio.gather(*(student(Hub(base, token), f"student{i + 1}",
                                                          f"{address}/attention", names)
                                                  for i in range(students)))

                results = asyncio.run(everyone())
                wall = time.perf_counter() - start
        finally:
            sampler.stop.set()
            sampler.join()
            left = stop_everything(hub_proc, sampler.seen)
            log.close()
        failed = any(r["errors"] for r in results)
        (ROOT / "build").mkdir(exist_ok=True)
        shutil.copy(tmp / "hub.log", ROOT / "build" / "class-load-hub.log")   # the whole log, to read later
        hub_log = (tmp / "hub.log").read_text(errors="replace").splitlines()[-40:] if failed else []
        return {"students": students, "lessons": [n[:2] for n in names], "results": results, "wall_s": wall,
                "peak_mb": sampler.peak, "peak_pss_mb": sampler.peak_pss,
                "most_processes": sampler.most_processes, "left_behind": left, "cores": os.cpu_count(),
                "hub_log": hub_log}


def report(run: dict) -> str:
    lines = [f"{run['students']} students, lessons {' '.join(run['lessons'])}, {run['cores']} cores:"]
    lines.append("| student | server (s) | " + " | ".join(f"lesson {n} (s)" for n in run["lessons"])
                 + " | errors | differences |")
    lines.append("|---" * (4 + len(run["lessons"])) + "|")
    for r in run["results"]:
        per = " | ".join(f"{r['lessons'].get(n, float('nan')):.1f}" for n in run["lessons"])
        lines.append(f"| {r['student']} | {r.get('server_s', float('nan')):.1f} | {per} | "
                     f"{len(r['errors'])} | {len(r['mismatches'])} |")
    for n in run["lessons"]:
        times = [r["lessons"][n] for r in run["results"] if n in r["lessons"]]
        if times:
            lines.append(f"lesson {n}: median {statistics.median(times):.1f} s per student "
                         f"({min(times):.1f} to {max(times):.1f})")
    servers = [r["server_s"] for r in run["results"] if "server_s" in r]
    if servers:
        lines.append(f"time to a running server: median {statistics.median(servers):.1f} s")
    errors = [e for r in run["results"] for e in r["errors"]]
    diffs = [d for r in run["results"] for d in r["mismatches"]]
    lines.append(f"errors: {len(errors)}; outputs unlike the stored ones: {len(diffs)}; "
                 f"peak memory of the hub's process tree: {run['peak_mb']:.0f} MB RSS, "
                 f"{run['peak_pss_mb']:.0f} MB PSS ({run['peak_pss_mb'] / run['students']:.0f} MB PSS per "
                 f"student, {run['most_processes']} processes); "
                 f"whole run {run['wall_s']:.0f} s; processes left behind: {len(run['left_behind'])}")
    lines += [f"  {e}" for e in errors[:10]] + [f"  differs: {d}" for d in diffs[:10]]
    lines += ["the hub's log, last lines:", *run["hub_log"]] if run["hub_log"] else []
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--lessons", nargs="*", default=["00", "08"])
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)

    def stop(signum, frame):                  # a SIGTERM stops the class the way Ctrl-C does: hub and all
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    run = run_class(args.students, args.lessons)
    print(report(run))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(run, indent=1))
    bad = any(r["errors"] or r["mismatches"] for r in run["results"]) or run["left_behind"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
