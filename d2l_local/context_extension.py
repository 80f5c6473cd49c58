"""Stretching a trained RoPE model to longer inputs without retraining
(page "Stretching and Debugging RoPE", which shows ``ntk_frequencies``,
``yarn_frequencies``, ``llama3_frequencies`` and ``extend_context``).

A RoPE layer turns column pair l of a query or key at position i by the
angle i * omega_l. Each method below changes only the angles per position,
``omega``, of every layer (and YaRN also sharpens the scores); the weights
stay as trained. ``factor`` is how many times longer than the training
length the inputs are.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

from . import checks
from .relative_family import RotaryEmbedding

__all__ = [
    "EXTENSIONS",
    "extend_context",
    "llama3_frequencies",
    "ntk_frequencies",
    "yarn_attention_factor",
    "yarn_frequencies",
]


def _factor(factor: object) -> float:
    factor = checks.real("factor", factor)
    if not factor >= 1:
        raise ValueError(f"factor must be a number >= 1, got {factor}")
    return float(factor)


def ntk_frequencies(omega: torch.Tensor, factor: float) -> torch.Tensor:
    """NTK-aware scaling: the angles of a larger base, b * factor^(d_h /
    (d_h - 2)). Pair l of the d_h / 2 is slowed by factor^(2l / (d_h - 2)):
    the fastest pair not at all, the slowest by exactly ``factor``."""
    omega = checks.floating("omega", checks.tensor("omega", omega, 1))
    if len(omega) < 2:
        raise ValueError(
            f"omega must hold at least 2 pairs' angles, got {len(omega)}"
        )
    pairs = torch.arange(len(omega), dtype=omega.dtype, device=omega.device)
    return omega * _factor(factor) ** (-pairs / (len(omega) - 1))


def yarn_frequencies(
    omega: torch.Tensor,
    factor: float,
    train_len: int,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> torch.Tensor:
    """YaRN's per-pair interpolation (Peng et al., 2023): a pair that turns
    fewer than ``alpha`` times within the training length is slowed by
    ``factor`` (as position interpolation does), one that turns more than
    ``beta`` times is left alone, and the pairs between are blended
    linearly in the number of turns."""
    factor = _factor(factor)
    train_len = checks.positive_int("train_len", train_len)
    if not 0 <= alpha < beta:
        raise ValueError(
            f"alpha and beta must satisfy 0 <= alpha < beta, "
            f"got {alpha} and {beta}"
        )
    turns = train_len * omega / (2 * math.pi)
    keep = ((turns - alpha) / (beta - alpha)).clamp(0, 1)
    return keep * omega + (1 - keep) * omega / factor


def yarn_attention_factor(factor: float) -> float:
    """YaRN multiplies queries and keys by 0.1 ln(factor) + 1, so that the
    scores sharpen by its square at the longer length."""
    return 0.1 * math.log(_factor(factor)) + 1


def llama3_frequencies(
    omega: torch.Tensor,
    factor: float,
    train_len: int,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> torch.Tensor:
    """Llama 3.1's scaling by frequency: a pair whose wavelength 2 pi /
    omega is shorter than train_len / high_freq_factor keeps its angles,
    one longer than train_len / low_freq_factor is slowed by ``factor``,
    and the pairs between are blended linearly in train_len / wavelength
    (Meta's defaults: factor 8, low_freq_factor 1, high_freq_factor 4)."""
    factor = _factor(factor)
    train_len = checks.positive_int("train_len", train_len)
    if not 0 < low_freq_factor < high_freq_factor:
        raise ValueError(
            "low_freq_factor and high_freq_factor must satisfy "
            f"0 < low < high, got {low_freq_factor} and {high_freq_factor}"
        )
    ratio = train_len * omega / (2 * math.pi)  # train_len / wavelength
    keep = (ratio - low_freq_factor) / (high_freq_factor - low_freq_factor)
    keep = keep.clamp(0, 1)
    return keep * omega + (1 - keep) * omega / factor


def _raw(layer, factor, train_len):
    return layer.omega, 1.0


def _interpolation(layer, factor, train_len):
    return layer.omega / factor, 1.0


def _ntk(layer, factor, train_len):
    return ntk_frequencies(layer.omega, factor), 1.0


def _yarn(layer, factor, train_len):
    omega = yarn_frequencies(layer.omega, factor, train_len)
    return omega, yarn_attention_factor(factor)


def _llama3(layer, factor, train_len):
    return llama3_frequencies(layer.omega, factor, train_len), 1.0


# Each method: new angles per position and a factor for queries and keys.
EXTENSIONS = {
    "raw": _raw,
    "position interpolation": _interpolation,
    "NTK-aware": _ntk,
    "YaRN": _yarn,
    "Llama 3.1": _llama3,
}


def extend_context(
    model: nn.Module, method: str, factor: float, train_len: int
) -> nn.Module:
    """A copy of ``model`` whose RoPE layers read inputs ``factor`` times
    longer than ``train_len`` by ``method`` (a key of ``EXTENSIONS``)."""
    change = checks.choice("method", method, EXTENSIONS)
    factor = _factor(factor)
    train_len = checks.positive_int("train_len", train_len)
    layers = [m for m in model.modules() if isinstance(m, RotaryEmbedding)]
    if not layers:
        raise ValueError("model must hold RotaryEmbedding layers")
    extended = copy.deepcopy(model)
    for layer in extended.modules():
        if isinstance(layer, RotaryEmbedding):
            omega, scale = change(layer, factor, train_len)
            layer.omega = omega.to(layer.omega)
            with torch.no_grad():
                for W in (layer.W_q, layer.W_k):
                    W.weight *= scale
                    W.bias *= scale
    return extended
