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

from gradtutor import conventions, course, extract, learner_state
from gradtutor.errors import UsageError


def solution_code(lesson: course.Lesson, exercise: course.Exercise) -> str:
    """The reference answer from the solutions notebook, without nbgrader's markers."""
    cells = extract.read_cells(lesson.source_notebook())
    definition = extract.find_function(cells, exercise.function)
    if definition.node is None:
        raise UsageError(f"the solution of {lesson.id} {exercise.id} is missing from {lesson.source_notebook()}")
    # the whole answer cell when it holds the function: a class or helper it defines beside it is part of the answer
    answer = conventions.cells_by_grade_id(json.loads(lesson.source_notebook().read_text(encoding="utf-8"))).get(
        exercise.id)
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
    notebook = learner_state.notebook_for(the_lesson)
    if not ladder:
        _show(f"{the_lesson.id} / {the_exercise.id} has no hints.", "<p>" + html.escape(
            f"{the_lesson.id} / {the_exercise.id} has no hints.") + "</p>")
        return
    if level is None:
        level = learner_state.next_hint_level(notebook, the_lesson, the_exercise)
    elif not 1 <= level <= len(ladder):
        raise UsageError(f"{the_lesson.id} {the_exercise.id} has hints 1 to {len(ladder)}, not {level}")
    learner_state.remember_hint(notebook, the_lesson, the_exercise, level)
    call = f'hint("{the_lesson.id}", "{the_exercise.id}")'
    more = (f"Call {call} again for hint {level + 1}." if level < len(ladder)
            else f'That was the last hint. After a check, solution("{the_lesson.id}", "{the_exercise.id}").')
    title = f"Hint {level} of {len(ladder)} for {the_exercise.function}()"
    text = ladder[level - 1]
    _show(f"{title}:\n{text}\n{more}", _box("#1f6feb", title, f"<p>{html.escape(text)}</p>", more))


def solution(lesson: str, exercise: str, *, anyway: bool = False) -> None:
    """Show the reference solution once a check has run your attempt (or at once with anyway=True)."""
    the_lesson, the_exercise = _find(lesson, exercise)
    notebook = learner_state.notebook_for(the_lesson)
    if not anyway and not learner_state.has_tried(notebook, the_exercise):
        title = f"Try {the_exercise.function}() first"
        body = (f"Write your attempt and run its check cell: once a check has run your code (pass or fail), "
                f'solution("{the_lesson.id}", "{the_exercise.id}") shows the reference answer.')
        anyway_line = (f'Want it now anyway? solution("{the_lesson.id}", "{the_exercise.id}", anyway=True), '
                       f"or `gradtutor solution {the_lesson.id} {the_exercise.id}` in a terminal.")
        _show(f"{title}. {body}\n{anyway_line}", _box("#9a6700", title, f"<p>{html.escape(body)}</p>", anyway_line))
        return
    code = solution_code(the_lesson, the_exercise)
    title = f"Solution of {the_lesson.id} / {the_exercise.id}"
    _show(f"{title}:\n{code}", _box("#1a7f37", title, f"<pre>{html.escape(code)}</pre>",
                                    "Compare it with yours, then write it in your own words and check again."))


def stuck_note(lesson_id: str, exercise_id: str) -> tuple[str, str]:
    """The line under a failing check: hint() and solution() exist (text, HTML)."""
    text = (f'Stuck? from gradtutor import hint, solution — hint("{lesson_id}", "{exercise_id}") gives the next '
            f'hint each time; solution("{lesson_id}", "{exercise_id}") shows the answer once a check has run '
            'your attempt.')
    return text, f'<div style="margin:2px 0 4px 14px;color:#57606a">{html.escape(text)}</div>'


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
