"""Does every answer in tests/answers/ get the verdict a learner needs, the cause it really has, and the words?

Each lesson keeps, per exercise, correct answers written in unusual ways (they must
pass) and the mistakes people really make (they must fail, each with the cause id its
code really has). Every wrong answer's message is read again, not only its id:

* it carries a sentence of the cause it names (a rule of the exercise for that cause, the
  cause's own sentence, a named variant, a constant factor read as a count);
* `line = "…"`: it quotes that learner line (where the path broke, or where it raised);
* `variant = "…"`: it says what the code computed instead (the reference's variant of that id);
* `says = ["regex", …]`: each regular expression matches it.

One test per lesson (`-k lesson3` runs one), and a last one over the whole corpus that prints

    answers: C/C correct pass, W/W wrong fail, D/W diagnosed with the expected cause and words
    agree: A/B
    quoted: Q/L

(B: the wrong answers whose cause is a run-time one, gradtutor.dev.agreement.RUN_TIME, and whose
code asked for a gradient when it ran — a closed form with no tape gives explain nothing to look at; A: those on which the checker's cause is the cause of `gradtutor explain`'s
first finding on the same code; L: those of A on which explain found the learner's line where the
path broke; Q: those whose message quotes that line). It fails unless A = B and Q = L.
"""
from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

import pytest

from gradtutor import course

pytestmark = pytest.mark.xdist_group("answers")  # one worker: the corpus test reads the lessons' results

ANSWERS = Path(__file__).parent / "answers"
LESSONS = sorted(path.stem for path in ANSWERS.glob("*.toml"))
MIN_CORRECT = 5
MIN_WRONG = 8
GRADED: dict = {}  # (lesson, number) -> result, filled by the lesson tests and read by the corpus test


def _entries(lesson_id: str | None = None):
    for path in sorted(ANSWERS.glob("*.toml")):
        if lesson_id is None or path.stem == lesson_id:
            for number, entry in enumerate(tomllib.loads(path.read_text())["answer"], start=1):
                yield path.stem, number, entry


def _graded(grade, lesson_id: str, number: int, entry: dict):
    key = (lesson_id, number)
    if key not in GRADED:
        GRADED[key] = grade(lesson_id, entry["exercise"], entry["code"])
    return GRADED[key]


@functools.cache
def _cause_sentences(lesson_id: str, exercise_id: str, cause: str) -> tuple[str, ...]:
    """The fixed words of every sentence that names `cause` for this exercise (each template's text up to its
    first {parameter}, or its longest fixed piece): a message naming that cause carries one of them."""
    from gradtutor.course_schema import REQUIREMENTS
    from gradtutor.messages import catalogue, course_text

    exercise = course.load().lesson(lesson_id).exercise(exercise_id)
    texts = [course_text(rule.key, rule.say) for rule in exercise.diagnoses if rule.cause == cause]
    messages = catalogue("en")
    texts += [text for key, text in messages.items() if key == f"cause.{cause}.checker"
              or key.startswith(f"variant.{exercise_id}.")
              or cause == "scale" and key.startswith("diagnosis.scale")
              or cause == "wrong-type" and key.startswith("diagnosis.type_advice.")
              or cause == "no-return" and key == "diagnosis.no_return"
              or cause == "hard-coded" and key == "check.right_on_another"
              or cause == "load-failed" and key == "diagnosis.load_failed"
              or key.startswith("diagnosis.requires.") and REQUIREMENTS.get(key.rsplit(".", 1)[1].replace("_", "-")) == cause]
    if not any(key == f"cause.{cause}.checker" for key in messages):  # worded as wrong-function's (diagnose.cause_text)
        texts.append(messages["cause.wrong-function.checker"])
    return tuple(max(re.split(r"\{[^}]*\}", text), key=len).strip() for text in texts)


def _unsaid(lesson_id: str, entry: dict, message: str) -> str | None:
    """What the message of a wrong answer fails to say, or None."""
    from gradtutor.messages import say

    if not any(words in message for words in _cause_sentences(lesson_id, entry["exercise"], entry["cause"])):
        return f"no sentence of {entry['cause']}"
    if entry.get("line") and entry["line"] not in message:
        return f"the line {entry['line']!r}"
    if entry.get("variant") and say(f"variant.{entry['exercise']}.{entry['variant']}") not in message:
        return f"the variant {entry['variant']!r}"
    return next((f"{pattern!r}" for pattern in entry.get("says", ()) if not re.search(pattern, message)), None)


