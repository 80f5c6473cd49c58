"""Shared test setup: a non-interactive matplotlib backend, the repository
root, and, for the browser tests, the built book served on localhost to
Debian's Chromium with every other host cut off."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import pytest
from bs4 import BeautifulSoup

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "tools"))
from served_book import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

# The chapters that load and score the trained language models, about 40 s
# each here: the front-end tests open them without running them.
LANGUAGE_MODEL_CHAPTERS = {"real_text", "inside_models", "stretching_rope"}


def chapters_with_controls() -> set[str]:
    """The chapters whose source draws a control (choice_control or
    choice_controls): the ones a widget front end has work to do on."""
    return {
        path.stem
        for path in (ROOT / "chapters").glob("*.md")
        if "d2l.choice_control" in path.read_text()
    }


@pytest.fixture(autouse=True)
def close_figures():
    """Each test starts and ends with no open figure."""
    from matplotlib import pyplot as plt

    plt.close("all")
    yield
    plt.close("all")


def control_data(script, page: Path | None) -> dict:
    """The JSON of a control's data script: inline in a notebook's HTML, or in
    the script file that the built ``page`` loads (_ext/book_pages.py)."""
    if not script.get("data-src"):
        return json.loads(script.string)
    assert page is not None, (
        "a control's data in a file, but no page to find it from"
    )
    text = (page.parent / script["data-src"]).read_text(encoding="utf-8")
    start, _, data = text.partition("=\n")
    assert start.startswith("(window.d2lControlData"), start
    return json.loads(data.rstrip().removesuffix(";"))


def unpack_control(control, page: Path | None = None) -> tuple[dict, dict]:
    """A control's data script (labels, packed figures) and its figures and alt
    texts unpacked, from its HTML element (BeautifulSoup) on the built ``page``
    or in a notebook; checks their SHA-256."""
    data = control_data(control.select_one("script.d2l-control-data"), page)
    raw = gzip.decompress(base64.b64decode(data["packed"]))
    assert control["data-frames-sha256"] == hashlib.sha256(raw).hexdigest()
    return data, json.loads(raw)


@pytest.fixture(scope="session")
def book_url():
    """The built book (``make test`` builds it first) served on 127.0.0.1."""
    assert (HTML / "index.html").is_file(), (
        f"{HTML} is missing: run `make book` first"
    )
    with serve(HTML) as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (Playwright's own browser download does not work
    here)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(`apt-get install chromium`, as .ci/run does)"
        )
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": CHROMIUM_ARGS,
    }


@dataclass
class Visit:
    """A browser page on the served book that records what must not happen."""

    page: object
    base: str
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def goto(self, path: str):
        response = self.page.goto(self.base + path)
        assert response is not None and response.ok, (
            f"{path}: HTTP {response and response.status}"
        )
        self.page.wait_for_load_state("load")
        # The blocks of the sections after the Overview are laid out once
        # the page has loaded, a few at a time (_static/sections.js); what
        # the tests measure is the page once that is done.
        self.page.wait_for_function(
            "document.documentElement.classList.contains('sections-laid-out')"
        )
        return self.page


@pytest.fixture
def visit(page, book_url):
    """A page whose requests to any host but the book's server are aborted and
    recorded; the test fails if one was made, a script threw or a script
    logged an error to the console."""
    record = Visit(page, book_url)

    def route(request_route):
        url = request_route.request.url
        if url.startswith(book_url):
            request_route.continue_()
        else:
            record.outside.append(url)
            request_route.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda error: record.errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            record.errors.append(message.text)
            if message.type == "error"
            else None
        ),
    )
    page.on("requestfailed", lambda request: record.failed.append(request.url))
    yield record
    assert record.outside == [], (
        f"requests left the book's host: {record.outside}"
    )
    assert record.errors == [], f"page errors: {record.errors}"


@dataclass
class SelfCheckQuestion:
    """One question of a self-check (d2l_local.quiz), read from its HTML:
    what a reader sees (its legend, its options) and what the script checks
    answers against."""

    legend: str
    spec: dict
    options: list[str]

    @property
    def right_option(self) -> int:
        return self.spec["correct"]

    @property
    def wrong_option(self) -> int:
        return 1 if self.right_option == 0 else 0


def self_checks(html: str) -> dict[str, list[SelfCheckQuestion]]:
    """Every self-check in ``html``: its element's id -> its questions."""
    soup = BeautifulSoup(html, "html.parser")
    found = {}
    for root in soup.select("div.d2l-quiz"):
        data = json.loads(root.select_one("script.d2l-quiz-data").string)
        forms = root.select("form.d2l-quiz-question")
        assert len(forms) == len(data["questions"])
        found[root["id"]] = [
            SelfCheckQuestion(
                legend=form.legend.get_text(),
                spec=spec,
                options=[
                    b.get_text() for b in form.select("button.d2l-quiz-option")
                ],
            )
            for form, spec in zip(forms, data["questions"])
        ]
    return found


