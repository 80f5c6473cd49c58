"""The book's own configuration fails a build on a raising notebook or a
dangling reference."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"
HEADER = (
    "---\njupytext:\n  text_representation:\n    format_name: myst\n"
    "kernelspec:\n  display_name: Python 3 (ipykernel)\n  language: python\n"
    "  name: python3\n---\n"
)


def _build(tmp_path: Path, page: str) -> subprocess.CompletedProcess:
    book = tmp_path / "book"
    book.mkdir()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    # Launch buttons need a reference notebook beside each page; not under
    # test here.
    del config["launch_buttons"]
    (book / "_config.yml").write_text(yaml.safe_dump(config))
    # The book's own extension and static files (logo, styles), as in the
    # real build.
    for folder in ("_ext", "_static"):
        shutil.copytree(
            ROOT / folder,
            book / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    shutil.copy(ROOT / "references.bib", book)  # named by the configuration
    (book / "intro.md").write_text(page)
    # The same flags as `make book`.
    return subprocess.run(
        [
            str(JUPYTER_BOOK),
            "build",
            str(book),
            "--builder",
            "html",
            "-W",
            "-n",
            "--keep-going",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "body, symptom",
    [
        ("```{code-cell} ipython3\nraise RuntimeError('boom')\n```\n", "boom"),
        ("See {ref}`no-such-label`.\n", "undefined label"),
    ],
    ids=["raising-cell", "dangling-reference"],
)
def test_strict_build_fails(tmp_path, body, symptom):
    result = _build(tmp_path, HEADER + "# Page\n\n" + body)
    assert result.returncode != 0
    assert symptom in result.stdout + result.stderr


def test_strict_build_passes_a_clean_page(tmp_path):
    result = _build(
        tmp_path,
        HEADER + "# Page\n\nWith $x^2$, a formula.\n\n"
        "```{code-cell} ipython3\nprint(6 * 7)\n```\n",
    )
    assert result.returncode == 0, (
        result.stdout[-2000:] + result.stderr[-2000:]
    )
    html = (tmp_path / "book" / "_build" / "html" / "intro.html").read_text()
    assert "42" in html
    # Typeset at build time, and kept on one line with the comma after it.
    assert '<span class="math-with-punctuation"><span class="math' in html
    assert 'class="katex"' in html


def test_strict_build_fails_on_a_formula_katex_cannot_typeset(tmp_path):
    result = _build(
        tmp_path, HEADER + "# Page\n\nA broken formula: $\\frac{1}{$.\n"
    )
    assert result.returncode != 0
    assert "formula not typeset" in result.stdout + result.stderr
