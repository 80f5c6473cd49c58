"""The library on a CUDA GPU, where one exists (skipped elsewhere): every
piece computes on the device of its inputs and agrees with the CPU."""

from __future__ import annotations

import os

import pytest
import torch

import d2l_local as d2l
from d2l_local import copy_task, relative_family, training

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA GPU here"
)
GPU = torch.device("cuda")


def cpu_and_gpu(module, *inputs):
    """The module's output on the CPU and, for a copy of it, on the GPU."""
    module.eval()
    with torch.no_grad():
        on_cpu = module(*inputs)
        gpu_module = module.to(GPU)
        on_gpu = gpu_module(
            *(x.to(GPU) if isinstance(x, torch.Tensor) else x for x in inputs)
        )
    return on_cpu, on_gpu


def test_positional_encoding_moves_its_table_and_agrees_with_the_cpu():
    X = torch.randn(2, 10, 16, generator=torch.Generator().manual_seed(0))
    on_cpu, on_gpu = cpu_and_gpu(d2l.PositionalEncoding(16, 0.0), X)
    assert on_gpu.device.type == "cuda"
    torch.testing.assert_close(on_gpu.cpu(), on_cpu)


def test_multi_head_attention_with_a_mask_agrees_with_the_cpu():
    torch.manual_seed(0)
    layer = d2l.MultiHeadAttention(24, 4, dropout=0.0).double()
    X = torch.randn(2, 5, 24, dtype=torch.float64)
    valid_lens = torch.tensor([3, 5])
    on_cpu, on_gpu = cpu_and_gpu(layer, X, X, X, valid_lens)
    torch.testing.assert_close(on_gpu.cpu(), on_cpu)
    assert (layer.attention_weights[0, :, :, 3:] == 0).all()


def test_rope_on_the_gpu_is_rope_on_the_cpu():
    X = torch.randn(7, 8, dtype=torch.float64)
    torch.testing.assert_close(d2l.rope(X.to(GPU)).cpu(), d2l.rope(X))


@pytest.mark.parametrize("name", list(relative_family.VARIANTS))
def test_every_position_variant_agrees_with_the_cpu(name):
    model = copy_task.make_model(relative_family.VARIANTS[name], seed=0)
    tokens, _ = copy_task.make_copy_task(4, 12, 3)
    on_cpu, on_gpu = cpu_and_gpu(model, tokens)
    torch.testing.assert_close(on_gpu.cpu(), on_cpu)


def test_train_seeds_on_the_gpu_ends_where_train_does():
    tokens, targets = copy_task.make_copy_task(200, 8, 2)
    seeds = [0, 1]
    alone, together = (
        [
            copy_task.make_model(relative_family.RotaryEmbedding, s).to(GPU)
            for s in seeds
        ]
        for _ in range(2)
    )
    for model, seed in zip(alone, seeds):
        training.train(
            model, tokens, targets, num_steps=10, batch_size=8, seed=seed
        )
    training.train_seeds(
        together, tokens, targets, seeds, num_steps=10, batch_size=8
    )
    for a, b in zip(alone, together):
        assert next(b.parameters()).device.type == "cuda"
        for wa, wb in zip(a.parameters(), b.parameters()):
            torch.testing.assert_close(wb, wa, rtol=1e-9, atol=1e-9)


def test_deterministic_lets_matrix_products_run_on_cuda(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    torch.zeros(1, device=GPU)  # CUDA in use, as in any notebook cell
    before = torch.are_deterministic_algorithms_enabled()
    try:
        # Earlier tests have used CUDA, which deterministic() warns about.
        with pytest.warns(RuntimeWarning, match="CUDA was used before"):
            d2l.deterministic()
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] in (":4096:8", ":16:8")
        a = torch.randn(3, 4, 5, device=GPU)
        torch.bmm(a, a.transpose(1, 2))
    finally:
        torch.use_deterministic_algorithms(before)
