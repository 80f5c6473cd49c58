"""Explanatory figures drawn from code (pages "Self-Attention", "Comparing
CNNs, RNNs and Self-Attention", "Sinusoidal Positional Encoding", "Relative
Positional Information", "Relative Positions in Today's Models" and
"Train Short, Test Long").

``show_self_attention`` draws every output of self-attention computed from
every input; ``show_architectures`` draws a CNN, an RNN and self-attention
over the same tokens; ``show_bits_and_encoding`` puts binary counting beside
the sinusoidal table; ``show_rotation`` draws one column pair l of the table on
the unit circle and the rotation by delta * w_l that moves position i to
i + delta; ``show_sequences`` draws token sequences as rows of boxes;
``show_position_hooks`` marks where each variant of
``relative_family`` brings in position, read from the hooks it overrides;
``show_reading_windows`` draws the two ways page "Train Short, Test Long"
reads text longer than the training length.

Each is narrow enough that a phone shows it whole with text of 9 px or more.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from matplotlib import pyplot as plt
from matplotlib.patches import Arc

from . import checks
from .plotting import use_svg_display
from .positional_encoding import sinusoidal_encoding
from .relative import frequencies
from .relative_family import PositionalSelfAttention

__all__ = [
    "show_architectures",
    "show_bits_and_encoding",
    "show_position_hooks",
    "show_rotation",
    "show_self_attention",
    "show_sequences",
]


def _nodes(ax, xs, y, labels=None, color="white", edge="black"):
    for index, x in enumerate(xs):
        ax.add_patch(
            plt.Circle((x, y), 0.28, facecolor=color, edgecolor=edge, zorder=3)
        )
        if labels:
            ax.text(
                x,
                y,
                labels[index],
                ha="center",
                va="center",
                fontsize=13,
                zorder=4,
            )


def _edge(ax, start, end, color="0.55", width=1.0):
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        zorder=2,
        arrowprops={
            "arrowstyle": "-|>",
            "color": color,
            "lw": width,
            "shrinkA": 9,
            "shrinkB": 9,
        },
    )


def show_architectures(
    n: int = 5, figsize: tuple[float, float] = (4.2, 6.4)
) -> None:
    """A two-layer CNN (kernel 3), an RNN chain and all-to-all self-attention
    over x_0..x_{n-1}, one above the other (narrow enough for a phone).

    In the CNN the receptive field of the top middle unit (its edges and its
    inputs) is drawn in colour: with n = 5 it reaches x_0 and x_4. The other
    panels' inputs stay white, since every input reaches their last output.
    """
    n = checks.positive_int("n", n)
    use_svg_display()
    fig, axes = plt.subplots(
        3, 1, figsize=figsize, gridspec_kw={"height_ratios": [3.2, 2.2, 2.2]}
    )
    xs = list(range(n))
    labels = [f"$x_{{{i}}}$" for i in xs]
    middle, hot = n // 2, "tab:red"
    cnn, rnn, attention = axes
    # CNN: each unit sees its neighbours at distance 1 in the layer below.
    reach = {2: {middle}, 1: {middle - 1, middle, middle + 1}}
    for layer in (1, 2):
        for x in xs:
            for source in (x - 1, x, x + 1):
                if not 0 <= source < n:
                    continue
                # Every input feeding a first-layer unit of the field is
                # inside it.
                on_path = x in reach[layer] and (
                    layer == 1 or source in reach[layer - 1]
                )
                _edge(
                    cnn,
                    (source, layer - 1),
                    (x, layer),
                    hot if on_path else "0.8",
                    1.4 if on_path else 0.8,
                )
    # Only the inputs inside the top middle unit's receptive field in colour.
    for x in xs:
        inside = abs(x - middle) <= 2
        _nodes(cnn, [x], 0, [labels[x]], "#fde0dd" if inside else "white")
    for layer in (1, 2):
        _nodes(cnn, xs, layer, color="white")
    cnn.set_title("CNN, kernel 3, two layers")
    # RNN: a chain of hidden states, each fed by one token.
    for x in xs:
        _edge(rnn, (x, 0), (x, 1))
        if x:
            _edge(rnn, (x - 1, 1), (x, 1), "tab:blue", 1.4)
    _nodes(rnn, xs, 0, labels)
    _nodes(rnn, xs, 1)
    rnn.set_title("RNN")
    _attention_panel(attention, n, inputs="white")
    attention.set_title("self-attention")
    for ax, top in zip(axes, (2, 1, 1)):
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_ylim(-0.6, top + 0.6)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.tight_layout()


def _attention_panel(
    ax, n: int, query: int | None = None, top: float = 1, inputs="#fde0dd"
) -> None:
    """Self-attention over x_0..x_{n-1}: an edge from every input (bottom,
    filled with ``inputs``) to every output (at height ``top``); those into
    output ``query`` in colour and the outputs labelled when a query is
    given."""
    xs = list(range(n))
    for target in xs:
        for source in xs:
            into_query = query is not None and target == query
            _edge(
                ax,
                (source, 0),
                (target, top),
                "tab:red"
                if into_query
                else "0.75"
                if query is not None
                else "0.6",
                1.4 if into_query else 0.7,
            )
    _nodes(ax, xs, 0, [f"$x_{{{i}}}$" for i in xs], color=inputs)
    _nodes(
        ax,
        xs,
        top,
        [f"$y_{{{i}}}$" for i in xs] if query is not None else None,
    )


def show_self_attention(
    n: int = 5, query: int = 2, figsize: tuple[float, float] = (3.6, 2.8)
) -> None:
    """Self-attention over x_0..x_{n-1} (page "Self-Attention"): every output
    y_i is computed from every input x_j; the edges into y_query are in
    colour."""
    n = checks.positive_int("n", n)
    if not 0 <= query < n:
        raise ValueError(f"query must lie in [0, {n - 1}], got {query}")
    use_svg_display()
    fig, ax = plt.subplots(figsize=figsize)
    _attention_panel(ax, n, query, top=1.8)
    ax.text(-0.75, 0, "inputs", ha="right", va="center", fontsize=11)
    ax.text(-0.75, 1.8, "outputs", ha="right", va="center", fontsize=11)
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(-0.6, 2.4)
    ax.set_aspect("equal")
    ax.axis("off")


def show_bits_and_encoding(
    num_rows: int = 60,
    num_bits: int = 6,
    num_hiddens: int = 32,
    figsize: tuple[float, float] = (5.2, 3.8),
) -> None:
    """Binary digits of 0..num_rows-1 (lowest bit first, each column
    labelled with its place value) beside the sinusoidal table."""
    num_rows = checks.positive_int("num_rows", num_rows)
    num_bits = checks.positive_int("num_bits", num_bits)
    if num_rows > 2**num_bits:
        raise ValueError(
            f"num_bits must be at least {math.ceil(math.log2(num_rows))} "
            f"to count to num_rows - 1 = {num_rows - 1}, got {num_bits}"
        )
    bits = (np.arange(num_rows)[:, None] >> np.arange(num_bits)) & 1
    P = sinusoidal_encoding(num_rows, num_hiddens).numpy()
    use_svg_display()
    fig, (left, right) = plt.subplots(
        1, 2, figsize=figsize, gridspec_kw={"width_ratios": [1, 2.2]}
    )
    left.imshow(bits, cmap="Greys", aspect="auto", interpolation="nearest")
    # Place values as plain text: superscripts (2^b) would be set at 70% of
    # the labels' size, too small on a phone.
    left.set_xticks(
        range(num_bits), [str(2**b) for b in range(num_bits)], rotation=90
    )
    left.set_title("bits of the\nrow number", fontsize=11)
    left.set_xlabel("Bit (place value)")
    left.set_ylabel("Row (position)")
    image = right.imshow(
        P, cmap="RdBu", vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    right.set_title(f"sinusoidal encoding,\nd = {num_hiddens}", fontsize=11)
    right.set_xlabel("Column (encoding dimension)")
    fig.colorbar(image, ax=right, shrink=0.8)


def show_rotation(
    i: int,
    delta: int,
    j: int,
    num_hiddens: int,
    num_positions: int = 60,
    figsize: tuple[float, float] = (3.6, 3.6),
) -> None:
    """Column pair l = ``j`` of P on the unit circle: position i rotates by
    delta * w_l to i + delta.

    Position i sits at (p_{i,2l+1}, p_{i,2l}) = (cos i w_l, sin i w_l). A
    turn of more than a full circle is drawn as a spiral that widens by one
    step per turn, so that the arc shows the whole angle.
    """
    num_hiddens = checks.even_int("num_hiddens", num_hiddens)
    num_positions = checks.positive_int("num_positions", num_positions)
    pairs = num_hiddens // 2
    if not 0 <= j < pairs:
        raise ValueError(
            f"j must lie in [0, {pairs - 1}] for num_hiddens={num_hiddens}, "
            f"got {j}"
        )
    for name, position in (("i", i), ("i + delta", i + delta)):
        if not 0 <= position < num_positions:
            raise ValueError(
                f"{name} must lie in [0, {num_positions - 1}], got {position}"
            )
    P = sinusoidal_encoding(
        num_positions, num_hiddens, dtype=torch.float64
    ).numpy()
    omega = frequencies(num_hiddens)[j].item()
    use_svg_display()
    fig, ax = plt.subplots(figsize=figsize)
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(theta), np.sin(theta), color="0.85", lw=1)
    ax.scatter(
        P[:, 2 * j + 1],
        P[:, 2 * j],
        s=8,
        color="0.6",
        label="positions 0..%d" % (num_positions - 1),
    )
    for position, color, name in (
        (i, "tab:blue", "i"),
        (i + delta, "tab:red", "i + δ"),
    ):
        x, y = P[position, 2 * j + 1], P[position, 2 * j]
        ax.plot([0, x], [0, y], color=color, lw=2)
        ax.scatter(
            [x], [y], s=40, color=color, zorder=3, label=f"{name} = {position}"
        )
    start = math.degrees(i * omega)
    sweep = math.degrees(delta * omega)
    if abs(sweep) <= 360:
        ax.add_patch(
            Arc(
                (0, 0),
                0.6,
                0.6,
                theta1=min(start, start + sweep),
                theta2=max(start, start + sweep),
                color="tab:red",
                lw=1.5,
            )
        )
    else:  # Arc would draw the angle less whole turns: a spiral instead
        turn = np.radians(np.linspace(start, start + sweep, 400))
        radius = 0.3 + 0.08 * np.abs(turn - turn[0]) / (2 * np.pi)
        ax.plot(
            radius * np.cos(turn),
            radius * np.sin(turn),
            color="tab:red",
            lw=1.5,
        )
    # Two title lines: one would be cut on a phone-width page. Plain text:
    # a formula that changes in every frame of a control is parsed anew each
    # time, a third of the frame's drawing time.
    turns = abs(delta * omega) / (2 * math.pi)
    ax.set_title(
        f"pair l = {j}: ω = {omega:.4g}\nangle δω = {delta * omega:.3g} rad"
        + (f" ({turns:.2g} turns)" if turns > 1 else ""),
        fontsize=10,
    )
    ax.set_xlabel(f"$p_{{i,{2 * j + 1}}} = \\cos(i\\omega_l)$")
    ax.set_ylabel(f"$p_{{i,{2 * j}}} = \\sin(i\\omega_l)$")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_aspect("equal")
    ax.legend(loc="lower left", fontsize=8)


# The hooks of PositionalSelfAttention through which a variant brings in
# position, and how the figure names them.
POSITION_HOOKS = {
    "add_positions": "added to\nthe input",
    "rotate": "rotates\nq and k",
    "position_scores": "added to\nthe scores",
    "position_values": "added to\nthe values",
}


def show_position_hooks(
    variants: dict[str, type], figsize: tuple[float, float] = (4.2, 3.2)
) -> None:
    """One row per variant (name -> subclass of PositionalSelfAttention), a
    dot under each hook it overrides (page "Relative Positions in Today's
    Models"): where the variant brings in position."""
    for name, variant in variants.items():
        if not (
            isinstance(variant, type)
            and issubclass(variant, PositionalSelfAttention)
        ):
            raise TypeError(
                f"variants must map names to PositionalSelfAttention "
                f"subclasses, got {variant!r} for {name!r}"
            )
    use_svg_display()
    fig, ax = plt.subplots(figsize=figsize)
    names = list(variants)
    for row, name in enumerate(names):
        for column, hook in enumerate(POSITION_HOOKS):
            used = getattr(variants[name], hook) is not getattr(
                PositionalSelfAttention, hook
            )
            ax.scatter(
                [column],
                [row],
                s=90 if used else 12,
                color="tab:red" if used else "0.8",
                zorder=3,
            )
    ax.set_xticks(range(len(POSITION_HOOKS)), list(POSITION_HOOKS.values()))
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(names)), names)
    ax.set_xlim(-0.5, len(POSITION_HOOKS) - 0.5)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.grid(color="0.92")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)


