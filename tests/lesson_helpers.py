"""Helpers shared by the tests of several lessons (tests/lessons/test_NN_*.py, and
tests/test_exercises_across_lessons.py): a lesson's cells, softmaxes written here apart from the package,
the exercises' data typed from the lessons, the one-call search of 06.4 and 10.3, and the lessons'
explorers moved as a student moves their sliders.

Every expected value built here is computed by hand with plain NumPy (or typed from the lessons), never
taken from the exercise modules. Explorers are built exactly as their lesson builds them
(tools/explorer_registry.py). A lesson's cells are read from notebooks/ (lesson_cells and prose also
from $ATTENTION_LAB_NOTEBOOKS).
"""

import itertools
import json
import os
import sys
from pathlib import Path

import numpy as np

import attention_lab as al
from attention_lab.answer_keys import answer_key
from attention_lab.checks import TOLERANCE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from explorer_registry import demo_explorers

# ---------- a lesson's cells ---------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = Path(os.environ.get("ATTENTION_LAB_NOTEBOOKS", ROOT / "notebooks"))


def lesson_cells(prefix: str) -> dict[str, str]:
    """A lesson's cells by id: their source text."""
    (path,) = NOTEBOOKS.glob(f"{prefix}-*.ipynb")
    return {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]}


def prose(prefix: str, cid: str) -> str:
    """One cell's text with its line breaks folded into spaces."""
    return " ".join(lesson_cells(prefix)[cid].split())


def stored_output(prefix: str, cid: str) -> str:
    """The text a lesson's cell is stored with (its printed output): what a student sees on opening it."""
    (path,) = NOTEBOOKS.glob(f"{prefix}-*.ipynb")
    cell = next(c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c.get("id") == cid)
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def cell_text(lesson: str, index: int) -> str:
    path = next((ROOT / "notebooks").glob(f"{lesson}-*.ipynb"))
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][index]["source"])


# ---------- softmaxes written here -----------------------------------------------------------------------

def sm(s, axis=-1):
    e = np.exp(np.asarray(s, dtype=float) - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def grads_by_differences(Q, K, V, dY, eps=1e-5):
    """A student's 'backward pass' by central differences of sum((causal softmax(Q Kᵀ/√d_k) V) * dY), for
    Q, K and V, in plain NumPy."""
    def loss(Q_, K_, V_):
        S = Q_ @ K_.T / np.sqrt(K_.shape[1])
        return float((sm(np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)) @ V_ * dY).sum())
    grads = []
    for i in range(3):
        args = [np.array(a, dtype=float) for a in (Q, K, V)]
        g = np.zeros_like(args[i])
        for idx in np.ndindex(g.shape):
            args[i][idx] += eps
            up = loss(*args)
            args[i][idx] -= 2 * eps
            g[idx] = (up - loss(*args)) / (2 * eps)
            args[i][idx] += eps
        grads.append(g)
    return tuple(grads)


def hand_softmax(s):
    """Softmax written out here, apart from the package."""
    e = np.exp(np.asarray(s, dtype=float) - np.max(s))
    return e / e.sum()


def softmax_rows(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ---------- the exercises: their judge, and their data typed from the lessons ------------------------------

def status(key, answer):
    return al.EXERCISES[key].evaluate(answer)


I2, I3, I4 = np.eye(2), np.eye(3), np.eye(4)
X01 = al.cats_chase_mice().X
X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])      # typed from 03.4
WQ34 = np.array([[2.0, 0, 0, 1], [0, 2, 1, 0], [1, 0, 2, 0], [0, 1, 0, 2]])
WO34 = np.array([[1.0, 0, 1, 0], [0, 1, 0, 1], [0, 1, 0, -1], [1, 0, -1, 0]])
X24 = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]])          # typed from 02.4
WQ24 = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
Y24 = np.array([[1.0, 0.0], [0.51582795, -0.48417205], [0.74767601, -0.25232399]])
Q64, K64 = np.array([2.0, 1.0]), np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]])
V64, G64 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1.0, -1.0])


def causal_grads(axis=1, keepdims=True, times=1, swap=False):
    def grads(Q, K, V, dY):
        s = 1 / np.sqrt(K.shape[1])
        A = sm(np.where(np.tril(np.ones((len(Q), len(K)), dtype=bool)), s * Q @ K.T, -np.inf))
        dA = dY @ V.T
        dR = s ** times * A * (dA - (A * dA).sum(axis=axis, keepdims=keepdims))   # dL/d(Q Kᵀ)
        dQ, dK = dR @ K, dR.T @ Q
        return (dK, dQ, A.T @ dY) if swap else (dQ, dK, A.T @ dY)
    return grads


# ---------- 06.4 and 10.3: no single package call (defect 8 of the review of 04-06 and 10) -----------------

