"""Device helpers with the names and calls of ``d2l.torch``.

Every page moves its model and its (CPU-made) data with ``try_gpu()``, so the
same notebook runs on a laptop CPU and on a Colab GPU.
"""
from __future__ import annotations

import torch

__all__ = ["cpu", "gpu", "num_gpus", "try_gpu"]


def cpu() -> torch.device:
    """The CPU device."""
    return torch.device("cpu")


def gpu(i: int = 0) -> torch.device:
    """The ``i``-th CUDA device (it need not exist)."""
    return torch.device(f"cuda:{i}")


def num_gpus() -> int:
    """Number of visible CUDA devices."""
    return torch.cuda.device_count()


def try_gpu(i: int = 0) -> torch.device:
    """Return ``gpu(i)`` if it exists, otherwise ``cpu()``."""
    return gpu(i) if num_gpus() >= i + 1 else cpu()
