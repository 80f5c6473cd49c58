"""training: the seeded loop, accuracy, and several seeds trained at once."""

from __future__ import annotations

import pytest
import torch

from d2l_local import copy_task, relative_family, training

TOKENS, TARGETS = copy_task.make_copy_task(200, 8, 2)


def models(variant, seeds, **kwargs):
    return [copy_task.make_model(variant, seed, **kwargs) for seed in seeds]


@pytest.mark.parametrize(
    "variant",
    [relative_family.RotaryEmbedding, relative_family.ShawRelative],
)
def test_train_seeds_ends_where_train_ends_for_each_seed(variant):
    seeds = [0, 3, 7]
    alone = models(variant, seeds)
    for model, seed in zip(alone, seeds):
        training.train(
            model,
            TOKENS,
            TARGETS,
            num_steps=20,
            batch_size=8,
            lr=0.02,
            seed=seed,
        )
    together = models(variant, seeds)
    training.train_seeds(
        together, TOKENS, TARGETS, seeds, num_steps=20, batch_size=8, lr=0.02
    )
    for a, b in zip(alone, together):
        for (name, wa), (_, wb) in zip(
            a.state_dict().items(), b.state_dict().items()
        ):
            torch.testing.assert_close(wb, wa, rtol=1e-9, atol=1e-9, msg=name)
        assert training.accuracy(a, TOKENS, TARGETS) == training.accuracy(
            b, TOKENS, TARGETS
        )


def test_train_seeds_trains_every_model_apart():
    """Seeds that differ give weights that differ; a model's result does not
    depend on the models trained beside it."""
    variant = relative_family.AbsoluteSinusoidal
    pair = models(variant, [0, 1])
    training.train_seeds(pair, TOKENS, TARGETS, [0, 1], num_steps=5)
    single = models(variant, [1])
    training.train_seeds(single, TOKENS, TARGETS, [1], num_steps=5)
    first, second = (m.output.weight for m in pair)
    assert not torch.allclose(first, second)
    torch.testing.assert_close(second, single[0].output.weight)


@pytest.mark.parametrize(
    "models_, seeds, error, message",
    [
        ([], [], ValueError, "models must be a non-empty list"),
        ([torch.zeros(2)], [0], TypeError, "models must hold torch modules"),
        ("model", [0], ValueError, "models must be a non-empty list"),
        (
            models(relative_family.NoPositions, [0, 1]),
            [0],
            ValueError,
            "one seed for each of the 2 models",
        ),
        (
            models(relative_family.NoPositions, [0]),
            [0.5],
            TypeError,
            "seeds must be integers",
        ),
        (
            models(relative_family.NoPositions, [0])
            + models(relative_family.ShawRelative, [0]),
            [0, 1],
            ValueError,
            "models must share one architecture",
        ),
        (
            models(relative_family.NoPositions, [0])
            + models(relative_family.NoPositions, [0], num_hiddens=16),
            [0, 1],
            ValueError,
            "models must share one architecture",
        ),
    ],
)
def test_train_seeds_rejects_bad_input(models_, seeds, error, message):
    with pytest.raises(error, match=message):
        training.train_seeds(models_, TOKENS, TARGETS, seeds, num_steps=1)


@pytest.mark.parametrize("method", ["T5 bias", "sinusoidal", "RoPE"])
def test_train_seeds_handles_shared_weights_and_fixed_tables(method):
    """T5's layers share one bias table; the sinusoidal table and RoPE's
    angles are buffers left out of the state dict. In float64, so that
    the rounding noise in gradients that are zero (the key bias) stays far
    below Adam's epsilon."""
    from d2l_local import decoder, language_model

    tokens = torch.randint(0, 97, (300,), generator=torch.Generator())
    inputs, targets = language_model.training_windows(tokens, 8)

    def build(seed):
        torch.manual_seed(seed)
        return decoder.Decoder(method, 16, 2, 2).double()

    seeds = [0, 1]
    alone = [build(seed) for seed in seeds]
    for model, seed in zip(alone, seeds):
        training.train(
            model, inputs, targets, num_steps=5, batch_size=4, seed=seed
        )
    together = [build(seed) for seed in seeds]
    training.train_seeds(
        together, inputs, targets, seeds, num_steps=5, batch_size=4
    )
    for a, b in zip(alone, together):
        for (name, wa), (_, wb) in zip(
            a.state_dict().items(), b.state_dict().items()
        ):
            torch.testing.assert_close(wa, wb, atol=1e-5, rtol=1e-4, msg=name)
    if method == "T5 bias":
        first, second = (block.attention.bias for block in together[0].blocks)
        assert first is second
