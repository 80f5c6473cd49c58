"""Every page read at phone width (390 px) and desktop width (1280 px): no
output cut off at the right or the bottom, no page-wide sideways scroll,
wide tables, equations and code marked as scrolling (a printed table,
tagged scroll-output, may scroll on a phone only; an untagged one must not
wrap), no figure caption or control wider than the page, slider touch
targets of at least 24 px, and the "Back to top" button clear of every
slider. (Figures on a phone: test_phone_browser.py.)"""

from __future__ import annotations

import pytest

from test_pages_browser import PAGES, scroll_through, wait_for_math

WIDTHS = {
    "390px": {"width": 390, "height": 844},
    "1280px": {"width": 1280, "height": 800},
}

LAYOUT = r"""() => {
  const overflows = (el) => el.scrollWidth > el.clientWidth + 1;
  const cut = [...document.querySelectorAll(
      "div.cell_output pre:not(.d2l-source pre, .tag_scroll-output pre)")]
    .filter(overflows)
    .map((el) => el.textContent.slice(0, 60));
  const unmarked = [...document.querySelectorAll([
      ".pst-scrollable-table-container",
      "div.math > .katex-display",
      ".d2l-source pre",
      "div.cell_input pre",
      "div.tag_scroll-output div.cell_output pre",
    ].join(", "))]
    // (a box in a closed listing or solution gets its cue when it opens)
    .filter((el) => el.checkVisibility({visibilityProperty: true}) &&
      overflows(el) &&
      !el.classList.contains("more-right"))
    .map((el) => el.textContent.slice(0, 40) || el.innerHTML.slice(0, 60));
  // Lines in columns (two or more spaces between entries) wrapped onto
  // the next line lose their columns: such a table must be tagged.
  const columns = (text) =>
    text.split("\n").filter((line) => /\S {2,}\S/.test(line)).length >= 2;
  const wraps = (el) => {
    el.style.whiteSpace = "pre";
    const wide = overflows(el);
    el.style.whiteSpace = "";
    return wide;
  };
  const wrappedTables = [...document.querySelectorAll(
      "div.cell_output pre:not(.d2l-source pre, .tag_scroll-output pre)")]
    .filter((el) => columns(el.textContent) && wraps(el))
    .map((el) => el.textContent.slice(0, 60));
  // A figure's caption or a control's sliders would scroll away with it.
  const dragged = [...document.querySelectorAll(
      "div.cell_output figure, .d2l-control")]
    .filter(overflows)
    .map((el) => el.id || el.dataset.name);
  const tables = [...document.querySelectorAll(
      "div.tag_scroll-output div.cell_output pre")]
    .filter(overflows)
    .map((el) => el.textContent.slice(0, 60));
  // An output box shorter than its content hides the rest below a
  // scrollbar that a screenshot, and a reader skimming, never sees.
  const clipped = [...document.querySelectorAll("div.cell_output")]
    .filter((el) => el.checkVisibility({visibilityProperty: true}) &&
      el.scrollHeight > el.clientHeight + 1)
    .map((el) => el.textContent.trim().slice(0, 60));
  // Touch targets: sliders, and the buttons of a choice among names.
  const sliders = [...document.querySelectorAll(
    "input[type=range], .d2l-control-options label")]
    .map((el) => el.getBoundingClientRect().height);
  const pageWidth = document.documentElement.scrollWidth;
  return {cut, unmarked, wrappedTables, dragged, tables, clipped, sliders,
          pageWidth};
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_page_fits_its_width(visit, path, width):
    visit.page.set_viewport_size(WIDTHS[width])
    page = visit.goto(path)
    wait_for_math(page)
    scroll_through(page)  # each scroll cue is set as its box nears the screen
    layout = page.evaluate(LAYOUT)
    assert layout["cut"] == [], (
        f"outputs cut off at the right: {layout['cut']}"
    )
    assert layout["unmarked"] == [], (
        f"scrolling boxes with no cue: {layout['unmarked']}"
    )
    assert layout["wrappedTables"] == [], (
        "printed tables wrap (tag their cells scroll-output): "
        f"{layout['wrappedTables']}"
    )
    assert layout["dragged"] == [], (
        f"captions or sliders scroll with their figure: {layout['dragged']}"
    )
    assert layout["clipped"] == [], (
        f"outputs cut off at the bottom: {layout['clipped']}"
    )
    if width == "1280px":
        assert layout["tables"] == [], (
            f"printed tables scroll on a desktop: {layout['tables']}"
        )
    assert layout["pageWidth"] <= WIDTHS[width]["width"], (
        "the whole page scrolls sideways"
    )
    assert all(height >= 24 for height in layout["sliders"]), layout["sliders"]


def test_back_to_top_covers_no_slider_on_a_phone(visit):
    visit.page.set_viewport_size(WIDTHS["390px"])
    page = visit.goto("chapters/relative_position.html")
    sliders = page.locator(
        '.d2l-control[data-name="offset-and-pair"] input[type=range]'
    )
    for index in range(sliders.count()):
        slider = sliders.nth(index)
        slider.scroll_into_view_if_needed()
        page.mouse.wheel(0, -300)  # scrolling up is what shows the button
        page.wait_for_timeout(400)
        button = page.locator("#pst-back-to-top")
        if not button.is_visible():
            continue
        a, b = slider.bounding_box(), button.bounding_box()
        apart = (
            a["x"] + a["width"] <= b["x"]
            or b["x"] + b["width"] <= a["x"]
            or a["y"] + a["height"] <= b["y"]
            or b["y"] + b["height"] <= a["y"]
        )
        assert apart, f"Back to top covers slider {index}"


def test_exercise_titles_draw_no_missing_glyph(visit):
    """The exercise title's pencil is a text character, not FontAwesome's
    private-use code point, which shows as an empty box without its font."""
    page = visit.goto("chapters/exercises.html")
    contents = page.evaluate("""() => [...document.querySelectorAll(
        'div.exercise p.admonition-title')].map(
        (el) => getComputedStyle(el, '::after').content)""")
    assert contents, "no exercise titles found"
    assert all("\uf303" not in content for content in contents), contents


@pytest.mark.parametrize(
    "path",
    ["chapters/sinusoidal_encoding.html", "chapters/relative_position.html"],
)
def test_display_formulas_start_at_their_left_edge_on_a_phone(visit, path):
    visit.page.set_viewport_size(WIDTHS["390px"])
    page = visit.goto(path)
    wait_for_math(page)
    starts = page.evaluate("""() => [...document.querySelectorAll(
        'div.math > .katex-display')].map((box) => {
          const formula = box.querySelector('.katex-html')
            .getBoundingClientRect();
          return {scrolled: box.scrollLeft,
                  hidden: box.getBoundingClientRect().left - formula.left};
        })""")
    assert starts, "no display formulas found"
    assert all(s["scrolled"] == 0 and s["hidden"] <= 1 for s in starts), starts


def test_controls_and_shown_code_follow_dark_mode(visit):
    """In dark mode the theme sets HTML outputs on a light panel; the book's
    controls and shown code sit on the page's own background instead."""
    visit.page.emulate_media(color_scheme="dark")
    page = visit.goto("chapters/self_attention.html")
    backgrounds = page.evaluate("""() => [...document.querySelectorAll(
        '.d2l-control, .d2l-source')].map(
        (el) => getComputedStyle(el.closest('div.output')).backgroundColor)""")
    assert len(backgrounds) >= 4
    assert set(backgrounds) == {"rgba(0, 0, 0, 0)"}, backgrounds
