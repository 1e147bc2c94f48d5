"""Can a diagnosis rule fire on words? `gradtutor dev check` rejects a source pattern that the
unchanged starter already matches (its docstring, comments or given code), in one line."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtutor.course import manifest as course
from gradtutor.course.code_words import code_only
from gradtutor.dev.rule_words import rule_word_problems
from tests.support.manifest import copy_manifest

pytestmark = pytest.mark.unit

def test_no_rule_of_the_course_matches_its_starter():
    the_course = course.load()
    found = [p for lesson in the_course.lessons for p in rule_word_problems(lesson)]
    assert found == []


def test_a_rule_matching_the_starters_docstring_is_one_line(tmp_path):
    copy = copy_manifest(tmp_path)
    lesson_file = copy.parent / "lessons" / "lesson3" / course.LESSON_FILE
    text = lesson_file.read_text(encoding="utf-8")
    # lesson 3's class_gradient starter says 'Dense(C, activation="softmax")' in its docstring
    old = "source_has = '\\.kernel|get_weights|\\.activation\\b|activation\\s*=\\s*(None|.linear)'"
    assert old in text
    lesson_file.write_text(text.replace(old, "source_has = '\\.kernel|get_weights|activation'"), encoding="utf-8")
    the_course = course.load_manifest(copy)
    found = [p for lesson in the_course.lessons for p in rule_word_problems(lesson, Path.as_posix)]
    assert len(found) == 1, found
    [line] = found
    assert line.startswith(f"{lesson_file.as_posix()}: lesson lesson3 exercise class_gradient diagnosis "), line
    assert "'activation'" in line, line
    assert "lesson3.ipynb" in line and "\n" not in line


def test_code_only_blanks_docstrings_and_comments_and_keeps_code_and_lines():
    source = 'def f(x):\n    """Call x.numpy()."""\n    y = x.numpy()  # .numpy() here\n    return "np." + y\n'
    code = code_only(source)
    assert code.count(".numpy()") == 1 and '"np."' in code and code.count("\n") == source.count("\n")
    assert code_only("def f(:\n  'broken'") == "def f(:\n  'broken'"
