"""One table of bad inputs across d2l_local's public functions and the control
API: each raises an error that names the parameter and what would be valid,
and none leaves a figure half drawn."""

from __future__ import annotations

import pytest
import torch
from matplotlib import pyplot as plt

import d2l_local as d2l
from d2l_local import diagrams


def heads_figure(num_heads):
    """A control's draw function that builds a layer, as page 1 does."""
    plt.figure()
    d2l.MultiHeadAttention(12, num_heads, dropout=0.0)


PROOF = d2l.Proof("check", "the check")


def x(*shape, dtype=torch.float32):
    return torch.zeros(*shape, dtype=dtype)


BAD_INPUTS = {
    "zero width": (
        lambda: d2l.PositionalEncoding(0, 0.1),
        ValueError,
        r"num_hiddens must be an integer >= 1, got 0",
    ),
    "negative width": (
        lambda: d2l.LearnedPositionalEmbedding(-3, 0.1),
        ValueError,
        r"num_hiddens must be an integer >= 1, got -3",
    ),
    "zero positions": (
        lambda: d2l.sinusoidal_encoding(0, 8),
        ValueError,
        r"max_len must be an integer >= 1, got 0",
    ),
    "dropout out of range": (
        lambda: d2l.PositionalEncoding(8, 1.5),
        ValueError,
        r"dropout must be in \[0, 1\), got 1.5",
    ),
    "odd width for a rotation": (
        lambda: d2l.rotation_matrix(3, 7),
        ValueError,
        r"num_hiddens must be even .* got 7",
    ),
    "odd width for RoPE": (
        lambda: d2l.rope(x(4, 7), torch.arange(4)),
        ValueError,
        r"num_hiddens must be even .* got 7",
    ),
    "RoPE positions of the wrong length": (
        lambda: d2l.rope(x(4, 8), torch.arange(5)),
        ValueError,
        r"positions must have shape \(n,\)=\(4,\)",
    ),
    "RoPE attention of queries and keys of different lengths": (
        lambda: d2l.RotaryMultiHeadAttention(8, 2, 0.0)(
            x(1, 3, 8), x(1, 5, 8), x(1, 5, 8), None
        ),
        ValueError,
        r"queries and keys must be one sequence, got 3 queries and 5 keys",
    ),
    "zero heads": (
        lambda: d2l.MultiHeadAttention(12, 0, 0.0),
        ValueError,
        r"num_heads must be an integer >= 1, got 0",
    ),
    "negative heads": (
        lambda: d2l.MultiHeadAttention(12, -2, 0.0),
        ValueError,
        r"num_heads must be an integer >= 1, got -2",
    ),
    "odd width for rotate-half RoPE": (
        lambda: d2l.rope(x(4, 7), layout="half"),
        ValueError,
        r"num_hiddens must be even .* got 7",
    ),
    "odd width for the halves layout": (
        lambda: d2l.halves_order(5),
        ValueError,
        r"num_hiddens must be even .* got 5",
    ),
    "odd width for sines then cosines": (
        lambda: d2l.sines_then_cosines(10, 7),
        ValueError,
        r"num_hiddens must be even .* got 7",
    ),
    "self-check option of the wrong kind": (
        lambda: d2l.Question("Which?", ["a", "b"], PROOF),
        TypeError,
        r"options must be Option objects, got str",
    ),
    "self-check with two right options": (
        lambda: d2l.Question(
            "Which?",
            [d2l.Option("a", "yes", True), d2l.Option("b", "yes", True)],
            PROOF,
        ),
        ValueError,
        r"exactly one option must be correct, got 2",
    ),
    "self-check proof that is no id": (
        lambda: d2l.Proof("#check", "the check"),
        ValueError,
        r"anchor must be lower-case letters, digits and hyphens",
    ),
    "self-check number with a negative tolerance": (
        lambda: d2l.NumberQuestion("How many?", 4, -1, "yes", "no", PROOF),
        ValueError,
        r"tolerance must be >= 0, got -1",
    ),
    "self-check trap that is the right answer": (
        lambda: d2l.NumberQuestion(
            "How many?", 4, 0.5, "yes", "no", PROOF, traps=[(4.2, "no")]
        ),
        ValueError,
        r"a trap's value must lie outside the right answer's range "
        r"\[3.5, 4.5\], got 4.2",
    ),
    "self-check with no questions": (
        lambda: d2l.self_check("page"),
        ValueError,
        r"a self-check needs at least one question",
    ),
    "heads that do not divide the width": (
        lambda: d2l.MultiHeadAttention(12, 5, 0.0),
        ValueError,
        r"num_heads must divide num_hiddens=12; got num_heads=5, "
        r"valid values are \[1, 2, 3, 4, 6, 12\]",
    ),
    "sequence past max_len": (
        lambda: d2l.PositionalEncoding(8, 0.0, max_len=10)(x(1, 11, 8)),
        ValueError,
        r"X has 11 positions .* max_len=10",
    ),
    "learned table past max_len": (
        lambda: d2l.LearnedPositionalEmbedding(8, 0.0, max_len=4)(x(1, 5, 8)),
        ValueError,
        r"X has 5 positions .* max_len=4",
    ),
    "offset past the table": (
        lambda: d2l.shift_error(d2l.sinusoidal_encoding(10, 8), 10),
        ValueError,
        r"delta must lie in \[-9, 9\] .* got 10",
    ),
    "offset past the figure's positions": (
        lambda: diagrams.show_rotation(i=5, delta=60, j=1, num_hiddens=32),
        ValueError,
        r"i \+ delta must lie in \[0, 59\], got 65",
    ),
    "pair past the width": (
        lambda: diagrams.show_rotation(i=5, delta=3, j=16, num_hiddens=32),
        ValueError,
        r"j must lie in \[0, 15\] for num_hiddens=32, got 16",
    ),
    "query outside the tokens": (
        lambda: diagrams.show_self_attention(n=5, query=5),
        ValueError,
        r"query must lie in \[0, 4\], got 5",
    ),
    "a variant that is not a layer class": (
        lambda: diagrams.show_position_hooks({"x": int}),
        TypeError,
        r"variants must map names to PositionalSelfAttention subclasses, "
        r"got <class 'int'> for 'x'",
    ),
    "a sequence without a caption": (
        lambda: diagrams.show_sequences([[0, 1]], [], {0: "A"}),
        ValueError,
        r"sequences and captions must be non-empty and match: "
        r"1 sequences, 0 captions",
    ),
    "input of the wrong width": (
        lambda: d2l.PositionalEncoding(8, 0.0)(x(1, 5, 7)),
        ValueError,
        r"X must have last dimension num_hiddens=8",
    ),
    "input of the wrong rank": (
        lambda: d2l.PositionalEncoding(8, 0.0)(x(5, 8)),
        ValueError,
        r"X must have 3 dimensions, got shape \(5, 8\)",
    ),
    "integer input": (
        lambda: d2l.PositionalEncoding(8, 0.0)(x(1, 5, 8, dtype=torch.long)),
        TypeError,
        r"X must have a floating-point dtype, got torch.int64",
    ),
    "integer scores": (
        lambda: d2l.masked_softmax(x(2, 3, 4, dtype=torch.long), None),
        TypeError,
        r"X must have a floating-point dtype, got torch.int64",
    ),
    "valid_lens of the wrong batch": (
        lambda: d2l.MultiHeadAttention(12, 3, 0.0)(
            x(2, 4, 12), x(2, 4, 12), x(2, 4, 12), torch.tensor([1, 2, 3])
        ),
        ValueError,
        r"valid_lens must have shape \(batch_size,\)=\(2,\) .* got \(3,\)",
    ),
    "valid_lens past the keys": (
        lambda: d2l.masked_softmax(x(2, 3, 4), torch.tensor([5, 2])),
        ValueError,
        r"valid_lens entries must lie in \[0, num_keys\]",
    ),
    "queries of the wrong width": (
        lambda: d2l.MultiHeadAttention(12, 3, 0.0)(
            x(2, 4, 10), x(2, 4, 12), x(2, 4, 12), None
        ),
        ValueError,
        r"queries must have last dimension num_hiddens=12",
    ),
    "keys that do not match the queries": (
        lambda: d2l.DotProductAttention(0.0)(
            x(2, 3, 4), x(2, 5, 3), x(2, 5, 4)
        ),
        ValueError,
        r"keys must have last dimension query width=4",
    ),
    "heatmaps of the wrong rank": (
        lambda: d2l.show_heatmaps(x(2, 3, 3), "x", "y"),
        ValueError,
        r"matrices must have 4 dimensions",
    ),
    "control value not offered": (
        lambda: d2l.Choice("number of heads", [1, 2, 3], 5),
        ValueError,
        r"value of 'number of heads' must be one of options",
    ),
    "control with no options": (
        lambda: d2l.Choice("d", [], 8),
        ValueError,
        r"options of 'd' must offer at least one value",
    ),
    "control without a description of its figure": (
        lambda: d2l.choice_control(
            heads_figure, [1, 2], 1, "number of heads", alt=None, name="heads"
        ),
        TypeError,
        r"alt must be callable",
    ),
    "control offering heads that do not divide the width": (
        lambda: d2l.choice_control(
            heads_figure,
            [1, 2, 5],
            1,
            "number of heads",
            alt=lambda h: f"{h} heads",
            name="heads",
        ),
        ValueError,
        r"num_heads must divide num_hiddens=12; got num_heads=5",
    ),
}


def test_the_table_is_long_enough():
    assert len(BAD_INPUTS) >= 15


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_raises_a_clear_error_and_draws_nothing(case):
    call, error, message = BAD_INPUTS[case]
    with pytest.raises(error, match=message):
        call()
    assert plt.get_fignums() == [], "a figure was left half drawn"
