"""Does a Chinese workspace stay Chinese on an English-locale machine?

`gradtutor init --lang zh` writes the workspace's language into its marker; inside that workspace it
is the default for every command and for a notebook's check() (after --lang and GRADTUTOR_LANG,
before the locale). Checked the way a learner meets it: LANG=C.UTF-8 (containers, Colab, most
servers), no GRADTUTOR_LANG, each command run from inside the workspace, on a real wrong answer; the
console samples docs/getting-started.zh.md quotes are these runs' output.
"""
from __future__ import annotations

import json
import re

import nbformat
import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from tests.support import REPO
from tests.support.cli import run_cli

CJK = re.compile(r"[\u4e00-\u9fff]")
C_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "GRADTUTOR_LANG": ""}
LESSON = course.load().lesson("lesson1")
EXERCISE = LESSON.exercise("watch_constant")
# the commonest lesson 1 mistake (gradtutor/course/lessons/lesson1/answers.toml): the constant is never watched
WRONG = "    with tf.GradientTape() as tape:\n        y = tf.reduce_sum(x ** 3)\n    return tape.gradient(y, x)\n"
ENGLISH_WORDS = re.compile(r"\b(passed|failed|not attempted|exercises|progress|your previous file|Hint|fresh copy)\b")


@pytest.fixture
def chinese_workspace(tmp_path):
    made = run_cli("init", str(tmp_path / "ws"), "--lang", "zh", env=C_LOCALE)
    assert made.returncode == 0, made.stderr
    return tmp_path / "ws"


