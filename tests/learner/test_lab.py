"""`gradtutor lab` without a browser: the kernel spec, the workspace, the skipped launch, the server's flags."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gradtutor.learner import lab
from gradtutor.learner.kernelspec import DISPLAY_NAME, KERNEL_NAME
from tests.support.cli import run_cli

pytestmark = pytest.mark.unit


def test_is_the_kernel_spec_this_python(tmp_path):
    folder = lab.ensure_kernel(prefix=str(tmp_path))
    assert folder == tmp_path / "share" / "jupyter" / "kernels" / KERNEL_NAME
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["argv"][0] == sys.executable and spec["display_name"] == DISPLAY_NAME
    assert "ipykernel_launcher" in spec["argv"]
    before = (folder / "kernel.json").stat().st_mtime_ns
    assert lab.ensure_kernel(prefix=str(tmp_path)) == folder
    assert (folder / "kernel.json").stat().st_mtime_ns == before, "an installed spec is left alone"


def test_does_no_lab_set_up_everything_and_start_nothing(tmp_path):
    done = run_cli("lab", str(tmp_path / "ws"), env={"GRADTUTOR_NO_LAB": "1"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "not starting JupyterLab" in done.stdout and "http://" not in done.stdout
    notebook = json.loads((tmp_path / "ws" / "lesson1" / "lesson1.ipynb").read_text())
    assert notebook["metadata"]["kernelspec"]["name"] == KERNEL_NAME
    assert (Path(sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").is_file()
    flag = run_cli("lab", str(tmp_path / "ws"), "--no-launch", env={"GRADTUTOR_NO_LAB": ""}, timeout=120)
    assert flag.returncode == 0 and "not starting JupyterLab" in flag.stdout


def test_does_the_server_listen_on_localhost_only_with_a_token(tmp_path):
    command = lab.server_command(tmp_path, 8765, "abc")
    assert "--ServerApp.ip=127.0.0.1" in command and "--IdentityProvider.token=abc" in command
    assert "--ServerApp.open_browser=False" in command
    assert f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}" in command
    assert lab.first_lesson_url(8765, "abc") == "http://127.0.0.1:8765/lab/tree/lesson1/lesson1.ipynb?token=abc"
