import math

import pytest
import torch

import d2l_local as d2l


def test_frequencies_follow_the_formula():
    w = d2l.frequencies(8)
    assert w.tolist() == pytest.approx(
        [1 / 10000 ** (2 * j / 8) for j in range(4)], rel=1e-15
    )
    # the lone last column has a frequency too
    assert len(d2l.frequencies(7)) == 4


def test_rotation_matrix_is_block_diagonal_and_orthogonal():
    M = d2l.rotation_matrix(3, 6)
    torch.testing.assert_close(M @ M.T, torch.eye(6, dtype=torch.float64))
    angle = 3 * d2l.frequencies(6)[1].item()
    expected = torch.tensor(
        [
            [math.cos(angle), math.sin(angle)],
            [-math.sin(angle), math.cos(angle)],
        ],
        dtype=torch.float64,
    )
    torch.testing.assert_close(M[2:4, 2:4], expected)
    assert torch.all(M[:2, 2:] == 0) and torch.all(M[2:, :2] == 0)
    torch.testing.assert_close(
        d2l.rotation_matrix(2, 6) @ d2l.rotation_matrix(3, 6),
        d2l.rotation_matrix(5, 6),
    )


@pytest.mark.parametrize("delta", [-7, -1, 0, 1, 5, 19])
def test_shift_identity_holds_in_float64(delta):
    P = d2l.sinusoidal_encoding(20, 16, dtype=torch.float64)
    assert d2l.shift_error(P, delta) < 1e-13


def test_shift_error_detects_a_wrong_table():
    P = d2l.sinusoidal_encoding(20, 16, dtype=torch.float64)
    P[7, 3] += 0.01
    assert d2l.shift_error(P, 1) == pytest.approx(0.01, abs=1e-3)


def test_rope_scores_depend_only_on_the_offset():
    torch.manual_seed(0)
    q, k = (
        torch.randn(8, dtype=torch.float64),
        torch.randn(8, dtype=torch.float64),
    )
    scores = d2l.rope(q.expand(12, 8)) @ d2l.rope(k.expand(12, 8)).T
    for offset in range(-11, 12):
        diagonal = scores.diagonal(offset)
        assert (diagonal.max() - diagonal.min()).item() < 1e-12
    assert (scores.diagonal(0)[0] - scores.diagonal(3)[0]).abs() > 1e-3