@pytest.mark.tf
@pytest.mark.parametrize("lesson_id", LESSONS)
def test_every_answer_gets_its_verdict_cause_and_words(grade, lesson_id, capsys):
    problems = []
    for _, number, entry in _entries(lesson_id):
        result = _graded(grade, lesson_id, number, entry)
        label = f"{lesson_id} {entry['exercise']} #{number} ({entry['name']})"
        first = result.message.splitlines()[0] if result.message else ""
        if entry["expect"] == "pass":
            if result.status != "pass" or result.points != result.max_points:
                problems.append(f"correct answer failed: {label}: {result.status} {first}")
        elif result.status == "pass" or result.points:
            problems.append(f"wrong answer passed: {label}")
        elif result.cause is None or result.cause.value != entry["cause"]:
            problems.append(f"cause {result.cause} (expected {entry['cause']}): {label}: {first}")
        elif _unsaid(lesson_id, entry, result.message or ""):
            problems.append(f"words: the message does not say {_unsaid(lesson_id, entry, result.message)}: {label}: {first}")
    with capsys.disabled():
        for problem in problems:
            print("\n  " + problem, end="")
    assert not problems, f"{len(problems)} answers of {lesson_id} do not get their verdict, cause and words"


@pytest.mark.tf
def test_checker_and_explain_agree_and_the_line_is_quoted(grade, capsys):
    from gradtutor.dev.agreement import RUN_TIME, explain_causes

    counts = {"correct": 0, "passed": 0, "wrong": 0, "failed": 0, "diagnosed": 0}
    run_time = []
    for lesson_id, number, entry in _entries():
        result = _graded(grade, lesson_id, number, entry)
        if entry["expect"] == "pass":
            counts["correct"] += 1
            counts["passed"] += result.status == "pass" and result.points == result.max_points
            continue
        counts["wrong"] += 1
        if result.status == "pass" or result.points:
            continue
        counts["failed"] += 1
        said = result.cause is not None and result.cause.value == entry["cause"]
        counts["diagnosed"] += said and not _unsaid(lesson_id, entry, result.message or "")
        if entry["cause"] in RUN_TIME:
            label = f"{lesson_id} {entry['exercise']} #{number} ({entry['name']})"
            answer = {"lesson": lesson_id, "exercise": entry["exercise"], "code": entry["code"]}
            run_time.append((label, result.cause, result.message or "", answer))
    explained = explain_causes([a for *_, a in run_time])
    asked = [(row, found) for row, found in zip(run_time, explained) if found["asked"]]  # no tape: nothing to explain
    run_time, explained = [row for row, _ in asked], [found for _, found in asked]
    agreed = [(row, found) for row, found in zip(run_time, explained) if str(row[1]) == found["cause"]]
    lines = [(label, message, found["code"]) for (label, _, message, _), found in agreed if found["code"]]
    unquoted = [(label, code) for label, message, code in lines if code not in message]
    with capsys.disabled():
        print(f"\nanswers: {counts['passed']}/{counts['correct']} correct pass, {counts['failed']}/{counts['wrong']} "
              f"wrong fail, {counts['diagnosed']}/{counts['wrong']} diagnosed with the expected cause and words")
        print(f"agree: {len(agreed)}/{len(run_time)}")
        for (label, cause, *_), found in zip(run_time, explained):
            if str(cause) != found["cause"]:
                print(f"  {label}: the checker says {cause}, explain {found['cause'] or 'nothing'}")
        print(f"quoted: {len(lines) - len(unquoted)}/{len(lines)}")
        for label, code in unquoted:
            print(f"  {label}: the message does not quote {code!r}")
    assert run_time and len(agreed) == len(run_time), f"agree: {len(agreed)}/{len(run_time)}"
    assert lines and not unquoted, f"quoted: {len(lines) - len(unquoted)}/{len(lines)}"


@pytest.mark.unit
def test_every_exercise_has_unusual_correct_answers_and_realistic_wrong_ones():
    from gradtutor.messages import has
    from gradtutor.protocol import Cause

    entries = [(lesson, entry) for lesson, _, entry in _entries()]
    for lesson in course.load().lessons:
        for exercise in lesson.exercises:
            mine = [e for les, e in entries if les == lesson.id and e["exercise"] == exercise.id]
            right = [e for e in mine if e["expect"] == "pass"]
            wrong = [e for e in mine if e["expect"] != "pass"]
            assert len(right) >= MIN_CORRECT, f"{lesson.id} {exercise.id}: only {len(right)} correct answers"
            assert len(wrong) >= MIN_WRONG, f"{lesson.id} {exercise.id}: only {len(wrong)} wrong answers"
            for entry in mine:
                assert set(entry) <= {"exercise", "name", "expect", "cause", "code", "says", "line", "variant", "source"}, \
                    f"{lesson.id} #{entry['name']}: unknown key"
            for entry in wrong:
                assert entry["expect"] in ("fail", "error"), entry["name"]
                assert Cause(entry["cause"]), entry["name"]  # a known cause id
                assert not entry.get("line") or entry["line"] in entry["code"], f"{entry['name']}: line not in code"
                assert not entry.get("variant") or has(f"variant.{exercise.id}.{entry['variant']}"), entry["name"]
