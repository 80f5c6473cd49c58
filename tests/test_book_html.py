"""The built HTML book (``make test`` builds it first): launch buttons,
figures, glued numbers."""

import re

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import ROOT

HTML = ROOT / "_build" / "html"
CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))


def _page(name: str) -> BeautifulSoup:
    """A built chapter; each typeset formula stands as its TeX source between
    \\( and \\), so that text checks read it as the page's source wrote it."""
    path = HTML / "chapters" / f"{name}.html"
    assert path.exists(), f"{path} is missing: run `make book` first"
    soup = BeautifulSoup(path.read_text(), "html.parser")
    for formula in soup.select("span.katex"):
        tex = formula.select_one('annotation[encoding="application/x-tex"]')
        assert tex is not None, f"a formula on {name} has no TeX annotation"
        formula.replace_with(rf"\({tex.get_text()}\)")
    return soup


@pytest.mark.parametrize("name", CHAPTERS)
def test_launch_buttons_open_this_pages_notebook(name):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]["url"].removeprefix("https://github.com/")
    branch = config["repository"]["branch"]
    links = {a["href"] for a in _page(name).find_all("a", href=True)}
    assert (
        f"https://colab.research.google.com/github/{repo}/blob/{branch}/"
        f"chapters/{name}.ipynb"
    ) in links
    assert (
        f"https://mybinder.org/v2/gh/{repo}/{branch}"
        f"?urlpath=lab/tree/chapters/{name}.ipynb"
    ) in links


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_figure_exists_and_has_alt_text(name):
    figures = [
        img
        for img in _page(name).select("article img")
        if "d2l-control-frame" not in img.get("class", [])
    ]
    notebook = nbformat.read(ROOT / "chapters" / f"{name}.ipynb", as_version=4)
    shown = [
        out
        for cell in notebook.cells
        if "remove-output" not in cell.metadata.get("tags", [])
        for out in cell.get("outputs", [])
        if "image/svg+xml" in out.get("data", {})
    ]
    assert len(figures) == len(shown), (
        "every figure of the notebook appears on the page"
    )
    for img in figures:
        assert img.get("alt", "").strip(), (
            f"figure without alt text: {img['src']}"
        )
        assert (HTML / "chapters" / img["src"]).resolve().is_file(), img["src"]


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_control_shows_its_starting_figure_with_alt_text(name):
    for control in _page(name).select("article .d2l-control"):
        image = control.select_one("img.d2l-control-frame")
        assert image["src"].startswith("data:image/svg+xml;base64,")
        assert image.get("alt", "").strip()
        for slider in control.select("input[type=range]"):
            assert control.select_one(f'label[for="{slider["id"]}"]').get_text(
                strip=True
            )


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_figure_and_control_has_a_numbered_caption(name):
    page = _page(name)
    shown = [
        img
        for img in page.select("article div.cell_output img")
        if not img.find_parent(class_="d2l-control")
    ] + page.select("article .d2l-control")
    for item in shown:
        figure = item.find_parent("figure")
        assert figure is not None and figure.get("id"), (
            f"{name}: a figure or control without a named caption"
        )
        number = figure.select_one("figcaption span.caption-number")
        assert number is not None and number.get_text(strip=True), (
            f"{name}: {figure['id']} has no caption number"
        )


@pytest.mark.parametrize("name", CHAPTERS)
def test_pages_carry_no_widget_state_or_widget_manager(name):
    page = _page(name)
    assert (
        page.select('script[type="application/vnd.jupyter.widget-state+json"]')
        == []
    )
    sources = [s["src"] for s in page.select("script[src]")]
    assert not [
        src for src in sources if "require" in src or "html-manager" in src
    ]


def test_self_attention_page_shows_the_computed_numbers():
    text = _page("self_attention").get_text(" ", strip=True)
    # the third row of A, printed for the reader to check by hand
    assert "[0.2483, 0.2483, 0.5035]" in text
    assert "without biases: 1,048,576" in text
    assert "with biases: 1,050,624" in text
    assert "output shape: (2, 4, 100)" in text


def test_core_pages_show_their_computed_numbers():
    comparing = _page("comparing_architectures").get_text(" ", strip=True)
    # the sizes at which PyTorch's counter matched every formula
    assert "10, 8, 3; 50, 16, 5 and 128, 64, 3" in comparing
    assert "1,572,864" in comparing  # the CNN's counted multiply-adds
    assert re.search(r"32 causal layers against 63\s+centred ones", comparing)
    assert re.search(r"12 causal\s+layers cover 4,096 positions", comparing)
    sinusoidal = _page("sinusoidal_encoding").get_text(" ", strip=True)
    assert r"for \(d = 512\) every 60,611 positions" in sinusoidal
    assert "7 in binary is 111" in sinusoidal
    relative = _page("relative_position").get_text(" ", strip=True)
    assert re.search(
        r"the largest error is \de-1\d\s+in\s+float64 and \de-0\d", relative
    )


