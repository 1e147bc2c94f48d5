"""Do init, list, reset, hint and solution behave as a learner expects, and never lose their work?"""
from __future__ import annotations

import json
import re

import pytest

from gradtutor.course import manifest as course
from tests.support.cli import run_cli

COURSE = course.load()


@pytest.mark.unit
def test_does_init_copy_every_lesson_and_never_overwrite(tmp_path):
    ws = tmp_path / "ws"
    done = run_cli("init", str(ws))
    assert done.returncode == 0, done.stderr
    for lesson in COURSE.lessons:
        assert (ws / lesson.id / lesson.notebook).is_file()
    assert (ws / ".gradtutor-workspace").is_file()
    mine = ws / "lesson1" / "lesson1.ipynb"
    mine.write_text(mine.read_text().replace("Constant", "MY EDIT", 1))
    again = run_cli("init", str(ws))
    assert again.returncode == 0 and "kept" in again.stdout
    assert "MY EDIT" in mine.read_text()


@pytest.mark.tf
def test_does_list_show_every_lesson_and_progress(tmp_path):
    ws = tmp_path / "ws"
    run_cli("init", str(ws))
    done = run_cli("list", cwd=ws / "lesson2")  # found from a subfolder too
    assert done.returncode == 0
    for lesson in COURSE.lessons:
        assert lesson.id in done.stdout
    assert "not checked yet" in done.stdout
    home = tmp_path / "home"
    run_cli("check", "lesson2", "--json", cwd=ws, env={"GRADTUTOR_HOME": str(home)})
    after = run_cli("list", cwd=ws, env={"GRADTUTOR_HOME": str(home)})
    assert "0/3 passed" in after.stdout or "0/" in after.stdout
    assert not any(p.name.startswith(".gradtutor-progress") for p in ws.rglob("*")), "progress lives outside the workspace"


@pytest.mark.unit
def test_does_reset_keep_a_backup(tmp_path):
    ws = tmp_path / "ws"
    run_cli("init", str(ws))
    mine = ws / "lesson3" / "lesson3.ipynb"
    mine.write_text(json.dumps({"my": "work"}))
    done = run_cli("reset", "softmax", cwd=ws)
    assert done.returncode == 0 and "kept as" in done.stdout
    backups = list((ws / "lesson3").glob("lesson3.backup-*.ipynb"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == {"my": "work"}
    fresh, release = json.loads(mine.read_text()), json.loads(COURSE.lesson("lesson3").release_notebook().read_text())
    assert fresh["cells"] == release["cells"] and fresh["metadata"]["kernelspec"]["name"] == "gradtutor"


@pytest.mark.unit
def test_does_hint_climb_the_ladder():
    exercise = COURSE.lesson("lesson1").exercises[0]
    first = run_cli("hint", "lesson1", exercise.id)
    assert first.returncode == 0 and "Hint 1 of" in first.stdout and "--level 2" in first.stdout
    last = run_cli("hint", "lesson1", "1", "--level", str(len(exercise.hints)))
    assert last.returncode == 0 and f"Hint {len(exercise.hints)} of" in last.stdout


@pytest.mark.unit
def test_does_reset_forget_the_old_files_progress(tmp_path):
    ws = tmp_path / "ws"
    run_cli("init", str(ws))
    home = tmp_path / "home"
    env = {"GRADTUTOR_HOME": str(home)}
    mine = ws / "lesson3" / "lesson3.ipynb"
    home.mkdir()
    (home / "progress.json").write_text(json.dumps(
        {str(mine.resolve()): {"lesson": "lesson3", "exercises": {"loss_gradient": "pass"}}}))
    assert re.search(r"\b1/\d+ passed", run_cli("list", cwd=ws, env=env).stdout)
    assert run_cli("reset", "lesson3", cwd=ws, env=env).returncode == 0
    listed = run_cli("list", cwd=ws, env=env).stdout
    assert not re.search(r"\b1/\d+ passed", listed) and str(mine.resolve()) not in (home / "progress.json").read_text()


@pytest.mark.unit
def test_does_solution_show_code_without_markers():
    exercise = COURSE.lesson("lesson2").exercises[0]
    done = run_cli("solution", "lesson2", exercise.id)
    assert done.returncode == 0 and f"def {exercise.function}(" in done.stdout
    assert "BEGIN SOLUTION" not in done.stdout and "NotImplementedError" not in done.stdout


@pytest.mark.unit
def test_does_help_list_every_verb():
    done = run_cli("--help")
    for verb in ("list", "init", "check", "hint", "solution", "reset", "watch"):
        assert verb in done.stdout
