"""ngram: interpolated Witten-Bell and Kneser-Ney models of characters."""

from __future__ import annotations

import math
import random

import pytest

from d2l_local import ngram

random.seed(0)
TOKENS = [random.choice([0, 1, 2, 3, 1, 1, 2]) for _ in range(3000)]


@pytest.mark.parametrize("smoothing", ngram.SMOOTHINGS)
@pytest.mark.parametrize("order", [1, 2, 4])
def test_every_context_gives_a_distribution(smoothing, order):
    model = ngram.NGram(TOKENS, order, 6, smoothing)  # 4 and 5 never occur
    for context in ([], [1], [3, 2, 1], [5, 5, 5], [0, 1, 2, 3, 0]):
        probabilities = [model.probability(context, t) for t in range(6)]
        assert math.isclose(sum(probabilities), 1.0, abs_tol=1e-12)
        assert min(probabilities) > 0


@pytest.mark.parametrize("smoothing", ngram.SMOOTHINGS)
def test_a_longer_context_predicts_a_pattern_that_a_shorter_cannot(smoothing):
    pattern = [0, 0, 1, 1] * 500  # after (0, 0) comes 1, after (0, 1) 1 ...
    short = ngram.NGram(pattern, 2, 4, smoothing)
    long = ngram.NGram(pattern, 3, 4, smoothing)
    assert short.bits(pattern, 10, 400) > 0.9  # one bit: 0 or 1
    assert long.bits(pattern, 10, 400) < 0.05


def test_kneser_ney_lower_orders_count_the_contexts_a_token_follows():
    # "b" follows only "a", many times; "c" follows three different tokens
    # once each: Kneser-Ney's unigram ranks "c" above "b", counts do not.
    tokens = [0, 1] * 20 + [2, 3, 3, 4, 2, 3, 4, 3]
    model = ngram.NGram(tokens, 2, 5, "Kneser-Ney")
    assert model.counts[0][(1,)] == 1 and model.counts[0][(3,)] == 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ngram.NGram(TOKENS, 2, 6, "Good-Turing"), "smoothing must"),
        (lambda: ngram.NGram([1, 2], 3, 6), "at least order=3 tokens"),
        (lambda: ngram.NGram(TOKENS, 0, 6), "order must be an integer"),
        (
            lambda: ngram.NGram(TOKENS, 2, 6).bits(TOKENS, 0, 10),
            r"0 < start < stop <= 3000, got 0 and 10",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()
