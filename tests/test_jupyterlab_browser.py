"""Every chapter as an instructor runs it: JupyterLab served on localhost,
driven by Playwright in Debian's Chromium. Each chapter's notebook is opened:
Jupyter must change nothing in it but the Python version, each control
shows its static face, and each self-check its questions with their buttons
disabled (no script runs in a notebook Jupyter does not trust). Then it is
run whole; no cell may raise. Then every control's sliders are moved with
the keyboard and the pointer, and after each move the value shown must be
the slider's and the figure the one drawn for the values shown (its alt
text and its SVG, checked against the figures the control itself carries).
Then every question of every self-check is answered wrongly and then
rightly, by pointer and by keyboard, and each answer's feedback must show.

Slider response times (key press to new figure) go to
``_build/jupyterlab-sliders.json`` for the closing report; nothing is timed
against a target here.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from playwright.sync_api import expect

from conftest import (
    LANGUAGE_MODEL_CHAPTERS,
    ROOT,
    answer_wrong_then_right,
    chapters_with_controls,
    self_checks,
    unpack_control,
)
from d2l_local.widgets import frame_index

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.ipynb"))
# Opened here but not run, to keep make test within its time: the chapters
# without a control (nothing for the widget front end to do; the book's
# build, nbval and nbval on the generic CPU paths run them), and real_text,
# inside_models and stretching_rope, which load and score the trained models
# (about 40 s each here). real_text's one control, a row of buttons, is
# not driven in a front end: tests/test_widgets.py checks its live face
# (ToggleButtons) and tests/test_controls_browser.py its static one.
OPENED_ONLY = (
    set(CHAPTERS) - chapters_with_controls()
) | LANGUAGE_MODEL_CHAPTERS
# A control's outer element; the live panel's "d2l-control-data" script is
# not one.
CONTROL = re.compile(r'class="[^"]*\bd2l-control(?![-\w])')
JUPYTER = Path(sys.executable).parent / "jupyter"
TIMES = ROOT / "_build" / "jupyterlab-sliders.json"
SVG_PREFIX = "data:image/svg+xml;base64,"

# JupyterLab's notebook draws every cell (no windowing), so that every
# control is in the page; no news prompt.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none"
    },
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false"
    },
}

KERNEL_IDLE = """() => {
  const panel = window.jupyterapp?.shell.currentWidget;
  const kernel = panel?.sessionContext?.session?.kernel;
  return kernel?.status === "idle";
}"""

# Run all stops at a cell that raises: then the run is over too.
ALL_RUN = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = [...panel.content.model.cells]
    .filter((c) => c.type === "code");
  const raised = cells.some((c) => c.outputs.toJSON()
    .some((o) => o.output_type === "error"));
  return panel.sessionContext.session.kernel.status === "idle" &&
    (raised || cells.every((c) => c.executionCount !== null));
}"""

# Each code cell's number, outputs, and the name of the control it shows
# (from the static face in the same output); the cell's DOM node is marked
# with that name so that the test finds the control by it.
CELLS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.content.widgets.map((cell, index) => {
    if (cell.model.type !== "code") return null;
    const outputs = cell.model.outputs.toJSON();
    let control = null;
    for (const output of outputs) {
      const html = output.data?.["text/html"];
      const live = output.data?.["application/vnd.jupyter.widget-view+json"];
      const match = live && html && /data-name="([^"]+)"/.exec(html);
      if (match) {
        control = {name: match[1], html};
        cell.node.dataset.control = match[1];
      }
    }
    return {index, count: cell.model.executionCount, outputs, control};
  }).filter((cell) => cell !== null);
}"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server over copies of the chapters' notebooks (running
    them must not touch the repository's), with settings and workspaces of
    its own."""
    home = tmp_path_factory.mktemp("jupyterlab")
    notebooks = home / "notebooks"
    notebooks.mkdir()
    for name in CHAPTERS:
        shutil.copy(ROOT / "chapters" / f"{name}.ipynb", notebooks)
    settings = home / "settings"
    for path, values in SETTINGS.items():
        (settings / path).parent.mkdir(parents=True, exist_ok=True)
        (settings / path).write_text(json.dumps(values))
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
    }
    server = subprocess.Popen(
        [
            str(JUPYTER),
            "lab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={notebooks}",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            # The test stops kernels with plain DELETE requests.
            "--ServerApp.disable_check_xsrf=True",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.extension_manager=readonly",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(home / "server.log").open("w"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail((home / "server.log").read_text())
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start within a minute")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def slider_times():
    times: dict[str, list[float]] = {}
    yield times
    TIMES.parent.mkdir(exist_ok=True)
    TIMES.write_text(json.dumps(times, indent=1))


def _shut_down_kernels(url: str) -> None:
    """A chapter's kernel stays up after its page closes: stop them all."""
    with urllib.request.urlopen(f"{url}/api/kernels") as response:
        kernels = json.load(response)
    for kernel in kernels:
        request = urllib.request.Request(
            f"{url}/api/kernels/{kernel['id']}", method="DELETE"
        )
        urllib.request.urlopen(request).close()


def _open(page, url: str, name: str) -> None:
    # ?reset: a fresh workspace, so no earlier chapter reopens beside it.
    page.goto(f"{url}/lab/tree/{name}.ipynb?reset")
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)


def _metadata_as_opened(page) -> dict:
    return page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.context.model"
        ".toJSON().metadata"
    )


def _comparable(metadata: dict) -> dict:
    """Notebook metadata less the widget state and the Python version that
    the kernel reports (which differs from machine to machine)."""
    metadata = json.loads(json.dumps(metadata))
    metadata.pop("widgets", None)
    metadata.get("language_info", {}).pop("version", None)
    return metadata


