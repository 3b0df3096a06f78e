"""Figures in words: alt text read from a matplotlib figure, and the HTML image that carries it.

A screen reader cannot see a heatmap, so every figure a lesson shows is also put into words: for a
matrix, its title, its rows and columns by their token words, and the strongest entry in each row;
for a curve, its axes and where each line starts and ends; for a diagram, its words. `install()` makes
IPython show each figure as an `<img>` with that text as its `alt` (the PNG stays in the output too,
for front ends that do not show HTML). The explorers' live image gets the same kind of text from the
summary they print (explorer_kit.py).
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import sys
import weakref

import numpy as np

MAX_ROWS = 12          # a bigger matrix is described by its strongest entries, not row by row
MAX_NAMES = 12         # at most this many row or column names are listed
STRONGEST = 5          # how many entries a big matrix names


# ------------------------------------------------------------ the door: checks of this module's inputs
# pragma: no mutate start  (input checks are not mutated: docs/mutation-testing.md)
def a_figure(fig) -> object:
    """`fig` if it is a matplotlib Figure: TypeError otherwise."""
    from matplotlib.figure import Figure
    if not isinstance(fig, Figure):
        raise TypeError(f"expected a matplotlib Figure, got {type(fig).__name__}")
    return fig
# pragma: no mutate end


# ------------------------------------------------------------ words for each kind of axes
def clean(text: str) -> str:
    """One line of plain text: TeX dollars and line breaks gone, spaces collapsed."""
    return " ".join(str(text).replace("$", "").replace("-\n", "-").split())


def names(labels) -> list[str]:
    """The texts of tick labels (empty ones dropped)."""
    return [clean(t.get_text()) for t in labels if clean(t.get_text())]


def listed(items: list[str], limit: int = MAX_NAMES) -> str:
    """'a, b, c' or 'a, b, … (20 in all)'."""
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit - 1]) + f", … ({len(items)} in all)"


def number(value: float) -> str:
    """A value as a reader hears it: 2 decimals; 2 significant digits when small (0.00036, never 3.6e-04);
    a whole number with thousands separated when large (98,400); never '-0.00'."""
    value = float(value)
    if abs(round(value, 2)) >= 1000:     # 999.996 too: it would read "1000.00" with 2 decimals
        return f"{value:,.0f}"
    if value == 0 or abs(value) >= 0.01:
        text = f"{value:.2f}"
        return text[1:] if text == "-0.00" else text
    return np.format_float_positional(value, precision=2, unique=False, fractional=False, trim="-")


def plural(count: int, noun: str) -> str:
    """'1 cell', '3 cells'."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def told_apart(labels: list[str]) -> list[str]:
    """Labels as they are, or with their place (from 0) where one repeats: '0: the', …, '4: the'."""
    if len(set(labels)) == len(labels):
        return labels
    return [f"{i}: {label}" for i, label in enumerate(labels)]


def matrix_of(ax):
    """The (rows, columns) values of the axes' heatmap or image, with NaN where masked; None if none."""
    from matplotlib.collections import QuadMesh
    for artist in [*ax.collections, *ax.images]:
        if isinstance(artist, QuadMesh) or artist in ax.images:
            values = artist.get_array()
            if values is None:
                continue
            values = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan)
            if values.ndim == 1:
                rows, cols = len(ax.get_yticklabels()), len(ax.get_xticklabels())
                if rows * cols != values.size:
                    continue
                values = values.reshape(rows, cols)
            if values.ndim == 3:     # an RGB(A) picture: not a matrix of numbers
                continue
            return values
    return None


def side(count: int, noun: str, labels: list[str], axis_label: str) -> str:
    """'6 rows (query: the, cat, …)', '6 rows (the, cat, …)' or '6 rows'."""
    inside = ": ".join(x for x in (axis_label, listed(labels)) if x)
    return plural(count, noun) + (f" ({inside})" if inside else "")


def with_axis_name(labels: list[str], axis_label: str) -> list[str]:
    """Bare numbers named by their axis ('18' on the axis 'layer' -> 'layer 18'); other labels as they are."""
    short = axis_label.split(" (")[0].strip()
    if short and all(label.lstrip("-−").replace(".", "", 1).isdigit() for label in labels):
        return [f"{short} {label}" for label in labels]
    return labels


def tied(values: np.ndarray) -> np.ndarray:
    """Where `values` read the same as their largest (at the precision they are spoken: number())."""
    high = number(np.nanmax(values))
    return np.array([np.isfinite(v) and number(v) == high for v in values.ravel()]).reshape(values.shape)


