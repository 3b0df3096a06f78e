"""Slider explorers: ipywidgets 8 sliders drive heatmaps that are updated in place, not rebuilt."""

from __future__ import annotations

import contextlib
import html
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from unittest import mock

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
import seaborn.matrix
from IPython.display import Image as IPyImage
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image as PILImage

from ._validate import as_count, as_index, as_matrix
from .heads import multi_head_attention
from .loop import attend_one
from .matrix import project, self_attention, softmax
from .plots import add_colorbar, heatmap, subscript, update_heatmap

# Unhinted glyphs draw about a third faster, and at these sizes they look the same.
_FAST_TEXT = {"text.hinting": "none"}


@dataclass(frozen=True)
class Control:
    """One slider: its key, the label students see, start value and range."""
    key: str
    label: str
    value: float
    low: float = -3.0
    high: float = 3.0
    step: float = 0.1
    integer: bool = False
    options: tuple = ()          # if given: a selection slider over these values (e.g. divisors)
    toggle: bool = False         # True: an on/off button (value True or False), e.g. for a mask


@dataclass(frozen=True)
class Panel:
    """One heatmap of the explorer's figure, filled from compute()[key]."""
    key: str
    row_labels: list
    col_labels: list
    kind: str = "weights"
    title: str | None = None
    xlabel: str = "key"
    ylabel: str = "query"
    vmin: float | None = None
    vmax: float | None = None
    fmt: str = ".2f"
    annot_size: int | None = None   # None: the projector size of plots.FONT
    annot: bool = True              # False: colours only (thumbnails)
    cbar: bool = True
    width: float | None = None      # relative width in the figure (default: columns + 1.5)


def _no_seaborn_label_check():
    """seaborn draws the whole figure inside every heatmap() to see whether tick labels overlap;
    the explorers set label rotation themselves, so skip that draw while building (5-10x faster)."""
    if hasattr(seaborn.matrix, "_draw_figure"):
        return mock.patch.object(seaborn.matrix, "_draw_figure", lambda fig: None)
    return contextlib.nullcontext()


def _on_grid(c: Control):
    """The start value rounded to the slider's grid low + k * step, within [low, high]."""
    k = round((c.value - c.low) / c.step)
    value = min(max(c.low + k * c.step, c.low), c.high)
    return round(value) if c.integer else round(value, 10)


def _slider(c: Control):
    """An ipywidgets 8 slider for a Control, updating while it is dragged."""
    common = {"description": c.label, "continuous_update": True,
              "style": {"description_width": "7em"}, "layout": widgets.Layout(width="26em")}
    if c.toggle:
        return widgets.ToggleButton(value=bool(c.value), description=c.label, icon="check",
                                    tooltip=f"switch {c.label} on or off",
                                    layout=widgets.Layout(width="14em"))
    if c.options:
        return widgets.SelectionSlider(options=[(str(o), o) for o in c.options], value=c.value, **common)
    if c.integer:
        return widgets.IntSlider(value=int(c.value), min=int(c.low), max=int(c.high),
                                 step=int(c.step), **common)
    return widgets.FloatSlider(value=c.value, min=c.low, max=c.high, step=c.step,
                               readout_format=".1f", **common)


