"""decoder: the pre-norm causal decoder with every way of bringing in
position."""

from __future__ import annotations

import pytest
import torch

from d2l_local import decoder, relative, relative_family, text

TOKENS = torch.randint(0, len(text.VOCABULARY), (2, 12), generator=None)


def build(method, **kwargs):
    torch.manual_seed(0)
    kwargs.setdefault("max_len", 16)
    return decoder.Decoder(method, 24, 4, 2, **kwargs)


@pytest.mark.parametrize("method", list(decoder.METHODS))
def test_every_method_gives_one_logit_per_token_and_position(method):
    logits = build(method)(TOKENS)
    assert logits.shape == (2, 12, len(text.VOCABULARY))


@pytest.mark.parametrize("method", list(decoder.METHODS))
def test_no_position_sees_a_later_token(method):
    model = build(method).eval()
    changed = TOKENS.clone()
    changed[:, 7:] = (changed[:, 7:] + 1) % len(text.VOCABULARY)
    with torch.no_grad():
        before, after = model(TOKENS), model(changed)
    torch.testing.assert_close(before[:, :7], after[:, :7])
    assert not torch.allclose(before[:, 7:], after[:, 7:])


@pytest.mark.parametrize(
    ("method", "table"),
    [("learned", "LearnedPositionalEmbedding"), ("sinusoidal", "Positional")],
)
def test_an_absolute_table_enters_once_and_the_layers_add_none(method, table):
    model = build(method)
    assert type(model.positions).__name__.startswith(table)
    for block in model.blocks:
        assert type(block.attention) is relative_family.NoPositions


def test_relative_methods_act_in_every_layer_and_add_no_table():
    model = build("ALiBi")
    assert model.positions is None
    assert all(
        isinstance(block.attention, relative_family.ALiBi)
        for block in model.blocks
    )


def test_t5_layers_share_one_bias_table():
    model = build("T5 bias", max_distance=16)
    first, second = (block.attention.bias for block in model.blocks)
    assert first is second
    assert model.blocks[0].attention.max_distance == 16


def test_p_rope_leaves_the_slowest_pairs_unrotated():
    model = build("p-RoPE", keep=2 / 3)  # 2 of a head's 3 pairs rotate
    rope = build("RoPE")
    omega = model.blocks[0].attention.omega
    assert omega[2] == 0
    torch.testing.assert_close(omega[:2], rope.blocks[0].attention.omega[:2])


def test_attention_weights_of_every_block_after_an_unfused_call():
    model = build("RoPE").fuse_attention(False)
    model(TOKENS)
    weights = model.attention_weights()
    assert [w.shape for w in weights] == [(2, 4, 12, 12)] * 2
    assert torch.triu(weights[0][0, 0], diagonal=1).abs().max() == 0


FUSABLE = [m for m in decoder.METHODS if m != "Shaw et al."]


@pytest.mark.parametrize("method", FUSABLE)
def test_fused_attention_gives_the_unfused_logits(method):
    model = build(method).eval()
    with torch.no_grad():
        fused = model.fuse_attention(True)(TOKENS)
        unfused = model.fuse_attention(False)(TOKENS)
    torch.testing.assert_close(fused, unfused, atol=1e-5, rtol=1e-5)


def test_a_method_that_adds_to_the_values_never_fuses():
    model = build("Shaw et al.").fuse_attention(True)
    assert not any(block.attention.fused for block in model.blocks)
    layer = model.blocks[0].attention
    with pytest.raises(ValueError, match="adds to the values"):
        layer.fused_attention(torch.randn(1, 5, 24))


def test_irope_leaves_every_nope_every_th_block_without_positions():
    model = decoder.Decoder("iRoPE", 24, 4, 6, nope_every=3)
    kinds = [type(block.attention).__name__ for block in model.blocks]
    assert kinds == ["RotaryEmbedding", "RotaryEmbedding", "NoPositions"] * 2


def test_neox_partial_rope_spreads_its_rotated_pairs_over_every_speed():
    layer = build("partial RoPE", share=0.5).blocks[0].attention  # 3 pairs
    omega = layer.omega  # a head of 6 columns: 3 pairs, 1 of them rotates
    assert omega[1:].abs().max() == 0
    torch.testing.assert_close(omega[:1], relative.frequencies(2))
    wide = decoder.Decoder("partial RoPE", 64, 4, 1, share=0.25)
    torch.testing.assert_close(
        wide.blocks[0].attention.omega[:2], relative.frequencies(4)
    )


def test_a_learned_table_starts_at_the_scale_of_the_token_embeddings():
    model = decoder.Decoder("learned", 64, 4, 1, max_len=512)
    table, tokens = model.positions.P, model.embedding.weight
    assert 0.9 < table.std().item() < 1.1
    assert 0.9 < tokens.std().item() < 1.1


def test_dropout_acts_in_training_only():
    model = build("NoPE", dropout=0.5)
    with torch.no_grad():
        model.eval()
        assert torch.equal(model(TOKENS), model(TOKENS))
        model.train()
        assert not torch.equal(model(TOKENS), model(TOKENS))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: build("rotary"),
            ValueError,
            r"method must be one of \('learned', 'sinusoidal', 'RoPE'",
        ),
        (
            lambda: decoder.Decoder("RoPE", 30, 4),
            ValueError,
            r"num_heads must divide num_hiddens=30; .* \[1, 2, 3, 5, 6",
        ),
        (
            lambda: build("learned", max_len=8)(TOKENS),
            ValueError,
            r"X has 12 positions but this encoding covers max_len=8",
        ),
        (
            lambda: build("NoPE")(TOKENS.float()),
            TypeError,
            r"tokens must hold integers",
        ),
        (
            lambda: build("NoPE")(TOKENS[:, :0]),
            ValueError,
            r"tokens must hold at least one token per row",
        ),
        (
            lambda: build("p-RoPE", keep=0.0),
            ValueError,
            r"keep must be a float in \(0, 1\], got 0.0",
        ),
        (
            lambda: decoder.Decoder("NoPE", 24, 4, num_layers=0),
            ValueError,
            r"num_layers must be an integer >= 1, got 0",
        ),
        (
            lambda: build("partial RoPE", share=1.5),
            ValueError,
            r"share must be a float in \(0, 1\], got 1.5",
        ),
        (
            lambda: build("iRoPE", nope_every=0),
            ValueError,
            r"nope_every must be an integer >= 1, got 0",
        ),
        (
            lambda: build("NoPE", dropout=1.5),
            ValueError,
            r"dropout must",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call()
