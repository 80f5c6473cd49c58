import math

import pytest
import torch

import d2l_local as d2l
from d2l_local import copy_task
from d2l_local import relative_family as family

RELATIVE = [name for name in family.VARIANTS if name != "absolute sinusoidal"]


def layer(name, causal=False, num_hiddens=32, num_heads=2):
    variant = family.VARIANTS[name]
    return copy_task.make_model(
        variant, 0, num_hiddens=num_hiddens, num_heads=num_heads, causal=causal
    ).attention


def test_offsets_hold_key_minus_query():
    D = family.offsets(4)
    assert D.tolist()[1] == [-1, 0, 1, 2]
    assert torch.equal(D, -D.T)


@pytest.mark.parametrize("name", family.VARIANTS)
def test_every_variant_keeps_the_shape_and_its_weights_sum_to_one(name):
    attention = layer(name, causal=True)
    X = torch.randn(3, 10, 32, dtype=torch.float64)
    assert attention(X).shape == X.shape
    weights = attention.attention_weights
    assert weights.shape == (3, 2, 10, 10)
    torch.testing.assert_close(
        weights.sum(-1), torch.ones(3, 2, 10, dtype=torch.float64)
    )
    assert (weights[..., family.offsets(10) > 0] == 0).all()


@pytest.mark.parametrize("name", RELATIVE)
def test_relative_variants_score_by_offset_alone(name):
    tokens = torch.randn(20, 32, dtype=torch.float64)
    assert family.depends_only_on_offset(layer(name), tokens, shift=7) is None


def test_the_added_table_does_not_score_by_offset_alone():
    tokens = torch.randn(12, 32, dtype=torch.float64)
    change = family.depends_only_on_offset(
        layer("absolute sinusoidal"), tokens
    )
    assert change is not None and change > 1e-3


def test_the_offset_check_fails_a_layer_that_reads_absolute_position():
    """Scores scaled by the query's position depend on more than j - i."""

    class Scaled(family.NoPositions):
        def position_scores(self, Q, K):
            n = Q.shape[2]
            return torch.arange(n, dtype=Q.dtype)[:, None].expand(n, n)

    tokens = torch.randn(12, 32, dtype=torch.float64)
    layer = Scaled(32, 2).double()
    assert family.depends_only_on_offset(layer, tokens) is not None


def test_position_parameters_are_counted_per_design():
    counts = {
        name: family.position_parameters(layer(name))
        for name in family.VARIANTS
    }
    head = 16
    assert counts["Shaw et al."] == 2 * (2 * 8 + 1) * head
    assert counts["Transformer-XL"] == 32 * 32 + 2 * 32
    assert counts["T5 bias"] == 32 * 2
    for name in ["absolute sinusoidal", "ALiBi", "RoPE", "NoPE (causal)"]:
        assert counts[name] == 0


def test_t5_buckets_are_exact_near_and_logarithmic_far():
    near = family.t5_bucket(torch.arange(-7, 8))
    assert len(set(near.tolist())) == 15
    far = family.t5_bucket(torch.tensor([-128, -500, 128, 500]))
    assert far.tolist() == [15, 15, 31, 31]
    back = family.t5_bucket(-torch.arange(0, 300))
    assert (back[1:] >= back[:-1]).all() and back.max() == 15
    ahead = family.t5_bucket(torch.arange(1, 300))
    assert ahead.min() == 17 and ahead.max() == 31


def test_causal_t5_buckets_serve_only_keys_behind_as_in_its_decoder():
    behind = family.t5_bucket(-torch.arange(0, 300), bidirectional=False)
    assert behind[:16].tolist() == list(range(16))
    assert behind.max() == 31 and (behind[1:] >= behind[:-1]).all()
    ahead = family.t5_bucket(torch.arange(1, 5), bidirectional=False)
    assert (ahead == 0).all()


def test_alibi_slopes_halve_geometrically():
    slopes = layer("ALiBi", num_heads=8, num_hiddens=32).slopes()
    assert slopes.tolist() == [2.0**-k for k in range(1, 9)]


def test_rope_variant_rotates_queries_and_keys_by_position():
    attention = layer("RoPE", num_heads=1)
    X = torch.randn(1, 6, 32, dtype=torch.float64)
    scores = attention.scores_and_values(X)[0][0, 0]
    Q, K = attention.W_q(X)[0], attention.W_k(X)[0]
    expected = d2l.rope(Q) @ d2l.rope(K).T / math.sqrt(32)
    torch.testing.assert_close(scores, expected)


def test_window_hides_far_keys():
    attention = layer("Shaw et al.")
    attention.window = 2
    attention(torch.randn(2, 9, 32, dtype=torch.float64))
    far = family.offsets(9).abs() > 2
    assert (attention.attention_weights[..., far] == 0).all()


@pytest.mark.parametrize(
    "build, error, message",
    [
        (
            lambda: family.ShawRelative(32, 2, max_distance=0),
            ValueError,
            "max_distance must be an integer >= 1",
        ),
        (
            lambda: family.T5Bias(32, 2, num_buckets=7),
            ValueError,
            "num_buckets must be even",
        ),
        (
            lambda: family.T5Bias(32, 2, num_buckets=32, max_distance=8),
            ValueError,
            "max_distance must exceed the 8 exact distances",
        ),
        (
            lambda: family.RotaryEmbedding(30, 10),
            ValueError,
            "num_hiddens / num_heads must be even",
        ),
        (lambda: family.ALiBi(32, 5), ValueError, "num_heads"),
        (
            lambda: family.NoPositions(32, 2)(torch.zeros(2, 5, 16)),
            ValueError,
            "last dimension num_hiddens=32",
        ),
        (
            lambda: family.NoPositions(32, 2)(torch.zeros(5, 32)),
            ValueError,
            "X must have 3 dimensions",
        ),
        (lambda: family.offsets(0), ValueError, "num_steps must be"),
    ],
)
def test_bad_input_names_the_parameter(build, error, message):
    with pytest.raises(error, match=message):
        build()
