"""The live panel of page 9 (d2l_local.live_panel) in headless Chromium over
the served book, every other host cut off (the ``visit`` fixture), at a
phone's width and a desktop's: it loads its weights only when opened;
typing changes every method's curve; a tap or the cursor shows attention
rows whose weights sum to 1; the bits the page computes equal the torch
models' within 1e-3 bits for every method, and the same comparison fails
when the script's RoPE pair layout or ALiBi's slopes are broken; axe-core
finds nothing serious in it.
"""

from __future__ import annotations

import math

import pytest
import torch
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from d2l_local import pretraining, text

PAGE = "chapters/real_text.html"
WIDTHS = {"phone": 390, "desktop": 1280}
SEVERE = {"serious", "critical"}
TOLERANCE = 1e-3  # bits
# Prose, code and a character outside the vocabulary, 8L long.
FIXED = (
    "The result of a comparison is True or False; naïve code like "
    "`if x == None:` works,\nbut `x is None` is the idiom.\n\n"
    "def area(r):\n    return 3.14159 * r ** 2  # not exact\n\n"
    "for k in range(10):\n    print(k, area(k))\n"
    "A name bound in a block is local to that block unless declared "
    "nonlocal or global."
)[: 8 * pretraining.CONFIGS["main"].train_len]
# The script's lines that bring position in, and a broken version of each:
# RoPE's pairs in the rotate-half layout instead of adjacent columns, and
# ALiBi's slopes for heads counted from 0 instead of 1.
BREAKS = {
    "RoPE layout": (
        "return [2 * l, 2 * l + 1];",
        "return [l, l + D / 2];",
        {"RoPE", "p-RoPE", "partial RoPE", "iRoPE"},
    ),
    "ALiBi slopes": (
        "return Math.pow(2, -8 * (r + 1) / heads);",
        "return Math.pow(2, -8 * r / heads);",
        {"ALiBi"},
    ),
}


def open_panel(page):
    panel = page.locator(".d2l-live-panel")
    expect(panel).to_have_count(1)
    panel.scroll_into_view_if_needed()
    assert panel.get_attribute("data-ready") == "closed"
    panel.get_by_role("button", name="Run the models").click()
    panel.locator("xpath=self::*[@data-ready='true']").wait_for(
        timeout=120_000
    )
    return panel


def torch_bits(fixed: str) -> dict[str, torch.Tensor]:
    """Each method's loss in bits at every position of ``fixed``, from the
    torch model (seed 0); the learned table's over its L rows only."""
    tokens = text.encode(fixed)
    train_len = pretraining.CONFIGS["main"].train_len
    found = {}
    for method in pretraining.METHODS:
        model = pretraining.load("main", method, 0)
        x = tokens[:train_len] if method == "learned" else tokens
        with torch.no_grad():
            logits = model(x[None])[0]
        found[method] = torch.nn.functional.cross_entropy(
            logits[:-1], x[1:], reduction="none"
        ).double() / math.log(2)
    return found


@pytest.fixture(scope="module")
def expected():
    return torch_bits(FIXED)


def page_bits(panel, fixed: str) -> dict[str, torch.Tensor]:
    got = panel.evaluate("(root, t) => root.d2lLivePanel.bits(t)", fixed)
    return {m: torch.tensor(v, dtype=torch.float64) for m, v in got.items()}


def largest_differences(got, expected) -> dict[str, float]:
    assert set(got) == set(expected)
    out = {}
    for method, bits in expected.items():
        assert got[method].shape == bits.shape, method
        out[method] = (got[method] - bits).abs().max().item()
    return out


def assert_equal_to_torch(got, expected) -> None:
    differences = largest_differences(got, expected)
    wrong = {m: d for m, d in differences.items() if not d <= TOLERANCE}
    assert wrong == {}, f"bits differ from torch's by more than 1e-3: {wrong}"


@pytest.mark.parametrize("width", WIDTHS)
def test_weights_load_only_when_opened(visit, width):
    page = visit.page
    page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    visit.goto(PAGE)
    panel = page.locator(".d2l-live-panel")
    panel.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert not any("/_static/panels/" in url for url in requested)
    open_panel(page)
    assert sum("/_static/panels/" in url for url in requested) == 1


