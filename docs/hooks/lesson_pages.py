"""What the lesson pages say around each notebook: the intro and exercise table, the lessons' index, the
home page's table, and a translated page made from the English run's outputs. All from the manifest."""
from __future__ import annotations

import json

from mkdocs.exceptions import PluginError

import notebooks  # docs/hooks/notebooks.py
from site_languages import say, text

def nav_title(lesson, lang: str) -> str:
    return say("lesson.nav", lang, number=lesson.number, title=text(f"{lesson.id}.title", lesson.title, lang))

def translated_notebook(lesson, executed, lang: str, checked):
    """The lesson's notebook in `lang` with the outputs of the executed English one (same code but for comments),
    but for its check cells: theirs are from `checked`, the same notebook's checks run in `lang`."""
    import nbformat

    source = lesson.source_notebook(lang)
    if not source.is_file():
        raise PluginError(f"{lesson.id}: {source} is missing — the /zh/ lesson page is rendered from it "
                          f"(write it, beside {lesson.notebook})")
    try:
        page = notebooks.with_outputs_of(notebooks.prepare(nbformat.read(source, as_version=4)), executed)
        return notebooks.with_check_outputs_of(page, checked)
    except ValueError as exc:
        raise PluginError(f"{lesson.id}: {source.name} does not match {lesson.notebook}: {exc}") from None

def lesson_intro(lesson, lang: str, download: str | None) -> str:
    points = sum(e.points for e in lesson.exercises)
    rows = "\n".join(f"    | {n} | `{e.function}` | `{e.id}` | {e.points} |"
                     for n, e in enumerate(lesson.exercises, start=1))
    intro = say("lesson.intro", lang, lesson_id=lesson.id, notebook=f"{lesson.id}/{lesson.notebook}",
                 download=say("lesson.download", lang, path=download) if download else "")
    return (f"{intro}\n\n{say('lesson.table', lang)}\n{rows}\n\n"
            f"    {say('lesson.total', lang, count=len(lesson.exercises), points=points)}")

def lessons_index(the_course, lang: str) -> str:
    rows = "\n".join(
        f"| {l.number} | [{text(f'{l.id}.title', l.title, lang)}]({l.id}.md) "
        f"| {text(f'{l.id}.summary', l.summary, lang)} | {len(l.exercises)} | {l.points} |"
        for l in the_course.lessons
    )
    summary = text("course.summary", the_course.summary, lang)
    title = say("lessons.title", lang)
    return f"""---
title: {json.dumps(title, ensure_ascii=False)}
description: {json.dumps(summary, ensure_ascii=False)}
---

# {title}

{say("lessons.intro", lang, summary=summary)}

{say("lessons.table", lang)}
{rows}

{say("lessons.outro", lang)}
"""

def lessons_table(the_course, lang: str) -> str:
    rows = "".join(f"| [{nav_title(l, lang)}](lessons/{l.id}.md) | {text(f'{l.id}.summary', l.summary, lang)} |\n"
                   for l in the_course.lessons)
    return say("lessons.home_table", lang) + "\n" + rows
