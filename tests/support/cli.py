"""The real `gradtutor` command, run as a learner runs it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import REPO


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The real `gradtutor` command in a subprocess."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradtutor", *args], cwd=cwd or REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
