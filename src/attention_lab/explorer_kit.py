"""The explorer kit: ipywidgets 8 sliders drive heatmaps that are updated in place, not rebuilt.

Two parts: `Explorer`, the widget controller (sliders, Reset, set/reset, the numbers or an error),
and `Renderer`, which owns the figure (panels drawn once, then repainted in place) and encodes it
as PNG. Both are lesson-neutral; the lessons' own explorers are built from them in explorers.py.
The UI stack (ipywidgets, matplotlib, seaborn) is imported when an explorer is first made,
so that `import attention_lab` stays quick.
"""

from __future__ import annotations

import html
import json
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .alt_text import AltImage, describe_figure

# Unhinted glyphs draw about a third faster, and at these sizes they look the same.
_FAST_TEXT = {"text.hinting": "none"}


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def slider_names(values: dict, sliders) -> dict:
    """`values` if every name in it is one of the `sliders`: ValueError naming the unknown ones otherwise."""
    unknown = set(values) - set(sliders)
    if unknown:
        raise ValueError(f"no slider called {sorted(unknown)}: the sliders are {list(sliders)}")
    return values
# pragma: no mutate end


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
    options: tuple = ()          # if given: a selection slider over these values (e.g. divisors), each a
    #                              value or a (label, value) pair
    toggle: bool = False         # True: an on/off button (value True or False), e.g. for a mask
    decimals: int | None = None  # readout decimals (default: as many as the step has)
    text: bool = False           # True: a text box (value a string, read when Enter is pressed)


@dataclass(frozen=True)
class Panel:
    """One heatmap of the explorer's figure, filled from compute()[key].

    kind="curve" draws a line instead: compute()[key] holds one y per x in `col_labels` (NaN where
    there is nothing yet), vmin and vmax fix the y range, and a dot marks the last finite point.
    kind="bars" draws one horizontal bar per row label, on the x range vmin..vmax: compute()[key] is
    (m,) bar lengths, or (2, m): the bar lengths, then one dot per bar (NaN: no dot).
    kind="thumbnails" draws every head at once (a model view): compute()[key] is (layers, heads, m, n)
    weights, `picks` are framed for good, and compute()[mark] = (layer, head) is framed in OPEN_COLOR.
    Panels with a higher `row` go below (each row as tall as its tallest `height`, default 1).
    """
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
    annot_size: int | None = None   # None: the projector size of heatmaps.FONT
    annot: bool = True              # False: colours only (thumbnails)
    cbar: bool = True
    width: float | None = None      # relative width in the figure (default: columns + 1.5)
    row: int = 0                    # panels with the same row sit side by side, rows top to bottom
    height: float | None = None     # relative height of its row (default 1)
    picks: tuple = ()               # thumbnails: ((name, (layer, head)), ...) framed in their colours
    mark: str | None = None         # thumbnails: the compute() key of the (layer, head) framed in red


def _on_grid(c: Control):
    """The start value rounded to the slider's grid low + k * step, within [low, high]."""
    k = round((c.value - c.low) / c.step)
    value = min(max(c.low + k * c.step, c.low), c.high)
    return round(value) if c.integer else round(value, 10)


# Run by the browser inside each explorer: ipywidgets 8 gives its sliders' handles (role=slider) no
# name, so this names each after the label beside it, and copies the alt text the kernel computes
# (data-alt, see Explorer.alt_text) onto the live image, again after every redraw.
NAMING_SCRIPT = """<script>
(function () {
  var me = document.currentScript, tries = 0;
  function name(box) {
    box.querySelectorAll('.widget-slider').forEach(function (s) {
      var label = s.querySelector('.widget-label');
      var text = label ? label.textContent.trim() : '';
      s.querySelectorAll('[role=slider]').forEach(function (h) {
        if (text && h.getAttribute('aria-label') !== text) { h.setAttribute('aria-label', text); }
      });
    });
    var words = box.querySelector('[data-alt]'), img = box.querySelector('img');
    if (words && img && img.alt !== words.dataset.alt) { img.alt = words.dataset.alt; }
  }
  function start() {
    var box = me.closest('.attention-lab-explorer');
    if (!box) { if (++tries < 300) { setTimeout(start, 100); } return; }
    name(box);
    new MutationObserver(function () { name(box); }).observe(box, {subtree: true, childList: true,
      characterData: true, attributes: true, attributeFilter: ['src', 'data-alt']});
  }
  start();
})();
</script>"""


