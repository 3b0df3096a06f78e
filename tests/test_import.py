"""`import attention_lab` stays light: the UI stack (ipywidgets, seaborn, pyplot) loads on first use."""

import subprocess
import sys

import numpy as np
import pytest

UI_STACK = ("ipywidgets", "seaborn", "matplotlib.pyplot", "IPython")


def modules_after(code: str) -> set[str]:
    """The names in sys.modules after running `code` in a fresh interpreter."""
    shown = subprocess.run([sys.executable, "-c", f"{code}\nimport sys; print(*sys.modules)"],
                           check=True, capture_output=True, text=True).stdout
    return set(shown.split())


def test_import_loads_no_ui_stack():
    loaded = modules_after("import attention_lab")
    assert "attention_lab.induction" in loaded          # the lessons' own modules are there
    assert not loaded & set(UI_STACK), f"import attention_lab loaded {sorted(loaded & set(UI_STACK))}"


SHORTCUT = "lambda Q, K, V: al.scaled_dot_product_attention(Q, K, V)"


def test_checking_an_exercise_loads_no_ui_stack():
    loaded = modules_after(f"import attention_lab as al\nal.check('02.3', {SHORTCUT})")
    assert not loaded & set(UI_STACK), sorted(loaded & set(UI_STACK))


def test_shortcuts_stay_locked_once_lazy_names_are_loaded(capsys):
    import attention_lab as al
    assert al.plot_heads and al.matrix_explorer          # now in the package's namespace too
    al.check("02.3", lambda Q, K, V: al.scaled_dot_product_attention(Q, K, V))
    assert "al.scaled_dot_product_attention is switched off" in capsys.readouterr().out
    assert al.scaled_dot_product_attention.__module__ == "attention_lab.matrix"   # put back afterwards


def test_a_picture_name_loads_the_stack_on_first_use():
    loaded = modules_after("from attention_lab import plot_heads")
    assert {"seaborn", "matplotlib.pyplot"} <= loaded


def test_every_public_name_resolves_to_its_home_module():
    import importlib

    import attention_lab as al
    homes = {"matrix_explorer": "explorers", "training_explorer": "explorers", "plot_heads": "plots",
             "heatmap": "heatmaps", "ROLE_COLORS": "heatmaps", "WEIGHTS_CMAP": "heatmaps",
             "plot_learning_curve": "training_plots", "softmax": "matrix"}
    for name, module in homes.items():
        assert getattr(al, name) is getattr(importlib.import_module(f"attention_lab.{module}"), name)
    assert set(al.__all__) <= set(dir(al)) and len(set(al.__all__)) == len(al.__all__)
    assert all(getattr(al, name) is not None for name in al.__all__)
    assert al.plots.__name__ == "attention_lab.plots" and al.explorers.__name__ == "attention_lab.explorers"
    assert al.heatmaps.__name__ == "attention_lab.heatmaps"


def test_an_unknown_name_is_an_attribute_error():
    import attention_lab as al
    with pytest.raises(AttributeError, match="has no attribute 'plot_everything'"):
        al.plot_everything   # noqa: B018
    assert not hasattr(al, "ORIGINS")       # removed: exported, never used


def test_the_explorer_kit_stores_nothing_on_axes():
    from attention_lab.explorer_kit import Control, Explorer, Panel
    explorer = Explorer([Control("a", "a", 0.5, 0.0, 1.0, 0.25)],
                        lambda v: {"w": np.array([[v["a"], 1 - v["a"]]]), "curve": np.array([0.0, v["a"]])},
                        [Panel("w", ["q"], ["k1", "k2"], fmt=".1f"),
                         Panel("curve", [], [0, 1], kind="curve", vmin=0, vmax=1)],
                        describe=lambda v, r: "")
    explorer.set(a=0.25)
    for ax in explorer.figure.axes:
        assert not [k for k in vars(ax) if "attention" in k], sorted(vars(ax))
    assert [t.get_text() for t in explorer.axes["w"].texts] == ["0.2", "0.8"]   # the panel's own fmt
    dot = explorer.axes["curve"].lines[1]
    assert list(dot.get_xdata()) == [1.0] and list(dot.get_ydata()) == [0.25]
