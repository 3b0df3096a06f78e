"""Headless sweeps: every slider across its whole range, with no exception, warning, NaN, error
message or colour out of range."""

import html
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import attention_lab as al
from attention_lab.alt_text import AltImage
from attention_lab.explorer_kit import WRAP_AT_WORDS, Control, Explorer, Panel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from explorer_registry import demo_explorers

EXPLORERS = demo_explorers()


def lesson01_explorer():
    return EXPLORERS["01 token_explorer (y₂, 1×4 + 1×4)"]()


def mesh_values(explorer):
    """Every heatmap's cell values (line panels, such as a loss curve, have no cells)."""
    return {k: np.array(ax.collections[0].get_array()) for k, ax in explorer.axes.items() if ax.collections}


def positions(slider, most=21):
    """A slider's whole range, end to end: every option or step, or `most` evenly spaced steps."""
    if hasattr(slider, "options"):                       # selection slider: every option
        return [value for _, value in slider.options]
    if isinstance(slider.value, bool):                   # on/off button: both states
        return [not slider.value, slider.value]
    steps = round((slider.max - slider.min) / slider.step)
    values = slider.min + slider.step * np.round(np.linspace(0, steps, min(steps + 1, most)))
    return [int(v) for v in values] if isinstance(slider.value, int) else [float(v) for v in values]


def changed_since(before, now):
    return any(k not in before or before[k].shape != now[k].shape or not np.allclose(before[k], now[k])
               for k in now)


@pytest.mark.parametrize("make", EXPLORERS.values(), ids=EXPLORERS.keys())
def test_sweep_every_slider(make):
    explorer = make()   # warnings are errors (pyproject filterwarnings)
    for key, slider in explorer.sliders.items():
        start_png, start_mesh = explorer.image.value, mesh_values(explorer)
        changed = image_changed = False
        for v in positions(slider):
            slider.value = v
            assert explorer.error is None and "al-error" not in explorer.numbers.value, \
                f"{key}={v}: the explorer shows an error: {explorer.error}"
            for panel_key, arr in mesh_values(explorer).items():
                assert np.isfinite(arr).all(), f"{key}={v}: NaN or inf in a heatmap"
                norm = explorer.axes[panel_key].collections[0].norm
                assert norm.vmin - 1e-12 <= arr.min() and arr.max() <= norm.vmax + 1e-12, \
                    f"{key}={v}: panel {panel_key} draws {arr.min():.3g}..{arr.max():.3g} on a scale " \
                    f"{norm.vmin:g}..{norm.vmax:g}: its colours saturate"
            for p in explorer.panels:
                if p.kind == "weights":
                    w = explorer.result[p.key]
                    assert np.allclose(w.sum(axis=-1), 1.0) and (w >= 0).all() and (w <= 1).all()
            changed |= changed_since(start_mesh, mesh_values(explorer))
            image_changed |= explorer.image.value != start_png
        assert changed, f"moving {key} over its range never changed any heatmap"
        assert image_changed, f"moving {key} never changed the image students see"
        explorer.reset()


def test_heatmap_text_follows_data_and_reset_restores():
    explorer = lesson01_explorer()
    start, start_png = explorer.summary(), explorer.snapshot().data
    explorer.set(verb=0.0)    # zero query: every score 0, weights 1/4 each (by hand)
    assert np.allclose(explorer.result["weights"], 0.25)
    assert [t.get_text() for t in explorer.axes["weights"].texts] == ["0.25"] * 4
    assert explorer.snapshot().data != start_png          # the static picture follows the sliders
    explorer.reset()
    assert explorer.summary() == start
    assert explorer.snapshot().data == start_png          # and comes back, pixel for pixel