def show_sequences(
    sequences,
    captions: list[str],
    names: dict[int, str],
    figsize: tuple[float, float] = (4.4, 1.7),
) -> None:
    """Token sequences, one row of boxes each, with a caption to the right
    of each row (page "Does the Model Need Position? An Experiment"). The
    tokens in ``names`` (id -> name) are drawn in colour with their names,
    the others in grey with their ids; positions are numbered on top."""
    rows = [list(map(int, sequence)) for sequence in sequences]
    if not rows or len(rows) != len(captions):
        raise ValueError(
            "sequences and captions must be non-empty and match: "
            f"{len(rows)} sequences, {len(captions)} captions"
        )
    if len({len(row) for row in rows}) != 1:
        raise ValueError("sequences must all have the same length")
    colours = dict(zip(names, ["tab:blue", "tab:orange", "tab:green"]))
    use_svg_display()
    fig, ax = plt.subplots(figsize=figsize)
    length = len(rows[0])
    for r, (row, caption) in enumerate(zip(rows, captions)):
        y = -1.2 * r
        for x, token in enumerate(row):
            named = token in names
            ax.add_patch(
                plt.Rectangle(
                    (x - 0.42, y - 0.42),
                    0.84,
                    0.84,
                    facecolor=colours.get(token, "0.92"),
                    edgecolor="0.4",
                )
            )
            ax.text(
                x,
                y,
                names[token] if named else str(token),
                ha="center",
                va="center",
                fontsize=12 if named else 10,
                color="white" if named else "0.3",
                fontweight="bold" if named else "normal",
            )
        ax.text(length - 0.2, y, caption, va="center", fontsize=10)
    for x in range(length):
        ax.text(x, 0.65, str(x), ha="center", fontsize=9, color="0.4")
    ax.text(-0.6, 0.65, "position", ha="right", fontsize=9, color="0.4")
    ax.set_xlim(-0.6, length + 2.6)
    ax.set_ylim(-1.2 * (len(rows) - 1) - 0.6, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")


def show_reading_windows(
    num_lengths: int = 2, figsize: tuple[float, float] = (3.6, 2.5)
) -> None:
    """How page "Train Short, Test Long" reads held-out text with windows
    ``num_lengths`` times the training length L: non-overlapping windows
    score every position; a window sliding by L scores only its last L
    characters and reads the ones before as context. Both score the same
    characters, from 0 to 2 * num_lengths * L."""
    n = checks.positive_int("num_lengths", num_lengths)
    if not 2 <= n <= 4:
        raise ValueError(f"num_lengths must lie in [2, 4], got {n}")
    use_svg_display()
    fig, ax = plt.subplots(figsize=figsize)
    scored, context, height = "tab:blue", "0.82", 0.62
    span = 2 * n  # the scored characters, in units of L

    def bar(y, start, length, colour):
        ax.add_patch(
            plt.Rectangle(
                (start, y - height / 2),
                length,
                height,
                facecolor=colour,
                edgecolor="white",
                linewidth=1.5,
            )
        )

    for k in range(2):
        bar(0, k * n, n, scored)
    ax.text(-n + 1, 0.55, f"non-overlapping windows of {n}L", fontsize=9)
    for k in range(span):
        y = -1.6 - 0.8 * k
        bar(y, k - n + 1, n - 1, context)
        bar(y, k, 1, scored)
    ax.text(-n + 1, -1.05, f"a window of {n}L sliding by L", fontsize=9)
    for x in range(span + 1):
        ax.text(
            x,
            -1.6 - 0.8 * span + 0.2,
            {0: "0", 1: "L"}.get(x, f"{x}L"),
            ha="center",
            va="top",
            fontsize=9,
            color="0.3",
        )
    ax.plot([], [], "s", color=scored, label="scored")
    ax.plot([], [], "s", color=context, label="read, not scored")
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, 0.02),
        ncol=2,
        fontsize=9,
        frameon=False,
        handletextpad=0.3,
    )
    ax.set_xlim(-n + 0.9, span + 0.1)
    ax.set_ylim(-1.6 - 0.8 * span - 0.35, 1.0)
    ax.axis("off")
