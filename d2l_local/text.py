"""Real text for small language models (page "Train Short, Test Long:
Position on Real Text", which shows ``load_topics``, ``encode`` and
``split``).

The text is CPython's own documentation of its statements and types,
``pydoc_data.topics``, read from the Python that runs the page: every
CPython has it, so nothing is downloaded or copied into the repository. It
differs between Python versions; the vocabulary does not: newline, the 95
printable ASCII characters and one stand-in for every other character.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import torch

from . import checks

__all__ = [
    "OTHER",
    "VOCABULARY",
    "Corpus",
    "decode",
    "encode",
    "load_corpus",
    "load_topics",
    "split",
]

# The stand-in for characters outside the vocabulary (about 600 of the
# text's, such as curly quotes and dashes).
OTHER = "\ufffd"
VOCABULARY = ("\n", *map(chr, range(32, 127)), OTHER)
_INDEX = {character: k for k, character in enumerate(VOCABULARY)}


def load_topics() -> str:
    """The text of every topic in ``pydoc_data.topics``, in the order of
    their names, one after another."""
    from pydoc_data.topics import topics

    return "".join(topics[name] for name in sorted(topics))


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


def split(
    tokens: torch.Tensor, held_out: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two disjoint contiguous parts: the first ``1 - held_out`` of the
    tokens for training, the rest held out."""
    tokens = checks.tensor("tokens", tokens, 1)
    if not (isinstance(held_out, float) and 0 < held_out < 1):
        raise ValueError(
            f"held_out must be a float in (0, 1), got {held_out!r}"
        )
    cut = round(len(tokens) * (1 - held_out))
    if cut < 2 or len(tokens) - cut < 2:
        raise ValueError(
            f"text must be long enough for both parts to hold at least 2 "
            f"tokens, got {len(tokens)} tokens with held_out={held_out}"
        )
    return tokens[:cut], tokens[cut:]


@dataclass
class Corpus:
    """The tokens of a text, split into training and held-out parts, and
    the Python whose documentation it is ("given text" for any other)."""

    python: str
    num_characters: int
    num_outside: int
    train: torch.Tensor
    held_out: torch.Tensor


def load_corpus(text: str | None = None, held_out: float = 0.1) -> Corpus:
    """Encode ``text`` (by default ``load_topics()``) and split it."""
    if text is None:
        text = load_topics()
        source = ".".join(map(str, sys.version_info[:3]))
    else:
        source = "given text"
    if not isinstance(text, str) or not text:
        raise ValueError("text must be a non-empty str")
    tokens = encode(text)
    train, held = split(tokens, held_out)
    outside = int((tokens == _INDEX[OTHER]).sum())
    return Corpus(source, len(text), outside, train, held)