def test_snapshot_is_captioned_as_the_static_copy_of_the_explorer_above():
    """The picture under a live explorer says what it is, above the picture, in every form a front end
    shows: HTML (JupyterLab, the site) and plain text; its image and alt text are the explorer's own."""
    from IPython.core.formatters import DisplayFormatter
    explorer = lesson01_explorer()
    shown, _ = DisplayFormatter().format(explorer.snapshot())
    page = shown["text/html"]
    caption = re.search(r'<figcaption class="al-still-caption"[^>]*>([^<]*)</figcaption>', page)
    assert caption and page.index("<figcaption") < page.index("<img"), page[:300]
    words = html.unescape(caption.group(1))
    assert words.startswith("Static copy of the explorer above, at its start position:"), words
    assert "To explore, move the sliders above." in words and shown["text/plain"] == words
    assert html.unescape(re.search(r'alt="([^"]*)"', page).group(1)) == explorer.alt_text()
    assert shown["image/png"] == explorer.image.value and len(words) < 200
    explorer.set(verb=0.0)
    moved = explorer.snapshot()
    assert "start position" not in moved.caption and "as its sliders stood when this cell ran" in str(moved)
    explorer.reset()
    assert explorer.snapshot().caption == words
    assert "<figcaption" not in AltImage(moved.data, "a heatmap")._repr_html_()    # no caption: none shown
    with pytest.raises(ValueError, match="caption"):
        AltImage(moved.data, "a heatmap", caption=" ")


def test_an_explorer_with_one_slider_says_the_slider():
    """Review round 8, 02-4: lesson 02's d_k explorer has one slider, and its still copy said "move the
    sliders above"; with one control the caption says "the slider", with several "the sliders"."""
    dk = al.dk_explorer(n_keys=8, max_dk=128, seed=0)
    assert len(dk.controls) == 1
    assert dk.snapshot().caption.endswith("To explore, move the slider above.")
    dk.set(d_k=128)
    assert "as its slider stood when this cell ran" in dk.snapshot().caption
    assert lesson01_explorer().snapshot().caption.endswith("To explore, move the sliders above.")


def test_a_slider_the_browser_snapped_to_its_grid_still_counts_as_at_its_start():
    """The browser snaps a float slider to low + k * step in JavaScript's arithmetic and sends that back,
    maybe before the snapshot's cell runs (CI, lesson 03): 0.841 comes back as 0.8410000000000002. The
    caption must still say the start position; a move of one step must not."""
    X = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0.54, 0.841, 0.5, 0.25]])
    explorer = al.heads_explorer(X, np.eye(4), np.eye(4), np.eye(4), np.eye(4), ["a", "b", "c"],
                                 ["f0", "f1", "f2", "f3"], edit=2)
    c = next(c for c in explorer.controls if c.key == "f1")
    js = c.low + round((c.value - c.low) / c.step) * c.step           # what the browser computes
    assert js != c.value                                               # the float noise is really there
    explorer.sliders["f1"].value = js
    assert "at its start position" in explorer.snapshot().caption
    explorer.sliders["f1"].value = c.value + c.step
    assert "as its sliders stood when this cell ran" in explorer.snapshot().caption


def test_lesson01_explorer_by_hand():
    """x₂ = (1.5, 2, -0.5, 0.3): written out with the example's weights, no attention code used."""
    explorer = lesson01_explorer()
    explorer.set(noun=1.5, verb=2.0, animal=-0.5, small=0.3)
    # q₂ = x₂ W_q: verb -> 2·animal, small -> 1·noun, so q₂ = (0.3, 0, 4, 0); keys are the rows of X
    X = np.array([[1, 0, 1, 0], [1.5, 2.0, -0.5, 0.3], [0, 0, 0, 1], [1, 0, 1, 1]])
    scores = X @ np.array([0.3, 0, 4, 0])                     # scale 1 in lesson 01
    w = np.exp(scores) / np.exp(scores).sum()
    y = w @ (X * [1, 1, 2, 0.5])                              # values: x diag(1, 1, 2, 0.5)
    assert np.allclose(explorer.result["output"][0], y)
    assert np.allclose(explorer.axes["weights"].collections[0].get_array().ravel(), w)


