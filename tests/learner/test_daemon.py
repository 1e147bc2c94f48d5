"""The warm checker behind `gradtutor check`: same bytes out, faster, private, and gone when idle or stale."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.cli import run_cli

pytestmark = [pytest.mark.tf, pytest.mark.xdist_group("daemon")]

WRONG = '''import tensorflow as tf

def grad_from_numpy(x):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(x) * x)
    return tape.gradient(y, x)
'''
SOLUTIONS = str(REPO / "solutions" / "lesson1" / "lesson1.ipynb")


@pytest.fixture
def home(tmp_path):
    """A private state folder (so a private socket) with the daemon on; the daemon is stopped afterwards."""
    env = {"GRADTUTOR_HOME": str(tmp_path / "home"), "GRADTUTOR_NO_DAEMON": "0"}
    yield env
    _python("from gradtutor.learner.daemon.client import stop; stop()", env)
    assert _wait_gone(_socket_of(env), 10), "the daemon left its socket behind"


def _socket_of(env: dict, key: str | None = None) -> Path:
    """Where the daemon of this package (or of `key`) listens, for this state folder (a short /tmp path
    stands in for a state folder too deep for a Unix socket's name)."""
    return Path(_python(f"from gradtutor.learner import daemon; print(daemon.socket_path({key!r}))", env).stdout.strip())


def _python(code: str, env: dict, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env), cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def _timed_check(*args, env) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = run_cli("check", *args, env=env)
    return done, time.perf_counter() - start


def test_is_the_warm_check_the_same_bytes_and_faster(tmp_path, home):
    args = ("lesson1", "--file", SOLUTIONS, "--json")
    cold, cold_s = _timed_check(*args, "--no-daemon", env=home)
    first, _ = _timed_check(*args, env=home)  # starts the daemon
    warm, warm_s = _timed_check(*args, env=home)
    assert cold.returncode == first.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert cold.stdout == first.stdout == warm.stdout, "--json is byte-identical with and without the daemon"
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG)
    for extra in ((), ("--json",)):
        table_cold = run_cli("check", "lesson1", "numpy_input", "--file", str(wrong), *extra, "--no-daemon", env=home)
        table_warm = run_cli("check", "lesson1", "numpy_input", "--file", str(wrong), *extra, env=home)
        assert (table_cold.returncode, table_cold.stdout) == (table_warm.returncode, table_warm.stdout)
        assert table_warm.returncode == 1 and "numpy_input" in table_warm.stdout
    assert warm_s < cold_s, f"warm {warm_s:.2f} s is not faster than in-process {cold_s:.2f} s"
    socket_file = _socket_of(home)
    assert socket_file.is_socket()
    assert stat.S_IMODE(socket_file.parent.stat().st_mode) == 0o700 and stat.S_IMODE(socket_file.stat().st_mode) == 0o600


def test_does_a_bad_file_fail_the_same_way_through_the_daemon(tmp_path, home):
    broken = tmp_path / "broken.py"
    broken.write_text("def grad_of_cube(x):\n    return (\n")
    cold = run_cli("check", "lesson1", "--file", str(broken), "--no-daemon", env=home)
    warm = run_cli("check", "lesson1", "--file", str(broken), env=home)
    assert (cold.returncode, cold.stdout, cold.stderr) == (warm.returncode, warm.stdout, warm.stderr)


def test_does_no_daemon_leave_nothing_behind(tmp_path):
    env = {"GRADTUTOR_HOME": str(tmp_path / "home"), "GRADTUTOR_NO_DAEMON": "1"}
    run_cli("check", "lesson1", "watch_constant", "--file", SOLUTIONS, env=env)
    assert not _socket_of(env).exists()


def _wait_gone(path: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not path.exists():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("why", ["idle", "package changed"])
def test_does_the_daemon_exit_when_idle_or_stale(tmp_path, why):
    env = {"GRADTUTOR_HOME": str(tmp_path / "home"), "GRADTUTOR_DAEMON_IDLE": "1" if why == "idle" else "900"}
    key = "0123456789abcdef"  # not this package's key: a daemon of an older install
    socket_file = _socket_of(env, key)
    process = subprocess.Popen([sys.executable, "-m", "gradtutor.learner.daemon", key], env=dict(os.environ, **env),
                               cwd=REPO, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not socket_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert socket_file.exists()
        if why == "idle":
            assert process.wait(timeout=30) == 0
        else:
            process.wait(timeout=60)  # the daemon notices at its next look (every 30 s at most)
        assert _wait_gone(socket_file, 5)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