def feedback_text(feedback_html: str) -> str:
    """The words a feedback's HTML shows."""
    text = BeautifulSoup(feedback_html, "html.parser").get_text()
    return " ".join(text.split())


def _wrong_number(spec: dict) -> float:
    """A number that is neither the answer nor one of the traps."""
    near = [spec["answer"]] + [value for value, _ in spec["traps"]]
    guess = spec["answer"] * 3 + 7
    while any(abs(guess - v) <= spec["tolerance"] for v in near):
        guess += 10 * (spec["tolerance"] + 1)
    return guess


def _as_typed(value: float, tolerance: float) -> str:
    """How a reader would type ``value``: thousands separated by commas."""
    if float(value).is_integer() or tolerance >= 0.5:
        return f"{round(value):,}"
    return f"{value:.6g}"


def answer_wrong_then_right(page, root, question, keyboard: bool) -> None:
    """Answer ``question`` of the self-check ``root`` (a locator) wrongly,
    then rightly, by pointer or by keyboard, and check each time that the
    live region shows that answer's feedback and the option's state."""
    from playwright.sync_api import expect

    group = root.get_by_role("group", name=question.legend, exact=True)
    status = group.get_by_role("status")
    spec = question.spec

    def shows(feedback_html: str) -> None:
        expect(status).to_have_text(feedback_text(feedback_html))
        link = status.get_by_role("link")
        expect(link).to_have_count(1)
        assert link.get_attribute("href").startswith("#check-")

    if spec["kind"] == "choice":
        wrong, right = question.wrong_option, question.right_option
        buttons = [
            group.get_by_role("button", name=text, exact=True)
            for text in question.options
        ]
        if keyboard:
            buttons[wrong].focus()
            page.keyboard.press("Enter")
        else:
            buttons[wrong].click()
        shows(spec["feedback"][wrong])
        expect(buttons[wrong]).to_have_attribute("aria-pressed", "true")
        if keyboard:
            # Tab moves through the options in order.
            step = "Tab" if right > wrong else "Shift+Tab"
            for _ in range(abs(right - wrong)):
                page.keyboard.press(step)
            expect(buttons[right]).to_be_focused()
            page.keyboard.press(" ")
        else:
            buttons[right].click()
        shows(spec["feedback"][right])
        expect(buttons[right]).to_have_attribute("aria-pressed", "true")
        expect(buttons[wrong]).to_have_attribute("aria-pressed", "false")
        return
    box = group.get_by_label("Your answer")
    check = group.get_by_role("button", name="Check")
    tries = [(_wrong_number(spec), spec["wrong"])]
    tries += [(value, feedback) for value, feedback in spec["traps"]]
    tries.append((spec["answer"], spec["right"]))
    for value, feedback in tries:
        typed = _as_typed(value, spec["tolerance"])
        if keyboard:
            box.focus()
            page.keyboard.press("ControlOrMeta+A")
            page.keyboard.type(typed)
            page.keyboard.press("Enter")
        else:
            box.click()
            box.fill(typed)
            check.click()
        shows(feedback)
