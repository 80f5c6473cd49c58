import pytest
import torch

import d2l_local as d2l
from d2l_local import order_task


def test_task_has_one_A_and_one_B_and_labels_their_order():
    tokens, labels = order_task.make_order_task(500, 7, vocab_size=6, seed=3)
    assert tokens.shape == (500, 7) and labels.shape == (500,)
    assert torch.all((tokens == 0).sum(1) == 1) and torch.all(
        (tokens == 1).sum(1) == 1
    )
    first_a = (tokens == 0).int().argmax(1)
    first_b = (tokens == 1).int().argmax(1)
    assert torch.equal(labels, (first_a < first_b).long())
    assert 0.4 < labels.float().mean() < 0.6
    assert torch.equal(
        tokens, order_task.make_order_task(500, 7, vocab_size=6, seed=3)[0]
    )


def test_without_positions_both_orders_get_the_same_output():
    torch.manual_seed(0)
    model = order_task.OrderClassifier(10, 16, 2, "none").eval()
    tokens = torch.tensor([[0, 5, 1, 7], [1, 5, 0, 7]])
    with torch.no_grad():
        logits = model(tokens)
    torch.testing.assert_close(logits[0], logits[1])


def test_positions_make_the_task_learnable_and_training_is_deterministic():
    tokens, labels = order_task.make_order_task(1000, 6, seed=0)
    results = []
    for _ in range(2):
        torch.manual_seed(0)
        model = order_task.OrderClassifier(10, 16, 2, "sinusoidal")
        log = order_task.train_classifier(model, tokens, labels, num_steps=150)
        results.append(
            (log.losses, order_task.accuracy(model, tokens, labels))
        )
    assert results[0] == results[1]
    assert results[0][1] > 0.75
    assert results[0][0][-1] < results[0][0][0]