@pytest.mark.parametrize("width", WIDTHS)
def test_typing_changes_every_methods_curve(visit, width):
    page = visit.page
    page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    visit.goto(PAGE)
    panel = open_panel(page)
    curves = "polyline[data-method]"

    def shown():
        return {
            line.get_attribute("data-method"): line.get_attribute("points")
            for line in panel.locator(curves).all()
        }

    before = shown()
    assert set(before) == set(pretraining.METHODS)
    drawn = int(panel.get_attribute("data-drawn"))
    box = panel.get_by_role("textbox")
    box.focus()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.type("So ")
    page.wait_for_function(
        "([root, n]) => Number(root.dataset.drawn) > n",
        arg=[panel.element_handle(), drawn],
    )
    after = shown()
    unchanged = [m for m in before if before[m] == after[m]]
    assert unchanged == []
    # One method alone, by its button; then all again.
    panel.get_by_role("button", name="ALiBi", exact=True).click()
    expect(panel.locator(curves)).to_have_count(1)
    expect(panel.locator("svg[role=img]").first).to_have_attribute(
        "aria-label", __import__("re").compile("Loss of ALiBi")
    )
    panel.get_by_role("button", name="all", exact=True).click()
    expect(panel.locator(curves)).to_have_count(len(pretraining.METHODS))
    # The summaries: each method's mean bits before and after L.
    rows = panel.locator("table.d2l-live-summary tbody tr")
    expect(rows).to_have_count(len(pretraining.METHODS))
    assert "no row past L" in rows.nth(0).inner_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_tap_or_the_cursor_shows_attention_rows(visit, width):
    page = visit.page
    page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    visit.goto(PAGE)
    panel = open_panel(page)
    box = panel.get_by_role("textbox")
    box.click()
    panel.locator("xpath=self::*[@data-attention-sums]").wait_for()
    sums = panel.evaluate("root => JSON.parse(root.dataset.attentionSums)")
    assert len(sums) == 4 and all(abs(s - 1) < 1e-9 for s in sums), sums
    # By keyboard: the character under the cursor is the query.
    panel.get_by_label("Attention of").select_option(label="ALiBi")
    panel.get_by_label("layer", exact=True).select_option(label="2")
    box.focus()
    page.keyboard.press("ControlOrMeta+Home")
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    expect(panel).to_have_attribute("data-attention-query", "40")
    note = panel.locator(".d2l-live-query")
    expect(note).to_contain_text("position 40, ALiBi, layer 2")
    sums = panel.evaluate("root => JSON.parse(root.dataset.attentionSums)")
    assert all(abs(s - 1) < 1e-9 for s in sums), sums
    rows = panel.evaluate(
        "root => root.d2lLivePanel.attention('ALiBi', 1, 40)"
    )
    assert len(rows) == 4
    assert all(len(r) == 41 and abs(sum(r) - 1) < 1e-9 for r in rows)


@pytest.mark.parametrize("width", WIDTHS)
def test_bits_equal_the_torch_models(visit, expected, width):
    page = visit.page
    page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    visit.goto(PAGE)
    panel = open_panel(page)
    assert_equal_to_torch(page_bits(panel, FIXED), expected)


@pytest.mark.parametrize("broken", BREAKS)
def test_the_comparison_fails_on_broken_position_handling(
    visit, expected, broken
):
    """The script's position handling broken in one place: the methods
    that use it differ from torch by more than 1e-3 bits and the
    comparison fails; the others still agree."""
    right, wrong, methods = BREAKS[broken]
    page = visit.page

    def serve_broken(route):
        response = route.fetch()
        body = response.text()
        assert body.count(right) == 1, f"{right!r} not once in the page"
        route.fulfill(response=response, body=body.replace(right, wrong))

    page.route(f"**/{PAGE}", serve_broken)
    visit.goto(PAGE)
    got = page_bits(open_panel(page), FIXED)
    with pytest.raises(AssertionError):
        assert_equal_to_torch(got, expected)
    differences = largest_differences(got, expected)
    assert {m for m, d in differences.items() if d > TOLERANCE} == methods


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_no_serious_accessibility_violation(visit, width, mode):
    page = visit.page
    page.set_viewport_size({"width": WIDTHS[width], "height": 800})
    visit.goto(PAGE)
    page.evaluate(f"document.documentElement.dataset.theme = '{mode}'")
    panel = open_panel(page)
    panel.get_by_role("textbox").click()
    panel.locator("xpath=self::*[@data-attention-sums]").wait_for()
    response = Axe().run(page, context=".d2l-live-panel").response
    severe = [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        f"{[node['target'] for node in v['nodes']][:3]}"
        for v in response["violations"]
        if v["impact"] in SEVERE
    ]
    assert severe == [], "\n".join(severe)
    # Readable on a phone: the panel fits the page's width.
    fits = panel.evaluate("root => root.scrollWidth <= root.clientWidth + 1")
    assert fits


def test_the_notebook_face_runs_with_its_weights_inline(page, expected):
    """In Jupyter and Colab the weights sit in the output itself: the same
    script reads them from there, with no kernel and no request."""
    import importlib

    live = importlib.import_module("d2l_local.live_panel")
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.set_content(
        '<!doctype html><html lang="en"><title>notebook</title><body>'
        + live.live_panel().to_html()
        + "</body></html>"
    )
    panel = open_panel(page)
    assert_equal_to_torch(page_bits(panel, FIXED), expected)
    assert requests == []


def test_the_panel_runs_from_disk(page):
    """Opened from file://, where fetch() of local files is blocked: the
    weights come as a script file."""
    from conftest import HTML

    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((HTML / PAGE).as_uri())
    panel = open_panel(page)
    expect(panel.locator("polyline[data-method]")).to_have_count(
        len(pretraining.METHODS)
    )
    assert errors == []
