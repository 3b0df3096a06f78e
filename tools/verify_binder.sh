#!/usr/bin/env bash
# What a Binder build (repo2docker) does, without Docker, then the whole test suite on top of it.
#
#  1. repo2docker's starting point: a venv with binder/repo2docker-base.txt (the JupyterLab, notebook,
#     jupyter_server, ipykernel and ipywidgets its Python 3.11 base environment ships; the file says
#     where the versions come from). Then, as repo2docker does, binder/requirements.txt installed from
#     the repository root, binder/postBuild, and `pip check`, which must pass.
#  2. The student image's size beside the bare runtime's (jupyterlab, numpy, matplotlib, seaborn,
#     ipywidgets, ipykernel; goal: at most 15 % above it; lesson 08's gguf and threadpoolctl included, its
#     98 MB model file aside: binder/postBuild puts that in the environment's share/attention-lab, outside
#     $HOME). Both are measured in the environment of 1 (tools/image_size.py: each set's packages and all
#     they need, from what pip recorded), where no test tool may be installed yet.
#  3. The test tools (binder/requirements-test.txt) layered on top of 1, then the whole test suite, once,
#     as a student's session meets it: no network (loopback only), a fresh, empty home (as on a hub that
#     mounts each student's home over the image's), and everything under binder/start, as the image's
#     entrypoint runs it. One pass checks the exact pins, the offline lessons and the fresh home together.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^python-\([0-9][0-9.]*\)[[:space:]]*$/\1/p' binder/runtime.txt)
python="python$version"
command -v "$python" >/dev/null || { echo "binder/runtime.txt asks for $python, which is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin() { grep -iE "^$1==" binder/requirements.txt; }
install() {   # pip install, quietly; exits on failure (pipefail). Drops this machine's index warnings.
  local pip=$1; shift
  "$pip" install --quiet "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
}

echo "== 1. as repo2docker builds it: its base environment, then binder/ =="
env_dir="$work/binder-env"
start=$(date +%s)
"$python" -m venv "$env_dir"
install "$env_dir/bin/pip" -r binder/repo2docker-base.txt
install "$env_dir/bin/pip" -r binder/requirements.txt | tee "$work/pip.log"
PATH="$env_dir/bin:$PATH" bash binder/postBuild
installed=$(( $(date +%s) - start ))
"$env_dir/bin/pip" check
if grep -q "dependency conflicts" "$work/pip.log"; then echo "pip reported dependency conflicts" >&2; exit 1; fi
echo "the model in the image, outside \$HOME: $(du -sm "$env_dir/share/attention-lab" | cut -f1) MB in $env_dir/share/attention-lab (the file and its float32 copy)"
echo "pip check passed in repo2docker's starting environment ($(grep -E '^jupyterlab==|^notebook==' binder/repo2docker-base.txt | tr '\n' ' ')); built in ${installed} s"

echo "== 2. the student image's size, beside the bare runtime's (both measured in that environment) =="
if "$env_dir/bin/pip" list 2>/dev/null | grep -iE '^(pytest|pytest-xdist|playwright|ruff|hypothesis|nbval) '; then
  echo "a test tool is in the student image" >&2; exit 1
fi
bare=$("$env_dir/bin/python" tools/image_size.py $(for p in jupyterlab numpy matplotlib seaborn ipywidgets ipykernel; do
  pin "$p" | cut -d= -f1; done) | head -n 1)
student=$("$env_dir/bin/python" tools/image_size.py -r binder/requirements.txt | head -n 1)
ratio=$(awk -v s="$student" -v b="$bare" 'BEGIN { printf "%.1f", 100 * (s - b) / b }')
echo "student image: ${student} MB; bare runtime: ${bare} MB; the student image is ${ratio} % above it (goal: at most 15 %)"

echo "== 3. the test tools on top, then the whole test suite: no network, a fresh home, binder/start =="
install "$env_dir/bin/pip" -r binder/requirements-test.txt
"$env_dir/bin/pip" check
# lesson 08's model file is in the image, outside $HOME (postBuild fetched it; binder/start names it)
model=$(PATH="$env_dir/bin:$PATH" bash binder/start "$env_dir/bin/python" -c \
  "from attention_lab.real_model import find_model; print(find_model(fetch=False))")
case "$model" in "$env_dir"/share/attention-lab/*) echo "model file: $model";;
  *) echo "the model file is not in the image's folder: $model" >&2; exit 1;; esac
fresh_home="$work/home"
mkdir -p "$fresh_home"
suite_start=$(date +%s)
if unshare -n true 2>/dev/null; then
  # matplotlib builds its font list once in a fresh home (a message on stderr): before the lessons run
  unshare -n bash -c "ip link set lo up && export HOME='$fresh_home' PATH='$env_dir/bin':\$PATH && \
    bash binder/start python -c 'import matplotlib.pyplot' 2>/dev/null && \
    bash binder/start python tools/suite_time.py --report '$work/suite-times.xml' -- -q"
  if [ -e "$fresh_home/.cache/attention-lab" ]; then echo "a lesson wrote a model file into the home" >&2; exit 1; fi
else
  echo "cannot create a network namespace here (needs root or user namespaces): the suite runs online" >&2
  [ -z "${CI:-}" ] || exit 1
  PATH="$env_dir/bin:$PATH" bash binder/start "$env_dir/bin/python" tools/suite_time.py \
    --report "$work/suite-times.xml" -- -q
fi
echo "the whole suite in the student image, offline with a fresh home: $(( $(date +%s) - suite_start )) s"
echo "student image: ${student} MB, ${ratio} % above the bare runtime (${bare} MB); lesson 08's model file aside"
