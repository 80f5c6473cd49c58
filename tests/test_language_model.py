"""language_model: training windows, bits per character in both
evaluation modes, sampling."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from d2l_local import language_model as lm

TOKENS = torch.randint(
    0, 97, (700,), generator=torch.Generator().manual_seed(0)
)


class Unigram(nn.Module):
    """Logits that depend on the current token only: its bits per
    character cannot depend on the window or the stride."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(97, 97)

    def forward(self, tokens):
        return self.table(tokens)


def test_training_windows_are_views_one_token_apart():
    inputs, targets = lm.training_windows(TOKENS, 8)
    assert inputs.shape == targets.shape == (692, 8)
    assert (
        inputs.untyped_storage().data_ptr()
        == TOKENS.untyped_storage().data_ptr()
    )
    assert torch.equal(inputs[5, 1:], targets[5, :-1])
    assert torch.equal(targets[5], TOKENS[6:14])


def test_uniform_logits_cost_log2_of_the_vocabulary():
    model = Unigram()
    nn.init.zeros_(model.table.weight)
    bits = lm.bits_per_character(model, TOKENS, 16, num_scored=256)
    assert bits == pytest.approx(math.log2(97))


@pytest.mark.parametrize(("window", "stride"), [(8, None), (32, 8), (64, 16)])
def test_every_mode_scores_the_same_characters(window, stride):
    torch.manual_seed(0)
    model = Unigram()
    reference = lm.bits_per_character(model, TOKENS, 8, None, 64, 512)
    bits = lm.bits_per_character(model, TOKENS, window, stride, 64, 512)
    assert bits == pytest.approx(reference, rel=1e-6)


def test_position_bits_has_one_value_per_scored_position():
    torch.manual_seed(0)
    model = Unigram()
    assert lm.position_bits(model, TOKENS, 32, None, 0, 256).shape == (32,)
    assert lm.position_bits(model, TOKENS, 32, 8, 32, 256).shape == (8,)


@pytest.mark.parametrize(("window", "stride"), [(32, None), (32, 8)])
def test_character_bits_are_what_position_bits_averages(window, stride):
    torch.manual_seed(0)
    model = Unigram()
    bits = lm.character_bits(model, TOKENS, window, stride, 32, 256)
    assert bits.shape == (256,)
    by_position = lm.position_bits(model, TOKENS, window, stride, 32, 256)
    step = window if stride is None else stride
    assert torch.allclose(bits.view(-1, step).mean(0), by_position)
    # In the text's order: a unigram's loss at each character is its own.
    logits = model(TOKENS[32:288]).detach()
    own = nn.functional.cross_entropy(
        logits, TOKENS[33:289], reduction="none"
    ).double() / math.log(2)
    assert torch.allclose(bits, own, atol=1e-5)


def test_generate_is_reproducible_and_returns_only_new_tokens():
    torch.manual_seed(0)
    model = Unigram()
    runs = [
        lm.generate(model, TOKENS[:5], 20, torch.Generator().manual_seed(1))
        for _ in range(2)
    ]
    assert runs[0].shape == (20,) and torch.equal(*runs)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: lm.training_windows(TOKENS[:8], 8),
            ValueError,
            r"tokens must be longer than num_steps=8, got 8",
        ),
        (
            lambda: lm.bits_per_character(Unigram(), TOKENS, 8, 16, 64, 256),
            ValueError,
            r"stride must lie in \[1, window=8\]",
        ),
        (
            lambda: lm.bits_per_character(Unigram(), TOKENS, 128, 8, 64, 256),
            ValueError,
            r"window in \[1, context \+ stride = 72\]",
        ),
        (
            lambda: lm.bits_per_character(Unigram(), TOKENS, 8, None, 0, 100),
            ValueError,
            r"num_scored must be a multiple of stride=8, got 100",
        ),
        (
            lambda: lm.bits_per_character(Unigram(), TOKENS, 8, None, 0, 800),
            ValueError,
            r"tokens must hold context \+ num_scored \+ 1 = 801 tokens",
        ),
        (
            lambda: lm.generate(
                Unigram(), TOKENS[:3], 5, torch.Generator(), temperature=0.0
            ),
            ValueError,
            r"temperature must be a float > 0, got 0.0",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_cached_decoding_at_own_positions_is_the_whole_window_at_once():
    from d2l_local import decoder

    torch.manual_seed(0)
    model = decoder.Decoder("RoPE", 24, 2, 2).eval()
    tokens = TOKENS[:20]
    with torch.no_grad():
        whole = model(tokens[None])[0]
    torch.testing.assert_close(
        lm.cached_logits(model, tokens), whole, atol=1e-5, rtol=1e-5
    )
    batch = torch.stack([tokens, tokens.flip(0)])
    with torch.no_grad():
        both = model(batch)
    torch.testing.assert_close(
        lm.cached_logits(model, batch), both, atol=1e-5, rtol=1e-5
    )


def test_every_token_at_position_0_is_the_model_whose_pairs_never_turn():
    from d2l_local import decoder

    torch.manual_seed(0)
    model = decoder.Decoder("RoPE", 24, 2, 2).eval()
    tokens = TOKENS[:20]
    at_zero = lm.cached_logits(model, tokens, torch.zeros(20, dtype=int))
    for block in model.blocks:
        block.attention.omega = torch.zeros_like(block.attention.omega)
    with torch.no_grad():
        still = model(tokens[None])[0]
    torch.testing.assert_close(at_zero, still, atol=1e-5, rtol=1e-5)


def test_decoding_at_a_wrong_position_after_a_right_prefill_changes_logits():
    from d2l_local import decoder

    torch.manual_seed(0)
    model = decoder.Decoder("RoPE", 24, 2, 2).eval()
    tokens = TOKENS[:20]
    right = lm.cached_logits(model, tokens)
    wrong = torch.cat([torch.arange(10), torch.zeros(10, dtype=int)])
    bugged = lm.cached_logits(model, tokens, wrong)
    torch.testing.assert_close(bugged[:10], right[:10])
    assert not torch.allclose(bugged[10:], right[10:], atol=1e-3)


def test_cached_decoding_needs_rope_in_every_block_and_a_position_a_step():
    from d2l_local import decoder

    with pytest.raises(ValueError, match="model must be a decoder with RoPE"):
        lm.cached_logits(decoder.Decoder("ALiBi", 24, 2), TOKENS[:5])
    with pytest.raises(ValueError, match="one position per step"):
        lm.cached_logits(
            decoder.Decoder("RoPE", 24, 2), TOKENS[:5], torch.arange(4)
        )