def _answer_wrongly(home):
    notebook = home / LESSON.id / LESSON.notebook
    data = json.loads(notebook.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and f"def {EXERCISE.function}(" in text:
            cell["source"] = text.replace("    # YOUR CODE HERE\n    raise NotImplementedError()", WRONG.rstrip("\n"))
    notebook.write_text(json.dumps(data), encoding="utf-8")
    return notebook


def _chinese(shown, *, lines_with_cjk=1):
    text = shown.stdout + shown.stderr
    assert sum(bool(CJK.search(line)) for line in text.splitlines()) >= lines_with_cjk, text
    assert not ENGLISH_WORDS.search(text), text


@pytest.mark.unit
def test_do_init_next_steps_say_the_workspace_speaks_chinese(tmp_path):
    made = run_cli("init", str(tmp_path / "ws"), "--lang", "zh", env=C_LOCALE)
    assert "gradtutor check lesson1" in made.stdout and "中文" in made.stdout, made.stdout
    assert messages.marker_language(tmp_path / "ws") == "zh_CN"


@pytest.mark.unit
def test_do_list_hint_solution_and_reset_speak_the_workspace_language(chinese_workspace):
    home = chinese_workspace
    _chinese(run_cli("list", cwd=home, env=C_LOCALE), lines_with_cjk=3)
    _chinese(run_cli("hint", "lesson1", "1", cwd=home / "lesson1", env=C_LOCALE), lines_with_cjk=2)
    solution = run_cli("solution", "lesson1", "1", cwd=home, env=C_LOCALE)
    assert solution.returncode == 0 and "tape.watch(x)" in solution.stdout and CJK.search(solution.stdout), solution.stdout
    _answer_wrongly(home)
    reset = run_cli("reset", "lesson1", cwd=home, env=C_LOCALE)
    assert reset.returncode == 0 and "新副本" in reset.stdout and "保留为" in reset.stdout, reset.stdout
    _chinese(reset, lines_with_cjk=2)


@pytest.mark.unit
def test_do_a_language_asked_for_and_an_english_workspace_still_win(chinese_workspace, tmp_path):
    asked = run_cli("list", "--lang", "en", cwd=chinese_workspace, env=C_LOCALE)
    assert "exercises" in asked.stdout and not CJK.search(asked.stdout.replace(str(chinese_workspace), "")), asked.stdout
    variable = run_cli("hint", "lesson1", "1", cwd=chinese_workspace, env=dict(C_LOCALE, GRADTUTOR_LANG="en"))
    assert "Hint" in variable.stdout, variable.stdout
    run_cli("init", str(tmp_path / "en"), env=C_LOCALE)
    english = run_cli("hint", "lesson1", "1", cwd=tmp_path / "en", env=dict(C_LOCALE, LANG="zh_CN.UTF-8"))
    assert "Hint" in english.stdout, english.stdout  # the English workspace's language outranks a Chinese locale


def _sample(command: str) -> list[str]:
    """The lines docs/getting-started.zh.md shows for `$ command` (its "..." lines stand for lines left out)."""
    text = (REPO / "docs" / "getting-started.zh.md").read_text(encoding="utf-8")
    block = text.split(f"```console\n$ {command}\n", 1)[1].split("```", 1)[0]
    return [line.rstrip() for line in block.splitlines() if line.strip() != "..."]


def _shows(shown, sample: list[str]) -> None:
    """Every line of the docs' sample, in order, among the lines the real run printed.

    A verdict the sample shows on one line ("✗ watch_constant：…") is printed laid out, a part a line
    (gradtutor.learner.verdict_layout): each of its parts is looked for among the lines that follow.
    """
    from gradtutor.learner.verdict_layout import lay_out

    printed = [line.rstrip() for line in shown.stdout.splitlines()]
    at = 0
    for line in sample:
        verdict = re.match(r"^(✗ \w+：)(.+)$", line)
        if verdict is None:
            assert line in printed[at:], (line, shown.stdout)
            at = printed.index(line, at) + 1
            continue
        parts = lay_out("fail", verdict.group(2), "zh_CN")
        assert verdict.group(1) + parts.what in printed[at:], (line, shown.stdout)
        at = printed.index(verdict.group(1) + parts.what, at) + 1
        for part in filter(None, (parts.why, parts.fix, parts.broke_at)):
            assert any(part in printed_line for printed_line in printed[at:at + 6]), (part, shown.stdout)


@pytest.mark.unit
def test_is_the_docs_hint_sample_what_hint_prints(chinese_workspace):
    shown = run_cli("hint", "lesson1", "watch_constant", cwd=chinese_workspace, env=dict(C_LOCALE, COLUMNS="80"))
    _shows(shown, _sample("gradtutor hint lesson1 watch_constant"))


@pytest.mark.tf
def test_does_check_of_a_wrong_lesson1_answer_speak_chinese(chinese_workspace):
    """`gradtutor check lesson1` on a wrong first answer: Chinese, and what getting-started.zh shows."""
    _answer_wrongly(chinese_workspace)
    shown = run_cli("check", "lesson1", cwd=chinese_workspace / "lesson1", env=dict(C_LOCALE, COLUMNS="80"))
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert "未通过" in shown.stdout and "tape.watch" in shown.stdout, shown.stdout
    _chinese(shown, lines_with_cjk=3)
    _shows(shown, _sample("gradtutor check lesson1"))


@pytest.mark.tf
def test_does_check_in_the_workspace_notebook_speak_chinese(chinese_workspace, monkeypatch):
    from nbclient import NotebookClient

    for name in ("GRADTUTOR_LANG", "LC_ALL", "LC_MESSAGES", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    notebook = nbformat.read(_answer_wrongly(chinese_workspace), as_version=4)
    keep = [cell for cell in notebook.cells if cell.cell_type == "code" and (
        "from gradtutor import check" in cell.source or f"def {EXERCISE.function}(" in cell.source)]
    notebook.cells = keep[:1] + [c for c in keep if EXERCISE.function in c.source]
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(chinese_workspace / LESSON.id)}}).execute()
    outputs = notebook.cells[-1].outputs
    assert not any(o.output_type == "error" for o in outputs), outputs  # a learner's kernel: the verdict, no raise
    html = " ".join(o.get("data", {}).get("text/html", "") for o in outputs)
    text = re.sub(r"<[^>]+>", " ", html)
    assert "未通过" in html and len(CJK.findall(text)) >= 8 and not ENGLISH_WORDS.search(text), html


@pytest.mark.unit
def test_does_a_file_checked_from_outside_its_workspace_get_the_workspace_language(chinese_workspace, tmp_path):
    """`gradtutor check lesson1 --file ws/lesson1/lesson1.ipynb` run from elsewhere: the file's workspace speaks."""
    notebook = chinese_workspace / LESSON.id / LESSON.notebook
    assert messages.from_file_option(["check", "lesson1", "--file", str(notebook)]) == "zh_CN"
    assert messages.from_file_option(["check", "lesson1", f"--file={notebook}"]) == "zh_CN"
    assert messages.from_file_option(["explain", "train.py", "--file", str(notebook)]) is None  # the script's own
    assert messages.from_file_option(["check", "lesson1", "--file", str(tmp_path / "elsewhere.py")]) is None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shown = run_cli("check", "lesson1", "no_such_exercise", "--file", str(notebook), cwd=elsewhere, env=C_LOCALE)
    assert shown.returncode == 2 and CJK.search(shown.stderr), shown.stderr
    english = run_cli("check", "lesson1", "no_such_exercise", "--file", str(notebook), "--lang", "en", cwd=elsewhere,
                      env=C_LOCALE)
    assert english.returncode == 2 and not CJK.search(english.stderr.split("choose one of")[0]), english.stderr
