"""d2l_local.quiz: what a self-check displays, and the checks of its
questions (its script is driven in a browser by test_quiz_browser.py)."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

import d2l_local as d2l
from d2l_local.quiz import markup, plain

PROOF = d2l.Proof("check-rows", "the check of the rows")


def choice():
    return d2l.Question(
        "Which rows move with p_{i} when X < Y?",
        [
            d2l.Option("all of them", "They do: `f(X)` moves.", correct=True),
            d2l.Option("none", "They move."),
            d2l.Option("half", "All move, not half."),
        ],
        PROOF,
    )


def number():
    return d2l.NumberQuestion(
        "How many weights has a layer of width 512?",
        answer=1_048_576,
        tolerance=0,
        right="Four matrices of 512^{2}.",
        wrong="Count the four matrices.",
        proof=PROOF,
        traps=[(1_050_624, "That counts the biases.")],
    )


def soup_of(check):
    return BeautifulSoup(check._repr_mimebundle_()["text/html"], "html.parser")


def test_markup_escapes_then_marks_code_subscripts_and_superscripts():
    assert markup("a < b & `c<d>` p_{i+1} d^{2}") == (
        "a &lt; b &amp; <code>c&lt;d&gt;</code> p<sub>i+1</sub> d<sup>2</sup>"
    )
    assert plain("`f(X)` p_{i+1} d^{2}") == "f(X) p_(i+1) d^2"


def test_each_question_is_a_named_group_with_a_live_region():
    soup = soup_of(d2l.self_check("page", choice(), number()))
    root = soup.select_one("div.d2l-quiz")
    assert root["id"] == "d2l-quiz-page" and root["data-name"] == "page"
    forms = root.select("form.d2l-quiz-question")
    assert [f["id"] for f in forms] == ["d2l-quiz-page-1", "d2l-quiz-page-2"]
    assert [f["data-kind"] for f in forms] == ["choice", "number"]
    for form in forms:
        legend = form.select_one("fieldset > legend")
        assert legend.get_text().startswith(form["id"][-1] + ". ")
        (status,) = form.select('[role="status"]')
        assert status.get_text() == ""
    # Options are buttons, disabled until the script runs.
    options = forms[0].select("button.d2l-quiz-option")
    assert [b.get_text() for b in options] == ["all of them", "none", "half"]
    assert all(b.has_attr("disabled") for b in options)
    assert all(b["aria-pressed"] == "false" for b in options)
    # A number has a labelled text box and a Check button.
    box = forms[1].select_one("input")
    assert forms[1].select_one(f'label[for="{box["id"]}"]').get_text() == (
        "Your answer"
    )
    assert forms[1].select_one("button[type=submit]").get_text() == "Check"
    # Mark-up in the question, escaped text everywhere.
    assert forms[0].legend.select_one("sub").get_text() == "i"
    assert "X &lt; Y" in str(forms[0].legend)


def test_answers_and_feedback_are_only_in_the_data_for_the_script():
    check = d2l.self_check("page", choice(), number())
    soup = soup_of(check)
    shown = soup.get_text()
    assert "They do" not in shown and "Count the four" not in shown
    data = json.loads(soup.select_one("script.d2l-quiz-data").string)
    assert data == check.data()
    first, second = data["questions"]
    assert first["kind"] == "choice" and first["correct"] == 0
    assert first["feedback"][0].startswith("<strong>Right.</strong> ")
    assert "<code>f(X)</code>" in first["feedback"][0]
    assert first["feedback"][1].startswith("<strong>Not quite.</strong>")
    assert first["feedback"][1].endswith("Try another answer.")
    link = '<a class="d2l-quiz-proof" href="#check-rows">'
    assert all(link in f for f in first["feedback"])
    assert second["answer"] == 1_048_576 and second["tolerance"] == 0
    assert "512<sup>2</sup>" in second["right"]
    assert second["traps"][0][0] == 1_050_624
    assert "That counts the biases." in second["traps"][0][1]


def test_the_output_is_the_same_every_time():
    first = d2l.self_check("page", choice(), number())._repr_mimebundle_()
    again = d2l.self_check("page", choice(), number())._repr_mimebundle_()
    assert first == again


def test_the_plain_text_lists_questions_and_options_not_answers():
    text = d2l.self_check("page", choice(), number()).to_text()
    assert text.splitlines() == [
        "Check yourself: 2 questions",
        "1. Which rows move with p_i when X < Y?",
        "   a) all of them",
        "   b) none",
        "   c) half",
        "2. How many weights has a layer of width 512?",
        "   (a number)",
    ]


def test_the_script_and_style_travel_with_the_output():
    soup = soup_of(d2l.self_check("page", choice()))
    scripts = soup.select("div.d2l-quiz > script:not([type])")
    assert len(scripts) == 1 and "d2l-quiz" in scripts[0].string
    assert soup.select_one("div.d2l-quiz > style") is not None
    assert "noscript" in str(soup.select_one("p.d2l-quiz-note"))


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: d2l.self_check("Page", choice()), ValueError, "name must"),
        (lambda: d2l.self_check("page", "q"), TypeError, "questions must"),
        (
            lambda: d2l.Question("Q?", [d2l.Option("a", "x", True)], PROOF),
            ValueError,
            "options must hold 2 to 6",
        ),
        (
            lambda: d2l.Question(
                "Q?", [d2l.Option("a", "x", True), d2l.Option("a", "y")], PROOF
            ),
            ValueError,
            "options must differ",
        ),
        (
            lambda: d2l.Question(
                "Q?",
                [d2l.Option("a", "x", True), d2l.Option("b", "y")],
                "check",
            ),
            TypeError,
            "proof must be a Proof",
        ),
        (lambda: d2l.Option("a", ""), ValueError, "feedback must be"),
        (lambda: d2l.Option("a", "x", correct=1), TypeError, "correct must"),
        (
            lambda: d2l.NumberQuestion("Q?", float("nan"), 0, "r", "w", PROOF),
            ValueError,
            "answer must be a finite number",
        ),
        (
            lambda: d2l.NumberQuestion("Q?", "4", 0, "r", "w", PROOF),
            TypeError,
            "answer must be a finite number",
        ),
        (
            lambda: d2l.NumberQuestion("Q?", 4, 0, "r", "w", PROOF, traps=[5]),
            TypeError,
            "traps must be",
        ),
        (lambda: d2l.Proof("check", " "), ValueError, "label must"),
    ],
)
def test_bad_questions_are_refused_with_the_parameter_named(
    make, error, message
):
    with pytest.raises(error, match=message):
        make()
