"""The book on a phone, as a reader meets it (headless Chromium over the
served book, see the ``visit`` fixture): no formula (display or inline) or
inline code cut off at 320, 360 or 390 px; at 390 px every figure (every
frame of every control included) shows whole, panels, legend and colour
bar, without a sideways scroll and with text of at least 9 px; the first
figure or control of a chapter within its first four screens; controls
that keep their height from frame to frame and say what happens while
their figures load or when they cannot; no full-screen button."""

from __future__ import annotations

import pytest

from test_pages_browser import PAGES, scroll_through, wait_for_math

PHONES = {
    "320px": {"width": 320, "height": 640},
    "360px": {"width": 360, "height": 780},
    "390px": {"width": 390, "height": 844},
}
PHONE = PHONES["390px"]
CHAPTERS = [p for p in PAGES if p.startswith("chapters/")]
SMALLEST_TEXT_PX = 9

# Opens every hidden solution and listing, so that what they hold is
# measured too.
OPEN_ALL = """() => {
  document.querySelectorAll('details').forEach((d) => { d.open = true; });
  document.querySelectorAll('.toggle-hidden')
    .forEach((el) => el.classList.remove('toggle-hidden'));
}"""

CLIPPED = r"""() => {
  const article = document.querySelector('article.bd-article') ||
    document.querySelector('main');
  const right = article.getBoundingClientRect().right;
  const tex = (el) => (el.querySelector('annotation') || el).textContent
    .trim().slice(0, 60);
  const formulas = [...document.querySelectorAll('div.math > .katex-display')]
    .filter((box) => box.getBoundingClientRect().width > 0)
    .filter((box) => box.scrollWidth > box.clientWidth + 1 ||
      box.querySelector('.katex-html').getBoundingClientRect().right >
        box.getBoundingClientRect().right + 1)
    .map(tex);
  const code = [...article.querySelectorAll('code')]
    .filter((el) => !el.closest('pre'))
    .filter((el) => el.getBoundingClientRect().right > right + 1)
    .map((el) => el.textContent.slice(0, 60));
  // An inline formula longer than a line must break, not run off it (one
  // in a wide table scrolls with it, its edge faded: test_layout_browser).
  const inline = [...article.querySelectorAll('span.math .katex-html')]
    .filter((el) => !el.closest('.pst-scrollable-table-container'))
    .filter((el) => [...el.getClientRects()]
      .some((box) => box.width > 0 && box.right > right + 1))
    .map((el) => tex(el.closest('span.math')));
  return {formulas, code, inline};
}"""


@pytest.mark.parametrize("width", PHONES)
@pytest.mark.parametrize("path", PAGES)
def test_no_formula_or_inline_code_is_cut_off(visit, path, width):
    """Long display formulas break into lines (or, set as one block, are
    set a little smaller) instead of hiding their right part; inline code
    wraps."""
    visit.page.set_viewport_size(PHONES[width])
    page = visit.goto(path)
    page.evaluate(OPEN_ALL)
    wait_for_math(page)
    scroll_through(page)  # each formula is fitted as it nears the screen
    clipped = page.evaluate(CLIPPED)
    assert clipped["formulas"] == [], f"formulas cut off: {clipped}"
    assert clipped["code"] == [], f"inline code cut off: {clipped}"
    assert clipped["inline"] == [], f"inline formulas cut off: {clipped}"


# A control's row, moved as a reader would: its slider set to a value, or one
# of its buttons checked; either way with the event the page's script hears.
ROW_MOVES = """
  const optionCount = (row) => {
    const slider = row.querySelector('input[type=range]');
    return slider ? Number(slider.max) + 1
      : row.querySelectorAll('input[type=radio]').length;
  };
  const pick = (row, v) => {
    const slider = row.querySelector('input[type=range]');
    const input = slider || row.querySelectorAll('input[type=radio]')[v];
    if (slider) slider.value = String(v);
    else input.checked = true;
    input.dispatchEvent(new Event('input'));
  };
"""

# Every figure of a page, each frame of each control included: its shown
# width against its box and against the page's text column, and its
# smallest text as shown (the SVG's smallest font size times the scale at
# which the figure is shown).
FIGURES = (
    r"""async () => {"""
    + ROW_MOVES
    + r"""
  const column = document.querySelector('article.bd-article')
    .getBoundingClientRect();
  const smallestFont = (svg) => {
    const sizes = [
      ...svg.matchAll(/font(?:-size)?: ?(?:[a-z]+ )*([0-9.]+)px/g),
    ].map((m) => parseFloat(m[1]));
    return sizes.length ? Math.min(...sizes) : null;
  };
  const measure = async (img, name) => {
    img.loading = 'eager';  // a figure loads as it nears the screen
    await img.decode().catch(() => null);
    const src = img.currentSrc || img.src;
    const svg = src.startsWith('data:')
      ? decodeURIComponent(src.split(',', 2)[1])
      : await (await fetch(src)).text();
    const viewBox = svg.match(/viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) /);
    const shown = img.getBoundingClientRect();
    const font = smallestFont(svg);
    return {
      name,
      fits: shown.width <= img.parentElement.clientWidth + 1 &&
        shown.left >= column.left - 1 && shown.right <= column.right + 1,
      text: font && viewBox
        ? font * shown.width / parseFloat(viewBox[1]) : null,
    };
  };
  const results = [];
  for (const img of document.querySelectorAll('div.cell_output img')) {
    if (img.closest('.d2l-control')) continue;
    results.push(await measure(img, img.alt.slice(0, 50)));
  }
  for (const control of document.querySelectorAll('.d2l-control')) {
    control.scrollIntoView();
    const start = Date.now();
    while (control.dataset.ready !== 'true' && Date.now() - start < 10000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const rows = [...control.querySelectorAll('.d2l-control-row')];
    const counts = rows.map(optionCount);
    const total = counts.reduce((a, b) => a * b, 1);
    const img = control.querySelector('img.d2l-control-frame');
    for (let frame = 0; frame < total; frame++) {
      let rest = frame;
      for (let k = rows.length - 1; k >= 0; k--) {
        pick(rows[k], rest % counts[k]);
        rest = Math.floor(rest / counts[k]);
      }
      results.push(await measure(img,
        `${control.dataset.name} frame ${control.dataset.frame}`));
    }
  }
  return results;
}"""
)


