"""The sweep: every known answer (each lesson's answers.toml) through the real checker on many random hidden seeds.

A course draws its hidden seeds from its own random secret (gradtutor.course.seeds.course_seeds),
so a tolerance that holds on the two visible inputs may still fail a correct answer on
one hidden input in a hundred. The sweep draws a fresh secret, derives `count` seeds per
lesson from it, as a course would, and grades every known answer on them:

    sweep: C/C correct answers pass on N random seeds each; W/W wrong answers fail

It fails (exit 1) unless every correct answer passes on every seed and every wrong one fails.
`make sweep` runs all of it; the tf test tier runs a slice (tests/dev/test_sweep.py).

    python -m gradtutor.dev.sweep [--seeds N] [--lesson ID] [--exercise ID] [--jobs J] [--secret HEX]
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import sys
import tempfile
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import secret as course_secret
from gradtutor.dev.answers import Answer, answers_path, load_answers
from gradtutor.protocol import Status
from gradtutor.course.seeds import VISIBLE_SEEDS, course_seeds

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SEEDS = 200
SLICE = 50  # hidden seeds per check (see sweep)


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


@dataclasses.dataclass(frozen=True)
class SeedSlice:
    """Hidden inputs that are exactly `chosen`: one slice of a sweep's seeds, handed to the real checker."""

    chosen: tuple[int, ...]
    available: bool = True
    public: bool = False

    def seeds_for(self, which: str, lesson_id: str) -> tuple[int, ...]:
        return self.chosen if which == "hidden" else VISIBLE_SEEDS + self.chosen

    def visible_only(self, which: str) -> bool:
        return False


def sweep(answers: list[Answer], count: int = DEFAULT_SEEDS, secret: str | None = None, checker=None) -> SweepResult:
    """Grade `answers` on `count` hidden seeds per lesson drawn from `secret` (a new random one if None).

    The seeds go to the checker SLICE at a time: a check's child builds every seed's inputs before
    it calls the answer (a Keras model each in lessons 3, 6 and 7), and a lesson's reference job has
    REFERENCE_TIMEOUT for all its seeds, so 200 seeds in one check would measure the limits, not the
    answer. A wrong answer is done at its first failing slice (the verdict is a fail whatever the rest
    give); a correct one runs every seed. The references are cached per seed by the checker, so each
    seed's reference is computed once for all the answers of its exercise.
    """
    from gradtutor.checking.checker import Checker  # starts a worker that imports TensorFlow

    secret = secret or course_secret.new_secret()
    result = SweepResult(count, secret)
    own = checker is None
    checker = checker or Checker(timeout=600)
    before = checker.hidden
    the_course = course.load()
    try:
        with tempfile.TemporaryDirectory(prefix="gradtutor-sweep-") as scratch:
            for answer in answers:
                lesson = the_course.lesson(answer.lesson)
                path = Path(scratch) / f"{answer.lesson}_{answer.number}.py"
                path.write_text(answer.as_file(), encoding="utf-8")
                seeds = course_seeds(secret, answer.lesson, count)
                verdict, start = None, 0
                for start in range(0, count, SLICE):
                    checker.hidden = SeedSlice(seeds[start:start + SLICE])
                    verdict = checker.check_file(lesson, path, [lesson.exercise(answer.exercise)], "hidden").exercises[0]
                    if verdict.status is not Status.PASS:
                        break
                _count(result, answer, verdict, f"seeds {start + 1}-{min(start + SLICE, count)} of {count}")
    finally:
        checker.hidden = before  # a checker lent by the caller goes back as it came
        if own:
            checker.close()
    return result


def _count(result: SweepResult, answer: Answer, verdict, where: str) -> None:
    first = verdict.message.splitlines()[0] if verdict.message else ""
    if answer.expect == "pass":
        result.correct += 1
        if verdict.status is Status.PASS:
            result.passed += 1
        else:
            result.problems.append(f"correct answer {verdict.status.value} ({where}): {answer.label()}: {first}")
    else:
        result.wrong += 1
        if verdict.status is Status.PASS:
            result.problems.append(f"wrong answer passed: {answer.label()}")
        else:
            result.failed += 1


def _merged(into: SweepResult, parts: list[SweepResult]) -> SweepResult:
    for part in parts:
        for field in ("correct", "passed", "wrong", "failed"):
            setattr(into, field, getattr(into, field) + getattr(part, field))
        into.problems += part.problems
    return into


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradtutor.dev.sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="random hidden seeds per lesson (default 200)")
    parser.add_argument("--lesson", action="append", help="only this lesson (repeatable)")
    parser.add_argument("--exercise", help="only this exercise")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="checkers run side by side, each with its own worker (default: 2, or 1 on one core)")
    parser.add_argument("--secret", help="the secret to derive the seeds from (to replay a sweep); default: a new one")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    from gradtutor.checking.checker import Checker

    answers = known_answers(args.lesson, args.exercise)
    result = SweepResult(args.seeds, args.secret or course_secret.new_secret())
    checkers = [Checker(timeout=600) for _ in range(args.jobs)]  # one warm worker each, for the whole sweep
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for lesson_id in dict.fromkeys(a.lesson for a in answers):  # one lesson at a time, said as it ends
                mine = [a for a in answers if a.lesson == lesson_id]
                # answer i to checker i mod jobs: the threads only wait on their workers, which run on the cores
                parts = list(pool.map(lambda job: sweep(mine[job::args.jobs], args.seeds, result.secret, checkers[job]),
                                      range(args.jobs)))
                part = _merged(SweepResult(args.seeds, result.secret), parts)
                for problem in part.problems:
                    print(f"  {problem}")
                print(f"{lesson_id}: {part.passed}/{part.correct} correct pass, {part.failed}/{part.wrong} wrong fail",
                      flush=True)
                _merged(result, [part])
    finally:
        for checker in checkers:
            checker.close()
    print(result.summary())
    if not result.ok:
        print(f"  replay with: python -m gradtutor.dev.sweep --secret {result.secret} --seeds {result.seeds}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
