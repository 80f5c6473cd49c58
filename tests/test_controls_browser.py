"""The controls in the built HTML, moved with the keyboard in headless Chromium
with the network cut off (see the ``visit`` fixture): each key press shows the
value and the figure drawn for it at build time."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

import pytest
from bs4 import BeautifulSoup

from conftest import HTML, unpack_control


@dataclass(frozen=True)
class Step:
    """Press ``key`` on slider ``slider``; the sliders then read ``labels`` and
    the figure's SVG contains every string in ``marks``."""

    slider: int
    key: str
    labels: tuple[str, ...]
    marks: tuple[str, ...]
    absent: tuple[str, ...] = ()


CONTROLS = {
    "heads": ("self_attention", 0, [
        Step(0, "ArrowRight", ("4",), ("head 4",), ("head 5",)),
        Step(0, "End", ("12",), ("head 12",)),
        Step(0, "Home", ("1",), ("head 1",), ("head 2",)),
    ]),
    "columns d and first column": ("sinusoidal_encoding", 0, [
        Step(0, "ArrowRight", ("64", "6"), ("Col 6", "Col 9")),
        Step(1, "ArrowLeft", ("64", "4"), ("Col 4", "Col 7"), ("Col 8",)),
        Step(0, "Home", ("16", "4"), ("Col 4", "Col 7")),
    ]),
    "heatmap d": ("sinusoidal_encoding", 1, [
        Step(0, "ArrowRight", ("64",), ("d = 64",)),
        Step(0, "ArrowLeft", ("32",), ("d = 32",)),
        Step(0, "Home", ("8",), ("d = 8",)),
    ]),
    "offset and pair": ("relative_position", 0, [
        Step(0, "ArrowRight", ("4", "2"), ("i + δ = 9", "pair j = 2")),
        Step(1, "ArrowLeft", ("4", "1"), ("i + δ = 9", "pair j = 1")),
        Step(0, "Home", ("-4", "1"), ("i + δ = 1", "pair j = 1")),
    ]),
}


def stored_control(chapter: str, index: int) -> tuple[list[list[str]], list[str], list[str]]:
    """Labels, frames and alt texts that the built page stores for one control."""
    page = HTML / "chapters" / f"{chapter}.html"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    data, unpacked = unpack_control(soup.select(".d2l-control")[index], page)
    return data["labels"], unpacked["frames"], unpacked["alts"]


def frame_index(labels: list[list[str]], shown: tuple[str, ...]) -> int:
    index = 0
    for options, label in zip(labels, shown):
        index = index * len(options) + options.index(label)
    return index


@pytest.mark.parametrize("name", CONTROLS)
def test_keyboard_moves_each_control_to_the_figure_of_its_value(visit, name):
    chapter, index, steps = CONTROLS[name]
    labels, frames, alts = stored_control(chapter, index)
    page = visit.goto(f"chapters/{chapter}.html")
    control = page.locator(".d2l-control").nth(index)
    control.scroll_into_view_if_needed()  # its figures load near the screen
    control.locator("xpath=self::*[@data-ready='true']").wait_for()
    sliders = control.locator("input.d2l-control-input")
    assert sliders.count() == len(labels)
    for k in range(sliders.count()):
        slider_id = sliders.nth(k).get_attribute("id")
        assert control.locator(f'label[for="{slider_id}"]').inner_text().strip()
    image = control.locator("img.d2l-control-frame")
    previous = image.get_attribute("src")
    for step in steps:
        sliders.nth(step.slider).focus()
        page.keyboard.press(step.key)
        shown = tuple(o.inner_text() for o in control.locator("output.d2l-control-value").all())
        assert shown == step.labels
        assert sliders.nth(step.slider).get_attribute("aria-valuetext") == step.labels[step.slider]
        expected = frame_index(labels, step.labels)
        assert control.get_attribute("data-frame") == str(expected)
        source = image.get_attribute("src")
        assert source != previous, f"{step.key} did not change the figure"
        svg = unquote(source.split(",", 1)[1])
        assert svg == frames[expected]
        assert all(mark in svg for mark in step.marks), step.marks
        assert not any(mark in svg for mark in step.absent), step.absent
        assert image.get_attribute("alt") == alts[expected]
        previous = source


def test_every_control_on_the_book_is_covered():
    counts = {}
    for chapter, index, _ in CONTROLS.values():
        counts[chapter] = max(counts.get(chapter, 0), index + 1)
    for page in sorted((HTML / "chapters").glob("*.html")):
        found = len(BeautifulSoup(page.read_text(), "html.parser").select(".d2l-control"))
        assert found == counts.get(page.stem, 0), page.name
