"""A small causal decoder over characters, with position brought in one of
several ways (page "Train Short, Test Long: Position on Real Text", which
shows ``Block`` and ``Decoder``).

Each block is pre-norm: the attention and the two-layer MLP each read a
layer-normalised copy of the stream and add their output back to it. The
attention is the book's own ``relative_family`` layer, causal. An absolute
table (learned or sinusoidal) is added once, to the token embeddings; every
other method acts inside the attention of its blocks, through the hooks of
``relative_family.PositionalSelfAttention``.
"""

from __future__ import annotations

import torch
from torch import nn

from . import checks, relative_family
from .positional_encoding import LearnedPositionalEmbedding, PositionalEncoding
from .text import VOCABULARY

__all__ = ["METHODS", "Block", "Decoder", "layer_kinds", "share_t5_bias"]

# Each method: the table added to the embeddings (None: none) and the
# attention layer of its blocks. iRoPE's blocks differ: see layer_kinds.
METHODS = {
    "learned": (LearnedPositionalEmbedding, relative_family.NoPositions),
    "sinusoidal": (PositionalEncoding, relative_family.NoPositions),
    "RoPE": (None, relative_family.RotaryEmbedding),
    "p-RoPE": (None, relative_family.PartialRotary),
    "partial RoPE": (None, relative_family.NeoXPartialRotary),
    "iRoPE": (None, relative_family.RotaryEmbedding),
    "ALiBi": (None, relative_family.ALiBi),
    "T5 bias": (None, relative_family.T5Bias),
    "NoPE": (None, relative_family.NoPositions),
    "Shaw et al.": (None, relative_family.ShawRelative),
    "Transformer-XL": (None, relative_family.TransformerXL),
}


def layer_kinds(method: str, num_layers: int, nope_every: int = 4) -> list:
    """The attention class of each block. iRoPE (Llama 4) leaves every
    ``nope_every``-th block without positions and gives the others RoPE;
    every other method uses one class in every block."""
    _, layer = checks.choice("method", method, METHODS)
    if method != "iRoPE":
        return [layer] * num_layers
    every = checks.positive_int("nope_every", nope_every)
    return [
        relative_family.NoPositions if (k + 1) % every == 0 else layer
        for k in range(num_layers)
    ]


class Block(nn.Module):
    """Pre-norm decoder block: X + attention(norm(X)), then
    X + MLP(norm(X)), each branch dropped out at rate ``dropout`` in
    training."""

    def __init__(
        self,
        attention: relative_family.PositionalSelfAttention,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        width = attention.num_hiddens
        self.attention = attention
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width)
        )
        self.dropout = nn.Dropout(checks.probability("dropout", dropout))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        X = X + self.dropout(self.attention(self.norm1(X)))
        return X + self.dropout(self.mlp(self.norm2(X)))


def share_t5_bias(blocks: nn.ModuleList) -> None:
    """T5 learns one bias table and uses it in every layer: point every
    block's attention at the first block's table."""
    first = blocks[0].attention.bias
    for block in blocks[1:]:
        block.attention.bias = first


class Decoder(nn.Module):
    """Token embeddings, ``num_layers`` pre-norm blocks of causal attention,
    a final norm and one logit per vocabulary entry at every position.

    ``method`` is a key of ``METHODS``; ``max_len`` is the number of rows of
    a learned table (the training length); ``nope_every`` places iRoPE's
    blocks without positions; ``options`` go to the attention layers (for
    example ``max_distance`` of T5's buckets). Attention runs fused (see
    ``fuse_attention``). Token embeddings and a
    learned table both start from N(0, 1), so that neither drowns the
    other; nothing scales them by sqrt(d).
    """

    def __init__(
        self,
        method: str,
        num_hiddens: int = 64,
        num_heads: int = 4,
        num_layers: int = 3,
        max_len: int = 1000,
        vocab_size: int = len(VOCABULARY),
        dropout: float = 0.0,
        nope_every: int = 4,
        **options,
    ) -> None:
        super().__init__()
        table, _ = checks.choice("method", method, METHODS)
        checks.heads(num_hiddens, num_heads)
        num_layers = checks.positive_int("num_layers", num_layers)
        self.method = method
        self.embedding = nn.Embedding(
            checks.positive_int("vocab_size", vocab_size), num_hiddens
        )
        self.positions = (
            None
            if table is None
            else table(
                num_hiddens, 0.0, checks.positive_int("max_len", max_len)
            )
        )
        if isinstance(self.positions, LearnedPositionalEmbedding):
            with torch.no_grad():
                self.positions.P.normal_()
        self.blocks = nn.ModuleList(
            Block(
                layer(num_hiddens, num_heads, causal=True, **options), dropout
            )
            for layer in layer_kinds(method, num_layers, nope_every)
        )
        if METHODS[method][1] is relative_family.T5Bias:
            share_t5_bias(self.blocks)
        self.norm = nn.LayerNorm(num_hiddens)
        self.output = nn.Linear(num_hiddens, vocab_size)
        self.fuse_attention(True)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        X = self.embedding(checks.tokens("tokens", tokens))
        if self.positions is not None:
            X = self.positions(X)
        for block in self.blocks:
            X = block(X)
        return self.output(self.norm(X))

    def fuse_attention(self, fused: bool = True) -> Decoder:
        """Compute attention by PyTorch's fused kernel (faster, keeps no
        weights) or, with ``fused=False``, as the layer's ``forward`` does,
        keeping the weights for ``attention_weights``. Layers that add to
        the values (Shaw et al.) never fuse."""
        for block in self.blocks:
            block.attention.fused = fused and block.attention.can_fuse()
        return self

    def attention_weights(self) -> list[torch.Tensor]:
        """The (batch, num_heads, n, n) weights of every block's last call
        (made with ``fuse_attention(False)``)."""
        return [block.attention.attention_weights for block in self.blocks]
