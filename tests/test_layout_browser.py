"""Every page read at phone width (390 px) and desktop width (1280 px): no
output cut off, no page-wide sideways scroll, wide tables and equations
marked as scrolling, slider touch targets of at least 24 px, and the
"Back to top" button clear of every slider."""
from __future__ import annotations

import pytest

from test_pages_browser import PAGES, wait_for_math

WIDTHS = {"390px": {"width": 390, "height": 844}, "1280px": {"width": 1280, "height": 800}}

LAYOUT = """() => {
  const overflows = (el) => el.scrollWidth > el.clientWidth + 1;
  const cut = [...document.querySelectorAll("div.cell_output pre")].filter(overflows)
    .map((el) => el.textContent.slice(0, 60));
  const unmarked = [...document.querySelectorAll(
      ".pst-scrollable-table-container, div.math")]
    .filter((el) => overflows(el) && !el.classList.contains("more-right"))
    .map((el) => el.textContent.slice(0, 40));
  const sliders = [...document.querySelectorAll("input[type=range]")]
    .map((el) => el.getBoundingClientRect().height);
  return {cut, unmarked, sliders, pageWidth: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_page_fits_its_width(visit, path, width):
    visit.page.set_viewport_size(WIDTHS[width])
    page = visit.goto(path)
    wait_for_math(page)
    page.wait_for_timeout(200)  # the scroll cues are set once the fonts are in
    layout = page.evaluate(LAYOUT)
    assert layout["cut"] == [], f"outputs cut off at the right: {layout['cut']}"
    assert layout["unmarked"] == [], f"scrolling boxes with no cue: {layout['unmarked']}"
    assert layout["pageWidth"] <= WIDTHS[width]["width"], "the whole page scrolls sideways"
    assert all(height >= 24 for height in layout["sliders"]), layout["sliders"]


def test_back_to_top_covers_no_slider_on_a_phone(visit):
    visit.page.set_viewport_size(WIDTHS["390px"])
    page = visit.goto("chapters/relative_position.html")
    sliders = page.locator(".d2l-control input[type=range]")
    for index in range(sliders.count()):
        slider = sliders.nth(index)
        slider.scroll_into_view_if_needed()
        page.mouse.wheel(0, -300)  # scrolling up is what shows the button
        page.wait_for_timeout(400)
        button = page.locator("#pst-back-to-top")
        if not button.is_visible():
            continue
        a, b = slider.bounding_box(), button.bounding_box()
        apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                 or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
        assert apart, f"Back to top covers slider {index}"


FIGURE_TEXT = """async () => {
  const sizes = [];
  for (const img of document.querySelectorAll("div.cell_output > img, img.d2l-control-frame")) {
    const svg = await (await fetch(img.currentSrc || img.src)).text();
    const box = svg.match(/viewBox="0 0 ([0-9.]+) /);
    const fonts = [...svg.matchAll(/font-size: ([0-9.]+)px/g)].map((m) => parseFloat(m[1]));
    if (!box || !fonts.length) continue;
    const scale = img.getBoundingClientRect().width / parseFloat(box[1]);
    sizes.push([img.alt.slice(0, 50), Math.min(...fonts) * scale]);
  }
  return sizes;
}"""


@pytest.mark.parametrize("path", [p for p in PAGES if p.startswith("chapters/")])
def test_figure_text_is_legible_on_a_phone(visit, path):
    visit.page.set_viewport_size(WIDTHS["390px"])
    page = visit.goto(path)
    small = [(alt, round(px, 1)) for alt, px in page.evaluate(FIGURE_TEXT) if px < 9]
    assert small == [], f"figure text under 9 px at 390 px: {small}"
