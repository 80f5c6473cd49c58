"""Write or check the Colab setup cell that opens every chapter.

The repository URL lives in one place, ``repository.url`` in ``_config.yml``.
This script renders the setup cell from it and puts it first in every
chapter's MyST source (``--write``) or fails if one differs (``--check``).
The cell is hidden in the book behind a bar that says what it is
(``SETUP_HEADER``). Run ``make references`` afterwards so the executed
notebooks follow.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CELL_TEMPLATE = """\
# On Colab, install d2l_local from the book's repository; elsewhere do nothing.
# To install from a fork or a mirror, change BOOK_REPOSITORY.
import importlib, importlib.util, subprocess, sys

BOOK_REPOSITORY = "{url}"
on_colab = "google.colab" in sys.modules
if on_colab and importlib.util.find_spec("d2l_local") is None:
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                          f"git+{{BOOK_REPOSITORY}}"],
                         capture_output=True, text=True)
    if pip.returncode != 0:
        print(pip.stderr[-2000:], file=sys.stderr)

        class SetupFailed(Exception):
            def _render_traceback_(self):  # IPython shows just the message
                return [str(self)]

        raise SetupFailed(
            f"pip could not install d2l_local from git+{{BOOK_REPOSITORY}} "
            "(pip's last lines are above). Set BOOK_REPOSITORY in this cell "
            "to a copy you can reach, such as your fork, and run it again.")
    importlib.invalidate_caches()"""
# The cell's options: hidden in the book behind a bar that names it.
SETUP_HEADER = """\
---
tags: [hide-cell]
mystnb:
  code_prompt_show: "Colab setup (show the code)"
  code_prompt_hide: "Colab setup: installs this book's library on Colab"
---
"""
FIRST_CODE_CELL = re.compile(
    r"(```\{code-cell\}[^\n]*\n)((?:---\n.*?\n---\n|(?::[^\n]*\n)*)\n?)"
    r"(.*?)(\n```)",
    re.S,
)


def repository_url(root: Path = ROOT) -> str:
    config = yaml.safe_load((root / "_config.yml").read_text())
    return config["repository"]["url"]


def setup_cell(root: Path = ROOT) -> str:
    """The source of the setup cell, with the URL from ``_config.yml``."""
    return CELL_TEMPLATE.format(url=repository_url(root))


def chapter_sources(root: Path = ROOT) -> list[Path]:
    return sorted((root / "chapters").glob("*.md"))


def first_code_cell(text: str) -> str | None:
    """The options and source of the first code cell, as written."""
    match = FIRST_CODE_CELL.search(text)
    return match.group(2) + match.group(3) if match else None


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    modes = parser.add_mutually_exclusive_group(required=True)
    modes.add_argument(
        "--write", action="store_true", help="rewrite stale setup cells"
    )
    modes.add_argument(
        "--check", action="store_true", help="fail if a setup cell is stale"
    )
    check = parser.parse_args(argv).check
    wanted, stale = SETUP_HEADER + setup_cell(root), []
    for path in chapter_sources(root):
        text = path.read_text()
        if first_code_cell(text) == wanted:
            continue
        if check:
            stale.append(path.name)
            continue
        if first_code_cell(text) is None:
            raise SystemExit(f"{path}: no code cell to hold the setup cell")
        path.write_text(
            FIRST_CODE_CELL.sub(
                lambda m: m.group(1) + wanted + m.group(4), text, count=1
            )
        )
        print(f"updated {path.relative_to(root)}")
    if stale:
        print(
            "setup cell differs from _config.yml in: " + ", ".join(stale),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