def row_best(row: str, values: np.ndarray, cols: list[str]) -> str:
    """'cat → the 0.89', or with a tie every key that reads as the largest: 'the → the, mat 0.50 (tie)'."""
    at = [cols[j] for j in np.flatnonzero(tied(values))]
    if len(at) == np.isfinite(values).sum() > 1:
        return f"{row}: every entry {number(np.nanmax(values))}"
    return f"{row} → {', '.join(at)} {number(np.nanmax(values))}" + (" (tie)" if len(at) > 1 else "")


def describe_matrix(ax, values: np.ndarray, known_rows: list[str] | None = None, brief: bool = False) -> str:
    """A heatmap in words: its size, row and column names, and its strongest entries (in each row, or
    overall when the matrix is big or `brief`). Rows without tick labels take `known_rows` (the row
    names of a panel beside it), if they are as many."""
    rows, cols = names(ax.get_yticklabels()), names(ax.get_xticklabels())
    m, n = values.shape
    rows = rows if len(rows) == m else (known_rows if known_rows and len(known_rows) == m else [])
    cols = cols if len(cols) == n else []
    rows, cols = told_apart(rows), told_apart(cols)
    text = (f"a heatmap of {side(m, 'row', rows, clean(ax.get_ylabel()))} by "
            f"{side(n, 'column', cols, clean(ax.get_xlabel()))}")
    rows_named, cols_named = bool(rows), bool(cols)
    rows = rows or [f"row {i}" for i in range(m)]            # counted from 0, as the lessons count
    cols = cols or [f"column {j}" for j in range(n)]
    rows = with_axis_name(rows, clean(ax.get_ylabel()))      # bare numbers: 'layer 18', not '18'
    cols = with_axis_name(cols, clean(ax.get_xlabel()))
    if not np.isfinite(values).any():
        return text + "; every cell is empty"
    if m == 1 and n > 20 and np.all(np.diff(values[0]) >= 0):
        return f"a colour scale from {number(values[0, 0])} to {number(values[0, -1])}"
    masked = int(np.isnan(values).sum())
    if m * n > 10_000 and not rows_named and not cols_named and masked:   # small heatmaps in one image
        return (f"a grid of small heatmaps with blank gaps between them ({m} × {n} pixels in all); "
                f"values from {number(np.nanmin(values))} to {number(np.nanmax(values))}")
    if masked:
        text += f"; {plural(masked, 'cell')} masked (blank)"
    if m <= MAX_ROWS and n > 1 and not brief:
        best = [row_best(rows[i], values[i], cols) for i in range(m) if np.isfinite(values[i]).any()]
        text += "; the largest entry in each row: " + "; ".join(best)
    else:
        at = np.flatnonzero(tied(values).ravel())
        cells = [f"{rows[k // n]} → {cols[k % n]}" for k in at]
        if len(at) == np.isfinite(values).sum() > 1:
            text += f"; every entry {number(np.nanmax(values))}"
        elif len(at) > 1:
            text += (f"; {len(at)} entries tie for the largest, {number(np.nanmax(values))}: "
                     + listed(cells, STRONGEST + 1))
        elif brief:
            text += f"; the largest entry: {cells[0]} {number(np.nanmax(values))}"
        else:
            flat = np.where(np.isfinite(values), values, -np.inf).ravel()
            top = [k for k in np.argsort(-flat, kind="stable")[:STRONGEST] if np.isfinite(flat[k])]
            text += f"; the largest entr{'y' if len(top) == 1 else 'ies'}: " + "; ".join(
                f"{rows[k // n]} → {cols[k % n]} {number(flat[k])}" for k in top)
    low, high = np.nanmin(values), np.nanmax(values)
    return text + f"; values from {number(low)} to {number(high)}"


def reference_line(ax, ln) -> str | None:
    """'a horizontal line at 3.18 (label)' for an axhline or axvline (drawn across the axes), else None."""
    if ln.get_transform() == ax.transData:
        return None
    x, y = np.asarray(ln.get_xdata(), dtype=float), np.asarray(ln.get_ydata(), dtype=float)
    label = clean(ln.get_label())
    label = "" if label.startswith("_") else f" ({label})"
    if np.ptp(y) == 0:
        return f"a horizontal line at {number(y[0])}{label}"
    if np.ptp(x) == 0:
        return f"a vertical line at {number(x[0])}{label}"
    return None


