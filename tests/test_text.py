"""text: the corpus from the running Python, the fixed vocabulary, the
split into training and held-out parts."""

from __future__ import annotations

import pytest
import torch

from d2l_local import text


def test_vocabulary_is_newline_printable_ascii_and_one_stand_in():
    assert len(text.VOCABULARY) == 97
    assert len(set(text.VOCABULARY)) == 97
    assert text.VOCABULARY[0] == "\n" and text.VOCABULARY[-1] == text.OTHER


def test_encode_and_decode_are_inverse_inside_the_vocabulary():
    sample = 'def f(x):\n    return {"a": x ** 2}  # ~'
    assert text.decode(text.encode(sample)) == sample


def test_characters_outside_the_vocabulary_become_the_stand_in():
    tokens = text.encode("a\u2014b\tc")
    assert text.decode(tokens) == f"a{text.OTHER}b{text.OTHER}c"


def test_the_topics_are_the_running_pythons_documentation():
    from pydoc_data.topics import topics

    loaded = text.load_topics()
    assert len(loaded) == sum(map(len, topics.values()))
    assert loaded.startswith(topics[min(topics)])


def test_split_gives_disjoint_contiguous_parts_in_order():
    tokens = torch.arange(100)
    train, held = text.split(tokens, 0.1)
    assert train.tolist() == list(range(90))
    assert held.tolist() == list(range(90, 100))


def test_load_corpus_counts_and_splits_a_given_text():
    corpus = text.load_corpus("ab\u2014c" * 50, held_out=0.2)
    assert corpus.num_characters == 200 and corpus.num_outside == 50
    assert len(corpus.train) == 160 and len(corpus.held_out) == 40
    assert corpus.python == "given text"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: text.load_corpus(""), ValueError, "text must be a non-empty"),
        (lambda: text.encode(b"abc"), TypeError, "text must be a str"),
        (
            lambda: text.split(torch.arange(10), 1.5),
            ValueError,
            r"held_out must be a float in \(0, 1\), got 1.5",
        ),
        (
            lambda: text.split(torch.arange(3), 0.5),
            ValueError,
            "at least 2 tokens",
        ),
        (
            lambda: text.decode(torch.tensor([0, 97])),
            ValueError,
            r"tokens must lie in \[0, 96\]",
        ),
    ],
)
def test_bad_input_names_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call()
