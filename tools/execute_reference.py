"""Regenerate a chapter's executed reference notebook from its MyST source.

The notebook is converted with jupytext and executed whole with nbclient in
the chapter's folder, with no timing metadata and with cell ids numbered in
order, so that running it twice on the same machine gives the same file. Its
kernelspec is the source's, which is what Jupyter writes, so that opening it
does not mark it modified; it is not paired with its source.
Usage: python tools/execute_reference.py chapters/NAME.md [...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient


def execute_reference(source: Path) -> Path:
    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
    client = NotebookClient(
        notebook,
        timeout=600,
        record_timing=False,
        resources={"metadata": {"path": str(source.parent.resolve())}},
    )
    client.execute()
    # Not paired with its source: Jupyter (with jupytext) saving this
    # notebook must not rewrite the chapter's .md.
    notebook.metadata.pop("jupytext", None)
    target = source.with_suffix(".ipynb")
    nbformat.write(notebook, target)
    return target


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print("executed", execute_reference(Path(name)))
