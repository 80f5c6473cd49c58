"""Controls that redraw a figure when the reader picks another value.

Section 1 uses one for the number of heads. In a live kernel (Jupyter, Colab,
Binder) ``choice_control`` returns an ipywidgets slider that calls the
notebook's own drawing function, so the figure a reader sees for a value is
exactly what that function draws.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from matplotlib import pyplot as plt

__all__ = ["choice_control"]

T = TypeVar("T")


def choice_control(draw: Callable[[T], None], options: Sequence[T], value: T,
                   description: str):
    """A labelled slider over ``options`` that calls ``draw(value)`` on every change.

    ``draw`` makes a matplotlib figure for one value; the control shows it
    below the slider and replaces it when the slider moves (arrow keys work).
    """
    import ipywidgets as widgets

    options = list(options)
    if not options:
        raise ValueError("options must offer at least one value, got an empty sequence")
    if value not in options:
        raise ValueError(f"value must be one of options {options}, got {value!r}")
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")

    slider = widgets.SelectionSlider(options=options, value=value, description=description,
                                     continuous_update=False,
                                     style={"description_width": "initial"})
    figure = widgets.Output()

    def redraw(chosen: T) -> None:
        with figure:
            figure.clear_output(wait=True)
            draw(chosen)
            plt.show()

    slider.observe(lambda change: redraw(change["new"]), names="value")
    redraw(value)
    return widgets.VBox([slider, figure])
