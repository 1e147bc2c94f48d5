"""hint() climbs the manifest's ladder, solution() waits for a try, and progress is recorded by the judge only."""
from __future__ import annotations

import json
import os

import pytest

from gradtutor.course import manifest as course
from gradtutor.learner import hints
from gradtutor.learner import workspace
from gradtutor.errors import UsageError
from gradtutor.learner.kernelspec import KERNEL_NAME
from tests.support.cli import run_cli

pytestmark = pytest.mark.unit

LESSON = course.load().lesson("lesson1")
EXERCISE = LESSON.exercise("watch_constant")


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """A fresh workspace, a private state folder, and this process working in lesson 1's folder."""
    monkeypatch.setenv("GRADTUTOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADTUTOR_JUDGE", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    workspace.init(tmp_path / "ws")
    monkeypatch.chdir(tmp_path / "ws" / LESSON.id)
    return tmp_path / "ws"


def _notebook(ws):
    return (ws / LESSON.id / LESSON.notebook).resolve()


def test_does_hint_show_the_next_rung_each_call_then_stay_on_the_last(ws, capsys):
    shown = []
    for _ in range(len(EXERCISE.hints) + 2):
        hints.hint("lesson1", "watch_constant")
        shown.append(capsys.readouterr().out)
    rungs = [text.split("\n")[1] for text in shown]
    assert rungs[: len(EXERCISE.hints)] == list(EXERCISE.hints), "the ladder, gentlest first"
    assert rungs[len(EXERCISE.hints):] == [EXERCISE.hints[-1]] * 2
    assert f"Hint 1 of {len(EXERCISE.hints)}" in shown[0] and "again for hint 2" in shown[0]
    assert "last hint" in shown[-1]


def test_does_hint_level_choose_a_rung_and_continue_from_it(ws, capsys):
    hints.hint("lesson1", "watch_constant", level=3)
    hints.hint("lesson1", "watch_constant", level=1)
    hints.hint("lesson1", "watch_constant")
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("Hint ")] == [
        "Hint 3 of 3 for grad_of_cube():", "Hint 1 of 3 for grad_of_cube():", "Hint 2 of 3 for grad_of_cube():"]
    with pytest.raises(UsageError):
        hints.hint("lesson1", "watch_constant", level=9)


def test_are_hint_levels_kept_per_notebook_and_exercise(ws, capsys):
    hints.hint("lesson1", "watch_constant")
    hints.hint("lesson1", "numpy_input")
    assert workspace.last_hint(_notebook(ws), LESSON, EXERCISE) == 1
    assert workspace.last_hint(_notebook(ws), LESSON, LESSON.exercise("numpy_input")) == 1
    saved = json.loads((workspace.state_dir() / "hints.json").read_text())
    assert set(saved) == {str(_notebook(ws))}


def test_does_solution_wait_for_a_checked_attempt(ws, capsys):
    hints.solution("lesson1", "watch_constant")
    gated = capsys.readouterr().out
    assert "tape.watch" not in gated and "anyway=True" in gated and "gradtutor solution lesson1" in gated
    workspace.record(_notebook(ws), "lesson1", {"watch_constant": "not_attempted"})  # the starter: no try
    hints.solution("lesson1", "watch_constant")
    assert "tape.watch" not in capsys.readouterr().out
    workspace.record(_notebook(ws), "lesson1", {"watch_constant": "fail"})
    hints.solution("lesson1", "watch_constant")
    shown = capsys.readouterr().out
    assert "def grad_of_cube" in shown and "tape.watch(x)" in shown and "BEGIN SOLUTION" not in shown


def test_does_solution_anyway_show_it_at_once(ws, capsys):
    hints.solution("lesson1", "frozen_weight", anyway=True)
    assert "def grads_with_frozen_weight" in capsys.readouterr().out


def test_does_the_kernel_find_its_notebook_from_the_session_or_the_workspace(ws, monkeypatch, tmp_path):
    assert workspace.notebook_for(LESSON) == _notebook(ws)
    other = tmp_path / "elsewhere" / LESSON.notebook
    other.parent.mkdir()
    other.write_text("{}")
    monkeypatch.setenv("JPY_SESSION_NAME", str(other))
    assert workspace.notebook_for(LESSON) == other.resolve()


def _judged(ws, status="pass", notebook=None):
    request = {"lesson": "lesson1", "exercise": "watch_constant", "function": "grad_of_cube", "cells": [],
               "notebook": str(notebook or _notebook(ws))}
    workspace.record_judged(request, {"id": "watch_constant", "status": status, "message": "", "rows": []})


def test_does_the_judge_record_a_kernels_verdict_as_progress(ws):
    _judged(ws, "fail")
    assert workspace.progress_of(_notebook(ws)) == {"watch_constant": "fail"}
    _judged(ws, "pass")
    listed = run_cli("list", cwd=ws, env={"GRADTUTOR_HOME": os.environ["GRADTUTOR_HOME"]})
    assert "1/4 passed" in listed.stdout and "next: lesson1 numpy_input" in listed.stdout


def test_does_the_judge_leave_classroom_and_stray_notebooks_alone(ws, tmp_path, monkeypatch):
    stray = tmp_path / "submitted" / LESSON.notebook  # not in a workspace: nbgrader's autograded copy
    stray.parent.mkdir()
    stray.write_text("{}")
    _judged(ws, "pass", notebook=stray)
    monkeypatch.setenv("GRADTUTOR_JUDGE", str(tmp_path / "judge.sock"))  # the classroom grader's judge
    _judged(ws, "pass")
    assert workspace.load_progress() == {}


def test_do_learner_copies_name_the_course_kernel(ws):
    notebook = json.loads(_notebook(ws).read_text())
    assert notebook["metadata"]["kernelspec"]["name"] == KERNEL_NAME
    release = json.loads(LESSON.release_notebook().read_text())
    assert release["metadata"]["kernelspec"]["name"] == "python3", "graders and the docs need no course kernel"
    assert notebook["cells"] == release["cells"]


def test_does_a_failing_check_mention_hint_and_solution():
    text, markup = hints.stuck_note("lesson1", "watch_constant")
    for shown in (text, markup):
        assert "hint(&quot;lesson1&quot;" in shown or 'hint("lesson1"' in shown
        assert "solution(" in shown


def test_does_calling_hint_in_a_notebook_leave_the_grade_alone():
    from gradtutor.course import extract
    from gradtutor.checking import precheck

    cells = extract.cells_from_sources(['from gradtutor import hint, solution\nhint("lesson1", "watch_constant")',
                                        'import gradtutor\ngradtutor.solution("lesson1", "watch_constant")'],
                                       "notebook cell")
    assert precheck.uses_internals(cells) is None


def test_is_a_visible_seeds_pass_recorded_as_gradtutor_check_would(ws):
    asked = []

    def on_every_seed(request):
        asked.append(request["seeds"])
        return {"id": "watch_constant", "status": "fail", "message": "hidden seed", "rows": []}

    request = {"lesson": "lesson1", "exercise": "watch_constant", "function": "grad_of_cube", "cells": [],
               "seeds": "visible", "notebook": str(_notebook(ws))}
    workspace.record_judged(request, {"id": "watch_constant", "status": "pass", "message": "", "rows": []},
                                on_every_seed)
    assert asked == ["all"] and workspace.progress_of(_notebook(ws)) == {"watch_constant": "fail"}
