"""Real text for small language models (page "Train Short, Test Long:
Position on Real Text", which describes this corpus).

The text is CPython's own documentation of its statements and types,
``pydoc_data.topics``, read from the Python that runs the page: every
CPython has it, so nothing is downloaded or copied into the repository.
The vocabulary is fixed: newline, the 95 printable ASCII characters and one
stand-in for every other character.

Many topics repeat much of another (the topic ``if`` is a section of the
topic ``compound``): ``distinct_topics`` drops a topic when more than half
of its distinct runs of 40 characters occur in the longer topics kept. The
held-out topics are fixed by name: topics whose text is the same in Python
3.11, 3.12 and 3.13 and shares almost no run of 40 characters with any
other topic, so that every reader scores the same characters and none of
them was trained on. Their SHA-256 says when a Python's text differs.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field

import torch

from . import checks

__all__ = [
    "HELD_OUT_TOPICS",
    "OTHER",
    "RUN",
    "VOCABULARY",
    "Corpus",
    "decode",
    "distinct_topics",
    "encode",
    "load_corpus",
    "load_topics",
    "shared_runs",
]

# The stand-in for characters outside the vocabulary (a few hundred of the
# text's, such as curly quotes and dashes).
OTHER = "\ufffd"
VOCABULARY = ("\n", *map(chr, range(32, 127)), OTHER)
_INDEX = {character: k for k, character in enumerate(VOCABULARY)}

# Runs of this many characters decide whether two texts repeat each other.
RUN = 40

# Name and the first 16 hex digits of the SHA-256 of the UTF-8 text of each
# held-out topic, as in CPython 3.11.7, 3.12.1 and 3.13.0 alike.
HELD_OUT_TOPICS = {
    "assert": "4476cccb1bc54866",
    "attribute-references": "9e89aaa93c80a99a",
    "bitwise": "4fff63c322b5584d",
    "bltin-ellipsis-object": "9090dd2beee379a6",
    "bltin-null-object": "675d8cefe8f2086d",
    "bltin-type-objects": "44447b914007a5bf",
    "booleans": "69b8d8bae8f06bc5",
    "calls": "40343c78c4b8acf1",
    "del": "ca26bf2b41bcf10a",
    "global": "d80bc76594e3cb16",
    "import": "ffd70a8ac26855a9",
    "lambda": "f1f3837765defd35",
    "operator-summary": "e9268fad7f1a84e1",
    "pass": "1105577efcadb735",
    "slicings": "736af8d1f64cc6e3",
    "truth": "5acbbb9ec3fef7cf",
    "typesfunctions": "0c7fc640402a3546",
    "typesmodules": "dc8c884a62add299",
    "unary": "3f87e80e477c52af",
    "yield": "2d4a036abccd87a2",
}


def load_topics() -> dict[str, str]:
    """Every topic of ``pydoc_data.topics`` of the running Python, by
    name."""
    from pydoc_data.topics import topics

    return dict(topics)


def encode(text: str) -> torch.Tensor:
    """One token index per character; a character outside ``VOCABULARY``
    becomes ``OTHER``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    other = _INDEX[OTHER]
    return torch.tensor([_INDEX.get(ch, other) for ch in text])


def decode(tokens: torch.Tensor) -> str:
    """The characters of a 1-D tensor of token indices."""
    tokens = checks.tensor("tokens", tokens, 1)
    if len(tokens) and not 0 <= tokens.min() <= tokens.max() < len(VOCABULARY):
        raise ValueError(
            f"tokens must lie in [0, {len(VOCABULARY) - 1}], got values in "
            f"[{tokens.min().item()}, {tokens.max().item()}]"
        )
    return "".join(VOCABULARY[k] for k in tokens.tolist())


def _runs(text: str) -> set[str]:
    return {text[i : i + RUN] for i in range(len(text) - RUN + 1)}


def shared_runs(text: str, others: list[str]) -> float:
    """The share of the runs of ``RUN`` characters of ``text`` that also
    occur in one of ``others``."""
    runs = _runs(text)
    if not runs:
        return 0.0
    elsewhere = set().union(*map(_runs, others)) if others else set()
    return len(runs & elsewhere) / len(runs)


def distinct_topics(
    topics: dict[str, str], limit: float = 0.5
) -> tuple[list[str], list[str]]:
    """Keep one copy of repeated text: going from the longest topic to the
    shortest, drop a topic when more than ``limit`` of its runs occur in the
    topics kept so far. Returns the names kept and the names dropped, each
    in alphabetical order."""
    kept, dropped, seen = [], [], set()
    for name in sorted(topics, key=lambda k: (-len(topics[k]), k)):
        runs = _runs(topics[name])
        if runs and len(runs & seen) > limit * len(runs):
            dropped.append(name)
        else:
            kept.append(name)
            seen |= runs
    return sorted(kept), sorted(dropped)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Corpus:
    """The training and held-out tokens, the topics behind them, and the
    Python whose documentation they are."""

    python: str
    train_topics: list[str]
    dropped_topics: list[str]
    held_out_topics: list[str]
    # Held-out topics whose text differs from the one recorded above.
    changed_topics: list[str]
    train: torch.Tensor
    held_out: torch.Tensor
    num_outside: int
    # SHA-256 of the training and of the held-out text.
    digests: dict[str, str] = field(default_factory=dict)


def load_corpus(topics: dict[str, str] | None = None) -> Corpus:
    """The training text (the distinct topics other than the held-out ones,
    in alphabetical order) and the held-out text (``HELD_OUT_TOPICS`` in
    alphabetical order), from ``topics`` or by default from the running
    Python's ``pydoc_data.topics``."""
    if topics is None:
        topics = load_topics()
        python = ".".join(map(str, sys.version_info[:3]))
    else:
        python = "given topics"
    if not isinstance(topics, dict) or not topics:
        raise ValueError("topics must be a non-empty dict of name: text")
    held = [name for name in sorted(HELD_OUT_TOPICS) if name in topics]
    if not held or len(held) == len(topics):
        raise ValueError(
            "topics must hold some of the held-out topics and others"
        )
    changed = [
        name
        for name in held
        if _digest(topics[name])[:16] != HELD_OUT_TOPICS[name]
    ]
    rest = {name: topics[name] for name in topics if name not in held}
    kept, dropped = distinct_topics(rest)
    train_text = "".join(topics[name] for name in kept)
    held_text = "".join(topics[name] for name in held)
    train, held_out = encode(train_text), encode(held_text)
    outside = int((train == _INDEX[OTHER]).sum()) + int(
        (held_out == _INDEX[OTHER]).sum()
    )
    return Corpus(
        python,
        kept,
        dropped,
        held,
        changed,
        train,
        held_out,
        outside,
        {"train": _digest(train_text), "held_out": _digest(held_text)},
    )
