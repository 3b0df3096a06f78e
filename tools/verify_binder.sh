#!/usr/bin/env bash
# What repo2docker would do, without Docker: a fresh environment with binder/runtime.txt's Python,
# binder/requirements.txt installed from the repository root, binder/postBuild, then the whole test
# suite (browser test included) in that environment. Then the lessons and the browser test again,
# inside a network namespace with only loopback: nothing may reach the network at run time.
# Prints the environment's size and install time.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^python-\([0-9][0-9.]*\)[[:space:]]*$/\1/p' binder/runtime.txt)
python="python$version"
command -v "$python" >/dev/null || { echo "binder/runtime.txt asks for $python, which is not installed" >&2; exit 1; }
work=$(mktemp -d)
env_dir="$work/binder-env"
start=$(date +%s)
"$python" -m venv "$env_dir"
"$env_dir/bin/pip" install --quiet -r binder/requirements.txt
PATH="$env_dir/bin:$PATH" bash binder/postBuild
installed=$(( $(date +%s) - start ))
size=$(du -sm "$env_dir" | cut -f1)
echo "binder environment: Python $version, ${size} MB, installed in ${installed} s (footprint target: 400 MB)"

echo "== the whole test suite in the binder environment =="
PATH="$env_dir/bin:$PATH" "$env_dir/bin/python" -m pytest -q

echo "== offline: the lessons and the browser test with no network (loopback only) =="
if unshare -n true 2>/dev/null; then
  unshare -n bash -c "ip link set lo up && PATH='$env_dir/bin':\$PATH '$env_dir/bin/python' -m pytest -q --nbval notebooks tests/test_browser.py"
else
  echo "cannot create a network namespace here (needs root or user namespaces): offline run skipped" >&2
  [ -z "${CI:-}" ] || exit 1
fi
rm -rf "$work"
