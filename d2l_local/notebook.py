"""Glue a computed value into the page's prose (every section).

Inside a Jupyter Book build, ``glue`` is MyST-NB's: the value appears where
the text says ``{glue:text}`name```. Where MyST-NB is not installed (Colab),
the value is simply shown, so the notebook still runs.
"""
from __future__ import annotations

import importlib

__all__ = ["glue"]


def glue(name: str, value, display: bool = False) -> None:
    """Store ``value`` under ``name`` for the prose; show it only if ``display``."""
    try:
        myst_nb = importlib.import_module("myst_nb")
    except ImportError:
        from IPython.display import display as show

        show(value)
        return
    myst_nb.glue(name, value, display=display)
