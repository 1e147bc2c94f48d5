"""The learner's workspace: the folder `gradtutor init` made, and their progress.

Checking never writes into the workspace: progress is kept in the user's state
folder ($GRADTUTOR_HOME, else $XDG_STATE_HOME/gradtutor, else
~/.local/state/gradtutor), keyed by the notebook's absolute path.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.learner.kernelspec import copy_for_learner  # the learner's copy names the course's kernel

from gradtutor.errors import WorkspaceError  # noqa: F401 - raised here, caught by its base class
from gradtutor.messages import say

MARKER = messages.WORKSPACE_MARKER
LANGUAGE_LINE = messages.LANGUAGE_LINE  # the marker's line naming the notebooks' language


def init(folder: Path, lang: str | None = None) -> list[tuple[Path, str]]:
    """Copy every lesson notebook, in `lang` (default: the messages' language), into `folder`; never overwrite.

    Returns (path, what happened). The notebooks keep the English file names (lesson3/lesson3.ipynb) in
    every language, so checking, grading and progress do not depend on it; the marker file records the
    language, which `reset` copies again.
    """
    folder = folder.expanduser()
    lang = lang or messages.language()
    if folder.exists() and not folder.is_dir():
        raise WorkspaceError(say("workspace.not_a_folder", folder=folder))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text(say("workspace.marker", lang=lang) + f"\n{LANGUAGE_LINE}{lang}\n",
                                 encoding="utf-8")
    messages.workspace_language.cache_clear()  # from now on, this folder speaks `lang`
    done = []
    for lesson in course.load().lessons:
        target = notebook_path(folder, lesson)
        if target.exists():
            done.append((target, say("workspace.kept")))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        copy_for_learner(_release(lesson, lang), target)
        done.append((target, say("workspace.created")))
    return done


def language(home: Path) -> str:
    """The language a workspace's notebooks were copied in (its marker's last language line; English before)."""
    return messages.marker_language(home) or messages.DEFAULT


def find(start: Path | None = None) -> Path | None:
    """The workspace containing `start` (default: the current folder), or None."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MARKER).is_file():
            return folder
    return None


def notebook_path(workspace: Path, lesson: course.Lesson) -> Path:
    return workspace / lesson.id / lesson.notebook


def reset(workspace: Path, lesson: course.Lesson) -> tuple[Path, Path | None]:
    """A fresh copy of the lesson; the old file is renamed to a timestamped backup, never deleted."""
    target = notebook_path(workspace, lesson)
    backup = None
    if target.exists():
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = target.with_name(f"{target.stem}.backup-{stamp}{target.suffix}")
        counter = 1
        while backup.exists():
            backup = target.with_name(f"{target.stem}.backup-{stamp}-{counter}{target.suffix}")
            counter += 1
    source = _release(lesson, language(workspace))  # before renaming anything: a broken install must not cost the learner's file
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.rename(backup)
    copy_for_learner(source, target)
    # the fresh copy has none of the old answers: `gradtutor list` must not show their progress
    data = load_progress()
    if data.pop(str(target.resolve()), None) is not None:
        try:
            _state_file().write_text(json.dumps(data, indent=1))
        except OSError:
            pass  # progress is a convenience
    return target, backup


def _release(lesson: course.Lesson, lang: str = messages.DEFAULT) -> Path:
    path = lesson.release_notebook(lang)
    if not path.is_file():
        raise WorkspaceError(say("workspace.missing_release", lesson=lesson.id, path=path))
    return path


# --------------------------------------------------------------------------- progress


def state_dir() -> Path:
    """The per-user state folder: progress, hint levels, the warm checker's socket."""
    home = os.environ.get("GRADTUTOR_HOME")
    if home:
        return Path(home)
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "gradtutor"


def _state_file() -> Path:
    return state_dir() / "progress.json"


def load_progress() -> dict:
    return read_state(_state_file())


def read_state(path: Path) -> dict:
    """A state file's object; {} when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record(notebook: Path, lesson_id: str, statuses: dict[str, str]) -> None:
    """Remember the latest status of each exercise checked in this notebook."""
    data = load_progress()
    key = str(Path(notebook).resolve())
    entry = data.setdefault(key, {"lesson": lesson_id, "exercises": {}})
    entry["lesson"] = lesson_id
    entry["exercises"].update(statuses)
    entry["checked"] = datetime.datetime.now().isoformat(timespec="seconds")
    write_state(_state_file(), data)


def write_state(path: Path, data: dict) -> None:
    """Replace a state file atomically; a state folder that cannot be written is not an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1))
        tmp.replace(path)
    except OSError:
        pass  # progress is a convenience; never fail a check over it


def progress_of(notebook: Path) -> dict[str, str]:
    return load_progress().get(str(Path(notebook).resolve()), {}).get("exercises", {})
