"""Cost of one layer of a CNN, an RNN and self-attention (page "Comparing
CNNs, RNNs and Self-Attention", which shows ``multiply_adds``).

Real layers that map (batch, n, d) to (batch, n, d): a CNN, a tanh RNN,
the attention step alone ("self-attention": scores and weighted sum, no
projections) and a full self-attention layer with its four d x d projections
("attention-layer"), plus the gated recurrent layers GRU and LSTM; formulas
for their multiply-adds, checked against PyTorch's own FLOP counter; probes
that measure with autograd how many sequential steps separate position 0
from position n - 1; and a timer (one CPU thread's CPU time, or a GPU's
wall time).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from . import checks
from .attention import DotProductAttention, MultiHeadAttention

__all__ = [
    "ARCHITECTURES",
    "GATED_RNNS",
    "ConvLayer",
    "LSTMLayer",
    "ProjectedSelfAttention",
    "RNNLayer",
    "SelfAttentionLayer",
    "count_multiply_adds",
    "joining_depth",
    "make_layer",
    "multiply_adds",
    "path_length",
    "time_layer",
]

# The layers the page draws and times; the gated RNNs are counted only.
ARCHITECTURES = ("cnn", "rnn", "self-attention", "attention-layer")
GATED_RNNS = ("gru", "lstm")
_RECURRENT = ("rnn", *GATED_RNNS)


class ConvLayer(nn.Module):
    """A 1-D convolution over positions, kernel size k, 'same' padding, width
    d in and out."""

    def __init__(self, d: int, k: int) -> None:
        super().__init__()
        self.k = checks.positive_int("k", k)
        if k % 2 == 0:
            raise ValueError(
                "k must be odd so that the output keeps the input length, "
                f"got {k}"
            )
        self.conv = nn.Conv1d(
            checks.positive_int("d", d), d, k, padding=k // 2, bias=False
        )

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.conv(X.transpose(1, 2))).transpose(1, 2)


class RNNLayer(nn.Module):
    """A tanh RNN (``cell="rnn"``) or a GRU (``cell="gru"``) of width d that
    returns its hidden state at every position."""

    def __init__(self, d: int, cell: str = "rnn") -> None:
        super().__init__()
        if cell not in ("rnn", "gru"):
            raise ValueError(f"cell must be 'rnn' or 'gru', got {cell!r}")
        self.rnn = {"rnn": nn.RNN, "gru": nn.GRU}[cell](
            checks.positive_int("d", d), d, batch_first=True, bias=False
        )

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.rnn(X)[0]


class LSTMLayer(nn.Module):
    """An LSTM of width d that returns its hidden state at every position.

    Run step by step with ``nn.LSTMCell``: PyTorch's FLOP counter cannot see
    inside the fused kernel of ``nn.LSTM``, but it sees the cell's products.
    """

    def __init__(self, d: int) -> None:
        super().__init__()
        self.cell = nn.LSTMCell(checks.positive_int("d", d), d, bias=False)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        state = None
        outputs = []
        for t in range(X.shape[1]):
            state = self.cell(X[:, t], state)
            outputs.append(state[0])
        return torch.stack(outputs, dim=1)


class SelfAttentionLayer(nn.Module):
    """Scaled dot-product self-attention with X as queries, keys and values
    (no projections)."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.d = checks.positive_int("d", d)
        self.attention = DotProductAttention(0.0)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.attention(X, X, X)


class ProjectedSelfAttention(nn.Module):
    """A full self-attention layer: X projected to Q, K, V, attention, output
    projection.

    One head; more heads split the same d x d projections and the same n^2 d
    products, so they cost the same multiply-adds, but each head stores its
    own n x n attention weights.
    """

    def __init__(self, d: int) -> None:
        super().__init__()
        self.attention = MultiHeadAttention(
            checks.positive_int("d", d), 1, 0.0
        )

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.attention(X, X, X, None)


def _check_architecture(architecture: str) -> None:
    if architecture not in ARCHITECTURES + GATED_RNNS:
        raise ValueError(
            f"architecture must be one of {ARCHITECTURES + GATED_RNNS}, "
            f"got {architecture!r}"
        )


def make_layer(architecture: str, d: int, k: int = 3) -> nn.Module:
    """One layer of ``architecture`` (one of ``ARCHITECTURES`` or
    ``GATED_RNNS``) of width d."""
    _check_architecture(architecture)
    if architecture == "cnn":
        return ConvLayer(d, k)
    if architecture in ("rnn", "gru"):
        return RNNLayer(d, architecture)
    return {
        "lstm": LSTMLayer,
        "self-attention": SelfAttentionLayer,
        "attention-layer": ProjectedSelfAttention,
    }[architecture](d)