def test_lesson01_explorer_colours_do_not_saturate_at_the_corner():
    # every slider at 3: chase's own score 27 wins, so y₂ ≈ v₂ = (3, 3, 6, 1.5) (issue 11's example)
    explorer = lesson01_explorer()
    explorer.set(noun=3.0, verb=3.0, animal=3.0, small=3.0)
    y = explorer.result["output"][0]
    assert np.allclose(y, [3, 3, 6, 1.5], atol=1e-6)
    norm = explorer.axes["output"].collections[0].norm
    assert norm.vmax >= 6 and norm.vmin <= -6


def test_an_impossible_input_shows_its_reason_and_no_stale_picture():
    def compute(values):
        if values["a"] > 1:
            raise ValueError("a must stay at most 1")
        return {"w": np.array([[values["a"] / 2, 1 - values["a"] / 2]])}
    explorer = Explorer([Control("a", "a", 0.0, 0.0, 2.0, 0.5)], compute,
                        [Panel("w", ["q"], ["k1", "k2"])], describe=lambda v, r: f"w = {r['w']}")
    good = explorer.image.value
    explorer.set(a=2.0)
    assert explorer.error == "a must stay at most 1"
    assert "al-error" in explorer.numbers.value and "a must stay at most 1" in explorer.numbers.value
    assert explorer.image.value != good and explorer.image.value == explorer.renderer.png(cells=False)
    explorer.set(a=0.5)
    assert explorer.error is None and "al-error" not in explorer.numbers.value
    assert np.allclose(explorer.axes["w"].collections[0].get_array(), [[0.25, 0.75]])


def test_building_an_explorer_draws_the_figure_once(monkeypatch):
    """seaborn asks for a full draw inside every heatmap(); the kit must not pay for it."""
    draws = []
    original = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda self, renderer: draws.append(1) or original(self, renderer))
    EXPLORERS["02 matrix_explorer (4×4 + 4×4)"]()
    assert len(draws) == 1


def test_set_unknown_slider_names_the_sliders():
    with pytest.raises(ValueError, match=r"no slider called \['colour'\].*noun"):
        lesson01_explorer().set(colour=1.0)


def test_weights_always_on_fixed_scale_and_text_contrast():
    ax = al.heatmap(np.array([[0.02, 0.96, 0.02]]), ["q"], ["a", "b", "c"])
    mesh = ax.collections[0]
    assert (mesh.norm.vmin, mesh.norm.vmax) == (0.0, 1.0)
    assert [t.get_color() for t in ax.texts] == ["k", "w", "k"]   # black on light, white on dark
    assert [t.get_text() for t in ax.texts] == ["0.02", "0.96", "0.02"]
    assert ax.get_xticklabels()[1].get_text() == "b" and ax.get_yticklabels()[0].get_text() == "q"


@pytest.mark.parametrize("role", ["query", "key", "value"])
def test_each_role_is_drawn_in_its_own_colour(role):
    from matplotlib.colors import to_hex
    ax = al.heatmap(np.array([[-1.0, 0.0, 1.0]]), ["r"], ["a", "b", "c"], kind=role)
    mesh = ax.collections[0]
    top = to_hex(mesh.cmap(mesh.norm(1.0)))                  # the largest value: the role's colour
    assert top == al.ROLE_COLORS[role].lower()
    assert np.allclose(mesh.cmap(mesh.norm(0.0))[:3], 1.0, atol=0.01)   # zero is white
    others = {to_hex(c).lower() for r, c in al.ROLE_COLORS.items() if r != role}
    assert top not in others


def test_every_explorer_factory_is_swept():
    factories = {name for name in al.__all__ if name.endswith("_explorer")}
    swept = {name for name in factories if any(name in key for key in EXPLORERS)}
    assert factories and swept == factories, f"not in demo_explorers(): {factories - swept}"


def test_numbers_are_stamped_with_the_slider_state():
    import html
    import json
    import re
    explorer = lesson01_explorer()
    explorer.set(verb=2.5)
    stamp = re.search(r'data-state="([^"]*)"', explorer.numbers.value).group(1)
    assert json.loads(html.unescape(stamp)) == explorer.values