def test_rope_keeps_norms_and_accepts_positions():
    X = torch.randn(2, 5, 6)
    torch.testing.assert_close(d2l.rope(X).norm(dim=-1), X.norm(dim=-1))
    torch.testing.assert_close(d2l.rope(X, torch.zeros(5)), X)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: d2l.rotation_matrix(1, 7),
            ValueError,
            r"num_hiddens must be even so that columns form \(sin, cos\) "
            r"pairs, got 7",
        ),
        (
            lambda: d2l.rotation_matrix(1, 0),
            ValueError,
            "num_hiddens must be an integer >= 1, got 0",
        ),
        (
            lambda: d2l.rotation_matrix("1", 4),
            TypeError,
            "delta must be a number",
        ),
        (
            lambda: d2l.shift_error(torch.zeros(10, 4), 10),
            ValueError,
            r"delta must lie in \[-9, 9\] for a table of max_len=10 rows, "
            r"got 10",
        ),
        (
            lambda: d2l.shift_error(torch.zeros(10, 4), 1.5),
            TypeError,
            "delta must be an integer",
        ),
        (
            lambda: d2l.rope(torch.zeros(1, 4, 5)),
            ValueError,
            "num_hiddens must be even",
        ),
        (
            lambda: d2l.rope(torch.zeros(1, 4, 6), torch.arange(3)),
            ValueError,
            r"positions must have shape \(n,\)=\(4,\), got \(3,\)",
        ),
        (
            lambda: d2l.rope(torch.zeros(4, 6, dtype=torch.long)),
            TypeError,
            "floating-point",
        ),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_frequencies_take_a_base_above_one():
    w = d2l.frequencies(8, base=100.0)
    torch.testing.assert_close(
        w, 100.0 ** -(torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    )
    P = d2l.sinusoidal_encoding(5, 8, torch.float64, base=100.0)
    torch.testing.assert_close(P[3, 2], torch.sin(3 * w[1]))
    with pytest.raises(ValueError, match="base must be a number > 1"):
        d2l.frequencies(8, base=1)


def test_the_half_layout_is_the_adjacent_one_with_columns_reordered():
    X = torch.randn(3, 7, 12, dtype=torch.float64)
    order = d2l.halves_order(12)
    assert order.tolist() == [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]
    torch.testing.assert_close(
        d2l.rope(X[..., order], layout="half"), d2l.rope(X)[..., order]
    )
    assert not torch.allclose(d2l.rope(X, layout="half"), d2l.rope(X))


def test_rope_takes_its_angles_per_position_from_omega():
    X = torch.randn(5, 8, dtype=torch.float64)
    omega = d2l.frequencies(8)
    torch.testing.assert_close(d2l.rope(X, omega=omega), d2l.rope(X))
    torch.testing.assert_close(d2l.rope(X, omega=torch.zeros(4)), X)
    torch.testing.assert_close(
        d2l.rope(X, omega=omega / 2),
        d2l.rope(X, positions=torch.arange(5) / 2),
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: d2l.rope(torch.zeros(4, 6), layout="rotate-half"),
            r"layout must be 'adjacent' or 'half', got 'rotate-half'",
        ),
        (
            lambda: d2l.rope(torch.zeros(4, 6), omega=torch.ones(2)),
            r"omega must hold one angle per column pair, shape \(3,\)",
        ),
        (
            lambda: d2l.halves_order(5),
            r"num_hiddens must be even",
        ),
    ],
)
def test_bad_rope_options_name_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("width", [2, 8, 32])
def test_halves_order_puts_first_columns_then_second_columns(width):
    order = d2l.halves_order(width).tolist()
    assert order == list(range(0, width, 2)) + list(range(1, width, 2))


@pytest.mark.parametrize("shape", [(6, 8), (2, 6, 8), (2, 3, 6, 16)])
def test_rope_in_the_half_layout_is_rope_with_the_columns_reordered(shape):
    torch.manual_seed(0)
    X = torch.randn(*shape, dtype=torch.float64)
    order = d2l.halves_order(shape[-1])
    positions = torch.arange(3, 3 + shape[-2])
    assert torch.equal(
        d2l.rope(X[..., order], positions, layout="half"),
        d2l.rope(X, positions)[..., order],
    )


def test_rope_in_the_half_layout_pairs_column_l_with_column_l_plus_half():
    # One nonzero column l: it turns into columns l and l + d/2 only.
    X = torch.zeros(4, 8, dtype=torch.float64)
    X[:, 1] = 1.0
    turned = d2l.rope(X, layout="half")
    angles = torch.arange(4) * d2l.frequencies(8)[1]
    torch.testing.assert_close(turned[:, 1], torch.cos(angles).double())
    torch.testing.assert_close(turned[:, 5], torch.sin(angles).double())
    assert turned[:, [0, 2, 3, 4, 6, 7]].abs().max() == 0


def test_the_two_rope_layouts_mixed_are_not_relative():
    # A query in one layout and a key in the other: their score depends on
    # where the pair stands, not only on the offset.
    torch.manual_seed(1)
    q, k = torch.randn(2, 16, dtype=torch.float64)
    n = 12
    scores = (
        d2l.rope(q.expand(n, 16)) @ d2l.rope(k.expand(n, 16), layout="half").T
    )
    spread = max(
        (scores.diagonal(o).max() - scores.diagonal(o).min()).item()
        for o in range(-n + 2, n - 1)
    )
    assert spread > 0.1