class Explorer:
    """Sliders -> compute(values) -> heatmaps updated in place -> one PNG in an Image widget.

    `panels` is a list of Panel, or a function of the slider values returning one (for a layout
    that depends on a slider, such as one heatmap per head); the figure is rebuilt only when the
    layout changes. `adjust(explorer)`, if given, runs before each update to keep sliders
    consistent with each other (e.g. 'show head' <= number of heads).
    """

    def __init__(self, controls, compute: Callable[[dict], dict], panels, *,
                 describe: Callable[[dict, dict], str], figsize=(9.0, 2.6), dpi=100,
                 adjust: Callable[[Explorer], None] | None = None):
        # the browser snaps a slider to its step grid when it first draws it: start on the grid,
        # so that the kernel, the browser and Reset all agree on the start position
        self.controls = [c if c.toggle or c.options else replace(c, value=_on_grid(c))
                         for c in controls]
        self._panel_spec = panels if callable(panels) else (lambda values, fixed=list(panels): fixed)
        self.compute, self.describe, self.adjust = compute, describe, adjust
        self.sliders = {c.key: _slider(c) for c in self.controls}
        self.reset_button = widgets.Button(description="Reset", icon="undo",
                                           tooltip="Put every slider back where it started")
        self.reset_button.on_click(lambda _: self.reset())
        self.figure = Figure(figsize=figsize, dpi=dpi)
        self._canvas = FigureCanvasAgg(self.figure)
        self._holding = False
        self.result = self.compute(self.values)
        self.panels = self._panel_spec(self.values)
        with mpl.rc_context(_FAST_TEXT):
            self._build_figure()
        self.image = widgets.Image(value=self._png(), format="png",
                                   layout=widgets.Layout(width="100%", height="auto", margin="0px",
                                                         max_width=f"{figsize[0] * dpi:.0f}px"))
        self.numbers = widgets.HTML(self._numbers_html())
        for s in self.sliders.values():
            s.observe(self._on_change, names="value")
        self.widget = widgets.VBox([
            widgets.HBox([widgets.VBox([*self.sliders.values(), self.reset_button]),
                          self.numbers]),
            self.image])
        self.widget.add_class("attention-lab-explorer")

    def _layout(self):
        """What fixes the figure's layout: the panels (titles included) and the shapes of their data."""
        return [(p, np.shape(self.result[p.key])) for p in self.panels]

    def _build_figure(self) -> None:
        """Draw the panels once; keep the static background for blitting."""
        self.figure.clear()
        # seaborn draws the whole figure once per heatmap (to check tick labels): keep the costly
        # constrained layout off until all panels exist, then lay out once.
        self.figure.set_layout_engine("none")
        self._built_layout = self._layout()
        widths = [p.width or len(p.col_labels) + 1.5 for p in self.panels]
        axes = self.figure.subplots(1, len(self.panels), squeeze=False, width_ratios=widths)[0]
        self.axes = {}
        with _no_seaborn_label_check():
            for ax, p in zip(axes, self.panels):
                self.axes[p.key] = heatmap(self.result[p.key], p.row_labels, p.col_labels, ax=ax,
                                           kind=p.kind, title=p.title, xlabel=p.xlabel,
                                           ylabel=p.ylabel, vmin=p.vmin, vmax=p.vmax, fmt=p.fmt,
                                           annot_size=p.annot_size, annot=p.annot, cbar=False)
                ax.tick_params(axis="x", labelrotation=90 if p.width and p.width < len(p.col_labels)
                               else 0)
        # Blitting: draw everything static once, keep that background, and on every change
        # repaint only the cells and their numbers (about 4x faster than a full draw).
        self._animated = [a for ax in self.axes.values() for a in (ax.collections[0], *ax.texts)]
        for artist in self._animated:
            artist.set_animated(True)
        self.figure.set_layout_engine("constrained", w_pad=0.12, h_pad=0.08)   # inches of margin
        for p in self.panels:
            if p.cbar:
                add_colorbar(self.axes[p.key])
        self._canvas.draw()
        self.figure.set_layout_engine("none")   # freeze the layout computed by that first draw
        self._background = self._canvas.copy_from_bbox(self.figure.bbox)

    @property
    def values(self) -> dict:
        """Current slider values, by key."""
        return {k: s.value for k, s in self.sliders.items()}

    def _png(self) -> bytes:
        with mpl.rc_context(_FAST_TEXT):
            self._canvas.restore_region(self._background)
            for artist in self._animated:
                artist.axes.draw_artist(artist)
        buf = io.BytesIO()   # opaque figure: RGB is enough, and quicker to encode than RGBA
        PILImage.frombuffer("RGBA", self._canvas.get_width_height(), self._canvas.buffer_rgba()
                            ).convert("RGB").save(buf, format="png", compress_level=1)
        return buf.getvalue()

    def snapshot(self):
        """The figure as it is now, as a static image (for the checked cell next to an explorer)."""
        return IPyImage(data=self.image.value, format="png")

    def _numbers_html(self) -> str:
        """The numbers, stamped with the slider values they were computed from (for browser tests)."""
        text = html.escape(self.describe(self.values, self.result))
        state = html.escape(json.dumps(self.values), quote=True)
        return (f"<pre class='al-numbers' data-state=\"{state}\" "
                f"style='font-size:15px; line-height:1.4; margin:0 1em'>{text}</pre>")

    def _on_change(self, change) -> None:
        if not self._holding:
            self.refresh()

    def refresh(self) -> None:
        """Recompute from the sliders and repaint the heatmaps in place (rebuild if the layout changed)."""
        if self.adjust is not None:
            self._holding = True
            try:
                self.adjust(self)
            finally:
                self._holding = False
        try:
            self.result = self.compute(self.values)
        except ValueError as exc:   # show the reason next to the sliders instead of failing silently
            self.numbers.value = f"<pre style='color:#b00020; font-size:15px'>{html.escape(str(exc))}</pre>"
            return
        self.panels = self._panel_spec(self.values)
        if self._layout() != self._built_layout:
            with mpl.rc_context(_FAST_TEXT):
                self._build_figure()
        else:
            for p in self.panels:
                update_heatmap(self.axes[p.key], self.result[p.key])
        self.image.value = self._png()
        self.numbers.value = self._numbers_html()

    def set(self, **values) -> None:
        """Move several sliders at once, then redraw once."""
        unknown = set(values) - set(self.sliders)
        if unknown:
            raise ValueError(f"no slider called {sorted(unknown)}: the sliders are {list(self.sliders)}")
        self._holding = True
        try:
            for c in self.controls:          # in the order of the sliders, keeping them consistent
                if c.key in values:
                    self.sliders[c.key].value = values[c.key]
                    if self.adjust is not None:
                        self.adjust(self)
        finally:
            self._holding = False
        self.refresh()

    def reset(self) -> None:
        """Every slider back to its start value."""
        self.set(**{c.key: c.value for c in self.controls})

    def summary(self) -> str:
        """The numbers shown next to the sliders, as plain text (for a static, checked cell)."""
        return self.describe(self.values, self.result)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _fmt(v) -> str:
    return np.array2string(np.asarray(v), precision=4, floatmode="fixed", suppress_small=True)


