"""d2l_local computes what the real d2l 1.0.3 computes, on the same weights
and inputs.

``d2l.torch`` imports torchvision at import time, and PyPI's torchvision does
not import beside the pinned CPU build of torch 2.13.0. The code compared here
(masked_softmax, DotProductAttention, MultiHeadAttention, PositionalEncoding,
check_shape, try_gpu) never calls torchvision, so this module stands in an
empty ``torchvision`` (with ``transforms``) for exactly that import, and only
when the real one cannot be imported. PIL, pandas, scipy, requests and
matplotlib_inline are the real packages.
"""

import importlib
import sys
import types

import pytest
import torch

import d2l_local


@pytest.fixture(scope="module")
def d2l():
    saved = {
        name: sys.modules.get(name)
        for name in ("torchvision", "torchvision.transforms")
    }
    try:
        importlib.import_module("torchvision")
    except Exception:
        stand_in = types.ModuleType("torchvision")
        stand_in.transforms = types.ModuleType("torchvision.transforms")
        sys.modules["torchvision"] = stand_in
        sys.modules["torchvision.transforms"] = stand_in.transforms
    try:
        module = importlib.import_module("d2l.torch")
        assert module.__file__.endswith("d2l/torch.py")
        yield module
    finally:
        for name, original in saved.items():
            if original is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = original


def test_oracle_is_d2l_1_0_3():
    from importlib.metadata import version

    assert version("d2l") == "1.0.3"


@pytest.mark.parametrize(
    "valid_lens",
    [
        torch.tensor([2, 3]),
        torch.tensor([[1, 3, 2, 4], [2, 2, 1, 3]]),
        # a sequence with no valid key: both give uniform weights
        torch.tensor([0, 4]),
    ],
    ids=["1-D", "2-D", "zero-length"],
)
def test_masked_softmax(d2l, valid_lens):
    torch.manual_seed(0)
    X = torch.randn(2, 4, 4)
    ours = d2l_local.masked_softmax(X, valid_lens)
    # d2l writes into its input
    theirs = d2l.masked_softmax(X.clone(), valid_lens)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-7)


@pytest.mark.parametrize(
    "valid_lens",
    [None, torch.tensor([2, 6]), torch.tensor([[1, 2, 3], [4, 5, 6]])],
)
def test_dot_product_attention(d2l, valid_lens):
    torch.manual_seed(1)
    queries, keys, values = (
        torch.randn(2, 3, 8),
        torch.randn(2, 6, 8),
        torch.randn(2, 6, 5),
    )
    ours, theirs = (
        d2l_local.DotProductAttention(0.0),
        d2l.DotProductAttention(0.0),
    )
    torch.testing.assert_close(
        ours(queries, keys, values, valid_lens),
        theirs(queries, keys, values, valid_lens),
    )
    torch.testing.assert_close(
        ours.attention_weights, theirs.attention_weights
    )


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("num_heads", [1, 5])
def test_multihead_attention_with_copied_weights(d2l, bias, num_heads):
    torch.manual_seed(2)
    num_hiddens = 20
    theirs = d2l.MultiHeadAttention(
        num_hiddens, num_heads, 0.5, bias=bias
    ).eval()
    X = torch.randn(2, 4, num_hiddens)
    valid_lens = torch.tensor([3, 2])
    theirs(X, X, X, valid_lens)  # materialises d2l's lazy layers
    ours = d2l_local.MultiHeadAttention(
        num_hiddens, num_heads, 0.5, bias=bias
    ).eval()
    # same parameter names, so a plain copy
    ours.load_state_dict(theirs.state_dict())
    count = sum(p.numel() for p in ours.parameters())
    assert count == sum(p.numel() for p in theirs.parameters())
    keys = torch.randn(2, 6, num_hiddens)
    for args in [
        (X, X, X, valid_lens),
        (X, keys, keys, torch.tensor([[1, 2, 3, 4], [6, 5, 4, 3]])),
        (X, X, X, None),
    ]:
        with torch.no_grad():
            torch.testing.assert_close(ours(*args), theirs(*args))
        torch.testing.assert_close(
            ours.attention.attention_weights,
            theirs.attention.attention_weights,
        )


@pytest.mark.parametrize("num_hiddens", [2, 8, 32, 100, 512])
def test_positional_encoding_even_widths(d2l, num_hiddens):
    ours = d2l_local.PositionalEncoding(num_hiddens, 0.0)
    theirs = d2l.PositionalEncoding(num_hiddens, 0.0)
    assert ours.P.shape == theirs.P.shape == (1, 1000, num_hiddens)
    # d2l rounds the angle i * w_j to float32 before the sine, an error of up
    # to about 1000 * 2**-24 = 6e-5 at the last of its 1000 positions; this
    # module rounds only the final value. Below position 60 they agree closely.
    torch.testing.assert_close(
        ours.P[:, :60], theirs.P[:, :60], rtol=0, atol=5e-6
    )
    torch.testing.assert_close(ours.P, theirs.P, rtol=0, atol=1.5e-4)
    X = torch.randn(2, 60, num_hiddens)
    torch.testing.assert_close(ours(X), theirs(X), rtol=0, atol=1e-5)


def test_d2l_fails_on_odd_widths_where_d2l_local_works(d2l):
    with pytest.raises(RuntimeError):
        d2l.PositionalEncoding(7, 0.0)
    assert d2l_local.PositionalEncoding(7, 0.0).P.shape == (1, 1000, 7)


def test_check_shape_and_try_gpu(d2l):
    X = torch.zeros(2, 3)
    d2l.check_shape(X, (2, 3)) or d2l_local.check_shape(X, (2, 3))
    for check in (d2l.check_shape, d2l_local.check_shape):
        with pytest.raises(AssertionError):
            check(X, (3, 2))
    assert d2l.try_gpu() == d2l_local.try_gpu()
