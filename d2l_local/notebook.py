"""Notebook helpers used on every page.

``glue``: inside a Jupyter Book build, MyST-NB's: the value appears where
the text says ``{glue:text}`name```. Where MyST-NB is not installed (Colab),
the cell shows ``name = value`` as plain text, so that a reader can match
it with the name in the prose.

``show_source``: the library's own code of a function or class, read from
its file when the cell runs, so that what a page teaches is what runs.

``table``: a small results table as HTML (narrow enough for a phone when it
has a few short columns) with the same rows as plain text.
"""

from __future__ import annotations

import html
import importlib
import inspect
import textwrap
from typing import Any

__all__ = ["Table", "glue", "show_source", "table"]


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


class Table:
    """Rows of short cells under a header, shown as an HTML table."""

    def __init__(
        self,
        header: list[str],
        rows: list[list[Any]],
        caption: str | None = None,
        label: str | None = None,
        fold: str | None = None,
    ) -> None:
        if not header or any(len(row) != len(header) for row in rows):
            raise ValueError(
                f"every row must have the header's {len(header)} cells"
            )
        self.header = [str(cell) for cell in header]
        # A cell is a value, or a pair (value, detail) whose detail is shown
        # smaller, on a line of its own.
        self.rows = [
            [
                tuple(map(str, cell)) if isinstance(cell, tuple) else str(cell)
                for cell in row
            ]
            for row in rows
        ]
        self.caption, self.label, self.fold = caption, label, fold

    @staticmethod
    def _plain(cell) -> str:
        return f"{cell[0]} [{cell[1]}]" if isinstance(cell, tuple) else cell

    @staticmethod
    def _html(cell) -> str:
        if isinstance(cell, tuple):
            return (
                f"{html.escape(cell[0])}<br>"
                f'<span class="d2l-detail">{html.escape(cell[1])}</span>'
            )
        return html.escape(cell)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        plain = [self.header] + [list(map(self._plain, r)) for r in self.rows]
        widths = [
            max(len(row[k]) for row in plain) for k in range(len(self.header))
        ]
        lines = [
            "  ".join(
                cell.ljust(w) if k == 0 else cell.rjust(w)
                for k, (cell, w) in enumerate(zip(row, widths))
            ).rstrip()
            for row in plain
        ]
        if self.caption:
            lines.insert(0, self.caption)
        head = "".join(
            f'<th scope="col">{html.escape(cell)}</th>' for cell in self.header
        )
        body = "".join(
            "<tr>"
            + f'<th scope="row">{self._html(row[0])}</th>'
            + "".join(f"<td>{self._html(cell)}</td>" for cell in row[1:])
            + "</tr>"
            for row in self.rows
        )
        caption = (
            f"<caption>{html.escape(self.caption)}</caption>"
            if self.caption
            else ""
        )
        label = (
            f' aria-label="{html.escape(self.label)}"' if self.label else ""
        )
        shown = (
            f'<table class="d2l-table"{label}>{caption}'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
        if self.fold:
            shown = (
                f'<details class="d2l-fold"><summary>'
                f"{html.escape(self.fold)}</summary>{shown}</details>"
            )
        return {"text/plain": "\n".join(lines), "text/html": shown}


def table(
    header: list[str],
    rows: list[list[Any]],
    caption: str | None = None,
    label: str | None = None,
    fold: str | None = None,
) -> Table:
    """A results table: ``header`` names the columns, each row's first cell
    names the row; cells are shown as given (format numbers first), a pair
    (value, detail) as the value with the detail smaller below it. With
    ``fold``, the table is folded under that line until the reader opens
    it (the numbers behind a figure, say)."""
    return Table(header, rows, caption, label, fold)
