"""Device helpers with the names and calls of ``d2l.torch``.

Every page moves its model and its (CPU-made) data with ``try_gpu()``, so the
same notebook runs on a laptop CPU and on a Colab GPU.
"""

from __future__ import annotations

import os
import warnings

import torch

__all__ = ["cpu", "deterministic", "gpu", "num_gpus", "try_gpu"]

# cuBLAS is deterministic only with a fixed workspace; PyTorch's
# reproducibility notes name these two settings.
CUBLAS_DETERMINISTIC = (":4096:8", ":16:8")


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


def deterministic() -> None:
    """Make every later torch operation pick deterministic kernels, on the
    CPU and on CUDA.

    ``torch.use_deterministic_algorithms(True)`` alone makes matrix products
    on CUDA raise unless ``CUBLAS_WORKSPACE_CONFIG`` is set before cuBLAS is
    first used, so this sets it too (keeping a valid value already there).
    Call it before the first computation on a GPU. Used by the page "Does
    the Model Need Position? An Experiment".
    """
    if os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in CUBLAS_DETERMINISTIC:
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            warnings.warn(
                "CUDA was used before deterministic(); cuBLAS may keep a "
                "non-deterministic workspace: call it first in a fresh kernel",
                RuntimeWarning,
                stacklevel=2,
            )
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = CUBLAS_DETERMINISTIC[0]
    torch.use_deterministic_algorithms(True)
