"""Sinusoidal and learned positional encodings (page "Sinusoidal Positional
Encoding" shows ``sinusoidal_encoding``, ``sines_then_cosines`` and
``PositionalEncoding``; the order experiment shows
``LearnedPositionalEmbedding``).

``PositionalEncoding`` has d2l's signature ``(num_hiddens, dropout,
max_len=1000)`` and adds P to its input. Unlike d2l it accepts odd widths
(the last column is a sine with no cosine partner), keeps P as a
non-persistent buffer (it moves with ``.to(device)`` and stays out of the
``state_dict``), computes the angles in float64 before rounding P once, and
names the parameter at fault when an input does not fit.
"""

from __future__ import annotations

import torch
from torch import nn

from . import checks
from .relative import frequencies

__all__ = [
    "LearnedPositionalEmbedding",
    "PositionalEncoding",
    "sines_then_cosines",
    "sinusoidal_encoding",
]


def sinusoidal_encoding(
    max_len: int,
    num_hiddens: int,
    dtype: torch.dtype = torch.float32,
    base: float = 10000.0,
) -> torch.Tensor:
    """The (max_len, num_hiddens) table P with P[i, 2l] = sin(i w_l),
    P[i, 2l+1] = cos(i w_l), for positions i = 0..max_len-1 and column
    pairs l.

    The frequencies are w_l = 1 / b^(2l / num_hiddens), with the base
    b = 10000 as in Vaswani et al. (2017).
    """
    max_len = checks.positive_int("max_len", max_len)
    num_hiddens = checks.positive_int("num_hiddens", num_hiddens)
    w = frequencies(num_hiddens, base=base)
    angles = torch.arange(max_len, dtype=torch.float64)[:, None] * w
    P = torch.empty(max_len, num_hiddens, dtype=torch.float64)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles[:, : num_hiddens // 2])
    return P.to(dtype)


def sines_then_cosines(
    max_len: int,
    num_hiddens: int,
    dtype: torch.dtype = torch.float32,
    base: float = 10000.0,
) -> torch.Tensor:
    """The same sinusoids in Tensor2Tensor's layout: the first d/2 columns
    hold sin(i w_l), the last d/2 cos(i w_l).

    Its columns are those of ``sinusoidal_encoding`` in the order
    ``halves_order(d)``; the width must be even.
    """
    max_len = checks.positive_int("max_len", max_len)
    num_hiddens = checks.even_int("num_hiddens", num_hiddens)
    w = frequencies(num_hiddens, base=base)
    angles = torch.arange(max_len, dtype=torch.float64)[:, None] * w
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1).to(dtype)


class _AddedPositions(nn.Module):
    """Shared by both tables: checks the input and adds the first rows of
    ``self.P``."""

    P: torch.Tensor

    def __init__(self, num_hiddens: int, dropout: float, max_len: int) -> None:
        super().__init__()
        self.num_hiddens = checks.positive_int("num_hiddens", num_hiddens)
        self.max_len = checks.positive_int("max_len", max_len)
        self.dropout = nn.Dropout(checks.probability("dropout", dropout))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        checks.encoding_input(X, self.num_hiddens, self.max_len)
        num_steps = X.shape[1]
        return self.dropout(X + self.P[:, :num_steps, :].to(X.dtype))


class PositionalEncoding(_AddedPositions):
    """Add the sinusoidal table P to inputs of shape (batch_size, num_steps,
    num_hiddens)."""

    def __init__(
        self, num_hiddens: int, dropout: float, max_len: int = 1000
    ) -> None:
        super().__init__(num_hiddens, dropout, max_len)
        # Shape (1, max_len, num_hiddens), like d2l's P, so it broadcasts over
        # the batch.
        self.register_buffer(
            "P",
            sinusoidal_encoding(max_len, num_hiddens)[None],
            persistent=False,
        )


class LearnedPositionalEmbedding(_AddedPositions):
    """A trainable table P (page "Does the Model Need Position? An
    Experiment"): same calls and checks as ``PositionalEncoding``.

    Each of the ``max_len`` rows is a parameter, drawn with standard
    deviation 0.02, so only positions seen in training are ever fitted (the
    others stay small); a longer sequence than ``max_len`` is an error.
    """

    def __init__(
        self, num_hiddens: int, dropout: float, max_len: int = 1000
    ) -> None:
        super().__init__(num_hiddens, dropout, max_len)
        self.P = nn.Parameter(0.02 * torch.randn(1, max_len, num_hiddens))
