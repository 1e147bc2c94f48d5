"""`gradtutor dev new-lesson SLUG`: a new lesson in the four places a lesson lives.

    solutions/<id>/<id>.ipynb          the nbgrader source notebook, with one example exercise
    gradtutor/course/references/<id>.py       its seeded inputs and reference answer
    gradtutor/course/course.toml              its manifest entry, appended
    tests/answers/<id>.toml            known wrong answers and a right one

The id is lesson<N>, N the next lesson number. The example exercise works as it
is, so `make lessons` then `gradtutor dev check --lesson <id>` pass at once and
each later edit can be checked on its own. Nothing is ever overwritten.
"""
from __future__ import annotations

import json
import re
import string
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import schema as course_schema
from gradtutor.dev.answers import answers_path
from gradtutor.errors import CourseError

TEMPLATES = Path(__file__).resolve().parent / "templates"
EXERCISE_ID, FUNCTION = "square_gradient", "grad_of_square"
SET_UP = ("import gradtutor.quiet  # before TensorFlow: keeps its start-up lines off stderr\n"
          "import numpy as np\nimport tensorflow as tf\nimport keras\nfrom gradtutor import check")
ANSWER = f'''def {FUNCTION}(x):
    """Return dy/dx for y = tf.reduce_sum(x ** 2), where x is a tf.constant."""
    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 2)
    return tape.gradient(y, x)
    ### END SOLUTION'''
CHECK = '''from gradtutor import check  # again here, so no earlier cell can replace it
check("{id}", "{exercise}", {function}, seeds="visible")
### BEGIN HIDDEN TESTS
check("{id}", "{exercise}", {function}, seeds="hidden")
### END HIDDEN TESTS'''


def new_lesson(slug: str, title: str | None = None) -> list[str]:
    """Write the new lesson's four files; return one line per file written and one for what to do next."""
    root = course.PACKAGE_DIR.parent
    if not (root / "solutions").is_dir():
        raise CourseError(f"{root} has no solutions/ folder — run `gradtutor dev new-lesson` in a clone of the "
                          "course (an installed gradtutor cannot be extended)")
    existing = course.load()
    number = len(existing.lessons) + 1
    lesson_id = f"lesson{number}"
    values = {"id": lesson_id, "number": number, "slug": slug,
              "title": title or slug.replace("-", " ").capitalize()}
    values["title_toml"] = json.dumps(values["title"], ensure_ascii=False)  # a TOML basic string
    _refuse_bad_names(existing, values)
    targets = {
        root / "solutions" / lesson_id / f"{lesson_id}.ipynb": _notebook(values),
        course.REFERENCES_DIR / f"{lesson_id}.py": _fill("reference.py.tmpl", values),
        answers_path(root, lesson_id): _fill("answers.toml.tmpl", values),
    }
    for path in [*targets, root / "lessons" / lesson_id]:
        if path.exists():
            raise CourseError(f"{path} already exists — `dev new-lesson` never overwrites: "
                              f"remove it, or add {lesson_id} by hand")
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    manifest = existing.manifest
    # Appended last, so a failure above never leaves an entry whose files are missing.
    with manifest.open("a", encoding="utf-8") as out:
        out.write(_fill("manifest-entry.toml.tmpl", values))
    course.load.cache_clear()
    course.load_manifest(manifest)  # the entry must read back as valid
    return [f"wrote {_relative(path, root)}" for path in targets] + [f"added {lesson_id} to {_relative(manifest, root)}",
        f"next: write the lesson in those files, then `make lessons` (python -m gradtutor.dev.release {lesson_id}) "
        f"and `gradtutor dev check --lesson {lesson_id}`"]


def _refuse_bad_names(existing, values: dict) -> None:
    pattern, description = course_schema.PATTERNS[("lesson", "slug")]
    if not re.fullmatch(pattern, values["slug"]):
        raise CourseError(f"{values['slug']!r} is not a valid slug — use {description}, e.g. persistent-tapes")
    for lesson in existing.lessons:
        if values["slug"] in (lesson.slug, lesson.id) or values["title"] == lesson.title:
            raise CourseError(f"{existing.manifest}: {lesson.id} already has the slug or title of "
                              f"{values['slug']!r} — choose another")


def _fill(template: str, values: dict) -> str:
    return string.Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(values)


def _notebook(values: dict) -> str:
    lesson_id = values["id"]
    intro = (f"# Lesson {values['number']} — {values['title']}\n\n"
             "The symptom first: a minimal cell that gives the wrong (or `None`) gradient, then why, "
             "then the fix.\n\nIn this lesson you will:\n\n* reproduce the symptom\n* see why it happens\n"
             "* fix it in the exercises below")
    task = (f"## Exercise 1: watch a constant\n\nWrite `{FUNCTION}(x)`: the gradient of `tf.reduce_sum(x ** 2)` "
            "with respect to `x`, a `tf.constant`. Then run the check cell below it.")
    check = CHECK.format(id=lesson_id, exercise=EXERCISE_ID, function=FUNCTION)
    cells = [_cell("markdown", intro), _cell("code", SET_UP), _cell("markdown", task),
             _cell("code", ANSWER, {"grade": False, "grade_id": EXERCISE_ID, "locked": False,
                                    "schema_version": 3, "solution": True}),
             _cell("code", check, {"grade": True, "grade_id": f"check_{EXERCISE_ID}", "locked": True,
                                   "points": 1, "schema_version": 3, "solution": False})]
    for number, cell in enumerate(cells):
        cell["id"] = f"{lesson_id}-{number:02d}"
    notebook = {"cells": cells,
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                             "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"  # as Jupyter writes it


def _cell(kind: str, source: str, nbgrader: dict | None = None) -> dict:
    cell = {"cell_type": kind, "metadata": {"nbgrader": nbgrader} if nbgrader else {},
            "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
