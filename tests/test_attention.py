import math

import pytest
import torch

import d2l_local as d2l


def test_masked_softmax_zeroes_keys_past_each_length():
    torch.manual_seed(0)
    X = torch.randn(2, 3, 5)
    weights = d2l.masked_softmax(X, torch.tensor([2, 4]))
    assert torch.all(weights[0, :, 2:] == 0) and torch.all(
        weights[1, :, 4:] == 0
    )
    assert torch.all(weights[0, :, :2] > 0) and torch.all(
        weights[1, :, :4] > 0
    )
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3))
    torch.testing.assert_close(
        weights[0, :, :2], torch.softmax(X[0, :, :2], dim=-1)
    )


def test_masked_softmax_per_query_lengths_and_no_mutation():
    X = torch.randn(1, 3, 3)
    before = X.clone()
    weights = d2l.masked_softmax(X, d2l.causal_valid_lens(1, 3))
    assert torch.equal(X, before)
    assert torch.all(torch.triu(weights[0], diagonal=1) == 0)
    assert weights[0, 0, 0] == 1


def test_masked_softmax_without_lengths_is_softmax():
    X = torch.randn(2, 2, 4)
    torch.testing.assert_close(
        d2l.masked_softmax(X, None), torch.softmax(X, dim=-1)
    )


@pytest.mark.parametrize(
    "valid_lens, message",
    [
        (
            torch.tensor([1, 2, 3]),
            r"valid_lens must have shape \(batch_size,\)=\(2,\)",
        ),
        (
            torch.ones(2, 4),
            r"\(batch_size, num_queries\)=\(2, 3\), got \(2, 4\)",
        ),
        (
            torch.tensor([1, 6]),
            r"valid_lens entries must lie in \[0, num_keys\]=\[0, 5\]",
        ),
        (
            torch.tensor([-1, 2]),
            r"valid_lens entries must lie in \[0, num_keys\]",
        ),
        (torch.ones(2, 3, 1), r"valid_lens must have 1 or 2 dimensions"),
    ],
)
def test_masked_softmax_rejects_bad_lengths(valid_lens, message):
    with pytest.raises(ValueError, match=message):
        d2l.masked_softmax(torch.randn(2, 3, 5), valid_lens)


def test_masked_softmax_rejects_bad_scores():
    with pytest.raises(ValueError, match=r"X must have 3 dimensions"):
        d2l.masked_softmax(torch.randn(3, 5), None)
    with pytest.raises(TypeError, match="X must have a floating-point dtype"):
        d2l.masked_softmax(torch.ones(1, 3, 5, dtype=torch.long), None)


def four_steps(Q, K, V):
    """The page's four lines: scores, scaled scores, weights, output."""
    weights = torch.softmax(Q @ K.T / math.sqrt(Q.shape[-1]), dim=-1)
    return weights, weights @ V