def _prepare(X, W_q, W_k, W_v, i, tokens, features):
    """Checked inputs of a lesson explorer -> (X, i, colour bound of the outputs, output labels)."""
    X = as_matrix(X, "X")
    _, _, V = project(X, W_q, W_k, W_v)   # validates every shape
    i = as_index(i, X.shape[0])
    if len(tokens) != X.shape[0] or len(features) != X.shape[1]:
        raise ValueError(f"X has shape {X.shape} but there are {len(tokens)} tokens and "
                         f"{len(features)} features: expected one word per row and one name per column")
    # Outputs are weighted averages of the value rows, so |y| <= max |v_j|: that fixes the colour
    # scale at the start (rounded up); colours then mean the same at every slider position.
    bound = float(max(np.ceil(np.abs(V).max()), 1.0))
    labels = list(features) if V.shape[1] == len(features) else [str(c) for c in range(V.shape[1])]
    return X, i, bound, labels


def token_explorer(i, X, W_q, W_k, W_v, tokens, features, scale=None, low=-3.0, high=3.0):
    """Sliders on the features of token i; heatmaps of its weights w_ij and of its output y_i."""
    X, i, bound, out_labels = _prepare(X, W_q, W_k, W_v, i, tokens, features)
    s = subscript(i + 1)

    def compute(values):
        Xi = X.copy()
        Xi[i] = [values[f] for f in features]
        y, w = attend_one(i, Xi, W_q, W_k, W_v, scale=scale)
        return {"weights": w[None, :], "output": y[None, :], "x": Xi[i]}

    def describe(values, r):
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"w{s}ⱼ = {_fmt(r['weights'][0])}  (sum {r['weights'].sum():.4f})\n"
                f"y{s} = {_fmt(r['output'][0])}")

    controls = [Control(f, f"x{s}[{f}]", float(X[i, c]), low, high) for c, f in enumerate(features)]
    panels = [Panel("weights", [f"{tokens[i]} (y{s})"], tokens, "weights",
                    f"weights w{s}ⱼ: what y{s} listens to", "key token", "query"),
              Panel("output", [f"y{s}"], out_labels, "value", f"output y{s}", "component", "",
                    -bound, bound)]
    return Explorer(controls, compute, panels, describe=describe, figsize=(10.0, 2.4))


def matrix_explorer(X, W_q, W_k, W_v, tokens, features, edit=1, low=-3.0, high=3.0, outputs=True):
    """Sliders on token `edit` and a temperature; heatmaps of all weights (n, n) and, if `outputs`,
    of the outputs (n, d_v)."""
    X, edit, bound, out_labels = _prepare(X, W_q, W_k, W_v, edit, tokens, features)
    d_k = as_matrix(W_q, "W_q").shape[1]
    s = subscript(edit + 1)

    def compute(values):
        Xe = X.copy()
        Xe[edit] = [values[f] for f in features]
        out, w = self_attention(Xe, W_q, W_k, W_v, scale=1.0 / (values["tau"] * np.sqrt(d_k)))
        return {"weights": w, "output": out, "x": Xe[edit]}

    def describe(values, r):
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"scale = 1/(τ·√d_k) = {1.0 / (values['tau'] * np.sqrt(d_k)):.4f}\n"
                f"row sums = {_fmt(r['weights'].sum(axis=1))}")

    controls = [Control(f, f"x{s}[{f}]", float(X[edit, c]), low, high)
                for c, f in enumerate(features)]
    controls.append(Control("tau", "τ (temp.)", 1.0, 0.1, 3.0, 0.1))
    panels = [Panel("weights", tokens, tokens, "weights", "weights: row = query, column = key",
                    "key token", "query token"),
              Panel("output", tokens, out_labels, "value", "outputs yᵢ (one row per token)",
                    "component", "", -bound, bound)][:2 if outputs else 1]
    return Explorer(controls, compute, panels, describe=describe, figsize=(10.0 if outputs else 6.0, 3.6))