@pytest.mark.parametrize("path", CHAPTERS)
def test_every_figure_shows_whole_and_legible_at_390px(visit, path):
    """All of a figure's panels, legend and colour bar show on a phone: the
    figure fits the text column (no sideways scroll), and its smallest text
    is still 9 px or more."""
    visit.page.set_viewport_size(PHONE)
    page = visit.goto(path)
    page.evaluate(OPEN_ALL)
    figures = page.evaluate(FIGURES)
    too_wide = [f["name"] for f in figures if not f["fits"]]
    too_small = [
        (f["name"], round(f["text"], 1))
        for f in figures
        if f["text"] is not None and f["text"] < SMALLEST_TEXT_PX
    ]
    assert too_wide == [], f"figures wider than the page: {too_wide}"
    assert too_small == [], f"figure text under 9 px: {too_small}"


FIRST_FIGURE = """() => {
  const first = document.querySelector(
    'article div.cell_output img, article .d2l-control');
  return first && first.getBoundingClientRect().top + window.scrollY;
}"""


@pytest.mark.parametrize(
    "path", [p for p in CHAPTERS if p != "chapters/exercises.html"]
)
def test_first_figure_comes_within_four_phone_screens(visit, path):
    """The argument before the code: a chapter's first figure or control is
    on one of the first four screens a phone shows (listings start
    collapsed, the setup cell hidden)."""
    visit.page.set_viewport_size(PHONE)
    page = visit.goto(path)
    wait_for_math(page)
    top = page.evaluate(FIRST_FIGURE)
    assert top is not None, f"{path} has no figure"
    screens = top / PHONE["height"]
    assert screens < 4, f"first figure on screen {int(screens) + 1}"


STEP_THROUGH = (
    """async (control) => {"""
    + ROW_MOVES
    + """
  const heights = [];
  for (const row of control.querySelectorAll('.d2l-control-row')) {
    for (let v = 0; v < optionCount(row); v++) {
      pick(row, v);
      await control.querySelector('img.d2l-control-frame').decode()
        .catch(() => null);
      heights.push(control.getBoundingClientRect().height);
    }
  }
  return heights;
}"""
)


@pytest.mark.parametrize("width", ["390px", "1280px"])
@pytest.mark.parametrize("path", CHAPTERS)
def test_controls_keep_their_height_from_frame_to_frame(visit, path, width):
    """Moving a slider swaps the figure; the text below must not jump."""
    size = PHONE if width == "390px" else {"width": 1280, "height": 800}
    visit.page.set_viewport_size(size)
    page = visit.goto(path)
    controls = page.locator(".d2l-control")
    for index in range(controls.count()):
        control = controls.nth(index)
        control.scroll_into_view_if_needed()
        control.locator("xpath=self::*[@data-ready='true']").wait_for()
        heights = control.evaluate(STEP_THROUGH)
        name = control.get_attribute("data-name")
        assert max(heights) - min(heights) <= 1, (name, sorted(set(heights)))


def test_a_control_says_it_is_loading_then_that_it_could_not(visit):
    """While a control's figures are on their way its status says so; if
    they cannot come, it says what that means for the reader."""
    page = visit.page
    page.set_viewport_size(PHONE)
    held = []
    page.route("**/_static/controls/*.js", lambda route: held.append(route))
    visit.goto("chapters/self_attention.html")
    control = page.locator('.d2l-control[data-name="heads"]')
    control.scroll_into_view_if_needed()
    status = control.locator("p.d2l-control-status[role=status]")
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the control did not ask for its figures"
    assert "Loading" in status.inner_text()
    assert control.get_attribute("data-ready") == "loading"
    held[0].abort()
    control.locator("xpath=self::*[@data-ready='failed']").wait_for()
    text = status.inner_text()
    assert "could not be loaded" in text and "reload the page" in text, text
    assert control.locator("input").first.is_disabled()
    # The browser reports the aborted request as a console error.
    visit.errors[:] = [e for e in visit.errors if "Failed to load" not in e]


@pytest.mark.parametrize("path", CHAPTERS[:1])
def test_no_full_screen_button_on_a_phone(visit, path):
    visit.page.set_viewport_size(PHONE)
    page = visit.goto(path)
    # (the theme's tooltips take the button's title attribute away)
    button = page.locator('button[onclick="toggleFullScreen()"]')
    assert button.count() == 1
    assert not button.is_visible()
