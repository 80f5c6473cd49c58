"""tools/fetch_katex.py: KaTeX only as the registry published it."""

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import fetch_katex  # noqa: E402


def test_a_tarball_that_is_not_the_published_one_is_refused():
    with pytest.raises(
        SystemExit, match="does not match its published sha512"
    ):
        fetch_katex.verified(b"not katex")


def test_the_book_environment_has_the_pinned_katex():
    folder = fetch_katex.install_dir()
    assert (folder / "VERSION").read_text().strip() == fetch_katex.VERSION
    assert (folder / "katex.min.js").is_file() and (
        folder / "katex.min.css"
    ).is_file()
    assert len(list((folder / "fonts").glob("*.woff2"))) >= 10
