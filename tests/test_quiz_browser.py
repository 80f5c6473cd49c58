"""The self-checks (d2l_local.quiz) of the built book in headless Chromium
with every other host cut off (the ``visit`` fixture): each question is
answered wrongly and then rightly, by pointer and by keyboard, on a phone's
width and a desktop's, and each time the live region shows that answer's
feedback with its link; each link leads to an element of its page; axe-core
finds nothing serious in them with the feedback showing, light or dark.

Which pages carry self-checks: every chapter page but the exercises, 3 to
5 questions each. The exercises page is itself a set of questions with
solutions that run, so a second set on it would repeat them.
"""

from __future__ import annotations

import json

import pytest
from axe_playwright_python.sync_playwright import Axe
from bs4 import BeautifulSoup
from playwright.sync_api import expect

from conftest import HTML, answer_wrong_then_right, self_checks

WITH_CHECKS = [
    "self_attention",
    "comparing_architectures",
    "sinusoidal_encoding",
    "relative_position",
    "order_experiment",
    "offset_head",
    "relative_family",
    "real_text",
    "inside_models",
    "stretching_rope",
]
WITHOUT = {"exercises"}
WIDTHS = {"phone": 390, "desktop": 1280}
SEVERE = {"serious", "critical"}


def page_checks(chapter: str):
    html = (HTML / "chapters" / f"{chapter}.html").read_text()
    return self_checks(html)


def test_the_list_covers_every_chapter():
    chapters = {p.stem for p in (HTML / "chapters").glob("*.html")}
    assert chapters == set(WITH_CHECKS) | WITHOUT


@pytest.mark.parametrize("chapter", sorted(WITHOUT))
def test_the_exercises_page_has_no_self_check(chapter):
    assert page_checks(chapter) == {}


@pytest.mark.parametrize("chapter", WITH_CHECKS)
def test_each_chapter_has_three_to_five_questions(chapter):
    checks = page_checks(chapter)
    assert len(checks) >= 1
    count = sum(len(questions) for questions in checks.values())
    assert 3 <= count <= 5, f"{chapter} asks {count} questions"


@pytest.mark.parametrize("chapter", WITH_CHECKS)
def test_every_feedback_links_to_an_element_of_its_page(chapter):
    page = HTML / "chapters" / f"{chapter}.html"
    soup = BeautifulSoup(page.read_text(), "html.parser")
    ids = {tag["id"] for tag in soup.find_all(id=True)}
    for root in soup.select("div.d2l-quiz"):
        data = json.loads(root.select_one("script.d2l-quiz-data").string)
        for spec in data["questions"]:
            if spec["kind"] == "choice":
                feedbacks = spec["feedback"]
            else:
                feedbacks = [spec["right"], spec["wrong"]]
                feedbacks += [text for _, text in spec["traps"]]
            for feedback in feedbacks:
                links = BeautifulSoup(feedback, "html.parser")("a")
                assert len(links) == 1, feedback
                target = links[0]["href"].removeprefix("#")
                assert target in ids, f"{chapter}: no element #{target}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("chapter", WITH_CHECKS)
@pytest.mark.parametrize("keyboard", [False, True], ids=["pointer", "keys"])
def test_each_question_answers_wrong_then_right(
    visit, chapter, width, keyboard
):
    visit.page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    page = visit.goto(f"chapters/{chapter}.html")
    for root_id, questions in page_checks(chapter).items():
        root = page.locator(f"#{root_id}")
        expect(root).to_have_attribute("data-ready", "true")
        # On a phone, nothing in a self-check is wider than its box.
        overflow = root.evaluate("e => e.scrollWidth - e.clientWidth")
        assert overflow <= 0, f"{root_id} overflows by {overflow} px"
        for question in questions:
            answer_wrong_then_right(page, root, question, keyboard)


@pytest.mark.parametrize("chapter", WITH_CHECKS)
def test_a_proof_link_leads_to_its_element(visit, chapter):
    page = visit.goto(f"chapters/{chapter}.html")
    root_id, questions = next(iter(page_checks(chapter).items()))
    root = page.locator(f"#{root_id}")
    answer_wrong_then_right(page, root, questions[0], keyboard=False)
    link = root.get_by_role("status").first.get_by_role("link")
    target = link.get_attribute("href")
    link.click()
    page.wait_for_function(f"() => location.hash === '{target}'")
    expect(page.locator(target)).to_be_in_viewport()


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("chapter", WITH_CHECKS)
def test_self_checks_have_no_serious_accessibility_violation(
    visit, chapter, width, mode
):
    """With every question answered wrongly, so that the feedback, the
    links and the marked options show."""
    visit.page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    page = visit.goto(f"chapters/{chapter}.html")
    page.evaluate(f"document.documentElement.dataset.theme = '{mode}'")
    for root_id, questions in page_checks(chapter).items():
        root = page.locator(f"#{root_id}")
        for question in questions:
            group = root.get_by_role("group", name=question.legend, exact=True)
            if question.spec["kind"] == "choice":
                option = question.options[question.wrong_option]
                group.get_by_role("button", name=option, exact=True).click()
            else:
                group.get_by_label("Your answer").fill("-1")
                group.get_by_role("button", name="Check").click()
            expect(group.get_by_role("status")).to_contain_text("Not ")
        response = Axe().run(page, context=f"#{root_id}").response
        severe = [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            f"{[node['target'] for node in v['nodes']][:3]}"
            for v in response["violations"]
            if v["impact"] in SEVERE
        ]
        assert severe == [], "\n".join(severe)


def _written_as_readers_write(answer: float) -> list[str]:
    """The answer as a reader may type it: a decimal comma for a fraction,
    thousands grouped by commas or by spaces for a large whole number."""
    if answer != int(answer):
        written = repr(float(answer))
        return [] if "e" in written else [written.replace(".", ",")]
    if abs(answer) >= 1000:
        return [f"{int(answer):,}", f"{int(answer):,}".replace(",", " ")]
    return []


@pytest.mark.parametrize("chapter", WITH_CHECKS)
def test_a_number_typed_with_a_decimal_comma_or_grouped_counts(visit, chapter):
    """A typed "0,5035" is 0.5035 and "1,048,576" is 1048576 (a reader's
    "0,5035" was once read as 5035)."""
    page = visit.goto(f"chapters/{chapter}.html")
    for root_id, questions in page_checks(chapter).items():
        root = page.locator(f"#{root_id}")
        expect(root).to_have_attribute("data-ready", "true")
        for question in questions:
            spec = question.spec
            if spec["kind"] == "choice":
                continue
            group = root.get_by_role("group", name=question.legend, exact=True)
            for typed in _written_as_readers_write(spec["answer"]):
                group.get_by_label("Your answer").fill(typed)
                group.get_by_role("button", name="Check").click()
                expect(group.get_by_role("status")).to_contain_text("Right")
