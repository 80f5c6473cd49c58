"""text: the corpus from the running Python, the fixed vocabulary, one copy
of repeated topics, the held-out topics."""

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

    assert text.load_topics() == topics


WORDS = [f"word{k:03d} " for k in range(200)]
LONG = "".join(WORDS)  # 1600 characters, no run of 40 repeated


def test_a_topic_inside_a_longer_one_is_dropped_and_the_longer_kept():
    topics = {"long": LONG, "part": LONG[400:900], "other": LONG[::-1]}
    kept, dropped = text.distinct_topics(topics)
    assert kept == ["long", "other"] and dropped == ["part"]


def test_a_topic_that_repeats_less_than_the_limit_is_kept():
    half = LONG[:300] + "x".join(WORDS[::-1])[:300]
    kept, dropped = text.distinct_topics({"long": LONG, "half": half})
    assert dropped == [] and kept == ["half", "long"]


def test_shared_runs_counts_the_runs_found_elsewhere():
    assert text.shared_runs(LONG[:200], [LONG]) == 1.0
    assert text.shared_runs(LONG[:200], [LONG[::-1]]) == 0.0


def test_the_held_out_topics_are_held_out_and_unchanged_here():
    corpus = text.load_corpus()
    assert corpus.held_out_topics == sorted(text.HELD_OUT_TOPICS)
    assert corpus.changed_topics == []
    assert not set(corpus.train_topics) & set(corpus.held_out_topics)
    assert not set(corpus.dropped_topics) & set(corpus.train_topics)


def test_almost_no_held_out_run_of_40_characters_is_in_the_training_text():
    from pydoc_data.topics import topics

    corpus = text.load_corpus()
    held = "".join(topics[name] for name in corpus.held_out_topics)
    train = [topics[name] for name in corpus.train_topics]
    assert text.shared_runs(held, train) < 0.01


def test_a_changed_held_out_topic_is_reported():
    from pydoc_data.topics import topics

    changed = dict(topics, truth=topics["truth"] + " (changed)")
    corpus = text.load_corpus(changed)
    assert corpus.changed_topics == ["truth"]
    assert corpus.python == "given topics"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: text.load_corpus({}), ValueError, "topics must be"),
        (
            lambda: text.load_corpus({"a": "x" * 100}),
            ValueError,
            "topics must hold some of the held-out topics",
        ),
        (lambda: text.encode(b"abc"), TypeError, "text must be a str"),
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
