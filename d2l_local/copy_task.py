"""Output the token ``delta`` positions back (at offset -delta, in the
book's notation delta = j - i): a task that only a head which finds
relative position can solve (pages "From an Offset to an Attention Head"
and "Relative Positions in Today's Models").

``make_copy_task`` draws the sequences (targets ``training.IGNORE`` where
nothing lies delta tokens back), and ``CopyModel`` is one self-attention
layer (any variant of ``relative_family``) between an embedding and an
output layer; ``training.train`` fits it.
"""

from __future__ import annotations

import torch
from torch import nn

from . import checks
from .relative_family import PositionalSelfAttention
from .training import IGNORE

__all__ = [
    "CopyModel",
    "beyond",
    "make_copy_task",
    "make_model",
    "verdict",
]


def make_copy_task(
    num_examples: int,
    num_steps: int,
    delta: int,
    vocab_size: int = 16,
    seed: int = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random tokens (num_examples, num_steps) and targets of the same
    shape, made on the CPU: target i is token i - delta, the token at offset
    -delta (``IGNORE`` for i < delta)."""
    num_examples = checks.positive_int("num_examples", num_examples)
    num_steps = checks.positive_int("num_steps", num_steps)
    delta = checks.positive_int("delta", delta)
    vocab_size = checks.positive_int("vocab_size", vocab_size)
    if delta >= num_steps:
        raise ValueError(
            f"delta must be below num_steps={num_steps} so that some "
            f"position has a target, got {delta}"
        )
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(
        vocab_size, (num_examples, num_steps), generator=generator
    )
    targets = torch.full_like(tokens, IGNORE)
    targets[:, delta:] = tokens[:, :-delta]
    return tokens, targets


def beyond(targets: torch.Tensor, num_steps: int) -> torch.Tensor:
    """A copy of ``targets`` with positions 0..num_steps-1 set to
    ``IGNORE``: on a longer test sequence, only the positions that training
    never reached then count."""
    checks.tensor("targets", targets, 2)
    num_steps = checks.positive_int("num_steps", num_steps)
    if num_steps >= targets.shape[1]:
        raise ValueError(
            f"num_steps must be below the sequence length "
            f"{targets.shape[1]}, got {num_steps}"
        )
    kept = targets.clone()
    kept[:, :num_steps] = IGNORE
    return kept


class CopyModel(nn.Module):
    """Embedding -> one self-attention layer -> logits over the vocabulary
    at every position. ``attention`` is any ``PositionalSelfAttention``."""

    def __init__(
        self, vocab_size: int, attention: PositionalSelfAttention
    ) -> None:
        super().__init__()
        if not isinstance(attention, PositionalSelfAttention):
            raise TypeError(
                "attention must be a PositionalSelfAttention, got "
                f"{type(attention).__name__}"
            )
        vocab_size = checks.positive_int("vocab_size", vocab_size)
        self.embedding = nn.Embedding(vocab_size, attention.num_hiddens)
        self.attention = attention
        self.output = nn.Linear(attention.num_hiddens, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        checks.tensor("tokens", tokens, 2)
        X = self.embedding(tokens).to(self.output.weight.dtype)
        return self.output(self.attention(X))


def make_model(
    variant: type[PositionalSelfAttention],
    seed: int,
    vocab_size: int = 16,
    num_hiddens: int = 32,
    num_heads: int = 1,
    causal: bool = True,
) -> CopyModel:
    """A float64 ``CopyModel`` around ``variant``, its weights drawn from
    ``seed``.

    The weights are drawn in float64 itself: torch draws float32 normals
    with code that depends on the CPU's instruction set, float64 ones not.
    """
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(seed)
        return CopyModel(vocab_size, variant(num_hiddens, num_heads, causal))
    finally:
        torch.set_default_dtype(previous)


def verdict(accuracies: list[float], level: float = 0.95) -> str:
    """How many seeds reach ``level``: "holds" (every one), "fails" (none)
    or "k of n"."""
    if not accuracies:
        raise ValueError("accuracies must hold at least one value")
    reached = sum(a >= level for a in accuracies)
    if reached == len(accuracies):
        return "holds"
    if reached == 0:
        return "fails"
    return f"{reached} of {len(accuracies)}"
