"""Argument checks shared by every module, so that bad input fails early.

Each check raises ``ValueError`` (or ``TypeError`` for the wrong kind of
object) with a message that names the parameter and the valid range, instead
of letting a broadcast error surface deep inside a tensor operation.
Used by every section of the book through the attention and positional
encoding modules; ``check_shape`` is the textbook's own helper (Section 1).
"""
from __future__ import annotations

import numbers

import torch

__all__ = ["check_shape"]


def check_shape(a: torch.Tensor, shape: tuple[int, ...]) -> None:
    """Fail unless ``a.shape == shape`` (same name and call as ``d2l.torch``).

    Raises ``AssertionError`` like the d2l helper, but through an explicit
    ``raise`` so that it still checks under ``python -O``.
    """
    if tuple(a.shape) != tuple(shape):
        raise AssertionError(f"tensor's shape {tuple(a.shape)} != expected shape {tuple(shape)}")


def positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value}")
    return int(value)


def even_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is an even integer >= 2 (a width of column pairs)."""
    value = positive_int(name, value)
    if value % 2:
        raise ValueError(f"{name} must be even so that columns form (sin, cos) pairs, got {value}")
    return value


def probability(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it lies in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1), got {value!r} ({type(value).__name__})")
    if not 0 <= value < 1:
        raise ValueError(f"{name} must be in [0, 1), got {value}")
    return float(value)


def tensor(name: str, value: object, ndim: int | tuple[int, ...]) -> torch.Tensor:
    """Return ``value`` if it is a tensor with ``ndim`` dimensions (or one of them)."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if value.dim() not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise ValueError(f"{name} must have {wanted} dimensions, got shape {tuple(value.shape)}")
    return value


def floating(name: str, value: torch.Tensor) -> torch.Tensor:
    """Return ``value`` if its dtype is a floating-point type."""
    if not value.is_floating_point():
        raise TypeError(f"{name} must have a floating-point dtype, got {value.dtype}")
    return value


def last_dim(name: str, value: torch.Tensor, size: int, size_name: str) -> torch.Tensor:
    """Return ``value`` if its last dimension equals ``size``."""
    if value.shape[-1] != size:
        raise ValueError(
            f"{name} must have last dimension {size_name}={size}, got shape {tuple(value.shape)}"
        )
    return value
