"""Does a model need position? A task where only order decides the label
(page "Does the Model Need Position? An Experiment").

Each sequence holds one token A, one token B and filler tokens; the label is
1 when A comes before B. Both orders contain the same tokens, so a model
that ignores position cannot beat chance. ``OrderClassifier`` is one
self-attention layer with a choice of positional information, trained by
``train_classifier`` (``training.train``) with a fixed seed.
"""

from __future__ import annotations

import torch
from torch import nn

from . import checks
from .attention import MultiHeadAttention, causal_valid_lens
from .positional_encoding import LearnedPositionalEmbedding, PositionalEncoding
from .relative import RotaryMultiHeadAttention
from .training import TrainingLog, accuracy
from .training import train as train_classifier

__all__ = [
    "POSITIONS",
    "OrderClassifier",
    "TrainingLog",
    "a_to_b",
    "accuracy",
    "make_order_task",
    "mirror",
    "side_of_chance",
    "train_classifier",
    "verdict",
    "within",
]

TOKEN_A, TOKEN_B = 0, 1
# How each variant learns where a token stands: nothing, an added table
# (fixed or trained), rotated queries and keys, or a causal mask alone.
POSITIONS = ("none", "sinusoidal", "learned", "rope", "causal", "rope_causal")


def make_order_task(
    num_examples: int, num_steps: int, vocab_size: int = 10, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids (num_examples, num_steps) and labels (num_examples,), made on
    the CPU.

    Tokens 0 and 1 are A and B; the others are fillers. Label 1 means A comes
    first.
    """
    num_examples = checks.positive_int("num_examples", num_examples)
    num_steps = checks.positive_int("num_steps", num_steps)
    vocab_size = checks.positive_int("vocab_size", vocab_size)
    if num_steps < 2:
        raise ValueError(
            f"num_steps must be at least 2 to hold A and B, got {num_steps}"
        )
    if vocab_size < 3:
        raise ValueError(
            "vocab_size must be at least 3 (A, B and a filler), "
            f"got {vocab_size}"
        )
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(
        2, vocab_size, (num_examples, num_steps), generator=generator
    )
    noise = torch.rand(num_examples, num_steps, generator=generator)
    places = noise.argsort(dim=1)[:, :2]
    rows = torch.arange(num_examples)
    tokens[rows, places[:, 0]] = TOKEN_A
    tokens[rows, places[:, 1]] = TOKEN_B
    labels = (places[:, 0] < places[:, 1]).long()
    return tokens, labels


def mirror(
    tokens: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The sequences followed by their mirror images: A and B swapped, labels
    flipped.

    Each mirrored sequence holds the same tokens as its original, so a model
    that cannot see order answers both alike and gets exactly one of them
    right.
    """
    checks.tensor("tokens", tokens, 2)
    swapped = torch.where(
        tokens == TOKEN_A,
        TOKEN_B,
        torch.where(tokens == TOKEN_B, TOKEN_A, tokens),
    )
    return torch.cat([tokens, swapped]), torch.cat([labels, 1 - labels])


def within(tokens: torch.Tensor, num_positions: int) -> torch.Tensor:
    """True for each sequence whose A and B both lie in its first
    ``num_positions`` positions."""
    checks.tensor("tokens", tokens, 2)
    num_positions = checks.positive_int("num_positions", num_positions)
    marked = (tokens == TOKEN_A) | (tokens == TOKEN_B)
    return marked[:, num_positions:].sum(dim=1) == 0


def a_to_b(tokens: torch.Tensor) -> torch.Tensor:
    """The offset of B from A in each sequence: B's position minus A's
    (negative when B comes first)."""
    checks.tensor("tokens", tokens, 2)
    return (tokens == TOKEN_B).int().argmax(dim=1) - (
        tokens == TOKEN_A
    ).int().argmax(dim=1)


class OrderClassifier(nn.Module):
    """Embedding (+ positions) -> self-attention -> position-wise MLP -> mean
    -> 2 logits.

    ``positions`` is one of ``POSITIONS``: "none" (nothing tells positions
    apart), "sinusoidal" or "learned" (a table added to the embeddings),
    "rope" (queries and keys rotated by their positions), "causal" (no
    positional code, but query i sees keys 0..i only) or "rope_causal"
    (both the rotations and the mask).
    """

    def __init__(
        self,
        vocab_size: int,
        num_hiddens: int,
        num_heads: int,
        positions: str,
        max_len: int = 64,
    ) -> None:
        super().__init__()
        if positions not in POSITIONS:
            raise ValueError(
                f"positions must be one of {POSITIONS}, got {positions!r}"
            )
        self.causal = positions in ("causal", "rope_causal")
        self.embedding = nn.Embedding(
            checks.positive_int("vocab_size", vocab_size), num_hiddens
        )
        self.positions = {
            "sinusoidal": lambda: PositionalEncoding(
                num_hiddens, 0.0, max_len
            ),
            "learned": lambda: LearnedPositionalEmbedding(
                num_hiddens, 0.0, max_len
            ),
        }.get(positions, nn.Identity)()
        attention = (
            RotaryMultiHeadAttention
            if positions in ("rope", "rope_causal")
            else MultiHeadAttention
        )
        self.attention = attention(num_hiddens, num_heads, 0.0)
        self.mlp = nn.Sequential(
            nn.Linear(num_hiddens, 2 * num_hiddens),
            nn.ReLU(),
            nn.Linear(2 * num_hiddens, num_hiddens),
        )
        self.output = nn.Linear(num_hiddens, 2)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        X = self.positions(self.embedding(tokens))
        valid_lens = (
            causal_valid_lens(X.shape[0], X.shape[1], device=X.device)
            if self.causal
            else None
        )
        X = X + self.attention(X, X, X, valid_lens)
        X = X + self.mlp(X)
        return self.output(X.mean(dim=1))


SOLVED, CHANCE = 0.95, (0.35, 0.65)


def verdict(accuracies: list[float]) -> str:
    """One phrase for a variant's accuracies over seeds, true for every seed.

    The bands leave a wide margin, so that a last-bit difference between
    machines, which can move an accuracy by a few test sequences, cannot
    change the phrase.
    """
    if not accuracies:
        raise ValueError("accuracies must hold at least one value")
    if min(accuracies) >= SOLVED:
        return f"solved: every seed >= {SOLVED}"
    if all(CHANCE[0] <= a <= CHANCE[1] for a in accuracies):
        return (
            f"near 0.5: every seed within {CHANCE[0]}-{CHANCE[1]}, not solved"
        )
    return "neither: not every seed solves it, not every seed is near 0.5"


def side_of_chance(accuracies: list[float]) -> str:
    """Where a variant's accuracies lie against 0.5, true for every seed:
    solved, exactly 0.5, all below, all above, or none of these (some seeds
    at or below 0.5, others at or above it)."""
    if not accuracies:
        raise ValueError("accuracies must hold at least one value")
    if min(accuracies) >= SOLVED:
        return f"solved: every seed >= {SOLVED}"
    if all(a == 0.5 for a in accuracies):
        return "exactly 0.5 on every seed"
    if max(accuracies) < 0.5:
        return "below 0.5 on every seed: wrong more often than right"
    if min(accuracies) > 0.5:
        return "above 0.5 on every seed, not solved"
    return "not on one side of 0.5 on every seed"
