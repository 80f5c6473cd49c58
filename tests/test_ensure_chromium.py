"""make test on a machine without Chromium: installed when this user may,
otherwise a stop that names the one command to run."""

from __future__ import annotations

import os
import subprocess

from conftest import ROOT

SCRIPT = ROOT / "tools" / "ensure_chromium.sh"


def _run(tmp_path, chromium: str, uid: str) -> subprocess.CompletedProcess:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (fake / "id").chmod(0o755)
    env = {**os.environ, "CHROMIUM": chromium}
    env["PATH"] = f"{fake}:{env['PATH']}"
    return subprocess.run(
        [str(SCRIPT)], env=env, capture_output=True, text=True
    )


def test_a_present_chromium_needs_nothing(tmp_path):
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    result = _run(tmp_path, str(browser), uid="1000")
    assert result.returncode == 0 and result.stdout == result.stderr == ""


def test_without_rights_it_stops_with_the_command_to_run(tmp_path):
    result = _run(tmp_path, str(tmp_path / "missing"), uid="1000")
    assert result.returncode == 1
    assert "sudo apt-get install -y chromium" in result.stderr
