"""`gradtutor lab [DIR]`: JupyterLab on a workspace, with the course's kernel selected.

The kernel spec `gradtutor` ("gradtutor (TensorFlow)") is installed into the
running Python's prefix (`<prefix>/share/jupyter/kernels/gradtutor`), so the
kernel is this Python, the one that has TensorFlow and gradtutor, and every
learner's copy of a lesson names it in its metadata (gradtutor.learner.kernelspec): Lab
starts it without asking.

The server listens on 127.0.0.1 only, with a fresh token, in a session of its
own: Ctrl-C here stops it (no "shut down? y/n" question), and so do SIGINT, SIGTERM and
SIGHUP sent to this process alone, even when it was started with SIGINT ignored (a background
job of a script); the kernels the server started go with it (gradtutor.learner.lab.process_tree), and so
does the learner's warm checker, which the kernels started or shared (the next check starts it again).
GRADTUTOR_NO_LAB=1 (or --no-launch) installs the kernel spec and the workspace but starts nothing,
for scripted set-ups.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.learner import workspace
from gradtutor.learner.lab import process_tree
from gradtutor.errors import GradtutorError, UsageError
from gradtutor.learner.kernelspec import DISPLAY_NAME, KERNEL_NAME
from gradtutor.messages import say
from gradtutor import stopping

NO_LAB = "GRADTUTOR_NO_LAB"
# Each stops Lab: Ctrl-C (or a `kill -INT`), `kill`, a closed terminal. SIGINT is set too: a process
# started with it ignored (a background job of a script, a test runner's child) would otherwise ignore it.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def kernel_dir(prefix: str | None = None) -> Path:
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME


def ensure_kernel(prefix: str | None = None) -> Path:
    """Install (or repair) the course's kernel spec in this Python's prefix; return its folder."""
    folder = kernel_dir(prefix)
    try:
        spec = json.loads((folder / "kernel.json").read_text())
        if spec.get("argv", [None])[0] == sys.executable and spec.get("display_name") == DISPLAY_NAME:
            return folder
    except (OSError, ValueError):
        pass
    from ipykernel.kernelspec import install

    try:
        install(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, prefix=prefix or sys.prefix)
        return folder
    except OSError:  # a Python whose prefix this user cannot write (a system install): the user's own folder
        return Path(install(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, user=True))


def launch_skipped(flag: bool = False) -> bool:
    return flag or os.environ.get(NO_LAB, "").strip().lower() not in ("", "0", "false", "no")


def prepare(folder: Path | None) -> Path:
    """The workspace to open: `folder` (made with `gradtutor init` if it is not one yet), else the current one."""
    if folder is None:
        found = workspace.find()
        if found is not None:
            return found
        folder = Path("gradtutor-course")
    folder = folder.expanduser()
    if not (folder / workspace.MARKER).exists():
        workspace.init(folder)
    return folder.resolve()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(folder: Path, port: int, token: str) -> list[str]:
    as_root = ["--ServerApp.allow_root=True"] if os.geteuid() == 0 else []  # containers often run as root
    return [sys.executable, "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0", "--ServerApp.open_browser=False", f"--ServerApp.root_dir={folder}",
            f"--IdentityProvider.token={token}", f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", *as_root]


def first_lesson_url(port: int, token: str) -> str:
    first = course.load().lessons[0]
    return f"http://127.0.0.1:{port}/lab/tree/{first.id}/{first.notebook}?token={token}"


def start(folder: Path, port: int | None = None, env: dict | None = None, **popen) -> tuple[subprocess.Popen, str]:
    """Start Lab on `folder` in a session of its own; return the process and the URL of lesson 1 (with the token)."""
    port = port or free_port()
    token = secrets.token_hex(24)
    process = subprocess.Popen(server_command(folder, port, token), cwd=folder, stdin=subprocess.DEVNULL,
                               start_new_session=True, env=env, **popen)
    return process, first_lesson_url(port, token)


def wait_ready(process: subprocess.Popen, url: str, timeout: float = 120.0) -> bool:
    """True once the server answers on its port; False if it exited first or never answered."""
    port = int(url.split(":")[2].split("/")[0])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def stop(process: subprocess.Popen, timeout: float = 20.0) -> None:
    """SIGTERM to the server's session (it shuts its kernels down), SIGKILL if it does not stop in time;
    then whatever the server started that is still there (its kernels are in sessions of their own)."""
    started = process_tree.descendants(process.pid) if process.poll() is None else []
    try:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass
    process_tree.end(started)


def _show(text: str) -> None:
    print(text, flush=True)  # at once, even into a pipe: the URL is what the learner waits for


def run(folder: Path | None, port: int | None = None, no_launch: bool = False, show=_show) -> int:
    """The `gradtutor lab` verb: kernel spec, workspace, then Lab until Ctrl-C."""
    spec = ensure_kernel()
    home = prepare(folder)
    show(say("lab.kernel", name=DISPLAY_NAME, folder=spec))
    show(say("lab.workspace", folder=home))
    if launch_skipped(no_launch):
        show(say("lab.not_starting", variable=NO_LAB, folder=home))
        return 0
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        raise UsageError(say("lab.no_jupyterlab", kernel=KERNEL_NAME)) from None
    stopping.interrupt_on(STOP_SIGNALS)  # before the server starts: a signal at any moment after stops it
    process = None
    try:
        process, url = start(home, port, env=lab_environment(home))
        if not wait_ready(process, url):
            raise GradtutorError(say("lab.did_not_start", code=process.poll()))
        show(f"\n{say('lab.running')}\n\n    {url}\n\n{say('lab.how_to_stop')}\n")
        return process.wait()
    except KeyboardInterrupt:
        show(say("lab.stopping"))
        return 0
    finally:
        stopping.ignore(STOP_SIGNALS)  # stopping already: a second Ctrl-C must not cut it short
        if process is not None:
            stop(process)
        from gradtutor.learner.daemon import client

        client.stop_all()  # the kernels' shared checker, in a session of its own: not in the server's tree


def lab_environment(home: Path) -> dict:
    """Lab's environment: ours, with the messages in the workspace's language unless one was chosen.

    A workspace made with `gradtutor init --lang zh` holds Chinese notebooks; their check() and hint()
    speak Chinese too, though the terminal's locale may be English (`--lang`, GRADTUTOR_LANG still win).
    """
    env = dict(os.environ)
    if not env.get("GRADTUTOR_LANG", "").strip():
        env["GRADTUTOR_LANG"] = workspace.language(home)
    return env


