"""context_extension: RoPE models read longer inputs by raw
extrapolation, position interpolation, NTK-aware scaling and YaRN."""

from __future__ import annotations

import math

import pytest
import torch

from d2l_local import context_extension as ext
from d2l_local import decoder
from d2l_local.relative import frequencies

TOKENS = torch.randint(
    0, 97, (2, 24), generator=torch.Generator().manual_seed(0)
)


def rope_model():
    torch.manual_seed(0)
    return decoder.Decoder("RoPE", 32, 2, 2).eval()


def omegas(model):
    return [block.attention.omega for block in model.blocks]


def test_raw_extrapolation_changes_nothing():
    model = rope_model()
    extended = ext.extend_context(model, "raw", 4, 16)
    with torch.no_grad():
        torch.testing.assert_close(extended(TOKENS), model(TOKENS))


def test_position_interpolation_slows_every_pair_by_the_factor():
    model = rope_model()
    extended = ext.extend_context(model, "position interpolation", 4, 16)
    for new, old in zip(omegas(extended), omegas(model)):
        torch.testing.assert_close(new, old / 4)


def test_ntk_keeps_the_fastest_pair_and_slows_the_slowest_by_the_factor():
    original = frequencies(16)
    omega = ext.ntk_frequencies(original, 4.0)
    assert omega[0] == original[0] == 1
    torch.testing.assert_close(omega[-1], original[-1] / 4)
    assert (omega <= original).all()
    # the same as the frequencies of the larger base
    torch.testing.assert_close(
        omega, frequencies(16, base=10000 * 4 ** (16 / 14))
    )


def test_ntk_leaves_unrotated_pairs_unrotated():
    omega = frequencies(12)
    omega[4:] = 0
    assert (ext.ntk_frequencies(omega, 2.0)[4:] == 0).all()


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_blends_between():
    omega = frequencies(16)
    turns = 64 * omega / (2 * math.pi)
    new = ext.yarn_frequencies(omega, 4.0, 64, alpha=1.0, beta=8.0)
    fast, slow = turns > 8, turns < 1
    assert fast.any() and slow.any()
    torch.testing.assert_close(new[fast], omega[fast])
    torch.testing.assert_close(new[slow], omega[slow] / 4)
    between = ~fast & ~slow
    assert (
        (new[between] < omega[between]) & (new[between] > omega[between] / 4)
    ).all()


def test_yarn_sharpens_the_scores_by_the_square_of_its_factor():
    model = rope_model().double()
    extended = ext.extend_context(model, "YaRN", 4, 16)
    layer, new = model.blocks[0].attention, extended.blocks[0].attention
    X = torch.randn(1, 10, 32, dtype=torch.float64)
    new.omega = layer.omega.clone()  # compare the scores at equal angles
    with torch.no_grad():
        before = layer.scores_and_values(X)[0]
        after = new.scores_and_values(X)[0]
    factor = 0.1 * math.log(4) + 1
    torch.testing.assert_close(after, before * factor**2)
    assert ext.yarn_attention_factor(4) == pytest.approx(factor)


def test_the_original_model_is_left_as_it_was():
    model = rope_model()
    before = [o.clone() for o in omegas(model)]
    ext.extend_context(model, "YaRN", 8, 16)
    for now, then in zip(omegas(model), before):
        assert torch.equal(now, then)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: ext.extend_context(rope_model(), "linear", 2, 16),
            ValueError,
            r"method must be one of \('raw', 'position interpolation'",
        ),
        (
            lambda: ext.extend_context(rope_model(), "YaRN", 0.5, 16),
            ValueError,
            r"factor must be a number >= 1, got 0.5",
        ),
        (
            lambda: ext.extend_context(
                decoder.Decoder("ALiBi", 32, 2), "raw", 2, 16
            ),
            ValueError,
            r"model must hold RotaryEmbedding layers",
        ),
        (
            lambda: ext.ntk_frequencies(torch.ones(1), 2.0),
            ValueError,
            r"omega must hold at least 2 pairs' angles, got 1",
        ),
        (
            lambda: ext.yarn_frequencies(frequencies(8), 2.0, 16, 4.0, 2.0),
            ValueError,
            r"alpha and beta must satisfy 0 <= alpha < beta",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_llama3_keeps_short_wavelengths_slows_long_ones_and_blends_between():
    omega = frequencies(16)
    L, factor = 32, 4.0
    new = ext.llama3_frequencies(omega, factor, L)
    wavelength = 2 * math.pi / omega
    kept, slowed = wavelength < L / 4, wavelength > L
    assert kept.any() and slowed.any() and (~kept & ~slowed).any()
    assert torch.equal(new[kept], omega[kept])
    assert torch.allclose(new[slowed], omega[slowed] / factor)
    between = ~kept & ~slowed
    share = (L / wavelength[between] - 1) / 3  # 0 at L, 1 at L / 4
    expected = share * omega[between] + (1 - share) * omega[between] / factor
    assert torch.allclose(new[between], expected)


def test_llama3_refuses_frequency_factors_in_the_wrong_order():
    with pytest.raises(ValueError, match="low_freq_factor"):
        ext.llama3_frequencies(frequencies(16), 4.0, 32, 4.0, 1.0)
