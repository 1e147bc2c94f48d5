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


def test_every_rule_the_course_texts_state_is_checked():
    from gradtutor.dev.rule_words import unchecked_rule_problems

    the_course = course.load()
    assert [p for lesson in the_course.lessons for p in unchecked_rule_problems(lesson)] == []


def test_a_text_that_states_a_rule_its_manifest_does_not_check_is_one_line(tmp_path):
    """A copy of lesson 2 without two_targets' `requires`: its text still says "one forward pass and one tape"."""
    from gradtutor.dev.rule_words import unchecked_rule_problems

    copy = copy_manifest(tmp_path)
    lesson_file = copy.parent / "lessons" / "lesson2" / course.LESSON_FILE
    text = lesson_file.read_text(encoding="utf-8")
    required = 'requires = ["one-pass"]'
    assert text.count(required) == 1
    lesson_file.write_text(text.replace(required, "requires = []"), encoding="utf-8")
    lesson = course.load_manifest(copy).lesson("lesson2")
    found = list(unchecked_rule_problems(lesson, Path.as_posix))
    assert len(found) == 1, found
    [line] = found
    assert line.startswith(f"{lesson_file.as_posix()}: lesson lesson2 exercise two_targets: "), line
    assert "'one-pass'" in line and "forward pass and one tape" in line and "\n" not in line


def test_each_rule_is_found_by_its_phrasings_in_either_language():
    from gradtutor.dev.rule_words import stated_rules

    assert set(stated_rules("computed from **one** forward pass\nand one tape, (so watch it)")) == {"one-pass", "tape"}
    assert set(stated_rules("要求只用**一次**前向传播和一个梯度带计算")) == {"one-pass"}
    assert set(stated_rules("make them in `build` with `self.add_weight`")) == {"add-weight-in-build"}
    assert set(stated_rules("在 `build` 中用 `self.add_weight` 创建它们")) == {"add-weight-in-build"}
    assert stated_rules("return the gradient of the loss with respect to x") == {}
