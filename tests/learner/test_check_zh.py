"""Does the checker speak Chinese: `gradtutor check lesson3` under LANG=zh_CN.UTF-8, on the known wrong answers?

Every wrong answer of lesson 3 in gradtutor/course/lessons/lesson3/answers.toml is checked with the messages in Chinese:
its verdict and cause id are the ones the English run gives (the ids are stable, only words change),
and its diagnosis is Chinese — no sentence of the English catalogue or of course.toml is left in it.
Then the real command, as a learner with a Chinese locale runs it, on a file with one wrong answer
per exercise: Chinese in the table and in `--json`'s messages, the same ids in `--json`.
"""
from __future__ import annotations

import json
import re

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.dev import answers as answers_mod
from gradtutor.learner.verdict_layout import lay_out
from tests.support import REPO
from tests.support.cli import run_cli

pytestmark = pytest.mark.tf

CJK = re.compile(r"[\u4e00-\u9fff]")
LESSON = course.load().lesson("lesson3")
WRONG = [a for a in answers_mod.load_answers(answers_mod.answers_path(REPO, "lesson3"), LESSON)
         if a.expect in ("fail", "error")]  # an error's message quotes TensorFlow's (English) exception, then ours


def english_sentences() -> list[str]:
    """Every English sentence a lesson 3 diagnosis could be made of (the catalogue's and lesson 3's rules)."""
    said = [text for text in messages.catalogue("en").values() if len(text.split()) >= 6]
    said += [rule.say for exercise in LESSON.exercises for rule in exercise.diagnoses]
    # the words between parameters: "{function}() returned None instead of a tuple" → "returned None instead of a tuple"
    parts = [part.strip(" :—().") for text in said for part in re.split(r"\{[^}]*\}", text)]
    return [part for part in parts if len(part.split()) >= 4]


@pytest.fixture(scope="module")
def chinese_checker(course_hidden_inputs):
    """A course's checker started with the messages in Chinese: its worker (where a line of the learner's is worded) too."""
    from gradtutor.checking.checker import Checker

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADTUTOR_LANG", "zh_CN")
        with Checker(timeout=60, hidden=course_hidden_inputs) as checker:
            yield checker
    messages.use(None, export=False)


def test_does_every_known_wrong_answer_get_a_chinese_diagnosis_with_its_cause(chinese_checker, tmp_path):
    assert len(WRONG) >= 25
    english = english_sentences()
    for answer in WRONG:
        path = tmp_path / f"answer{answer.number}.py"
        path.write_text(answer.as_file(), encoding="utf-8")
        result = chinese_checker.check_file(LESSON, path, [LESSON.exercise(answer.exercise)]).exercises[0]
        assert result.status == answer.expect and result.cause == answer.cause, (answer.label(), result.message)
        assert len(CJK.findall(result.message)) >= 8, (answer.label(), result.message)
        left = [sentence for sentence in english if sentence in result.message]
        assert not left, (answer.label(), left, result.message)


def test_does_gradtutor_check_print_chinese_under_a_chinese_locale(tmp_path):
    picked = {}
    for answer in (a for a in WRONG if a.expect == "fail"):
        picked.setdefault(answer.exercise, answer)  # the first wrong answer of each exercise
    assert set(picked) == {e.id for e in LESSON.exercises}
    path = tmp_path / "lesson3_answers.py"
    path.write_text(answers_mod.STANDARD_IMPORTS + "\n".join(a.code for a in picked.values()), encoding="utf-8")
    env = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "GRADTUTOR_LANG": ""}
    shown = run_cli("check", "lesson3", "--file", str(path), "--no-daemon", env=env)
    assert shown.returncode == 1, shown.stderr[-2000:]
    assert "0/4 通过" in shown.stdout and "未通过" in shown.stdout and "passed" not in shown.stdout, shown.stdout
    as_json = run_cli("check", "lesson3", "--file", str(path), "--no-daemon", "--json", env=env)
    verdicts = {e["id"]: e for e in json.loads(as_json.stdout)["exercises"]}
    for exercise, answer in picked.items():
        assert verdicts[exercise]["status"] == "fail" and verdicts[exercise]["cause"] == answer.cause
        assert CJK.search(verdicts[exercise]["message"]), verdicts[exercise]
        # laid out a part a line (gradtutor.learner.verdict_layout), each part as the diagnosis words it
        lines = lay_out("fail", verdicts[exercise]["message"], "zh_CN")
        for part in filter(None, (lines.what, lines.why, lines.fix, lines.broke_at)):
            assert part in shown.stdout.replace("\n", ""), (part, shown.stdout)
    english = run_cli("check", "lesson3", "--file", str(path), "--no-daemon", "--json", "--lang", "en", env=env)
    for one in json.loads(english.stdout)["exercises"]:  # --lang outranks the locale; the ids do not change
        assert not CJK.search(one["message"]) and one["cause"] == verdicts[one["id"]]["cause"]
