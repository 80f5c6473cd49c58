import numpy as np
import pytest
from matplotlib import pyplot as plt

from d2l_local import diagrams


def test_architectures_draw_three_panels_with_token_labels():
    diagrams.show_architectures(5)
    axes = plt.gcf().axes
    assert [ax.get_title() for ax in axes] == [
        "CNN, kernel 3, two layers",
        "RNN",
        "self-attention",
    ]
    labels = {t.get_text() for t in axes[0].texts}
    assert {"$x_{0}$", "$x_{4}$"} <= labels and "$x_{5}$" not in labels
    # Self-attention: one arrow from every input to every output.
    arrows = [
        t for t in axes[2].texts if getattr(t, "arrow_patch", None) is not None
    ]
    assert len(arrows) == 25


def test_bits_panel_counts_in_binary():
    diagrams.show_bits_and_encoding(num_rows=8, num_bits=3, num_hiddens=8)
    bits = plt.gcf().axes[0].images[0].get_array()
    assert bits.tolist() == [
        [(i >> b) & 1 for b in range(3)] for i in range(8)
    ]


def test_rotation_marks_both_positions():
    diagrams.show_rotation(i=5, delta=3, j=2, num_hiddens=32)
    legend = [t.get_text() for t in plt.gca().get_legend().get_texts()]
    assert legend == ["positions 0..59", "i = 5", "i + δ = 8"]


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: diagrams.show_rotation(5, 3, 16, 32),
            r"j must lie in \[0, 15\] for num_hiddens=32, got 16",
        ),
        (
            lambda: diagrams.show_rotation(5, 60, 0, 32),
            r"i \+ delta must lie in \[0, 59\], got 65",
        ),
        (
            lambda: diagrams.show_rotation(-1, 3, 0, 32),
            r"i must lie in \[0, 59\], got -1",
        ),
        (
            lambda: diagrams.show_rotation(5, 3, 0, 31),
            "num_hiddens must be even",
        ),
        (
            lambda: diagrams.show_bits_and_encoding(num_rows=60, num_bits=5),
            "num_bits must be at least 6",
        ),
        (
            lambda: diagrams.show_architectures(0),
            "n must be an integer >= 1, got 0",
        ),
    ],
)
def test_bad_input_draws_nothing(call, message):
    with pytest.raises(ValueError, match=message):
        call()
    assert plt.get_fignums() == []


def test_rotation_of_more_than_a_turn_draws_the_whole_angle():
    # Pair 0 turns by 12 rad for delta = 12: almost two full turns, which
    # matplotlib's Arc would cut to the angle less one turn.
    diagrams.show_rotation(i=5, delta=12, j=0, num_hiddens=32)
    spirals = [
        line
        for line in plt.gca().lines
        if line.get_color() == "tab:red" and len(line.get_xdata()) > 2
    ]
    assert len(spirals) == 1
    x, y = spirals[0].get_xdata(), spirals[0].get_ydata()
    turned = np.unwrap(np.arctan2(y, x))
    assert abs(abs(turned[-1] - turned[0]) - 12.0) < 1e-6
    assert "turns" in plt.gca().get_title()
