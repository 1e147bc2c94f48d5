"""Does every message exist in every language, with the same parameters, and is the language chosen as documented?

The catalogues are gradtutor/messages/<lang>/<area>.toml (gradtutor.messages). A message id in one
language and not the other, or a {parameter} one translation uses and the other does not, would show
a learner an English sentence in the middle of Chinese ones, or raise KeyError: both fail here.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from gradtutor import messages
from tests.support import REPO

pytestmark = pytest.mark.unit

PACKAGE = REPO / "gradtutor"
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _environment_language(monkeypatch):
    for name in ("GRADTUTOR_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.setenv(name, "")  # recorded, so that what a test (or use()) sets there is undone after it
        monkeypatch.delenv(name)
    yield
    messages.use(None, export=False)


@pytest.mark.parametrize("lang", [lang for lang in messages.LANGUAGES if lang != messages.DEFAULT])
def test_does_every_message_have_every_translation_with_the_same_parameters(lang):
    english, other = messages.catalogue("en"), messages.catalogue(lang)
    assert len(english) > 300  # every area's file was read
    assert sorted(set(english) - set(other)) == [], f"ids with no {lang} text"
    assert sorted(set(other) - set(english)) == [], f"{lang} ids English does not have"
    for key, text in english.items():
        assert messages.parameters(other[key]) == messages.parameters(text), key
        if CJK.sub("", text) == text and re.search(r"[a-z]{3,} [a-z]{3,}", text):  # a sentence, not a name
            assert CJK.search(other[key]) or other[key] == text and "`" in text, f"{key} is not translated"


def test_are_the_catalogues_one_file_per_area_in_both_languages():
    folders = {lang: sorted(p.name for p in (messages.HERE / lang).glob("*.toml")) for lang in messages.LANGUAGES}
    english = [name for name in folders["en"]]
    assert [name for name in folders["zh_CN"] if name != "course.toml"] == english
    assert "course.toml" in folders["zh_CN"] and "course.toml" not in english  # the English is course.toml itself


def test_is_every_literal_id_in_the_code_a_message_with_those_parameters():
    """say("area.id", name=...) anywhere in the package: the id exists and gets exactly its parameters."""
    english, seen = messages.catalogue("en"), 0
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "say" \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                key = node.args[0].value
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                assert key in english, f"{where}: no message {key!r}"
                if any(k.arg is None for k in node.keywords):
                    continue  # **params
                given = {k.arg for k in node.keywords} - {"lang"}
                assert messages.parameters(english[key]) <= given, f"{where}: {key} needs {messages.parameters(english[key])}"
                seen += 1
    assert seen > 250, seen


@pytest.mark.parametrize("name, expected", [
    ("zh", "zh_CN"), ("zh_CN", "zh_CN"), ("zh-CN", "zh_CN"), ("zh_CN.UTF-8", "zh_CN"), ("ZH_cn.utf8", "zh_CN"),
    ("zh_Hans", "zh_CN"), ("en", "en"), ("en_GB.UTF-8", "en"), ("C.UTF-8", "en"), ("POSIX", "en"),
    ("fr_FR.UTF-8", None), ("", None), ("zh_TW", None)])
def test_are_language_and_locale_names_read_as_documented(name, expected):
    assert messages.normalise(name) == expected


def test_is_the_language_chosen_in_the_documented_order(monkeypatch):
    assert messages.language() == "en"  # nothing set
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert messages.language() == "en"  # a locale with no catalogue
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert messages.language() == "zh_CN"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    assert messages.language() == "en"  # LC_ALL outranks LANG
    monkeypatch.setenv("GRADTUTOR_LANG", "zh")
    assert messages.language() == "zh_CN"  # GRADTUTOR_LANG outranks the locale
    messages.use("en", export=False)
    assert messages.language() == "en"  # --lang outranks everything
    messages.use(None, export=False)
    assert messages.language() == "zh_CN"


def test_does_use_reach_the_processes_started_after_it(monkeypatch):
    messages.use("zh")
    child = subprocess.run([sys.executable, "-c", "from gradtutor import messages; print(messages.language())"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "zh_CN"


def test_is_a_bad_language_one_line_naming_where_it_came_from(monkeypatch):
    with pytest.raises(messages.UsageError, match=r"^--lang: unknown language 'fr' — use en or zh"):
        messages.from_command_line(["check", "lesson1", "--lang", "fr"])
    monkeypatch.setenv("GRADTUTOR_LANG", "klingon")
    with pytest.raises(messages.UsageError, match=r"^GRADTUTOR_LANG: unknown language 'klingon'"):
        messages.from_environment()
    assert messages.language() == "en"  # and an error about it can still be worded
    shown = subprocess.run([sys.executable, "-m", "gradtutor", "list"], capture_output=True, text=True,
                           env={"GRADTUTOR_LANG": "klingon", "PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    assert shown.returncode == 2 and shown.stderr.strip().count("\n") == 0, shown.stderr
    assert "GRADTUTOR_LANG: unknown language 'klingon'" in shown.stderr and "Traceback" not in shown.stderr


def test_is_the_lang_option_read_wherever_it_is_on_the_command_line():
    assert messages.from_command_line(["--lang", "zh", "check", "lesson1"]) == "zh_CN"
    assert messages.from_command_line(["check", "lesson1", "--lang=en"]) == "en"
    assert messages.from_command_line(["check", "lesson1"]) is None
    assert messages.from_command_line(["explain", "train.py", "--", "--lang", "zh"]) is None  # the script's own


def test_does_a_translated_message_fill_its_parameters():
    assert messages.say("check.summary", passed=1, total=3, points=2, maximum=6) == "1/3 passed · 2/6 points"
    assert messages.say("check.summary", lang="zh_CN", passed=1, total=3, points=2, maximum=6) == "1/3 通过 · 2/6 分"
    messages.use("zh_CN", export=False)
    assert messages.say("check.status.not_attempted") == "未作答"


def test_does_a_changed_english_course_text_fall_back_to_english_not_to_a_stale_translation():
    key, english = "lesson1.title", "Constant vs Variable: what the tape watches"
    translated = messages.course_text(key, english, lang="zh_CN")
    assert translated != english and CJK.search(translated)
    assert messages.course_text(key, english + " (revised)", lang="zh_CN") == english + " (revised)"
    assert messages.course_text(key, english, lang="en") == english
