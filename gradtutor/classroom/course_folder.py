"""`gradtutor classroom init`: an nbgrader course folder made from the notebooks this package carries."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from gradtutor import course_secret, defaults
from gradtutor.errors import ClassroomError

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
# and the course's hidden-input secret (gradtutor.course_secret.BLOCK), appended by init_course


def init_course(folder: Path, course_id: str = "gradtutor",
                cell_timeout: int = defaults.NBGRADER_CELL_TIMEOUT) -> list[tuple[Path, str]]:
    """Create (or complete) an nbgrader course folder; never overwrites. Returns (path, what was done)."""
    from gradtutor import course

    if folder.exists() and not folder.is_dir():
        raise ClassroomError(f"{folder} exists and is not a folder — choose another DIR")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", course_id):
        raise ClassroomError(f"--course-id {course_id!r}: use letters, digits, '.', '_' or '-'")
    done: list[tuple[Path, str]] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "nbgrader_config.py"
        if config.exists():
            # an existing secret is never replaced: the hidden inputs of work already graded stay the same
            done.append((config, "kept, secret added" if course_secret.add_secret(config) else "kept (exists)"))
        else:
            config.write_text(CONFIG_TEMPLATE.format(course_id=course_id, cell_timeout=cell_timeout), encoding="utf-8")
            course_secret.add_secret(config)
            done.append((config, "wrote (with a secret)"))
        for lesson in course.load().lessons:
            source = lesson.source_notebook()
            target = folder / "source" / lesson.id / lesson.notebook
            if target.exists():
                done.append((target, "kept (exists)"))
                continue
            if not source.is_file():
                done.append((target, "skipped (not in this gradtutor)"))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            for extra in sorted(source.parent.iterdir()):  # data files a lesson ships beside its notebook
                if extra.is_file() and extra.name != lesson.notebook and not (target.parent / extra.name).exists():
                    shutil.copyfile(extra, target.parent / extra.name)
            shutil.copyfile(source, target)
            done.append((target, "copied"))
    except OSError as exc:
        raise ClassroomError(f"cannot write the course folder {folder}: {exc.strerror or exc}") from None
    return done
