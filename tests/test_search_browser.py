"""The book's search quotes prose around each hit, not code or headings."""

from __future__ import annotations

import pytest

CODE_MARKS = ("import ", "torch.", "print(", "Contents Overview")


@pytest.mark.parametrize(
    "query", ["rotation", "positional encoding", "causal mask"]
)
def test_search_results_quote_prose(visit, query):
    page = visit.goto(f"search.html?q={query}")
    quotes = page.locator("#search-results li p.context")
    quotes.first.wait_for(timeout=15000)
    page.wait_for_timeout(1000)  # every result's quote is fetched on its own
    texts = quotes.all_inner_texts()
    assert len(texts) >= 2
    code = [text for text in texts if any(mark in text for mark in CODE_MARKS)]
    assert code == [], f"quotes with code or headings: {code}"


@pytest.mark.parametrize(
    "query, chapter",
    [
        ("masked_softmax", "self_attention"),
        ("PositionalEncoding", "sinusoidal_encoding"),
        ("rope", "relative_position"),
    ],
)
def test_search_finds_the_page_that_shows_the_code(visit, query, chapter):
    page = visit.goto(f"search.html?q={query}")
    results = page.locator("#search-results li a")
    results.first.wait_for(timeout=15000)
    hrefs = [
        results.nth(i).get_attribute("href") for i in range(results.count())
    ]
    assert any(f"{chapter}.html" in href for href in hrefs), hrefs
