"""The command line in Chinese: `--lang`, GRADTUTOR_LANG and the locale, and a Chinese workspace.

`gradtutor init --lang zh` copies the Chinese notebooks under the English names (so checking, grading
and progress work the same), remembers the language for `reset`, and every line the commands print is
Chinese; machine-read output (`--json` ids, exit codes) does not change with the language.
"""
from __future__ import annotations

import json
import re

import pytest

from gradtutor.course import manifest as course
from tests.support.cli import run_cli

pytestmark = pytest.mark.unit

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = {"LANG": "C.UTF-8", "LC_ALL": "", "GRADTUTOR_LANG": ""}


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_does_init_lang_zh_copy_the_chinese_notebooks_under_the_english_names(tmp_path):
    made = run_cli("init", str(tmp_path / "ws"), "--lang", "zh", env=ENGLISH)
    assert made.returncode == 0 and "已创建" in made.stdout and "你的工作区是" in made.stdout, made.stdout + made.stderr
    for lesson in course.load().lessons:
        copied = tmp_path / "ws" / lesson.id / lesson.notebook
        assert _cells(copied)[0]["source"] == _cells(lesson.release_notebook("zh_CN"))[0]["source"]
        assert CJK.search("".join(_cells(copied)[0]["source"]))
    english = run_cli("init", str(tmp_path / "en"), env=ENGLISH)
    lesson1 = course.load().lesson("lesson1")
    assert not CJK.search("".join(_cells(tmp_path / "en" / "lesson1" / lesson1.notebook)[0]["source"]))
    assert "created" in english.stdout and not CJK.search(english.stdout)


def test_does_reset_give_back_the_workspace_language(tmp_path):
    run_cli("init", str(tmp_path), "--lang", "zh", env=ENGLISH)
    lesson = course.load().lesson("lesson2")
    notebook = tmp_path / lesson.id / lesson.notebook
    notebook.write_text(notebook.read_text(encoding="utf-8").replace("raise NotImplementedError()", "return 1"),
                        encoding="utf-8")
    reset = run_cli("reset", "lesson2", cwd=tmp_path, env=ENGLISH)  # an English terminal: the workspace's words
    assert reset.returncode == 0 and "你原来的文件保留为" in reset.stdout, reset.stdout + reset.stderr
    assert _cells(notebook) == _cells(lesson.release_notebook("zh_CN"))  # the Chinese starter again


@pytest.mark.parametrize("how", ["option", "environment", "locale"])
def test_is_the_language_taken_from_the_option_the_variable_or_the_locale(tmp_path, how):
    args, env = ["hint", "lesson1", "1"], dict(ENGLISH)
    if how == "option":
        args.append("--lang=zh")
    elif how == "environment":
        env["GRADTUTOR_LANG"] = "zh_CN"
    else:
        env["LANG"] = "zh_CN.UTF-8"
    shown = run_cli(*args, env=env, cwd=tmp_path)
    assert shown.returncode == 0 and "提示" in shown.stdout and "Hint" not in shown.stdout, shown.stdout
    assert CJK.search(shown.stdout.split("\n", 1)[1])  # the hint itself, from the translated course texts


def test_are_errors_and_help_chinese_too(tmp_path):
    unknown = run_cli("check", "lesson99", "--lang", "zh", env=ENGLISH, cwd=tmp_path)
    assert unknown.returncode == 2 and "课程中没有 'lesson99' 这一课" in unknown.stderr, unknown.stderr
    assert unknown.stderr.count("\n") == 1
    shown = run_cli("--lang", "zh", "check", "--help", env=ENGLISH)
    assert shown.returncode == 0 and "只检查这个练习" in shown.stdout, shown.stdout
    top = run_cli("--help", "--lang", "zh", env=ENGLISH)
    assert "给一课的练习评分" in top.stdout and "--lang" in top.stdout
    bad = run_cli("list", "--lang", "fr", env=ENGLISH)
    assert bad.returncode == 2 and "--lang: unknown language 'fr'" in bad.stderr and "Traceback" not in bad.stderr


def test_does_list_keep_its_ids_and_translate_its_words(tmp_path):
    shown = run_cli("list", "--lang", "zh", env=ENGLISH, cwd=tmp_path)
    assert shown.returncode == 0 and "lesson4 (stateful-rnn)" in shown.stdout and "有状态 RNN" in shown.stdout
    assert "这里没有工作区" in shown.stdout, shown.stdout


def test_does_lab_speak_the_workspace_language_unless_one_was_chosen(tmp_path, monkeypatch):
    from gradtutor.learner import lab
    from gradtutor.learner import workspace

    run_cli("init", str(tmp_path / "zh"), "--lang", "zh", env=ENGLISH)
    run_cli("init", str(tmp_path / "en"), env=ENGLISH)
    assert workspace.language(tmp_path / "zh") == "zh_CN" and workspace.language(tmp_path / "en") == "en"
    monkeypatch.delenv("GRADTUTOR_LANG", raising=False)
    assert lab.lab_environment(tmp_path / "zh")["GRADTUTOR_LANG"] == "zh_CN"  # check() in its notebooks: Chinese
    assert lab.lab_environment(tmp_path / "en")["GRADTUTOR_LANG"] == "en"
    monkeypatch.setenv("GRADTUTOR_LANG", "en")
    assert lab.lab_environment(tmp_path / "zh")["GRADTUTOR_LANG"] == "en"  # a language asked for wins
