"""Who holds past the training length, read from the scores that ``make
models`` logged (pages "Train Short, Test Long: Position on Real Text" and
"Stretching and Debugging RoPE", which show ``rises`` and ``holds``).

A method's *rise* at a window length n is how much worse, in bits per
character, each seed scores there than at L:

- non-overlapping windows: its loss in windows of n side by side minus its
  loss in windows of L side by side;
- sliding: its loss in a window of n that slides by L minus its loss in a
  window of L that slides by a few characters (``baseline``), so that both
  score characters with a full window of context before them.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence

import torch
from matplotlib import pyplot as plt

from . import language_model, pretraining
from .plotting import label_lines

__all__ = [
    "COLOURS",
    "HOLD",
    "MODES",
    "best_at",
    "held_up_to",
    "holds",
    "join_names",
    "load_scores",
    "plot_rises",
    "reach_parts",
    "rise_interval",
    "rises",
    "stability",
]

MODES = ("non-overlapping", "sliding")
# A rise of at most this many bits per character counts as holding.
HOLD = 0.1
# One colour per method past L, the same on both pages' figures.
COLOURS = {
    "sinusoidal": "C1",
    "RoPE": "C3",
    "p-RoPE": "C4",
    "partial RoPE": "C5",
    "iRoPE": "C6",
    "ALiBi": "C0",
    "T5 bias": "C2",
    "NoPE": "C7",
}


def join_names(names: Sequence[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"
    ("none" for no names)."""
    names = [str(name) for name in names]
    if len(names) < 2:
        return names[0] if names else "none"
    return ", ".join(names[:-1]) + " and " + names[-1]


def reach_parts(
    reach: Mapping[str, int], train_len: int, longest: int | None = None
) -> list[str]:
    """Clauses that group methods by how far they held (``held_up_to``),
    farthest first: "a and b held up to 8L", ..., then "c did not hold even
    at 2L". With ``longest``, the group that held there is told that it is
    the longest window judged."""
    if train_len < 1:
        raise ValueError(f"train_len must be at least 1, got {train_len}")
    groups: dict[int, list[str]] = {}
    for method, n in reach.items():
        if n < train_len or n % train_len:
            raise ValueError(
                f"reach of {method!r} must be a multiple of train_len "
                f"{train_len}, got {n}"
            )
        groups.setdefault(n, []).append(method)
    parts = [
        f"{join_names(groups[n])} held up to {n // train_len}L"
        + (", the longest window judged" if n == longest else "")
        for n in sorted(groups, reverse=True)
        if n > train_len
    ]
    if train_len in groups:
        parts.append(
            f"{join_names(groups[train_len])} did not hold even at 2L"
        )
    return parts


def load_scores(config: str) -> dict[str, list[dict]]:
    """Each method's scores in ``config``, one dict per seed."""
    settings = pretraining.CONFIGS[config]
    return {
        method: [
            pretraining.load_log(config, method, seed)["scores"]
            for seed in settings.seeds
        ]
        for method in settings.methods
    }


def rises(per_seed: Sequence[dict], mode: str, n: int) -> list[float]:
    """Every seed's loss at window length n minus its own loss at L, in
    ``mode`` (see the module's docstring)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    values = []
    for scores in per_seed:
        train_len = min(scores["non-overlapping"])
        if mode == "non-overlapping":
            own = scores["non-overlapping"][train_len]
            values.append(scores["non-overlapping"][n] - own)
        else:
            values.append(scores["sliding"][n] - scores["baseline"])
    return values


def rise_interval(
    model: torch.nn.Module,
    held_out: torch.Tensor,
    train_len: int,
    mode: str,
    n: int,
    draws: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    longer_model: torch.nn.Module | None = None,
) -> tuple[float, float, float]:
    """One model's rise at window length n in ``mode``, on the characters
    ``pretraining.evaluate`` scores, and a bootstrap interval for it: the
    held-out text is cut into blocks of 8L characters and resampled
    ``draws`` times, with replacement, to show how much the rise hangs on
    which text was scored. ``longer_model``, when given, reads the windows
    of n instead (a stretched copy of ``model``: stretching_rope). Returns
    (rise, low, high)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    block = 8 * train_len
    scored = (len(held_out) - 1 - block) // block * block
    stride = (
        inspect.signature(pretraining.evaluate)
        .parameters["baseline_stride"]
        .default
    )
    reads = {
        "non-overlapping": [(n, None), (train_len, None)],
        "sliding": [(n, train_len), (train_len, stride)],
    }[mode]
    readers = [model if longer_model is None else longer_model, model]
    longer, shorter = (
        language_model.character_bits(
            reader, held_out, window, step, block, scored
        )
        for reader, (window, step) in zip(readers, reads)
    )
    per_block = (longer - shorter).view(-1, block).mean(1)
    generator = torch.Generator().manual_seed(seed)
    picks = torch.randint(
        len(per_block), (draws, len(per_block)), generator=generator
    )
    means = per_block[picks].mean(1)
    low, high = torch.quantile(
        means,
        torch.tensor([(1 - level) / 2, (1 + level) / 2], dtype=means.dtype),
    ).tolist()
    return per_block.mean().item(), low, high


