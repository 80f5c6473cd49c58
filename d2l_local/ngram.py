"""Interpolated n-gram models of characters, the yardstick of page "Train
Short, Test Long: Position on Real Text", which shows ``NGram``.

An n-gram model predicts a character from the ``order - 1`` characters
before it. Each order's estimate is mixed with the next shorter context's,
down to a uniform guess over the vocabulary:

- Witten-Bell: a context seen ``c`` times, followed by ``t`` different
  characters, keeps ``c / (c + t)`` of its probability for what it saw and
  passes ``t / (c + t)`` to the shorter context;
- Kneser-Ney (interpolated, modified): every count seen is lowered by a
  discount, and what that frees goes to the shorter context, whose counts
  are how many different characters came before a run rather than how often
  it occurred. As in Chen and Goodman's modified version, each order has
  three discounts, for runs counted once, twice and more often, estimated
  from how many runs of that order were counted 1, 2, 3 and 4 times.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from . import checks

__all__ = ["NGram", "SMOOTHINGS"]

SMOOTHINGS = ("Witten-Bell", "Kneser-Ney")


def _discounts(counts: Counter) -> tuple[float, float, float]:
    """Chen and Goodman's discounts for runs counted 1, 2 and 3 or more
    times."""
    n = [sum(1 for c in counts.values() if c == k) for k in (1, 2, 3, 4)]
    if not all(n):
        return (0.5, 0.5, 0.5)
    y = n[0] / (n[0] + 2 * n[1])
    return (
        1 - 2 * y * n[1] / n[0],
        2 - 3 * y * n[2] / n[1],
        3 - 4 * y * n[3] / n[2],
    )


class NGram:
    """An n-gram model of ``order`` fitted on ``tokens`` (a sequence of
    ints in ``range(vocab_size)``), smoothed by ``smoothing``."""

    def __init__(
        self,
        tokens: Sequence[int],
        order: int,
        vocab_size: int,
        smoothing: str = "Kneser-Ney",
    ) -> None:
        self.order = checks.positive_int("order", order)
        self.vocab_size = checks.positive_int("vocab_size", vocab_size)
        if smoothing not in SMOOTHINGS:
            raise ValueError(
                f"smoothing must be one of {SMOOTHINGS}, got {smoothing!r}"
            )
        self.smoothing = smoothing
        tokens = list(tokens)
        if len(tokens) < order:
            raise ValueError(
                f"tokens must hold at least order={order} tokens, "
                f"got {len(tokens)}"
            )
        runs = [
            Counter(zip(*(tokens[k:] for k in range(length))))
            for length in range(1, order + 1)
        ]
        if smoothing == "Kneser-Ney":
            # Below the top order, count the different characters that
            # precede a run, not its occurrences.
            for length in range(1, order):
                runs[length - 1] = Counter(run[1:] for run in runs[length])
        self.counts = runs
        self.discounts = [_discounts(counts) for counts in runs]
        # Per context: the count of its runs, how many different characters
        # followed it, and what the discounts take from it.
        self.totals, self.types, self.freed = [], [], []
        for counts, discounts in zip(runs, self.discounts):
            totals, types = defaultdict(int), defaultdict(int)
            freed = defaultdict(float)
            for run, count in counts.items():
                totals[run[:-1]] += count
                types[run[:-1]] += 1
                freed[run[:-1]] += discounts[min(count, 3) - 1]
            self.totals.append(totals)
            self.types.append(types)
            self.freed.append(freed)

    def probability(self, context: Sequence[int], token: int) -> float:
        """P(token | the last order - 1 tokens of ``context``)."""
        context = tuple(context)[len(context) - (self.order - 1) :]
        p = 1.0 / self.vocab_size
        for length in range(1, self.order + 1):
            if length - 1 > len(context):
                break
            history = (
                context[len(context) - length + 1 :] if length > 1 else ()
            )
            seen = self.totals[length - 1].get(history, 0)
            if seen == 0:
                continue
            count = self.counts[length - 1].get(history + (token,), 0)
            followers = self.types[length - 1][history]
            if self.smoothing == "Witten-Bell":
                p = (count + followers * p) / (seen + followers)
            else:
                D = (
                    self.discounts[length - 1][min(count, 3) - 1]
                    if count
                    else 0
                )
                p = (count - D + self.freed[length - 1][history] * p) / seen
        return p

    def bits(self, tokens: Sequence[int], start: int, stop: int) -> float:
        """Mean bits per token of predicting ``tokens[start:stop]``, each
        from the tokens before it."""
        tokens = list(tokens)
        if not 0 < start < stop <= len(tokens):
            raise ValueError(
                f"start and stop must satisfy 0 < start < stop <= "
                f"{len(tokens)}, got {start} and {stop}"
            )
        total = 0.0
        for t in range(start, stop):
            context = tokens[max(0, t - self.order + 1) : t]
            total -= math.log2(self.probability(context, tokens[t]))
        return total / (stop - start)
