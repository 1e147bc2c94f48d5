"""Does every answer in tests/answers/ get the verdict a learner needs, and the cause it really has?

Each lesson keeps, per exercise, correct answers written in unusual ways (they must
pass) and the mistakes people really make (they must fail, each with the cause id its
code really has). All answers go through one checker; a summary line reports

    answers: C/C correct pass, W/W wrong fail, D/W diagnosed with the expected cause
    agree: A/B

(B: the wrong answers whose cause is a run-time one, gradtutor.dev.agreement.RUN_TIME; A: those on which
the checker's cause is the cause of `gradtutor explain`'s first finding on the same code)

(an answer with `says` counts as diagnosed only when its message also matches each of those
regular expressions: the words it needs, not only the cause id),
and the run fails unless every correct answer passes, every wrong one fails, and
D/W ≥ DIAGNOSED_FLOOR and A/B ≥ AGREE_FLOOR.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from gradtutor import course

ANSWERS = Path(__file__).parent / "answers"
DIAGNOSED_FLOOR = 0.95
AGREE_FLOOR = 0.85  # measured 110/125 (issue 22: 99/125 before); the goal is B/B
MIN_CORRECT = 5
MIN_WRONG = 8


def _entries():
    for path in sorted(ANSWERS.glob("*.toml")):
        for number, entry in enumerate(tomllib.loads(path.read_text())["answer"], start=1):
            yield path.stem, number, entry


@pytest.mark.tf
def test_every_answer_gets_its_verdict_and_cause(grade, capsys):
    from gradtutor.dev.agreement import RUN_TIME, explain_causes

    correct, passed, wrong, failed, diagnosed = 0, 0, 0, 0, 0
    problems, run_time = [], []
    for lesson_id, number, entry in _entries():
        result = grade(lesson_id, entry["exercise"], entry["code"])
        label = f"{lesson_id} {entry['exercise']} #{number} ({entry['name']})"
        first = result.message.splitlines()[0] if result.message else ""
        if entry["expect"] == "pass":
            correct += 1
            passed += result.status == "pass" and result.points == result.max_points
            if result.status != "pass":
                problems.append(f"correct answer failed: {label}: {result.status} {first}")
            continue
        wrong += 1
        if result.status == "pass" or result.points:
            problems.append(f"wrong answer passed: {label}")
            continue
        failed += 1
        if entry["cause"] in RUN_TIME:
            run_time.append((label, result.cause, {"lesson": lesson_id, "exercise": entry["exercise"], "code": entry["code"]}))
        unsaid = [p for p in entry.get("says", ()) if not re.search(p, result.message or "")]
        if result.cause is not None and result.cause.value == entry["cause"] and not unsaid:
            diagnosed += 1
        elif unsaid:
            problems.append(f"words: the message does not say {unsaid[0]!r}: {label}: {first}")
        else:
            problems.append(f"cause {result.cause} (expected {entry['cause']}): {label}: {first}")
    summary = (f"answers: {passed}/{correct} correct pass, {failed}/{wrong} wrong fail, "
               f"{diagnosed}/{wrong} diagnosed with the expected cause")
    explained = explain_causes([answer for _, _, answer in run_time])
    agree = sum(str(cause) == found for (_, cause, _), found in zip(run_time, explained))
    with capsys.disabled():
        print("\n" + summary)
        for problem in problems:
            print("  " + problem)
        print(f"agree: {agree}/{len(run_time)}")
        for (label, cause, _), found in zip(run_time, explained):
            if str(cause) != found:
                print(f"  {label}: the checker says {cause}, explain {found or 'nothing'}")
    assert passed == correct and failed == wrong, summary
    assert diagnosed >= DIAGNOSED_FLOOR * wrong, summary
    assert run_time and agree >= AGREE_FLOOR * len(run_time), f"agree: {agree}/{len(run_time)}"


@pytest.mark.unit
def test_every_exercise_has_unusual_correct_answers_and_realistic_wrong_ones():
    from gradtutor.protocol import Cause

    entries = [(lesson, entry) for lesson, _, entry in _entries()]
    for lesson in course.load().lessons:
        for exercise in lesson.exercises:
            mine = [e for les, e in entries if les == lesson.id and e["exercise"] == exercise.id]
            right = [e for e in mine if e["expect"] == "pass"]
            wrong = [e for e in mine if e["expect"] != "pass"]
            assert len(right) >= MIN_CORRECT, f"{lesson.id} {exercise.id}: only {len(right)} correct answers"
            assert len(wrong) >= MIN_WRONG, f"{lesson.id} {exercise.id}: only {len(wrong)} wrong answers"
            for entry in wrong:
                assert entry["expect"] in ("fail", "error"), entry["name"]
                assert Cause(entry["cause"]), entry["name"]  # a known cause id
