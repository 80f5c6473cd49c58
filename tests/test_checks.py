import pytest
import torch

from d2l_local import check_shape, checks


def test_check_shape_accepts_the_right_shape():
    check_shape(torch.zeros(2, 3), (2, 3))


def test_check_shape_names_both_shapes():
    with pytest.raises(
        AssertionError, match=r"\(2, 3\) != expected shape \(3, 2\)"
    ):
        check_shape(torch.zeros(2, 3), (3, 2))


@pytest.mark.parametrize("value", [0, -4])
def test_positive_int_rejects_non_positive(value):
    with pytest.raises(
        ValueError, match=r"num_hiddens must be an integer >= 1, got"
    ):
        checks.positive_int("num_hiddens", value)


@pytest.mark.parametrize("value", [2.0, "8", True, None])
def test_positive_int_rejects_non_integers(value):
    with pytest.raises(TypeError, match="num_hiddens must be an integer >= 1"):
        checks.positive_int("num_hiddens", value)


@pytest.mark.parametrize("value", [-0.1, 1.0, 2])
def test_probability_range(value):
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        checks.probability("dropout", value)


def test_tensor_checks_type_and_dimensions():
    with pytest.raises(TypeError, match="X must be a torch.Tensor"):
        checks.tensor("X", [[1.0]], 2)
    with pytest.raises(
        ValueError, match=r"X must have 3 dimensions, got shape \(2, 2\)"
    ):
        checks.tensor("X", torch.zeros(2, 2), 3)
    assert checks.tensor("X", torch.zeros(2), (1, 2)).shape == (2,)


def test_floating_rejects_integer_tensors():
    with pytest.raises(
        TypeError, match="X must have a floating-point dtype, got torch.int64"
    ):
        checks.floating("X", torch.zeros(2, dtype=torch.long))


def test_even_int_names_the_parameter_and_the_reason():
    assert checks.even_int("num_hiddens", 8) == 8
    with pytest.raises(
        ValueError,
        match=(
            r"num_hiddens must be even so that columns form \(sin, cos\) "
            r"pairs, got 7"
        ),
    ):
        checks.even_int("num_hiddens", 7)
    with pytest.raises(
        ValueError, match="num_hiddens must be an integer >= 1, got 0"
    ):
        checks.even_int("num_hiddens", 0)
