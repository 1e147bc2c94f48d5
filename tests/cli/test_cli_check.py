"""Does `gradtutor check` keep its contract: exit codes 0/1/2, --json, one-line errors, untouched files?"""
from __future__ import annotations

import hashlib
import json

import pytest

from tests.support import REPO
from tests.support.cli import run_cli


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.tf
def test_is_a_fresh_workspace_all_not_attempted(tmp_path):
    assert run_cli("init", str(tmp_path / "ws")).returncode == 0
    notebook = tmp_path / "ws" / "lesson1" / "lesson1.ipynb"
    before = _digest(notebook)
    done = run_cli("check", "lesson1", "--json", cwd=tmp_path / "ws")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["lesson"] == "lesson1" and report["passed"] == 0
    assert {e["status"] for e in report["exercises"]} == {"not_attempted"}
    assert set(report["exercises"][0]) >= {"id", "status", "message", "points"}
    assert _digest(notebook) == before, "checking must never modify the learner's notebook"


@pytest.mark.tf
def test_do_the_solutions_pass_with_exit_0(tmp_path):
    done = run_cli("check", "1", "--file", "solutions/lesson1/lesson1.ipynb", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] == report["total"] >= 3
    assert all(e["points"] == e["max_points"] for e in report["exercises"])


@pytest.mark.tf
def test_does_the_table_show_each_exercise_and_a_summary():
    done = run_cli("check", "watching", "--file", "lessons/lesson1/lesson1.ipynb")
    assert done.returncode == 1
    assert "not attempted" in done.stdout and "0/" in done.stdout and "passed" in done.stdout


@pytest.mark.parametrize("args, words", [
    (["check", "lesson99", "--file", "solutions/lesson1/lesson1.ipynb"], "no lesson 'lesson99'"),
    (["check", "lesson1", "--file", "no/such/file.ipynb"], "no such file"),
    (["check", "lesson1", "nosuchexercise", "--file", "solutions/lesson1/lesson1.ipynb"], "has no exercise"),
    (["check"], "required"),
    (["hint", "lesson1", "1", "--level", "99"], "has hints 1 to"),
])
@pytest.mark.unit
def test_is_bad_input_one_line_with_exit_2(args, words):
    done = run_cli(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.tf
def test_is_a_corrupt_notebook_one_line_with_exit_2_and_left_alone(tmp_path):
    broken = tmp_path / "lesson1.ipynb"
    broken.write_text('{"cells": [ {"cell_type": "code", "sou')
    before = _digest(broken)
    done = run_cli("check", "lesson1", "--file", str(broken))
    assert done.returncode == 2 and "not valid notebook JSON" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert _digest(broken) == before


@pytest.mark.unit
def test_does_a_check_outside_a_workspace_say_what_to_do(tmp_path):
    done = run_cli("check", "lesson1", cwd=tmp_path)
    assert done.returncode == 2 and "gradtutor init" in done.stderr


@pytest.mark.tf
def test_is_a_missing_function_exit_2_naming_it(tmp_path):
    source = json.loads((REPO / "lessons/lesson1/lesson1.ipynb").read_text())
    for cell in source["cells"]:
        if cell["cell_type"] == "code":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = text.replace("def ", "def renamed_")
    path = tmp_path / "renamed.ipynb"
    path.write_text(json.dumps(source))
    done = run_cli("check", "lesson1", "--file", str(path), "--json")
    assert done.returncode == 2
    messages = [e["message"] for e in json.loads(done.stdout)["exercises"]]
    assert all("is not defined in renamed.ipynb" in m for m in messages)
