"""Generate the learner notebooks (lessons/) from the solutions with nbgrader itself.

`python -m gradtutor.dev.release` (or `make lessons`) rewrites lessons/ from
solutions/; tests/dev/test_release.py fails when the committed lessons/ differ
from what this produces, so the learner copies are never edited by hand.
The work happens in a scratch course folder, so no gradebook is left behind.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from gradtutor import messages
from gradtutor.course import manifest as course


def tools_on_path() -> None:
    """nbgrader shells out to `alembic` to create a gradebook; find it beside this Python."""
    bin_dir = str(Path(sys.executable).parent)
    if shutil.which("alembic") is None and bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def generate(destination: Path, lesson_ids: list[str] | None = None) -> list[Path]:
    """Write lessons/<id>/<notebook> under `destination` for each lesson, in every language its
    solutions folder has a notebook for (lessonN.ipynb, lessonN.zh_CN.ipynb); return the paths."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    tools_on_path()
    lessons = [course.load().lesson(i) for i in lesson_ids] if lesson_ids else list(course.load().lessons)
    written = []
    with tempfile.TemporaryDirectory(prefix="gradtutor-release-") as scratch:
        root = Path(scratch)
        for lesson in lessons:
            shutil.copytree(lesson.source_notebook().parent, root / "solutions" / lesson.id)
        config = Config()
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.source_directory = "solutions"
        config.CourseDirectory.release_directory = "lessons"
        config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
        config.ClearOutput.enabled = True
        config.Exchange.root = str(root / "exchange")
        api = NbGraderAPI(config=config)
        for lesson in lessons:
            outcome = api.generate_assignment(lesson.id, force=True)
            if not outcome.get("success"):
                raise RuntimeError(f"nbgrader could not generate {lesson.id}: {outcome.get('log') or outcome.get('error')}")
            for lang in messages.LANGUAGES:  # each language's notebook of the lesson, made in one nbgrader run
                name = lesson.notebook_name(lang)
                if not lesson.source_notebook(lang).is_file():
                    continue  # tests/course/test_course.py requires every language's; this makes what there is
                target = Path(destination) / lesson.id / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / "lessons" / lesson.id / name, target)
                written.append(target)
    return written


def main() -> None:
    repo = course.PACKAGE_DIR.parent
    for path in generate(repo / "lessons", sys.argv[1:] or None):
        print(f"wrote {path.relative_to(repo)}")


if __name__ == "__main__":
    main()
