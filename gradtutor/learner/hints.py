"""hint() and solution() for notebooks: the manifest's hint ladder and the reference solution.

    from gradtutor import hint, solution
    hint("lesson1", "watch_constant")            # the next rung each call; level=N to choose
    solution("lesson1", "watch_constant")        # once you have checked an attempt

The solution is shown after a check has run the learner's own code for that
exercise (pass, fail, error or timeout — as rustlings and Kaggle's learntools
gate it). That record is written by the checker (the notebook's judge or
`gradtutor check`), not by the kernel. It is a learning aid, not a secret: the
solutions ship in the package, `solution(..., anyway=True)` and
`gradtutor solution` show it at once.
Both render as HTML in Jupyter and as text elsewhere.
"""
from __future__ import annotations

import html
import json

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.learner import workspace
from gradtutor.errors import UsageError
from gradtutor.messages import course_text, language, say


def solution_code(lesson: course.Lesson, exercise: course.Exercise) -> str:
    """The reference answer from the solutions notebook, without nbgrader's markers."""
    notebook = lesson.source_notebook(language())  # its comments in the learner's language
    if not notebook.exists():
        notebook = lesson.source_notebook()
    cells = extract.read_cells(notebook)
    definition = extract.find_function(cells, exercise.function)
    if definition.node is None:
        raise UsageError(say("hints.no_solution", lesson=lesson.id, exercise=exercise.id, path=notebook))
    # the whole answer cell when it holds the function: a class or helper it defines beside it is part of the answer
    answer = conventions.cells_by_grade_id(json.loads(notebook.read_text(encoding="utf-8"))).get(exercise.id)
    source = "".join(answer["source"]) if answer is not None else ""
    if definition.source not in source:
        source = definition.source
    return conventions.without_solution_markers(source)


def _find(lesson_ref: str, exercise_ref: str) -> tuple[course.Lesson, course.Exercise]:
    lesson = course.load().lesson(lesson_ref)
    return lesson, lesson.exercise(exercise_ref)


def hint(lesson: str, exercise: str, level: int | None = None) -> None:
    """Show the next hint of the exercise's ladder (or rung `level`, from 1)."""
    the_lesson, the_exercise = _find(lesson, exercise)
    ladder = the_exercise.hints
    notebook = workspace.notebook_for(the_lesson)
    if not ladder:
        none = say("hints.none", lesson=the_lesson.id, exercise=the_exercise.id)
        _show(none, "<p>" + html.escape(none) + "</p>")
        return
    if level is None:
        level = workspace.next_hint_level(notebook, the_lesson, the_exercise)
    elif not 1 <= level <= len(ladder):
        raise UsageError(say("hints.bad_level", lesson=the_lesson.id, exercise=the_exercise.id, count=len(ladder),
                             level=level))
    workspace.remember_hint(notebook, the_lesson, the_exercise, level)
    call = f'hint("{the_lesson.id}", "{the_exercise.id}")'
    more = (say("hints.call_again", call=call, next=level + 1) if level < len(ladder)
            else say("hints.last", lesson=the_lesson.id, exercise=the_exercise.id))
    title = say("hints.title", level=level, count=len(ladder), function=the_exercise.function)
    text = hint_text(the_lesson, the_exercise, level)
    _show(f"{say('hints.shown.heading', title=title)}\n{text}\n{more}", _box("#1f6feb", title, f"<p>{html.escape(text)}</p>", more))


def solution(lesson: str, exercise: str, *, anyway: bool = False) -> None:
    """Show the reference solution once a check has run your attempt (or at once with anyway=True)."""
    the_lesson, the_exercise = _find(lesson, exercise)
    notebook = workspace.notebook_for(the_lesson)
    if not anyway and not workspace.has_tried(notebook, the_exercise):
        title = say("hints.try_first", function=the_exercise.function)
        body = say("hints.try_first_body", lesson=the_lesson.id, exercise=the_exercise.id)
        anyway_line = say("hints.anyway", lesson=the_lesson.id, exercise=the_exercise.id)
        _show(f"{say('hints.shown.then', title=title, body=body)}\n{anyway_line}", _box("#9a6700", title, f"<p>{html.escape(body)}</p>", anyway_line))
        return
    code = solution_code(the_lesson, the_exercise)
    title = say("hints.solution_title", lesson=the_lesson.id, exercise=the_exercise.id)
    _show(f"{say('hints.shown.heading', title=title)}\n{code}", _box("#1a7f37", title, f"<pre>{html.escape(code)}</pre>", say("hints.compare")))


def hint_text(lesson: course.Lesson, exercise: course.Exercise, level: int) -> str:
    """Rung `level` (from 1) of the exercise's hint ladder, in the learner's language."""
    return course_text(exercise.hint_keys[level - 1], exercise.hints[level - 1])


def stuck_note(lesson_id: str, exercise_id: str) -> tuple[str, str]:
    """The line under a failing check: hint() and solution() exist (text, HTML)."""
    from gradtutor.learner.verdict_view import as_code

    text = say("hints.stuck", lesson=lesson_id, exercise=exercise_id)
    return text, f'<div style="margin:2px 0 4px 14px;color:#57606a">{as_code(text)}</div>'


def _box(colour: str, title: str, body_html: str, footer: str) -> str:
    return (f'<div style="border-left:4px solid {colour};padding:4px 10px;margin:4px 0">'
            f'<b style="color:{colour}">{html.escape(title)}</b>{body_html}'
            f'<div style="color:#57606a">{html.escape(footer)}</div></div>')


def _show(text: str, markup: str) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display

        if get_ipython() is not None:
            display(HTML(markup))
            return
    except ImportError:
        pass
    print(text)


# --------------------------------------------------------------------------- the terminal: `gradtutor hint`, `solution`


def print_hint(console, lesson_ref: str, exercise_ref: str, level: int) -> int:
    """`gradtutor hint`: rung `level` of the ladder, and how to ask for the next one."""
    from rich.markup import escape

    lesson, exercise = _find(lesson_ref, exercise_ref)
    count = len(exercise.hints)
    if not exercise.hints:
        raise UsageError(say("hints.none", lesson=lesson.id, exercise=exercise.id))
    if not 1 <= level <= count:
        raise UsageError(say("hints.bad_level", lesson=lesson.id, exercise=exercise.id, count=count, level=level))
    title = say('hints.title', level=level, count=count, function=exercise.function)
    console.print(f"[bold]{escape(say('hints.shown.heading', title=title))}[/]")
    console.print(hint_text(lesson, exercise, level), markup=False)
    if level < count:
        console.print(f"[dim]{escape(say('hints.more', lesson=lesson.id, exercise=exercise.id, next=level + 1))}[/]")
    return 0


def print_solution(console, lesson_ref: str, exercise_ref: str) -> int:
    """`gradtutor solution`: the reference answer, whole, to read or to paste."""
    import sys

    lesson, exercise = _find(lesson_ref, exercise_ref)
    code = solution_code(lesson, exercise)
    if not sys.stdout.isatty():  # piped or redirected: the code itself, every line whole, to paste or save
        sys.stdout.write(code + "\n")
        return 0
    from rich.syntax import Syntax

    # soft wrap: a line longer than the terminal is folded by the terminal, never cropped, so a copy pastes whole
    console.print(Syntax(code, "python", theme="ansi_dark", background_color="default",
                         code_width=max(len(line) for line in code.splitlines())), soft_wrap=True)
    return 0
