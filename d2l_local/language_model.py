"""Training windows, bits per character and samples of a character-level
language model (page "Train Short, Test Long: Position on Real Text", which
shows ``bits_per_character``).

Evaluation at a window length W scores the same characters whatever W is:
``num_scored`` characters that follow the first ``context`` ones of the
held-out text, so that even the longest window has a full left context.
Two ways to cut them into windows:

- non-overlapping: windows of W characters one after another; each scores
  all of its positions, the first ones with little context;
- sliding: a window of W characters ends every ``stride`` characters and
  scores only its last ``stride``, each of which has at least W - stride
  characters before it in the window.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from . import checks
from .relative import rope
from .relative_family import RotaryEmbedding

__all__ = [
    "bits_per_character",
    "cached_logits",
    "character_bits",
    "generate",
    "position_bits",
    "training_windows",
]


def training_windows(
    tokens: torch.Tensor, num_steps: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every window of ``num_steps`` tokens as input and the same window
    one token later as target: two (len - num_steps, num_steps) views of
    ``tokens``, no copies."""
    tokens = checks.tensor("tokens", tokens, 1)
    num_steps = checks.positive_int("num_steps", num_steps)
    if len(tokens) <= num_steps:
        raise ValueError(
            f"tokens must be longer than num_steps={num_steps}, "
            f"got {len(tokens)}"
        )
    windows = tokens.unfold(0, num_steps + 1, 1)
    return windows[:, :-1], windows[:, 1:]


def _scored_windows(
    tokens: torch.Tensor, window: int, stride: int, context: int, num_scored
):
    """Inputs and targets of every window, and how many trailing positions
    of each are scored."""
    tokens = checks.tensor("tokens", tokens, 1)
    window = checks.positive_int("window", window)
    stride = checks.positive_int("stride", stride)
    num_scored = checks.positive_int("num_scored", num_scored)
    if stride > window or window > context + stride:
        raise ValueError(
            f"stride must lie in [1, window={window}] and window in "
            f"[1, context + stride = {context + stride}]; got stride={stride}"
        )
    if num_scored % stride:
        raise ValueError(
            f"num_scored must be a multiple of stride={stride}, "
            f"got {num_scored}"
        )
    if len(tokens) < context + num_scored + 1:
        raise ValueError(
            f"tokens must hold context + num_scored + 1 = "
            f"{context + num_scored + 1} tokens, got {len(tokens)}"
        )
    ends = context + stride + torch.arange(0, num_scored, stride)
    index = ends[:, None] - window + torch.arange(window)
    return tokens[index], tokens[index + 1]


def position_bits(
    model: nn.Module,
    tokens: torch.Tensor,
    window: int,
    stride: int | None = None,
    context: int = 0,
    num_scored: int = 4096,
    batch_size: int = 8,
) -> torch.Tensor:
    """Mean loss in bits at each of the scored positions of a window
    (non-overlapping when ``stride`` is None or equal to ``window``)."""
    stride = window if stride is None else stride
    inputs, targets = _scored_windows(
        tokens, window, stride, context, num_scored
    )
    model.eval()
    device = next(model.parameters()).device
    total = torch.zeros(stride, dtype=torch.float64)
    with torch.no_grad():
        for start in range(0, len(inputs), batch_size):
            X = inputs[start : start + batch_size].to(device)
            Y = targets[start : start + batch_size].to(device)
            logits = model(X)[:, -stride:]
            loss = nn.functional.cross_entropy(
                logits.transpose(1, 2), Y[:, -stride:], reduction="none"
            )
            total += loss.double().sum(0).cpu()
    return total / len(inputs) / math.log(2)


def character_bits(
    model: nn.Module,
    tokens: torch.Tensor,
    window: int,
    stride: int | None = None,
    context: int = 0,
    num_scored: int = 4096,
    batch_size: int = 64,
) -> torch.Tensor:
    """The loss in bits of each scored character, in the text's order: the
    values that ``position_bits`` averages position by position."""
    # position_bits is hashed into every training log (pretraining), so it
    # keeps its own loop rather than averaging this one's result.
    stride = window if stride is None else stride
    inputs, targets = _scored_windows(
        tokens, window, stride, context, num_scored
    )
    model.eval()
    device = next(model.parameters()).device
    losses = []
    with torch.no_grad():
        for start in range(0, len(inputs), batch_size):
            X = inputs[start : start + batch_size].to(device)
            Y = targets[start : start + batch_size].to(device)
            logits = model(X)[:, -stride:]
            loss = nn.functional.cross_entropy(
                logits.transpose(1, 2), Y[:, -stride:], reduction="none"
            )
            losses.append(loss.double().cpu().flatten())
    return torch.cat(losses) / math.log(2)


