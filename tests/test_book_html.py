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
    assert (
        "weight 0.2483 to each of the first two tokens and 0.5035 to itself"
        in text
    )
    assert (
        "1,048,576 parameters without biases and 1,050,624 with them" in text
    )
    assert "output shape: (2, 4, 100)" in text


def test_core_pages_show_their_computed_numbers():
    comparing = _page("comparing_architectures").get_text(" ", strip=True)
    assert "mismatches: 0" in comparing
    assert (
        "attention step alone: cheaper than the tanh RNN while n < 64 "
        "(d = 64)" in comparing
    )
    assert (
        "layer with projections: costs more than the tanh RNN at every n "
        "from 1 to 639: True" in comparing
    )
    assert (
        "layer with projections: cheaper than the LSTM for n = 1 to 127, "
        "and only there: True" in comparing
    )
    sinusoidal = _page("sinusoidal_encoding").get_text(" ", strip=True)
    assert r"for \(d = 512\) every 60,611 positions" in sinusoidal
    assert "7 in binary is 111" in sinusoidal
    relative = _page("relative_position").get_text(" ", strip=True)
    assert re.search(r"float32: largest error below 1e-6: +True", relative)
    assert re.search(r"float64: largest error below 1e-12: +True", relative)


def test_experiment_page_shows_its_verdicts():
    text = _page("order_experiment").get_text(" ", strip=True)
    assert "none: near 0.5: every seed within 0.35-0.65, not solved" in text
    assert "causal (NoPE): solved: every seed >= 0.95" in text
    assert (
        "no positions, every seed answers each mirror pair alike: True" in text
    )
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
        h.get_text(" ", strip=True).rstrip("#").strip()
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