def describe_lines(ax) -> str:
    """A line chart in words: its axes and where each line starts and ends (named lines first)."""
    lines = [ln for ln in ax.get_lines() if len(np.atleast_1d(ln.get_xdata())) > 1]
    marks = [r for r in (reference_line(ax, ln) for ln in lines) if r]
    curves = [ln for ln in lines if reference_line(ax, ln) is None]
    named = [ln for ln in curves if not ln.get_label().startswith("_")] or curves[:3]
    text = f"a line chart of {len(curves)} line{'s' if len(curves) != 1 else ''}"
    xlabel, ylabel = clean(ax.get_xlabel()), clean(ax.get_ylabel())
    if xlabel or ylabel:
        text += f", {ylabel or 'y'} against {xlabel or 'x'}"
    described = []
    for ln in named[:6]:
        x = np.asarray(ln.get_xdata(), dtype=float)
        y = np.asarray(ln.get_ydata(), dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        if not ok.any():
            continue
        x, y = x[ok], y[ok]
        label = clean(ln.get_label())
        label = "" if label.startswith("_") else label + ": "
        described.append(f"{label}from {number(y[0])} at {number(x[0])} to {number(y[-1])} at "
                         f"{number(x[-1])} (lowest {number(y.min())}, highest {number(y.max())})")
    return text + "".join("; " + d for d in described + marks)


def tick_name(axis, at: float, axis_label: str, shared=()) -> str:
    """The tick label at a position (read from `shared` axes too, which may hold the labels), or the
    axis's short name and the position ('block 3'); a bare number gets the short name as well."""
    short = axis_label.split(" (")[0].strip()
    for other in (axis, *shared):
        for loc, label in zip(other.get_ticklocs(), other.get_majorticklabels()):
            text = clean(label.get_text())
            if abs(loc - at) < 1e-6 and text:
                return f"{short} {text}".strip() if text.replace(".", "").lstrip("-−").isdigit() else text
    return f"{short} {at:g}".strip() if short else f"at {at:g}"


def label_of(ax, which: str) -> str:
    """The axis label of `ax` on x or y, or else that of an axes sharing the axis."""
    axes = [ax, *(ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()).get_siblings(ax)]
    texts = [clean(a.get_xlabel() if which == "x" else a.get_ylabel()) for a in axes]
    return next((t for t in texts if t), "")


def describe_bars(ax) -> str:
    """A bar chart in words: each bar's name (its tick label) and length; the largest ones if many."""
    from matplotlib.container import BarContainer
    pairs, measure, missing = [], "", 0
    for c in ax.containers:
        if not isinstance(c, BarContainer):
            continue
        vertical = c.orientation == "vertical"
        axis, which = (ax.xaxis, "x") if vertical else (ax.yaxis, "y")
        group = ax.get_shared_x_axes() if vertical else ax.get_shared_y_axes()
        shared = [getattr(o, f"{which}axis") for o in group.get_siblings(ax) if o is not ax]
        measure = measure or clean(ax.get_ylabel() if vertical else ax.get_xlabel())
        for bar, size in zip(c, c.datavalues):
            if not np.isfinite(size):
                missing += 1
                continue
            at = bar.get_x() + bar.get_width() / 2 if vertical else bar.get_y() + bar.get_height() / 2
            pairs.append((tick_name(axis, at, label_of(ax, which), shared), float(size)))
    text = f"a bar chart of {plural(len(pairs) + missing, 'bar')}" + (f" ({measure})" if measure else "")
    if missing:
        text += f", {missing} of them missing (no value)"
    if len(pairs) > MAX_NAMES:
        top = sorted(range(len(pairs)), key=lambda i: -pairs[i][1])[:STRONGEST]
        return text + "; the longest: " + ", ".join(f"{pairs[i][0]} {number(pairs[i][1])}" for i in top)
    return text + ": " + ", ".join(f"{name} {number(size)}" for name, size in pairs)


def describe_words(ax) -> str:
    """A diagram in words: the texts drawn on it, in reading order (a lone sign, such as the @ between
    two matrices, is named as a sign)."""
    texts = sorted((t for t in ax.texts if clean(t.get_text())),
                   key=lambda t: (-round(float(t.get_position()[1]), 3), float(t.get_position()[0])))
    words = [clean(t.get_text()) for t in texts]
    if len(words) == 1 and not any(ch.isalnum() for ch in words[0]):
        return f"the sign {words[0]}"
    if not words and len(ax.patches) == 1 and not ax.axison and not ax.collections:
        return f"a swatch of {colour_name(ax.patches[0].get_facecolor())}"
    return "a diagram" + (" with the words: " + listed(words, 24) if words else "")


# the collection's own colours (heatmaps.ROLE_COLORS, LINE_COLORS, OPEN_COLOR, SCORES_RED), by name
COLOUR_NAMES = {"#0072b2": "blue", "#d55e00": "red-orange", "#009e73": "green", "#cc79a7": "pink",
                "#333333": "dark grey", "#b00020": "red", "#a9373b": "dark red"}


def colour_name(colour) -> str:
    """A colour's name where the collection uses it, else its hex code."""
    from matplotlib.colors import to_hex
    code = to_hex(colour)
    return COLOUR_NAMES.get(code, code)


def legend_words(ax) -> str:
    """'; legend: a, b' for an axes with a legend, else ''."""
    legend = ax.get_legend()
    texts = [clean(t.get_text()) for t in legend.get_texts()] if legend is not None else []
    return f"; legend: {'; '.join(t for t in texts if t)}" if any(texts) else ""


def describe_axes(ax, known_rows: list[str] | None = None, brief: bool = False) -> str:
    """One axes in words: its title, then what it draws, then its legend."""
    title = clean(ax.get_title()) or clean(ax.get_title(loc="left"))
    values = matrix_of(ax)
    if values is not None and values.ndim == 2:
        what = describe_matrix(ax, values, known_rows, brief)
    elif ax.containers:
        what = describe_bars(ax)
    elif any(len(np.atleast_1d(ln.get_xdata())) > 1 for ln in ax.get_lines()):
        what = describe_lines(ax)
    else:
        what = describe_words(ax)
    what += legend_words(ax)
    return f"“{title}”: {what}" if title else what


# words a picture function chose for its figure (say): they replace the words read from the figure
SAID: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def say(fig, words: str):
    """Give a figure its own alt text (e.g. where its numbers are this machine's timings, which the
    words read from the figure would repeat); returns the figure."""
    # pragma: no mutate start  (the door: input checks are not mutated)
    if not isinstance(words, str) or not words.strip():
        raise ValueError("expected a non-empty alt text that says what the figure shows")
    # pragma: no mutate end
    SAID[a_figure(fig)] = words
    return fig


def describe_figure(fig) -> str:
    """The figure in words (its alt text): every panel's title and what it shows. With more than three
    panels, each heatmap names only its largest entry. Words given with say() come instead."""
    fig = a_figure(fig)
    if fig in SAID:
        return SAID[fig]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"
              and (ax.axison or ax.texts or ax.images or ax.collections or ax.patches)]
    known_rows = next((names(ax.get_yticklabels()) for ax in panels if names(ax.get_yticklabels())), None)
    said = [describe_axes(ax, known_rows, brief=len(panels) > 3) for ax in panels]
    said = [s for s in said if s != "a diagram"] or said[:1]
    suptitle = clean(fig.get_suptitle())
    head = f"Figure “{suptitle}”" if suptitle else "Figure"
    if len(said) > 1:
        return head + f" with {len(said)} panels. " + " ".join(f"{i + 1}) {s}." for i, s in enumerate(said))
    return head + ". " + (f"{said[0][0].upper()}{said[0][1:]}." if said else "")


