"""What a learner has done, wherever they did it: which notebook a kernel is, hint levels, "has tried".

Everything lives in the per-user state folder progress already uses
(workspace.state_dir(): $GRADTUTOR_HOME, else $XDG_STATE_HOME/gradtutor), keyed
by the notebook's absolute path, so the notebook, `gradtutor check` and
`gradtutor list` see the same record.

Verdicts are recorded by whoever ran the checker, never by the kernel: the
notebook's judge process (record_judged) or the CLI. The judge records only for
a notebook inside a learner workspace (the folder `gradtutor init` made), so
nbgrader's autograding of submissions writes no learner progress.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.learner import workspace

TRIED = frozenset({"pass", "fail", "error", "timeout"})  # a check ran the learner's own code


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
    home = workspace.find()
    return workspace.notebook_path(home, lesson).resolve() if home is not None else None


def _session_name() -> str | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell.user_ns.get("__session__") if shell is not None else None


def record_judged(request_line: str, reply: dict, answer=None) -> None:
    """The judge's side: remember a verdict for the learner's notebook (in a workspace only).

    A pass on the visible seeds only (the notebooks' check cells) is recorded as `gradtutor check`
    would record it: `answer(line)` checks again on every seed, hidden ones included.
    """
    try:
        request = json.loads(request_line)
        notebook = request.get("notebook")
        if not notebook or "status" not in reply or os.environ.get("GRADTUTOR_JUDGE"):
            return
        path = Path(notebook)
        if path.suffix != ".ipynb" or not path.is_file() or workspace.find(path.parent) is None:
            return
        lesson = course.load().lesson(request["lesson"])
        if reply["status"] == "pass" and request.get("seeds", "all") != "all" and answer is not None:
            reply = answer(json.dumps(dict(request, seeds="all")))
        workspace.record(path, lesson.id, {reply["id"]: reply["status"]})
    except (ValueError, KeyError, TypeError, AttributeError, course.UnknownLesson):
        return  # progress is a convenience; never fail a check over it


def has_tried(notebook: Path | None, exercise: course.Exercise) -> bool:
    if notebook is None:
        return False
    return workspace.progress_of(notebook).get(exercise.id) in TRIED


# --------------------------------------------------------------------------- hint levels


def _hint_file() -> Path:
    return workspace.state_dir() / "hints.json"


def _load_hints() -> dict:
    return workspace.read_state(_hint_file())


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
    workspace.write_state(_hint_file(), data)


def next_hint_level(notebook: Path | None, lesson: course.Lesson, exercise: course.Exercise) -> int:
    """The rung after the last one shown (the last rung again once all are shown); 0 if there are none."""
    if not exercise.hints:
        return 0
    return min(last_hint(notebook, lesson, exercise) + 1, len(exercise.hints))


# --------------------------------------------------------------------------- what next


def next_exercise(home: Path | None) -> tuple[course.Lesson, course.Exercise] | None:
    """The first exercise, in course order, not yet passed in this workspace."""
    if home is None:
        return None
    for lesson in course.load().lessons:
        statuses = workspace.progress_of(workspace.notebook_path(home, lesson))
        for exercise in lesson.exercises:
            if statuses.get(exercise.id) != "pass":
                return lesson, exercise
    return None
