"""The GitHub Actions workflows (.github/workflows): one builds the book with
the README's own command and publishes _build/html to GitHub Pages, one
runs .ci/run on every push and pull request; actionlint finds nothing
wrong in either (make test runs it too)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def _workflow(name: str) -> dict:
    # PyYAML reads the key "on" as True (YAML 1.1).
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    data["on"] = data.pop(True, data.get("on"))
    return data


def _runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


def _uses(job: dict) -> list[str]:
    return [step.get("uses", "") for step in job["steps"]]


def test_publish_builds_the_book_and_deploys_it_to_pages():
    workflow = _workflow("publish.yml")
    assert "main" in workflow["on"]["push"]["branches"]
    assert workflow["permissions"]["pages"] == "write"
    assert workflow["permissions"]["id-token"] == "write"
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert "make book" in _runs(build)
    upload = next(
        step
        for step in build["steps"]
        if step.get("uses", "").startswith("actions/upload-pages-artifact@")
    )
    assert upload["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build"
    assert any(u.startswith("actions/deploy-pages@") for u in _uses(deploy))


def test_tests_run_ci_on_every_push_and_pull_request():
    workflow = _workflow("tests.yml")
    assert {"push", "pull_request"} <= set(workflow["on"])
    (job,) = workflow["jobs"].values()
    assert "bash .ci/run" in _runs(job)


@pytest.mark.parametrize("name", ["publish.yml", "tests.yml"])
def test_workflows_take_the_cpu_build_of_the_pinned_torch(name):
    """PyPI's torch for Linux is the CUDA build; the workflows install the
    pinned version's CPU build first, which requirements.txt accepts."""
    (job, *_) = _workflow(name)["jobs"].values()
    setup = next(run for run in _runs(job) if "torch==" in run)
    assert "https://download.pytorch.org/whl/cpu" in setup
    assert "requirements.txt" in setup and "+cpu" in setup


def test_actionlint_finds_nothing_wrong():
    actionlint = shutil.which("actionlint") or str(
        Path(sys.executable).with_name("actionlint")
    )
    if not Path(actionlint).exists():
        pytest.fail("actionlint is missing: make test installs it")
    result = subprocess.run(
        [actionlint, *sorted(map(str, WORKFLOWS.glob("*.yml")))],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
