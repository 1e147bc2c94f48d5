"""Which lesson teaches each cause: what the class report sends a student to read.

The gradient causes follow the guide's table ("Why is my gradient None?", its lesson
column: the first lesson listed there). A cause about the answer itself (a wrong
shape, a sign, a function that returns nothing) is not taught by any one lesson: the
lesson being graded, whose exercise it is, is the one to go back to.
"""
from __future__ import annotations

import dataclasses

from gradtutor.course import manifest as course
from gradtutor.messages import course_text
from gradtutor.protocol import Cause

# cause id -> the lesson whose exercises teach it (tests/classroom/test_classroom_lms.py checks that
# each of these lessons has an exercise whose diagnoses word that cause)
TEACHES: dict[str, str] = {
    Cause.UNWATCHED.value: "lesson1",
    Cause.CANNOT_WATCH.value: "lesson1",
    Cause.OUTSIDE_TAPE.value: "lesson2",
    Cause.LEAVES_TENSORFLOW.value: "lesson2",
    Cause.TAPE_REUSED.value: "lesson2",
    Cause.SOFTMAX_SUM.value: "lesson3",
    Cause.STATE_BREAKS_PATH.value: "lesson4",
    Cause.NO_GRADIENT_OP.value: "lesson5",
    Cause.INTEGER_PATH.value: "lesson5",
    Cause.STOP_GRADIENT.value: "lesson5",
    Cause.VARIABLE_REPLACED.value: "lesson6",
    Cause.NOT_USED.value: "lesson6",
    Cause.NON_FINITE.value: "lesson7",
    Cause.SATURATION.value: "lesson7",
}

# ids that say no answer was there to be wrong: nothing to read about
NOT_A_MISTAKE = {Cause.NOT_ATTEMPTED.value, Cause.MISSING.value}


@dataclasses.dataclass(frozen=True)
class Reading:
    """A cause a student's answer had, and the lesson to read about it."""

    cause: str
    exercises: tuple[str, ...]  # the exercises of the graded lesson where it was found
    lesson: str  # lesson id
    title: str  # the lesson's title, in the chosen language


def lesson_for(cause: str, graded: str) -> str:
    """The lesson that teaches `cause`; for a cause no lesson owns, the lesson being graded."""
    return TEACHES.get(cause, graded)


def readings(outcomes, graded: str) -> list[Reading]:
    """Per cause the student hit (in the order first met), where it was and what to read.

    `outcomes`: the student's report Outcomes (gradtutor.classroom.report.class_report); only verdicts
    with a cause id count: a not-attempted exercise or an unreadable file is not a cause.
    """
    lessons = {lesson.id: lesson for lesson in course.load().lessons}
    where: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.status != "pass" and outcome.cause and outcome.cause not in NOT_A_MISTAKE:
            where.setdefault(outcome.cause, []).append(outcome.exercise)
    found = []
    for cause, exercises in where.items():
        lesson_id = lesson_for(cause, graded)
        lesson = lessons.get(lesson_id)
        title = course_text(f"{lesson_id}.title", lesson.title) if lesson else lesson_id
        found.append(Reading(cause, tuple(exercises), lesson_id, title))
    return found