def names_for_screen_readers():
    """A hidden Output widget whose HTML runs NAMING_SCRIPT (an Output widget's outputs are trusted,
    so JupyterLab runs their scripts; the HTML widget's are never run)."""
    import ipywidgets as widgets
    from IPython.display import HTML
    box = widgets.Output(layout=widgets.Layout(display="none"))
    box.append_display_data(HTML(NAMING_SCRIPT))
    return box


def _slider(c: Control):
    """An ipywidgets 8 slider for a Control, updating while it is dragged."""
    import ipywidgets as widgets
    common = {"description": c.label, "continuous_update": True,
              "style": {"description_width": "7em"}, "layout": widgets.Layout(width="26em")}
    if c.text:   # read on Enter (or when the box loses focus): a new text may run a whole model
        return widgets.Text(value=str(c.value), description=c.label, continuous_update=False,
                            style={"description_width": "7em"}, layout=widgets.Layout(width="40em"))
    if c.toggle:
        return widgets.ToggleButton(value=bool(c.value), description=c.label, icon="check",
                                    tooltip=f"switch {c.label} on or off",
                                    layout=widgets.Layout(width="14em"))
    if c.options:
        options = [o if isinstance(o, tuple) else (str(o), o) for o in c.options]   # (label, value) pairs
        return widgets.SelectionSlider(options=options, value=c.value, **common)
    if c.integer:
        return widgets.IntSlider(value=int(c.value), min=int(c.low), max=int(c.high),
                                 step=int(c.step), **common)
    decimals = c.decimals if c.decimals is not None else \
        max(1, -int(np.floor(np.log10(c.step) + 1e-9)))         # as many as the step has: 0.1 -> 1
    return widgets.FloatSlider(value=c.value, min=c.low, max=c.high, step=c.step,
                               readout_format=f".{decimals}f", **common)


def _curve(ax, p: Panel, x: np.ndarray, y: np.ndarray) -> None:
    """A line panel: axes fixed once (x from col_labels, y from vmin..vmax), then a line and a dot."""
    from .heatmaps import FONT
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(p.vmin, p.vmax)
    ax.set_xlabel(p.xlabel, fontsize=FONT["labels"])
    ax.set_ylabel(p.ylabel, fontsize=FONT["labels"])
    ax.tick_params(labelsize=FONT["ticks"])
    ax.grid(alpha=0.3)
    if p.title:
        ax.set_title(p.title, fontsize=FONT["title"])
    ax.plot(x, np.full_like(x, np.nan), color="#333333", lw=2)
    ax.plot([], [], "o", color="#b00020", ms=8)
    _set_curve(ax, x, y)


def _set_curve(ax, x: np.ndarray, y: np.ndarray) -> None:
    """New y values for a line panel; the dot moves to the last finite one."""
    line, dot = ax.lines[:2]
    line.set_ydata(y)
    seen = np.flatnonzero(np.isfinite(y))
    dot.set_data(x[seen[-1:]], y[seen[-1:]])


def _bars(ax, p: Panel, values: np.ndarray) -> None:
    """A bars panel: one bar per row label (the first on top), the x axis fixed at vmin..vmax, each bar's
    number at its end, and a dot per bar if `values` has a second row."""
    from .heatmaps import FONT
    m = len(p.row_labels)
    ax.barh(np.arange(m), np.zeros(m), height=0.7, color="#666666")   # white text on it: 5.7:1
    ax.plot(np.full(m, np.nan), np.arange(m), "D", color="#333333", ms=9)
    for i in range(m):
        ax.text(0.0, i, "", va="center", fontsize=FONT["annot"] - 1)
    ax.set_yticks(np.arange(m), p.row_labels, fontsize=FONT["ticks"])
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_xlim(p.vmin, p.vmax)
    ax.set_xlabel(p.xlabel, fontsize=FONT["labels"])
    ax.tick_params(axis="x", labelsize=FONT["ticks"])
    ax.grid(axis="x", alpha=0.3)
    if p.title:
        ax.set_title(p.title, fontsize=FONT["title"])
    _set_bars(ax, p, values)


