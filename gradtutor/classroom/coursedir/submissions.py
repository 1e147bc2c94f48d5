"""The lesson's submissions in a course folder, where the course's nbgrader config puts them."""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from gradtutor.classroom.coursedir.layout import layout
from gradtutor.classroom.grading.results import Course
from gradtutor.errors import ClassroomError
from gradtutor.messages import say


def read_course(course_dir: Path, assignment: str, students: list[str] | None) -> Course:
    """The lesson's submissions (all, or `students`'), and which of them nbgrader has autograded before."""
    coursedir = layout(course_dir)  # its paths are absolute: under its root
    root = Path(coursedir.root).resolve()
    pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
    regexp = coursedir.format_path(coursedir.submitted_directory, "(?P<student_id>[^/]+)", assignment, escape=True)
    found: dict[str, list[str]] = {}
    for folder in sorted(glob.glob(pattern)):
        match = re.fullmatch(regexp, folder)
        if not match or not os.path.isdir(folder):
            continue
        notebooks = sorted(p.name for p in Path(folder).glob("*.ipynb"))
        if notebooks:
            found[match.group("student_id")] = notebooks
    source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment)).resolve()
    before = frozenset(s for s in found if os.path.exists(coursedir.format_path(coursedir.autograded_directory, s,
                                                                               assignment)))
    info = Course(root, coursedir.db_url, coursedir.course_id, source, found, before)
    if not source.is_dir():
        raise ClassroomError(say("classroom.nbgrader.no_source", source=source, course=course_dir))
    if students:
        missing = [s for s in students if s not in found]
        if missing:
            folder = os.path.relpath(os.path.dirname(os.path.dirname(pattern)), course_dir)
            raise ClassroomError(say("classroom.nbgrader.no_submission_from", assignment=assignment,
                                     students=", ".join(missing), folder=folder))
        info.submissions = {s: found[s] for s in students}
    if not info.submissions:
        where = os.path.relpath(pattern, course_dir)
        raise ClassroomError(say("classroom.nbgrader.no_submissions", assignment=assignment, course=course_dir,
                                 pattern=where))
    return info
