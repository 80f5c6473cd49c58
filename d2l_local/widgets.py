"""Controls that redraw a figure when the reader picks other values.

Section 1 uses one for the number of heads, Section 3 for the encoding width
d, Section 4 for the offset and the frequency pair. In a live kernel
(Jupyter, Colab, Binder) ``choice_control`` and ``choice_controls`` return
ipywidgets sliders that call the notebook's own drawing function, so the
figure a reader sees for a value is exactly what that function draws.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib import pyplot as plt

__all__ = ["Choice", "choice_control", "choice_controls"]


@dataclass(frozen=True)
class Choice:
    """One labelled slider: the values it offers and the one it starts at."""

    description: str
    options: Sequence[Any]
    value: Any

    def __post_init__(self) -> None:
        if not list(self.options):
            raise ValueError(f"options of {self.description!r} must offer at least one value")
        if self.value not in list(self.options):
            raise ValueError(f"value of {self.description!r} must be one of options "
                             f"{list(self.options)}, got {self.value!r}")


def choice_controls(draw: Callable[..., None], *choices: Choice):
    """Sliders for ``choices`` that call ``draw(*values)`` whenever one moves.

    ``draw`` makes a matplotlib figure; the control shows it below the
    sliders and replaces it on every change (arrow keys move a focused slider).
    """
    import ipywidgets as widgets

    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")
    if not choices:
        raise ValueError("choices must hold at least one Choice")
    sliders = [widgets.SelectionSlider(options=list(c.options), value=c.value,
                                       description=c.description, continuous_update=False,
                                       style={"description_width": "initial"})
               for c in choices]
    figure = widgets.Output()

    def redraw(_change=None) -> None:
        with figure:
            figure.clear_output(wait=True)
            draw(*(slider.value for slider in sliders))
            plt.show()

    for slider in sliders:
        slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([*sliders, figure])


def choice_control(draw: Callable[[Any], None], options: Sequence[Any], value: Any,
                   description: str):
    """One slider over ``options`` that calls ``draw(value)`` on every change."""
    return choice_controls(draw, Choice(description, options, value))