def _set_bars(ax, p: Panel, values: np.ndarray) -> None:
    """New bar lengths (and dots) for a bars panel, each bar's number written at its end."""
    values = np.atleast_2d(values)
    dots = values[1] if len(values) > 1 else np.full(len(values[0]), np.nan)
    for bar, text, v, dot in zip(ax.patches, ax.texts, values[0], dots):
        bar.set_width(v)
        end = v if np.isnan(dot) else max(v, dot + 0.02 * (p.vmax - p.vmin))   # clear of the dot
        inside = end > p.vmin + 0.85 * (p.vmax - p.vmin)                # no room after it: inside the bar
        left = v if np.isnan(dot) else min(v, dot - 0.02 * (p.vmax - p.vmin))   # inside: before the dot
        text.set_x(left - 0.015 * (p.vmax - p.vmin) if inside else end + 0.015 * (p.vmax - p.vmin))
        text.set_horizontalalignment("right" if inside else "left")
        text.set_color("white" if inside else "black")
        text.set_text(format(v, p.fmt))
    ax.lines[0].set_xdata(dots)


def _thumbnails(ax, p: Panel, values: np.ndarray, mark) -> None:
    """A thumbnails panel: every head drawn once (static), the frame of the open head moving."""
    from .heatmaps import thumbnails
    thumbnails(ax, values, dict(p.picks), open_head=tuple(mark), title=p.title or "")


def _set_thumbnails(ax, values: np.ndarray, mark) -> None:
    """Move the open head's frame (the last patch) to mark = (layer, head)."""
    from .heatmaps import thumbnail_box
    (x, y), _, _ = thumbnail_box(*mark, *np.shape(values)[2:])
    ax.patches[-1].set_xy((x, y))


def _moving(ax, p: Panel) -> list:
    """What changes when a slider moves: a line and its dot, bars, dots and numbers, or a heatmap's cells
    and numbers."""
    if p.kind == "curve":
        return list(ax.lines[:2])
    if p.kind == "bars":
        return [*ax.patches, ax.lines[0], *ax.texts]
    if p.kind == "thumbnails":
        return [ax.patches[-1], *ax.patches[:-1]]      # the open head's frame, then the picks' over it
    return [ax.collections[0], *ax.texts]


