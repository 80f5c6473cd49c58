"""The chapters' MyST sources, their executed reference notebooks and the
Colab setup cell."""

import ast
import importlib.util
import subprocess
import sys
import types

import jupytext
import nbformat
import pytest
import yaml
from IPython.core.inputtransformer2 import TransformerManager
from IPython.core.interactiveshell import InteractiveShell
from jupyter_client.kernelspec import KernelSpecManager

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import setup_cell  # noqa: E402

SOURCES = sorted((ROOT / "chapters").glob("*.md"))
IGNORE_TAG = "nbval-ignore-output"


def _code_cells(notebook):
    return [
        (cell.source, cell.metadata.get("tags", []))
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]


# Why a cell's output is not compared: in its metadata, out of the code
# that readers see.
REASON_KEY = "nbval-ignore-reason"


def test_every_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    listed = {
        entry["file"]
        for entry in toc["chapters"]
        if entry["file"].startswith("chapters/")
    }
    assert listed == {f"chapters/{path.stem}" for path in SOURCES}
    assert SOURCES, "no chapter found"


@pytest.mark.parametrize(
    "path",
    SOURCES + [s.with_suffix(".ipynb") for s in SOURCES],
    ids=lambda p: p.name,
)
def test_kernelspec_is_what_jupyter_writes_and_nothing_is_paired(path):
    """Opening a notebook whose kernelspec differs from the kernel's marks it
    modified; a jupytext pairing would make saving the notebook rewrite the
    chapter's source."""
    spec = KernelSpecManager().get_kernel_spec("python3")
    if path.suffix == ".ipynb":
        metadata = nbformat.read(path, as_version=4).metadata
    else:
        metadata = jupytext.read(path).metadata
    assert dict(metadata["kernelspec"]) == {
        "display_name": spec.display_name,
        "language": spec.language,
        "name": "python3",
    }
    assert "formats" not in metadata.get("jupytext", {})


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_reference_notebook_has_the_same_code_as_its_source(source):
    reference = source.with_suffix(".ipynb")
    assert reference.exists(), (
        f"{reference.name} is missing: run `make references`"
    )
    expected = _code_cells(jupytext.read(source))
    actual = _code_cells(nbformat.read(reference, as_version=4))
    assert actual == expected, (
        f"{reference.name} is stale: run `make references`"
    )


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_reference_notebook_was_executed_whole_in_order(source):
    notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    counts = [
        cell.execution_count
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]
    assert counts == list(range(1, len(counts) + 1))
    errors = [
        out
        for cell in notebook.cells
        for out in cell.get("outputs", [])
        if out.output_type == "error"
    ]
    assert errors == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_code_lines_fit_the_pages_code_blocks(source):
    """The book's code blocks show about 80 characters before they scroll."""
    long = [
        line
        for cell_source, _ in _code_cells(jupytext.read(source))
        for line in cell_source.splitlines()
        if len(line) > 79
    ]
    assert long == [], (
        f"code lines over 79 characters in {source.name}: {long}"
    )


# Library calls whose result shows only as a cell's last value.
SHOWN_AS_VALUE = {
    "d2l.table",
    "d2l.self_check",
    "d2l.choice_control",
    "d2l.choice_controls",
    "d2l.show_source",
}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_table_and_control_is_its_cells_last_value(source):
    """A table, self-check, control or listing called as a bare statement
    before other code is built and dropped: the page never shows it."""
    dropped = []
    for cell_source, _ in _code_cells(jupytext.read(source)):
        body = ast.parse(TransformerManager().transform_cell(cell_source)).body
        dropped += [
            ast.unparse(statement.value.func)
            for statement in body[:-1]
            if isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and ast.unparse(statement.value.func) in SHOWN_AS_VALUE
        ]
    assert dropped == [], f"{source.name} never shows: {dropped}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_every_ignored_output_is_justified_in_the_cell_metadata(source):
    for cell in jupytext.read(source).cells:
        if cell.cell_type != "code":
            continue
        tagged = IGNORE_TAG in cell.metadata.get("tags", [])
        reason = str(cell.metadata.get(REASON_KEY, "")).strip()
        assert tagged == bool(reason), (
            f"{IGNORE_TAG} and a non-empty {REASON_KEY} go together:\n"
            f"{cell.source}"
        )
        assert IGNORE_TAG not in cell.source, (
            "the reason belongs in the metadata"
        )


