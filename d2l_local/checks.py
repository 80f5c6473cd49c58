"""Argument checks shared by every module, so that bad input fails early.

Each check raises ``ValueError`` (or ``TypeError`` for the wrong kind of
object) with a message that names the parameter and the valid range, instead
of letting a broadcast error surface deep inside a tensor operation.
The pages show the teaching code of the attention and positional-encoding
modules; the checks live here so that it reads like the textbook's.
``check_shape`` is the textbook's own helper (page "Self-Attention").
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import torch

__all__ = ["check_shape"]


def check_shape(a: torch.Tensor, shape: tuple[int, ...]) -> None:
    """Fail unless ``a.shape == shape`` (same name and call as ``d2l.torch``).

    Raises ``AssertionError`` like the d2l helper, but through an explicit
    ``raise`` so that it still checks under ``python -O``.
    """
    if tuple(a.shape) != tuple(shape):
        raise AssertionError(
            f"tensor's shape {tuple(a.shape)} != expected shape {tuple(shape)}"
        )


def positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer >= 1, "
            f"got {value!r} ({type(value).__name__})"
        )
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value}")
    return int(value)


def even_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is an even integer >= 2 (a width
    of column pairs)."""
    value = positive_int(name, value)
    if value % 2:
        raise ValueError(
            f"{name} must be even so that columns form (sin, cos) pairs, "
            f"got {value}"
        )
    return value


def probability(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it lies in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a number in [0, 1), "
            f"got {value!r} ({type(value).__name__})"
        )
    if not 0 <= value < 1:
        raise ValueError(f"{name} must be in [0, 1), got {value}")
    return float(value)


def finite(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it is a finite real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a finite number, got {value!r} "
            f"({type(value).__name__})"
        )
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return float(value)


def text(name: str, value: object) -> str:
    """Return ``value`` if it is a string with something besides spaces."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value


def tensor(
    name: str, value: object, ndim: int | tuple[int, ...]
) -> torch.Tensor:
    """Return ``value`` if it is a tensor with ``ndim`` dimensions (or one
    of them)."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor, got {type(value).__name__}"
        )
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if value.dim() not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise ValueError(
            f"{name} must have {wanted} dimensions, "
            f"got shape {tuple(value.shape)}"
        )
    return value


def floating(name: str, value: torch.Tensor) -> torch.Tensor:
    """Return ``value`` if its dtype is a floating-point type."""
    if not value.is_floating_point():
        raise TypeError(
            f"{name} must have a floating-point dtype, got {value.dtype}"
        )
    return value


def last_dim(
    name: str, value: torch.Tensor, size: int, size_name: str
) -> torch.Tensor:
    """Return ``value`` if its last dimension equals ``size``."""
    if value.shape[-1] != size:
        raise ValueError(
            f"{name} must have last dimension {size_name}={size}, "
            f"got shape {tuple(value.shape)}"
        )
    return value


def valid_lens(
    lens: torch.Tensor, batch_size: int, num_queries: int, num_keys: int
) -> torch.Tensor:
    """Return ``lens`` if it has shape (batch_size,) or (batch_size,
    num_queries) and every entry lies in [0, num_keys]."""
    tensor("valid_lens", lens, (1, 2))
    expected = (batch_size,) if lens.dim() == 1 else (batch_size, num_queries)
    if tuple(lens.shape) != expected:
        raise ValueError(
            f"valid_lens must have shape (batch_size,)=({batch_size},) or "
            f"(batch_size, num_queries)=({batch_size}, {num_queries}), "
            f"got {tuple(lens.shape)}"
        )
    if bool(((lens < 0) | (lens > num_keys)).any()):
        raise ValueError(
            f"valid_lens entries must lie in [0, num_keys]=[0, {num_keys}], "
            f"got {lens.tolist()}"
        )
    return lens


def attention_inputs(queries: object, keys: object, values: object) -> None:
    """Batched queries, keys and values that fit together: three dimensions
    each, one batch size, keys as wide as queries, one value per key."""
    for name, value in (
        ("queries", queries),
        ("keys", keys),
        ("values", values),
    ):
        tensor(name, value, 3)
    if not queries.shape[0] == keys.shape[0] == values.shape[0]:
        raise ValueError(
            "queries, keys and values must share batch_size, got "
            f"{queries.shape[0]}, {keys.shape[0]} and {values.shape[0]}"
        )
    last_dim("keys", keys, queries.shape[-1], "query width")
    if keys.shape[1] != values.shape[1]:
        raise ValueError(
            f"keys and values must have the same number of pairs, got "
            f"{keys.shape[1]} and {values.shape[1]}"
        )