def dk_explorer(n_keys=8, max_dk=128, seed=0):
    """Slider on d_k: weights of one random query over random keys, unscaled and divided by sqrt(d_k)."""
    n_keys = as_count(n_keys, "n_keys", minimum=2)
    max_dk = as_count(max_dk, "max_dk", minimum=2)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(max_dk)               # (max_dk,) unit-variance entries
    K = rng.standard_normal((n_keys, max_dk))     # (n_keys, max_dk)
    keys = [f"k{subscript(j + 1)}" for j in range(n_keys)]

    def compute(values):
        d_k = int(values["d_k"])
        scores = K[:, :d_k] @ q[:d_k]             # (n_keys,) first d_k features only
        return {"weights": np.vstack([softmax(scores), softmax(scores / np.sqrt(d_k))]),
                "scores": scores, "d_k": d_k}

    def describe(values, r):
        w = r["weights"]
        return (f"d_k = {r['d_k']}, √d_k = {np.sqrt(r['d_k']):.2f}\n"
                f"spread (std) of the scores q·kⱼ = {r['scores'].std():.2f}\n"
                f"largest weight: unscaled {w[0].max():.2f}, scaled {w[1].max():.2f}")

    controls = [Control("d_k", "d_k", min(16, max_dk), 1, max_dk, 1, integer=True)]
    panels = [Panel("weights", ["÷ 1 (unscaled)", "÷ √d_k (scaled)"], keys, "weights",
                    "weights of one query over random keys", "key", "")]
    return Explorer(controls, compute, panels, describe=describe, figsize=(9.0, 2.4))


def heads_explorer(X, W_q, W_k, W_v, W_o, tokens, features, edit=2, n_heads=2, low=-3.0, high=3.0):
    """Sliders on token `edit`, the number of heads (divisors of d_model) and the head shown;
    one weight heatmap per head, the selected head marked ▶, and the output Concat(heads) W_O."""
    X, edit, _, _ = _prepare(X, W_q, W_k, W_v, edit, tokens, features)
    d_model = X.shape[1]
    divisors = tuple(h for h in range(1, d_model + 1) if d_model % h == 0)
    if n_heads not in divisors:
        raise ValueError(f"n_heads is {n_heads!r} but d_model is {d_model}: choose one of {divisors}")
    W_o = as_matrix(W_o, "W_o", "(d_model, d_model)")
    multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)   # validates every shape
    V = X @ as_matrix(W_v, "W_v")
    # every concatenated entry is an average of values, so |output| <= max|v| * column sums of |W_o|
    bound = float(max(np.ceil(np.abs(V).max() * np.abs(W_o).sum(axis=0).max()), 1.0))
    s = subscript(edit + 1)
    out_labels = [str(c + 1) for c in range(d_model)]

    def adjust(explorer):
        explorer.sliders["head"].max = explorer.sliders["n_heads"].value   # clamps 'head' too

    def compute(values):
        Xe = X.copy()
        Xe[edit] = [values[f] for f in features]
        out, w = multi_head_attention(Xe, Xe, W_q, W_k, W_v, W_o, values["n_heads"])
        shown = min(values["head"], values["n_heads"])
        return {**{f"head{i}": w[i] for i in range(len(w))}, "shown": w[shown - 1],
                "output": out, "x": Xe[edit]}

    def panels(values):
        # every head as a small map of colours, the selected head with its numbers, the output
        h, shown = values["n_heads"], min(values["head"], values["n_heads"])
        blank = ["" for _ in tokens]
        thumbs = [Panel(f"head{i}", blank if i else tokens, tokens if h <= 2 else blank, "weights",
                        ("▶ " if i + 1 == shown else "") + f"head {i + 1}", "", "",
                        annot=False, cbar=False, width=7.0 / h)   # all heads share one width
                  for i in range(h)]
        shown_panel = Panel("shown", tokens, tokens, "weights", f"head {shown} of {h} (k = {d_model // h})",
                            "key", "query", annot_size=11)
        output_panel = Panel("output", tokens, out_labels, "value", "Concat(heads) · W_O",
                             "column", "", -bound, bound, annot_size=10, width=len(out_labels) + 1.6)
        return [*thumbs, shown_panel, output_panel]

    def describe(values, r):
        h, shown = values["n_heads"], min(values["head"], values["n_heads"])
        w = r[f"head{shown - 1}"]
        best = ", ".join(f"{tokens[q]}→{tokens[int(np.argmax(w[q]))]}" for q in range(len(tokens)))
        return (f"x{s} = {_fmt(r['x'])}\n"
                f"h = {h} heads of width k = d_model/h = {d_model // h}\n"
                f"head {shown}: each query's strongest key\n  {best}")

    controls = [Control(f, f"x{s}[{f}]", float(X[edit, c]), low, high) for c, f in enumerate(features)]
    controls += [Control("n_heads", "heads h", n_heads, options=divisors),
                 Control("head", "show head", 1, 1, n_heads, 1, integer=True)]
    return Explorer(controls, compute, panels, describe=describe, figsize=(12.0, 3.4), adjust=adjust)


