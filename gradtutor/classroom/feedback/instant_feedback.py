"""The page a student gets on submitting: their lesson checked on the visible inputs, or why it was not.

Only the visible inputs are run (the serving process never holds the course's secret, so it
cannot run hidden ones); the page says so, and that the instructor's grading decides. Every
page is self-contained HTML (no scripts, nothing fetched), its text escaped. The page draws its
verdicts itself, from checking's typed result: the classroom is a front end of its own and does
not borrow the learner's (tests/project/test_architecture.py keeps it so).
"""
from __future__ import annotations

import html
import time

from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.checking.verdict import ExerciseResult, comparison_rows
from gradtutor.classroom.feedback.exchange import Submission, read_plain
from gradtutor.classroom.report.report_html import STYLE
from gradtutor.errors import UnreadableFile
from gradtutor.messages import language, say
from gradtutor.protocol import Status


def page(lesson_id: str, paragraphs: list[str], body: str = "") -> str:
    lang = language().replace("_", "-")
    title = say("classroom.instant.title", lesson=lesson_id)
    text = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n{text}\n{body}\n</body></html>\n")


def read_lesson_cells(submission: Submission, notebook_id: str):
    """The notebook's code cells; raises UnreadableFile saying why (named as the student named it)."""
    name = f"{notebook_id}.ipynb"
    data = read_plain(submission.folder / name)
    if data is None:
        raise UnreadableFile(say("classroom.instant.not_a_file", notebook=name))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableFile(say("classroom.instant.not_utf8", notebook=name)) from None
    # the bytes were read here, safely (no links, bounded): parse them as read_cells parses a file's text
    return extract._notebook_cells(extract.Path(name), text)  # noqa: SLF001


def verdict_page(checker, lesson: course.Lesson, cells, timestamp: str) -> tuple[str, str]:
    """(page, "passed/total") for the lesson's cells, checked on the visible inputs by `checker`."""
    started = time.monotonic()
    result = checker.check_cells(lesson, cells, seeds="visible", source=lesson.notebook)
    seconds = time.monotonic() - started
    verdicts = [exercise_section(exercise) for exercise in result.exercises]
    paragraphs = [say("classroom.instant.submitted", timestamp=timestamp, seconds=f"{seconds:.1f}"),
                  say("classroom.instant.summary", passed=result.passed, total=result.total),
                  say("classroom.instant.visible_only")]
    return page(lesson.id, paragraphs, "\n".join(verdicts)), f"{result.passed}/{result.total}"


def exercise_section(exercise: ExerciseResult) -> str:
    """One exercise's verdict: a line in its status's colour, and on a failure the comparison that failed.

    The section's data-* attributes carry the verdict for a program reading the page.
    """
    status = Status(exercise.status)
    shown = status.display
    cause = exercise.cause.value if exercise.cause else ""
    head = say("classroom.instant.verdict", mark=shown.mark, exercise=exercise.id, status=shown.label)
    rows = comparison_rows(exercise.reports) if exercise.reports and status is Status.FAIL else []
    table = ""
    if rows:
        columns = "".join(f"<th>{html.escape(column)}</th>" for column in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(value))}</td>" for value in row.values()) + "</tr>"
                       for row in rows)
        table = f"<table><tr>{columns}</tr>{body}</table>"
    return (f'<section data-exercise="{html.escape(exercise.id)}" data-status="{status.value}" '
            f'data-cause="{html.escape(cause)}" style="border-left:4px solid {shown.colour};padding:4px 10px">'
            f'<b style="color:{shown.colour}">{html.escape(head)}</b>'
            f'<p class="msg">{html.escape(exercise.message)}</p>{table}</section>')


def other_notebook_page(lesson: course.Lesson, notebook_id: str) -> str:
    return unreadable_page(lesson.id, say("classroom.instant.wrong_notebook", expected=lesson.notebook,
                                          found=f"{notebook_id}.ipynb"))


def unreadable_page(lesson_id: str, why: str) -> str:
    return page(lesson_id, [say("classroom.instant.unreadable", why=why), say("classroom.instant.unreadable_next")])


def limit_page(lesson_id: str, count: int, per_hour: int, when: str) -> str:
    return page(lesson_id, [say("classroom.instant.limit", count=count, per_hour=per_hour, when=when)])


def failed_page(lesson_id: str, error: str) -> str:
    return page(lesson_id, [say("classroom.instant.failed", error=error)])
