"""Scaled dot-product and multi-head attention (page "Self-Attention",
which shows ``masked_softmax``, ``DotProductAttention`` and
``MultiHeadAttention``).

Names, call signatures and results match ``d2l.torch``. Where d2l is loose,
this module is strict: shapes, widths, head counts and ``valid_lens`` are
checked up front (by ``checks``), and the per-head attention weights are kept
for plotting.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from . import checks

__all__ = [
    "DotProductAttention",
    "MultiHeadAttention",
    "causal_valid_lens",
    "masked_softmax",
]


def masked_softmax(
    X: torch.Tensor, valid_lens: torch.Tensor | None
) -> torch.Tensor:
    """Softmax over the last axis of ``X`` that ignores keys past
    ``valid_lens``.

    ``X`` has shape (batch_size, num_queries, num_keys). ``valid_lens`` is None
    (nothing masked), shape (batch_size,) (one length per sequence) or shape
    (batch_size, num_queries) (one length per query, e.g. a causal mask).
    Masked keys get weight exactly 0. Unlike d2l, ``X`` is not modified.
    """
    checks.floating("X", checks.tensor("X", X, 3))
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    batch_size, num_queries, num_keys = X.shape
    checks.valid_lens(valid_lens, batch_size, num_queries, num_keys)
    if valid_lens.dim() == 1:
        valid_lens = valid_lens[:, None].expand(batch_size, num_queries)
    key_positions = torch.arange(num_keys, device=X.device)
    masked = (
        key_positions[None, None, :] >= valid_lens.to(X.device)[:, :, None]
    )
    # The most negative finite value: exp() of it is 0, and a row with no
    # valid key at all still gives finite (uniform) weights, as in d2l.
    scores = X.masked_fill(masked, torch.finfo(X.dtype).min)
    return nn.functional.softmax(scores, dim=-1)


def causal_valid_lens(
    batch_size: int, num_queries: int, device: torch.device | None = None
) -> torch.Tensor:
    """Per-query lengths (batch_size, num_queries) that hide every later key.

    Query i may look at keys 0..i, so ``masked_softmax`` with these lengths
    gives the decoder's causal mask (zeros above the diagonal).
    """
    batch_size = checks.positive_int("batch_size", batch_size)
    num_queries = checks.positive_int("num_queries", num_queries)
    lens = torch.arange(1, num_queries + 1, device=device)
    return lens.repeat(batch_size, 1)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention over batches, with optional masking.

    After a forward pass, ``attention_weights`` holds the (batch_size,
    num_queries, num_keys) weights before dropout.
    """

    def __init__(self, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(checks.probability("dropout", dropout))
        self.attention_weights: torch.Tensor | None = None

    def forward(
        self,
        queries: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        valid_lens: torch.Tensor | None = None,
    ) -> torch.Tensor:
        checks.attention_inputs(queries, keys, values)
        d_h = queries.shape[-1]  # the width of one head
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d_h)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class MultiHeadAttention(nn.Module):
    """Multi-head attention with d2l's signature
    ``(num_hiddens, num_heads, dropout, bias)``.

    Queries, keys and values must all have width ``num_hiddens`` (d2l's lazy
    layers accept any width; fixed layers let the parameters be counted before
    the first call). ``attention_weights`` gives per-head weights of shape
    (batch_size, num_heads, num_queries, num_keys).
    """

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        dropout: float,
        bias: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.num_hiddens, self.num_heads = checks.heads(num_hiddens, num_heads)
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.W_k = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.W_v = nn.Linear(num_hiddens, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(
        self,
        queries: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        valid_lens: torch.Tensor | None,
    ) -> torch.Tensor:
        checks.multi_head_inputs(
            queries, keys, values, valid_lens, self.num_hiddens
        )
        if valid_lens is not None:
            # Every head of a sequence shares that sequence's lengths.
            valid_lens = torch.repeat_interleave(
                valid_lens, repeats=self.num_heads, dim=0
            )
        queries, keys = self.rotate(
            self.transpose_qkv(self.W_q(queries)),
            self.transpose_qkv(self.W_k(keys)),
        )
        values = self.transpose_qkv(self.W_v(values))
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(self.transpose_output(output))

    def rotate(
        self, queries: torch.Tensor, keys: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-head queries and keys before the scores; unchanged here
        (RoPE rotates them)."""
        return queries, keys

    def transpose_qkv(self, X: torch.Tensor) -> torch.Tensor:
        """(batch, n, num_hiddens)
        -> (batch * num_heads, n, num_hiddens / num_heads)."""
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        X = X.permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X: torch.Tensor) -> torch.Tensor:
        """Undo ``transpose_qkv``: back to (batch, n, num_hiddens)."""
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2])
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    @property
    def attention_weights(self) -> torch.Tensor:
        """Weights of the last call, shape
        (batch_size, num_heads, num_queries, num_keys)."""
        weights = self.attention.attention_weights
        if weights is None:
            raise RuntimeError(
                "attention_weights is set by the first forward call; "
                "call the module first"
            )
        return weights.reshape(-1, self.num_heads, *weights.shape[1:])
