"""Binder's environment (binder/): the CPU build of torch from PyTorch's
index, and otherwise exactly the book's pins."""

from __future__ import annotations

from packaging.requirements import Requirement

from conftest import ROOT

BINDER = ROOT / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _lines(path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _pins(lines: list[str]) -> dict[str, str]:
    pins = {}
    for line in lines:
        if line.startswith("-"):
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"not an exact pin: {line}"
        pins[requirement.name.lower()] = specifier.version
    return pins


def test_binder_takes_every_pin_of_the_book():
    lines = _lines(BINDER / "requirements.txt")
    included = [
        (BINDER / line.split(maxsplit=1)[1]).resolve()
        for line in lines
        if line.startswith("-r ")
    ]
    assert included == [ROOT / "requirements.txt"]


def test_binder_torch_is_the_cpu_build_of_the_pinned_version():
    binder = _lines(BINDER / "requirements.txt")
    book = _pins(_lines(ROOT / "requirements.txt"))
    assert f"--extra-index-url {CPU_INDEX}" in binder
    assert _pins(binder) == {"torch": f"{book['torch']}+cpu"}


def test_binder_runs_the_books_python():
    assert (BINDER / "runtime.txt").read_text() == (
        ROOT / "runtime.txt"
    ).read_text()
