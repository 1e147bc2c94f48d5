"""A course's hidden-input secret: one line of its nbgrader_config.py, read only by the grader's side.

`gradtutor classroom init` writes `c.Gradtutor.hidden_inputs_secret = "<32 hex digits>"`
(never replacing one that is there); gradtutor.course.seeds derives the course's hidden
seeds from it. The file is the course's, beside source/ and the gradebook: the
graded kernels and the learner code the checker runs cannot read it (the
sandboxes hide it), and it is never put in an environment variable, which every
process started from the grader would inherit.

The file is Python that nbgrader runs; here it is only parsed (ast), never run,
so reading the secret cannot run anything.
"""
from __future__ import annotations

import ast
import re
import secrets
from pathlib import Path

from gradtutor.errors import CourseSecretError
from gradtutor.messages import say

CONFIG = "nbgrader_config.py"
SECTION, KEY = "Gradtutor", "hidden_inputs_secret"
SETTING = f"c.{SECTION}.{KEY}"
WELL_FORMED = re.compile(r"[0-9a-f]{32,}")

BLOCK = '''
# gradtutor derives this course's hidden test inputs from this secret (HMAC-SHA256), so
# a student who reads gradtutor's source cannot know them. Keep it out of everything
# students get; change it only between assignments (the hidden inputs change with it).
{setting} = {secret!r}
'''


def new_secret() -> str:
    return secrets.token_hex(16)


def read_secret(config: Path) -> str | None:
    """The secret in `config`, or None when it sets none; CourseSecretError when it is malformed or unreadable."""
    try:
        text = Path(config).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseSecretError(say("lessons.secret.unreadable", config=config,
                                    error=getattr(exc, "strerror", None) or exc)) from None
    return secret_in(text, config)


def secret_in(text: str, config: Path) -> str | None:
    try:
        tree = ast.parse(text, filename=str(config))
    except (SyntaxError, ValueError) as exc:
        raise CourseSecretError(say("lessons.secret.not_python", config=config, error=exc)) from None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(_is_setting(t) for t in node.targets):
            found = node  # the last assignment wins, as when nbgrader runs the file
    if found is None:
        return None
    value = found.value.value if isinstance(found.value, ast.Constant) else None
    if not isinstance(value, str) or not WELL_FORMED.fullmatch(value):
        raise CourseSecretError(say("lessons.secret.malformed", config=config, line=found.lineno, setting=SETTING))
    return value


def _is_setting(target) -> bool:
    return (isinstance(target, ast.Attribute) and target.attr == KEY and isinstance(target.value, ast.Attribute)
            and target.value.attr == SECTION and isinstance(target.value.value, ast.Name)
            and target.value.value.id == "c")


def require_secret(course_dir: Path) -> str:
    """The secret of the course in `course_dir`: grading without one would have no hidden inputs."""
    config = Path(course_dir) / CONFIG
    secret = read_secret(config) if config.is_file() else None
    if secret is None:
        raise CourseSecretError(say("lessons.secret.missing", config=config, setting=SETTING, folder=course_dir))
    return secret


def add_secret(config: Path) -> bool:
    """Append a new secret to `config` unless it has one; True when one was written."""
    if read_secret(config) is not None:
        return False
    text = config.read_text(encoding="utf-8")
    separator = "" if text.endswith("\n") or not text else "\n"
    config.write_text(text + separator + BLOCK.format(setting=SETTING, secret=new_secret()), encoding="utf-8")
    return True


def find_secret(start: Path) -> tuple[str, Path] | None:
    """(secret, config) of the course folder `start` is in (the nearest nbgrader_config.py above it), if any.

    For a notebook's own judge under a plain `nbgrader autograde`, which runs each kernel inside
    the course folder. A config that cannot be read (a sandboxed kernel's judge) or that sets no
    secret (not a gradtutor course) means no hidden inputs.
    """
    for folder in (Path(start).resolve(), *Path(start).resolve().parents):
        config = folder / CONFIG
        try:
            if not config.is_file():
                continue
            text = config.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        secret = secret_in(text, config)
        return (secret, config) if secret else None
    return None
