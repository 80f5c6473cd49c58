import pytest
import torch

from d2l_local import copy_task, training
from d2l_local import relative_family as family


def test_targets_are_the_tokens_delta_back():
    tokens, targets = copy_task.make_copy_task(50, 10, 3, vocab_size=7)
    assert tokens.shape == targets.shape == (50, 10)
    assert (targets[:, :3] == training.IGNORE).all()
    assert torch.equal(targets[:, 3:], tokens[:, :-3])
    assert tokens.max() < 7
    again = copy_task.make_copy_task(50, 10, 3, vocab_size=7)[0]
    assert torch.equal(tokens, again)


def test_make_model_draws_float64_weights_from_its_seed():
    first = copy_task.make_model(family.RotaryEmbedding, 4)
    second = copy_task.make_model(family.RotaryEmbedding, 4)
    assert torch.get_default_dtype() == torch.float32
    for a, b in zip(first.parameters(), second.parameters()):
        assert a.dtype == torch.float64 and torch.equal(a, b)


def test_a_relative_head_learns_the_task_and_training_repeats_exactly():
    tokens, targets = copy_task.make_copy_task(1000, 12, 2)
    runs = []
    for _ in range(2):
        model = copy_task.make_model(family.ShawRelative, 0)
        log = training.train(
            model, tokens, targets, num_steps=120, batch_size=32, lr=0.02
        )
        runs.append((log.losses, training.accuracy(model, tokens, targets)))
    assert runs[0] == runs[1]
    assert runs[0][1] > 0.95


def test_accuracy_leaves_out_ignored_targets():
    class Fixed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, tokens):
            return torch.nn.functional.one_hot(tokens, 4).double()

    tokens = torch.tensor([[0, 1, 2, 3]])
    targets = torch.tensor([[training.IGNORE, 1, 0, 3]])
    assert training.accuracy(Fixed(), tokens, targets) == pytest.approx(2 / 3)


def test_verdict_counts_the_seeds_at_the_level():
    assert copy_task.verdict([0.99, 1.0]) == "holds"
    assert copy_task.verdict([0.5, 0.9]) == "fails"
    assert copy_task.verdict([0.96, 0.9, 0.5]) == "1 of 3"
    assert copy_task.verdict([0.96, 0.9], level=0.9) == "holds"
    with pytest.raises(ValueError, match="at least one value"):
        copy_task.verdict([])


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: copy_task.make_copy_task(10, 5, 5), "delta must be below"),
        (lambda: copy_task.make_copy_task(10, 5, 0), "delta must be"),
        (
            lambda: copy_task.CopyModel(16, torch.nn.Linear(4, 4)),
            "attention must be a PositionalSelfAttention",
        ),
        (
            lambda: copy_task.make_model(family.ALiBi, 0)(torch.zeros(3)),
            "tokens must have 2 dimensions",
        ),
    ],
)
def test_bad_input_names_the_parameter(build, message):
    with pytest.raises((ValueError, TypeError), match=message):
        build()


def test_beyond_keeps_only_positions_training_never_reached():
    tokens, targets = copy_task.make_copy_task(4, 12, 2)
    kept = copy_task.beyond(targets, 8)
    assert (kept[:, :8] == training.IGNORE).all()
    assert torch.equal(kept[:, 8:], targets[:, 8:])
    assert (targets[:, 2:] != training.IGNORE).all()
    with pytest.raises(ValueError, match="num_steps must be below"):
        copy_task.beyond(targets, 12)
