"""pretraining: the schedule, training, storing and scoring of the small
language models (the shipped checkpoints are tested in
test_trained_models.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from d2l_local import pretraining, text

TINY = replace(
    pretraining.MAIN,
    name="tiny",
    num_hiddens=16,
    num_heads=2,
    num_layers=1,
    num_steps=20,
    warmup=4,
    log_every=10,
    batch_size=8,
)


@pytest.fixture(scope="module")
def corpus():
    return text.load_corpus()


def test_the_learning_rate_warms_up_then_decays_by_a_cosine():
    rates = [pretraining.learning_rate(TINY, s) for s in range(TINY.num_steps)]
    assert rates[: TINY.warmup] == pytest.approx(
        [TINY.lr * (k + 1) / TINY.warmup for k in range(TINY.warmup)]
    )
    after = rates[TINY.warmup - 1 :]
    assert all(a >= b for a, b in zip(after, after[1:]))
    assert rates[-1] > TINY.final_lr_share * TINY.lr
    end = pretraining.learning_rate(TINY, TINY.num_steps)
    assert end == pytest.approx(TINY.final_lr_share * TINY.lr)


def test_the_same_seed_gives_the_same_weights(corpus):
    runs = [pretraining.train_model(TINY, "RoPE", 3, corpus) for _ in "ab"]
    (first, log1), (second, log2) = runs
    for (name, a), b in zip(
        first.state_dict().items(), second.state_dict().values()
    ):
        assert torch.equal(a, b), name
    assert log1["curves"] == log2["curves"]
    other, _ = pretraining.train_model(TINY, "RoPE", 4, corpus)
    assert not torch.equal(
        first.output.weight, other.output.weight
    )  # another seed, other weights


def test_the_curves_are_logged_every_log_every_steps(corpus):
    _, log = pretraining.train_model(TINY, "ALiBi", 0, corpus)
    curves = log["curves"]
    assert curves["step"] == [10, 20]
    assert len(curves["train"]) == len(curves["held_out"]) == 2
    assert all(2 < b < 8 for b in curves["train"] + curves["held_out"])


@pytest.mark.parametrize("method", pretraining.METHODS)
def test_stored_weights_round_each_entry_by_at_most_half_a_step(method):
    model = pretraining.make_model(TINY, method, 0)
    stored = pretraining.quantize(model)
    restored = pretraining.make_model(TINY, method, 1)
    pretraining._load_weights(restored, stored)
    for name, value in model.state_dict().items():
        error = (restored.state_dict()[name] - value).abs()
        if name + ".q" in stored:
            step = stored[name + ".scale"].max()
            assert error.max() <= step / 2 + 1e-7, name
        elif name in stored:
            assert error.max() == 0, name


def test_t5s_shared_table_is_stored_once_and_fills_every_layer():
    config = replace(TINY, num_layers=3)
    model = pretraining.make_model(config, "T5 bias", 0)
    stored = pretraining.quantize(model)
    assert [k for k in stored if "bias.weight" in k and "attention" in k] == [
        "blocks.0.attention.bias.weight"
    ]
    restored = pretraining.make_model(config, "T5 bias", 1)
    pretraining._load_weights(restored, stored)
    for block in restored.blocks:
        assert torch.equal(
            block.attention.bias.weight, model.blocks[0].attention.bias.weight
        )


def test_a_checkpoint_that_does_not_fit_is_refused():
    stored = pretraining.quantize(pretraining.make_model(TINY, "NoPE", 0))
    wider = replace(TINY, num_layers=2)
    with pytest.raises(ValueError, match="checkpoint does not fit"):
        pretraining._load_weights(
            pretraining.make_model(wider, "NoPE", 0), stored
        )


def test_every_mode_scores_the_same_characters(corpus):
    model = pretraining.make_model(TINY, "NoPE", 0)
    scores = pretraining.evaluate(model, corpus.held_out, 8)
    longest = 8 * 8
    assert scores["scored"] % longest == 0
    assert scores["scored"] > len(corpus.held_out) - 2 * longest - 1
    assert len(scores["positions"]) == longest
    assert sorted(scores["non-overlapping"]) == [8, 16, 32, 64]
    assert sorted(scores["sliding"]) == [16, 32, 64]


def test_a_learned_table_is_scored_at_l_only(corpus):
    model = pretraining.make_model(TINY, "learned", 0)
    scores = pretraining.evaluate(model, corpus.held_out, TINY.train_len)
    assert list(scores["non-overlapping"]) == [TINY.train_len]
    assert scores["sliding"] == {} and scores["positions"] is None


def test_the_code_hash_changes_with_a_config(monkeypatch):
    before = pretraining.code_hash()
    assert pretraining.code_hash() == before
    changed = dict(pretraining.CONFIGS)
    changed["main"] = replace(changed["main"], lr=1e-3)
    monkeypatch.setattr(pretraining, "CONFIGS", changed)
    assert pretraining.code_hash() != before


def test_a_missing_checkpoint_says_to_run_make_models():
    with pytest.raises(FileNotFoundError, match="run `make models`"):
        pretraining.load("main", "RoPE", 99)


def test_the_code_hash_reads_code_but_not_docstrings():
    source = (
        'class C:\n    """Doc."""\n\n    def f(self, x):\n'
        '        """More doc,\n        on two lines."""\n'
        "        return x + 1\n"
    )
    bare = pretraining._without_docstrings(source)
    assert "Doc" not in bare and "return x + 1" in bare
    reworded = source.replace("Doc.", "Other words.")
    assert pretraining._without_docstrings(reworded) == bare
    changed = source.replace("x + 1", "x + 2")
    assert pretraining._without_docstrings(changed) != bare
