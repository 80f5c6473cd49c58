"""d2l_local.widgets: one call gives live sliders and static HTML over the
same figures."""

import base64
import re

import ipywidgets
import pytest
from bs4 import BeautifulSoup
from matplotlib import pyplot as plt

import d2l_local as d2l
from conftest import unpack_control
from d2l_local.widgets import (
    MAX_FRAMES,
    frame_index,
    gzip_packed,
    render_svg,
)


def draw_line(slope, offset=0):
    plt.figure(figsize=(2, 2))
    plt.plot([0, 1], [offset, offset + slope])
    plt.title(f"slope {slope}, offset {offset}")


def describe(slope, offset=0):
    return f"A line of slope {slope} starting at {offset}"


def unpack(control) -> tuple[BeautifulSoup, dict, dict]:
    soup = BeautifulSoup(control.to_html(), "html.parser")
    return soup, *unpack_control(soup.select_one(".d2l-control"))


def test_each_frame_is_what_draw_makes_for_its_values():
    control = d2l.choice_controls(
        draw_line,
        d2l.Choice("slope", [1, 2, 3], 2),
        d2l.Choice("offset", [0, 5], 5),
        alt=describe,
        name="line",
    )
    assert list(control.frames) == [
        (1, 0),
        (1, 5),
        (2, 0),
        (2, 5),
        (3, 0),
        (3, 5),
    ]
    for values, svg in control.frames.items():
        assert svg == render_svg(draw_line, *values)
        assert f"slope {values[0]}, offset {values[1]}" in svg
    assert len(set(control.frames.values())) == 6
    assert plt.get_fignums() == [], "every figure drawn for a frame is closed"


def test_static_html_is_labelled_starts_at_the_value_and_packs_every_frame():
    control = d2l.choice_controls(
        draw_line,
        d2l.Choice("slope", [1, 2, 3], 2),
        d2l.Choice("offset", [0, 5], 5),
        alt=describe,
        name="line",
    )
    soup, data, unpacked = unpack(control)
    inputs = soup.select("input.d2l-control-input")
    for input_, (label, position, text) in zip(
        inputs, [("slope", 1, "2"), ("offset", 1, "5")]
    ):
        assert input_["type"] == "range" and input_["min"] == "0"
        assert (
            input_["value"] == str(position)
            and input_["aria-valuetext"] == text
        )
        assert soup.select_one(f'label[for="{input_["id"]}"]').string == label
        assert soup.select_one(f'output[for="{input_["id"]}"]').string == text
    assert [i["max"] for i in inputs] == ["2", "1"]
    assert data["labels"] == [["1", "2", "3"], ["0", "5"]]
    assert unpacked["frames"] == list(control.frames.values())
    assert unpacked["alts"] == [describe(*v) for v in control.frames]
    image = soup.select_one("img.d2l-control-frame")
    assert (
        base64.b64decode(image["src"].split(",", 1)[1]).decode()
        == control.frames[(2, 5)]
    )
    assert image["alt"] == describe(2, 5)
    assert "DecompressionStream" in soup.select("script")[-1].string


def test_static_html_is_the_same_on_every_run():
    first = d2l.choice_control(
        draw_line, [1, 2], 1, "slope", alt=describe, name="line"
    ).to_html()
    second = d2l.choice_control(
        draw_line, [1, 2], 1, "slope", alt=describe, name="line"
    ).to_html()
    assert first == second


def test_mime_bundle_offers_the_widget_view_and_the_static_html():
    control = d2l.choice_control(
        draw_line, [1, 2], 2, "slope", alt=describe, name="line"
    )
    bundle = control._repr_mimebundle_()
    assert set(bundle) == {
        "text/plain",
        "text/html",
        "application/vnd.jupyter.widget-view+json",
    }
    assert bundle["text/plain"] == "Controls for slope: 2 figures"
    assert (
        bundle["application/vnd.jupyter.widget-view+json"]["model_id"]
        == control.widget.model_id
    )


def test_live_sliders_show_the_frame_of_their_values():
    control = d2l.choice_controls(
        draw_line,
        d2l.Choice("slope", [1, 2, 3], 2),
        d2l.Choice("offset", [0, 5], 0),
        alt=describe,
        name="line",
    )
    slope, offset, figure = control.widget.children
    assert (
        isinstance(slope, ipywidgets.SelectionSlider)
        and slope.description == "slope"
    )
    assert isinstance(figure, ipywidgets.Output)

    def shown():
        (output,) = figure.outputs
        (image,) = BeautifulSoup(output["data"]["text/html"], "html.parser")(
            "img"
        )
        prefix = "data:image/svg+xml;base64,"
        assert image["src"].startswith(prefix)
        svg = base64.b64decode(image["src"][len(prefix) :]).decode()
        assert image["alt"] == output["data"]["text/plain"]
        return svg, image["alt"]

    assert shown() == (control.frames[(2, 0)], describe(2, 0))
    slope.value = 3
    offset.value = 5
    assert shown() == (control.frames[(3, 5)], describe(3, 5))