def heads_demo():
    return EXPLORERS["03 heads_explorer (h × 6×6 + 6×4)"]()


def test_heads_explorer_layout_follows_the_number_of_heads():
    explorer = heads_demo()
    for h in (1, 2, 4):
        explorer.set(n_heads=h, head=h)
        heads = [k for k in explorer.axes if k.startswith("head")]
        assert len(heads) == h and explorer.sliders["head"].max == h
        ex = al.the_cat_sat()
        X = ex.X.copy()
        X[2] = [explorer.values[f] for f in ex.features]   # token 'sat' as the sliders set it
        k = 4 // h                          # head h by hand: its own column block, softmax, no library
        Q, K = X @ ex.W_q[:, (h - 1) * k:h * k], X @ ex.W_k[:, (h - 1) * k:h * k]
        S = Q @ K.T / np.sqrt(k)
        w = np.exp(S - S.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        assert np.allclose(explorer.axes["shown"].collections[0].get_array(), w)
        assert explorer.axes["shown"].get_title().startswith(f"head {h} of {h}")


def test_heads_explorer_head_selector_is_clamped():
    explorer = heads_demo()
    explorer.set(n_heads=4, head=4)
    explorer.set(n_heads=2)
    assert explorer.values["head"] == 2 and "head 2 of 2" in explorer.axes["shown"].get_title()


def test_titles_keep_their_size_after_updates():
    explorer = al.cross_explorer()
    sizes = {k: ax.title.get_fontsize() for k, ax in explorer.axes.items()}
    explorer.set(causal=False)
    assert {k: ax.title.get_fontsize() for k, ax in explorer.axes.items()} == sizes


def test_cross_explorer_masks_by_hand():
    explorer = al.cross_explorer()
    w_self, w_cross = explorer.result["self_weights"], explorer.result["cross_weights"]
    assert np.all(np.triu(w_self, k=1) == 0)          # causal: nothing above the diagonal
    assert np.all(w_cross[:, -1] == 0)                # padding: '<pad>' gets no weight
    explorer.set(causal=False, padding=False)
    assert explorer.result["self_weights"][np.triu_indices(4, k=1)].min() > 0
    assert explorer.result["cross_weights"][:, -1].min() > 0


def test_flow_picture_draws_the_lesson_numbers():
    ex = al.it_was_tired()
    fig = al.plot_flow(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens, ex.features)
    meshes = {ax.get_title(): np.array(ax.collections[0].get_array()) for ax in fig.axes if ax.collections}
    # by hand: only 'it' has a query, 8 on 'animal'; its score for 'cat' is 8/√4 = 4, all others 0
    S = np.zeros((7, 7))
    S[4, 0] = 4.0
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    assert np.allclose(meshes["scores Q Kᵀ·scale"], S) and np.allclose(meshes["weights = softmax"], A)
    assert np.allclose(meshes["Y = weights · V"], A @ ex.X)                 # W_v = I
    assert fig.axes[0].get_title() == "X (tokens)" and np.array_equal(meshes["X (tokens)"], ex.X)
    with pytest.raises(ValueError, match=r"X has shape \(7, 4\) but there are 6 tokens"):
        al.plot_flow(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.tokens[:6], ex.features)


def images(fig):
    """{title's first line: the array drawn} for the imshow blocks of a figure."""
    return {ax.get_title().split("\n")[0]: np.array(ax.images[0].get_array()) for ax in fig.axes if ax.images}


def test_plot_shapes_draws_the_products_from_the_numbers():
    Q = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])           # (3, 2)
    K = np.array([[1.0, 0.0], [0.0, 1.0]])                       # (2, 2): two keys
    V = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])             # (2, 3)
    fig = al.plot_shapes(Q, K, V, scale=1.0)
    drawn = images(fig)
    S = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])           # Q Kᵀ by hand (K = I)
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    assert np.array_equal(drawn["Q"], Q) and np.array_equal(drawn["Kᵀ"], K.T)
    assert np.allclose(drawn["scores Q Kᵀ"], S) and np.allclose(drawn["A = softmax(scores·scale)"], A)
    assert np.allclose(drawn["Y = A V"], A @ V)
    titles = [ax.get_title() for ax in fig.axes if ax.images]
    assert "Y = A V\n(3, 3)" in titles and "Kᵀ\n(2, 2)" in titles
    with pytest.raises(ValueError, match=r"plot_shapes draws one sequence"):
        al.plot_shapes(np.ones((2, 3, 2)), np.ones((2, 4, 2)), np.ones((2, 4, 2)))