@pytest.mark.parametrize(
    "path",
    SOURCES + [s.with_suffix(".ipynb") for s in SOURCES],
    ids=lambda p: p.name,
)
def test_first_code_cell_is_the_setup_cell_from_config(path):
    notebook = jupytext.read(path)
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert first.source == setup_cell.setup_cell()
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"][
        "url"
    ]
    assert f'BOOK_REPOSITORY = "{url}"' in first.source


def _run_setup_cell(monkeypatch, on_colab: bool, installed: bool) -> list:
    calls = []

    def run(*args, **kwargs):
        calls.append((args, kwargs))
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(subprocess, "run", run)
    if on_colab:
        monkeypatch.setitem(
            sys.modules, "google.colab", types.ModuleType("google.colab")
        )
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            (real_find_spec("d2l_local") if installed else None)
            if name == "d2l_local"
            else real_find_spec(name, *a)
        ),
    )
    exec(compile(setup_cell.setup_cell(), "<setup cell>", "exec"), {})
    return calls


def test_setup_cell_installs_from_the_repository_on_colab(monkeypatch):
    calls = _run_setup_cell(monkeypatch, on_colab=True, installed=False)
    url = setup_cell.repository_url()
    assert calls == [
        (
            (
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    f"git+{url}",
                ],
            ),
            {"capture_output": True, "text": True},
        )
    ]


def test_setup_cell_stops_with_what_to_do_when_pip_fails(monkeypatch, capsys):
    """The cell as Colab runs it, with a repository pip cannot reach: pip's
    own error, then one message naming the URL and the way out, and no
    traceback."""
    monkeypatch.setitem(
        sys.modules, "google.colab", types.ModuleType("google.colab")
    )
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "d2l_local" else real_find_spec(name),
    )
    unreachable = "file:///nonexistent/self-attention-book"
    source = setup_cell.setup_cell().replace(
        setup_cell.repository_url(), unreachable
    )
    shell = InteractiveShell.instance()
    result = shell.run_cell(source)
    shown = capsys.readouterr()
    assert type(result.error_in_exec).__name__ == "SetupFailed"
    assert "git" in shown.err.lower()  # pip's own reason
    assert f"from git+{unreachable} " in shown.out
    assert "Set BOOK_REPOSITORY in this cell" in shown.out
    assert "Traceback" not in shown.out + shown.err


@pytest.mark.parametrize(
    "on_colab, installed", [(False, False), (False, True), (True, True)]
)
def test_setup_cell_does_nothing_elsewhere(monkeypatch, on_colab, installed):
    assert _run_setup_cell(monkeypatch, on_colab, installed) == []


def test_setup_cell_tool_detects_and_rewrites_a_stale_cell(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_config.yml").write_text(
        "repository:\n  url: https://example.org/new\n"
    )
    page = tmp_path / "chapters" / "page.md"
    page.write_text(
        "# T\n\n```{code-cell} ipython3\n:tags: [hide-cell]\n\n"
        "print('old')\n```\n"
        "\n```{code-cell} ipython3\nprint('body')\n```\n"
    )
    assert setup_cell.main(["--check"], root=tmp_path) == 1
    assert setup_cell.main(["--write"], root=tmp_path) == 0
    assert setup_cell.main(["--check"], root=tmp_path) == 0
    text = page.read_text()
    assert 'BOOK_REPOSITORY = "https://example.org/new"' in text
    assert (
        setup_cell.SETUP_HEADER in text
        and "print('body')" in text
        and "old" not in text
    )


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_setup_cell_is_hidden_behind_a_bar_that_names_it(source):
    """The book hides the setup cell behind a bar; the bar says that it is
    the Colab setup, not "Show code cell content"."""
    first = next(
        cell
        for cell in jupytext.read(source).cells
        if cell.cell_type == "code"
    )
    assert "hide-cell" in first.metadata.get("tags", [])
    prompts = first.metadata.get("mystnb", {})
    for key in ("code_prompt_show", "code_prompt_hide"):
        assert "Colab setup" in prompts.get(key, ""), (source.name, key)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_chapters_ask_for_determinism_through_the_library(source):
    """torch's switch alone makes CUDA matrix products raise without the cuBLAS
    setting that d2l.deterministic() adds."""
    code = "\n".join(
        cell_source for cell_source, _ in _code_cells(jupytext.read(source))
    )
    assert "use_deterministic_algorithms" not in code, (
        f"{source.name}: call d2l.deterministic() instead of "
        "torch.use_deterministic_algorithms"
    )
    if "train_classifier(" in code:
        assert "d2l.deterministic()" in code, (
            f"{source.name} trains without d2l.deterministic()"
        )
