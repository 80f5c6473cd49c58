import math
import time

import pytest
import torch

from d2l_local import costs


@pytest.mark.parametrize(
    "architecture", costs.ARCHITECTURES + costs.GATED_RNNS
)
@pytest.mark.parametrize(
    "n, d, k", [(1, 1, 1), (7, 5, 3), (33, 12, 5), (64, 64, 7)]
)
def test_formula_matches_pytorchs_flop_counter(architecture, n, d, k):
    layer = costs.make_layer(architecture, d, k)
    counted = costs.count_multiply_adds(layer, torch.randn(2, n, d))
    # a batch of two doubles the count
    assert counted == 2 * costs.multiply_adds(architecture, n, d, k)


@pytest.mark.parametrize(
    "architecture", costs.ARCHITECTURES + costs.GATED_RNNS
)
def test_layers_keep_the_sequence_shape(architecture):
    assert costs.make_layer(architecture, 6, 3)(
        torch.randn(2, 9, 6)
    ).shape == (2, 9, 6)


def test_rnn_and_attention_costs_cross_at_n_equals_d():
    d = 48
    assert costs.multiply_adds("self-attention", d, d) == costs.multiply_adds(
        "rnn", d, d
    )
    assert costs.multiply_adds(
        "self-attention", d - 1, d
    ) < costs.multiply_adds("rnn", d - 1, d)
    assert costs.multiply_adds(
        "self-attention", d + 1, d
    ) > costs.multiply_adds("rnn", d + 1, d)


@pytest.mark.parametrize("n", [1, 2, 10, 100, 1000])
@pytest.mark.parametrize("d", [1, 8, 64])
def test_a_layer_with_projections_costs_more_than_a_tanh_rnn_at_every_length(
    n, d
):
    assert costs.multiply_adds("attention-layer", n, d) > costs.multiply_adds(
        "rnn", n, d
    )


@pytest.mark.parametrize("d", [1, 8, 64, 256])
def test_a_layer_with_projections_is_cheaper_than_an_lstm_while_n_below_2d(d):
    cheaper = [
        n
        for n in range(1, 4 * d + 1)
        if costs.multiply_adds("attention-layer", n, d)
        < costs.multiply_adds("lstm", n, d)
    ]
    assert cheaper == list(range(1, 2 * d))


def test_gated_layers_count_their_gates():
    n, d = 10, 8
    rnn = costs.multiply_adds("rnn", n, d)
    assert costs.multiply_adds("gru", n, d) == 3 * rnn
    assert costs.multiply_adds("lstm", n, d) == 4 * rnn


@pytest.mark.parametrize("n", [2, 3, 10, 25])
@pytest.mark.parametrize("k", [3, 5, 7])
def test_cnn_joins_the_first_and_last_inputs_in_half_the_layers_of_its_path(
    n, k
):
    assert costs.joining_depth("cnn", n, k=k) == math.ceil((n - 1) / (k - 1))


@pytest.mark.parametrize("n", [2, 3, 10, 25])
@pytest.mark.parametrize("k", [3, 5, 7])
def test_cnn_path_length(n, k):
    assert costs.path_length("cnn", n, k=k) == math.ceil(2 * (n - 1) / (k - 1))


@pytest.mark.parametrize("n", [1, 2, 9, 30])
def test_rnn_and_attention_path_lengths(n):
    assert costs.path_length("rnn", n) == n
    assert costs.joining_depth("rnn", n) == n
    assert costs.path_length("lstm", n) == n
    for attention in ("self-attention", "attention-layer"):
        assert costs.path_length(attention, n) == 1
        assert costs.joining_depth(attention, n) == 1


def test_time_layer_returns_a_positive_time():
    assert (
        costs.time_layer(
            costs.make_layer("cnn", 4), torch.randn(1, 8, 4), repeats=3
        )
        > 0
    )


def test_time_layer_counts_the_cpu_time_of_one_thread_not_waiting():
    seen = []

    def waits(X):
        seen.append(torch.get_num_threads())
        time.sleep(0.05)
        return X

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        # wall time would be at least 0.05 s; the thread's CPU time is not
        assert costs.time_layer(waits, torch.ones(1, 2, 2), repeats=2) < 0.01
        assert seen == [1, 1, 1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: costs.make_layer("transformer", 4),
            ValueError,
            r"architecture must be one of \('cnn', 'rnn', 'self-attention', "
            r"'attention-layer', 'gru', 'lstm'\), got 'transformer'",
        ),
        (
            lambda: costs.joining_depth("cnn", 0),
            ValueError,
            "n must be an integer >= 1, got 0",
        ),
        (lambda: costs.make_layer("cnn", 4, k=4), ValueError, "k must be odd"),
        (
            lambda: costs.multiply_adds("rnn", 0, 4),
            ValueError,
            "n must be an integer >= 1, got 0",
        ),
        (
            lambda: costs.multiply_adds("rnn", 4, -1),
            ValueError,
            "d must be an integer >= 1, got -1",
        ),
        (
            lambda: costs.path_length("cnn", 0),
            ValueError,
            "n must be an integer >= 1, got 0",
        ),
        (
            lambda: costs.time_layer(
                costs.make_layer("rnn", 2), torch.ones(1, 2, 2), repeats=0
            ),
            ValueError,
            "repeats must be an integer >= 1",
        ),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