class Renderer:
    """The figure of an explorer: panels drawn once, then repainted in place, encoded as PNG.

    It knows nothing of widgets: `show(panels, result)` draws `result[p.key]` into each panel,
    rebuilding the figure only when the layout (panels and data shapes) changed.
    """

    def __init__(self, figsize=(9.0, 2.6), dpi=100):
        from matplotlib.figure import Figure
        self.dpi = dpi              # at most: a wider figure than MOST_PIXELS gets fewer dots per inch
        self.figure = Figure(figsize=figsize, dpi=self._dpi_for(figsize))
        self.axes: dict = {}        # panel key -> its matplotlib Axes
        self.panels: list = []
        self._built_layout = None   # what the current figure was built for
        self._room: dict = {}       # panel key -> the length of each label the layout was made for
        self._curve_x: dict = {}    # panel key -> the x values of a line panel
        self._animated: list = []   # the artists repainted on every change
        self._canvas = self._background = None
        self._cells: dict = {}      # annotation Text -> (its cell's inner pixels, mesh, index in mesh)
        self._patches: dict = {}    # annotation Text -> {(text, text colour, cell colour): pixels}
        self._patch_bytes = 0
        self.keep_cells = True      # False: draw every number again on every change (for benchmarks)
        self._thumbs: dict = {}     # thumbnails panel key -> the weights drawn into it

    def _dpi_for(self, size) -> float:
        """Dots per inch: self.dpi, fewer if the figure would be wider than MOST_PIXELS (a long text's
        figure: JupyterLab shrinks it to the notebook's width anyway, and a smaller PNG is quicker)."""
        return min(self.dpi, MOST_PIXELS / size[0])

    @staticmethod
    def _layout(panels, result):
        """What fixes the figure's layout: the panels (titles included) and the shapes of their data."""
        return [(p, np.shape(result[p.key])) for p in panels]

    def _same_thumbnails(self, panels, result: dict) -> bool:
        """Whether every thumbnails panel would show the weights it was drawn with (they are static)."""
        return all(result[p.key] is self._thumbs.get(p.key)
                   or np.array_equal(result[p.key], self._thumbs[p.key])
                   for p in panels if p.kind == "thumbnails")

    def show(self, panels, result: dict) -> None:
        """Draw `result` into the panels: in place if the layout is unchanged (or only its labels changed,
        none longer than the built ones), else on a new figure."""
        import matplotlib as mpl
        layout = self._layout(panels, result)
        if layout != self._built_layout or not self._same_thumbnails(panels, result):
            if not self._relabel(panels, layout):
                with mpl.rc_context(_FAST_TEXT):
                    self._build(panels, result)
                return
        from .heatmaps import set_heatmap
        for p in panels:
            values = result[p.key] if p.kind == "thumbnails" else np.asarray(result[p.key], dtype=float)
            if p.kind == "curve":
                _set_curve(self.axes[p.key], self._curve_x[p.key], values)
            elif p.kind == "bars":
                _set_bars(self.axes[p.key], p, values)
            elif p.kind == "thumbnails":
                _set_thumbnails(self.axes[p.key], values, result[p.mark])
            else:
                set_heatmap(self.axes[p.key], values, p.fmt)

    def _relabel(self, panels, layout) -> bool:
        """Put new tick labels on the built heatmaps, if they are all that changed and none is longer
        than the labels the layout was made for (e.g. positions after a shift): one static draw instead
        of a new figure. False if the figure must be rebuilt."""
        import matplotlib as mpl
        built = self._built_layout or []

        def fits(p, q) -> bool:
            labels = [*p.row_labels, *p.col_labels]
            return (p.kind not in ("curve", "bars", "thumbnails")
                    and replace(p, row_labels=q.row_labels, col_labels=q.col_labels) == q
                    and len(p.row_labels) == len(q.row_labels) and len(p.col_labels) == len(q.col_labels)
                    and [len(str(a)) for a in labels] == self._room[q.key])
        if len(layout) != len(built) or not all(shape == old_shape and fits(p, q)
                                                for (p, shape), (q, old_shape) in zip(layout, built)):
            return False
        with mpl.rc_context(_FAST_TEXT):
            for p in panels:
                ax = self.axes[p.key]
                ax.set_yticklabels(p.row_labels)
                ax.set_xticklabels(p.col_labels)
            self._canvas.draw()                  # the animated cells are left out of the background
        self._background = self._canvas.copy_from_bbox(self.figure.bbox)
        self.panels, self._built_layout = list(panels), layout
        return True

    def _build(self, panels, result: dict) -> None:
        """Draw the panels once; keep the static background for blitting."""
        from matplotlib.backend_bases import FigureCanvasBase
        from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

        from .heatmaps import add_colorbar, heatmap
        self.figure.clear()
        self.panels = list(panels)
        self._room = {p.key: [len(str(a)) for a in [*p.row_labels, *p.col_labels]] for p in panels}
        # seaborn draws the whole figure once per heatmap (to check tick labels): keep the costly
        # constrained layout off until all panels exist, then lay out once.
        self.figure.set_layout_engine("none")
        self._built_layout = self._layout(panels, result)
        rows = sorted({p.row for p in panels})               # one row of panels, or several
        heights = [max(p.height or 1.0 for p in panels if p.row == r) for r in rows]
        grid = self.figure.add_gridspec(len(rows), 1, height_ratios=heights)
        axes = {}
        for i, r in enumerate(rows):
            row = [p for p in panels if p.row == r]
            widths = [p.width or len(p.col_labels) + 1.5 for p in row]
            cells = grid[i].subgridspec(1, len(row), width_ratios=widths)
            axes.update({p.key: self.figure.add_subplot(cells[0, j]) for j, p in enumerate(row)})
        axes = [axes[p.key] for p in panels]
        self.axes, self._curve_x, self._thumbs = {}, {}, {}
        # seaborn draws the whole figure inside every heatmap() to see whether tick labels overlap;
        # the explorers rotate labels themselves, so build on a canvas whose draw() does nothing
        # (5-10x faster). tests/test_explorers_and_plots.py counts the draws, so a change in
        # seaborn cannot slow this down unnoticed.
        FigureCanvasBase(self.figure)
        # seaborn then measures every tick label (to see whether they overlap); without a renderer, matplotlib
        # makes a new figure-sized one for each label it measures (1.3 s for a head view of 56 tokens): lend
        # the figure one renderer for the build (on the figure, not the canvas: a canvas with get_renderer
        # makes seaborn draw the whole figure again)
        measure = RendererAgg(*self.figure.bbox.size, self.figure.dpi)
        self.figure._get_renderer = lambda: measure
        try:
            for ax, p in zip(axes, panels):
                self.axes[p.key] = ax
                if p.kind == "curve":
                    self._curve_x[p.key] = np.asarray(p.col_labels, dtype=float)
                    _curve(ax, p, self._curve_x[p.key], np.asarray(result[p.key], dtype=float))
                    continue
                if p.kind == "bars":
                    _bars(ax, p, np.asarray(result[p.key], dtype=float))
                    continue
                if p.kind == "thumbnails":
                    self._thumbs[p.key] = result[p.key]
                    _thumbnails(ax, p, result[p.key], result[p.mark])
                    continue
                heatmap(result[p.key], p.row_labels, p.col_labels, ax=ax, kind=p.kind, title=p.title,
                        xlabel=p.xlabel, ylabel=p.ylabel, vmin=p.vmin, vmax=p.vmax, fmt=p.fmt,
                        annot_size=p.annot_size, annot=p.annot, cbar=False)
                ax.tick_params(axis="x", labelrotation=90 if p.width and p.width < len(p.col_labels) else 0)
        finally:
            del self.figure._get_renderer                     # the figure's own again, for the real canvas
        self._canvas = FigureCanvasAgg(self.figure)
        # Blitting: draw everything static once, keep that background, and on every change
        # repaint only the cells and their numbers (about 4x faster than a full draw).
        self._animated = [a for p in panels for a in _moving(self.axes[p.key], p)]
        for artist in self._animated:
            artist.set_animated(True)
        self.figure.set_layout_engine("constrained", w_pad=0.12, h_pad=0.08)   # inches of margin
        for p in panels:
            if p.cbar and p.kind not in ("curve", "bars", "thumbnails"):
                add_colorbar(self.axes[p.key])
        self._canvas.draw()
        self.figure.set_layout_engine("none")   # freeze the layout computed by that first draw
        self._background = self._canvas.copy_from_bbox(self.figure.bbox)
        self._cells = {t: cell for p in panels if p.kind not in ("curve", "bars", "thumbnails")
                       for t, cell in _inner_cells(self.axes[p.key], self.figure.bbox.height).items()}
        self._patches, self._patch_bytes = {}, 0

    def resize(self, size) -> bool:
        """A new figure size in inches (the next show() draws the figure anew); False if it is the same."""
        if tuple(size) == tuple(self.figure.get_size_inches()):
            return False
        self.figure.set_dpi(self._dpi_for(size))
        self.figure.set_size_inches(size)
        self._built_layout = None
        return True

    def png(self, cells: bool = True) -> bytes:
        """The figure as PNG bytes: the static background, then (unless cells=False) the cells."""
        import matplotlib as mpl
        with mpl.rc_context(_FAST_TEXT):
            self._canvas.restore_region(self._background)
            if cells:
                self._draw_cells()
        return png_bytes(np.asarray(self._canvas.buffer_rgba()))

    def pixels(self) -> np.ndarray:
        """The canvas as it stands: a (height, width, 4) RGBA copy."""
        return np.asarray(self._canvas.buffer_rgba()).copy()

    def full_redraw(self) -> np.ndarray:
        """Draw every moving artist again (no kept cells) on the background; return the pixels."""
        import matplotlib as mpl
        with mpl.rc_context(_FAST_TEXT):
            self._canvas.restore_region(self._background)
            for artist in self._animated:
                artist.axes.draw_artist(artist)
        return self.pixels()

    def _draw_cells(self) -> None:
        """Repaint the moving artists. Drawing a cell's number is most of the cost (16×16 heatmaps:
        hundreds of texts), so the inner pixels of each annotated cell are kept, keyed by what decides
        them (its number, the number's colour, the cell's colour), and pasted when they come back:
        the same pixels matplotlib draws, without drawing the text again."""
        pixels = np.asarray(self._canvas.buffer_rgba())            # (height, width, 4), writable
        colours: dict = {}                                          # mesh -> its cells' colours
        todo = []
        for artist in self._animated:
            cell = self._cells.get(artist) if self.keep_cells else None
            if cell is None:
                artist.axes.draw_artist(artist)
                continue
            (rows, cols), mesh, i = cell
            if mesh not in colours:
                colours[mesh] = mesh.cmap(mesh.norm(np.asarray(mesh.get_array(), dtype=float).ravel()))
            key = (artist.get_text(), str(artist.get_color()), tuple(colours[mesh][i]))
            patch = self._patches.get(artist, {}).get(key)
            if patch is None:
                todo.append((artist, key))
            else:
                pixels[rows, cols] = patch
        for artist, key in todo:                  # cells seen for the first time: draw, then keep
            artist.axes.draw_artist(artist)
            (rows, cols), _, _ = self._cells[artist]
            if self._patch_bytes < _PATCH_BUDGET and _inside(artist, self._canvas, rows, cols):
                patch = pixels[rows, cols].copy()
                self._patches.setdefault(artist, {})[key] = patch
                self._patch_bytes += patch.nbytes



