"""Every page of the built book in headless Chromium with the network cut off
(see the ``visit`` fixture): no request leaves the book's host, no script
throws, every image loads, every formula was typeset when the book was built
(KaTeX) and its fonts come from the book,
and axe-core finds no serious or critical accessibility violation."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from served_book import book_pages

PAGES = book_pages()
SEVERE = {"serious", "critical"}


@pytest.fixture(scope="module")
def axe():
    return Axe()


def wait_for_math(page) -> None:
    """Resolve once the fonts the formulas use have loaded."""
    page.evaluate("() => document.fonts.ready.then(() => true)")


def scroll_through(page) -> None:
    """Scroll the page from top to bottom and back, as a reader does: what
    is set only when it nears the screen (scroll cues, formulas fitted to
    the width, a control's figures) is then set everywhere."""
    height = page.evaluate("document.documentElement.scrollHeight")
    step = page.viewport_size["height"]
    for y in range(0, height + step, step):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(20)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(100)


def test_the_book_has_the_pages_of_the_toc():
    assert "chapters/self_attention.html" in PAGES and len(PAGES) >= 8


@pytest.mark.parametrize("path", PAGES)
def test_page_works_offline(visit, path):
    page = visit.goto(path)
    wait_for_math(page)
    scroll_through(page)  # figures load as they near the screen
    page.wait_for_function("""() => [...document.images].every(
        (img) => img.complete || !img.checkVisibility())""")
    # (a lazy image out of sight, such as a closed menu's logo, waits)
    broken = page.evaluate("""() => Array.from(document.images)
        .filter(img => img.loading !== 'lazy' || img.checkVisibility())
        .filter(img => !(img.complete && img.naturalWidth > 0))
        .map(img => img.currentSrc || img.src)""")
    assert broken == [], f"images that did not load: {broken}"
    assert visit.failed == [], f"requests that failed: {visit.failed}"
    untypeset = page.evaluate("""() =>
        Array.from(document.querySelectorAll('.math'))
        .filter(el => !el.querySelector('.katex .katex-html'))
        .map(el => el.textContent)""")
    assert untypeset == [], f"formulas not typeset: {untypeset[:3]}"
    assert page.locator(".math-error, .katex-error").count() == 0, (
        "a formula failed to typeset"
    )
    title = page.locator("article.bd-article h1").first
    if path != "search.html":
        assert title.inner_text().strip()


def test_chapter_math_is_typeset_with_the_books_own_fonts(visit):
    page = visit.goto("chapters/relative_position.html")
    wait_for_math(page)
    assert page.locator(".katex").count() > 20
    # Typeset at build time: no script typesets in the browser.
    scripts = page.evaluate(
        "() => Array.from(document.scripts).map(s => s.src).filter(Boolean)"
    )
    assert not any(
        "mathjax" in src.lower() or "katex" in src for src in scripts
    )
    fonts = page.evaluate("""() => [...document.fonts]
        .filter(f => f.status === 'loaded' && f.family.startsWith('KaTeX'))
        .map(f => f.family)""")
    assert "KaTeX_Main" in fonts and "KaTeX_Math" in fonts, fonts
    # Screen readers get the MathML that KaTeX writes beside the HTML.
    assert (
        page.locator(".katex-mathml math").count()
        == page.locator(".katex").count()
    )


@pytest.mark.parametrize("path", PAGES)
def test_page_has_no_serious_accessibility_violation(visit, axe, path):
    page = visit.goto(path)
    wait_for_math(page)
    errors_before_axe = list(visit.errors)
    violations = axe.run(page).response["violations"]
    # axe's own stylesheet reading resolves theme.css's
    # '@import "../basic.css"' against the page instead of the stylesheet and
    # asks for a missing file; that request is axe's, not the page's.
    visit.errors[:] = errors_before_axe
    severe = [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        f"{[node['target'] for node in v['nodes']][:3]}"
        for v in violations
        if v["impact"] in SEVERE
    ]
    assert severe == [], "\n".join(severe)


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_no_icon_font_or_script(visit, path):
    """Icons are inlined SVG (_ext/book_pages.py): FontAwesome's 1.5 MB script
    and its webfonts are never fetched."""
    requested = []
    visit.page.on("request", lambda request: requested.append(request.url))
    page = visit.goto(path)
    page.wait_for_load_state("networkidle")
    assert [
        url for url in requested if "fontawesome" in url or "/fa-" in url
    ] == []
    assert page.locator("svg[aria-hidden=true] path").count() >= 5, (
        "the header icons are missing"
    )


@pytest.mark.parametrize("path", PAGES)
def test_page_requests_only_what_it_uses(visit, path):
    """Search scripts and index only on the search page; basic.css linked, not
    imported through theme.css; a control's figures from their own script
    file, fetched only when the control nears the screen
    (_ext/book_pages.py)."""
    requested = []
    visit.page.on("request", lambda request: requested.append(request.url))
    page = visit.goto(path)
    page.wait_for_load_state("networkidle")
    names = [url.removeprefix(visit.base).split("?")[0] for url in requested]
    search = {
        "searchindex.js",
        "_static/searchtools.js",
        "_static/language_data.js",
    }
    if path == "search.html":
        assert search <= set(names)
    else:
        assert search.isdisjoint(names), sorted(search & set(names))
    assert (
        "_static/styles/theme.css" not in names
        and "_static/basic.css" in names
    )
    assert "_static/sphinx-thebe.css" not in names
    controls = page.locator(".d2l-control")
    assert (
        page.locator(
            "script.d2l-control-data[type='application/json']"
        ).count()
        == 0
    )
    # its controls are far down
    if path == "chapters/sinusoidal_encoding.html":
        assert not any(n.startswith("_static/controls/") for n in names)
    for index in range(controls.count()):
        controls.nth(index).scroll_into_view_if_needed()
        controls.nth(index).locator(
            "xpath=self::*[@data-ready='true']"
        ).wait_for()
    data_files = {
        url.removeprefix(visit.base)
        for url in requested
        if "/_static/controls/" in url
    }
    assert len(data_files) == controls.count()
