"""`gradtutor dev new-lesson SLUG`: a new lesson, in its folder and its two notebooks.

    gradtutor/course/lessons/<id>/lesson.toml            its manifest entry, with one example exercise
    gradtutor/course/lessons/<id>/zh_CN.toml             the Chinese of its texts (title and summary to write)
    gradtutor/course/lessons/<id>/reference.py           its seeded inputs and reference answer
    gradtutor/course/lessons/<id>/answers.toml           known wrong answers and right ones
    gradtutor/course/lessons/<id>/test_claims_<id>.py    tests of what the lesson says TensorFlow does
    solutions/<id>/<id>.ipynb, <id>.zh_CN.ipynb          the nbgrader source notebooks, English and Chinese

and the lesson's id appended to course.toml's `lessons` (and the README's table of lessons remade).
The id is lesson<N>, N the next lesson number. The example exercise works as it is, so `make
lessons` then `gradtutor dev check --lesson <id>` pass once the title and summary are translated,
and each later edit can be checked on its own. Nothing is ever overwritten.
"""
from __future__ import annotations

import json
import re
import string
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import schema as course_schema
from gradtutor.dev import readme
from gradtutor.dev.scaffold_notebooks import notebooks
from gradtutor.errors import CourseError

TEMPLATES = Path(__file__).resolve().parent / "templates"
# file in the lesson's folder -> the template it is filled from
FOLDER_FILES = {course.LESSON_FILE: "lesson.toml.tmpl", "zh_CN.toml": "zh_CN.toml.tmpl",
                course.REFERENCE_FILE: "reference.py.tmpl", course.ANSWERS_FILE: "answers.toml.tmpl",
                "test_claims_{id}.py": "test_claims.py.tmpl"}


def new_lesson(slug: str, title: str | None = None) -> list[str]:
    """Write the new lesson's files; return one line per file written and one for what to do next."""
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
    folder = course.lesson_folder(lesson_id, existing.manifest)
    targets = {folder / name.format(id=lesson_id): _fill(template, values) for name, template in FOLDER_FILES.items()}
    lesson = course.Lesson(lesson_id, number, slug, values["title"], f"{lesson_id}.ipynb", "", (), folder)
    targets.update({lesson.source_notebook(lang): text for lang, text in notebooks(values).items()})
    for path in [folder, *targets, root / "lessons" / lesson_id]:
        if path.exists():
            raise CourseError(f"{path} already exists — `dev new-lesson` never overwrites: "
                              f"remove it, or add {lesson_id} by hand")
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    manifest = existing.manifest
    # Listed last, so a failure above never lists a lesson whose files are missing.
    listed = re.sub(r"^lessons = \[(.*?)\]", lambda m: f'lessons = [{m.group(1)}, "{lesson_id}"]',
                    manifest.read_text(encoding="utf-8"), count=1, flags=re.M | re.S)
    manifest.write_text(listed, encoding="utf-8")
    course.load.cache_clear()
    grown = course.load_manifest(manifest)
    if grown.lessons[-1].id != lesson_id:  # the entry must read back, listed last
        raise CourseError(f"{manifest}: could not add {lesson_id} to `lessons = [...]` — add it there by hand")
    made = [f"wrote {_relative(path, root)}" for path in targets] + [f"added {lesson_id} to {_relative(manifest, root)}"]
    if readme.refresh(root / "README.md", grown):
        made.append("remade the table of lessons in README.md")
    return made + [
        f"next: write the lesson in those files, then `make lessons` (python -m gradtutor.dev.release {lesson_id}) "
        f"and `gradtutor dev check --lesson {lesson_id}`"]


def _refuse_bad_names(existing, values: dict) -> None:
    pattern, description = course_schema.PATTERNS[("lesson", "slug")]
    if not re.fullmatch(pattern, values["slug"]):
        raise CourseError(f"{values['slug']!r} is not a valid slug — use {description}, e.g. persistent-tapes")
    for lesson in existing.lessons:
        if values["slug"] in (lesson.slug, lesson.id) or values["title"] == lesson.title:
            raise CourseError(f"{lesson.manifest}: {lesson.id} already has the slug or title of "
                              f"{values['slug']!r} — choose another")


def _fill(template: str, values: dict) -> str:
    return string.Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(values)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