def test_learned_embedding_is_trainable_and_checks_length():
    table = d2l.LearnedPositionalEmbedding(8, dropout=0.0, max_len=5)
    assert sum(p.numel() for p in table.parameters()) == 40
    X = torch.zeros(2, 4, 8)
    torch.testing.assert_close(table(X), table.P[:, :4].expand(2, 4, 8))
    with pytest.raises(ValueError, match=r"X has 6 positions .* max_len=5"):
        table(torch.zeros(1, 6, 8))


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: order_task.make_order_task(10, 1),
            "num_steps must be at least 2",
        ),
        (
            lambda: order_task.make_order_task(10, 5, vocab_size=2),
            "vocab_size must be at least 3",
        ),
        (
            lambda: order_task.make_order_task(0, 5),
            "num_examples must be an integer >= 1, got 0",
        ),
        (
            lambda: order_task.OrderClassifier(10, 16, 2, "rotary"),
            r"positions must be one of \('none', 'sinusoidal', 'learned', "
            r"'rope', 'causal', 'rope_causal'\), got 'rotary'",
        ),
        (
            lambda: order_task.OrderClassifier(10, 12, 4, "rope"),
            "num_hiddens / num_heads must be even",
        ),
        (
            lambda: order_task.within(torch.zeros(3, 4, dtype=torch.long), 0),
            "num_positions must be an integer >= 1, got 0",
        ),
        (
            lambda: order_task.verdict([]),
            "accuracies must hold at least one value",
        ),
        (
            lambda: order_task.OrderClassifier(10, 16, 3, "none"),
            "num_heads must divide num_hiddens=16",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_mirror_swaps_a_and_b_and_flips_labels():
    tokens = torch.tensor([[0, 5, 1, 7], [4, 1, 9, 0]])
    mirrored, labels = order_task.mirror(tokens, torch.tensor([1, 0]))
    assert mirrored.tolist() == [
        [0, 5, 1, 7],
        [4, 1, 9, 0],
        [1, 5, 0, 7],
        [4, 0, 9, 1],
    ]
    assert labels.tolist() == [1, 0, 0, 1]


def test_within_finds_sequences_whose_a_and_b_are_in_the_first_positions():
    tokens = torch.tensor([[0, 1, 5, 5], [0, 5, 5, 1], [5, 5, 1, 0]])
    assert order_task.within(tokens, 2).tolist() == [True, False, False]
    assert order_task.within(tokens, 4).tolist() == [True, True, True]


@pytest.mark.parametrize("positions", ["rope", "causal"])
def test_rope_and_the_causal_mask_tell_the_two_orders_apart(positions):
    torch.manual_seed(0)
    model = order_task.OrderClassifier(10, 16, 2, positions).eval()
    with torch.no_grad():
        logits = model(torch.tensor([[0, 5, 1, 7], [1, 5, 0, 7]]))
    assert (logits[0] - logits[1]).abs().max() > 1e-3


def test_rope_variant_rotates_queries_and_keys_only():
    torch.manual_seed(0)
    model = order_task.OrderClassifier(10, 16, 2, "rope")
    assert isinstance(model.attention, d2l.RotaryMultiHeadAttention)
    assert isinstance(model.positions, torch.nn.Identity)
    # Every token the same: the weights differ by position, but unrotated
    # values make every output W_o W_v x, since the weights sum to 1.
    layer = model.attention.eval()
    X = torch.randn(1, 1, 16).expand(1, 5, 16)
    expected = layer.W_o(layer.W_v(X))
    torch.testing.assert_close(layer(X, X, X, None), expected)
    assert (layer.attention_weights - 0.2).abs().max() > 1e-3


@pytest.mark.parametrize(
    "accuracies, phrase",
    [
        ([1.0, 0.95, 0.99], "solved"),
        ([0.5, 0.35, 0.65], "near 0.5"),
        ([1.0, 0.5], "neither"),
        ([0.8, 0.9], "neither"),
    ],
)
def test_verdict_names_the_band_every_seed_lies_in(accuracies, phrase):
    assert order_task.verdict(accuracies).startswith(phrase)


def test_a_to_b_is_the_offset_of_b_from_a():
    tokens = torch.tensor([[0, 5, 1, 7], [4, 1, 9, 0], [1, 0, 5, 5]])
    assert order_task.a_to_b(tokens).tolist() == [2, -2, -1]


@pytest.mark.parametrize(
    "accuracies, phrase",
    [
        ([1.0, 0.95, 0.99], "solved"),
        ([0.5, 0.5], "exactly 0.5"),
        ([0.3, 0.49], "below 0.5"),
        ([0.51, 0.9], "above 0.5"),
        ([0.4, 0.6], "not on one side"),
        ([0.5, 0.6], "not on one side"),
        ([0.45, 0.5], "not on one side"),
    ],
)
def test_side_of_chance_holds_for_every_seed(accuracies, phrase):
    assert order_task.side_of_chance(accuracies).startswith(phrase)


def test_rope_causal_rotates_and_masks():
    """ "rope_causal" is RoPE's attention with the causal mask: changing a
    later token leaves the earlier positions' outputs alone, and the
    layer is the rotary one."""
    from d2l_local.relative import RotaryMultiHeadAttention

    torch.manual_seed(0)
    model = order_task.OrderClassifier(10, 16, 2, "rope_causal").eval()
    assert isinstance(model.attention, RotaryMultiHeadAttention)
    outputs = []
    model.mlp.register_forward_hook(
        lambda mlp, inputs, result: outputs.append(inputs[0] + result)
    )
    tokens = torch.tensor([[0, 1, 2, 3, 4, 5]])
    changed = tokens.clone()
    changed[0, -1] = 9
    with torch.no_grad():
        model(tokens), model(changed)
    assert torch.equal(outputs[0][:, :-1], outputs[1][:, :-1])
    assert not torch.equal(outputs[0][:, -1], outputs[1][:, -1])
