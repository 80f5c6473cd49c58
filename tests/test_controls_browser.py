"""The controls in the built HTML, moved with the keyboard (and buttons also
with the pointer) in headless Chromium with the network cut off (see the
``visit`` fixture): each key press or click shows the value and the figure
drawn for it at build time."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

import pytest
from bs4 import BeautifulSoup

from conftest import HTML, unpack_control
from d2l_local.widgets import frame_index


@dataclass(frozen=True)
class Step:
    """Press ``key`` on the slider labelled ``slider`` (on a row of buttons,
    on the one checked; ``click NAME`` clicks the button NAME); the controls
    then read ``labels`` and the figure's SVG contains every string in
    ``marks``."""

    slider: str
    key: str
    labels: tuple[str, ...]
    marks: tuple[str, ...]
    absent: tuple[str, ...] = ()


CONTROLS = {
    "heads": (
        "self_attention",
        [
            Step(
                "number of heads",
                "ArrowRight",
                ("4",),
                ("head 4",),
                ("head 5",),
            ),
            Step("number of heads", "End", ("6",), ("head 6",)),
            Step("number of heads", "Home", ("1",), ("head 1",), ("head 2",)),
        ],
    ),
    "columns": (
        "sinusoidal_encoding",
        [
            Step("d", "ArrowRight", ("64", "6"), ("Col 6", "Col 9")),
            Step(
                "first column",
                "ArrowLeft",
                ("64", "4"),
                ("Col 4", "Col 7"),
                ("Col 8",),
            ),
            Step("d", "Home", ("16", "4"), ("Col 4", "Col 7")),
        ],
    ),
    "table": (
        "sinusoidal_encoding",
        [
            Step("d", "ArrowRight", ("64",), ("d = 64",)),
            Step("d", "ArrowLeft", ("32",), ("d = 32",)),
            Step("d", "Home", ("8",), ("d = 8",)),
        ],
    ),
    "offset-and-pair": (
        "relative_position",
        [
            Step(
                "offset δ",
                "ArrowRight",
                ("4", "2"),
                ("i + δ = 9", "pair l = 2"),
            ),
            Step(
                "pair l", "ArrowLeft", ("4", "1"), ("i + δ = 9", "pair l = 1")
            ),
            Step("offset δ", "Home", ("-4", "1"), ("i + δ = 1", "pair l = 1")),
        ],
    ),
    "base": (
        "offset_head",
        [
            Step("base", "ArrowRight", ("100000", "64"), ("base 100000,",)),
            Step("d", "End", ("100000", "128"), ("d = 128",)),
            Step("base", "Home", ("100", "128"), ("base 100,",)),
        ],
    ),
    "hand-built-head": (
        "offset_head",
        [
            Step("offset δ", "ArrowRight", ("-2", "2"), ("δ = -2, β = 2",)),
            Step("sharpness β", "ArrowRight", ("-2", "4"), ("δ = -2, β = 4",)),
            Step("offset δ", "Home", ("-8", "4"), ("δ = -8, β = 4",)),
        ],
    ),
    "text-positions": (
        "real_text",
        [
            Step(
                "method", "ArrowRight", ("T5 bias",), ("T5 bias",), ("ALiBi",)
            ),
            Step("method", "ArrowRight", ("NoPE",), ("NoPE",)),
            # Past the last button the arrow comes round to the first.
            Step("method", "ArrowRight", ("sinusoidal",), ("sinusoidal",)),
            Step(
                "method",
                "click partial RoPE",
                ("partial RoPE",),
                ("partial RoPE",),
                ("NoPE",),
            ),
        ],
    ),
}


def stored_control(
    chapter: str, name: str
) -> tuple[list[list[str]], list[str], list[str]]:
    """Labels, frames and alt texts that the built page stores for one
    control."""
    page = HTML / "chapters" / f"{chapter}.html"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    control = soup.select_one(f'.d2l-control[data-name="{name}"]')
    assert control is not None, f"{chapter} has no control named {name}"
    data, unpacked = unpack_control(control, page)
    return data["labels"], unpacked["frames"], unpacked["alts"]


def shown_frame(labels: list[list[str]], shown: tuple[str, ...]) -> int:
    """The frame for the labels the sliders show, in the library's order."""
    return frame_index(
        [len(options) for options in labels],
        [options.index(label) for options, label in zip(labels, shown)],
    )


def shown_labels(rows) -> tuple[str, ...]:
    """What each row shows: its slider's value, or its checked button."""
    return tuple(
        rows.nth(k)
        .locator("output, input:checked + span")
        .inner_text()
        .strip()
        for k in range(rows.count())
    )


@pytest.mark.parametrize("name", CONTROLS)
def test_keyboard_moves_each_control_to_the_figure_of_its_value(visit, name):
    chapter, steps = CONTROLS[name]
    labels, frames, alts = stored_control(chapter, name)
    page = visit.goto(f"chapters/{chapter}.html")
    control = page.locator(f'.d2l-control[data-name="{name}"]')
    control.scroll_into_view_if_needed()  # its figures load near the screen
    control.locator("xpath=self::*[@data-ready='true']").wait_for()
    rows = control.locator(".d2l-control-row")
    assert rows.count() == len(labels)
    names = [
        rows.nth(k).locator("label, .d2l-control-label").first.inner_text()
        for k in range(rows.count())
    ]
    image = control.locator("img.d2l-control-frame")
    previous = image.get_attribute("src")
    for step in steps:
        row = rows.nth(names.index(step.slider))
        slider = row.locator("input[type=range]")
        if step.key.startswith("click "):
            row.get_by_text(
                step.key.removeprefix("click "), exact=True
            ).click()
        else:
            (
                slider if slider.count() else row.locator("input:checked")
            ).focus()
            page.keyboard.press(step.key)
        assert shown_labels(rows) == step.labels
        if slider.count():
            assert (
                slider.get_attribute("aria-valuetext")
                == step.labels[names.index(step.slider)]
            )
        expected = shown_frame(labels, step.labels)
        assert control.get_attribute("data-frame") == str(expected)
        source = image.get_attribute("src")
        assert source != previous, f"{step.key} did not change the figure"
        svg = unquote(source.split(",", 1)[1])
        assert svg == frames[expected]
        assert all(mark in svg for mark in step.marks), step.marks
        assert not any(mark in svg for mark in step.absent), step.absent
        assert image.get_attribute("alt") == alts[expected]
        previous = source


def test_every_control_on_the_book_is_covered_by_name():
    found = set()
    for page in sorted((HTML / "chapters").glob("*.html")):
        for control in BeautifulSoup(page.read_text(), "html.parser").select(
            ".d2l-control"
        ):
            assert control.get("data-name"), (
                f"a control on {page.name} has no name"
            )
            found.add((page.stem, control["data-name"]))
    assert found == {
        (chapter, name) for name, (chapter, _) in CONTROLS.items()
    }
