import io

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib import pyplot as plt

import d2l_local as d2l


def test_plot_draws_each_curve_with_labels_and_legend():
    x = torch.arange(5.0)
    d2l.plot(x, [x, x**2], xlabel="x", ylabel="y", legend=["x", "x^2"])
    axes = plt.gca()
    assert [line.get_ydata().tolist() for line in axes.get_lines()] == [
        [0, 1, 2, 3, 4],
        [0, 1, 4, 9, 16],
    ]
    assert axes.get_xlabel() == "x" and axes.get_ylabel() == "y"
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [
        "x",
        "x^2",
    ]


def test_plot_rejects_a_legend_that_does_not_name_every_curve():
    x = np.arange(3)
    with pytest.raises(
        ValueError, match="legend must name every curve: 2 curves, 1 names"
    ):
        d2l.plot(x, [x, x], legend=["only one"])
    assert plt.get_fignums() == []


def test_show_heatmaps_grid_titles_and_shared_colour_range():
    matrices = torch.rand(2, 3, 4, 5)
    d2l.show_heatmaps(
        matrices,
        "Keys",
        "Queries",
        titles=[["a", "b", "c"], ["d", "e", "f"]],
        xticklabels=list("vwxyz"),
        yticklabels=list("abcd"),
    )
    fig = plt.gcf()
    panels = fig.axes[:6]
    assert [ax.get_title() for ax in panels] == list("abcdef")
    assert {ax.images[0].get_clim() for ax in panels} == {
        (matrices.min().item(), matrices.max().item())
    }
    # Shared axes: the bottom row carries the key labels, the first column the
    # query labels.
    assert [t.get_text() for t in panels[3].get_xticklabels()] == list("vwxyz")
    assert [t.get_text() for t in panels[0].get_yticklabels()] == list("abcd")
    assert len(fig.axes) == 7  # six panels and one colour bar


def panel_box(width: int, **kwargs) -> tuple[float, float]:
    d2l.show_heatmaps(
        torch.rand(1, 1, 60, width), "x", "y", figsize=(3.5, 4), **kwargs
    )
    fig = plt.gcf()
    fig.canvas.draw()  # the aspect ratio resizes the panel only when drawn
    box = fig.axes[0].get_position()
    plt.close(fig)
    return round(box.width, 6), round(box.height, 6)


def test_show_heatmaps_aspect_auto_keeps_the_panel_shape_across_widths():
    # The d control on the encoding page swaps tables 8 to 128 columns wide.
    assert panel_box(8, aspect="auto") == panel_box(128, aspect="auto")
    # square cells: the panel follows the width
    assert panel_box(8) != panel_box(128)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"matrices": torch.rand(3, 4, 5)},
            r"matrices must have 4 dimensions",
        ),
        (
            {"titles": ["a"]},
            "titles must have one label per column of panels: "
            "expected 2, got 1",
        ),
        (
            {"matrices": torch.rand(2, 2, 4, 5), "titles": [["a", "b"]]},
            "titles must have one label per row of panels: expected 2, got 1",
        ),
        (
            {"xticklabels": ["a"]},
            "xticklabels must have one label per column of a matrix: "
            "expected 5",
        ),
        (
            {"yticklabels": ["a"]},
            "yticklabels must have one label per row of a matrix: expected 4",
        ),
        (
            {"aspect": "wide"},
            "aspect must be 'auto', 'equal' or a positive finite number, "
            "got 'wide'",
        ),
        (
            {"aspect": 0},
            "aspect must be 'auto', 'equal' or a positive finite number, "
            "got 0",
        ),
        ({"aspect": float("nan")}, "aspect must be .* got nan"),
    ],
)
def test_show_heatmaps_rejects_bad_input_before_drawing(kwargs, message):
    arguments = {
        "matrices": torch.rand(1, 2, 4, 5),
        "xlabel": "x",
        "ylabel": "y",
        **kwargs,
    }
    with pytest.raises(ValueError, match=message):
        d2l.show_heatmaps(**arguments)
    assert plt.get_fignums() == []


def test_svg_output_is_reproducible_and_keeps_text():
    def render() -> str:
        d2l.show_heatmaps(
            torch.eye(3)[None, None], "Keys", "Queries", titles=["identity"]
        )
        buffer = io.StringIO()
        plt.gcf().savefig(buffer, format="svg", metadata={"Date": None})
        plt.close("all")
        return buffer.getvalue()

    first, second = render(), render()
    assert first == second
    assert ">identity<" in first  # svg.fonttype = none keeps text as text
    assert matplotlib.rcParams["svg.hashsalt"] == "d2l_local"


def test_line_labels_sit_at_the_right_end_and_never_overlap():
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.set_ylim(0, 1)
    ends = [(0.5, "a"), (0.501, "b"), (0.502, "c"), (0.9, "d")]
    d2l.label_lines(ax, ends, dict.fromkeys("abcd", "C0"), x=1.1)
    labels = {t.get_text(): t for t in ax.texts}
    assert set(labels) == set("abcd")
    fig.canvas.draw()
    boxes = sorted(t.get_window_extent().y0 for t in ax.texts)
    heights = [t.get_window_extent().height for t in ax.texts]
    gaps = [b - a for a, b in zip(boxes, boxes[1:])]
    assert min(gaps) >= 0.9 * max(heights)
    assert all(t.get_position()[0] == 1.1 for t in ax.texts)
    plt.close(fig)
