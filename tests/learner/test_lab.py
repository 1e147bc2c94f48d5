"""`gradtutor lab` without a browser: the kernel spec, the workspace, the skipped launch, the server's flags, its stop."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from gradtutor.learner import lab
from gradtutor.learner.lab import process_tree
from gradtutor.learner.kernelspec import DISPLAY_NAME, KERNEL_NAME
from tests.support import REPO
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


def test_does_a_signal_to_lab_alone_stop_its_server_and_kernels(tmp_path):
    """A signal to `gradtutor lab` alone (not its group), started with SIGINT ignored as a script's background job is.

    The signal is drawn (a Lab takes most of a minute to start and stop here): each is what one learner sends,
    Ctrl-C in a terminal whose group does not get it, `kill`, a closed terminal.
    """
    stop_signal = random.choice(lab.STOP_SIGNALS)
    env = dict(os.environ, GRADTUTOR_HOME=str(tmp_path / "home"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"), PYTHONPATH=os.pathsep.join(
                   filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    env.pop("GRADTUTOR_NO_LAB", None)
    lab_process = subprocess.Popen([sys.executable, "-m", "gradtutor", "lab", str(tmp_path / "ws")], env=env,
                                   cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                   start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    started = []
    try:
        url = next((line.strip() for line in lab_process.stdout if line.strip().startswith("http://127.0.0.1:")), None)
        assert url, "gradtutor lab printed no URL"
        base, token = url.split("/lab/")[0], url.split("token=")[1]
        for _ in range(2):  # two kernels, as two open lessons have
            request = urllib.request.Request(f"{base}/api/kernels?token={token}", data=b"{}", method="POST",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                assert answer.status == 201
        started = _wait_for_kernels(lab_process.pid, 2)
        os.kill(lab_process.pid, stop_signal)  # the process alone, not its group
        assert lab_process.wait(timeout=90) == 0
        left = [p for p in started if p.alive()]
        assert not left, f"still running after `gradtutor lab` stopped: {[_command(p.pid) for p in left]}"
    finally:  # on a failure too: nothing of this test's Lab outlives it
        if lab_process.poll() is None:
            started = started or process_tree.descendants(lab_process.pid)
            os.killpg(lab_process.pid, signal.SIGKILL)
            lab_process.wait()
        process_tree.end(started)
        lab_process.stdout.close()


def _wait_for_kernels(pid: int, count: int, timeout: float = 60.0) -> list:
    """The processes below `pid` once `count` kernels are among them."""
    deadline = time.monotonic() + timeout
    while True:
        found = process_tree.descendants(pid)
        kernels = [p for p in found if "ipykernel" in _command(p.pid)]
        if len(kernels) >= count or time.monotonic() > deadline:
            assert len(kernels) >= count, f"{len(kernels)} kernel(s) started, not {count}"
            return found
        time.sleep(0.2)


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
