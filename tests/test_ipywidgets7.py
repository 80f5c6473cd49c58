"""Every chapter with a control run headlessly with Colab's ipywidgets
(7.7.1) in the kernel instead of the book's ipywidgets 8: no cell may raise,
and every control's live face must be built, its figure the starting one.

``make test`` installs ipywidgets 7.7.1 into ``.venv/ipywidgets7``
(requirements-ipywidgets7.txt), which this test puts first on the kernel's
PYTHONPATH. Only the kernel side is Colab's: the front end is not. The
self-checks (d2l_local.quiz) use no widget: they must come out exactly as in
the reference notebook.
"""

from __future__ import annotations

import base64

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from conftest import (
    LANGUAGE_MODEL_CHAPTERS,
    ROOT,
    chapters_with_controls,
    unpack_control,
)

# Only the chapters with a control: the others use no widget, and the
# book's build, nbval and nbval on the generic CPU paths run them. The
# language-model chapters score the trained models (about 40 s each);
# real_text's one control, a row of buttons, is checked in
# tests/test_widgets.py (live face) and tests/test_controls_browser.py.
CHAPTERS = sorted(chapters_with_controls() - LANGUAGE_MODEL_CHAPTERS)
OVERLAY = ROOT / ".venv" / "ipywidgets7"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
VERSION = "import ipywidgets; print(ipywidgets.__version__, end='')"


def _live_figure_alt(state: dict, model_id: str) -> str:
    """The alt text of the figure in a control's Output widget, followed
    from the control's VBox in the saved widget state."""
    box = state[model_id]["state"]
    output = state[box["children"][-1].removeprefix("IPY_MODEL_")]["state"]
    (shown,) = output["outputs"]
    (image,) = BeautifulSoup(shown["data"]["text/html"], "html.parser")("img")
    return image["alt"]


def _self_check_outputs(notebook) -> list[str]:
    """The HTML of every self-check the notebook shows."""
    return [
        output["data"]["text/html"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if 'class="d2l-quiz"' in output.get("data", {}).get("text/html", "")
    ]


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_runs_with_colabs_ipywidgets(monkeypatch, name):
    assert (OVERLAY / "ipywidgets").is_dir(), "run make test (it installs it)"
    monkeypatch.setenv("PYTHONPATH", str(OVERLAY))
    notebook = nbformat.read(ROOT / "chapters" / f"{name}.ipynb", as_version=4)
    reference_checks = _self_check_outputs(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    notebook.cells = [nbformat.v4.new_code_cell(VERSION), *notebook.cells]
    try:
        NotebookClient(
            notebook,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(ROOT / "chapters")}},
        ).execute()
    except CellExecutionError as error:
        # The exception's own text is a long listing of the cell; CI shows
        # only the end of a failure, so name what was raised first.
        pytest.fail(f"{name}: a cell raised {error.ename}: {error.evalue}")
    assert notebook.cells[0].outputs[0]["text"] == "7.7.1"
    assert _self_check_outputs(notebook) == reference_checks
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", cell.source
            data = output.get("data", {})
            if WIDGET_VIEW not in data or "d2l-control" not in data.get(
                "text/html", ""
            ):
                continue  # not a control (a tqdm progress bar, say)
            static = BeautifulSoup(data["text/html"], "html.parser")
            control = static.select_one("div.d2l-control")
            start = control.select_one("img.d2l-control-frame")
            model_id = data[WIDGET_VIEW]["model_id"]
            assert _live_figure_alt(state["state"], model_id) == start["alt"]
            _, unpacked = unpack_control(control)
            prefix = "data:image/svg+xml;base64,"
            svg = base64.b64decode(start["src"].removeprefix(prefix)).decode()
            assert svg in unpacked["frames"]