# Pages that read measured values to the learner: the verdicts that guard
# them are hidden checks, never ": True" lines in the text.
MEASURED_PAGES = ["relative_position", "order_experiment", "offset_head"]


@pytest.mark.parametrize("chapter", MEASURED_PAGES)
def test_page_shows_values_not_verdict_lines(chapter):
    text = _page(chapter).get_text(" ", strip=True)
    assert not re.search(r": (True|False)\b", text), re.search(
        r".{60}: (True|False)", text
    )


def test_experiment_page_shows_its_measured_values():
    text = _page("order_experiment").get_text(" ", strip=True)
    assert re.search(r"scores exactly 0\.5", text)
    assert re.search(r"is (0|\de-\d\d) without positions", text)
    assert "0/300" not in text and "it/s" not in text, (
        "a stale progress bar is on the page"
    )


def test_pages_link_to_each_other():
    links = {
        a["href"] for a in _page("self_attention").select("article a[href]")
    }
    assert "sinusoidal_encoding.html" in links


@pytest.mark.parametrize("name", CHAPTERS)
def test_download_button_gives_the_executed_notebook(name):
    link = _page(name).select_one('a[href^="../_sources/"][href$=".ipynb"]')
    assert link is not None, "no notebook download on the page"
    offered = (HTML / "chapters" / link["href"]).resolve()
    notebook = nbformat.read(str(offered), as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)
    assert sum(bool(cell.outputs) for cell in code) >= len(code) // 2


def test_bibliography_lists_every_entry_with_a_link_and_each_is_cited():
    keys = re.findall(
        r"^@\w+\{(\w+),", (ROOT / "references.bib").read_text(), re.M
    )
    sources = [
        p.read_text()
        for p in [ROOT / "intro.md", *(ROOT / "chapters").glob("*.md")]
    ]
    cited = {
        key
        for text in sources
        for group in re.findall(r"\{cite:[tp]\}`([^`]+)`", text)
        for key in group.split(",")
    }
    assert cited == set(keys), (
        f"in references.bib but never cited: {set(keys) - cited}"
    )
    page = BeautifulSoup(
        (HTML / "bibliography.html").read_text(), "html.parser"
    )
    entries = page.select("div.citation")
    assert len(entries) == len(keys)
    for entry in entries:
        links = [a["href"] for a in entry.select("a[href]")]
        text = entry.get_text(" ", strip=True)
        # Papers link their DOI or arXiv page; a blog post, its own address.
        wanted = ("https://doi.org/", "https://arxiv.org/abs/")
        if "Blog post" in text:
            wanted = ("https://",)
        assert any(link.startswith(wanted) for link in links), text[:80]


def test_textbook_citations_for_intra_attention_and_path_length():
    text = _page("self_attention").get_text(" ", strip=True)
    for author in ("Cheng", "Parikh", "Paulus", "Lin"):
        assert author in text
    assert "Hochreiter" in _page("comparing_architectures").get_text(
        " ", strip=True
    )


@pytest.mark.parametrize("name", [c for c in CHAPTERS if c != "exercises"])
def test_chapter_ends_with_summary_and_exercises_with_running_solutions(name):
    page = _page(name)
    headings = [
        # without its number ("3.6. Summary")
        re.sub(r"^[\d.]+\s*", "", h.get_text(" ", strip=True))
        .rstrip("#")
        .strip()
        for h in page.select("article.bd-article section > h2")
    ]
    assert headings[-2:] == ["Summary", "Exercises"], headings
    assert headings[0] == "Overview", headings
    exercises = page.select("div.exercise")
    solutions = page.select("div.solution")
    assert len(exercises) >= 2 and len(solutions) == len(exercises)
    for solution in solutions:
        assert solution.select("div.cell div.cell_output"), (
            "a solution without code that ran in the build"
        )


