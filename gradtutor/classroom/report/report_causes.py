"""Per student, the causes they hit and the lesson that teaches each: causes.csv and the student page's list."""
from __future__ import annotations

from html import escape

from gradtutor.classroom.report.cause_lessons import readings
from gradtutor.classroom.report.class_report import ClassReport, StudentReport
from gradtutor.messages import say


def cause_rows(report: ClassReport) -> list[list[str]]:
    """student, cause id, the exercises where it was found, the lesson that teaches it (id, title)."""
    rows = [["student_id", "cause", "exercises", "lesson", "lesson title"]]
    for student in report.students:
        rows.extend([student.student, r.cause, "; ".join(r.exercises), r.lesson, r.title]
                    for r in readings(student.outcomes, report.assignment))
    return rows


def reading_html(assignment: str, student: StudentReport) -> str:
    """The student page's "What to read": one item per cause; nothing when no answer had one."""
    found = readings(student.outcomes, assignment)
    if not found:
        return ""
    items = "".join(
        "<li>" + escape(say("classroom.lms.reading.item", cause=r.cause, exercises=say("classroom.separator").join(r.exercises),
                            lesson=r.lesson, title=r.title)) + "</li>" for r in found)
    return f"<h2>{escape(say('classroom.lms.reading.heading'))}</h2><ul>{items}</ul>"
