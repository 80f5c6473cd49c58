"""Figures with d2l's plotting calls: ``plot`` and ``show_heatmaps`` (every
section).

``use_svg_display`` also makes the SVG text reproducible (fixed hash salt, no
date, text kept as text) so that nbval can compare figures between runs.
Arguments are checked before any figure is created, so bad input never
leaves a half-drawn figure behind.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import numpy as np
import torch
from matplotlib import pyplot as plt

__all__ = [
    "label_lines",
    "plot",
    "set_axes",
    "set_figsize",
    "show_heatmaps",
    "use_svg_display",
]

# Stable, compact SVG: the same figure gives the same bytes on every run.
matplotlib.rcParams["svg.hashsalt"] = "d2l_local"
matplotlib.rcParams["svg.fonttype"] = "none"


def use_svg_display() -> None:
    """Show inline figures as SVG without a date stamp (a no-op outside
    IPython)."""
    from IPython import get_ipython

    if get_ipython() is None:
        return
    from matplotlib_inline import backend_inline

    backend_inline.set_matplotlib_formats("svg", metadata={"Date": None})


def set_figsize(figsize: tuple[float, float] = (3.5, 2.5)) -> None:
    """Use SVG and make ``figsize`` the default size of new figures."""
    use_svg_display()
    plt.rcParams["figure.figsize"] = figsize


def set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend) -> None:
    """Label, scale and limit ``axes``, add the legend if one is given, draw
    a grid."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_xscale(xscale)
    axes.set_yscale(yscale)
    axes.set_xlim(xlim)
    axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _to_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _has_one_axis(x) -> bool:
    return (hasattr(x, "ndim") and x.ndim == 1) or (
        isinstance(x, list) and not hasattr(x[0], "__len__")
    )


def plot(
    X,
    Y=None,
    xlabel=None,
    ylabel=None,
    legend=None,
    xlim=None,
    ylim=None,
    xscale="linear",
    yscale="linear",
    fmts=("-", "m--", "g-.", "r:"),
    figsize=(3.5, 2.5),
    axes=None,
) -> None:
    """Plot one or more curves, as ``d2l.plot`` does (on ``axes`` or the
    current axes).

    ``X`` alone is plotted against its index; with ``Y``, each curve of ``Y``
    is plotted against ``X`` (or against the matching curve of ``X``).
    """
    if _has_one_axis(X):
        X = [X]
    if Y is None:
        X, Y = [[]] * len(X), X
    elif _has_one_axis(Y):
        Y = [Y]
    if len(X) != len(Y):
        X = X * len(Y)
    if len(Y) > len(fmts):
        raise ValueError(
            f"fmts must give a style per curve: {len(Y)} curves, "
            f"{len(fmts)} styles"
        )
    if legend and len(legend) != len(Y):
        raise ValueError(
            f"legend must name every curve: {len(Y)} curves, "
            f"{len(legend)} names"
        )
    set_figsize(figsize)
    if axes is None:
        axes = plt.gca()
    axes.cla()
    for x, y, fmt in zip(X, Y, fmts):
        if len(x):
            axes.plot(_to_numpy(x), _to_numpy(y), fmt)
        else:
            axes.plot(_to_numpy(y), fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend)


def _check_aspect(aspect: object) -> None:
    if aspect in ("auto", "equal"):
        return
    if (
        isinstance(aspect, bool)
        or not isinstance(aspect, (int, float))
        or not 0 < aspect < float("inf")
    ):
        raise ValueError(
            "aspect must be 'auto', 'equal' or a positive finite number, "
            f"got {aspect!r}"
        )


def _check_labels(
    name: str, labels: Sequence[str] | None, size: int, what: str
) -> None:
    if labels is not None and len(labels) != size:
        raise ValueError(
            f"{name} must have one label per {what}: expected {size}, "
            f"got {len(labels)}"
        )


def show_heatmaps(
    matrices,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | Sequence[Sequence[str]] | None = None,
    figsize: tuple[float, float] = (2.5, 2.5),
    cmap: str = "Reds",
    *,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    aspect: str | float = "equal",
) -> None:
    """Draw a grid of heatmaps from ``matrices`` of shape (rows, cols,
    height, width).

    The same call as ``d2l.show_heatmaps``. ``titles`` names the columns of
    panels, as in d2l, or every panel (a list of rows of titles). The
    keyword-only extras put token labels on the axes and fix the colour range,
    which all panels share so that their colours compare. ``aspect="auto"``
    stretches the cells to fill the panels, so that a control switching
    between matrices of different widths keeps its figure's shape.
    """
    values = _to_numpy(matrices)
    if values.ndim != 4:
        raise ValueError(
            "matrices must have 4 dimensions (rows, cols, height, width), "
            f"got shape {values.shape}"
        )
    num_rows, num_cols, height, width = values.shape
    per_panel = bool(titles) and not isinstance(titles[0], str)
    if per_panel:
        _check_labels("titles", titles, num_rows, "row of panels")
        for row_titles in titles:
            _check_labels("titles", row_titles, num_cols, "column of panels")
    else:
        _check_labels("titles", titles, num_cols, "column of panels")
    _check_labels("xticklabels", xticklabels, width, "column of a matrix")
    _check_labels("yticklabels", yticklabels, height, "row of a matrix")
    _check_aspect(aspect)
    use_svg_display()
    vmin = values.min() if vmin is None else vmin
    vmax = values.max() if vmax is None else vmax
    fig, axes = plt.subplots(
        num_rows,
        num_cols,
        figsize=figsize,
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for i, (row_axes, row_values) in enumerate(zip(axes, values)):
        for j, (ax, matrix) in enumerate(zip(row_axes, row_values)):
            image = ax.imshow(
                matrix, cmap=cmap, vmin=vmin, vmax=vmax, aspect=aspect
            )
            if i == num_rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles:
                ax.set_title(titles[i][j] if per_panel else titles[j])
            if xticklabels is not None:
                ax.set_xticks(range(width), xticklabels, rotation=90)
            if yticklabels is not None:
                ax.set_yticks(range(height), yticklabels)
    fig.colorbar(image, ax=axes, shrink=0.6)


def label_lines(
    ax,
    ends: Sequence[tuple[float, str]],
    colours: dict[str, str],
    x: float,
    fontsize: float = 8,
) -> None:
    """Name each line at its right end instead of in a legend: ``ends``
    holds each line's last y value and name; labels that would overlap are
    pushed apart vertically, in the order of their values. Call it after
    the axes' scales and limits are set."""
    if not ends:
        return
    to_pixels, to_data = ax.transData, ax.transData.inverted()
    gap = fontsize * 1.25 * ax.figure.dpi / 72
    placed = sorted((to_pixels.transform((x, y))[1], name) for y, name in ends)
    heights = [placed[0][0]]
    for height, _ in placed[1:]:
        heights.append(max(height, heights[-1] + gap))
    # Shift the whole column down if it ran above the axes.
    top = ax.get_window_extent().y1
    overflow = heights[-1] - top
    if overflow > 0:
        heights = [h - overflow for h in heights]
    for height, (_, name) in zip(heights, placed):
        y = to_data.transform((0, height))[1]
        ax.text(
            x,
            y,
            name,
            color=colours[name],
            fontsize=fontsize,
            va="center",
            ha="left",
            clip_on=False,
        )
