"""Show verdicts: a rich table in the terminal, HTML in a notebook, JSON for machines."""
from __future__ import annotations

import html
import json

from gradtutor.protocol import Status
from gradtutor.checking.verdict import ExerciseResult, LessonResult, comparison_rows  # noqa: F401 - the rows it draws
from gradtutor.messages import course_text, say


def to_json(result: LessonResult) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False)  # a Chinese diagnosis stays readable


# --------------------------------------------------------------------------- terminal


def print_lesson(console, result: LessonResult, verbose: bool = False) -> None:
    from rich.markup import escape
    from rich.table import Table

    lesson = result.lesson
    title = course_text(f"{lesson.id}.title", lesson.title)
    table = Table(title=f"{lesson.id} · {title}", title_justify="left", caption=result.source,
                  caption_justify="left", show_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column(say("check.column.exercise"))
    table.add_column(say("check.column.function"), style="cyan")
    table.add_column(say("check.column.status"))
    table.add_column(say("check.column.points"), justify="right")
    for number, exercise in enumerate(result.exercises, start=1):
        index = next((i for i, e in enumerate(lesson.exercises, 1) if e.id == exercise.id), number)
        shown = exercise.status.display
        status = f"[{shown.style}]{shown.mark} {shown.label}[/]"
        table.add_row(str(index), exercise.id, exercise.function + "()", status,
                      f"{exercise.points}/{exercise.max_points}")
    console.print(table)
    for exercise in result.exercises:
        if exercise.status is Status.PASS and not verbose:
            continue
        shown = exercise.status.display
        console.print(f"[{shown.style}]{shown.mark} {exercise.id}[/]{escape(say('check.verdict.colon'))}", end="")
        console.print(exercise.message, markup=False, highlight=False, soft_wrap=True)  # one line, for grep
        if exercise.status == "fail" and exercise.reports:
            _print_comparison(console, exercise)
        if exercise.output.strip() and exercise.status != "pass":
            console.print(f"  [dim]{say('check.printed')}[/]", exercise.output.strip()[:400], markup=True,
                          highlight=False)
    points = sum(e.points for e in result.exercises)
    maximum = sum(e.max_points for e in result.exercises)
    colour = "green" if result.passed == result.total else "yellow"
    summary = say("check.summary", passed=result.passed, total=result.total, points=points, maximum=maximum)
    console.print(f"[{colour}]{summary}[/]")
    if result.visible_only:
        from gradtutor.checking.diagnose import visible_only

        console.print(f"[dim]{visible_only()}[/]")
    if result.passed < result.total and any(e.status in ("fail", "not_attempted") for e in result.exercises):
        console.print(f"[dim]{escape(say('check.stuck', lesson=lesson.id))}[/]")


def _print_comparison(console, exercise: ExerciseResult) -> None:
    from rich.table import Table

    rows = comparison_rows(exercise.reports)
    if not rows:
        return
    table = Table(show_edge=False, box=None, padding=(0, 2), header_style="dim")
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(*row.values())
    seed = exercise.reports[0].seed
    console.print(f"  [dim]{say('check.on_seed', seed=seed)}[/]")
    console.print(table)


# --------------------------------------------------------------------------- notebook


def verdict_head(lesson_id: str, exercise_id: str, status: Status | str) -> str:
    """A verdict's first line: "✓ lesson1 / watch_constant: pass", in the messages' language."""
    shown = Status(status).display
    return say("check.verdict.head", mark=shown.mark, lesson=lesson_id, exercise=exercise_id, status=shown.label)


def verdict_html(lesson_id: str, exercise_id: str, status: Status | str, message: str, rows: list[dict]) -> str:
    """One exercise's verdict for a notebook: a coloured line, and the comparison table on a failure."""
    status = Status(status)
    colour = status.display.colour
    head = (f'<div style="border-left:4px solid {colour};padding:4px 10px;margin:4px 0">'
            f'<b style="color:{colour}">{html.escape(verdict_head(lesson_id, exercise_id, status))}</b>'
            f'<br>{html.escape(message)}')
    if rows:
        cells = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(k)}</th>" for k in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(str(v))}</td>" for v in row.values()) + "</tr>"
            for row in rows
        )
        head += f"<table style='margin-top:6px'><tr>{cells}</tr>{body}</table>"
    return head + "</div>"
