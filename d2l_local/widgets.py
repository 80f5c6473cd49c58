"""Controls that show a figure for the values a reader picks.

Page "Self-Attention" uses one for the number of heads, "Sinusoidal
Positional Encoding" two for the encoding width d, "Relative Positional
Information" one for the offset and the frequency pair, "Language Models on
Real Text" a row of buttons for the method. A notebook calls
``choice_controls`` (or ``choice_control``) once; the call draws the figure
for every combination of values the controls offer and displays as one
output with two faces:

* in a live kernel (Jupyter, Colab, Binder) ipywidgets sliders, or toggle
  buttons for a choice among names, that swap the figure in place;
* in the built HTML book, where no kernel runs, plain HTML range inputs (or
  radio buttons) with a small script that swaps between the same figures,
  stored in the page (gzip-compressed) so that nothing is fetched from the
  network.

Front ends with a widget manager pick the widget view; the book's build drops
that view (``nb_mime_priority_overrides`` in ``_config.yml``) and shows the
HTML. Either way the figure for a value is exactly what ``draw`` made for it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import io
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib import pyplot as plt
from matplotlib.backends.backend_agg import FigureCanvasAgg

__all__ = [
    "Choice",
    "Controls",
    "choice_control",
    "choice_controls",
    "gzip_packed",
    "render_svg",
]

MAX_FRAMES = 512
_SCRIPT = Path(__file__).with_name("controls.js").read_text()
_STYLE = (
    ".d2l-control-row{display:flex;align-items:center;gap:.6em;margin:.25em 0}"
    ".d2l-control-row>label{min-width:9em;margin:0}"
    # A row of buttons wraps, its label first, the buttons after it.
    ".d2l-control-row[role=radiogroup]{flex-wrap:wrap;gap:.3em .4em}"
    ".d2l-control-options{display:contents}"
    ".d2l-control-options label{position:relative;margin:0}"
    # The radio itself is hidden; a click on its text checks it.
    ".d2l-control-options input{position:absolute;opacity:0;margin:0;"
    "pointer-events:none}"
    ".d2l-control-options span{display:inline-block;white-space:nowrap;"
    "padding:.15em .65em;border:1px solid currentColor;border-radius:1em;"
    "cursor:pointer}"
    ".d2l-control-options input:checked+span{background:#0a6b7c;"
    "border-color:#0a6b7c;color:#fff}"
    ".d2l-control-options input:focus-visible+span{"
    "outline:2px solid #0a6b7c;outline-offset:2px}"
    ".d2l-control-row output{font-weight:600;min-width:7ch;text-align:right}"
    ".d2l-control-figure{container-type:inline-size;margin-top:.4em}"
    ".d2l-control-frame{display:block;max-width:100%;height:auto}"
)
# An SVG figure's size in points, as matplotlib writes it.
_SVG_SIZE = re.compile(
    r'<svg[^>]*?width="([0-9.]+)pt"[^>]*?height="([0-9.]+)pt"'
)


@dataclass(frozen=True)
class Choice:
    """One labelled control: the values it offers and the one it starts at.

    It is a slider, or with ``buttons`` a row of buttons, one per option: for
    a choice among names, whose order means nothing.
    """

    description: str
    options: Sequence[Any]
    value: Any
    buttons: bool = False

    def __post_init__(self) -> None:
        if not list(self.options):
            raise ValueError(
                f"options of {self.description!r} must offer at least one "
                "value"
            )
        if self.value not in list(self.options):
            raise ValueError(
                f"value of {self.description!r} must be one of options "
                f"{list(self.options)}, got {self.value!r}"
            )


def gzip_packed(data: bytes) -> bytes:
    """``data`` gzip-compressed alike on every Python: no time stamp, and the
    header's OS byte 3 (Unix), as Python 3.11 and 3.12 write it; 3.13 writes
    255 (unknown)."""
    packed = bytearray(gzip.compress(data, compresslevel=9, mtime=0))
    packed[9] = 3
    return bytes(packed)


def render_svg(draw: Callable[..., None], *values: Any) -> str:
    """Call ``draw(*values)`` and return the one figure it made as SVG text.

    The SVG is reproducible (fixed hash salt, no date) and cut to the drawn
    area with a small margin, as an inline notebook figure is. The figure is
    closed afterwards.
    """
    if plt.get_fignums():
        raise RuntimeError(
            "choice_controls needs no open figure when it starts drawing; "
            f"show or close figures {plt.get_fignums()} first (plt.show())"
        )
    try:
        draw(*values)
    finally:
        figures = [plt.figure(n) for n in plt.get_fignums()]
        for figure in figures:
            plt.close(figure)
    if len(figures) != 1:
        raise RuntimeError(
            f"draw must make exactly one figure for values {values}, "
            f"it made {len(figures)}"
        )
    figure = figures[0]
    # The tight box from Agg's text metrics, then one SVG pass: a third faster
    # than bbox_inches="tight", which draws the SVG twice.
    box = figure.get_tightbbox(FigureCanvasAgg(figure).get_renderer())
    buffer = io.StringIO()
    with matplotlib.rc_context(
        {"svg.hashsalt": "d2l_local", "svg.fonttype": "none"}
    ):
        figure.savefig(
            buffer,
            format="svg",
            metadata={"Date": None},
            bbox_inches=box.padded(matplotlib.rcParams["savefig.pad_inches"]),
        )
    return buffer.getvalue()


def frame_index(option_counts: Sequence[int], positions: Sequence[int]) -> int:
    """Where the figure for one slider setting sits among a control's frames.

    The frames follow ``itertools.product`` of the choices' options: the last
    slider varies fastest. ``positions`` are the sliders' option indices.
    The static controls' script (controls.js) computes the same number.
    """
    index = 0
    for count, position in zip(option_counts, positions, strict=True):
        if not 0 <= position < count:
            raise ValueError(
                f"a slider position must lie in [0, {count - 1}], "
                f"got {position}"
            )
        index = index * count + position
    return index


class Controls:
    """Sliders over ``choices`` and the figure ``draw`` makes for their values.

    Displaying it shows ipywidgets in a live kernel and static HTML controls
    elsewhere. ``frames`` maps each tuple of values to its SVG, in the order
    of ``frame_index``. ``name`` identifies the control on its page.
    """

    def __init__(
        self,
        draw: Callable[..., None],
        choices: Sequence[Choice],
        alt: Callable[..., str],
        name: str,
    ):
        if not callable(draw):
            raise TypeError(
                f"draw must be callable, got {type(draw).__name__}"
            )
        if not callable(alt):
            raise TypeError(
                "alt must be callable (values -> text), "
                f"got {type(alt).__name__}"
            )
        pattern = r"[a-z][a-z0-9-]*"
        if not isinstance(name, str) or not re.fullmatch(pattern, name):
            raise ValueError(
                "name must be lower-case letters, digits and hyphens, "
                f"starting with a letter, got {name!r}"
            )
        if not choices:
            raise ValueError("choices must hold at least one Choice")
        for choice in choices:
            if not isinstance(choice, Choice):
                raise TypeError(
                    "choices must be Choice objects, "
                    f"got {type(choice).__name__}"
                )
        combinations = list(itertools.product(*(c.options for c in choices)))
        if len(combinations) > MAX_FRAMES:
            raise ValueError(
                f"the choices offer {len(combinations)} combinations of "
                f"values; at most {MAX_FRAMES} figures can be stored with a "
                "page"
            )
        self.draw, self.describe, self.name = draw, alt, name
        self.choices = tuple(choices)
        self.start = tuple(c.value for c in choices)
        # Alt texts first: a bad alt fails before any figure is drawn.
        self.alts = {values: _alt_text(alt, values) for values in combinations}
        self.frames = {
            values: render_svg(draw, *values) for values in combinations
        }

    @cached_property
    def widget(self):
        """The live face: one SelectionSlider (or ToggleButtons) per choice
        above the figure."""
        import ipywidgets as widgets

        sliders = [
            widgets.ToggleButtons(
                options=[(str(option), option) for option in c.options],
                value=c.value,
                description=c.description,
                style={"description_width": "initial", "button_width": "auto"},
            )
            if c.buttons
            else widgets.SelectionSlider(
                options=list(c.options),
                value=c.value,
                description=c.description,
                continuous_update=True,
                style={"description_width": "initial"},
            )
            for c in self.choices
        ]
        figure = widgets.Output()

        def show(_change=None) -> None:
            values = tuple(slider.value for slider in sliders)
            figure.outputs = (
                _figure_output(self.frames[values], self.alts[values]),
            )

        for slider in sliders:
            slider.observe(show, names="value")
        show()
        return widgets.VBox([*sliders, figure])

    def to_html(self) -> str:
        """The static face: labelled range inputs, the starting figure, and
        the script."""
        labels = [[str(option) for option in c.options] for c in self.choices]
        frames, alts = list(self.frames.values()), list(self.alts.values())
        unpacked = json.dumps({"frames": frames, "alts": alts}).encode()
        digest = hashlib.sha256(unpacked).hexdigest()
        packed = base64.b64encode(gzip_packed(unpacked)).decode()
        name = f"d2l-control-{digest[:12]}"
        rows = [
            _buttons_row(f"{name}-{k}", choice, texts)
            if choice.buttons
            else _slider_row(f"{name}-{k}", choice, texts)
            for k, (choice, texts) in enumerate(zip(self.choices, labels))
        ]
        payload = json.dumps({"labels": labels, "packed": packed})
        data = payload.replace("</", "<\\/")
        return (
            f'<div class="d2l-control" id="{name}" data-name="{self.name}" '
            f'data-frames="{len(frames)}" '
            f'data-frames-sha256="{digest}"><style>{_STYLE}</style>'
            + "".join(rows)
            + '<p class="d2l-control-status" role="status">'
            # Also what Jupyter shows, scripts removed, for a notebook it
            # does not trust.
            "<noscript>The controls work where this output's script may run: "
            "run the cell, or open the book's web page.</noscript></p>"
            + f'<div class="d2l-control-figure" '
            f'style="min-height:{_tallest(frames)}">'
            + _img_tag(self.frames[self.start], self.alts[self.start])
            + "</div>"
            + '<script type="application/json" class="d2l-control-data">'
            f"{data}</script>"
            f"<script>{_SCRIPT}</script></div>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        names = ", ".join(c.description for c in self.choices)
        # Written out rather than taken from the widget: ipywidgets 7 (still on
        # some Colab images) has no _repr_mimebundle_.
        view = {
            "version_major": 2,
            "version_minor": 0,
            "model_id": self.widget.model_id,
        }
        return {
            "text/plain": f"Controls for {names}: {len(self.frames)} figures",
            "text/html": self.to_html(),
            "application/vnd.jupyter.widget-view+json": view,
        }


def _slider_row(row_id: str, choice: Choice, texts: list[str]) -> str:
    """A labelled range input over the positions of ``texts``, and the text
    of the one it starts at."""
    position = list(choice.options).index(choice.value)
    label, text = html.escape(choice.description), html.escape(texts[position])
    return (
        f'<div class="d2l-control-row">'
        f'<label for="{row_id}">{label}</label> '
        f'<input type="range" class="d2l-control-input" id="{row_id}" '
        f'min="0" max="{len(texts) - 1}" step="1" value="{position}" '
        f'aria-valuetext="{text}" disabled> '
        f'<output class="d2l-control-value" for="{row_id}">{text}</output>'
        "</div>"
    )


def _buttons_row(row_id: str, choice: Choice, texts: list[str]) -> str:
    """A labelled group of radio buttons, one per option, drawn as buttons;
    the starting option is checked."""
    position = list(choice.options).index(choice.value)
    options = "".join(
        f'<label><input type="radio" class="d2l-control-option" '
        f'name="{row_id}" value="{j}"{" checked" * (j == position)} '
        f"disabled><span>{html.escape(text)}</span></label>"
        for j, text in enumerate(texts)
    )
    return (
        f'<div class="d2l-control-row" role="radiogroup" '
        f'aria-labelledby="{row_id}">'
        f'<span class="d2l-control-label" id="{row_id}">'
        f"{html.escape(choice.description)}</span>"
        f'<span class="d2l-control-options">{options}</span></div>'
    )


def _tallest(frames: Sequence[str]) -> str:
    """A CSS height as tall as the tallest of the SVG ``frames`` shown at
    the width of their box (``100cqw``: each is shown at its own width, or
    narrower where the box is narrower), so that the text after a control
    stays in place whichever figure it shows."""
    sizes = set()
    for svg in frames:
        match = _SVG_SIZE.search(svg)
        if match is None:
            raise ValueError("a control's figure must be an SVG with a size")
        width, height = (float(points) * 4 / 3 for points in match.groups())
        sizes.add((round(width, 1), round(height / width, 4)))
    heights = [
        f"min(100cqw,{width}px)*{ratio}" for width, ratio in sorted(sizes)
    ]
    return (
        f"max({','.join(heights)})"
        if len(heights) > 1
        else (f"calc({heights[0]})")
    )


def _alt_text(alt: Callable[..., str], values: tuple) -> str:
    text = alt(*values)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            "alt must return a non-empty description, "
            f"got {text!r} for {values}"
        )
    return text


def _img_tag(svg: str, alt: str) -> str:
    """The figure as an image with its alt text, in either face."""
    source = base64.b64encode(svg.encode()).decode()
    return (
        '<img class="d2l-control-frame" '
        f'src="data:image/svg+xml;base64,{source}" '
        f'alt="{html.escape(alt)}">'
    )


def _figure_output(svg: str, alt: str) -> dict[str, Any]:
    """The live face's figure: an image that screen readers can name (an
    inline SVG output would have no alt text)."""
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/html": _img_tag(svg, alt), "text/plain": alt},
    }


def choice_controls(
    draw: Callable[..., None],
    *choices: Choice,
    alt: Callable[..., str],
    name: str,
) -> Controls:
    """Sliders (or buttons) for ``choices``; the figure shown is
    ``draw(*values)``.

    ``draw`` makes one matplotlib figure; it is called once for every
    combination of values, here and now. ``alt(*values)`` describes that
    figure in words for readers who cannot see it. ``name`` identifies the
    control on its page (tests find it by that name).
    """
    return Controls(draw, choices, alt, name)


def choice_control(
    draw: Callable[[Any], None],
    options: Sequence[Any],
    value: Any,
    description: str,
    *,
    alt: Callable[[Any], str],
    name: str,
    buttons: bool = False,
) -> Controls:
    """One slider over ``options`` (with ``buttons``, one button per option);
    the figure shown is ``draw(value)``."""
    return choice_controls(
        draw, Choice(description, options, value, buttons), alt=alt, name=name
    )
