"""Every page of the built book in headless Chromium with the network cut off
(see the ``visit`` fixture): no request leaves the book's host, no script
throws, every image loads, every formula is typeset by the book's own MathJax,
and axe-core finds no serious or critical accessibility violation."""
from __future__ import annotations

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe

from conftest import ROOT


def book_pages() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    documents = [toc["root"]] + [entry["file"] for entry in toc.get("chapters", [])]
    return [f"{name}.html" for name in documents] + ["search.html"]


PAGES = book_pages()
SEVERE = {"serious", "critical"}


@pytest.fixture(scope="module")
def axe():
    return Axe()


def wait_for_math(page) -> None:
    """Resolve once MathJax (if the page loads it) has typeset the page."""
    page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")


def test_the_book_has_the_pages_of_the_toc():
    assert "chapters/self_attention.html" in PAGES and len(PAGES) >= 8


@pytest.mark.parametrize("path", PAGES)
def test_page_works_offline(visit, path):
    page = visit.goto(path)
    wait_for_math(page)
    broken = page.evaluate("""() => Array.from(document.images)
        .filter(img => !(img.complete && img.naturalWidth > 0))
        .map(img => img.currentSrc || img.src)""")
    assert broken == [], f"images that did not load: {broken}"
    assert visit.failed == [], f"requests that failed: {visit.failed}"
    untypeset = page.evaluate("""() => Array.from(document.querySelectorAll('.math'))
        .filter(el => !el.querySelector('mjx-container')).map(el => el.textContent)""")
    assert untypeset == [], f"formulas MathJax did not typeset: {untypeset[:3]}"
    assert page.locator("mjx-merror").count() == 0, "a formula failed to typeset"
    title = page.locator("article.bd-article h1").first
    if path != "search.html":
        assert title.inner_text().strip()


def test_chapter_math_is_typeset_from_the_books_own_files(visit):
    page = visit.goto("chapters/relative_position.html")
    wait_for_math(page)
    assert page.locator("mjx-container").count() > 20
    scripts = page.evaluate("() => Array.from(document.scripts).map(s => s.src).filter(Boolean)")
    assert any(src.startswith(visit.base) and "mathjax" in src for src in scripts)


@pytest.mark.parametrize("path", PAGES)
def test_page_has_no_serious_accessibility_violation(visit, axe, path):
    page = visit.goto(path)
    wait_for_math(page)
    errors_before_axe = list(visit.errors)
    violations = axe.run(page).response["violations"]
    # axe's own stylesheet reading resolves theme.css's '@import "../basic.css"'
    # against the page instead of the stylesheet and asks for a missing file;
    # that request is axe's, not the page's.
    visit.errors[:] = errors_before_axe
    severe = [f"{v['id']} ({v['impact']}): {v['help']} at "
              f"{[node['target'] for node in v['nodes']][:3]}"
              for v in violations if v["impact"] in SEVERE]
    assert severe == [], "\n".join(severe)


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_no_icon_font_or_script(visit, path):
    """Icons are inlined SVG (_ext/book_pages.py): FontAwesome's 1.5 MB script
    and its webfonts are never fetched."""
    requested = []
    visit.page.on("request", lambda request: requested.append(request.url))
    page = visit.goto(path)
    page.wait_for_load_state("networkidle")
    assert [url for url in requested if "fontawesome" in url or "/fa-" in url] == []
    assert page.locator("svg[aria-hidden=true] path").count() >= 5, "the header icons are missing"
