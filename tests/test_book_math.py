"""The book's Sphinx extension for formulas (_ext/book_math.py)."""

import sys

from docutils import nodes

from conftest import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
import book_math  # noqa: E402


def _paragraph(*children):
    document = nodes.document(None, None)
    paragraph = nodes.paragraph("", "", *children)
    document += paragraph
    return document, paragraph


def test_punctuation_joins_its_formula_and_nothing_else_moves():
    # A ", " between two other nodes comes first: the same text as the
    # one after the formula (relative_family lost its comma so).
    document, paragraph = _paragraph(
        nodes.emphasis("", "a"),
        nodes.Text(", "),
        nodes.emphasis("", "b"),
        nodes.Text(" up to "),
        nodes.math("", "L"),
        nodes.Text(", "),
        nodes.emphasis("", "c"),
        nodes.Text(" and "),
        nodes.math("", "n"),
        nodes.Text("."),
    )
    before = paragraph.astext()
    book_math.keep_punctuation_with_formulas(None, document, "page")
    assert paragraph.astext() == before
    joined = [node.astext() for node in paragraph.findall(nodes.inline)]
    assert joined == ["L,", "n."]
    assert paragraph[1].astext() == ", "
