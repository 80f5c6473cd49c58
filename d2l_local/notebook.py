"""Notebook helpers used on every page.

``glue``: inside a Jupyter Book build, MyST-NB's: the value appears where
the text says ``{glue:text}`name```. Where MyST-NB is not installed (Colab),
the cell shows ``name = value`` as plain text, so that a reader can match
it with the name in the prose.

``show_source``: the library's own code of a function or class, read from
its file when the cell runs, so that what a page teaches is what runs.
"""

from __future__ import annotations

import html
import importlib
import inspect
import textwrap
from typing import Any

__all__ = ["glue", "show_source"]


def glue(name: str, value, display: bool = False) -> None:
    """Store ``value`` under ``name`` for the prose; show it only if
    ``display``."""
    try:
        myst_nb = importlib.import_module("myst_nb")
    except ImportError:
        from IPython.display import display as show

        # Raw text/plain: a string shows without the quotes of its repr.
        show({"text/plain": f"{name} = {value}"}, raw=True)
        return
    myst_nb.glue(name, value, display=display)


class Source:
    """The source of library objects, shown highlighted as Python."""

    def __init__(self, *objects: Any) -> None:
        if not objects:
            raise TypeError("show_source takes at least one function or class")
        for obj in objects:
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                raise TypeError(
                    "show_source takes functions and classes, "
                    f"got {type(obj).__name__}"
                )
        self.names = [f"{o.__module__}.{o.__qualname__}" for o in objects]
        self.code = "\n\n".join(
            textwrap.dedent(inspect.getsource(o)) for o in objects
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        # Class names only (no inline colours): the page's own Pygments
        # stylesheet colours them, in light and in dark mode.
        body = highlight(self.code, PythonLexer(), HtmlFormatter(nowrap=True))
        names = html.escape(" ".join(self.names))
        return {
            "text/plain": self.code,
            "text/html": (
                f'<div class="highlight-python notranslate d2l-source" '
                f'data-source="{names}">'
                f'<div class="highlight"><pre>{body}</pre></div></div>'
            ),
        }


def show_source(*objects: Any) -> Source:
    """Show the code of ``objects`` (functions or classes) as the library
    defines them, read from its files when the cell runs."""
    return Source(*objects)
