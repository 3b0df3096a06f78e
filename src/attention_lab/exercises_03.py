"""Lesson 03's exercises (registered in exercises.EXERCISES): many heads."""

from __future__ import annotations

import numpy as np

from .checks import Choice, Correct, Exercise, Trial, switched_off
from .examples import the_cat_sat
from .heads import multi_head_unchecked
from .judging import SHORTCUTS, as_numbers, judge_fix, rounded_right, still_planted
from .matrix import default_scale, softmax

TIE_MARGIN = 0.05   # 03.2: a tie of two back and one back counts only if the pair clearly leads the rest
STEP_SLACK = 0.2    # 03.2: a block's turn within this many steps θ of a whole number is that many steps
EXACT_SLACK = 0.01  # 03.2: a turn this close to a whole number and a half (a negative factor) or a quarter
#                     (cos and sin swapped) is that, as exactly as the student's typed θ allows
DEGREE_SLACK = 0.05  # 03.2: a turn this close to k degree steps read as radians (k·180/π steps) is that slip
TURN_NOTED = 0.05   # 03.2: a passing block whose turn is this far from 2θ gets a remark naming its turn
RADIANS = "If you typed the angle yourself: np.cos and np.sin take radians, and θ = 2π/7 radians (ex.theta)."
"""03.2: true for every answer, so it may end any hint on a turn that is no whole number of steps."""


def turn_in_steps(block: np.ndarray, theta: float) -> float | None:
    """03.2: how far a 2 × 2 block turns a position back, in steps θ, in (-3.5, 3.5] (section 3: x @ R(φ)
    turns back by φ); None when the block is no positive multiple of a rotation."""
    (a, b), (c, e) = block
    size = np.hypot(a, c)
    if size < 1e-9 or not np.allclose([a, b], [e, -c], rtol=0, atol=1e-6 * size):
        return None
    steps = np.arctan2(c, a) / theta                         # in (-3.5, 3.5]: 7 steps make a full turn
    return float(steps)


def turned(steps: float) -> str:
    """03.2: a block's turn in words: 'back by 2.70θ', or 'forward by 0.50θ' for a negative turn."""
    return f"back by {steps:.2f}θ" if steps >= 0 else f"forward by {-steps:.2f}θ"


def in_degrees(steps: float) -> bool:
    """03.2: whether a turn is one or two steps θ (either way) typed in degrees and read as radians: k·360/7
    radians turn by k·180/π steps θ, taken modulo the 7 steps of a full turn (1.30θ for θ, 2.59θ for 2θ)."""
    slips = [(k * 180 / np.pi + 3.5) % 7 - 3.5 for k in (1, 2, -1, -2)]
    return any(abs(steps - slip) < DEGREE_SLACK for slip in slips)


def _design_03():
    """03.2: a W_q whose head 1 looks two tokens back instead of one; head 2 unchanged."""
    ex = the_cat_sat()
    t = ex.theta
    back = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])     # row form: p -> p - 1

    def weights(W):
        return multi_head_unchecked(ex.X, ex.X, W, ex.W_k, ex.W_v, ex.W_O, 2, None, default_scale(2))[1]

    def with_head1(block):
        W = ex.W_q.copy()
        W[:2, :2] = block
        return W

    reference = weights(ex.W_q)
    queries = np.arange(2, 6)                                # sat, on, the, mat: two tokens back exist

    rows = np.arange(len(queries))

    def margin(w, shift):
        """(4,) head 1's weight on the key `shift` tokens back, minus the largest other weight of its row."""
        A = w[0][queries]                                    # (4, 6): the rows of sat, on, the, mat
        others = A.copy()
        others[rows, queries - shift] = -np.inf
        return A[rows, queries - shift] - others.max(axis=1)

    def finds(w, shift):
        return (margin(w, shift) > 1e-9).all()               # wins outright: a tie is no win

    def judge(answer):
        W = as_numbers(answer, (4, 4), "a W_q")
        if isinstance(W, str):
            return W
        w = weights(W)                                       # (2, 6, 6)
        if not np.allclose(w[1], reference[1]):
            return "head 2 changed" if finds(w, 2) else "both"
        steps = turn_in_steps(W[:2, :2], t)                  # None: the block is no scaled rotation
        if finds(w, 2) and w[0][queries, queries - 2].min() >= 0.5:     # the exercise's criteria, all met
            if steps is None:                                # it works here, but is no turn
                return Correct("It works on these positions, though your block W_q[:2, :2] is no rotation "
                               "times a positive number (a rotation has equal numbers on its diagonal and "
                               "opposite numbers off it): it turns the positions by unequal angles or "
                               "stretches them unequally.")
            notes = []
            if abs(steps - 2) >= TURN_NOTED:                 # a wrong angle that still works here
                notes.append(f"your block W_q[:2, :2] turns each position {turned(steps)}, not by 2θ = 4π/7: "
                             "one step is θ = 2π/7 (ex.theta), as 7 steps make the full circle. If you typed "
                             "the angle yourself: np.cos and np.sin take radians.")
            if W[2:, :2].any():                              # head 1's queries read the word kinds too
                notes.append("head 1's queries also read the word kinds (rows 2-3 of W_q's columns 0-1 are "
                             "not all 0), so head 1 is no turn of the position alone.")
            if not notes:
                return None
            first, *more = notes
            return Correct(" ".join([f"It works on these positions, though {first}",
                                     *(note[0].upper() + note[1:] for note in more)]))
        if not W[:2, :2].any():
            return "block empty"                             # head 1 reads no position feature at all
        if finds(w, 2):
            return "too weak"
        two, one = w[0][queries, queries - 2], w[0][queries, queries - 1]
        third = np.sort(w[0][queries], axis=1)[:, -3]        # (4,) the largest weight after the pair
        if (steps is not None and abs(steps - 1.5) < EXACT_SLACK and np.allclose(two, one, rtol=0, atol=1e-9)
                and (margin(w, 2) > -1e-9).all() and (two - third > TIE_MARGIN).all()):
            return "tie"                                     # two back and one back share the top weight
        if steps is None:
            return "no rotation"
        whole = round(steps)
        off = abs(steps - whole)                             # 0: whole steps; 0.5: a half; 0.25: a quarter
        if abs(off - 0.5) < EXACT_SLACK:                     # 7 steps make a full turn: half a turn is 3.5θ
            return (f"not yet. Hint: your block turns each position {turned(steps)}, half a "
                    "step off a whole number of steps, so each query points halfway between two positions. "
                    "(If your factor is negative: a negative factor turns by half a circle more, 3.5θ, as 7 "
                    "steps make a full turn.) Section 3's 8 R(θ) turns by one step: how many steps back is "
                    f"the token two places before? {RADIANS}")
        if abs(off - 0.25) < EXACT_SLACK:                    # a quarter circle is 1.75θ
            return (f"not yet. Hint: your block turns each position {turned(steps)}, a quarter circle "
                    "(1.75θ) away from a whole number of steps: are cos and sin swapped, or is the angle in "
                    "degrees? R(φ) = [[cos φ, −sin φ], [sin φ, cos φ]], and np.cos and np.sin take radians: "
                    "θ = 2π/7 radians (ex.theta).")
        if off >= STEP_SLACK:
            said = (f"not yet. Hint: your block turns each position {turned(steps)}, not a whole number of "
                    "steps θ (section 3's R(θ) turns by one)")
            if in_degrees(steps):
                return (f"{said}. Is your angle in degrees? np.cos and np.sin take radians: θ = 2π/7 "
                        "(ex.theta), and two tokens back is a turn by 2θ.")
            return f"{said}: two tokens back is a turn by 2θ. {RADIANS}"
        if finds(w, 1) and whole == 1:
            return "previous" if np.allclose(W, ex.W_q) else "still previous"
        if whole == -1 and (np.argmax(w[0][:5], axis=1) == np.arange(1, 6)).all():
            return "next"
        if whole == -2 and (np.argmax(w[0][:4], axis=1) == np.arange(2, 6)).all():
            return "two forward"
        if whole == 0 and (np.argmax(w[0], axis=1) == np.arange(6)).all():
            return "itself"
        if whole == 3 and (np.argmax(w[0][3:], axis=1) == np.arange(3)).all():
            return "three back"
        return ("not yet. Hint: head 1's weights two tokens back are "
                f"{np.round(w[0][queries, queries - 2], 2)} (for sat, on, the, mat): each must be the "
                f"largest in its row, at least 0.5. {RADIANS}")

    two_back = back @ back                                   # turn back twice: p -> p - 2
    return Trial("03.2", "Design W_q so that head 1 looks two tokens back; head 2 keeps its job.",
                 "design", lambda: with_head1(8.0 * two_back), judge, {
        "previous": (lambda: ex.W_q,
                     "head 1 still finds the previous token (this is the lesson's W_q): it turns each "
                     "position back by one step, θ. Two tokens back is a turn by 2θ."),
        "still previous": (lambda: with_head1(16.0 * back),
                           "head 1 still finds the previous token: your block turns each position back "
                           "by about one step, θ (if you scaled R(θ): a factor only makes the choice "
                           f"sharper or softer). Two tokens back is a turn by 2θ. {RADIANS}"),
        "next": (lambda: ex.W_q.T,
                 "head 1 now finds the next token: your block turns each position forward by about one "
                 "step, θ (as a transposed rotation does: the transpose turns the other way). You need two "
                 f"steps back, a turn by 2θ. {RADIANS}"),
        "two forward": (lambda: with_head1(8.0 * two_back.T),
                        "head 1 now looks two tokens forward: your block turns each position forward "
                        "by about 2θ (if you wrote a rotation for column vectors, R(2θ)ᵀ, or the angle "
                        "-2θ: in our row form, x @ R(θ) turns a position back by θ, section 3). Turn "
                        f"back by 2θ instead. {RADIANS}"),
        "itself": (lambda: with_head1(8.0 * np.eye(2)),
                   "head 1 now finds each token itself: your block turns the position by less than 0.2θ "
                   "either way (if you multiplied a turn back by θ and one forward by θ: they cancel). Turn "
                   f"back by 2θ. {RADIANS}"),
        "three back": (lambda: with_head1(8.0 * two_back @ back),
                       "head 1 now looks three tokens back: your block turns each position back by "
                       "about 3θ (if you multiplied R(θ) three times: twice is 2θ). Two tokens back is "
                       f"a turn by 2θ. {RADIANS}"),
        "tie": (lambda: with_head1(8.0 * (back + two_back)),
                "two tokens back and one token back tie for head 1's largest weight: your block turns "
                "each position back by 1.5θ, halfway between them. If you added R(θ) and R(2θ): a sum "
                "turns by the mean angle of its two turns. Two tokens back is a turn by 2θ, R(θ) R(θ): "
                "two turns by θ one after the other, a product, not a sum."),
        "no rotation": (lambda: with_head1(8.0 * two_back * np.array([[1.0, -1.0], [-1.0, -1.0]])),
                        "head 1's block W_q[:2, :2] is no rotation times a positive number: a rotation has "
                        "equal numbers on its diagonal and opposite numbers off it, [[cos φ, −sin φ], "
                        "[sin φ, cos φ]]. Section 3's 8 R(θ) turns a position one step back: which product "
                        "of turns takes it two steps back? (In NumPy, @ multiplies matrices; * multiplies "
                        "entry by entry.)"),
        "block empty": (lambda: np.block([[np.zeros((2, 2)), np.zeros((2, 2))],
                                          [8.0 * two_back, 8.0 * np.eye(2)]]),
                        "head 1's block W_q[:2, :2] is all zeros: head 1's queries read the position "
                        "features through rows 0-1 (and columns 0-1) of W_q. Section 3's 8 R(θ) there "
                        "turns a position one step back: what turns it two steps back?"),
        "too weak": (lambda: with_head1(two_back),
                     "the right token wins, but with less than 0.5: multiply head 1's block by a "
                     f"larger number (the lesson used 8) to make the softmax decide. {RADIANS}"),
        "head 2 changed": (lambda: np.block([[8.0 * two_back, np.zeros((2, 2))],
                                             [np.zeros((2, 2)), np.zeros((2, 2))]]),
                           "head 1 works, but head 2's block (rows and columns 2-3) changed: keep it "
                           "as in the lesson's W_q."),
        "both": (lambda: np.block([[np.zeros((2, 2)), 8.0 * two_back],
                                   [np.zeros((2, 2)), np.zeros((2, 2))]]),
                 "head 2's weights changed (its columns 2-3 of W_q must stay as in the lesson), and "
                 "head 1 does not look two tokens back yet. Head 1 owns columns 0-1 of W_q; the rows "
                 "are the input features (position in rows 0-1)."),
    })


LOCKED_033 = (*SHORTCUTS, "split_heads", "split_weights", "split_heads_unchecked")   # 03.3: write the split
PLANTED_033 = "return M.reshape(h, n, d // h)"           # 03.3's wrong line, as the lesson prints it
HANDED_OUT_033 = """\
def split(M, h):
    n, d = M.shape
    return M.reshape(h, n, d // h)
"""
"""03.3's function as the lesson hands it out (its comments aside): only this one counts as no attempt."""


def _debug_03():
    """03.3: split(M, h) reshapes without moving the heads' axis; the check runs the fix on fresh M."""
    rng = np.random.default_rng(33)
    M1, M2 = rng.standard_normal((5, 6)), rng.standard_normal((4, 4))     # (n, d): h = 3, then h = 2
    M3 = rng.standard_normal((3, 12))        # h = 4: d_k = 3, so a split of the lesson's d_k = 2 fails

    def right(M, h):
        d = M.shape[1]
        return np.stack([M[:, i * (d // h):(i + 1) * (d // h)] for i in range(h)])   # (h, n, d_k) blocks

    def planted(M, h):
        n, d = M.shape
        return M.reshape(h, n, d // h)

    def reshaped_otherwise(M, h):             # the line changed, the same numbers: another reshape
        return np.reshape(M, (h, len(M), -1))

    def no_transpose(M, h):
        n, d = M.shape
        return M.reshape(n, h, d // h)

    def interleaved(M, h):
        n, d = M.shape
        return M.reshape(n, d // h, h).transpose(2, 0, 1)

    def axes_reversed(M, h):                  # .T of (n, h, d_k): all three axes reversed
        n, d = M.shape
        return M.reshape(n, h, d // h).T

    def axes_mixed(M, h):
        n, d = M.shape
        return M.reshape(n, h, d // h).transpose(1, 2, 0)

    def fixed_width(M, h):                    # the lesson's d_k = 2 (section 2), or a 2 typed in
        return M.reshape(len(M), h, 2).transpose(1, 0, 2)

    def tokens_split(M, h):                   # np.split's default axis 0: the rows, the tokens
        return np.stack(np.split(M, h))

    wrong = {"planted": planted, "no transpose": no_transpose, "interleaved": interleaved,
             "axes mixed": axes_mixed, "axes reversed": axes_reversed, "fixed width": fixed_width,
             "tokens split": tokens_split}

    expected = ("split(M, h)[i] must hold columns i·d_k to (i+1)·d_k − 1 of every token, with d_k = d // h: "
                "shape (3, 5, 2) for a (5, 6) array and h = 3, (4, 3, 3) for a (3, 12) array and h = 4.")
    fixed = judge_fix(right, wrong, [(M1, 3), (M2, 2), (M3, 4)], expected, locked=())
    width_two = judge_fix(right, wrong, [(M1, 3), (M2, 2)], "", locked=())   # only the inputs with d_k = 2

    def judge(fn):
        """judge_fix hands every input over as an array; h reaches the student as a plain int, and the
        package's own split is switched off (in the student's namespace too) while their function runs.
        The planted numbers from the function as handed out get a hint that says what to look for; from a
        changed function (another reshape to (h, n, d_k)), one that explains why they are still wrong."""
        if not callable(fn):
            return fixed(fn)

        name = getattr(fn, "__name__", "")
        if name in LOCKED_033 and getattr(fn, "__module__", "").startswith(__package__):
            return f"al.{name} is switched off in this exercise: do this step yourself."   # handed in as is

        def with_int_h(M, h):
            with switched_off(fn, LOCKED_033):
                return fn(M, int(h))
        verdict = fixed(with_int_h)
        if verdict is not None and verdict not in wrong:     # no named slip on all three inputs: is the
            early = width_two(with_int_h)                    # function right, or a named slip, where d_k = 2?
            if early is None:
                return "fixed width"         # right wherever d_k = 2, wrong on the (3, 12) array's d_k = 3
            verdict = early if early in wrong else verdict   # that slip first; the width's hint comes next
        return "planted numbers" if verdict == "planted" and not still_planted(fn, PLANTED_033) else verdict

    return Trial("03.3", "Fix split(M, h): one line is wrong.", "debug", lambda: right, judge, {
        "planted": (lambda: planted,
                    "still the planted bug: the shape is right, but the numbers are not. Take a small M = "
                    "np.arange(12).reshape(3, 4) and h = 2 heads of d_k = 2 columns, and compare "
                    "split(M, 2)[0] with M[:, :2], the first head's columns of every token."),
        "planted numbers": (lambda: reshaped_otherwise,
                            "you changed the function, but it still gives the planted numbers: a reshape "
                            "never moves a number, it reads M row by row, token after token, whatever "
                            "shape you ask for. So your first head gets the first n·d_k numbers of M, "
                            "taken row after row from the first tokens, where it should get the first d_k "
                            "columns of every token. For M = np.arange(12).reshape(3, 4) and h = 2: which "
                            "numbers does your split(M, 2)[0] hold, and which should it hold (M[:, :2])?"),
        "no transpose": (lambda: no_transpose,
                         "the blocks are right but in shape (n, h, d_k); the heads' axis must come first: "
                         "move it with .transpose(1, 0, 2)."),
        "axes mixed": (lambda: axes_mixed,
                       "your result has shape (h, d_k, n): the heads' axis comes first, but the tokens "
                       "and the columns are swapped. Swap your result's last two axes (.transpose(0, 2, 1)); "
                       "from M.reshape(n, h, d_k), move only the heads' axis: .transpose(1, 0, 2)."),
        "axes reversed": (lambda: axes_reversed,
                          ".T reverses all three axes, so (n, h, d_k) becomes (d_k, h, n); move only the "
                          "heads' axis to the front: .transpose(1, 0, 2)."),
        "interleaved": (lambda: interleaved,
                        "your head i takes every h-th column; a head takes d_k neighbouring columns, "
                        "i*d_k to (i+1)*d_k: reshape to (n, h, d_k) first."),
        "fixed width": (lambda: fixed_width,
                        "your split works only for heads of width 2: it uses a fixed width (the lesson's "
                        "d_k = 2, from section 2?), and the check also gives 4 heads of a (3, 12) array, "
                        "width 3. Compute the width inside the function from M: d_k = d // h."),
        "tokens split": (lambda: tokens_split,
                         "your heads are blocks of rows (axis 0), that is of tokens; a head takes a block "
                         "of columns (axis 1) of every token: slice M[:, i*d_k:(i+1)*d_k], or split along "
                         "axis=1."),
    }, handed_out="planted", handed_out_source=HANDED_OUT_033)


X34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])   # 03.4: fresh
Wq34 = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 2.0]])
SCALE34 = default_scale(2)                               # 03.4: each head's d_k = 2
Wo34 = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, -1.0], [1.0, 0.0, -1.0, 0.0]])


def lesson03():
    I4 = np.eye(4)

    def out(h=2, W_O=Wo34, scale=SCALE34):
        return multi_head_unchecked(X34, X34, Wq34, I4, I4, W_O, h, None, scale)[0]

    def heads(scale=SCALE34, W_q=Wq34, axis=-1, kq=False):       # (2, 3, 2) each head's output
        Q = X34 @ W_q
        cols = (slice(0, 2), slice(2, 4))
        S = [(X34[:, c] @ Q[:, c].T if kq else Q[:, c] @ X34[:, c].T) * scale for c in cols]   # W_k = I
        return np.array([softmax(s, axis=axis) @ X34[:, c] for s, c in zip(S, cols)])

    def part(keep=0, order=(0, 1), W_O=Wo34, scale=SCALE34, W_q=Wq34, axis=-1, kq=False):   # one head's part
        H = heads(scale, W_q, axis, kq)
        concat = np.zeros((3, 4))
        slot = order.index(keep)                                     # where that head was put
        concat[:, 2 * slot:2 * slot + 2] = H[keep]
        return concat @ W_O

    def parts(**how):                                # (2, 3, 4): head 1's contribution, then head 2's
        return np.stack([part(keep=0, **how), part(keep=1, **how)])

    def output_columns(pad=False):                   # the output's columns 0-1 and 2-3, taken as the heads'
        Y, zero = out(), np.zeros((3, 2))
        if pad:
            return np.stack([np.hstack([Y[:, :2], zero]), np.hstack([zero, Y[:, 2:]])])
        return np.stack([Y[:, :2], Y[:, 2:]])

    def diagonal_blocks():                           # head_i @ W_O[its rows, its columns], the rest 0
        H = heads()
        return np.stack([np.hstack([H[0] @ Wo34[:2, :2], np.zeros((3, 2))]),
                         np.hstack([np.zeros((3, 2)), H[1] @ Wo34[2:, 2:]])])

    owns_none = ("but a head owns no output columns: W_O mixes the heads, so each head contributes to every "
                 "output column. Head i's contribution is head_i @ W_O[its rows], all 4 columns (section "
                 "6's second assert: column 0 reads both heads).")

    def one_head_parts():
        Y = softmax((X34 @ Wq34) @ X34.T * default_scale(4)) @ X34   # one head of width 4
        return np.stack([np.hstack([Y[:, :2], np.zeros((3, 2))]) @ Wo34,
                         np.hstack([np.zeros((3, 2)), Y[:, 2:]]) @ Wo34])

    def rounded_03_4(got):                           # the right steps, the numbers rounded too far
        if rounded_right(got, parts()):
            return ("each of your numbers is the right one rounded to 1 decimal: your steps are right. Do "
                    "not round; pass the array itself.")
        return None

    return [
        Choice("03.1", "Same W_q, W_k, W_v, W_O; 4 heads instead of 2. What changes?", "b", {
            "a": "the number of parameters stays the same: W_q, W_k, W_v and W_O are still four "
                 "d_model × d_model matrices. Only the grouping of their columns into heads changes.",
            "c": "each head now has width 1 and its own softmax, over scores from one column instead "
                 "of two: different weights, so different outputs.",
            "d": "the outputs do change (each head has its own softmax), and the work is about the "
                 "same: the same products, cut into more pieces."},
            remark="Now move `heads h` to 4. No head finds the previous token for every word any more: with "
                   "one column, a score is the query's number times the key's number, so a query's favourite "
                   "is the key with the largest number or the one with the smallest. That is the previous "
                   "token only by coincidence (cat in head 1, on in head 2); in head 1, the₂ and mat share "
                   "their top weight between their previous token and another word. The numbers beside the "
                   "sliders print '(flat)' or '(tie)' where no single key wins. Head 3 (content) still "
                   "groups the content words, but only for content-word queries: a function word's query "
                   "is 0 there, so its weights are flat. Head 4 (function) does the same for function "
                   "words."),
        _design_03(),
        _debug_03(),
        Exercise(
            "03.4", "Fresh tokens: 2 heads, W_k = W_v = I, the given W_q and W_O; compute each head's "
                    "contribution to the output, head_i W_O^(i), stacked: shape (2, 3, 4).",
            lambda: parts(), {
                "whole output": (lambda: out(),
                                 "that is the whole output, both heads' contributions added: give each "
                                 "head's on its own, stacked, shape (2, 3, 4)."),
                "whole output twice": (lambda: np.stack([out(), out()]),
                                       "both layers of your stack are the whole output; layer i must "
                                       "hold head i's contribution alone (the other head's part of the "
                                       "concatenation set to 0)."),
                "head 1 only": (lambda: part(),
                                "that is head 1's contribution; stack head 2's after it: shape (2, 3, 4)."),
                "head 2 only": (lambda: part(keep=1),
                                "that is head 2's contribution alone; stack head 1's (columns 0-1) "
                                "first, then head 2's: shape (2, 3, 4)."),
                "heads stacked in the wrong order": (lambda: parts()[::-1],
                                                     "the right contributions, in the wrong order: head "
                                                     "1's (from columns 0-1) first, then head 2's."),
                "heads in the wrong order": (lambda: parts(order=(1, 0)),
                                             "you concatenated the heads in the wrong order: head 1's "
                                             "output fills columns 0-1 of the concatenation, so it meets "
                                             "rows 0-1 of W_O (and head 2 rows 2-3)."),
                "forgot W_O": (lambda: parts(W_O=I4),
                               "these are Concat(head_1, 0) and Concat(0, head_2) themselves; finish "
                               "each with @ W_O."),
                "head outputs": (lambda: heads(),
                                 "these are the heads' outputs, (3, 2) each; each contribution is the "
                                 "head's output times its block of rows of W_O: head_1 @ W_O[:2], "
                                 "head_2 @ W_O[2:]."),
                "transposed W_O": (lambda: parts(W_O=Wo34.T),
                                   "you used W_O.T; in the row convention it is Concat(heads) @ W_O."),
                "output columns": (lambda: output_columns(),
                                   "you gave the output's columns 0-1 as head 1's contribution and columns "
                                   "2-3 as head 2's, " + owns_none),
                "output columns padded": (lambda: output_columns(pad=True),
                                          "you gave the output's columns 0-1 as head 1's contribution and "
                                          "columns 2-3 as head 2's (the rest 0), " + owns_none),
                "diagonal blocks": (lambda: diagonal_blocks(),
                                    "you kept only W_O's diagonal blocks, head_i @ W_O[its rows, its "
                                    "columns], " + owns_none),
                "one head": (lambda: one_head_parts(),
                             "that is one head of width 4, its output cut in two: split Q, K and V "
                             "into two heads of width 2 first, each with its own softmax, scaled by "
                             "1/√2."),
                "scaled by 1/2": (lambda: parts(scale=0.5),
                                  "each head is scaled by 1/√d_k with d_k = 2, its own width: 1/√2, "
                                  "not 1/2 (that would be 1/d_k, or 1/√d_model)."),
                "forgot W_q": (lambda: parts(W_q=I4),
                               "your queries are the tokens themselves; they are Q = X @ W_q with the "
                               "given W_q (only W_k and W_v are I)."),
                "W_q transposed": (lambda: parts(W_q=Wq34.T),
                                   "you used W_q.T, the column reading; in our rows Q = X @ W_q, with "
                                   "W_q as printed."),
                "softmax down the columns": (lambda: parts(axis=0),
                                             "your softmax runs down the columns (axis=0), so each key's "
                                             "column sums to 1; each query's row of weights must sum to 1: "
                                             "softmax along axis=-1."),
                "K Q transposed": (lambda: parts(kq=True),
                                   "you computed K Qᵀ: its row i holds key i's scores. The scores are Q Kᵀ, "
                                   "row = query, column = key (section 3)."),
                "no scaling": (lambda: parts(scale=1.0),
                               "each head divides its scores by √d_k = √2 (its own width) before the "
                               "softmax; you left the scaling out."),
            },
            expects="each head's contribution, stacked: a 2 × 3 × 4 array (head, token, output "
                    "component)", softmax=True, fallback=rounded_03_4),
    ]
