"""`gradtutor classroom init`: an nbgrader course folder made from the notebooks this package carries."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from gradtutor import defaults, messages
from gradtutor.course import secret as course_secret
from gradtutor.errors import ClassroomError
from gradtutor.messages import say

CONFIG_TEMPLATE = '''\
"""nbgrader configuration for a gradtutor course (made by `gradtutor classroom init`).

Run nbgrader's commands from this folder:
    nbgrader generate_assignment lesson1      source/lesson1/ -> release/lesson1/ (+ gradebook.db)
    gradtutor grade . lesson1 --jobs 4        autograde submitted/*/lesson1/ (or: nbgrader autograde lesson1)
    nbgrader generate_feedback lesson1        feedback/<student>/lesson1/lesson1.html
"""
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"

# Release notebooks carry no outputs.
c.ClearOutput.enabled = True

# Seconds one cell may run while autograding. A lesson's first check starts
# TensorFlow in a fresh process and each check may take up to 30 s of the
# learner's code, so keep this well above nbgrader's default of 30 s; a cell
# that runs longer (an infinite loop at the top level) is interrupted and its
# test scores 0.
c.Execute.timeout = {cell_timeout}
'''
# and the course's hidden-input secret (gradtutor.course.secret.BLOCK), appended by init_course


def init_course(folder: Path, course_id: str = "gradtutor",
                cell_timeout: int = defaults.NBGRADER_CELL_TIMEOUT) -> list[tuple[Path, str]]:
    """Create (or complete) an nbgrader course folder; never overwrites. Returns (path, what was done).

    The notebooks are the chosen language's (messages.language()), each under the English notebook's
    name (source/lesson3/lesson3.ipynb), so nbgrader's ids and the gradebook are the same in every language.
    """
    from gradtutor.course import manifest as course

    if folder.exists() and not folder.is_dir():
        raise ClassroomError(say("classroom.init.not_a_folder", folder=folder))
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", course_id):
        raise ClassroomError(say("classroom.init.bad_course_id", course_id=repr(course_id)))
    lang = messages.language()
    lessons = course.load().lessons
    untranslated = [lesson.source_notebook(lang) for lesson in lessons
                    if lesson.source_notebook().is_file() and not lesson.source_notebook(lang).is_file()
                    and not (folder / "source" / lesson.id / lesson.notebook).exists()]
    if untranslated:  # before anything is written: a course is made in one language
        raise ClassroomError(say("classroom.init.no_translation", notebooks=", ".join(map(str, untranslated)),
                                 language=say(f"classroom.language.{lang}")))
    done: list[tuple[Path, str]] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "nbgrader_config.py"
        if config.exists():
            # an existing secret is never replaced: the hidden inputs of work already graded stay the same
            added = course_secret.add_secret(config)
            done.append((config, say("classroom.init.done.kept_secret_added" if added else "classroom.init.done.kept")))
        else:
            config.write_text(CONFIG_TEMPLATE.format(course_id=course_id, cell_timeout=cell_timeout), encoding="utf-8")
            course_secret.add_secret(config)
            done.append((config, say("classroom.init.done.wrote")))
        for lesson in lessons:
            source = lesson.source_notebook(lang)
            target = folder / "source" / lesson.id / lesson.notebook
            if target.exists():
                done.append((target, say("classroom.init.done.kept")))
                continue
            if not source.is_file():  # only when the English one is missing too (checked above)
                done.append((target, say("classroom.init.done.skipped")))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            for extra in sorted(source.parent.iterdir()):  # data files a lesson ships beside its notebook
                if extra.is_file() and not _notebook_of(lesson, extra.name) and not (target.parent / extra.name).exists():
                    shutil.copyfile(extra, target.parent / extra.name)
            shutil.copyfile(source, target)
            done.append((target, say("classroom.init.done.copied")))
    except OSError as exc:
        raise ClassroomError(say("classroom.init.cannot_write", folder=folder, error=exc.strerror or exc)) from None
    return done


def _notebook_of(lesson, name: str) -> bool:
    """The lesson's notebook in some language (lesson3.ipynb, lesson3.zh_CN.ipynb): not a data file to copy."""
    stem = lesson.notebook.rpartition(".")[0]
    return name in {lesson.notebook_name(lang) for lang in messages.LANGUAGES} or (
        name.startswith(stem + ".") and name.endswith(".ipynb"))
