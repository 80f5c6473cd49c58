"""Where position enters self-attention, one module per method (page
"Relative Positions in Today's Models"; page "From an Offset to an Attention
Head" trains two of them).

Every variant is a multi-head self-attention layer with the same calls:
``Variant(num_hiddens, num_heads, causal=False)``, then ``layer(X)`` on X of
shape (batch, n, num_hiddens). They differ only in the hooks that
``PositionalSelfAttention.forward`` calls: ``add_positions`` (a table added
to the input), ``rotate`` (queries and keys turned by their positions),
``position_scores`` (a term added to the scores) and ``position_values`` (a
term added to the output).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from . import checks
from .positional_encoding import sinusoidal_encoding
from .relative import frequencies, rope

__all__ = [
    "ALiBi",
    "AbsoluteSinusoidal",
    "NeoXPartialRotary",
    "NoPositions",
    "PartialRotary",
    "PositionalSelfAttention",
    "RotaryEmbedding",
    "ShawRelative",
    "T5Bias",
    "TransformerXL",
    "VARIANTS",
    "depends_only_on_offset",
    "offsets",
    "position_parameters",
    "t5_bucket",
]


def offsets(
    num_steps: int, device: torch.device | None = None
) -> torch.Tensor:
    """The (n, n) matrix whose entry [i, j] is j - i: how far key j lies
    from query i."""
    positions = torch.arange(
        checks.positive_int("num_steps", num_steps), device=device
    )
    return positions[None, :] - positions[:, None]


class PositionalSelfAttention(nn.Module):
    """Multi-head self-attention whose subclasses say where position enters.

    This base class brings in no position at all. With ``causal=True``,
    query i sees keys 0..i only. After a call, ``attention_weights`` holds
    the (batch, num_heads, n, n) weights.
    """

    def __init__(
        self, num_hiddens: int, num_heads: int, causal: bool = False
    ) -> None:
        super().__init__()
        self.num_hiddens, self.num_heads = checks.heads(num_hiddens, num_heads)
        self.head_width = num_hiddens // num_heads
        self.causal = bool(causal)
        self.W_q, self.W_k, self.W_v, self.W_o = (
            nn.Linear(num_hiddens, num_hiddens) for _ in range(4)
        )
        self.attention_weights: torch.Tensor | None = None
        # Keys farther than this from their query are hidden (None: none).
        self.window: int | None = None
        # True: compute the same output with PyTorch's fused attention,
        # without keeping the weights (see fused_attention).
        self.fused = False

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        if self.fused:
            return self.W_o(self.merge(self.fused_attention(X)))
        scores, V = self.scores_and_values(X)
        scores = scores.masked_fill(self.hidden(X), float("-inf"))
        self.attention_weights = torch.softmax(scores, dim=-1)
        output = self.attention_weights @ V
        output = output + self.position_values(self.attention_weights)
        return self.W_o(self.merge(output))

    def hidden(self, X: torch.Tensor) -> torch.Tensor:
        """The (n, n) mask of the keys each query may not see."""
        distance = offsets(X.shape[1], X.device)
        hidden = (distance > 0) if self.causal else distance != distance
        if self.window is not None:
            hidden = hidden | (distance.abs() > self.window)
        return hidden

    def queries_keys_values(
        self, X: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-head queries and keys, rotated where the method rotates
        them, and values."""
        checks.floating("X", checks.tensor("X", X, 3))
        checks.last_dim("X", X, self.num_hiddens, "num_hiddens")
        X = self.add_positions(X)
        Q, K, V = (self.split(W(X)) for W in (self.W_q, self.W_k, self.W_v))
        return (*self.rotate(Q, K), V)

    def scores_and_values(
        self, X: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Scores before any mask (batch, num_heads, n, n) and per-head
        values."""
        Q, K, V = self.queries_keys_values(X)
        scores = Q @ K.transpose(-1, -2) / math.sqrt(self.head_width)
        return scores + self.position_scores(Q, K), V

    def can_fuse(self) -> bool:
        """The fused kernel computes softmax(scores) V: it cannot add to the
        values as ``position_values`` may."""
        return (
            type(self).position_values
            is PositionalSelfAttention.position_values
        )

    def fused_attention(self, X: torch.Tensor) -> torch.Tensor:
        """The heads' outputs as ``forward`` computes them, by PyTorch's
        fused kernel, which never stores the (n, n) weights: several times
        faster for long inputs. Not for methods that add to the values."""
        if not self.can_fuse():
            raise ValueError(f"{type(self).__name__} adds to the values")
        Q, K, V = self.queries_keys_values(X)
        bias = self.position_scores(Q, K)
        if isinstance(bias, float) and bias == 0.0 and self.window is None:
            return nn.functional.scaled_dot_product_attention(
                Q, K, V, is_causal=self.causal
            )
        mask = torch.zeros(X.shape[1], X.shape[1], device=X.device)
        mask = mask.masked_fill(self.hidden(X), float("-inf")) + bias
        return nn.functional.scaled_dot_product_attention(
            Q, K, V, attn_mask=mask.to(Q.dtype)
        )

    def split(self, X: torch.Tensor) -> torch.Tensor:
        """(batch, n, num_hiddens) -> (batch, num_heads, n, head_width)."""
        return X.unflatten(-1, (self.num_heads, self.head_width)).transpose(
            1, 2
        )

    def merge(self, X: torch.Tensor) -> torch.Tensor:
        """Undo ``split``: back to (batch, n, num_hiddens)."""
        return X.transpose(1, 2).flatten(-2)

    def add_positions(self, X: torch.Tensor) -> torch.Tensor:
        return X

    def rotate(
        self, Q: torch.Tensor, K: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return Q, K

    def position_scores(self, Q: torch.Tensor, K: torch.Tensor):
        return 0.0

    def position_values(self, weights: torch.Tensor):
        return 0.0


class NoPositions(PositionalSelfAttention):
    """No positional code at all (with ``causal=True``: NoPE)."""


class AbsoluteSinusoidal(PositionalSelfAttention):
    """The sinusoidal table of Vaswani et al. (2017) added to the input."""

    def add_positions(self, X: torch.Tensor) -> torch.Tensor:
        P = sinusoidal_encoding(X.shape[1], self.num_hiddens, X.dtype)
        return X + P.to(X.device)


class ShawRelative(PositionalSelfAttention):
    """Shaw et al. (2018): a learned vector per offset j - i, clipped to
    [-max_distance, max_distance], added to the keys and to the values;
    every head shares the vectors."""

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        causal: bool = False,
        max_distance: int = 8,
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        self.max_distance = checks.positive_int("max_distance", max_distance)
        self.key_offsets = nn.Embedding(2 * max_distance + 1, self.head_width)
        self.value_offsets = nn.Embedding(
            2 * max_distance + 1, self.head_width
        )

    def clipped(self, num_steps: int, device: torch.device) -> torch.Tensor:
        clip = self.max_distance
        return offsets(num_steps, device).clamp(-clip, clip) + clip

    def position_scores(self, Q: torch.Tensor, K: torch.Tensor):
        A = self.key_offsets(self.clipped(Q.shape[2], Q.device))
        return torch.einsum("bhid,ijd->bhij", Q, A) / math.sqrt(
            self.head_width
        )

    def position_values(self, weights: torch.Tensor):
        A = self.value_offsets(self.clipped(weights.shape[2], weights.device))
        return torch.einsum("bhij,ijd->bhid", weights, A)


class TransformerXL(PositionalSelfAttention):
    """Dai et al. (2019): a sinusoid of the distance i - j (= -delta),
    projected by W_r, meets the query; two learned vectors u, v replace the
    query in the terms that do not depend on it. Without Transformer-XL's
    segment-level recurrence (its memory of the previous segment)."""

    def __init__(
        self, num_hiddens: int, num_heads: int, causal: bool = False
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        self.W_r = nn.Linear(num_hiddens, num_hiddens, bias=False)
        self.u = nn.Parameter(torch.zeros(num_heads, self.head_width))
        self.v = nn.Parameter(torch.zeros(num_heads, self.head_width))

    def position_scores(self, Q: torch.Tensor, K: torch.Tensor):
        n = Q.shape[2]
        distance = -offsets(n, Q.device)  # i - j, as in the paper
        angles = distance.to(torch.float64)[..., None] * frequencies(
            self.num_hiddens
        ).to(Q.device)
        R = torch.stack([angles.sin(), angles.cos()], -1).flatten(-2)
        R = self.W_r(R.to(Q.dtype)).unflatten(
            -1, (self.num_heads, self.head_width)
        )
        u, v = self.u[:, None, :], self.v[:, None, :]
        scores = (u @ K.transpose(-1, -2)) + torch.einsum(
            "bhid,ijhd->bhij", Q + v, R
        )
        return scores / math.sqrt(self.head_width)


def t5_bucket(
    offset: torch.Tensor,
    num_buckets: int = 32,
    max_distance: int = 128,
    bidirectional: bool = True,
) -> torch.Tensor:
    """T5's bucket of each offset j - i.

    Bidirectional (T5's encoder): keys before and after the query use
    separate halves of the buckets. Otherwise (its decoder, whose queries see
    only earlier keys) every bucket serves keys behind the query, and keys
    ahead share bucket 0. Within its buckets each distance below half their
    number gets a bucket of its own; then the buckets widen logarithmically
    up to max_distance, and farther keys share the last one.
    """
    num_buckets = checks.even_int("num_buckets", num_buckets)
    max_distance = checks.positive_int("max_distance", max_distance)
    if bidirectional:
        side = (offset > 0).long() * (num_buckets // 2)
        num_buckets //= 2
        distance = offset.abs()
    else:
        side = torch.zeros_like(offset)
        distance = (-offset).clamp(min=0)
    exact = num_buckets // 2
    if max_distance <= exact:
        raise ValueError(
            f"max_distance must exceed the {exact} exact distances, "
            f"got {max_distance}"
        )
    widening = torch.log(distance.clamp(min=1).double() / exact) / math.log(
        max_distance / exact
    )
    far = (exact + (widening * (num_buckets - exact)).long()).clamp(
        max=num_buckets - 1
    )
    return side + torch.where(distance < exact, distance, far)


class T5Bias(PositionalSelfAttention):
    """Raffel et al. (2020): a learned scalar per head and offset bucket,
    added to the scores; a causal layer buckets as T5's decoder does.

    Unlike T5, the content scores are divided by sqrt(d_h), as in every
    variant here. Each layer has its own bias table; ``decoder.Decoder``
    shares one among its blocks, as T5 does (``decoder.share_t5_bias``).
    """

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        causal: bool = False,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        t5_bucket(torch.zeros(1), num_buckets, max_distance)  # check early
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.bias = nn.Embedding(num_buckets, num_heads)

    def position_scores(self, Q: torch.Tensor, K: torch.Tensor):
        buckets = t5_bucket(
            offsets(Q.shape[2], Q.device),
            self.num_buckets,
            self.max_distance,
            bidirectional=not self.causal,
        )
        return self.bias(buckets).permute(2, 0, 1)


class ALiBi(PositionalSelfAttention):
    """Press et al. (2022): no parameters; head r (of h = num_heads)
    subtracts m_r |j - i| from its scores, with slopes m_r = 2^(-8r / h),
    the paper's rule for h a power of two (used here for every h).

    The paper's penalty m_r (i - j) is for causal models, where j <= i; the
    absolute value is the same under a causal mask and extends it
    symmetrically to keys ahead of the query.
    """

    def slopes(self) -> torch.Tensor:
        h = torch.arange(1, self.num_heads + 1, dtype=torch.float64)
        return 2.0 ** (-8.0 * h / self.num_heads)

    def position_scores(self, Q: torch.Tensor, K: torch.Tensor):
        distance = offsets(Q.shape[2], Q.device).abs()
        slopes = self.slopes().to(Q.device, Q.dtype)
        return -slopes[:, None, None] * distance


class RotaryEmbedding(PositionalSelfAttention):
    """Su et al. (2021): each head's queries and keys rotated by their
    positions after the projections; the values are never rotated.

    ``omega`` holds the angle per position of each column pair of a head
    (the frequencies of ``base``), and ``layout`` says which columns pair
    up (see ``rope``); page "Train Short, Test Long: Position on Real Text"
    changes both.
    """

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        causal: bool = False,
        base: float = 10000.0,
        layout: str = "adjacent",
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        checks.even_int("num_hiddens / num_heads", self.head_width)
        self.layout = checks.rope_layout(layout)
        self.register_buffer(
            "omega", frequencies(self.head_width, base=base), persistent=False
        )

    def rotate(
        self, Q: torch.Tensor, K: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return (
            rope(Q, omega=self.omega, layout=self.layout),
            rope(K, omega=self.omega, layout=self.layout),
        )


class PartialRotary(RotaryEmbedding):
    """p-RoPE (Barbero et al., 2025): only the fastest ``keep`` share of
    each head's column pairs rotate; the slower pairs get the angle 0 and
    carry content alone."""

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        causal: bool = False,
        keep: float = 0.75,
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        if not (isinstance(keep, float) and 0 < keep <= 1):
            raise ValueError(f"keep must be a float in (0, 1], got {keep!r}")
        self.omega[int(keep * len(self.omega)) :] = 0.0


class NeoXPartialRotary(RotaryEmbedding):
    """Partial RoPE as GPT-NeoX has it (its ``rotary_pct``): only the first
    ``share`` of each head's column pairs rotate, at the frequencies of a
    head that narrow (w columns: from 1 down to base ** (-(w - 2) / w));
    the other pairs carry content alone."""

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        causal: bool = False,
        share: float = 0.25,
    ) -> None:
        super().__init__(num_hiddens, num_heads, causal)
        if not (isinstance(share, float) and 0 < share <= 1):
            raise ValueError(f"share must be a float in (0, 1], got {share!r}")
        rotated = max(1, int(share * len(self.omega)))
        self.omega.zero_()
        self.omega[:rotated] = frequencies(2 * rotated)


VARIANTS = {
    "absolute sinusoidal": AbsoluteSinusoidal,
    "Shaw et al.": ShawRelative,
    "Transformer-XL": TransformerXL,
    "T5 bias": T5Bias,
    "ALiBi": ALiBi,
    "RoPE": RotaryEmbedding,
    "NoPE (causal)": NoPositions,
}


def position_parameters(layer: PositionalSelfAttention) -> int:
    """How many of the layer's parameters serve position: all but those of
    the four projections W_q, W_k, W_v, W_o."""
    projections = (layer.W_q, layer.W_k, layer.W_v, layer.W_o)
    shared = sum(p.numel() for W in projections for p in W.parameters())
    return sum(p.numel() for p in layer.parameters()) - shared


def depends_only_on_offset(
    layer: PositionalSelfAttention,
    tokens: torch.Tensor,
    shift: int = 5,
    tolerance: float = 1e-9,
) -> float | None:
    """Score varied tokens at positions 0..n-1, then the same tokens
    ``shift`` positions later (after ``shift`` other vectors). A layer whose
    scores depend on position only through j - i scores every pair alike
    both times, in every head: return None then, and otherwise the largest
    change of a score."""
    checks.tensor("tokens", tokens, 2)
    shift = checks.positive_int("shift", shift)
    n = tokens.shape[0]
    shifted = torch.cat([tokens.flip(0)[:shift], tokens])[None]
    with torch.no_grad():
        first = layer.scores_and_values(tokens[None])[0][0]
        later = layer.scores_and_values(shifted)[0][0, :, shift:, shift:]
    if later.shape[-1] != n:
        raise ValueError(f"shift must be at most {n}, got {shift}")
    change = (later - first).abs().max().item()
    return None if change <= tolerance else change
