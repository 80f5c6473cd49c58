import re

import numpy as np
import pytest
import torch
from matplotlib import pyplot as plt

from d2l_local import diagrams, relative_family
from d2l_local.widgets import render_svg

# A phone 390 px wide shows a figure at most this many CSS pixels wide.
PHONE_COLUMN_PX = 342


def smallest_text_on_a_phone(svg: str) -> float:
    """The smallest text of an SVG figure in CSS pixels, shown as the book
    shows it on a phone: at its own size (1 pt = 4/3 px), or narrower to
    fit the text column."""
    width = float(re.search(r'width="([0-9.]+)pt"', svg).group(1))
    sizes = re.findall(r"font(?:-size)?: ?(?:[a-z]+ )*([0-9.]+)px", svg)
    shown = min(PHONE_COLUMN_PX, width * 4 / 3)
    return min(float(size) for size in sizes) * shown / width


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
    # Only the CNN's receptive field is filled: in the RNN and self-attention
    # every input reaches the last output, and their inputs stay white.
    filled = [
        [p.get_facecolor()[:3] != (1.0, 1.0, 1.0) for p in ax.patches]
        for ax in axes
    ]
    assert sum(filled[0]) == 5 and not any(filled[1]) and not any(filled[2])


def test_self_attention_colours_the_edges_into_the_query():
    diagrams.show_self_attention(n=4, query=2)
    ax = plt.gca()
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None)]
    red = [
        a
        for a in arrows
        if a.arrow_patch.get_edgecolor()[0] > 0.7
        and a.arrow_patch.get_edgecolor()[1] < 0.5
    ]
    assert len(arrows) == 16 and len(red) == 4
    labels = {t.get_text() for t in ax.texts}
    assert {"$x_{0}$", "$x_{3}$", "$y_{2}$", "inputs", "outputs"} <= labels


def test_position_hooks_mark_what_each_class_overrides():
    diagrams.show_position_hooks(relative_family.VARIANTS)
    marks = [c.get_sizes()[0] > 50 for c in plt.gca().collections]
    # rows: the variants in order; columns: the four hooks
    table = [marks[4 * r : 4 * r + 4] for r in range(7)]
    assert table == [
        [True, False, False, False],  # absolute sinusoidal
        [False, False, True, True],  # Shaw et al.
        [False, False, True, False],  # Transformer-XL
        [False, False, True, False],  # T5 bias
        [False, False, True, False],  # ALiBi
        [False, True, False, False],  # RoPE
        [False, False, False, False],  # NoPE
    ]


def test_sequences_name_the_named_tokens_and_caption_each_row():
    diagrams.show_sequences(
        [[2, 0, 1], [2, 1, 0]], ["label 1", "label 0"], {0: "A", 1: "B"}
    )
    texts = [t.get_text() for t in plt.gca().texts]
    assert texts.count("A") == 2 and texts.count("B") == 2
    assert "label 1" in texts and "label 0" in texts and "2" in texts


def test_both_ways_of_reading_score_the_same_characters():
    diagrams.show_reading_windows(3)
    blue = {}
    for patch in plt.gca().patches:
        if patch.get_facecolor()[0] < 0.5:  # tab:blue, not grey
            row = round(patch.get_y(), 3)
            start = patch.get_x()
            blue.setdefault(row, []).append((start, start + patch.get_width()))
    top = max(blue)
    non_overlapping = sorted(blue.pop(top))
    sliding = sorted(span for spans in blue.values() for span in spans)
    assert non_overlapping == [(0, 3), (3, 6)]
    assert sliding == [(k, k + 1) for k in range(6)]


@pytest.mark.parametrize(
    "draw",
    [
        lambda: diagrams.show_self_attention(),
        lambda: diagrams.show_architectures(5),
        lambda: diagrams.show_bits_and_encoding(),
        lambda: diagrams.show_rotation(5, 3, 2, 32),
        lambda: diagrams.show_position_hooks(relative_family.VARIANTS),
        lambda: diagrams.show_sequences(
            [torch.arange(8)], ["label 1"], {0: "A", 1: "B"}
        ),
        lambda: diagrams.show_reading_windows(2),
        lambda: diagrams.show_reading_windows(4),
    ],
    ids=[
        "self-attention",
        "architectures",
        "bits",
        "rotation",
        "hooks",
        "sequences",
        "windows of 2L",
        "windows of 4L",
    ],
)
def test_diagrams_are_legible_on_a_phone(draw):
    """Shown whole in a phone's text column, no text under 9 px."""
    assert smallest_text_on_a_phone(render_svg(draw)) >= 9


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
            lambda: diagrams.show_reading_windows(1),
            r"num_lengths must lie in \[2, 4\], got 1",
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
