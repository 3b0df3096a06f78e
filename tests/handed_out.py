"""The debug exercises' functions as each lesson's cell hands them out, bug included, written once for the
tests (judging.still_planted reads a function's own source, so they live in a file), and the check that the
stored verdict of such a cell says what to look for, never the fix, and counts as no attempt."""

import inspect
import re

import numpy as np
from lesson_helpers import lesson_cells, stored_output

import attention_lab as al
from attention_lab.checks import untouched


def weights_of(q, K):                         # 01.4
    scores = K @ q                       # (n,) one score per key
    e = np.exp(scores - scores.max())
    return e / e.max()


def attention(Q, K, V):                       # 02.3
    S = Q @ K.T / np.sqrt(K.shape[1])    # (m, n) scaled scores
    A = al.softmax(S, axis=0)            # (m, n) weights
    return A @ V                         # (m, d_v)


def split(M, h):                              # 03.3
    n, d = M.shape
    return M.reshape(h, n, d // h)       # (h, n, d_k)


def masked_weights(S, mask):                  # 04.3
    S = S * mask                         # hide the masked scores
    return al.softmax(S, axis=-1)        # (m, n) weights


def decode(X, W_q, W_k, W_v):                 # 05.3
    K, V, Y = np.zeros((0, W_k.shape[1])), np.zeros((0, W_v.shape[1])), []
    for x in X:                                   # one new token per step
        K = np.vstack([K, x @ W_k])               # its key joins the cache
        V = np.vstack([V, x @ W_v])               # its value joins the cache
        w = al.softmax(K @ (X[-1] @ W_q) / np.sqrt(W_q.shape[1]))
        Y.append(w @ V)
    return np.array(Y)


def causal_attention_grads(Q, K, V, dY):      # 06.3
    s = 1 / np.sqrt(K.shape[1])
    A = al.softmax(np.where(al.causal_mask(len(Q)), s * Q @ K.T, -np.inf))   # (n, n)
    dA = dY @ V.T                            # (n, n)
    dS = A * dA                              # (n, n) through the softmax: dL/dS
    return s * dS @ K, s * dS.T @ Q, A.T @ dY   # dQ, dK, dV (through the scale s)


def stream_backward(X, A1, A2, W1, W2, dOut):  # 07.3
    dH1 = A2.T @ dOut @ W2.T                 # (n, d) dL/dH1
    return dH1 + A1.T @ dH1 @ W1.T           # (n, d) dL/dX


def gqa(Q, K, V):                             # 08.3
    # Q: (h, n, d_k) query heads; K, V: (g, n, d_k) key/value heads, g dividing h -> (h, n, d_k)
    h, g, n = len(Q), len(K), Q.shape[1]
    K = np.tile(K, (h // g, 1, 1))                          # (h, n, d_k): a key head for every query head
    V = np.tile(V, (h // g, 1, 1))                          # (h, n, d_k)
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])   # (h, n, n)
    S = np.where(al.causal_mask(n), S, -np.inf)
    return al.softmax(S) @ V


HANDED_OUT = {"01.4": weights_of, "02.3": attention, "03.3": split, "04.3": masked_weights, "05.3": decode,
              "06.3": causal_attention_grads, "07.3": stream_backward, "08.3": gqa}


def code_lines(text: str) -> list[str]:
    """The lines of code, comments and runs of spaces aside, blank lines left out."""
    lines = (re.sub(r"\s+", " ", line.split("#", 1)[0]).strip() for line in text.splitlines())
    return [line for line in lines if line]


def check_as_handed_out(number: str, fixes: tuple[str, ...]) -> None:
    """Exercise `number`'s cell is stored with its check's verdict, which a student reads on opening the
    lesson: not yet, still the planted bug, and none of the words of the fix (`fixes`). The function here
    is the cell's own, line for line; checked, it gives that very verdict, and counts as no attempt."""
    lesson, cid = number[:2], f"ex-{number[:2]}-{number[3:]}-code"
    stored = stored_output(lesson, cid)
    assert stored.startswith(f"Exercise {number}: not yet. Hint: still the planted bug"), stored
    for fix in fixes:
        assert fix not in stored, fix
    ours, cell = code_lines(inspect.getsource(HANDED_OUT[number])), code_lines(lesson_cells(lesson)[cid])
    assert any(cell[i:i + len(ours)] == ours for i in range(len(cell))), f"{number}: not the cell's function"
    assert untouched(HANDED_OUT[number], al.EXERCISES[number].handed_out_source), "not the package's copy"
    result = al.EXERCISES[number].evaluate(HANDED_OUT[number])
    assert result.message == stored.strip() and result.status == "unanswered", result
