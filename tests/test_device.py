import os

import pytest
import torch

import d2l_local as d2l


def test_try_gpu_falls_back_to_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert d2l.try_gpu() == torch.device("cpu")


def test_try_gpu_picks_an_existing_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert d2l.try_gpu(1) == torch.device("cuda:1")
    assert d2l.try_gpu(2) == torch.device("cpu")
    assert d2l.num_gpus() == 2


@pytest.fixture
def restore_determinism(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


def test_deterministic_sets_what_cublas_needs(restore_determinism):
    torch.use_deterministic_algorithms(False)
    d2l.deterministic()
    assert torch.are_deterministic_algorithms_enabled()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


def test_deterministic_keeps_a_valid_setting_and_replaces_a_bad_one(
    restore_determinism, monkeypatch
):
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")
    d2l.deterministic()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":0:0")
    d2l.deterministic()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


def test_deterministic_warns_when_cuda_was_used_first(
    restore_determinism, monkeypatch
):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    with pytest.warns(
        RuntimeWarning, match="CUDA was used before deterministic"
    ):
        d2l.deterministic()
