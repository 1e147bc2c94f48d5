"""Does a fork server whose starter died before it could set its death signal end at once?

PR_SET_PDEATHSIG covers a starter that dies after the call; one that dies before it (a kernel
ended by nbgrader while its judge was starting its checker) left a server that imported
TensorFlow for nobody, reported ready, and lived on past the grading run.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.tf  # without the fix the orphan imports TensorFlow (the unit tier's stub refuses it)

# The starter hands the server our stdout, starts it as the checker does, and dies at once:
# Popen returns once the server has exec'd, far sooner than its Python reaches main().
STARTER = r"""
import os, subprocess, sys
from gradtutor.isolation import landlock
subprocess.Popen([sys.executable, "-m", "gradtutor.isolation.server"], stdin=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, env=landlock.started_by(os.environ))
os._exit(0)
"""


def test_does_an_orphaned_fork_server_end_before_importing_tensorflow():
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE)
    # EOF comes once the starter and the server have both closed the pipe, that is, both ended.
    said, _ = starter.communicate(timeout=300)
    assert starter.returncode == 0
    assert said == b"", f"the orphaned server went on to import TensorFlow and said {said!r}"
