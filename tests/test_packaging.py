"""What Colab installs (`pip install git+...`, a wheel, not an editable
checkout) carries every file d2l_local reads, its controls' script included,
and depends on every module that the library and the chapters import."""

import ast
import importlib.metadata
import re
import shutil
import subprocess
import sys
import zipfile

import jupytext
import tomllib

from conftest import ROOT


def test_the_wheel_carries_every_file_of_the_package(tmp_path):
    # Built from a copy: setuptools leaves build/ and egg-info beside the
    # source.
    source = tmp_path / "source"
    shutil.copytree(
        ROOT / "d2l_local",
        source / "d2l_local",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", source)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = tmp_path.glob("d2l_local-*.whl")
    packed = {
        name
        for name in zipfile.ZipFile(wheel).namelist()
        if name.startswith("d2l_local/")
    }
    expected = {
        f"d2l_local/{path.name}"
        for path in (ROOT / "d2l_local").iterdir()
        if path.suffix in (".py", ".js")
    } | {  # the trained models of pages 9 and 10, with their logs
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "d2l_local" / "trained").rglob("*")
        if path.suffix in (".json", ".safetensors")
    }
    assert "d2l_local/controls.js" in expected
    assert "d2l_local/trained/manifest.json" in expected
    assert packed == expected


def _imported_modules(source: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module.split(".")[0])
    return modules


def _chapter_code() -> list[str]:
    code = []
    for path in sorted((ROOT / "chapters").glob("*.md")):
        for cell in jupytext.read(path).cells:
            if cell.cell_type == "code":
                # IPython magics and shell lines are not Python (a line
                # that goes on with != is).
                code.append(
                    "\n".join(
                        line
                        for line in cell.source.splitlines()
                        if not re.match(r"\s*(%|!(?!=))", line)
                    )
                )
    return code


def _normalized(distribution: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def test_every_module_imported_is_a_declared_dependency():
    """What Colab installs with the library (pyproject's dependencies) covers
    every module that the library and the chapters import."""
    sources = [p.read_text() for p in (ROOT / "d2l_local").glob("*.py")]
    imported = set().union(
        *(_imported_modules(s) for s in sources + _chapter_code())
    )
    third_party = imported - set(sys.stdlib_module_names) - {"d2l_local"}
    declared = {
        _normalized(re.split(r"[<>=!~ \[]", requirement)[0])
        for requirement in tomllib.loads(
            (ROOT / "pyproject.toml").read_text()
        )["project"]["dependencies"]
    }
    distributions = importlib.metadata.packages_distributions()
    missing = {
        module
        for module in third_party
        if not {_normalized(d) for d in distributions.get(module, [module])}
        & declared
    }
    assert third_party, "no import found"
    assert missing == set(), f"imported but not in dependencies: {missing}"
