"""Does the kernel-level sandbox hide the answers and keep writes inside the scratch folder?"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradtutor.isolation import landlock

pytestmark = pytest.mark.unit

PROBE = r"""
import json, os, sys
from gradtutor.isolation import landlock
scratch, secret, outside = sys.argv[1:4]
applied = landlock.restrict(scratch, [secret])
def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return type(exc).__name__
result = {
    "applied": applied,
    "read secret": attempt(lambda: open(os.path.join(secret, "answer.txt")).read()),
    "read elsewhere": attempt(lambda: open(sys.executable, "rb").read(16)),
    "write scratch": attempt(lambda: open(os.path.join(scratch, "x.txt"), "w").write("ok")),
    "write outside": attempt(lambda: open(os.path.join(outside, "x.txt"), "w").write("no")),
    "delete outside": attempt(lambda: os.remove(os.path.join(outside, "keep.txt"))),
    "mkdir outside": attempt(lambda: os.mkdir(os.path.join(outside, "new"))),
}
print(json.dumps(result))
"""


def test_is_landlock_available_on_this_machine():
    assert landlock.abi_version() >= 1, "the kernel has no Landlock: learner code would only be guarded by audit hooks"


def test_does_the_sandbox_hold(tmp_path):
    scratch, secret, outside = (tmp_path / name for name in ("scratch", "secret", "outside"))
    for folder in (scratch, secret, outside):
        folder.mkdir()
    (secret / "answer.txt").write_text("42")
    (outside / "keep.txt").write_text("mine")
    done = subprocess.run([sys.executable, "-c", PROBE, str(scratch), str(secret), str(outside)],
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert result == {"applied": True, "read secret": "PermissionError", "read elsewhere": "allowed",
                      "write scratch": "allowed", "write outside": "PermissionError",
                      "delete outside": "PermissionError", "mkdir outside": "PermissionError"}
    assert (outside / "keep.txt").read_text() == "mine"


def test_are_secret_folders_carved_out_of_the_readable_paths(tmp_path):
    (tmp_path / "a" / "secret").mkdir(parents=True)
    (tmp_path / "a" / "open").mkdir()
    (tmp_path / "b").mkdir()
    paths = landlock.readable_paths([str(tmp_path / "a" / "secret")])
    assert str(tmp_path / "a" / "open") in paths and str(tmp_path / "b") in paths
    assert not any(p == str(tmp_path / "a") or p.startswith(str(tmp_path / "a" / "secret")) for p in paths)
    assert "/" not in paths