def multiply_adds(architecture: str, n: int, d: int, k: int = 3) -> int:
    """Multiply-adds of one layer on n tokens of width d (kernel size k for
    the CNN): its matrix products and convolutions, not its softmax or
    activations."""
    _check_architecture(architecture)
    n, d, k = (
        checks.positive_int(name, v)
        for name, v in (("n", n), ("d", d), ("k", k))
    )
    return {
        "cnn": k * n * d * d,
        "rnn": 2 * n * d * d,
        "gru": 6 * n * d * d,
        "lstm": 8 * n * d * d,
        "self-attention": 2 * n * n * d,
        "attention-layer": 4 * n * d * d + 2 * n * n * d,
    }[architecture]


def count_multiply_adds(layer: nn.Module, X: torch.Tensor) -> int:
    """Multiply-adds that PyTorch's FLOP counter sees in ``layer(X)`` (it
    counts 2 FLOPs each)."""
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        layer(X)
    return counter.get_total_flops() // 2


def _dependence(
    stack: Callable[[torch.Tensor], torch.Tensor],
    X: torch.Tensor,
    last_only: bool,
) -> torch.Tensor:
    """(outputs, inputs) boolean: True where output position i depends on
    input position j (both from 0).

    Only the last output's row when ``last_only``.
    """
    X = X.clone().requires_grad_(True)
    Y = stack(X)
    rows = []
    for i in [Y.shape[1] - 1] if last_only else range(Y.shape[1]):
        (gradient,) = torch.autograd.grad(Y[:, i].sum(), X, retain_graph=True)
        rows.append(gradient[0].abs().sum(dim=-1) > 0)
    return torch.stack(rows)


def _fewest_steps(
    architecture: str,
    n: int,
    d: int,
    k: int,
    seed: int,
    reached: Callable[[torch.Tensor], bool],
    last_only: bool,
) -> int:
    """Fewest layers (time steps for the RNN) whose dependence pattern is
    ``reached``."""
    _check_architecture(architecture)
    n = checks.positive_int("n", n)
    generator = torch.Generator().manual_seed(seed)
    X = torch.randn(1, n, d, generator=generator)
    torch.manual_seed(seed)
    if architecture in _RECURRENT:
        layer = make_layer(architecture, d)
        for steps in range(1, n + 1):
            # The layer run for ``steps`` steps over the last positions.
            dependence = _dependence(
                lambda Z: layer(Z[:, n - steps :]), X, last_only
            )
            if reached(dependence):
                return steps
    else:
        layers: list[nn.Module] = []
        for depth in range(1, n + 1):
            layers.append(make_layer(architecture, d, k))
            if reached(_dependence(nn.Sequential(*layers), X, last_only)):
                return depth
    raise AssertionError("the first and last positions never met")


def path_length(
    architecture: str, n: int, d: int = 4, k: int = 3, seed: int = 0
) -> int:
    """Measured number of sequential steps from input position 0 to output
    position n - 1.

    For the CNN and self-attention, the fewest stacked layers whose output at
    position n - 1 has a non-zero gradient with respect to the input at
    position 0. For the recurrent layers, whose single layer already connects
    them, the fewest time steps it must run (on the last positions of the
    sequence) for the same.
    """
    return _fewest_steps(
        architecture, n, d, k, seed, lambda D: bool(D[-1, 0]), True
    )


def joining_depth(
    architecture: str, n: int, d: int = 4, k: int = 3, seed: int = 0
) -> int:
    """Measured fewest layers (RNN: time steps) after which some output
    depends on both input position 0 and input position n - 1: where the
    two first meet.
    """
    return _fewest_steps(
        architecture,
        n,
        d,
        k,
        seed,
        lambda D: bool((D[:, 0] & D[:, -1]).any()),
        False,
    )


def time_layer(layer: nn.Module, X: torch.Tensor, repeats: int = 5) -> float:
    """Fastest of ``repeats`` timings of ``layer(X)``, in seconds, after one
    warm-up run.

    On a CPU, PyTorch computes on one thread and the timing is that thread's
    CPU time (``time.thread_time``), which leaves out the time the thread
    waits while other programs run. On a GPU, it is the wall time between
    two synchronisations (a thread's CPU time does not see the GPU's work).
    """
    repeats = checks.positive_int("repeats", repeats)
    clock = time.perf_counter if X.is_cuda else time.thread_time

    def synchronize() -> None:
        if X.is_cuda:
            torch.cuda.synchronize(X.device)

    threads = torch.get_num_threads()
    times = []
    try:
        if not X.is_cuda:
            torch.set_num_threads(1)
        with torch.no_grad():
            layer(X)
            for _ in range(repeats):
                synchronize()
                start = clock()
                layer(X)
                synchronize()
                times.append(clock() - start)
    finally:
        torch.set_num_threads(threads)
    return min(times)