def png_bytes(rgba: np.ndarray) -> bytes:
    """An opaque (height, width, 4) uint8 image as PNG: RGB rows, no filter, zlib level 1. About 3x quicker
    than Pillow's adaptive filters (14 ms against 47 for a 1340 x 1170 figure) for a file 15 % larger."""
    height, width = rgba.shape[:2]
    rows = np.zeros((height, 1 + 3 * width), np.uint8)                   # each row: filter 0, then R G B ...
    rows[:, 1:] = rgba[:, :, :3].reshape(height, 3 * width)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)         # 8 bits, RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1))
            + chunk(b"IEND", b""))


# the widest figure in pixels (16 inches at 100 dpi): JupyterLab's notebook column is narrower
MOST_PIXELS = 1600

# pixels kept for cells already drawn (about 3 kB per cell of a 16×16 explorer)
_PATCH_BUDGET = 32 * 2**20


def _inner_cells(ax, height: float) -> dict:
    """Annotation Text -> (row and column slices of its cell's inner pixels, the mesh, cell index).

    Inner: 2 pixels away from the cell's edges, so that the pixels depend only on the cell's own
    colour and number (the white grid lines and their antialiasing stay with the mesh)."""
    if not ax.collections or not ax.texts:
        return {}
    mesh, out = ax.collections[0], {}
    for i, text in enumerate(ax.texts):
        x, y = text.get_position()                                  # the cell's centre, data units
        (x0, y0), (x1, y1) = ax.transData.transform([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)])
        left, right = int(np.ceil(min(x0, x1))) + 2, int(np.floor(max(x0, x1))) - 2
        top = int(np.ceil(height - max(y0, y1))) + 2                # buffer rows run downwards
        bottom = int(np.floor(height - min(y0, y1))) - 2
        if right > left and bottom > top:
            out[text] = ((slice(top, bottom), slice(left, right)), mesh, i)
    return out


