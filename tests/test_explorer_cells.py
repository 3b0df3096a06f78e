"""The renderer's kept cells: pasting back a cell drawn before gives the very pixels a full redraw gives."""

import sys
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.text import Text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from explorer_registry import demo_explorers


def test_kept_cells_give_the_pixels_of_a_full_redraw(monkeypatch):
    (make,) = [f for name, f in demo_explorers().items() if name.startswith("06 training_explorer")]
    explorer = make()
    renderer, slider = explorer.renderer, explorer.sliders["step"]
    steps = [value for _, value in slider.options][:6]
    texts = []
    draw_artist = Axes.draw_artist
    monkeypatch.setattr(Axes, "draw_artist", lambda ax, artist: (
        texts.append(1) if isinstance(artist, Text) else None, draw_artist(ax, artist))[1])
    drawn = []
    for step in [*steps, *steps[::-1]]:                 # six new positions, then the same six again
        texts.clear()
        slider.value = step
        drawn.append(len(texts))
        pasted = renderer.pixels()
        assert np.array_equal(pasted, renderer.full_redraw()), f"step {step}: pixels differ"
    assert drawn[1] > 2 * 8 * 8 // 2             # a new position draws the numbers it has not seen
    assert drawn[7:] == [0] * 5                  # coming back: every number pasted, none drawn again
