"""The blocks of a chapter's sections after the Overview wait to be laid
out until they near the screen (book.css), and _static/sections.js lays
them out once the page has loaded, a few at a time while the browser is
idle, or all at once before a jump. Here the idle work is held back, so
that each jump meets blocks that still wait: a jump must land where it
points all the same, and laying the blocks out must move nothing."""

from __future__ import annotations

import pytest

CHAPTER = "chapters/offset_head.html"
DESKTOP = {"width": 1280, "height": 800}
# No idle time ever comes: the sections wait until something lays them out.
NO_IDLE_TIME = "window.requestIdleCallback = () => 0;"
WAITING = """() => [...document.querySelectorAll(
  'article.bd-article > section > section *')]
  .filter((el) => getComputedStyle(el).contentVisibility === 'auto').length"""


def open_held_back(visit, fragment=""):
    page = visit.page
    page.set_viewport_size(DESKTOP)
    page.add_init_script(NO_IDLE_TIME)
    page.goto(visit.base + CHAPTER + fragment)
    page.wait_for_load_state("load")
    return page


def shown_under_the_header(page, heading_id):
    heading = page.locator(f"#{heading_id} > h2")
    header = page.locator("header.bd-header").bounding_box()
    box = heading.bounding_box()
    return (
        header["y"] + header["height"] <= box["y"] + 1
        and box["y"] + box["height"] <= DESKTOP["height"]
    )


def test_sections_wait_until_idle_time_comes(visit):
    page = open_held_back(visit)
    assert page.evaluate(WAITING) > 3, "the later sections do not wait"


def test_idle_time_lays_out_every_section(visit):
    visit.page.set_viewport_size(DESKTOP)
    page = visit.goto(CHAPTER)  # waits for the class sections.js sets
    assert page.evaluate(WAITING) == 0
    assert not visit.errors


@pytest.mark.parametrize("section", ["summary", "exercises"])
def test_a_link_to_a_section_lands_on_it_while_sections_wait(visit, section):
    page = open_held_back(visit)
    assert page.evaluate(WAITING) > 3
    contents = page.locator("#pst-secondary-sidebar")
    contents.locator(f'a[href="#{section}"]').click()
    page.wait_for_timeout(300)
    assert shown_under_the_header(page, section)


def test_a_page_opened_at_a_section_shows_it(visit):
    page = open_held_back(visit, "#exercises")
    page.wait_for_timeout(300)
    assert page.evaluate(WAITING) == 0
    assert shown_under_the_header(page, "exercises")


def test_a_self_check_link_lands_on_its_proof(visit):
    page = open_held_back(visit)
    question = page.locator(".d2l-quiz fieldset").first
    question.locator("button").first.click()
    link = question.locator("a[href^='#check-']")
    target = link.get_attribute("href")[1:]
    link.click()
    page.wait_for_timeout(300)
    box = page.locator(f"[id='{target}']").bounding_box()
    assert 0 <= box["y"] <= DESKTOP["height"], box


HEADINGS = """() => [...document.querySelectorAll(
  'article.bd-article section > :is(h2, h3)')]
  .map((h) => Math.round(h.getBoundingClientRect().top + scrollY))"""


@pytest.mark.parametrize("width", [390, 1280])
def test_laying_blocks_out_moves_nothing(visit, width):
    """Blocks a reader scrolled past while they waited were drawn contained;
    laying them out afterwards must not move what follows them."""
    page = open_held_back(visit)
    page.set_viewport_size({"width": width, "height": 800})
    height, y = page.evaluate("document.documentElement.scrollHeight"), 0
    while y < height:
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(50)
        y += 600
        height = page.evaluate("document.documentElement.scrollHeight")
    assert page.evaluate(WAITING) > 3
    before = page.evaluate(HEADINGS)
    page.evaluate("""() => document.querySelectorAll(
      'article.bd-article section *')
      .forEach((el) => el.classList.add('laid-out'))""")
    assert page.evaluate(WAITING) == 0
    assert page.evaluate(HEADINGS) == before
