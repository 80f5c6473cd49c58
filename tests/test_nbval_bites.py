"""nbval must catch a change in the library's numbers: run it on the
self-attention page against a copy of d2l_local whose attention scaling is
wrong (divide by d_h instead of sqrt(d_h)) and expect cells to fail, while the
untouched library passes the same run in ``make test``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from conftest import ROOT

CHAPTER = ROOT / "chapters" / "self_attention.ipynb"
CORRECT = "/ math.sqrt(d_h)"
WRONG = "/ d_h"


def run_nbval(library_parent, tmp_path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(library_parent),
        "IPYKERNEL_CELL_NAME": "<IPY-INPUT>",
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            str(ROOT / "tests" / "nbval_sanitize.cfg"),
            "--rootdir",
            str(tmp_path),
            "-q",
            str(CHAPTER),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def failure_sections(report: str) -> dict[str, str]:
    """Each failed cell's part of pytest's report, from its "::Cell N"
    header to the next header or the short test summary."""
    body = report.split("short test summary info")[0]
    parts = re.split(r"^_+ ::Cell (\d+) _+$", body, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_nbval_fails_when_the_attention_numbers_change(tmp_path):
    changed = tmp_path / "changed"
    shutil.copytree(
        ROOT / "d2l_local",
        changed / "d2l_local",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    source = changed / "d2l_local" / "attention.py"
    text = source.read_text()
    assert text.count(CORRECT) == 1, (
        "the line this test changes has moved; update the test"
    )
    source.write_text(text.replace(CORRECT, WRONG))

    result = run_nbval(changed, tmp_path)
    report = result.stdout + result.stderr
    summary = re.search(r"(\d+) failed, (\d+) passed", report)
    assert result.returncode == 1 and summary, report[-3000:]
    failed, passed = map(int, summary.groups())
    assert failed >= 1 and passed >= 1, (
        "some cells fail, the rest still run and match"
    )
    # The cells ran; what they printed no longer matches the reference, or
    # a hidden check that guards the page's prose stopped them. Count cells,
    # not lines: with CI set, pytest repeats each failure's message
    # untruncated in the short summary.
    failed_cells = set(re.findall(r"^_+ ::Cell (\d+) _+$", report, re.M))
    differing_cells = set(
        re.findall(r"Cell (\d+): Cell outputs differ", report)
    )
    stopped_cells = set(
        re.findall(r"Cell (\d+): Cell execution caused an exception", report)
    )
    assert len(failed_cells) == failed, report[-3000:]
    assert differing_cells, report[-3000:]
    assert differing_cells | stopped_cells == failed_cells, report[-3000:]
    sections = failure_sections(report)
    assert stopped_cells <= set(sections), report[-3000:]
    for cell, section in sections.items():
        if cell in stopped_cells:
            assert "AssertionError" in section, (
                f"cell {cell} stopped by something other than a page's "
                f"check:\n{section[-2000:]}"
            )
    assert "mismatch 'stdout'" in report, report[-3000:]
