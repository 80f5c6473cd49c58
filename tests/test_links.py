"""A crawl of the built book from its front page: every internal link, anchor,
script, stylesheet and image points at something that exists."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

from bs4 import BeautifulSoup

from conftest import HTML

REFERENCES = {
    "a": "href",
    "link": "href",
    "script": "src",
    "img": "src",
    "iframe": "src",
}


@cache
def parse(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(), "html.parser")


def ids(page: Path) -> set[str]:
    soup = parse(page)
    return {tag["id"] for tag in soup.find_all(id=True)} | {
        tag["name"] for tag in soup.find_all("a", attrs={"name": True})
    }


def references(page: Path):
    for tag, attribute in REFERENCES.items():
        for element in parse(page).find_all(tag, attrs={attribute: True}):
            yield element[attribute]
    # index.html's redirect
    for meta in parse(page).find_all("meta", attrs={"http-equiv": "Refresh"}):
        yield meta["content"].split("url=", 1)[1].strip()


def internal_references(page: Path):
    """(raw reference, target file, fragment) for each reference to the book
    itself."""
    for raw in references(page):
        if urlsplit(raw).scheme or raw.startswith("//"):
            continue  # http(s), mailto, data: point outside the book's files
        path, fragment = urldefrag(raw)
        target = (
            (page.parent / unquote(urlsplit(path).path)).resolve()
            if path
            else page
        )
        yield raw, target, fragment


def crawl() -> tuple[set[Path], list[str]]:
    """Pages reachable from index.html, and every broken reference found on
    them."""
    start = (HTML / "index.html").resolve()
    assert start.is_file(), f"{start} is missing: run `make book` first"
    seen, queue, broken = {start}, [start], []
    while queue:
        page = queue.pop()
        for raw, target, fragment in internal_references(page):
            where = f"{page.relative_to(HTML.resolve())}: {raw}"
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{where} (no such file)")
                continue
            if target.suffix == ".html":
                if fragment and fragment not in ids(target):
                    broken.append(f"{where} (no anchor #{fragment})")
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
    return seen, broken


def test_no_broken_internal_link_or_anchor():
    pages, broken = crawl()
    assert broken == [], "\n".join(broken)
    names = {p.relative_to(HTML.resolve()).as_posix() for p in pages}
    for name in (
        "intro.html",
        "chapters/self_attention.html",
        "chapters/exercises.html",
        "search.html",
    ):
        assert name in names, f"{name} cannot be reached from the front page"


def test_crawl_reports_a_missing_page_and_a_missing_anchor(
    tmp_path, monkeypatch
):
    (tmp_path / "index.html").write_text(
        '<a href="gone.html">x</a><a href="#nowhere">y</a>'
        '<a href="b.html#here">z</a>'
        '<img src="_static/missing.png"><a href="https://example.org/">outside</a>'
    )
    (tmp_path / "b.html").write_text('<p id="here">b</p>')
    monkeypatch.setattr(sys.modules[__name__], "HTML", tmp_path)
    pages, broken = crawl()
    assert {p.name for p in pages} == {"index.html", "b.html"}
    assert sorted(broken) == [
        "index.html: #nowhere (no anchor #nowhere)",
        "index.html: _static/missing.png (no such file)",
        "index.html: gone.html (no such file)",
    ]