# ------------------------------------------------------------ the HTML image IPython shows
def figure_png(fig) -> bytes:
    """The figure as the inline backend draws it: IPython's print_figure arguments (tight bounding box)."""
    buffer = io.BytesIO()
    fig.canvas.print_figure(buffer, format="png", facecolor=fig.get_facecolor(),
                            edgecolor=fig.get_edgecolor(), dpi=fig.dpi, bbox_inches="tight")
    return buffer.getvalue()


@contextlib.contextmanager
def one_render(fig):
    """While IPython formats `fig`: a second print of it with the same arguments (the PNG formatter's, after
    figure_html's) writes the bytes of the first instead of drawing the figure again. Nothing can change
    the figure between the two, and a figure drawn twice is not always drawn alike (constrained layout
    moves on), so the <img> and the PNG are one picture."""
    canvas = getattr(fig, "canvas", None)
    if canvas is None:
        yield
        return
    printed: dict[str, bytes] = {}
    draw = canvas.print_figure

    def print_once(filename, *args, **kwargs):
        if args or not isinstance(filename, io.BytesIO):
            return draw(filename, *args, **kwargs)
        key = repr(sorted(kwargs.items()))
        if key not in printed:
            buffer = io.BytesIO()
            draw(buffer, **kwargs)
            printed[key] = buffer.getvalue()
        filename.write(printed[key])
        return None

    canvas.print_figure = print_once
    try:
        yield
    finally:
        del canvas.print_figure                  # the canvas's own method again


