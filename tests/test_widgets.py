import ipywidgets
import pytest

import d2l_local as d2l


def test_choice_control_draws_the_start_value_then_every_new_one():
    drawn = []
    control = d2l.choice_control(drawn.append, options=[1, 2, 4], value=2,
                                 description="number of heads")
    slider, output = control.children
    assert isinstance(slider, ipywidgets.SelectionSlider)
    assert isinstance(output, ipywidgets.Output)
    assert slider.description == "number of heads" and slider.options == (1, 2, 4)
    assert drawn == [2]
    slider.value = 4
    slider.value = 1
    assert drawn == [2, 4, 1]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"options": [], "value": 1}, ValueError, "options of 'd' must offer at least one value"),
    ({"options": [1, 2, 4], "value": 3}, ValueError,
     r"value of 'd' must be one of options \[1, 2, 4\], got 3"),
    ({"draw": "not a function"}, TypeError, "draw must be callable, got str"),
])
def test_choice_control_rejects_bad_arguments(kwargs, error, message):
    arguments = {"draw": print, "options": [1, 2], "value": 1, "description": "d", **kwargs}
    with pytest.raises(error, match=message):
        d2l.choice_control(**arguments)


def test_choice_controls_pass_every_slider_value():
    drawn = []
    control = d2l.choice_controls(lambda d, j: drawn.append((d, j)),
                                  d2l.Choice("d", [16, 32], 32), d2l.Choice("j", [0, 1, 2], 1))
    d_slider, j_slider, _ = control.children
    assert drawn == [(32, 1)]
    j_slider.value = 2
    d_slider.value = 16
    assert drawn == [(32, 1), (32, 2), (16, 2)]
    with pytest.raises(ValueError, match="choices must hold at least one Choice"):
        d2l.choice_controls(print)
