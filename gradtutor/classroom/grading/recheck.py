"""The out-of-kernel re-check of notebooks whose own code could have changed what check() does.

A test cell calls gradtutor's check() inside the student's kernel, after the
student's own cells ran there; code in those cells can replace check() (or
what it relies on) so that every test passes. nbgrader cannot see that. So
when a notebook holds code that does more than define functions — code that
could have reached check() — every exercise nbgrader scored full is checked
again out of the kernel, by gradtutor's engine, on the same cells the kernel
had run when the test cell ran. An answer that fails there is scored 0 and
flagged for the instructor (needs manual grading), with a comment saying why.
"""
from __future__ import annotations

import threading
from pathlib import Path

from gradtutor.course import conventions
from gradtutor.classroom.grading.gradebook import normalised
from gradtutor.course.extract import only_definitions
from gradtutor.messages import say

_checker = None  # one warm checker per grading worker: the shared judge's, also used by the re-check

checker_lock = threading.Lock()  # a Checker runs one check at a time


def recheck(api, assignment: str, student: str, autograded: Path) -> dict[str, dict[str, str]]:
    """Re-check the full-score exercises of notebooks with untrusted top-level code.

    Returns, per notebook, the grade cells now scored 0 and why.
    """
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    from gradtutor.course import manifest as course

    try:
        lesson = course.load().lesson(assignment)
    except course.UnknownLesson:
        return {}  # not one of gradtutor's lessons: nothing to re-check against
    coursedir = api.coursedir
    found: dict[str, dict[str, str]] = {}
    for path in sorted(autograded.glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - nbgrader wrote it; if it cannot be read there is nothing to re-check
            continue
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            try:
                notebook = gb.find_submission_notebook(path.stem, assignment, student)
            except MissingEntry:
                continue
            full = [g.name for g in notebook.grades if g.max_score and (g.auto_score or 0) >= g.max_score]
        untrusted = untrusted_cells(nb, trusted_sources(coursedir, assignment, path.name), path.parent)
        if not untrusted or not full:
            continue
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        sources = [cell.source for cell in code]
        for grade_id in full:
            exercise = next((e for e in lesson.exercises if e.id == conventions.exercise_of(grade_id)), None)
            position = next((i for i, cell in enumerate(code) if conventions.grade_id(cell) == grade_id), None)
            if exercise is None or position is None:
                continue
            verdict = engine_verdict(lesson, exercise, sources[: position + 1])
            if verdict.status == "pass":
                continue
            # the engine words a failure on a hidden input without the reference's values
            why = verdict.message.splitlines()[0] if verdict.message else verdict.status
            comment = say("classroom.problem.recheck_comment", function=exercise.function, why=why,
                          cells=say("classroom.separator").join(untrusted[:3]))
            with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
                grade = gb.find_grade(grade_id, path.stem, assignment, student)
                grade.auto_score = 0
                grade.needs_manual_grade = True
                try:
                    gb.find_comment(exercise.id, path.stem, assignment, student).auto_comment = comment
                except MissingEntry:
                    pass
                gb.db.commit()
            found.setdefault(path.stem, {})[grade_id] = why
    return found


def warm_checker(course_dir: str | Path | None = None):
    """The grading process's checker; the first call names the course, whose hidden inputs it runs."""
    global _checker
    if _checker is None:
        from gradtutor.course import secret as course_secret
        from gradtutor.checking.checker import Checker
        from gradtutor.course.seeds import HiddenInputs

        if course_dir is None:
            raise RuntimeError("warm_checker: the first call must name the course folder")
        # The secret stays in this process: the checker's children get seeds, and learner code may not read the file.
        secret = course_secret.require_secret(Path(course_dir))
        config = str(Path(course_dir).resolve() / course_secret.CONFIG)
        # prepare_next=False: while grading the next check comes at once, and a child waiting with
        # every exercise's inputs built only takes CPU from the kernels. It never changes a verdict.
        _checker = Checker(prepare_next=False, hidden=HiddenInputs(secret=secret), hide=[config])
    return _checker


def close_checker() -> None:
    global _checker
    checker, _checker = _checker, None
    if checker is not None:
        checker.close()


def engine_verdict(lesson, exercise, sources: list[str]):
    from gradtutor.course import extract

    cells = extract.cells_from_sources(sources, "notebook cell")
    with checker_lock:
        return warm_checker().check_cells(lesson, cells, [exercise], "all", "the submitted notebook").exercises[0]


def trusted_sources(coursedir, assignment: str, notebook: str) -> set[str]:
    """The code cells the course itself wrote: the release and source versions of the notebook."""
    from gradtutor.classroom.grading.nbgrader_glue import course_copies

    # without a release, every changed cell counts as the student's
    return {normalised(cell.source) for nb in course_copies(coursedir, assignment, notebook)
            for cell in nb.cells if cell.cell_type == "code"}


def untrusted_cells(nb, trusted: set[str], folder: Path) -> list[str]:
    """Labels of the student's code cells that run more than definitions at the top level (extract.only_definitions)."""
    local = local_modules(folder)
    found = []
    number = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        number += 1
        if normalised(cell.source) in trusted or only_definitions(cell.source, local):
            continue
        found.append(say("classroom.problem.cell", number=number))
    return found


def local_modules(folder: Path) -> set[str]:
    """What a notebook in `folder` could import from beside it: the names (stems) of the folder's entries."""
    return {p.stem for p in folder.iterdir()} if folder.is_dir() else set()
