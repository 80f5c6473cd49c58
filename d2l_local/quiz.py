"""Self-checks: a few questions a reader answers before reading on (every
chapter page but the exercises ends its teaching with one set, under "Check
yourself").

A chapter builds its questions in one cell, with the numbers its own cells
computed, and ends the cell with ``self_check(name, *questions)``. The call
displays one output that works wherever the output's script may run: in the
built HTML book (no kernel, nothing fetched), in JupyterLab and Notebook
after the cell runs, and in Colab. Each question is a labelled group; a
multiple-choice option is a button, a number goes into a labelled text box
with a Check button, and the feedback appears in a live region that screen
readers announce. Every feedback explains itself and ends with a link to the
element on the page that proves the answer (``Proof``: the id of a
``<div id="...">`` placed just before that cell in the chapter).

The output is the same on every machine: its ids come from ``name``, and its
numbers are whatever the chapter formats into the text. Where scripts do not
run (a notebook Jupyter does not trust), the questions show with their
buttons disabled and a note says how to make them work; the answers are not
in what shows.

Text mark-up, in question, option and feedback texts: plain text (``<`` and
``&`` are shown as such) with `code` in backticks, subscripts as ``_{...}``
and superscripts as ``^{...}``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import checks

__all__ = [
    "NumberQuestion",
    "Option",
    "Proof",
    "Question",
    "SelfCheck",
    "self_check",
]

_SCRIPT = Path(__file__).with_name("quiz.js").read_text()
_NAME = re.compile(r"[a-z][a-z0-9-]*")
_MAX_OPTIONS = 6
# Colours from the book's theme (light and dark), else JupyterLab's, else
# fixed ones that keep 3:1 against white and against a dark background.
_STYLE = (
    ".d2l-quiz{--d2l-quiz-line:var(--pst-color-text-muted,#767676);"
    "--d2l-quiz-right:var(--pst-color-success,var(--jp-success-color1,"
    "#1a7f37));--d2l-quiz-wrong:var(--pst-color-danger,"
    "var(--jp-error-color1,#c62828));border:1px solid var(--d2l-quiz-line);"
    "border-radius:.4rem;padding:.1rem .9rem .8rem;margin:.5rem 0;"
    "line-height:1.45}"
    ".d2l-quiz form{margin:0}"
    ".d2l-quiz fieldset{border:0;margin:.9rem 0 0;padding:0;min-width:0}"
    ".d2l-quiz legend{float:left;width:100%;margin:0 0 .45rem;padding:0;"
    "font-size:inherit;font-weight:600}"
    ".d2l-quiz legend+*{clear:both}"
    ".d2l-quiz-options{display:grid;gap:.4rem}"
    ".d2l-quiz button,.d2l-quiz input{font:inherit;color:inherit;"
    "background:transparent;border:1px solid var(--d2l-quiz-line);"
    "border-radius:.3rem;min-height:2.75rem;padding:.4rem .75rem;margin:0}"
    ".d2l-quiz button{cursor:pointer;text-align:left}"
    ".d2l-quiz button:disabled,.d2l-quiz input:disabled{cursor:default;"
    "opacity:.75}"
    ".d2l-quiz-option{border-left-width:.3rem}"
    ".d2l-quiz button:hover:enabled{background:rgba(127,127,127,.14)}"
    ".d2l-quiz button:focus-visible,.d2l-quiz input:focus-visible{"
    "outline:3px solid var(--pst-color-accent,#1a5fc4);outline-offset:2px}"
    ".d2l-quiz-option[data-verdict=right]{border-color:var(--d2l-quiz-right)}"
    ".d2l-quiz-option[data-verdict=wrong]{border-color:var(--d2l-quiz-wrong)}"
    ".d2l-quiz-answer{display:flex;flex-wrap:wrap;align-items:center;"
    "gap:.4rem .6rem}"
    ".d2l-quiz-answer label{margin:0}"
    ".d2l-quiz-answer input{width:8em;max-width:100%}"
    ".d2l-quiz-feedback{margin:0}"
    ".d2l-quiz-feedback:not(:empty){margin-top:.5rem;padding:.35rem .7rem;"
    "border-left:.3rem solid var(--d2l-quiz-line)}"
    ".d2l-quiz-feedback[data-verdict=right]{"
    "border-left-color:var(--d2l-quiz-right)}"
    ".d2l-quiz-feedback[data-verdict=wrong]{"
    "border-left-color:var(--d2l-quiz-wrong)}"
    ".d2l-quiz-note{margin:.6rem 0 0}"
    ".d2l-quiz-note:empty{display:none}"
)


def markup(text: str) -> str:
    """HTML for a text written in the self-checks' mark-up: escaped, then
    `code`, ``_{sub}`` and ``^{sup}``."""
    escaped = html.escape(text, quote=False)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    escaped = re.sub(r"_\{([^{}]+)\}", r"<sub>\1</sub>", escaped)
    return re.sub(r"\^\{([^{}]+)\}", r"<sup>\1</sup>", escaped)


def plain(text: str) -> str:
    """The same text for a plain-text display: the mark-up's signs
    removed."""

    def grouped(sign: str):
        return lambda m: sign + (m[1] if len(m[1]) == 1 else "(" + m[1] + ")")

    text = re.sub(r"`([^`]+)`", r"\1", text)
    text = re.sub(r"_\{([^{}]+)\}", grouped("_"), text)
    return re.sub(r"\^\{([^{}]+)\}", grouped("^"), text)


@dataclass(frozen=True)
class Proof:
    """Where the page proves an answer: the ``id`` of an element on the page
    (a ``<div id="...">`` just before the cell, in the chapter's source) and
    the words of the link to it ("the permutation check")."""

    anchor: str
    label: str

    def __post_init__(self) -> None:
        if not isinstance(self.anchor, str) or not _NAME.fullmatch(
            self.anchor
        ):
            raise ValueError(
                "anchor must be lower-case letters, digits and hyphens, "
                f"starting with a letter, got {self.anchor!r}"
            )
        checks.text("label", self.label)

    def link(self) -> str:
        return (
            f'<a class="d2l-quiz-proof" href="#{self.anchor}">'
            f"See {markup(self.label)}.</a>"
        )


@dataclass(frozen=True)
class Option:
    """One answer of a multiple-choice question and the feedback a reader
    who picks it gets: why it is right, or why not."""

    text: str
    feedback: str
    correct: bool = False

    def __post_init__(self) -> None:
        checks.text("text", self.text)
        checks.text("feedback", self.feedback)
        if not isinstance(self.correct, bool):
            raise TypeError(
                f"correct must be True or False, got {self.correct!r}"
            )


@dataclass(frozen=True)
class Question:
    """A multiple-choice question: 2-6 options, exactly one of them
    correct."""

    text: str
    options: Sequence[Option]
    proof: Proof

    def __post_init__(self) -> None:
        checks.text("text", self.text)
        if isinstance(self.options, str) or not isinstance(
            self.options, Sequence
        ):
            raise TypeError(
                "options must be a list of Option objects, "
                f"got {type(self.options).__name__}"
            )
        options = list(self.options)
        if not 2 <= len(options) <= _MAX_OPTIONS:
            raise ValueError(
                f"options must hold 2 to {_MAX_OPTIONS} Option objects, "
                f"got {len(options)}"
            )
        for option in options:
            if not isinstance(option, Option):
                raise TypeError(
                    f"options must be Option objects, "
                    f"got {type(option).__name__}"
                )
        right = sum(option.correct for option in options)
        if right != 1:
            raise ValueError(
                f"exactly one option must be correct, got {right}"
            )
        texts = [option.text for option in options]
        if len(set(texts)) != len(texts):
            raise ValueError(f"options must differ, got {texts}")
        if not isinstance(self.proof, Proof):
            raise TypeError(
                f"proof must be a Proof, got {type(self.proof).__name__}"
            )
        object.__setattr__(self, "options", tuple(options))


@dataclass(frozen=True)
class NumberQuestion:
    """A question answered with a number: right within ``tolerance`` of
    ``answer``. ``right`` explains the answer; ``wrong`` is the feedback for
    any other number, except the ``traps``: (value, feedback) pairs for
    numbers that a known mistake gives, each matched within the same
    tolerance."""

    text: str
    answer: float
    tolerance: float
    right: str
    wrong: str
    proof: Proof
    traps: Sequence[tuple[float, str]] = ()

    def __post_init__(self) -> None:
        checks.text("text", self.text)
        answer = checks.finite("answer", self.answer)
        tolerance = checks.finite("tolerance", self.tolerance)
        if tolerance < 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance}")
        checks.text("right", self.right)
        checks.text("wrong", self.wrong)
        if not isinstance(self.proof, Proof):
            raise TypeError(
                f"proof must be a Proof, got {type(self.proof).__name__}"
            )
        traps = []
        for trap in self.traps:
            if not (isinstance(trap, tuple) and len(trap) == 2):
                raise TypeError(
                    f"traps must be (value, feedback) pairs, got {trap!r}"
                )
            value = checks.finite("a trap's value", trap[0])
            checks.text("a trap's feedback", trap[1])
            if abs(value - answer) <= tolerance:
                raise ValueError(
                    f"a trap's value must lie outside the right answer's "
                    f"range [{answer - tolerance}, {answer + tolerance}], "
                    f"got {value}"
                )
            traps.append((value, trap[1]))
        object.__setattr__(self, "answer", answer)
        object.__setattr__(self, "tolerance", tolerance)
        object.__setattr__(self, "traps", tuple(traps))


def _feedback(verdict: bool, text: str, proof: Proof) -> str:
    head = "Right." if verdict else "Not quite."
    tail = "" if verdict else " Try another answer."
    return f"<strong>{head}</strong> {markup(text)} {proof.link()}{tail}"


class SelfCheck:
    """A set of questions shown as one output (HTML with its script, and
    plain text); see the module's docstring."""

    def __init__(self, name: str, questions: Sequence[object]) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(
                "name must be lower-case letters, digits and hyphens, "
                f"starting with a letter, got {name!r}"
            )
        if not questions:
            raise ValueError("a self-check needs at least one question")
        for question in questions:
            if not isinstance(question, (Question, NumberQuestion)):
                raise TypeError(
                    "questions must be Question or NumberQuestion objects, "
                    f"got {type(question).__name__}"
                )
        self.name = name
        self.questions = tuple(questions)

    def data(self) -> dict:
        """What the script needs to check answers: per question, the right
        option or number and the feedback HTML."""
        specs = []
        for q in self.questions:
            if isinstance(q, Question):
                specs.append(
                    {
                        "kind": "choice",
                        "correct": next(
                            k for k, o in enumerate(q.options) if o.correct
                        ),
                        "feedback": [
                            _feedback(o.correct, o.feedback, q.proof)
                            for o in q.options
                        ],
                    }
                )
            else:
                specs.append(
                    {
                        "kind": "number",
                        "answer": q.answer,
                        "tolerance": q.tolerance,
                        "right": _feedback(True, q.right, q.proof),
                        "wrong": _feedback(False, q.wrong, q.proof),
                        "traps": [
                            [value, _feedback(False, text, q.proof)]
                            for value, text in q.traps
                        ],
                    }
                )
        return {"questions": specs}

    def _question_html(self, index: int, question: object) -> str:
        ident = f"d2l-quiz-{self.name}-{index}"
        legend = (
            f'<legend id="{ident}-text">{index}. {markup(question.text)}'
            "</legend>"
        )
        if isinstance(question, Question):
            buttons = "".join(
                f'<button type="button" class="d2l-quiz-option" '
                f'aria-pressed="false" disabled>{markup(o.text)}</button>'
                for o in question.options
            )
            body = f'<div class="d2l-quiz-options">{buttons}</div>'
            kind = "choice"
        else:
            body = (
                '<div class="d2l-quiz-answer">'
                f'<label for="{ident}-input">Your answer</label>'
                f'<input type="text" id="{ident}-input" inputmode="decimal" '
                'autocomplete="off" spellcheck="false" disabled>'
                '<button type="submit" class="d2l-quiz-check" disabled>'
                "Check</button></div>"
            )
            kind = "number"
        return (
            f'<form class="d2l-quiz-question" id="{ident}" '
            f'data-kind="{kind}" novalidate><fieldset>{legend}{body}'
            '<p class="d2l-quiz-feedback" role="status"></p>'
            "</fieldset></form>"
        )

    def to_html(self) -> str:
        questions = "".join(
            self._question_html(k, q)
            for k, q in enumerate(self.questions, start=1)
        )
        data = json.dumps(self.data()).replace("</", "<\\/")
        return (
            f'<div class="d2l-quiz" id="d2l-quiz-{self.name}" '
            f'data-name="{self.name}"><style>{_STYLE}</style>{questions}'
            '<p class="d2l-quiz-note">'
            # What Jupyter shows, scripts removed, for a notebook it does
            # not trust.
            "<noscript>The answers check themselves where this output's "
            "script may run: run the cell, or open the book's web page."
            "</noscript></p>"
            '<script type="application/json" class="d2l-quiz-data">'
            f"{data}</script><script>{_SCRIPT}</script></div>"
        )

    def to_text(self) -> str:
        lines = [f"Check yourself: {len(self.questions)} questions"]
        for k, q in enumerate(self.questions, start=1):
            lines.append(f"{k}. {plain(q.text)}")
            if isinstance(q, Question):
                lines += [
                    f"   {chr(ord('a') + i)}) {plain(o.text)}"
                    for i, o in enumerate(q.options)
                ]
            else:
                lines.append("   (a number)")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {"text/plain": self.to_text(), "text/html": self.to_html()}


def self_check(name: str, *questions: Question | NumberQuestion) -> SelfCheck:
    """Show ``questions`` as one self-check; ``name`` (lower-case letters,
    digits and hyphens) makes its ids, unique on the page."""
    return SelfCheck(name, questions)
