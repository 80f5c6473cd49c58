"""The header's buttons open the book's navigation at phone and desktop width:
the menu button shows the table of contents (a dialog on a phone, a
collapsing sidebar on a desktop), the contents button the page's sections."""

from __future__ import annotations

import pytest

CHAPTER = "chapters/self_attention.html"
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}


def open_at(visit, size):
    visit.page.set_viewport_size(size)
    return visit.goto(CHAPTER)


def test_menu_button_opens_and_closes_the_table_of_contents_on_a_phone(visit):
    page = open_at(visit, PHONE)
    dialog = page.locator("#pst-primary-sidebar-modal")
    page.get_by_role("button", name="Toggle primary sidebar").click()
    assert dialog.evaluate("d => d.open")
    link = dialog.get_by_role("link", name="Sinusoidal Positional Encoding")
    assert link.is_visible()
    page.keyboard.press("Escape")
    assert not dialog.evaluate("d => d.open")


def test_contents_button_shows_the_pages_sections_on_a_phone(visit):
    page = open_at(visit, PHONE)
    dialog = page.locator("#pst-secondary-sidebar-modal")
    page.get_by_role("button", name="Toggle secondary sidebar").click()
    assert dialog.evaluate("d => d.open")
    assert dialog.get_by_role("link", name="Masking made visible").is_visible()


def test_menu_button_hides_and_shows_the_sidebar_on_a_desktop(visit):
    page = open_at(visit, DESKTOP)
    link = page.locator("#pst-primary-sidebar").get_by_role(
        "link", name="Sinusoidal Positional Encoding"
    )
    button = page.get_by_role("button", name="Toggle primary sidebar")
    assert link.is_visible()
    button.click()
    page.wait_for_timeout(600)  # the sidebar slides out
    assert not link.is_visible() or link.bounding_box()["x"] + 10 < 0
    button.click()
    page.wait_for_timeout(600)
    assert link.is_visible() and link.bounding_box()["x"] >= 0


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_every_chapter_is_reachable_from_the_first(visit, size):
    page = open_at(visit, size)
    if size is PHONE:
        page.get_by_role("button", name="Toggle primary sidebar").click()
        navigation = page.locator("#pst-primary-sidebar-modal")
    else:
        navigation = page.locator("#pst-primary-sidebar")
    for title in (
        "Comparing CNNs, RNNs and Self-Attention",
        "Relative Positional Information",
        "Exercises, with Solutions that Run",
    ):
        assert navigation.get_by_role("link", name=title).is_visible(), title


def test_page_contents_close_on_a_tapped_section_which_then_shows(visit):
    """On a phone the page's contents open over the page; tapping a section
    closes them and shows that section, under the header."""
    page = open_at(visit, PHONE)
    dialog = page.locator("#pst-secondary-sidebar-modal")
    page.get_by_role("button", name="Toggle secondary sidebar").click()
    assert dialog.evaluate("d => d.open")
    dialog.get_by_role("link", name="Masking made visible").click()
    page.wait_for_timeout(300)
    assert not dialog.evaluate("d => d.open"), "the contents stay open"
    heading = page.get_by_role("heading", name="Masking made visible")
    box = heading.bounding_box()
    header = page.locator("header.bd-header").bounding_box()
    assert header["y"] + header["height"] <= box["y"] + 1, box
    assert box["y"] + box["height"] <= PHONE["height"], box


@pytest.mark.parametrize("after_a_tap", [False, True])
def test_escape_closes_the_page_contents(visit, after_a_tap):
    page = open_at(visit, PHONE)
    dialog = page.locator("#pst-secondary-sidebar-modal")
    button = page.get_by_role("button", name="Toggle secondary sidebar")
    if after_a_tap:  # a tapped section moves the focus out of the dialog
        button.click()
        dialog.get_by_role("link", name="Summary").click()
        page.wait_for_timeout(300)
    button.click()
    assert dialog.evaluate("d => d.open")
    page.keyboard.press("Escape")
    assert not dialog.evaluate("d => d.open")
