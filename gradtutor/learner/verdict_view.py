"""Show verdicts: a rich table in the terminal, HTML in a notebook, JSON for machines."""
from __future__ import annotations

import html
import json
import re

from gradtutor.learner.verdict_layout import cell_of_notebook, lay_out
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
        lines = lay_out(exercise.status.value, exercise.message)
        console.print(lines.what, markup=False, highlight=False, soft_wrap=True)
        for line in _detail_lines(exercise.id, lines, cell_of_notebook(result.source, exercise.function)):
            console.print("  " + line, markup=False, highlight=False, soft_wrap=True)
        if exercise.status == "fail" and exercise.reports:
            _print_comparison(console, exercise)
        if exercise.output.strip() and exercise.status != "pass":
            console.print(f"  [dim]{say('check.printed')}[/]", exercise.output.strip()[:400], markup=True,
                          highlight=False)
        if exercise.status is not Status.PASS:  # errors too: each footer names its exercise
            console.print(f"  [dim]{escape(say('hints.stuck_terminal', lesson=lesson.id, exercise=exercise.id))}[/]")
    points = sum(e.points for e in result.exercises)
    maximum = sum(e.max_points for e in result.exercises)
    colour = "green" if result.passed == result.total else "yellow"
    summary = say("check.summary", passed=result.passed, total=result.total, points=points, maximum=maximum)
    console.print(f"[{colour}]{summary}[/]")
    if result.visible_only:
        from gradtutor.checking.diagnose import visible_only

        console.print(f"[dim]{visible_only()}[/]")


def _detail_lines(exercise_id: str, lines, cell: str | None) -> list[str]:
    """Under what happened: where (the exercise, the cell as Jupyter numbers it), why, the fix, the learner's line."""
    found = [say("text.verdict.where", exercise=exercise_id, cell=cell) if cell else
             say("text.verdict.where_exercise", exercise=exercise_id)]
    if lines.broke_at:
        found.append(lines.broke_at)
    if lines.why:
        found.append(say("text.verdict.why", text=lines.why))
    if lines.fix:
        found.append(say("text.verdict.fix", text=lines.fix))
    return found


def shown_rows(rows: list[dict]) -> list[dict]:
    """The comparison rows that say something: a row with no numbers (a None: "— — — is None") is left out,
    what it would say is the verdict's first line already."""
    return [row for row in rows if any(value != "—" for value in list(row.values())[1:-1])]


def _print_comparison(console, exercise: ExerciseResult) -> None:
    from rich.table import Table

    rows = shown_rows(comparison_rows(exercise.reports))
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


def verdict_html(lesson_id: str, exercise_id: str, status: Status | str, message: str, rows: list[dict],
                 cell: str | None = None) -> str:
    """One exercise's verdict for a notebook: a coloured head, what happened, where, why and the fix on lines of
    their own, and the comparison table on a failure. cell: where the exercise's function is (text.verdict.cell_*)."""
    status = Status(status)
    colour = status.display.colour
    head = (f'<div style="border-left:4px solid {colour};padding:4px 10px;margin:4px 0">'
            f'<b style="color:{colour}">{html.escape(verdict_head(lesson_id, exercise_id, status))}</b>')
    lines = lay_out(status.value, message)
    head += f'<div>{as_code(lines.what)}</div>'
    if status is not Status.PASS:
        head += "".join(f'<div style="margin-left:14px">{as_code(line)}</div>'
                        for line in _detail_lines(exercise_id, lines, cell))
    rows = shown_rows(rows)
    if rows:
        cells = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(k)}</th>" for k in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(str(v))}</td>" for v in row.values()) + "</tr>"
            for row in rows
        )
        head += f"<table style='margin-top:6px'><tr>{cells}</tr>{body}</table>"
    return head + "</div>"


def as_code(text: str) -> str:
    """Escaped HTML with each `code` span shown as code (no literal backticks)."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html.escape(text))
