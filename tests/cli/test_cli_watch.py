"""Does `gradtutor watch` re-check on every save, and survive a half-written file?"""
from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import time

import pytest

from gradtutor.course import manifest as course
from tests.support import REPO

pytestmark = pytest.mark.tf

LESSON = course.load().lesson("lesson2")


def _read_until(process, marker: str, timeout: float) -> str:
    """What the process prints until a line containing `marker` (raw reads: no buffer hides data from select)."""
    fd = process.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, _, rest = process.pending.partition(marker)
        if _:
            line_end = rest.find("\n")
            if line_end >= 0:
                process.pending = rest[line_end + 1:]
                return done + marker + rest[:line_end + 1]
        if selector.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            process.pending += chunk.decode("utf-8", "replace")
    raise AssertionError(f"no {marker!r} within {timeout} s; got:\n{process.pending}")


def test_does_watch_check_again_after_a_save(tmp_path):
    notebook = tmp_path / "lesson2.ipynb"
    shutil.copyfile(LESSON.release_notebook(), notebook)
    process = subprocess.Popen([sys.executable, "-m", "gradtutor", "watch", "lesson2", "--file", str(notebook)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, COLUMNS="200"))
    process.pending = ""
    try:
        first = _read_until(process, "watching", 240)
        assert "not attempted" in first and "0/3 passed" in first
        notebook.write_text("{ half written")
        broken = _read_until(process, "watching", 60)
        assert "not valid notebook JSON" in broken
        shutil.copyfile(LESSON.source_notebook(), notebook)
        second = _read_until(process, "watching", 120)
        assert "3/3 passed" in second
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert "Traceback" not in process.stderr.read()