def test_buttons_offer_each_name_in_both_faces():
    """A choice among names is a row of buttons: radio buttons in the static
    HTML, ToggleButtons in a kernel, each showing the frame of its value."""
    slopes = {"flat": 0, "steep": 2, "steeper": 3}
    control = d2l.choice_control(
        lambda name: draw_line(slopes[name]),
        list(slopes),
        "steep",
        "line",
        alt=lambda name: f"A {name} line",
        name="line",
        buttons=True,
    )
    soup, data, unpacked = unpack(control)
    assert soup.select("input[type=range]") == []
    group = soup.select_one('[role="radiogroup"]')
    assert soup.find(id=group["aria-labelledby"]).string == "line"
    options = group.select("input.d2l-control-option")
    assert [o["type"] for o in options] == ["radio"] * 3
    assert len({o["name"] for o in options}) == 1
    assert [o.find_next_sibling("span").string for o in options] == [
        "flat",
        "steep",
        "steeper",
    ]
    assert [o.has_attr("checked") for o in options] == [False, True, False]
    assert [o["value"] for o in options] == ["0", "1", "2"]
    assert data["labels"] == [["flat", "steep", "steeper"]]

    buttons, figure = control.widget.children
    assert isinstance(buttons, ipywidgets.ToggleButtons)
    assert buttons.value == "steep" and buttons.description == "line"
    buttons.value = "steeper"
    (output,) = figure.outputs
    assert output["data"]["text/plain"] == "A steeper line"
    assert control.frames[("steeper",)] == render_svg(draw_line, 3)


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        (
            {"options": [], "value": 1},
            ValueError,
            "options of 'd' must offer at least one value",
        ),
        (
            {"options": [1, 2, 4], "value": 3},
            ValueError,
            r"value of 'd' must be one of options \[1, 2, 4\], got 3",
        ),
        (
            {"draw": "not a function"},
            TypeError,
            "draw must be callable, got str",
        ),
        (
            {"alt": "a line"},
            TypeError,
            r"alt must be callable \(values -> text\), got str",
        ),
        (
            {"alt": lambda value: ""},
            ValueError,
            "alt must return a non-empty description",
        ),
        (
            {"options": list(range(MAX_FRAMES + 1)), "value": 0},
            ValueError,
            f"offer {MAX_FRAMES + 1} combinations of values; "
            f"at most {MAX_FRAMES}",
        ),
        (
            {"draw": lambda value: None},
            RuntimeError,
            "draw must make exactly one figure",
        ),
        (
            {"draw": lambda value: (plt.figure(), plt.figure())},
            RuntimeError,
            "draw must make exactly one figure for values \\(1,\\), it made 2",
        ),
        (
            {"name": "Heads 2"},
            ValueError,
            "name must be lower-case letters, digits and hyphens, "
            "starting with a letter",
        ),
    ],
)
def test_bad_arguments_are_refused_and_leave_no_figure(
    arguments, error, message
):
    arguments = {
        "draw": draw_line,
        "options": [1, 2],
        "value": 1,
        "description": "d",
        "alt": describe,
        "name": "line",
        **arguments,
    }
    with pytest.raises(error, match=message):
        d2l.choice_control(**arguments)
    assert plt.get_fignums() == []


def test_draw_that_raises_leaves_no_figure():
    def half_drawn(value):
        plt.figure()
        raise ValueError(f"value must be small, got {value}")

    with pytest.raises(ValueError, match="value must be small, got 1"):
        d2l.choice_control(
            half_drawn, [1], 1, "value", alt=describe, name="line"
        )
    assert plt.get_fignums() == []


def test_an_open_figure_is_not_drawn_over():
    plt.figure()
    with pytest.raises(
        RuntimeError, match=re.escape("show or close figures [1] first")
    ):
        d2l.choice_control(
            draw_line, [1], 1, "slope", alt=describe, name="line"
        )
    assert plt.get_fignums() == [1]


def test_choices_must_be_given_as_choice_objects():
    with pytest.raises(
        ValueError, match="choices must hold at least one Choice"
    ):
        d2l.choice_controls(draw_line, alt=describe, name="line")
    with pytest.raises(
        TypeError, match="choices must be Choice objects, got tuple"
    ):
        d2l.choice_controls(
            draw_line, ("slope", [1], 1), alt=describe, name="line"
        )


def test_frame_index_is_the_order_of_the_stored_frames():
    control = d2l.choice_controls(
        draw_line,
        d2l.Choice("slope", [1, 2, 3], 2),
        d2l.Choice("offset", [0, 5], 5),
        alt=describe,
        name="line",
    )
    counts = [len(choice.options) for choice in control.choices]
    for position, values in enumerate(control.frames):
        positions = [
            list(c.options).index(v) for c, v in zip(control.choices, values)
        ]
        assert frame_index(counts, positions) == position
    with pytest.raises(
        ValueError, match=r"slider position must lie in \[0, 1\], got 2"
    ):
        frame_index(counts, [0, 2])


def test_the_control_carries_its_name():
    html = d2l.choice_control(
        draw_line, [1, 2], 1, "slope", alt=describe, name="slope-line"
    ).to_html()
    assert 'data-name="slope-line"' in html


def test_gzip_packed_bytes_are_the_same_on_every_python():
    """Python 3.13's gzip writes the header's OS byte as 255 (unknown), 3.11
    and 3.12 as 3; the book's embedded payloads must not depend on it."""
    import gzip

    data = b"self-attention " * 100
    packed = gzip_packed(data)
    assert packed[:10] == bytes([31, 139, 8, 0, 0, 0, 0, 0, 2, 3])
    assert gzip.decompress(packed) == data
