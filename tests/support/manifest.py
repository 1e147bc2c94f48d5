"""A copy of the course's manifest (course.toml and every lesson's lesson.toml) to break in a test."""
from __future__ import annotations

import shutil
from pathlib import Path

from gradtutor.course import manifest as course


def copy_manifest(root: Path) -> Path:
    """course.toml and each lesson.toml under `root`, laid out as in the package; the copy's course.toml."""
    for lesson in course.load().lessons:
        target = course.lesson_folder(lesson.id, root / "course.toml") / course.LESSON_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lesson.manifest, target)
    shutil.copyfile(course.MANIFEST, root / "course.toml")
    return root / "course.toml"