def _chapter_numbers() -> dict[str, int]:
    """Each chapter's number: its place in _toc.yml (numbered there)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    assert toc.get("options", {}).get("numbered"), "the chapters are numbered"
    files = [entry["file"] for entry in toc["chapters"]]
    return {
        name: files.index(f"chapters/{name}") + 1
        for name in CHAPTERS
        if f"chapters/{name}" in files
    }


@pytest.mark.parametrize("name", CHAPTERS)
def test_figures_equations_and_exercises_are_numbered_per_chapter(name):
    """As in d2l, a reader landing on a page knows where they are: the
    figures of chapter 3 are Fig. 3.1, 3.2, ..., its equations (3.1), ...,
    its exercises Exercise 3.1, ..., each counted from 1 on the page."""
    chapter = _chapter_numbers()[name]
    page = _page(name)
    captions = [
        span.get_text(" ", strip=True)
        for span in page.select("article span.caption-number")
    ]
    for kind in ("Fig.", "Exercise"):
        numbers = [c for c in captions if c.startswith(kind)]
        expected = [
            f"{kind} {chapter}.{k}" for k in range(1, len(numbers) + 1)
        ]
        assert numbers == expected, (kind, numbers)
    equations = [
        span.find(string=True).strip()
        for span in page.select("article div.math span.eqno")
    ]
    assert equations == [
        f"({chapter}.{k})" for k in range(1, len(equations) + 1)
    ]
    title = page.select_one("article.bd-article h1").get_text(" ", strip=True)
    assert title.startswith(f"{chapter}. "), title


def test_reference_list_labels_read_as_the_citations_do():
    """The pages cite "Vaswani et al., 2017"; the reference list labels
    that entry the same way, so that a reader can find it."""
    cited = set()
    pages = [_page(name) for name in CHAPTERS] + [
        BeautifulSoup((HTML / "intro.html").read_text(), "html.parser")
    ]
    for page in pages:
        for citation in page.select("span.bibtex-citation"):
            text = " ".join(citation.get_text().split())
            if text.startswith("["):  # {cite:p}: "[Cheng et al., 2016, ...]"
                cited.update(
                    " ".join(a.get_text().split())
                    for a in citation.select("a")
                )
            else:  # {cite:t}: "Kazemnejad [2019]"
                for who, year in re.findall(r"([^\[\]]+?) \[([^\]]+)\]", text):
                    cited.add(f"{who.strip(' ,')}, {year}")
    page = BeautifulSoup(
        (HTML / "bibliography.html").read_text(), "html.parser"
    )
    labels = {
        " ".join(label.get_text().strip("[] ").split())
        for label in page.select("div.citation span.label")
    }
    assert cited and labels == cited, (
        f"labels no page cites: {sorted(labels - cited)[:5]}; "
        f"citations with no label: {sorted(cited - labels)[:5]}"
    )


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_opens_with_labelled_links_to_run_it_and_report_a_problem(
    name,
):
    """Under the title, visible and labelled: Open in Colab, Open in Binder
    and Report a problem (the repository's issues), all from repository.url
    in _config.yml."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"]
    page = _page(name)
    bar = page.select_one("article.bd-article h1 + nav.book-launch")
    assert bar is not None, "no launch links under the title"
    links = {a.get_text(strip=True): a["href"] for a in bar.select("a")}
    assert set(links) == {
        "Open in Colab",
        "Open in Binder",
        "Report a problem",
    }
    assert links["Open in Colab"].startswith(
        "https://colab.research.google.com/github/"
    ) and links["Open in Colab"].endswith(f"chapters/{name}.ipynb")
    assert links["Open in Binder"].startswith("https://mybinder.org/v2/gh/")
    assert links["Report a problem"].startswith(f"{url}/issues/new")


@pytest.mark.parametrize("name", CHAPTERS)
def test_library_listings_start_collapsed_behind_what_they_are(name):
    """Library code (d2l.show_source) starts closed, behind "Library code:
    PositionalEncoding, 24 lines"."""
    listings = _page(name).select("div.d2l-source")
    for listing in listings:
        details = listing.find_parent("details")
        assert details is not None and not details.has_attr("open")
        summary = details.find("summary").get_text(" ", strip=True)
        names = [n.rsplit(".", 1)[-1] for n in listing["data-source"].split()]
        lines = listing.select_one("pre").get_text().strip("\n").count("\n")
        assert summary == (
            f"Library code: {', '.join(names)}, {lines + 1} lines"
        ), summary


@pytest.mark.parametrize("name", CHAPTERS)
def test_setup_bar_says_it_is_the_colab_setup(name):
    summary = _page(name).select_one("div.tag_hide-cell details summary")
    assert summary is not None, "the setup cell is not hidden"
    assert "Colab setup" in summary.get_text(" ", strip=True)


# Marks of KaTeX's fonts in a formula's HTML (as _ext/book_math.py reads them).
KATEX_FONTS = {
    "KaTeX_Main-Regular": "katex",
    "KaTeX_Math-Italic": "mathnormal",
    "KaTeX_Main-Bold": "mathbf",
    "KaTeX_AMS-Regular": "mathbb",
    "KaTeX_Size1-Regular": "small-op",
    "KaTeX_Size2-Regular": "large-op",
}


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_fonts_of_the_opening_and_no_others_are_preloaded(name):
    path = HTML / "chapters" / f"{name}.html"
    page = BeautifulSoup(path.read_text(), "html.parser")  # formulas kept
    preloaded = {
        link["href"].rsplit("/", 1)[1].removesuffix(".woff2")
        for link in page.select('link[rel="preload"][as="font"]')
    }
    overview = page.select_one("section#overview")
    opening = [page.select_one("h1")] + (
        [overview] if overview is not None else []
    )
    used = {
        font
        for font, mark in KATEX_FONTS.items()
        for part in opening
        if part.select(f".{mark}")
    }
    assert preloaded == used