def test_plot_heads_draws_each_heads_own_softmax():
    ex = al.the_cat_sat()
    fig = al.plot_heads(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 2, ex.tokens)
    meshes = {ax.get_title(): np.array(ax.collections[0].get_array()) for ax in fig.axes if ax.collections}
    Q, K, V = ex.X @ ex.W_q, ex.X @ ex.W_k, ex.X @ ex.W_v
    heads = []
    for i, cols in enumerate((slice(0, 2), slice(2, 4))):     # each head: its own 2 columns, ÷ √2
        S = Q[:, cols] @ K[:, cols].T / np.sqrt(2)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        A = A / A.sum(axis=1, keepdims=True)
        assert np.allclose(meshes[f"head {i + 1}"], A)
        heads.append(A @ V[:, cols])                          # (n, 2) head i's output
    drawn = images(fig)
    assert np.array_equal(drawn["W_O"], ex.W_O)
    assert np.allclose(drawn["Concat(heads)"], np.hstack(heads))      # head 1's columns, then head 2's
    assert np.allclose(drawn["output"], np.hstack(heads) @ ex.W_O)
    with pytest.raises(ValueError, match=r"n_heads is 3 but d_model is 4: n_heads must divide d_model"):
        al.plot_heads(ex.X, ex.W_q, ex.W_k, ex.W_v, ex.W_O, 3, ex.tokens)


def test_plot_encoder_decoder_draws_one_arrow_per_visible_weight():
    tr = al.translation()
    step = al.decoder_step(tr)
    fig = al.plot_encoder_decoder(tr.enc_tokens, tr.dec_tokens, step.self_weights, step.cross_weights)
    arrows = [t for t in fig.axes[0].texts if t.get_text() == ""]
    shown = [np.round(w, 2) for w in (step.cross_weights, step.self_weights)]   # as the heatmaps print them
    expected = sum((w >= 0.05).sum() for w in shown)                             # loops included
    assert len(arrows) == expected and step.cross_weights[:, 5].max() == 0     # none to <pad>
    words = {t.get_text() for t in fig.axes[0].texts}
    assert {"1.00", "0.71", "0.55", "0.53"} <= words           # each word's weight on itself, by its loop
    assert set(tr.enc_tokens) <= words and set(tr.dec_tokens) <= words
    with pytest.raises(ValueError, match=r"self_weights \(4, 4\) and cross_weights \(4, 5\) do not fit"):
        al.plot_encoder_decoder(tr.enc_tokens, tr.dec_tokens, step.self_weights, step.cross_weights[:, :5])
    bad = step.cross_weights.copy()
    bad[0, 0] = -1.0
    with pytest.raises(ValueError, match=r"cross_weights range from -1 to .*: expected attention weights"):
        al.plot_encoder_decoder(tr.enc_tokens, tr.dec_tokens, step.self_weights, bad)


def test_printout_problems_finds_each_kind_of_slip():
    assert al.printout_problems([2.0, 1.0, 0.0], [0.665, 0.245, 0.090]) == []
    assert al.printout_problems([2.0, 1.0], [-0.1, 1.1]) == [
        "weight -0.1 of key 0 is outside 0..1", "weight 1.1 of key 1 is outside 0..1",
        "key 0 scores 2 and key 1 1, but their weights -0.1 and 1.1 are in the other order"]
    assert al.printout_problems([1.0, 1.0, 0.0], [0.5, 0.3, 0.2]) == [
        "keys 0 and 1 have equal scores (1) but weights 0.5 and 0.3, further apart than the rounding allows "
        "(0.015)"]
    assert al.printout_problems([[0.0, 0.0]], [[0.4, 0.4]]) == [
        "row 0: the weights sum to 0.8, not 1 (off by -0.2; the rounding allows 0.01)"]
    with pytest.raises(ValueError, match=r"scores have shape \(3,\) and weights \(2,\): expected the same"):
        al.printout_problems([1, 2, 3], [0.5, 0.5])