def test_dot_product_attention_on_the_pages_worked_example():
    Q = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    V = torch.tensor([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    attention = d2l.DotProductAttention(0.0)
    out = attention(Q[None], Q[None], V[None])[0]
    weights = attention.attention_weights[0]
    # Row 3 by hand: scores 1, 1, 2 scaled by 1/sqrt(2).
    e_small, e_large = math.exp(1 / math.sqrt(2)), math.exp(2 / math.sqrt(2))
    total = 2 * e_small + e_large
    expected = torch.tensor(
        [e_small / total, e_small / total, e_large / total]
    )
    torch.testing.assert_close(weights[2], expected)
    assert round(weights[2, 2].item(), 4) == 0.5035
    torch.testing.assert_close(out, weights @ V)


def test_dot_product_attention_matches_the_four_steps_and_checks_shapes():
    torch.manual_seed(1)
    Q, K, V = torch.randn(4, 3), torch.randn(5, 3), torch.randn(5, 2)
    attention = d2l.DotProductAttention(0.0)
    out = attention(Q[None], K[None], V[None])
    torch.testing.assert_close(out[0], four_steps(Q, K, V)[1])
    with pytest.raises(
        ValueError, match="queries, keys and values must share batch_size"
    ):
        attention(
            torch.ones(2, 4, 3), torch.ones(1, 5, 3), torch.ones(1, 5, 2)
        )
    with pytest.raises(
        ValueError, match="keys must have last dimension query width=3"
    ):
        attention(
            torch.ones(1, 4, 3), torch.ones(1, 5, 2), torch.ones(1, 5, 2)
        )
    with pytest.raises(
        ValueError, match="keys and values must have the same number of pairs"
    ):
        attention(
            torch.ones(1, 4, 3), torch.ones(1, 5, 3), torch.ones(1, 6, 2)
        )
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        d2l.DotProductAttention(1.5)


def test_causal_valid_lens():
    assert d2l.causal_valid_lens(2, 3).tolist() == [[1, 2, 3], [1, 2, 3]]
    with pytest.raises(
        ValueError, match="num_queries must be an integer >= 1"
    ):
        d2l.causal_valid_lens(2, 0)


def _per_head_reference(layer, X, num_heads):
    """Multi-head self-attention written out head by head with plain matrix
    products."""
    width = X.shape[-1] // num_heads
    heads, weights = [], []
    for h in range(num_heads):
        rows = slice(h * width, (h + 1) * width)
        q = X @ layer.W_q.weight[rows].T
        k = X @ layer.W_k.weight[rows].T
        v = X @ layer.W_v.weight[rows].T
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(width), dim=-1)
        weights.append(a)
        heads.append(a @ v)
    return torch.cat(heads, dim=-1) @ layer.W_o.weight.T, torch.stack(
        weights, dim=1
    )


@pytest.mark.parametrize("num_heads", [1, 2, 3, 6])
def test_multihead_equals_heads_written_out(num_heads):
    torch.manual_seed(2)
    layer = d2l.MultiHeadAttention(12, num_heads, 0.0).eval()
    X = torch.randn(2, 5, 12)
    with torch.no_grad():
        out = layer(X, X, X, None)
        expected_out, expected_weights = _per_head_reference(
            layer, X, num_heads
        )
    torch.testing.assert_close(out, expected_out)
    assert layer.attention_weights.shape == (2, num_heads, 5, 5)
    torch.testing.assert_close(layer.attention_weights, expected_weights)


def test_multihead_masks_every_head_of_a_sequence():
    layer = d2l.MultiHeadAttention(8, 4, 0.0).eval()
    X = torch.randn(2, 3, 8)
    with torch.no_grad():
        layer(X, X, X, torch.tensor([1, 2]))
    weights = layer.attention_weights
    assert torch.all(weights[0, :, :, 1:] == 0) and torch.all(
        weights[1, :, :, 2:] == 0
    )


def test_multihead_parameter_counts():
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(d2l.MultiHeadAttention(512, 8, 0.0)) == 4 * 512**2
    assert (
        count(d2l.MultiHeadAttention(512, 8, 0.0, bias=True))
        == 4 * 512**2 + 4 * 512
    )


@pytest.mark.parametrize(
    "args, error, message",
    [
        (
            (0, 1, 0.0),
            ValueError,
            "num_hiddens must be an integer >= 1, got 0",
        ),
        (
            (-8, 2, 0.0),
            ValueError,
            "num_hiddens must be an integer >= 1, got -8",
        ),
        ((8, 0, 0.0), ValueError, "num_heads must be an integer >= 1, got 0"),
        (
            (8, -2, 0.0),
            ValueError,
            "num_heads must be an integer >= 1, got -2",
        ),
        (
            (8, 3, 0.0),
            ValueError,
            r"num_heads must divide num_hiddens=8; got num_heads=3, "
            r"valid values are \[1, 2, 4, 8\]",
        ),
        ((8, 2.0, 0.0), TypeError, "num_heads must be an integer >= 1"),
        ((8, 2, -0.5), ValueError, r"dropout must be in \[0, 1\)"),
    ],
)
def test_multihead_rejects_bad_configuration(args, error, message):
    with pytest.raises(error, match=message):
        d2l.MultiHeadAttention(*args)


def test_multihead_rejects_bad_inputs():
    layer = d2l.MultiHeadAttention(8, 2, 0.0)
    X = torch.ones(2, 3, 8)
    with pytest.raises(
        ValueError,
        match=(
            r"queries must have last dimension num_hiddens=8, "
            r"got shape \(2, 3, 6\)"
        ),
    ):
        layer(torch.ones(2, 3, 6), X, X, None)
    with pytest.raises(ValueError, match=r"values must have 3 dimensions"):
        layer(X, X, torch.ones(3, 8), None)
    with pytest.raises(
        ValueError, match=r"valid_lens must have shape \(batch_size,\)=\(2,\)"
    ):
        layer(X, X, X, torch.tensor([1, 2, 3]))


def test_multihead_weights_before_a_call_say_so():
    with pytest.raises(RuntimeError, match="call the module first"):
        d2l.MultiHeadAttention(4, 2, 0.0).attention_weights


def test_self_attention_is_permutation_equivariant():
    torch.manual_seed(3)
    layer = d2l.MultiHeadAttention(6, 2, 0.0).eval()
    X = torch.randn(1, 5, 6)
    perm = torch.tensor([4, 2, 0, 1, 3])
    with torch.no_grad():
        torch.testing.assert_close(
            layer(X[:, perm], X[:, perm], X[:, perm], None),
            layer(X, X, X, None)[:, perm],
        )
