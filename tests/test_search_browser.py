"""The book's search quotes prose around each hit, not code or headings."""
from __future__ import annotations

import pytest

CODE_MARKS = ("import ", "torch.", "print(", "Contents Overview")


@pytest.mark.parametrize("query", ["rotation", "positional encoding", "causal mask"])
def test_search_results_quote_prose(visit, query):
    page = visit.goto(f"search.html?q={query}")
    quotes = page.locator("#search-results li p.context")
    quotes.first.wait_for(timeout=15000)
    page.wait_for_timeout(1000)  # every result's quote is fetched on its own
    texts = quotes.all_inner_texts()
    assert len(texts) >= 2
    code = [text for text in texts if any(mark in text for mark in CODE_MARKS)]
    assert code == [], f"quotes with code or headings: {code}"