def views(out):
    """What a student might hand in from one result: itself, its parts, rows, columns, sign flipped."""
    found = []
    for part in (out if isinstance(out, tuple) else (out,)):
        try:
            part = np.asarray(part, dtype=float)
        except (TypeError, ValueError):
            continue
        for v in (part, -part, *(part[i] for i in range(len(part)) if part.ndim >= 1),
                  *(part[..., j] for j in range(part.shape[-1]) if part.ndim >= 2), part.T, part.ravel()):
            found.append(v)
            if v.ndim >= 1 and len(v) and np.ndim(v[0]) >= 1:
                found.extend(v[i] for i in range(len(v)))
    return found


def passes(key, candidate) -> bool:
    """What al.check accepts as right: the solution's shape, each number within its tolerance (the
    check itself, evaluate, is tested on a sample of these in test_hints.py; this is the fast form)."""
    solution = np.asarray(answer_key(key), dtype=float)
    return candidate.shape == solution.shape and np.allclose(candidate, solution, rtol=0,
                                                             atol=TOLERANCE)


def one_call_answers(functions, scales):
    """Every result of one call of each function, each argument taken from its own list of plausible
    inputs (the exercise's arrays, their transposes, identity matrices), with each scale."""
    for f, pools, scaled in functions:
        for args in itertools.product(*pools):
            for kw in ([{"scale": s} for s in scales] if scaled else [{}]):
                try:
                    with np.errstate(all="ignore"):
                        out = f(*args, **kw)
                except Exception:            # many combinations have the wrong shapes
                    continue
                yield from views(out)


# ---------- the lessons' explorers, moved as a student moves their sliders -------------------------------

EXPLORERS = demo_explorers()


def explorer(prefix: str):
    """The lesson's explorer whose registry name starts with `prefix` (e.g. '02 matrix_explorer (')."""
    (name,) = [k for k in EXPLORERS if k.startswith(prefix)]
    return EXPLORERS[name]()


def move(ex, key: str, value) -> dict:
    """Move one slider as a student would (its widget's value), and return what the explorer computed."""
    ex.sliders[key].value = value
    assert ex.error is None, f"{key}={value}: the explorer shows an error: {ex.error}"
    return {k: np.asarray(v) for k, v in ex.result.items() if not isinstance(v, str)}


CCM = al.cats_chase_mice()
CATS, CHASE, SMALL, MICE = range(4)


def hand_weights(tau, x2=None):
    """The lesson's (4, 4) weights at temperature tau, from the raw example, by hand."""
    X = CCM.X.copy()
    if x2 is not None:
        X[CHASE] = x2
    S = (X @ CCM.W_q) @ (X @ CCM.W_k).T / (tau * 2.0)   # d_k = 4, so √d_k = 2
    return np.array([hand_softmax(row) for row in S])


def spread_from_quarter(w):
    """How far each row is from 0.25 everywhere (the flat row)."""
    return np.abs(w - 0.25).max(axis=1)


# ---------- a lesson run with the seeds a student might pick ----------------------------------------------

def run_lesson(prefix: str, until: str | None = None, cells: list[str] | None = None, **seeds: int):
    """Lesson `prefix` executed in a fresh kernel, from its first cell to cell id `until` (default: the end),
    with each seed variable set as a student would set it (e.g. TRAINING_SEED=28). `cells`, if given, keeps
    only those cell ids (in the lesson's order): the cells a draw feeds and the ones they need, where the
    cells between cost time and do not depend on the seed. Each NAME must be assigned exactly once in the
    lesson, as `NAME = <number>` at the start of a line. A cell that raises fails the run with nbclient's
    message (the cell and the traceback). Returns the executed notebook."""
    import re

    import nbformat
    from nbclient import NotebookClient

    (path,) = NOTEBOOKS.glob(f"{prefix}-*.ipynb")
    nb = nbformat.read(path, as_version=4)
    if until is not None:
        ids = [c.id for c in nb.cells]
        if until not in ids:
            raise ValueError(f"lesson {prefix} has no cell with id {until!r}")
        nb.cells = nb.cells[:ids.index(until) + 1]
    if cells is not None:
        unknown = sorted(set(cells) - {c.id for c in nb.cells})
        if unknown:
            raise ValueError(f"lesson {prefix} has no cells with ids {unknown}")
        nb.cells = [c for c in nb.cells if c.id in set(cells)]
    for name, value in seeds.items():
        pattern = re.compile(rf"(?m)^{re.escape(name)} = [^\n#]+")
        hits = [c for c in nb.cells if c.cell_type == "code" and pattern.search(c.source)]
        if len(hits) != 1 or len(pattern.findall(hits[0].source)) != 1:
            raise ValueError(f"lesson {prefix} sets {name} in {len(hits)} cells; expected one '{name} = ...'")
        hits[0].source = pattern.sub(f"{name} = {value!r} ", hits[0].source)
    NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb
