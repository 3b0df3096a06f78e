"""Lesson 04's claims (04-masks-and-cross-attention): its exercises' hints and its words (the defects of the
second review of lessons 04-06 and the appendix, issue 29, and of its rounds four and five), its encoder-
decoder figure, and its cross explorer's sliders moved as a student moves them.

Every expected value is computed here by hand with plain NumPy, never taken from the exercise modules.
Slider claims are driven through the explorer's own sliders, as a student moves them; each slider test
names the cell or guide section whose sentence it checks. Shared helpers: tests/lesson_helpers.py.
"""

import re

import numpy as np
import pytest
from handed_out import check_as_handed_out
from lesson_helpers import (
    cell_text,
    explorer,
    lesson_cells,
    move,
    prose,
    run_lesson,
    sm,
    softmax_rows,
    stored_output,
)

import attention_lab as al


# ---------- 04.4 (defect 4) ----------
def test_04_4_says_there_are_no_residual_connections():
    assert "no residual connections" in cell_text("04", 40)
    assert "no residual connections" in al.EXERCISES["04.4"].question


# ---------- figures (defects 10, 22) ----------
def test_04_arrows_are_drawn_for_every_weight_the_heatmap_shows_as_0_05_or_more():
    """The heatmap of cell 19 shows noir -> is as 0.05 (0.0476): its arrow is drawn."""
    tr = al.translation()
    step = al.decoder_step(tr, causal=True, padding=True)
    C, S = step.cross_weights, step.self_weights
    assert np.any((C < 0.05) & (np.round(C, 2) >= 0.05))                # the case of the review
    fig = al.plot_encoder_decoder(tr.enc_tokens, tr.dec_tokens, S, C, threshold=0.05)
    arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == int((np.round(C, 2) >= 0.05).sum() + (np.round(S, 2) >= 0.05).sum())


# ---------- round four: a fresh review of 04-06 and the appendix, now 10 (issue 29), nine defects ----------
@pytest.mark.parametrize("fill", [-4.0, -10.0, -15.0, -7.5])
def test_04_3_a_finite_fill_is_named_not_blamed_on_rounding(fill):
    """Defect 1: np.where(mask, S, c) with a finite c gives masked keys e^c-sized weights, not rounding."""
    def masked_weights(S, mask):
        z = np.where(mask, S, fill)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    result = al.EXERCISES["04.3"].evaluate(masked_weights)
    assert result.mistake == "finite fill" and "-inf" in result.message, result.message
    assert "round" not in result.message


def test_04_3_no_mask_at_all_is_not_called_a_finite_fill():
    result = al.EXERCISES["04.3"].evaluate(lambda S, mask: sm(S))
    assert result.mistake != "finite fill" and "fill" not in result.message, result.message


@pytest.mark.parametrize("mask, shown, more", [
    (np.eye(6, dtype=bool), 4, 2),              # 6 pairs missing: (1,0) (2,0) (2,1) (4,3) (5,3) (5,4)
    (np.ones((6, 6), dtype=bool), 4, 20),                 # 24 pairs too many: 36 - 12 allowed
])
def test_04_2_the_list_of_pairs_says_how_many_more(mask, shown, more):
    """Defect 3: the lists stopped at four pairs without saying that more were wrong."""
    message = al.EXERCISES["04.2"].evaluate(mask).message
    assert f"and {more} more" in message, message


# ---------- round five: a check of the round-four fixes (six defects left) ----------
def _softmax_masked_after(S, m):
    """softmax with a finite fill -10, then the mask applied again, rows not renormalised."""
    return sm(np.where(m, S, -10.0)) * m


@pytest.mark.parametrize("masked_weights", [
    lambda S, m: sm(S + (m - 1) * 10.0),                                # an additive penalty
    lambda S, m: sm(S - 10.0 * (~m)),
    lambda S, m: sm(S + (1.0 - m) * -12.0),                             # BERT's form, a small constant
    lambda S, m: sm(np.where(m, S, S.min(axis=1, keepdims=True) - 5.0)),   # a fill per row
], ids=["(m-1)*10", "-10*(~m)", "(1-m)*-12", "row min - 5"])
def test_04_3_a_finite_penalty_is_named_not_blamed_on_rounding(masked_weights):
    """Round five, defect 1: the masked scores are S - 10 (not one constant), so the judge's one-constant
    test missed them and blamed rounding. By hand on any scores: each row sums to 1, the allowed keys keep
    the ratios e^(S_ij - S_ik), and every masked key keeps a weight > 0."""
    rng = np.random.default_rng(5)
    S, m = 3 * rng.standard_normal((3, 4)), np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 1]], bool)
    w = masked_weights(S, m)
    assert np.allclose(w.sum(axis=1), 1) and (w[~m] > 0).all()
    assert np.isclose(w[0, 0] / w[0, 2], np.exp(S[0, 0] - S[0, 2]))
    result = al.EXERCISES["04.3"].evaluate(masked_weights)
    assert result.mistake == "finite fill" and "-inf" in result.message, result.message
    assert "round" not in result.message and "penalty" in result.message


def test_04_3_rows_not_renormalised_are_named():
    """softmax(np.where(m, S, -10)) * m: masked keys 0, allowed keys in the right ratios, but each row
    sums to 1 minus what its masked keys had (by hand: below 1)."""
    rng = np.random.default_rng(5)
    S, m = 3 * rng.standard_normal((3, 4)), np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 1]], bool)
    assert (_softmax_masked_after(S, m).sum(axis=1) < 1).all()
    result = al.EXERCISES["04.3"].evaluate(_softmax_masked_after)
    assert "round" not in result.message and "renormalis" in result.message, result.message
    assert "sum" in result.message


def test_04_3_a_fill_of_0_is_told_what_it_does_not_that_it_multiplied():
    """Check of the round-five fixes, defect 4: np.where(mask, S, 0) was told it 'multiplied by False'."""
    def masked_weights(S, mask):
        z = np.where(mask, S, 0.0)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    message = al.EXERCISES["04.3"].evaluate(masked_weights).message
    assert "end up 0" in message and "a fill of 0" in message and "should it get?" in message, message
    assert "-inf" not in message                                # review round 9, B2: the fix is not given

# ---------- the explorer's sliders, moved as a student moves them (each test names the cell it checks)

TR = al.translation()


def decoder_step_by_hand(X_dec, causal=True, padding=True):
    """Lesson 04's decoder step with plain NumPy: (self weights (m, m), cross weights (m, n))."""
    m, n, d = len(X_dec), len(TR.X_enc), X_dec.shape[1]
    S = (X_dec @ TR.self_W_q) @ (X_dec @ TR.self_W_k).T / np.sqrt(d)
    A = softmax_rows(np.where(np.tri(m, dtype=bool) | (not causal), S, -np.inf))
    Z = X_dec + A @ (X_dec @ TR.self_W_v)                            # residual
    C = (Z @ TR.cross_W_q) @ (TR.X_enc @ TR.cross_W_k).T / np.sqrt(d)
    keys = (np.arange(n) < TR.enc_length) | (not padding)
    return A, softmax_rows(np.where(keys[None, :], C, -np.inf))


def test_04_causal_mask_off_le_sees_later_words():
    """04 §9 'switch the causal mask off: le now attends to the words that come after it (it kept all its
    weight on itself before)'; the guide's 45-minute plan ('04 explorer (causal mask off)')."""
    ex = explorer("04 cross_explorer (")
    assert ex.result["self_weights"][0, 0] == 1.0
    r = move(ex, "causal", False)
    assert np.allclose(r["self_weights"], decoder_step_by_hand(TR.X_dec, causal=False)[0])
    assert r["self_weights"][0, 1:].sum() > 0.5 and (r["self_weights"][0, 1:] > 0).all()


def test_04_padding_mask_off_pad_takes_weight_from_every_word():
    """04 §9 'switch the padding mask off: <pad> takes weight from every French word, and its column no
    longer sums to 0'."""
    ex = explorer("04 cross_explorer (")
    assert (ex.result["cross_weights"][:, 5] == 0).all()
    r = move(ex, "padding", False)
    assert np.allclose(r["cross_weights"], decoder_step_by_hand(TR.X_dec, padding=False)[1])
    assert (r["cross_weights"][:, 5] > 0.01).all()
    assert "<pad> 0.00" not in ex.summary()


def test_04_noir_turns_to_cat():
    """04 §9 'move noir[black] down to 0 and noir[cat] up to 1: noir now gives most of its weight to cat
    instead of black. (Already at 0.5 and 0.5, cat wins ...)'."""
    ex = explorer("04 cross_explorer (")
    enc = TR.enc_tokens
    assert enc[int(np.argmax(ex.result["cross_weights"][2]))] == "black"
    for black, cat in ((0.5, 0.5), (0.0, 1.0)):
        move(ex, "black", black)
        r = move(ex, "cat", cat)
        X = TR.X_dec.copy()
        X[2, 1:3] = black, cat
        assert np.allclose(r["cross_weights"], decoder_step_by_hand(X)[1])
        assert enc[int(np.argmax(r["cross_weights"][2]))] == "cat", (black, cat)
    assert r["cross_weights"][2, 2] > 0.5                             # most of its weight
    # why cat wins at 0.5 and 0.5: without what noir's self-attention read (the residual alone, Z = X),
    # its query would score black and cat the same
    q = np.array([0.0, 0.5, 0.5, 0.0, 0.0]) @ TR.cross_W_q
    scores = (TR.X_enc @ TR.cross_W_k) @ q
    assert scores[1] == scores[2]


def test_04_rows_sum_to_one_columns_do_not():
    """Guide, misconception 'Cross-attention rows and columns both sum to 1': 'The rows sum to 1, the
    columns to 1.06, 0.85, …, and <pad> to 0', printed beside the sliders."""
    ex = explorer("04 cross_explorer (")
    W = decoder_step_by_hand(TR.X_dec)[1]
    assert np.allclose(ex.result["cross_weights"], W)
    assert np.allclose(W.sum(axis=1), 1.0)
    assert np.allclose(W.sum(axis=0)[[0, 1, 5]], [1.06, 0.85, 0.0], atol=0.005)
    assert "the 1.06  black 0.85" in ex.summary() and "<pad> 0.00" in ex.summary()



# ---------- review round 5, 04.1: a finite fill is no fix -------------------------------------------------
def test_04_3_a_finite_fill_or_penalty_gets_its_hint_and_minus_inf_passes():
    """np.where(mask, S, -20) hides its error on scores near 0, yet on a row whose allowed scores are -30 and
    -31 it gives the masked key nearly all the weight (by hand below): the check's second input finds it."""
    S, keep = np.array([[-30.0, -31.0, 5.0]]), np.array([[True, True, False]])
    e = np.exp(np.where(keep, S, -20.0))
    assert (e / e.sum())[0, 2] > 0.9999                                    # the masked key takes it all
    fills = {"-18": lambda S, m: al.softmax(np.where(m, S, -18.0)),
             "-20": lambda S, m: al.softmax(np.where(m, S, -20.0)),
             "S - 20 where masked": lambda S, m: al.softmax(S - 20 * (~m))}
    for name, fix in fills.items():
        result = al.EXERCISES["04.3"].evaluate(fix)
        assert result.status == "mistake" and result.mistake == "finite fill", (name, result.message)
    for fill in (-np.inf, -1e9):
        def fix(S, m, fill=fill):
            return al.softmax(np.where(m, S, fill))
        assert al.EXERCISES["04.3"].evaluate(fix).status == "correct"


def test_04_2_causal_only_hint_names_the_operator():
    """Review round 5, 04.3 (cosmetic): the hint wrote '(& )'; it names NumPy's `&`."""
    result = al.EXERCISES["04.2"].evaluate(np.tril(np.ones((6, 6), dtype=bool)))   # causal, no blocks
    message = result.message
    assert result.mistake == "causal only", message
    assert "combine with a block mask (`&`)" in message and "(& )" not in message


# ---------- review round 5, 04.2: what makes cat win at 0.5 and 0.5 -----------------------------------------

def test_04_noir_finds_cat_through_its_self_attention_not_the_residual():
    """04.2: with noir = [0, .5, .5, 0, 0] cat wins (0.49 against 0.25); without the residual it still wins
    (0.36 against 0.18); without the self-attention (Z = X) black and cat tie. By hand: scaled, causal self-
    attention, then cross-attention over the real English keys."""
    tr = al.translation()
    X = tr.X_dec.copy()
    X[2] = [0, 0.5, 0.5, 0, 0]
    S = (X @ tr.self_W_q) @ (X @ tr.self_W_k).T / np.sqrt(tr.self_W_k.shape[1])
    z = softmax_rows(np.where(np.tril(np.ones((4, 4), dtype=bool)), S, -np.inf)) @ (X @ tr.self_W_v)
    real = np.arange(len(tr.enc_tokens)) < tr.enc_length
    black, cat = tr.enc_tokens.index("black"), tr.enc_tokens.index("cat")

    def noir_cross(Z):
        s = (Z[2] @ tr.cross_W_q) @ (tr.X_enc @ tr.cross_W_k).T / np.sqrt(tr.cross_W_k.shape[1])
        return sm(np.where(real, s, -np.inf))
    with_both, no_residual, no_self = noir_cross(X + z), noir_cross(z), noir_cross(X)
    assert with_both[cat] > with_both[black] + 0.2 and no_residual[cat] > no_residual[black] + 0.1
    assert np.isclose(no_self[cat], no_self[black])
    text = prose("04", "s9")
    assert "through the residual of section 4" not in text
    assert "causal self-attention of section 4 takes in a share of *chat*" in text
    assert "which alone would tie *black* and *cat*" in text


def test_04_section_8_takes_its_seed_from_heads_seed_and_runs_with_another():
    """Issue 44 item 2: the heads' weights of section 8 take HEADS_SEED (prose invites changing it); with seed
    29 both equivalences (identities, true for every draw) still hold."""
    cells = lesson_cells("04")
    setters = [cid for cid, src in cells.items() if re.search(r"(?m)^HEADS_SEED = 0\b", src)]
    assert setters == ["s8-code"] and "default_rng(HEADS_SEED)" in cells["s8-code"]
    assert not any(re.search(r"default_rng\(\d", src) for src in cells.values())
    assert "you may change it" in prose("04", "s8")
    run_lesson("04", HEADS_SEED=29, cells=["imports", "s1-code", "s1-code2", "s4-code", "s5-code", "s8-code"])


# ---------- review round 6 ---------------------------------------------------------------------------------

def test_r6_m1_04_names_encoder_decoder_attention_and_the_residuals_paper():
    """M1: the paper calls cross-attention 'encoder-decoder attention' (Vaswani et al. 2017, §3.2.3); the
    residual connection is He et al. 2016's."""
    s5 = prose("04", "s5")
    assert "encoder-decoder attention" in s5 and "Vaswani et al. 2017" in s5 and "3.2.3" in s5
    s4 = prose("04", "s4")
    assert "He et al. 2016" in s4 and "*Deep Residual Learning for Image Recognition*" in s4


def test_r6_c8_word_order_claim_names_its_condition():
    """C8: attention ignores order here only because these features hold no positions (lesson 05)."""
    text = prose("04", "s5-note")
    assert "no positions" in text and "lesson 05" in text


def test_r6_c4_04_4_half_scaled_layers_are_named():
    """C4: leaving ÷√3 out of one of the two attention steps gets a hint naming that step (by hand here)."""
    Xd = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    Xe = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])

    def layer(self_div, cross_div):
        S = np.where([[True, False], [True, True]], Xd @ Xd.T / self_div, -np.inf)
        Y1 = sm(S) @ Xd
        C = (2 * Y1) @ Xe.T / cross_div
        return sm(np.where([True, True, True, False], C, -np.inf)) @ Xe

    r3 = np.sqrt(3)
    assert al.EXERCISES["04.4"].evaluate(layer(r3, r3)).status == "correct"
    cross = al.EXERCISES["04.4"].evaluate(layer(r3, 1.0))
    assert "cross-attention step forgot ÷√3" in cross.message, cross.message
    self_ = al.EXERCISES["04.4"].evaluate(layer(1.0, r3))
    assert "self-attention step forgot ÷√3" in self_.message, self_.message


def test_r6_c7_mask_refusal_says_rows_count_from_0():
    """C7: the refusal names row 3 of a 4-row mask; it says that rows count from 0 (row 3 is the 4th)."""
    mask = np.tril(np.ones((4, 4), dtype=bool))
    mask[3] = False
    X = np.eye(4)
    with pytest.raises(ValueError, match=r"mask row 3 \(counting from 0\)"):
        al.self_attention(X, np.eye(4), np.eye(4), np.eye(4), mask=mask)


# ---------- the debug function as handed out: what to look for, not the fix, and no attempt --------------

def test_04_3_as_handed_out_says_what_to_look_for_and_counts_as_no_attempt():
    """The stored verdict of the planted cell said "Replace masked scores with -inf": the fix. As handed
    out, the function gets not yet and what to look for, and Run All's check of it is no attempt."""
    check_as_handed_out("04.3", ("inf", "exp(0)", "end up 0", "np.where"))



def test_04_3_a_changed_function_with_the_planted_numbers_is_told_why():
    """A fill of 0 gives the planted numbers: on S = [[1, 2]] with key 1 masked, the scores become [1, 0]
    and the masked key keeps 1 / (e + 1) ≈ 0.269 of the weight (by hand). The student changed the line:
    a hint that explains, and an attempt."""
    def masked_weights(S, mask):
        return al.softmax(np.where(mask, S, 0.0))
    w = masked_weights(np.array([[1.0, 2.0]]), np.array([[True, False]]))
    assert np.isclose(w[0, 1], 1 / (np.e + 1))
    result = al.EXERCISES["04.3"].evaluate(masked_weights)
    assert result.status == "mistake" and result.mistake == "planted numbers", result
    assert "exp(0) = 1" in result.message and "-inf" not in result.message, result.message


# ---------- review round 11: the -1e9 fill in half precision; 04.2's additive float mask ----------
def test_04_s2_says_minus_1e9_is_minus_inf_in_float16():
    """Review round 11, 04.1: "a -1e9 fill avoids the NaN" holds in float64 and float32, not in float16,
    where the largest number is 65504: -1e9 becomes -inf and an all-masked row is NaN again (so libraries
    fill with the dtype's most negative finite number). By hand: float16's range, the cast, the row."""
    assert float(np.finfo(np.float16).max) == 65504.0
    with np.errstate(over="ignore", invalid="ignore"):
        row = np.full(3, -1e9).astype(np.float16)
        e = np.exp(row - row.max())
    assert np.isneginf(row).all() and np.isnan(e / e.sum()).all()
    assert np.isfinite(np.float16(np.finfo(np.float16).min))          # the dtype's own fill stays finite
    text = prose("04", "s2")
    assert "float16" in text and "65504" in text and "torch.finfo(dtype).min" in text
    printed = stored_output("04", "s2-trap")
    assert "all -1e9 in float16: [-inf -inf -inf] -> [nan nan nan]" in printed
    assert "(largest float16: 65504)" in printed


def test_04_2_an_additive_float_mask_is_named_and_its_hint_leads_to_the_boolean_mask():
    """Review round 11, 04.2: PyTorch's float attn_mask (0 = allowed, -inf = masked) was told "contains
    NaN or inf", and its finite form (-1e9) "a mask holds True/False": one step the wrong way. Written by
    hand: the packed mask, its additive forms; the hint's `yours == 0` then passes."""
    right = np.zeros((6, 6), dtype=bool)
    for start in (0, 3):
        for i in range(start, start + 3):
            right[i, start:i + 1] = True
    for fill in (-np.inf, -1e9, -1e4, np.finfo(np.float32).min):
        yours = np.where(right, 0.0, fill)
        result = al.EXERCISES["04.2"].evaluate(yours)
        assert result.mistake == "additive float mask", (fill, result.message)
        assert "attn_mask" in result.message and "yours == 0" in result.message
        assert al.EXERCISES["04.2"].evaluate(yours == 0).status == "correct"
    causal_only = np.where(np.tril(np.ones((6, 6), dtype=bool)), 0.0, -np.inf)   # wrong, and additive
    assert al.EXERCISES["04.2"].evaluate(causal_only).mistake == "additive float mask"
    assert al.EXERCISES["04.2"].evaluate(causal_only == 0).mistake == "causal only"


# ---------- review round 20: the fill libraries use; 04.4's pad zeroed after the softmax; 04.2's message ---
def test_04_s2_names_who_fills_with_finfo_min_and_what_pytorchs_sdpa_does():
    """Review round 20, 04-1: `torch.finfo(dtype).min` is Hugging Face's fill, not PyTorch's own attention's
    (F.scaled_dot_product_attention keeps -inf and gives a fully masked row zero weights, as
    masked_rows="zero" does); the finite fill cures the NaN only: an empty row is uniform again. By hand:
    float16's most negative number, three times, through a softmax written here."""
    low = np.full(3, np.finfo(np.float16).min, dtype=np.float16)
    assert np.isfinite(low).all() and float(low[0]) == -65504.0
    e = np.exp(low.astype(np.float64) - float(low.max()))
    assert np.allclose(e / e.sum(), [1 / 3, 1 / 3, 1 / 3])
    text = prose("04", "s2")
    assert "Hugging Face" in text and "torch.finfo(dtype).min" in text and "uniform again" in text
    assert "scaled_dot_product_attention" in text and 'masked_rows="zero"' in text
    assert "Libraries therefore" not in text
    printed = stored_output("04", "s2-trap")
    assert "all finfo(float16).min: -65504 -> [0.333 0.333 0.333]  <- no nan, but uniform again" in printed