def cross_explorer(ex=None, edit=2, low=-3.0, high=3.0):
    """A decoder step (masked self-attention, then cross-attention over the encoder) with sliders on
    decoder token `edit` and buttons for the causal and the padding mask."""
    from .examples import decoder_step, translation
    ex = translation() if ex is None else ex
    X_dec = as_matrix(ex["X_dec"], "X_dec")
    edit = as_index(edit, X_dec.shape[0])
    features, dec, enc = ex["features"], ex["dec_tokens"], ex["enc_tokens"]
    decoder_step(ex)   # validates every shape before any widget is made
    s = subscript(edit + 1)

    def compute(values):
        step = dict(ex, X_dec=X_dec.copy())
        step["X_dec"][edit] = [values[f] for f in features]
        r = decoder_step(step, causal=values["causal"], padding=values["padding"])
        return {**r, "x": step["X_dec"][edit]}

    def describe(values, r):
        on = {True: "on", False: "off"}
        sums = [f"{t} {v:.2f}" for t, v in zip(enc, r["cross_weights"].sum(axis=0))]
        half = (len(sums) + 1) // 2
        return (f"{dec[edit]}: x{s} = {_fmt(r['x'])}\n"
                f"causal mask {on[values['causal']]}, padding mask {on[values['padding']]}\n"
                f"cross-attention rows sum to 1; columns sum to:\n"
                f"  {'  '.join(sums[:half])}\n  {'  '.join(sums[half:])}")

    controls = [Control(f, f"{dec[edit]}[{f}]", float(X_dec[edit, c]), low, high)
                for c, f in enumerate(features)]
    controls += [Control("causal", "causal mask", True, toggle=True),
                 Control("padding", "padding mask", True, toggle=True)]
    panels = [Panel("self_weights", dec, dec, "weights", "decoder self-attention", "key (French, so far)",
                    "query (French)"),
              Panel("cross_weights", dec, enc, "weights", "cross-attention: French → English",
                    "key (English, encoder)", "query (French)")]
    return Explorer(controls, compute, panels, describe=describe, figsize=(11.0, 3.4))


def demo_explorers() -> dict:
    """Every explorer the lessons use, built on the lessons' data (for sweeps and the benchmark)."""
    from .examples import cats_chase_mice, the_cat_sat
    ex, cat = cats_chase_mice(), the_cat_sat()
    args = (ex["X"], ex["W_q"], ex["W_k"], ex["W_v"])
    return {
        "01 token_explorer (y₂, 1×4 + 1×4)":
            lambda: token_explorer(1, *args, ex["tokens"], ex["features"], scale=1.0),
        "02 matrix_explorer (4×4 + 4×4)":
            lambda: matrix_explorer(*args, ex["tokens"], ex["features"]),
        "02 matrix_explorer, weights only (4×4)":
            lambda: matrix_explorer(*args, ex["tokens"], ex["features"], outputs=False),
        "02 dk_explorer (2×8)": dk_explorer,
        "04 cross_explorer (4×4 + 4×6)": cross_explorer,
        "03 heads_explorer (h × 6×6 + 6×4)": lambda: heads_explorer(
            *(cat[k] for k in ("X", "W_q", "W_k", "W_v", "W_o", "tokens", "features"))),
    }