def _run_all(page) -> list[dict]:
    page.evaluate(
        "() => window.jupyterapp.commands.execute('notebook:run-all-cells')"
    )
    page.wait_for_function(ALL_RUN, timeout=420_000, polling=500)
    return page.evaluate(CELLS)


class LiveControl:
    """One control's live face in the page, and the figures it must show."""

    def __init__(self, page, control: dict):
        soup = BeautifulSoup(control["html"], "html.parser")
        data, unpacked = unpack_control(soup.select_one("div.d2l-control"))
        self.labels = data["labels"]
        self.frames, self.alts = unpacked["frames"], unpacked["alts"]
        self.name = control["name"]
        cell = page.locator(f'[data-control="{self.name}"]')
        self.sliders = cell.locator(".widget-slider")
        self.figure_selector = (
            f'[data-control="{self.name}"] .widget-output img'
        )
        self.figure = page.locator(self.figure_selector)
        self.static = cell.locator(".d2l-control")
        self.page = page

    def shown_values(self) -> list[str]:
        return [
            self.sliders.nth(k).locator(".widget-readout").inner_text()
            for k in range(len(self.labels))
        ]

    def frame_shown_values(self) -> int:
        """Which frame belongs to the values the sliders show."""
        positions = [
            labels.index(value)
            for labels, value in zip(self.labels, self.shown_values())
        ]
        return frame_index([len(x) for x in self.labels], positions)

    def wait_for_figure(self) -> float:
        """Seconds until the figure shows the alt text of the frame for the
        values shown; then checks that its SVG is that frame's."""
        index = self.frame_shown_values()
        alt = self.alts[index]
        start = time.perf_counter()
        # Queried afresh on every poll: each new figure is a new element.
        self.page.wait_for_function(
            "([selector, alt]) => document.querySelector(selector)?.alt"
            " === alt",
            arg=[self.figure_selector, alt],
            timeout=10_000,
        )
        seconds = time.perf_counter() - start
        src = self.figure.get_attribute("src")
        assert src.startswith(SVG_PREFIX)
        svg = base64.b64decode(src[len(SVG_PREFIX) :]).decode()
        assert svg == self.frames[index]
        return seconds


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_runs_and_its_controls_answer_in_jupyterlab(
    page, jupyterlab, slider_times, name
):
    page.set_viewport_size({"width": 1280, "height": 900})
    _shut_down_kernels(jupyterlab)
    _open(page, jupyterlab, name)
    # Opened, not run: Jupyter changes nothing but the Python version it
    # records, and shows each control's static face (an untrusted notebook's
    # outputs never use the widget view).
    saved = nbformat.read(ROOT / "chapters" / f"{name}.ipynb", as_version=4)
    assert _comparable(_metadata_as_opened(page)) == _comparable(
        saved.metadata
    )
    faces = page.locator(".jp-OutputArea-output .d2l-control")
    expect(faces).to_have_count(
        sum(
            bool(CONTROL.search(output.get("data", {}).get("text/html", "")))
            for cell in saved.cells
            for output in cell.get("outputs", [])
        )
    )
    assert page.get_by_text("Error displaying widget").count() == 0
    saved_checks = sum(
        len(self_checks(output.get("data", {}).get("text/html", "")))
        for cell in saved.cells
        for output in cell.get("outputs", [])
    )
    untrusted = page.locator(".jp-OutputArea-output .d2l-quiz")
    expect(untrusted).to_have_count(saved_checks)
    if saved_checks:
        expect(untrusted.locator("button").first).to_be_disabled()
        expect(untrusted.locator("button:enabled")).to_have_count(0)
    if name in OPENED_ONLY:
        return
    cells = _run_all(page)
    errors = [
        f"cell {cell['index']}: {output['ename']}: {output['evalue']}"
        for cell in cells
        for output in cell["outputs"]
        if output["output_type"] == "error"
    ]
    assert errors == []
    assert all(cell["count"] is not None for cell in cells)
    for cell in cells:
        if cell["control"] is None:
            continue
        control = LiveControl(page, cell["control"])
        assert control.sliders.count() == len(control.labels)
        assert control.static.count() == 0, "both faces show"
        times = slider_times.setdefault(f"{name}/{control.name}", [])
        control.wait_for_figure()
        for k, labels in enumerate(control.labels):
            slider = control.sliders.nth(k)
            handle = slider.locator(".noUi-handle")
            handle.focus()
            for key, position in [
                ("End", len(labels) - 1),
                ("Home", 0),
                ("ArrowRight", min(1, len(labels) - 1)),
            ]:
                handle.press(key)
                assert control.shown_values()[k] == labels[position], key
                times.append(control.wait_for_figure())
            # The pointer: a click at the right end of the track.
            box = slider.locator(".noUi-target").bounding_box()
            page.mouse.click(
                box["x"] + box["width"] - 1, box["y"] + box["height"] / 2
            )
            assert control.shown_values()[k] == labels[-1], "pointer"
            times.append(control.wait_for_figure())
    answered = 0
    for cell in cells:
        for output in cell["outputs"]:
            html = output.get("data", {}).get("text/html", "")
            for root_id, questions in self_checks(html).items():
                answered += 1
                root = page.locator(f"#{root_id}")
                expect(root).to_have_attribute("data-ready", "true")
                for question in questions:
                    for keyboard in (False, True):
                        answer_wrong_then_right(page, root, question, keyboard)
    assert answered == saved_checks