def bits_per_character(
    model: nn.Module,
    tokens: torch.Tensor,
    window: int,
    stride: int | None = None,
    context: int = 0,
    num_scored: int = 4096,
) -> float:
    """Mean loss in bits over the scored characters: the cross-entropy of
    the model's next-character distribution, divided by ln 2."""
    return (
        position_bits(model, tokens, window, stride, context, num_scored)
        .mean()
        .item()
    )


def generate(
    model: nn.Module,
    prompt: torch.Tensor,
    num_tokens: int,
    generator: torch.Generator,
    temperature: float = 0.8,
) -> torch.Tensor:
    """Sample ``num_tokens`` tokens after ``prompt``, each conditioned on
    everything before it (the whole sequence is fed again at every step)."""
    prompt = checks.tensor("prompt", prompt, 1)
    num_tokens = checks.positive_int("num_tokens", num_tokens)
    if not (isinstance(temperature, float) and temperature > 0):
        raise ValueError(f"temperature must be a float > 0, got {temperature}")
    model.eval()
    device = next(model.parameters()).device
    sequence = prompt.to(device)
    with torch.no_grad():
        for _ in range(num_tokens):
            logits = model(sequence[None])[0, -1] / temperature
            probabilities = torch.softmax(logits.double(), -1).cpu()
            token = torch.multinomial(probabilities, 1, generator=generator)
            sequence = torch.cat([sequence, token.to(device)])
    return sequence[len(prompt) :].cpu()


def cached_logits(
    model: nn.Module,
    tokens: torch.Tensor,
    positions: torch.Tensor | None = None,
) -> torch.Tensor:
    """Logits of a RoPE decoder fed one token at a time, as it generates.

    Each step computes the query, key and value of the newest token only
    and keeps its key and value for later steps (a KV cache). The token of
    step t is rotated at ``positions[t]`` (by default t): a decoding loop
    that passes wrong positions computes something else, without error.
    ``tokens`` is (T,) or (batch, T); the logits have the same leading
    shape and one row of ``vocab`` values per step.
    """
    tokens = checks.tensor("tokens", tokens, (1, 2))
    single = tokens.dim() == 1
    tokens = tokens[None] if single else tokens
    steps = tokens.shape[1]
    positions = torch.arange(steps) if positions is None else positions
    positions = checks.tensor("positions", positions, 1)
    if len(positions) != steps:
        raise ValueError(
            f"positions must hold one position per step ({steps}), "
            f"got {len(positions)}"
        )
    layers = [block.attention for block in model.blocks]
    if not all(isinstance(layer, RotaryEmbedding) for layer in layers):
        raise ValueError("model must be a decoder with RoPE in every block")
    device = next(model.parameters()).device
    caches = [([], []) for _ in layers]
    logits = []
    model.eval()
    with torch.no_grad():
        for step in range(steps):
            where = positions[step : step + 1]
            X = model.embedding(tokens[:, step : step + 1].to(device))
            for block, layer, (keys, values) in zip(
                model.blocks, layers, caches
            ):
                Y = block.norm1(X)
                q, k, v = (
                    layer.split(W(Y))
                    for W in (layer.W_q, layer.W_k, layer.W_v)
                )
                q = rope(q, where, layer.omega, layer.layout)
                keys.append(rope(k, where, layer.omega, layer.layout))
                values.append(v)
                K, V = torch.cat(keys, dim=2), torch.cat(values, dim=2)
                scores = q @ K.transpose(-1, -2) / math.sqrt(layer.head_width)
                heads = torch.softmax(scores, dim=-1) @ V
                X = X + layer.W_o(layer.merge(heads))
                X = X + block.mlp(block.norm2(X))
            logits.append(model.output(model.norm(X))[:, 0].cpu())
    logits = torch.stack(logits, dim=1)
    return logits[0] if single else logits
