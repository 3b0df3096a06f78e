"""tools/suite_time.py, the benchmark of the README's test command: its per-file table and its timeline,
read from a JUnit report written here by hand."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import suite_time  # noqa: E402

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase file="tests/test_a.py" name="one" time="2.0"><properties>
  <property name="cpu_s" value="1.5"/>
  <property name="start_s" value="1000.0"/><property name="worker" value="gw0"/>
</properties></testcase>
<testcase file="tests/test_a.py" name="two" time="3.0"><properties>
  <property name="cpu_s" value="2.5"/>
  <property name="start_s" value="1002.0"/><property name="worker" value="gw0"/>
</properties></testcase>
<testcase file="tests/test_b.py" name="three" time="10.0"><properties>
  <property name="cpu_s" value="4.0"/>
  <property name="start_s" value="1001.0"/><property name="worker" value="gw1"/>
</properties><failure message="x"/></testcase>
<testcase file="tests/test_c.py" name="four" time="1.0"><properties>
  <property name="start_s" value="1005.0"/><property name="worker" value="gw0"/>
</properties></testcase>
</testsuite></testsuites>
"""


def test_the_table_adds_up_each_file_slowest_first(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(REPORT, encoding="utf-8")
    rows = suite_time.table(report)
    assert [r[0] for r in rows] == ["tests/test_b.py", "tests/test_a.py", "tests/test_c.py"]
    assert rows[1][1:] == (5.0, 4.0, 2, "two", 3.0, 0)           # worker s, CPU s, tests, slowest, failed
    assert rows[0][-1] == 1 and rows[2][2] is None                # b failed; c has no CPU figure


def test_the_timeline_joins_a_files_tests_on_one_worker(tmp_path, capsys):
    report = tmp_path / "r.xml"
    report.write_text(REPORT, encoding="utf-8")
    stretches = suite_time.timeline(report)
    assert stretches == [("gw0", "tests/test_a.py", 0.0, 5.0), ("gw0", "tests/test_c.py", 5.0, 6.0),
                         ("gw1", "tests/test_b.py", 1.0, 11.0)]
    suite_time.show_timeline(stretches, 6)
    shown = capsys.readouterr().out.splitlines()
    assert shown[1] == "the last 6 s of the run (of 11 s from the first test), by worker:"
    assert shown[2:] == ["  gw0: idle from 6 s; test_c.py 5-6", "  gw1: idle from 11 s; test_b.py 1-11"]


def test_the_order_file_is_written_slowest_first_and_read_back(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(REPORT.replace('time="10.0"', 'time="60.0"').replace('time="3.0"', 'time="4.0"'),
                      encoding="utf-8")
    rows = suite_time.table(report)                  # b 60 s, a 6 s, c 1 s
    order = tmp_path / "order.txt"
    order.write_text(suite_time.order_text(rows), encoding="utf-8")
    text = order.read_text(encoding="utf-8")
    assert text.startswith("# ") and text.endswith("tests/test_b.py  60\ntests/test_a.py  6\n")
    assert suite_time.longest_first(order) == {"tests/test_b.py": 0, "tests/test_a.py": 1}   # c: under 5 s
    order.write_text("# a comment\n\n", encoding="utf-8")
    assert suite_time.unlisted(rows, order) == ["tests/test_b.py"]          # long, and started late; a: 6 s
    assert suite_time.longest_first(tmp_path / "none.txt") == {}


def test_every_file_the_order_names_exists():
    """A renamed or removed test file would fall out of the order unnoticed: the list names real files."""
    listed = suite_time.longest_first()
    assert len(listed) >= 10
    assert [name for name in listed if not (ROOT / name).is_file()] == []


OTHER = "other (git, pip, the site's build, ...)"
PY = "/work/.venv/bin/python"


def test_each_process_of_a_run_has_its_kind():
    kinds = {
        ("/usr/bin/chromium", "--type=renderer", "--no-sandbox"): "Chromium (browser tests)",
        (PY, "-m", "ipykernel_launcher", "-f", "kernel-1.json"): "kernels",
        ("node", "/usr/lib/node_modules/configurable-http-proxy/bin/proxy.js"): "the hub's proxy",
        (PY, "/work/.venv/bin/jupyter-lab", "--no-browser"): "Jupyter servers and hubs",
        (PY, "-m", "jupyterhub", "-f", "hub.py"): "Jupyter servers and hubs",
        (PY, "/work/.venv/bin/jupyterhub-singleuser"): "Jupyter servers and hubs",
        ("/venv/site-packages/playwright/driver/node", "run-driver"): "Playwright's driver",
        (PY, "-c", "import sys;exec(eval(sys.stdin.readline()))"): "pytest workers",
        (PY, "-m", "pytest", "--nbval", "l.ipynb"): "pytest (this run, or one a test runs)",
        ("git", "clone", "-q", "http://127.0.0.1/attention.git"): OTHER,
        (): OTHER,
    }
    for cmdline, kind in kinds.items():
        assert suite_time.process_kind(list(cmdline)) == kind, cmdline


def test_the_samples_count_each_process_of_the_tree_by_its_kind(tmp_path):
    """A run of two processes, the child's command line a kernel's: the samples give each its own CPU seconds
    (read by the processes themselves, with time.process_time). Each rests half a second after its work, so
    that a sample falls after it even on a busy machine."""
    script = tmp_path / "spin.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "def spin(seconds):\n"
        "    end = time.process_time() + seconds\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "if sys.argv[1:] != ['ipykernel']:\n"
        "    child = subprocess.Popen([sys.executable, __file__, 'ipykernel'], stdout=subprocess.PIPE,\n"
        "                             text=True)\n"
        "    spin(0.6)\n"
        "    used = time.process_time()\n"
        "    time.sleep(0.5)\n"
        "    print(used, child.communicate()[0].strip())\n"
        "else:\n"
        "    spin(0.8)\n"
        "    print(time.process_time())\n"
        "    time.sleep(0.5)\n", encoding="utf-8")
    run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    by_kind = suite_time.sample_tree(run, every=0.05)
    parent_s, child_s = map(float, run.stdout.read().split())
    run.stdout.close()
    assert child_s >= 0.8 and parent_s >= 0.6
    assert set(by_kind) == {"kernels", OTHER}
    assert child_s - 0.05 <= by_kind["kernels"] <= child_s + 0.05
    assert parent_s - 0.05 <= by_kind[OTHER] <= parent_s + 0.1     # and the CPU of its last lines


def test_stolen_seconds_reads_the_steal_column_of_proc_stat(tmp_path):
    import os
    stat = tmp_path / "stat"
    stat.write_text("cpu  10 20 30 40 50 60 70 800 0 0\ncpu0 5 10 15 20 25 30 35 400 0 0\n", encoding="ascii")
    assert suite_time.stolen_seconds(stat) == 800 / os.sysconf("SC_CLK_TCK")
    assert suite_time.stolen_seconds(tmp_path / "none") is None
    stat.write_text("intr 1 2 3\n", encoding="ascii")
    assert suite_time.stolen_seconds(stat) is None


def test_the_steal_line_says_the_core_seconds_and_the_runs_time(capsys):
    suite_time.show_stolen(12.34, 457.4)
    assert "(steal): 12.3 core-seconds over the run's 457 s" in capsys.readouterr().out
    suite_time.show_stolen(None, 457.4)
    assert capsys.readouterr().out == ""
