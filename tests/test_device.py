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