def test_the_png_is_the_canvas_pixel_for_pixel():
    """The explorer's own PNG writer (no filter, zlib), decoded by Pillow: the canvas's RGB, every pixel."""
    import io

    from PIL import Image
    e = lesson01_explorer()
    e.set(**{e.controls[0].key: e.controls[0].high})
    decoded = np.asarray(Image.open(io.BytesIO(e.image.value)))
    canvas = e.renderer.pixels()
    assert decoded.shape == (*canvas.shape[:2], 3) and np.array_equal(decoded, canvas[..., :3])
    assert (canvas[..., 3] == 255).all()                              # opaque: RGB loses nothing
    assert len(np.unique(decoded.reshape(-1, 3), axis=0)) > 50        # a figure, not a blank


# ---------- an explorer's numbers wrap between words (lesson 07's readout showed "q uery's") -------------
LAB_PRE = ".jp-OutputArea-output pre { word-break: break-all; word-wrap: break-word; white-space: pre-wrap; }"
"""JupyterLab's rule for a pre in an output (jupyterlab's outputarea CSS), which the widget's pre sits in."""

LONG_LINE = "layer 2, mean weight on the token after the earlier copy of the query's token, and on"


def wrapped_lines(page, html_text: str, width_px: int) -> list[str]:
    """The lines Chromium lays a pre out in, inside a JupyterLab output `width_px` wide."""
    page.set_content(f"<style>{LAB_PRE}</style><div class='jp-OutputArea-output' "
                     f"style='width:{width_px}px; font-family:monospace'>{html_text}</div>")
    return page.evaluate("""() => {
        const pre = document.querySelector('pre'), text = pre.firstChild, range = document.createRange();
        const lines = []; let top = null;
        for (let i = 0; i < text.length; i++) {
            range.setStart(text, i); range.setEnd(text, i + 1);
            const rect = range.getClientRects()[0];
            if (!rect) continue;
            if (top === null || rect.top > top + 2) { lines.push(''); top = rect.top; }
            lines[lines.length - 1] += text.data[i];
        }
        return lines; }""")


def test_an_explorers_numbers_wrap_between_words_in_jupyterlab():
    """A narrow column beside the sliders wraps the numbers. JupyterLab's rule would cut a word anywhere
    (lesson 07's readout showed 'q' at a line's end and 'uery's' on the next); the explorer's own style
    wraps at the spaces. Checked in headless Chromium: each wrapped line but the last ends with a space,
    and the words read back whole. The same pre without that style cuts a word (the check can fail)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import lab_session
    if lab_session.browser_missing_reason():
        pytest.skip(lab_session.browser_missing_reason())
    explorer = Explorer([Control("a", "a", 0.0, 0.0, 1.0, 0.5)], lambda v: {"w": np.array([[0.5, 0.5]])},
                        [Panel("w", ["q"], ["k1", "k2"])], describe=lambda v, r: LONG_LINE)
    cut = []
    with lab_session.chromium_page() as page:
        for width in (300, 360, 420):
            ours = wrapped_lines(page, explorer.numbers.value, width)
            assert len(ours) > 1 and all(line.endswith(" ") for line in ours[:-1]), (width, ours)
            assert "".join(ours).split() == LONG_LINE.split()
            plain = wrapped_lines(page, explorer.numbers.value.replace(WRAP_AT_WORDS, ""), width)
            cut += [line for line in plain[:-1] if not line.endswith(" ")]
    assert cut                                                 # JupyterLab's own rule cuts a word somewhere
