"""One learner's state: the workspace `gradtutor init` made, and what they did in it.

What they did (progress, hint levels, whether they have tried an exercise) is kept in the
user's state folder ($GRADTUTOR_HOME, else $XDG_STATE_HOME/gradtutor, else
~/.local/state/gradtutor), never in the workspace, keyed by the notebook's absolute path,
so the notebook, `gradtutor check` and `gradtutor list` see the same record. Which
notebook a kernel is (notebook_for) names that key from inside a kernel.

Verdicts are recorded by whoever ran the checker, never by the kernel: the notebook's
judge process (record_judged) or the CLI. The judge records only for a notebook inside
a learner workspace, so nbgrader's autograding of submissions writes no learner progress.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Callable

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.learner.kernelspec import copy_for_learner  # the learner's copy names the course's kernel

from gradtutor.errors import WorkspaceError  # noqa: F401 - raised here, caught by its base class
from gradtutor.messages import say
from gradtutor.payloads import CheckReply, CheckRequest

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


# --------------------------------------------------------------------------- a kernel's notebook, its verdicts


def notebook_for(lesson: course.Lesson) -> Path | None:
    """The notebook this kernel belongs to, for `lesson`.

    Jupyter Server tells the kernel its notebook in JPY_SESSION_NAME (ipykernel copies it to
    `__session__`); a notebook of another name (say, lesson 2's helpers called from lesson 1)
    and kernels without a session fall back to the lesson's notebook in the workspace
    found from the kernel's working folder.
    """
    for candidate in (_session_name(), os.environ.get("JPY_SESSION_NAME")):
        if candidate and Path(candidate).name == lesson.notebook and Path(candidate).is_file():
            return Path(candidate).resolve()
    home = find()
    return notebook_path(home, lesson).resolve() if home is not None else None


def _session_name() -> str | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell.user_ns.get("__session__") if shell is not None else None


def record_judged(request: CheckRequest, reply: CheckReply,
                  answer: Callable[[CheckRequest], CheckReply] | None = None) -> None:
    """The judge's side: remember a verdict for the learner's notebook (in a workspace only).

    A pass on the visible seeds only (the notebooks' check cells) is recorded as `gradtutor check`
    would record it: `answer(request)` checks again on every seed, hidden ones included.
    """
    try:
        notebook = request.get("notebook")
        if not notebook or "status" not in reply or os.environ.get("GRADTUTOR_JUDGE"):
            return
        path = Path(notebook)
        if path.suffix != ".ipynb" or not path.is_file() or find(path.parent) is None:
            return
        lesson = course.load().lesson(request["lesson"])
        if reply["status"] == "pass" and request.get("seeds", "all") != "all" and answer is not None:
            reply = answer(dict(request, seeds="all"))
        record(path, lesson.id, {reply["id"]: reply["status"]})
    except (ValueError, KeyError, TypeError, AttributeError, course.UnknownLesson):
        return  # progress is a convenience; never fail a check over it


TRIED = frozenset({"pass", "fail", "error", "timeout"})  # a check ran the learner's own code


def has_tried(notebook: Path | None, exercise: course.Exercise) -> bool:
    if notebook is None:
        return False
    return progress_of(notebook).get(exercise.id) in TRIED


# --------------------------------------------------------------------------- hint levels


def _hint_file() -> Path:
    return state_dir() / "hints.json"


def _load_hints() -> dict:
    return read_state(_hint_file())


def _hint_key(notebook: Path | None, lesson: course.Lesson, exercise: course.Exercise) -> tuple[str, str]:
    return str(notebook or Path.cwd().resolve()), f"{lesson.id}/{exercise.id}"


def last_hint(notebook: Path | None, lesson: course.Lesson, exercise: course.Exercise) -> int:
    where, which = _hint_key(notebook, lesson, exercise)
    level = _load_hints().get(where, {}).get(which, 0)
    return level if isinstance(level, int) else 0


def remember_hint(notebook: Path | None, lesson: course.Lesson, exercise: course.Exercise, level: int) -> None:
    where, which = _hint_key(notebook, lesson, exercise)
    data = _load_hints()
    data.setdefault(where, {})[which] = level
    write_state(_hint_file(), data)


def next_hint_level(notebook: Path | None, lesson: course.Lesson, exercise: course.Exercise) -> int:
    """The rung after the last one shown (the last rung again once all are shown); 0 if there are none."""
    if not exercise.hints:
        return 0
    return min(last_hint(notebook, lesson, exercise) + 1, len(exercise.hints))


# --------------------------------------------------------------------------- what next


def next_exercise(home: Path | None) -> tuple[course.Lesson, course.Exercise] | None:
    """The first exercise, in course order, not yet passed in this """
    if home is None:
        return None
    for lesson in course.load().lessons:
        statuses = progress_of(notebook_path(home, lesson))
        for exercise in lesson.exercises:
            if statuses.get(exercise.id) != "pass":
                return lesson, exercise
    return None
