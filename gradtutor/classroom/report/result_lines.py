"""The line `gradtutor grade` prints for each graded notebook: its mark, student, points and what lost them."""
from __future__ import annotations

from gradtutor.classroom.grading.results import NotebookResult, SubmissionResult
from gradtutor.messages import say


def result_lines(result: SubmissionResult, width: int, verbose: bool) -> list[str]:
    from rich.markup import escape

    lines = []
    if result.skipped:
        for nb in result.notebooks:
            lines.append(f"[dim]= {escape(result.student):<{width}}  {escape(nb.notebook)}  "
                         f"{points(nb.score)}/{points(nb.max_score)}  {say('classroom.grade.already_graded')}[/]")
        return lines
    if not result.notebooks:
        problem = escape(result.problem or say("classroom.grade.not_graded"))
        return [f"[yellow]! {escape(result.student):<{width}}  {say('classroom.grade.no_notebook')}  0  {problem}[/]"]
    for nb in result.notebooks:
        problems = list(nb.problems)
        if result.problem and result.problem not in problems:
            problems.insert(0, result.problem)
        if problems:
            mark, colour = "!", "yellow"
        elif nb.full_marks:
            mark, colour = "✓", "green"
        else:
            mark, colour = "✗", "red"
        summary = "; ".join(problems + ([] if result.problem else lost_points(nb)))
        line = (f"[{colour}]{mark}[/] {escape(result.student):<{width}}  {escape(nb.notebook)}  "
                f"[{colour}]{points(nb.score)}/{points(nb.max_score)}[/]")
        if summary:
            line += "  " + escape(summary)
        if verbose:
            line += f"  [dim]{say('classroom.grade.seconds', seconds=f'{result.seconds:.0f}')}[/]"
        lines.append(line)
        if verbose and not result.problem:
            for cell in nb.cells:
                if cell.score < cell.max_score and cell.why:
                    lines.append(f"    [dim]{escape(cell.exercise)}:[/] {escape(cell.why)}")
    return lines


def lost_points(nb: NotebookResult) -> list[str]:
    groups: dict[str, list[str]] = {}
    for cell in nb.cells:
        if cell.score < cell.max_score and cell.status != "missing":
            known = cell.status in ("not_attempted", "fail", "error", "missing")
            groups.setdefault(say(f"classroom.grade.lost_label.{cell.status}") if known else cell.status,
                              []).append(cell.exercise)
    return [say("classroom.grade.lost", label=label, exercises=say("classroom.separator").join(names))
            for label, names in groups.items()]


def points(value: float) -> str:
    return f"{value:g}"
