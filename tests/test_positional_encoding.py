import math

import pytest
import torch

import d2l_local as d2l


def _formula(i: int, column: int, width: int) -> float:
    """p_{i,2j} = sin(i / 10000^(2j/d)), p_{i,2j+1} = cos(i / 10000^(2j/d))."""
    angle = i / 10000 ** (2 * (column // 2) / width)
    return math.sin(angle) if column % 2 == 0 else math.cos(angle)


@pytest.mark.parametrize("width", [1, 2, 5, 7, 32, 33])
def test_table_matches_the_formula_for_even_and_odd_widths(width):
    P = d2l.sinusoidal_encoding(60, width, dtype=torch.float64)
    expected = torch.tensor(
        [[_formula(i, c, width) for c in range(width)] for i in range(60)],
        dtype=torch.float64,
    )
    torch.testing.assert_close(P, expected, rtol=0, atol=1e-12)


def test_module_adds_P_and_slices_it_to_the_input_length():
    encoding = d2l.PositionalEncoding(7, dropout=0.0, max_len=50)
    X = torch.randn(3, 10, 7)
    torch.testing.assert_close(
        encoding(X), X + d2l.sinusoidal_encoding(10, 7)[None]
    )
    assert encoding.P.shape == (1, 50, 7)
    assert encoding.P.abs().max() <= 1


def test_P_is_a_non_persistent_buffer_that_moves_with_the_module():
    encoding = d2l.PositionalEncoding(8, dropout=0.0)
    assert "P" in dict(encoding.named_buffers())
    assert "P" not in encoding.state_dict()
    assert encoding.to(torch.float64).P.dtype == torch.float64
    assert encoding.to("meta").P.device.type == "meta"


def test_full_length_sequence_is_accepted():
    encoding = d2l.PositionalEncoding(4, dropout=0.0, max_len=6)
    assert encoding(torch.zeros(1, 6, 4)).shape == (1, 6, 4)


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((0, 0.0), ValueError, "num_hiddens must be an integer >= 1, got 0"),
        ((-3, 0.0), ValueError, "num_hiddens must be an integer >= 1, got -3"),
        ((8.5, 0.0), TypeError, "num_hiddens must be an integer >= 1"),
        ((8, 0.0, 0), ValueError, "max_len must be an integer >= 1, got 0"),
        ((8, 1.0), ValueError, r"dropout must be in \[0, 1\)"),
    ],
)
def test_bad_configuration_names_the_parameter(args, error, message):
    with pytest.raises(error, match=message):
        d2l.PositionalEncoding(*args)


@pytest.mark.parametrize(
    "X, error, message",
    [
        (
            torch.zeros(1, 11, 4),
            ValueError,
            r"X has 11 positions but this encoding covers max_len=10; "
            r"the sequence length must lie in \[0, 10\]",
        ),
        (
            torch.zeros(1, 5, 6),
            ValueError,
            r"X must have last dimension num_hiddens=4, got shape \(1, 5, 6\)",
        ),
        (
            torch.zeros(5, 4),
            ValueError,
            r"X must have 3 dimensions, got shape \(5, 4\)",
        ),
        (
            torch.zeros(1, 5, 4, dtype=torch.long),
            TypeError,
            "X must have a floating-point dtype",
        ),
    ],
)
def test_bad_input_names_the_parameter(X, error, message):
    encoding = d2l.PositionalEncoding(4, dropout=0.0, max_len=10)
    with pytest.raises(error, match=message):
        encoding(X)


@pytest.mark.parametrize("width", [2, 8, 32])
def test_sines_then_cosines_is_the_table_with_its_columns_reordered(width):
    for dtype in (torch.float32, torch.float64):
        assert torch.equal(
            d2l.sines_then_cosines(40, width, dtype),
            d2l.sinusoidal_encoding(40, width, dtype)[
                :, d2l.halves_order(width)
            ],
        )


def test_sines_then_cosines_puts_every_sine_first():
    table = d2l.sines_then_cosines(10, 6, torch.float64)
    angles = torch.arange(10, dtype=torch.float64)[:, None] * (
        d2l.frequencies(6)
    )
    torch.testing.assert_close(table[:, :3], torch.sin(angles))
    torch.testing.assert_close(table[:, 3:], torch.cos(angles))