def image_html(png: bytes, alt: str) -> str:
    """An <img> holding a PNG and its alt text (the text is escaped)."""
    data = base64.b64encode(png).decode("ascii")
    return (f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt, quote=True)}" '
            f'style="max-width:100%">')


def figure_html(fig) -> str:
    """A figure as an <img> with its alt text: the HTML that IPython shows for it."""
    png = figure_png(a_figure(fig))    # drawn first: tick labels exist once the figure is drawn
    return image_html(png, describe_figure(fig))


def install(shell=None) -> bool:
    """Show every matplotlib figure as an <img> with alt text in this IPython session; False outside one."""
    if shell is None:
        ipython = sys.modules.get("IPython")    # a notebook's kernel has it loaded; elsewhere never load it
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return False
    # registered for Figure's base class: the inline backend clears what is registered for Figure
    # itself each time it sets its own formats (IPython's select_figure_formats)
    formatter = shell.display_formatter
    formatter.formatters["text/html"].for_type_by_name("matplotlib.figure", "FigureBase", figure_html)
    if not hasattr(formatter.format, "one_render"):     # each figure drawn once for all its formats
        formatter.format = formats_drawn_once(formatter.format)
    events = getattr(shell, "events", None)
    if events is not None and shown_before_redrawn not in events.callbacks.get("pre_run_cell", []):
        events.register("pre_run_cell", shown_before_redrawn)
    return True


def shown_before_redrawn(*_) -> None:
    """Before each cell: the inline backend's post-execute step (show a cell's figures, then close them) is
    put before pyplot's (draw every open figure that changed), which would otherwise draw each new figure
    once more, for nothing, just before it is shown. Nothing changes where either step is missing."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    callbacks = getattr(getattr(shell, "events", None), "callbacks", {}).get("post_execute", [])
    steps = {(getattr(f, "__module__", None), getattr(f, "__name__", None)): f for f in callbacks}
    show = steps.get(("matplotlib_inline.backend_inline", "flush_figures"))
    draw = steps.get(("matplotlib.pyplot", "_draw_all_if_interactive"))
    if show is not None and draw is not None and callbacks.index(draw) < callbacks.index(show):
        callbacks.remove(draw)
        callbacks.append(draw)


def formats_drawn_once(format_):
    """IPython's DisplayFormatter.format, with one_render around the formats of a matplotlib figure."""
    def format(obj, include=None, exclude=None):
        figure = sys.modules.get("matplotlib.figure")
        if figure is None or not isinstance(obj, figure.FigureBase):
            return format_(obj, include=include, exclude=exclude)
        with one_render(obj):
            return format_(obj, include=include, exclude=exclude)
    format.one_render = True
    return format


# the class of a caption above an AltImage (tools/build_site.py finds it by this class and rewords it)
CAPTION_CLASS = "al-still-caption"


class AltImage:
    """A PNG with alt text, shown as an <img> (HTML) or a plain PNG where HTML is not shown; with a
    caption, as a figure whose caption stands above the image (and is its plain-text form)."""

    def __init__(self, png: bytes, alt: str, caption: str | None = None):
        # pragma: no mutate start  (the door: input checks are not mutated)
        if not isinstance(png, bytes) or not png.startswith(b"\x89PNG"):
            raise TypeError("expected the bytes of a PNG image")
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError("expected a non-empty alt text that says what the image shows")
        if caption is not None and (not isinstance(caption, str) or not caption.strip()):
            raise ValueError(f"expected a caption with words, or None; got {caption!r}")
        # pragma: no mutate end
        self.data, self.alt, self.caption = png, alt, caption     # .data, as IPython's Image has it

    def _repr_png_(self) -> bytes:
        return self.data

    def _repr_html_(self) -> str:
        image = image_html(self.data, self.alt)
        if self.caption is None:
            return image
        return (f'<figure style="margin:0"><figcaption class="{CAPTION_CLASS}" '
                f'style="font-style:italic; margin:0.3em 0 0.5em">{html.escape(self.caption)}</figcaption>'
                f"{image}</figure>")

    def __repr__(self) -> str:
        return self.caption if self.caption is not None else super().__repr__()