def test_04_s2_the_finfo_min_fill_added_to_float16_scores_overflows():
    """Review round 22, 04-A: "no nan in any dtype" held for the fill alone; Hugging Face adds it to the
    scores, and in float16 -65504 plus a score of -16 or below rounds to -inf (float16's largest finite
    number is 65504, and 65520, half-way to the next power of two, rounds up), so such a row is nan again.
    By hand: the float16 sums, and the row's softmax written here."""
    fill = np.float16(-65504)
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isneginf(fill + np.float16(-16)) and np.isneginf(fill + np.float16(-100))
        assert np.isfinite(fill + np.float16(-15))                     # -65519 rounds back to -65504
        row = np.full(3, fill + np.float16(-16))
        assert np.isnan(np.exp(row - row.max())).all()
    text = " ".join(prose("04", "s2").split())
    assert "no `nan` in any dtype" not in text
    assert ("the library *adds* it to the scores, and in float16 a score of $-16$ or below plus $-65504$ "
            "rounds to $-\\infty$: a row of such scores is `nan` again") in text
    printed = stored_output("04", "s2-trap")
    assert "finfo(float16).min added to scores of -16: [-inf -inf -inf] -> [nan nan nan]" in printed


def test_04_s2_names_the_clamp_some_models_apply_and_the_pytorch_release_that_zeroes_empty_rows():
    """Review round 23, 23-04-A: some `transformers` models clamp the masked sum back to finfo.min right
    after the add (XGLM since pull request #18057; Llama, whose clamp's dtype #24561 fixed, read in their
    threads), so the float16 row is uniform again, not nan. Review round 22, 04-B: "in recent versions"
    named: PyTorch pull request #133882 (merged 19 August 2024, before the 2.5 branch cut of 9 September
    2024) makes SDPA zero a fully masked row, first released in 2.5. By hand: the clamp of -inf to -65504,
    and the uniform row."""
    with np.errstate(over="ignore"):
        summed = np.full(3, np.float16(-65504)) + np.float16(-16)
    clamped = np.maximum(summed, np.float16(-65504))
    assert np.isneginf(summed).all() and (clamped == -65504).all()
    e = np.exp(clamped.astype(np.float64) - float(clamped.max()))
    assert np.allclose(e / e.sum(), [1 / 3, 1 / 3, 1 / 3])
    text = " ".join(prose("04", "s2").split())
    assert "in recent versions" not in text
    assert "since PyTorch 2.5 (pull request #133882, merged in August 2024)" in text
    assert "unless the model's code clamps the sum back to the fill" in text
    assert "#18057" in text and "#24561" in text and "then the row is uniform again" in text
    # review round 24, 24-E: #24561 only gave Llama's existing clamp the scores' dtype (its diff keeps the
    # torch.max line as context); XGLM's #18057 added its clamp
    assert "Llama's in #24561" not in text
    assert "XGLM's since `transformers` pull request #18057; Llama's too, whose clamp #24561 gave the " \
           "scores' dtype" in text
    printed = stored_output("04", "s2-trap")
    assert ("that sum clamped back to finfo(float16).min: -65504 -> [0.333 0.333 0.333]  <- uniform again"
            in printed)


def test_04_4_pad_weight_zeroed_after_the_softmax_is_named():
    """Review round 20, 04-2: '<pad>' weighted 0 after the softmax, rows not renormalised, was told
    "'<pad>' took some weight". <pad>'s value row is zero, so its numbers are those of no mask at all: the
    hint names both. Written by hand."""
    Xd = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    Xe = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    Y1 = sm(np.where([[True, False], [True, True]], Xd @ Xd.T / np.sqrt(3), -np.inf)) @ Xd
    W = sm(2 * Y1 @ Xe.T / np.sqrt(3))
    W[:, 3] = 0.0                                             # after the softmax, no renormalising
    assert not np.allclose(W.sum(axis=1), 1.0)
    result = al.EXERCISES["04.4"].evaluate(W @ Xe)
    assert result.status == "mistake", result.message
    assert "after the softmax without renormalising" in result.message, result.message
    assert "-inf before the softmax" in result.message, result.message


@pytest.mark.parametrize("shape, said", [((1, 6, 6), "got an array of shape (1, 6, 6)."),
                                         ((5, 5), "got a 5 × 5 array.")])
def test_04_2_a_wrong_shape_is_said_once(shape, said):
    """Review round 20, 04-3: "got an array of shape (1, 6, 6), shape (1, 6, 6)" said the shape twice."""
    message = al.EXERCISES["04.2"].evaluate(np.ones(shape, dtype=bool)).message
    assert message.endswith("expected a mask of shape (6, 6), " + said), message
