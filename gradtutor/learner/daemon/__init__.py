"""The warm checker behind `gradtutor check` and every learner kernel's check(): one per user and installed
package (and language), on a local socket.

The first `gradtutor check` starts it (`python -m gradtutor.learner.daemon`); it imports
TensorFlow once and keeps a Checker (the same class, limits and isolation as
every other check) with a child prepared, so later checks from the terminal cost
what a `gradtutor watch` save costs. The CLI still reads the file first, records
progress and prints; the daemon only checks and renders, so the output (and
`--json`, byte for byte) is the same as without it. A learner's notebook kernel sends its cells here too
(gradtutor.learner.judge_lines), so every open lesson shares this one checker instead of starting its own.

Where: a Unix socket `check-<key>.sock` in a folder only this user can open
($GRADTUTOR_HOME/run, else $XDG_RUNTIME_DIR/gradtutor, else the state folder's
run/), mode 0700, and the daemon answers only its own user (SO_PEERCRED).
<key> hashes the installed package's version and files, and the language of the
messages (gradtutor.messages: each language has its own daemon): a changed package gets a
new daemon, and the old one exits. It exits after GRADTUTOR_DAEMON_IDLE seconds
(default 900) without a request. `gradtutor check --no-daemon` or
GRADTUTOR_NO_DAEMON=1 checks in-process as before.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import gradtutor
from gradtutor import messages
from gradtutor.learner import workspace

IDLE_SECONDS = 900.0
_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 108 bytes


def disabled(flag: bool = False) -> bool:
    return flag or os.environ.get("GRADTUTOR_NO_DAEMON", "").strip().lower() not in ("", "0", "false", "no")


def idle_seconds() -> float:
    try:
        return float(os.environ.get("GRADTUTOR_DAEMON_IDLE", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS


def package_key() -> str:
    """A hash of the installed package: its version, folder and every file's size and mtime."""
    package = Path(gradtutor.__file__).resolve().parent
    # the language too: a daemon words its verdicts in the language it was started in
    digest = hashlib.sha256(f"{gradtutor.__version__}\0{package}\0{messages.language()}".encode())
    for name, info in sorted(_sources(package, "")):
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _sources(folder: Path, prefix: str):
    """(relative path, stat) of every .py and .toml file under `folder`; __pycache__ is not walked (every
    `gradtutor check` asks for the key, so the compiled files are not even listed)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    yield from _sources(Path(entry.path), f"{prefix}{entry.name}/")
            elif entry.name.endswith((".py", ".toml")):
                yield f"{prefix}{entry.name}", entry.stat()


def run_dir() -> Path:
    """The folder for the socket, created with mode 0700 and checked to be this user's."""
    if os.environ.get("GRADTUTOR_HOME"):
        base = workspace.state_dir() / "run"
    elif os.environ.get("XDG_RUNTIME_DIR"):
        base = Path(os.environ["XDG_RUNTIME_DIR"]) / "gradtutor"
    else:
        base = workspace.state_dir() / "run"
    if len(str(base)) + 30 > _MAX_SOCKET_PATH:  # a deep GRADTUTOR_HOME: a short private folder instead
        short = hashlib.sha256(str(base).encode()).hexdigest()[:12]
        base = Path(tempfile.gettempdir()) / f"gradtutor-{os.getuid()}-{short}"
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = base.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(f"{base} belongs to another user")
    if info.st_mode & 0o077:
        base.chmod(0o700)
    return base


def socket_path(key: str | None = None) -> Path:
    return run_dir() / f"check-{key or package_key()}.sock"