def _inside(text, canvas, rows: slice, cols: slice) -> bool:
    """Whether the drawn text (with a pixel to spare) lies within its cell's inner pixels."""
    box = text.get_window_extent(canvas.get_renderer())
    height = canvas.figure.bbox.height
    return (box.x0 - 1 >= cols.start and box.x1 + 1 <= cols.stop
            and height - box.y1 - 1 >= rows.start and height - box.y0 + 1 <= rows.stop)


WRAP_AT_WORDS = "white-space: pre-wrap; word-break: normal; overflow-wrap: break-word"
"""How an explorer's numbers wrap where the column beside its sliders is narrow: at the spaces between
words. JupyterLab's own rule for a pre in an output (.jp-OutputArea-output pre: word-break: break-all)
would cut a word anywhere ('q' | 'uery's'); the inline style wins over it, and a word longer than the
column still breaks (overflow-wrap) rather than reach past it."""


class Explorer:
    """Sliders -> compute(values) -> a Renderer repaints the panels -> one PNG in an Image widget.

    This class is the controller: the widgets, what happens when a slider moves, set/reset, and
    the numbers (or the reason for an impossible input) next to the sliders. `panels` is a list
    of Panel, or a function of the slider values returning one (for a layout that depends on a
    slider, such as one heatmap per head). `adjust(explorer)`, if given, runs before each update
    to keep sliders consistent with each other (e.g. 'show head' <= number of heads). `figsize` may be
    a function of the slider values too (a figure that grows with the text in a text box). While the
    input is impossible the panels show no cells, or, with hide_on_error, the figure is hidden.
    """

    def __init__(self, controls, compute: Callable[[dict], dict], panels, *,
                 describe: Callable[[dict, dict], str], figsize=(9.0, 2.6), dpi=100,
                 adjust: Callable[[Explorer], None] | None = None, hide_on_error: bool = False):
        import ipywidgets as widgets
        # the browser snaps a slider to its step grid when it first draws it: start on the grid,
        # so that the kernel, the browser and Reset all agree on the start position
        self.controls = [c if c.toggle or c.options or c.text else replace(c, value=_on_grid(c))
                         for c in controls]
        self._panel_spec = panels if callable(panels) else (lambda values, fixed=list(panels): fixed)
        self.compute, self.describe, self.adjust = compute, describe, adjust
        self.hide_on_error = hide_on_error   # True: no figure while the input is impossible (its labels
        #                                      would be the last text's words)
        self.sliders = {c.key: _slider(c) for c in self.controls}
        self.reset_button = widgets.Button(description="Reset", icon="undo",
                                           tooltip="Put every slider back where it started")
        self.reset_button.on_click(lambda _: self.reset())
        self._figsize = figsize if callable(figsize) else (lambda values, fixed=tuple(figsize): fixed)
        figsize = self._figsize(self.values)
        self.renderer = Renderer(figsize, dpi)
        self._holding = False
        self.error: str | None = None   # the message shown when the sliders reach an impossible input
        self.result = self.compute(self.values)
        self.panels = self._panel_spec(self.values)
        self.renderer.show(self.panels, self.result)
        self.image = widgets.Image(value=self.renderer.png(), format="png",
                                   layout=widgets.Layout(width="100%", height="auto", margin="0px",
                                                         max_width=f"{figsize[0] * self.figure.dpi:.0f}px"))
        self.numbers = widgets.HTML(self._numbers_html())
        for s in self.sliders.values():
            s.observe(self._on_change, names="value")
        self.widget = widgets.VBox([
            widgets.HBox([widgets.VBox([*self.sliders.values(), self.reset_button],   # never squeezed:
                                       layout=widgets.Layout(flex="0 0 auto")),    # readouts stay whole
                          self.numbers]),
            self.image, names_for_screen_readers()])
        self.widget.add_class("attention-lab-explorer")

    @property
    def figure(self):
        """The matplotlib Figure the renderer draws on."""
        return self.renderer.figure

    @property
    def axes(self) -> dict:
        """Panel key -> its matplotlib Axes."""
        return self.renderer.axes

    @property
    def values(self) -> dict:
        """Current slider values, by key."""
        return {k: s.value for k, s in self.sliders.items()}

    def snapshot(self) -> AltImage:
        """The figure as it is now, as a static image with its alt text (for the checked cell next to
        an explorer), captioned so that a student sees why the same picture stands under the live one."""
        return AltImage(bytes(self.image.value), self.alt_text(), caption=self.still_caption())

    def still_caption(self) -> str:
        """The caption of the snapshot: a static copy of the live explorer above it, and where its sliders
        were (the start position, if they were all there); 'the slider' for an explorer with one."""
        sliders = "slider" if len(self.controls) == 1 else "sliders"
        where = "at its start position" if self.at_start() else f"as its {sliders} stood when this cell ran"
        return (f"Static copy of the explorer above, {where}: it stays as it is, so you can compare (the "
                f"course site and the tests use it too). To explore, move the {sliders} above.")

    def at_start(self) -> bool:
        """Whether every slider stands where it started. A float slider counts within a millionth of its
        step: the browser snaps it to its grid in JavaScript's arithmetic (0.7070000000000001 for 0.707)."""
        now = self.values
        return all(now[c.key] == c.value if c.toggle or c.options or c.text or c.integer
                   else abs(now[c.key] - c.value) <= 1e-6 * c.step for c in self.controls)

    def alt_text(self) -> str:
        """The picture in words, as a screen reader reads it: the heatmaps, then the numbers printed."""
        if self.error is not None:
            return f"The heatmaps are empty: this input is impossible. {self.error}"
        return f"{describe_figure(self.figure)} The numbers beside it: {self.summary()}"

    def _numbers_html(self) -> str:
        """The numbers, stamped with the slider values they were computed from (for browser tests) and
        with the picture's alt text (copied onto the image in the browser: names_for_screen_readers)."""
        text = html.escape(self.describe(self.values, self.result))
        state = html.escape(json.dumps(self.values), quote=True)
        alt = html.escape(self.alt_text(), quote=True)
        return (f"<pre class='al-numbers' data-state=\"{state}\" data-alt=\"{alt}\" "
                f"style='font-size:15px; line-height:1.4; margin:0 1em; {WRAP_AT_WORDS}'>{text}</pre>")

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
        except ValueError as exc:
            # show the reason next to the sliders, and empty heatmaps: never the last good picture
            self.error = str(exc)
            alt = html.escape(self.alt_text(), quote=True)
            self.numbers.value = (f"<pre class='al-error' data-alt=\"{alt}\" "
                                  f"style='color:#b00020; font-size:15px; {WRAP_AT_WORDS}'>"
                                  f"{html.escape(self.error)}</pre>")
            self.image.value = self.renderer.png(cells=False)
            if self.hide_on_error:
                self.image.layout.display = "none"
            return
        self.error = None
        self.image.layout.display = None
        self.panels = self._panel_spec(self.values)
        size = tuple(self._figsize(self.values))
        if self.renderer.resize(size):                       # a longer text: a taller figure, drawn anew
            self.image.layout.max_width = f"{size[0] * self.figure.dpi:.0f}px"
        self.renderer.show(self.panels, self.result)
        self.image.value = self.renderer.png()
        self.numbers.value = self._numbers_html()

    def set(self, **values) -> None:
        """Move several sliders at once, then redraw once."""
        slider_names(values, self.sliders)
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
        """The numbers shown next to the sliders, as plain text (for a static, checked cell); the reason
        instead, while the sliders (or the text) hold an impossible input."""
        return self.error if self.error is not None else self.describe(self.values, self.result)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


