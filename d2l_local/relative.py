"""Relative position in the sinusoidal encoding, and rotary embeddings (page
"Relative Positional Information", which shows ``frequencies``,
``rotation_matrix``, ``rope`` and ``RotaryMultiHeadAttention``; page
"Sinusoidal Positional Encoding" shows ``halves_order``).

For a fixed offset delta (negative: back), one block-diagonal rotation
M(delta) maps every row P[i] of the sinusoidal table to P[i + delta].
Rotating queries and keys by their own positions (RoPE, Su et al., 2021)
makes their dot product depend on the offset delta = j - i only.
"""

from __future__ import annotations

import numbers

import torch

from . import checks
from .attention import MultiHeadAttention

__all__ = [
    "RotaryMultiHeadAttention",
    "frequencies",
    "halves_order",
    "rope",
    "rotation_matrix",
    "shift_error",
]


def frequencies(
    num_hiddens: int,
    dtype: torch.dtype = torch.float64,
    base: float = 10000.0,
) -> torch.Tensor:
    """w_l = 1 / b^(2l / num_hiddens) for every column pair l
    (ceil(d / 2) of them); the base b is 10000 unless given."""
    num_hiddens = checks.positive_int("num_hiddens", num_hiddens)
    base = checks.base(base)
    exponents = (
        torch.arange(0, num_hiddens, 2, dtype=torch.float64) / num_hiddens
    )
    return (base**-exponents).to(dtype)


def rotation_matrix(
    delta: float, num_hiddens: int, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """The (d, d) block-diagonal M(delta) with blocks
    [[cos delta w_l, sin delta w_l], [-sin delta w_l, cos delta w_l]]:
    M(delta) p_i = p_{i + delta}, a move delta positions ahead."""
    delta = checks.real("delta", delta)
    angles = delta * frequencies(checks.even_int("num_hiddens", num_hiddens))
    cos, sin = torch.cos(angles), torch.sin(angles)
    blocks = torch.stack(
        [torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1)], -2
    )
    return torch.block_diag(*blocks).to(dtype)


def shift_error(P: torch.Tensor, delta: int) -> float:
    """Largest |P[i + delta] - M(delta) P[i]| over every i with both rows in
    the table."""
    checks.floating("P", checks.tensor("P", P, 2))
    if isinstance(delta, bool) or not isinstance(delta, numbers.Integral):
        raise TypeError(
            f"delta must be an integer, got {type(delta).__name__}"
        )
    max_len = P.shape[0]
    if not -max_len < delta < max_len:
        raise ValueError(
            f"delta must lie in [{1 - max_len}, {max_len - 1}] for a table of "
            f"max_len={max_len} rows, got {delta}"
        )
    M = rotation_matrix(delta, P.shape[1], dtype=P.dtype)
    rows = torch.arange(max(0, -delta), min(max_len, max_len - delta))
    return (P[rows + delta] - P[rows] @ M.T).abs().max().item()


def rope(
    X: torch.Tensor,
    positions: torch.Tensor | None = None,
    omega: torch.Tensor | None = None,
    layout: str = "adjacent",
) -> torch.Tensor:
    """Rotate each column pair l of X (..., n, d) by the angle
    position * w_l.

    ``positions`` defaults to 0..n-1 and ``omega``, the angle per position
    of each pair, to ``frequencies(d)``. Then rope(q)[i] . rope(k)[j]
    depends on the offset j - i only, not on i and j separately. Pair l is
    columns (2l, 2l+1) in the paper's ``"adjacent"`` layout and columns
    (l, l + d/2) in the ``"half"`` (rotate-half) layout of GPT-NeoX and
    Hugging Face's Llama.
    """
    checks.rope_input(X, positions, omega, layout)
    num_steps, num_hiddens = X.shape[-2], X.shape[-1]
    if positions is None:
        positions = torch.arange(num_steps, device=X.device)
    w = frequencies(num_hiddens) if omega is None else omega
    angles = positions.to(X.device, torch.float64)[:, None] * w.to(X.device)
    cos, sin = torch.cos(angles).to(X.dtype), torch.sin(angles).to(X.dtype)
    if layout == "half":
        first, second = X[..., : num_hiddens // 2], X[..., num_hiddens // 2 :]
        return torch.cat(
            [first * cos - second * sin, first * sin + second * cos], dim=-1
        )
    even, odd = X[..., 0::2], X[..., 1::2]
    rotated = torch.stack(
        [even * cos - odd * sin, even * sin + odd * cos], dim=-1
    )
    return rotated.flatten(-2)


def halves_order(num_hiddens: int) -> torch.Tensor:
    """The column order from the paper's layout, each pair's two columns
    side by side (2l, 2l+1), to the halves layout, every pair's first column
    and then every pair's second: ``X[..., halves_order(d)]``.

    The halves layout is that of Tensor2Tensor's sinusoidal table (sines,
    then cosines) and of rotate-half RoPE: with ``order = halves_order(d)``,
    ``rope(X[..., order], layout="half") == rope(X)[..., order]``.
    """
    num_hiddens = checks.even_int("num_hiddens", num_hiddens)
    return torch.cat(
        [torch.arange(0, num_hiddens, 2), torch.arange(1, num_hiddens, 2)]
    )


class RotaryMultiHeadAttention(MultiHeadAttention):
    """Multi-head self-attention that rotates each head's queries and keys
    by their positions.

    The values are never rotated, and no table is added to the input. The
    width of a head must be even. Used by the page "Does the Model Need
    Position? An Experiment".
    """

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        dropout: float,
        bias: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(num_hiddens, num_heads, dropout, bias, **kwargs)
        checks.even_int("num_hiddens / num_heads", num_hiddens // num_heads)

    def rotate(
        self, queries: torch.Tensor, keys: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if queries.shape[-2] != keys.shape[-2]:
            raise ValueError(
                f"queries and keys must be one sequence, got "
                f"{queries.shape[-2]} queries and {keys.shape[-2]} keys"
            )
        return rope(queries), rope(keys)