def holds(per_seed: Sequence[dict], n: int, limit: float = HOLD) -> bool:
    """Does every seed, in both modes, rise by at most ``limit`` bits at
    window length n?"""
    return all(r <= limit for mode in MODES for r in rises(per_seed, mode, n))


def held_up_to(per_seed: Sequence[dict], limit: float = HOLD) -> int:
    """The longest window length n such that the method holds at every
    tested length up to n (L when it does not hold at 2L)."""
    train_len = min(per_seed[0]["non-overlapping"])
    longest = train_len
    for n in sorted(per_seed[0]["sliding"]):
        if not holds(per_seed, n, limit):
            break
        longest = n
    return longest


def best_at(
    scores: dict[str, list[dict]], key=lambda s: s["baseline"]
) -> str | None:
    """The method whose every seed scores below every seed of every other
    method (by ``key``, the baseline at L unless given), or None."""
    for method, per_seed in scores.items():
        mine = max(key(s) for s in per_seed)
        others = [
            key(s) for m, ps in scores.items() if m != method for s in ps
        ]
        if mine < min(others):
            return method
    return None


def stability(
    configs: Sequence[str],
    limit: float = HOLD,
    loaded: Mapping[str, dict[str, list[dict]]] | None = None,
) -> dict[str, dict[str, int]]:
    """For every method, the length it holds up to in each config, from
    ``loaded`` (config -> method -> scores per seed, as ``load_scores``
    gives) or else from the stored logs."""
    if loaded is None:
        loaded = {name: load_scores(name) for name in configs}
    methods = [
        m for m in loaded[configs[0]] if all(m in loaded[c] for c in configs)
    ]
    return {
        method: {
            name: held_up_to(loaded[name][method], limit) for name in configs
        }
        for method in methods
        if loaded[configs[0]][method][0]["sliding"]
    }


# The rise axis: linear up to 0.5 bits, logarithmic above.
RISE_TICKS = (0, 0.1, 0.5, 1, 2, 4, 8)


def plot_rises(
    scores: Mapping[str, Sequence[dict]],
    colours: Mapping[str, str],
    names: Mapping[str, str] | None = None,
    height: float = 4.6,
    lowest: float = -0.3,
    label_room: float = 2.9,
):
    """Two panels, one per mode, of each method's rises (mean of the seeds,
    band from lowest to highest seed) against the window length, with the
    limit ``HOLD`` dotted and each line named at its right end (``names``
    renames them; ``label_room`` is how far past the longest window, as a
    factor, the names may run). The sliding panel starts at 2L: its
    reference is the baseline, not a window of L. Pages "Train Short, Test
    Long" and "Stretching and Debugging RoPE"."""
    if not scores:
        raise ValueError("scores must hold at least one method")
    missing = [m for m in scores if m not in colours]
    if missing:
        raise ValueError(f"colours has no colour for {missing}")
    names = {m: (names or {}).get(m, m) for m in scores}
    first = next(iter(scores.values()))[0]
    train_len = min(first["non-overlapping"])
    lengths = sorted(first["non-overlapping"])
    fig, axes = plt.subplots(2, 1, figsize=(3.7, height), sharex=True)
    for ax, mode in zip(axes, MODES):
        side = mode == "non-overlapping"
        xs = lengths if side else lengths[1:]
        ends = []
        for method, per_seed in scores.items():
            runs = torch.tensor(
                [
                    [0.0] * side
                    + [rises([s], mode, n)[0] for n in lengths[1:]]
                    for s in per_seed
                ]
            )
            ax.fill_between(
                xs,
                runs.min(0).values,
                runs.max(0).values,
                color=colours[method],
                alpha=0.2,
                lw=0,
            )
            ax.plot(
                xs,
                runs.mean(0),
                color=colours[method],
                lw=1.4,
                marker="o",
                ms=3,
            )
            ends.append((runs.mean(0)[-1].item(), names[method]))
        ax.set_yscale("symlog", linthresh=0.5, linscale=1.5)
        ax.axhline(HOLD, color="0.4", lw=0.8, ls=":")
        ax.axhline(0, color="0.6", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_xticks(
            lengths,
            [f"{n // train_len}L" if n > train_len else "L" for n in lengths],
        )
        ax.set_ylim(lowest, RISE_TICKS[-1])
        ax.set_yticks(RISE_TICKS, [f"{t:g}" for t in RISE_TICKS])
        ax.set_title(mode, fontsize=10, loc="left")
        ax.set_ylabel("rise (bits per char.)")
        label_lines(
            ax,
            ends,
            {names[m]: colours[m] for m in scores},
            x=lengths[-1] * 1.08,
        )
    axes[-1].set_xlim(lengths[0] * 0.9, lengths[-1] * label_room)
    fig.tight_layout()
    return fig
