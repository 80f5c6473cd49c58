"""What Colab installs (`pip install git+...`, a wheel, not an editable
checkout) carries every file d2l_local reads, its controls' script included."""

import shutil
import subprocess
import sys
import zipfile

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
    }
    assert "d2l_local/controls.js" in expected
    assert packed == expected