def heads(num_hiddens: object, num_heads: object) -> tuple[int, int]:
    """Return both as ints if ``num_heads`` divides ``num_hiddens``."""
    num_hiddens = positive_int("num_hiddens", num_hiddens)
    num_heads = positive_int("num_heads", num_heads)
    if num_hiddens % num_heads:
        divisors = [
            h for h in range(1, num_hiddens + 1) if num_hiddens % h == 0
        ]
        raise ValueError(
            f"num_heads must divide num_hiddens={num_hiddens}; got "
            f"num_heads={num_heads}, valid values are {divisors}"
        )
    return num_hiddens, num_heads


def multi_head_inputs(
    queries: object,
    keys: object,
    values: object,
    lens: torch.Tensor | None,
    num_hiddens: int,
) -> None:
    """Inputs of width ``num_hiddens`` and, if given, valid lengths that
    fit."""
    for name, value in (
        ("queries", queries),
        ("keys", keys),
        ("values", values),
    ):
        last_dim(name, tensor(name, value, 3), num_hiddens, "num_hiddens")
    if lens is not None:
        valid_lens(lens, queries.shape[0], queries.shape[1], keys.shape[1])


def encoding_input(X: object, num_hiddens: int, max_len: int) -> None:
    """A float batch (batch_size, num_steps, num_hiddens) whose num_steps a
    table of ``max_len`` positions covers."""
    floating("X", tensor("X", X, 3))
    last_dim("X", X, num_hiddens, "num_hiddens")
    if X.shape[1] > max_len:
        raise ValueError(
            f"X has {X.shape[1]} positions but this encoding covers "
            f"max_len={max_len}; the sequence length must lie in "
            f"[0, {max_len}] (build the module with a larger max_len)"
        )


def real(name: str, value: object) -> float:
    """Return ``value`` if it is a real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    return value


def base(value: object) -> float:
    """Return ``value`` as a ``float`` if it is a real number > 1 (the base
    of the encoding's wavelengths)."""
    value = real("base", value)
    if not value > 1:
        raise ValueError(f"base must be a number > 1, got {value}")
    return float(value)


def rope_layout(layout: object) -> str:
    """Return ``layout`` if it names a layout of RoPE's column pairs."""
    if layout not in ("adjacent", "half"):
        raise ValueError(
            f"layout must be 'adjacent' or 'half', got {layout!r}"
        )
    return layout


def rope_input(
    X: object,
    positions: torch.Tensor | None,
    omega: torch.Tensor | None = None,
    layout: str = "adjacent",
) -> None:
    """X of 2-4 float dimensions with an even last one; positions, if given,
    one per row (n,); omega, if given, one angle per column pair; a known
    layout of the pairs."""
    rope_layout(layout)
    floating("X", tensor("X", X, (2, 3, 4)))
    even_int("num_hiddens", X.shape[-1])
    num_steps = X.shape[-2]
    if positions is not None and tuple(positions.shape) != (num_steps,):
        raise ValueError(
            f"positions must have shape (n,)=({num_steps},), "
            f"got {tuple(positions.shape)}"
        )
    num_pairs = X.shape[-1] // 2
    if omega is not None and tuple(omega.shape) != (num_pairs,):
        raise ValueError(
            f"omega must hold one angle per column pair, shape "
            f"({num_pairs},), got {tuple(omega.shape)}"
        )


def models_and_seeds(models: object, seeds: object) -> None:
    """Models of one architecture (the same weights' names and shapes) and
    one integer seed for each, for ``training.train_seeds``."""
    if (
        isinstance(models, str)
        or not isinstance(models, Sequence)
        or not models
    ):
        raise ValueError("models must be a non-empty list of modules")
    for model in models:
        if not isinstance(model, torch.nn.Module):
            raise TypeError(
                f"models must hold torch modules, got {type(model).__name__}"
            )
    if not isinstance(seeds, Sequence) or len(seeds) != len(models):
        raise ValueError(
            f"seeds must give one seed for each of the {len(models)} "
            f"models, got {seeds!r}"
        )
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"seeds must be integers, got {seed!r}")
    kinds = [
        {n: (w.shape, w.dtype, w.device) for n, w in m.named_parameters()}
        for m in models
    ]
    if any(kind != kinds[0] for kind in kinds[1:]):
        raise ValueError(
            "models must share one architecture: the same parameter names, "
            "shapes, dtypes and device"
        )


def choice(name: str, value: object, options: dict):
    """Return ``options[value]`` if ``value`` is one of its keys."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(
            f"{name} must be one of {tuple(options)}, got {value!r}"
        )
    return options[value]


def tokens(name: str, value: object) -> torch.Tensor:
    """Integer token indices, at least one per row (their range is left to
    the embedding, so that the check also runs under ``torch.func.vmap``)."""
    value = tensor(name, value, (1, 2))
    if value.dtype.is_floating_point or value.dtype == torch.bool:
        raise TypeError(f"{name} must hold integers, got {value.dtype}")
    if value.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one token per row")
    return value
