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

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "tools"))
from served_book import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402


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
