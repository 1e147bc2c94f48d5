"""Does a fork server, or a job child, whose starter died before it could set its death signal end at once?

PR_SET_PDEATHSIG covers a starter that dies after the call; one that dies before it (a kernel
ended by nbgrader while its judge was starting its checker) left a server that imported
TensorFlow for nobody, reported ready, and lived on past the grading run. Likewise a job child
the server forked as it was killed (a kernel ended just after its last check, as its judge's
server prepared the next child) waited for cells that never came, past the test session.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


# The starter hands the server our stdout, starts it as the checker does, and dies at once:
# Popen returns once the server has exec'd, far sooner than its Python reaches main().
STARTER = r"""
import os, subprocess, sys
from gradtutor.isolation import landlock
subprocess.Popen([sys.executable, "-m", "gradtutor.isolation.server"], stdin=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, env=landlock.started_by(os.environ))
os._exit(0)
"""


@pytest.mark.tf  # without the fix the orphan imports TensorFlow (the unit tier's stub refuses it)
def test_does_an_orphaned_fork_server_end_before_importing_tensorflow():
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE)
    # EOF comes once the starter and the server have both closed the pipe, that is, both ended.
    said, _ = starter.communicate(timeout=300)
    assert starter.returncode == 0
    assert said == b"", f"the orphaned server went on to import TensorFlow and said {said!r}"


# The server's side of a fork, then gone before the child's first step; the child takes that step as
# gradtutor.isolation.child.run does (with the server's pid, read before the fork) and reports if it lived.
FORKING_SERVER = r"""
import os, time
from gradtutor.isolation import landlock
server = os.getpid()
if os.fork() == 0:
    time.sleep(float(os.environ["DELAY"]))
    landlock.die_with_parent(parent=server)
    os.write(1, b"lived on as an orphan")
    os._exit(0)
os._exit(0)
"""


@pytest.mark.unit
def test_does_a_job_child_whose_server_died_before_its_first_step_end_at_once():
    # a delay drawn, not picked: the child's first step comes any time after its server is gone
    import random

    delay = f"{random.uniform(0.2, 0.6):.2f}"
    server = subprocess.Popen([sys.executable, "-c", FORKING_SERVER], stdout=subprocess.PIPE,
                              env={**os.environ, "DELAY": delay})
    said, _ = server.communicate(timeout=60)  # EOF once the server and its child have both ended
    assert said == b"", f"a job child whose server died {delay} s before its first step {said.decode()}"
