"""The sweep: every known answer (tests/answers/) through the real checker on many random hidden seeds.

A course draws its hidden seeds from its own random secret (gradtutor.seeds.course_seeds),
so a tolerance that holds on the two visible inputs may still fail a correct answer on
one hidden input in a hundred. The sweep draws a fresh secret, derives `count` seeds per
lesson from it, as a course would, and grades every known answer on them:

    sweep: C/C correct answers pass on N random seeds each; W/W wrong answers fail

It fails (exit 1) unless every correct answer passes on every seed and every wrong one fails.
`make sweep` runs all of it; the tf test tier runs a slice (tests/test_sweep.py).

    python -m gradtutor.dev.sweep [--seeds N] [--lesson ID] [--exercise ID] [--secret HEX]
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from gradtutor import course, course_secret
from gradtutor.dev.answers import Answer, answers_path, load_answers
from gradtutor.protocol import Status

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SEEDS = 200


@dataclasses.dataclass
class SweepResult:
    seeds: int
    secret: str
    correct: int = 0
    passed: int = 0
    wrong: int = 0
    failed: int = 0
    problems: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.passed == self.correct and self.failed == self.wrong and self.correct + self.wrong > 0

    def summary(self) -> str:
        return (f"sweep: {self.passed}/{self.correct} correct answers pass on {self.seeds} random seeds each; "
                f"{self.failed}/{self.wrong} wrong answers fail")


def known_answers(lesson_ids=None, exercise_id: str | None = None, root: Path = REPO) -> list[Answer]:
    """The known answers that must pass or fail (not those that must error or time out) of the lessons asked."""
    the_course = course.load()
    chosen = []
    for lesson in the_course.lessons:
        if lesson_ids and lesson.id not in lesson_ids:
            continue
        for answer in load_answers(answers_path(root, lesson.id), lesson):
            if answer.expect in ("pass", "fail") and exercise_id in (None, answer.exercise):
                chosen.append(answer)
    return chosen


def sweep(answers: list[Answer], count: int = DEFAULT_SEEDS, secret: str | None = None, checker=None) -> SweepResult:
    """Grade `answers` on `count` hidden seeds per lesson drawn from `secret` (a new random one if None)."""
    from gradtutor.checker import Checker  # starts a worker that imports TensorFlow
    from gradtutor.seeds import HiddenInputs

    secret = secret or course_secret.new_secret()
    result = SweepResult(count, secret)
    own = checker is None
    checker = checker or Checker(timeout=600)
    before, checker.hidden = checker.hidden, HiddenInputs(secret=secret, count=count)
    the_course = course.load()
    try:
        with tempfile.TemporaryDirectory(prefix="gradtutor-sweep-") as scratch:
            for answer in answers:
                lesson = the_course.lesson(answer.lesson)
                path = Path(scratch) / f"{answer.lesson}_{answer.number}.py"
                path.write_text(answer.as_file(), encoding="utf-8")
                verdict = checker.check_file(lesson, path, [lesson.exercise(answer.exercise)], "hidden").exercises[0]
                first = verdict.message.splitlines()[0] if verdict.message else ""
                if answer.expect == "pass":
                    result.correct += 1
                    if verdict.status is Status.PASS:
                        result.passed += 1
                    else:
                        result.problems.append(f"correct answer {verdict.status.value}: {answer.label()}: {first}")
                else:
                    result.wrong += 1
                    if verdict.status is Status.PASS:
                        result.problems.append(f"wrong answer passed: {answer.label()}")
                    else:
                        result.failed += 1
    finally:
        checker.hidden = before  # a checker lent by the caller goes back as it came
        if own:
            checker.close()
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradtutor.dev.sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="random hidden seeds per lesson (default 200)")
    parser.add_argument("--lesson", action="append", help="only this lesson (repeatable)")
    parser.add_argument("--exercise", help="only this exercise")
    parser.add_argument("--secret", help="the secret to derive the seeds from (to replay a sweep); default: a new one")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    from gradtutor.checker import Checker

    answers = known_answers(args.lesson, args.exercise)
    result = SweepResult(args.seeds, args.secret or course_secret.new_secret())
    with Checker(timeout=600) as checker:
        for lesson_id in dict.fromkeys(a.lesson for a in answers):  # one lesson at a time, said as it ends
            part = sweep([a for a in answers if a.lesson == lesson_id], args.seeds, result.secret, checker)
            for problem in part.problems:
                print(f"  {problem}")
            print(f"{lesson_id}: {part.passed}/{part.correct} correct pass, {part.failed}/{part.wrong} wrong fail",
                  flush=True)
            for field in ("correct", "passed", "wrong", "failed"):
                setattr(result, field, getattr(result, field) + getattr(part, field))
            result.problems += part.problems
    print(result.summary())
    if not result.ok:
        print(f"  replay with: python -m gradtutor.dev.sweep --secret {result.secret} --seeds {result.seeds}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
