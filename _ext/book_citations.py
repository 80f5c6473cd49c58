"""Sphinx extension of this book: the reference list labelled as the pages
cite.

The pages cite by author and year ("Vaswani et al., 2017",
``bibtex_reference_style: author_year``), while the reference list labelled
its entries the way pybtex's default style does ("VSP+17"), which a reader
cannot match with the citation. The style registered here, named in
``bibtex_default_style``, labels each entry with the names and year its
citations show (one author; two joined by "and"; three or more as the
first and "et al.", as sphinxcontrib-bibtex's author-year style writes
them) and sorts the list by author, year and title.
"""

from __future__ import annotations

from collections import Counter
from string import ascii_lowercase

from pybtex.plugin import find_plugin, register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from sphinx.application import Sphinx

STYLE = "book_author_year"


def who(entry) -> str:
    """The names a citation of ``entry`` shows, as plain text."""
    names = find_plugin("pybtex.style.names", "last")()
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    last = [
        names.format(person, abbr=True).format().render_as("text")
        for person in persons
    ]
    if len(last) >= 3:
        return f"{last[0]} et al."
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return last[0] if last else entry.fields.get("title", "")


class AuthorYearLabels(BaseLabelStyle):
    """Labels such as "Vaswani et al., 2017"; equal ones get a letter."""

    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [
            f"{who(entry)}, {entry.fields.get('year', '')}"
            for entry in entries
        ]
        repeated, seen = Counter(labels), Counter()
        for label in labels:
            if repeated[label] > 1:
                seen[label] += 1
                label += ascii_lowercase[seen[label] - 1]
            yield label


class AuthorYearStyle(PlainStyle):
    """pybtex's plain style (sorted by author, year, title) with author-year
    labels."""

    default_label_style = AuthorYearLabels


def setup(app: Sphinx) -> dict:
    register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
