"""Reading nbgrader's results back: the gradebook's scores, each grade cell's verdict, what was tampered with."""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from gradtutor.course import conventions
from gradtutor.classroom.coursedir import gradebook_sqlite
from gradtutor.classroom.grading.nbgrader_glue import busy_url
from gradtutor.classroom.grading.results import CellResult, Course, NotebookResult, SubmissionResult
from gradtutor.messages import say
from gradtutor.protocol import Status, status_from_exception_name

# The gradebook's words for a grade cell: a check that ran past its time is an error there, like a crash.
CELL_STATUS = {Status.PASS: "pass", Status.FAIL: "fail", Status.NOT_ATTEMPTED: "not_attempted",
               Status.ERROR: "error", Status.TIMEOUT: "error"}


def zero_submission(info: Course, assignment: str, student: str) -> None:
    """A submission whose grading was stopped: leave it as nbgrader leaves one it could not grade.

    Its grades exist, with no autograder score (so they count 0) and marked for manual
    grading; the half-written autograded copy is removed.
    """
    from nbgrader.api import Gradebook

    with Gradebook(busy_url(info.db_url), info.course_id) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(assignment, student)
    autograded = info.root / "autograded" / student / assignment
    if autograded.is_dir():
        shutil.rmtree(autograded, ignore_errors=True)


def zeroed_notebooks(info: Course, assignment: str, student: str, problem: str | None) -> list[NotebookResult]:
    from nbgrader.api import Gradebook

    with Gradebook(info.db_url, info.course_id) as gb:
        return scores(gb, assignment, student, {}, {}, problem)


def graded_before(info: Course, assignment: str, students: list[str]) -> dict[str, SubmissionResult]:
    """The submissions among `students` nbgrader has autograded before, with the gradebook's scores.

    What a grading worker answers for one without --force, read here: a re-run with nothing new
    to grade starts no worker, no kernel and no checker.
    """
    before = [student for student in students if student in info.autograded]
    if not before:
        return {}
    rows = gradebook_sqlite.submission_rows(info.db_url, info.course_id, assignment, before)
    if rows is None:  # not a gradebook sqlite3 reads: nbgrader's own reading
        from nbgrader.api import Gradebook

        with Gradebook(info.db_url, info.course_id) as gb:
            rows = {student: submission_rows(gb, assignment, student) for student in before}
    return {student: SubmissionResult(student, graded=False, skipped=True,
                                      notebooks=notebook_results(student, rows[student], {}, {}, None))
            for student in before}


def plain(notebooks: list[NotebookResult]) -> list[dict]:
    return [dataclasses.asdict(nb) for nb in notebooks]


def inspect_submission(gb, assignment: str, submitted: Path) -> tuple[dict, dict]:
    """Problems visible before running anything: unreadable files, deleted or edited test cells."""
    import nbformat

    read_problems: dict[str, list[str]] = {}
    tampering: dict[str, list[str]] = {}
    for notebook in gb.find_assignment(assignment).notebooks:
        path = submitted / f"{notebook.name}.ipynb"
        if not path.exists():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            json.loads(text)
        except (OSError, UnicodeDecodeError) as exc:
            read_problems[notebook.name] = [say("classroom.problem.unreadable", error=exc.__class__.__name__)]
            continue
        except json.JSONDecodeError as exc:
            read_problems[notebook.name] = [say("classroom.problem.not_json", line=exc.lineno, error=exc.msg)]
            continue
        try:
            nb = nbformat.reads(text, as_version=4)
        except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
            read_problems[notebook.name] = [say("classroom.problem.not_a_notebook", error=exc.__class__.__name__)]
            continue
        submitted_cells = conventions.cells_by_grade_id(nb)
        found = []
        for source_cell in notebook.source_cells:
            grade_cell = next((g for g in notebook.grade_cells if g.name == source_cell.name), None)
            if grade_cell is None or not source_cell.locked:
                continue
            cell = submitted_cells.get(source_cell.name)
            if cell is None:
                found.append(say("classroom.problem.test_deleted", cell=source_cell.name))
            elif visible_part(cell.source) != visible_part(source_cell.source):
                found.append(say("classroom.problem.test_edited", cell=source_cell.name))
        if found:
            tampering[notebook.name] = found
    return read_problems, tampering


def visible_part(test_source: str) -> str:
    """A test cell as learners see it (a submission never holds the hidden tests), blank lines aside."""
    return normalised(conventions.without_hidden_tests(test_source))


def normalised(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def cell_outcomes(autograded: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """notebook -> grade_id -> (status, first line of why), read from nbgrader's autograded copies."""
    import nbformat

    outcomes: dict[str, dict[str, tuple[str, str]]] = {}
    for path in sorted(autograded.glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001
            continue
        outcomes[path.stem] = {grade_id: cell_verdict(cell) for grade_id, cell in conventions.grade_cells(nb).items()}
    return outcomes


def cell_verdict(cell) -> tuple[str, str]:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", ""), str(output.get("evalue", ""))
            first = value.strip().splitlines()[0] if value.strip() else ""
            status = status_from_exception_name(name)  # check() raises one exception class per status
            if status is not None:
                return CELL_STATUS[status], first
            if name == "CellTimeoutError" or "timeout" in name.lower():
                return "error", say("classroom.problem.cell_timeout")
            if name == "NameError":
                return "error", say("classroom.problem.renamed", error=first)
            return "error", f"{name}: {first}"
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return "error", say("classroom.problem.stderr", text=str(output.get("text", "")).strip()[:120])
    return "pass", ""


def why_not_graded(log: str, read_problems: dict) -> str:
    for problems in read_problems.values():
        if problems:
            return say("classroom.scored_0", why=problems[0])
    if re.search(r"DeadKernelError|Kernel died|kernel died", log):
        return say("classroom.problem.kernel_died")
    if "UnresponsiveKernel" in log or "kernel became unresponsive" in log:
        return say("classroom.problem.kernel_unresponsive")
    errors = [line for line in log.splitlines() if line.strip() and not line.startswith((" ", "\t", "[INFO]", "[WARNING]"))]
    last = errors[-1].strip() if errors else say("classroom.problem.nbgrader_failed")
    return say("classroom.problem.nbgrader_could_not", error=last[:200])


def scores(gb, assignment: str, student: str, cells: dict, problems: dict, problem: str | None) -> list[NotebookResult]:
    """Per notebook, the gradebook's scores, with what the autograded copy says about each lost point."""
    return notebook_results(student, submission_rows(gb, assignment, student), cells, problems, problem)


def submission_rows(gb, assignment: str, student: str) -> gradebook_sqlite.Rows:
    """The submission's notebooks and grades, read with nbgrader's Gradebook `gb` ([] when it has none)."""
    from nbgrader.api import MissingEntry

    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:
        return []
    return [(notebook.name, notebook.score, notebook.max_score,
             [(grade.name, grade.score, grade.max_score) for grade in notebook.grades])
            for notebook in submission.notebooks]


def notebook_results(student: str, rows: gradebook_sqlite.Rows, cells: dict, problems: dict,
                     problem: str | None) -> list[NotebookResult]:
    """The gradebook's rows of one submission as results, each lost point with what its autograded copy says."""
    results = []
    for name, notebook_score, notebook_max, grades in sorted(rows, key=lambda row: row[0]):
        outcomes = cells.get(name, {})
        order = {grade_id: index for index, grade_id in enumerate(outcomes)}  # the notebook's order, when it ran
        cell_results = []
        for grade_name, grade_score, grade_max in sorted(grades, key=lambda g: (order.get(g[0], len(order)), g[0])):
            status, why = outcomes.get(grade_name, ("missing" if cells else "error", problem or ""))
            score = float(grade_score or 0)
            if status == "pass" and score < float(grade_max):
                status, why = "fail", say("classroom.problem.below_full_marks")
            cell_results.append(CellResult(grade_name, score, float(grade_max), status, why))
        found = list(problems.get(name, []))
        results.append(NotebookResult(student, f"{name}.ipynb", float(notebook_score or 0),
                                      float(notebook_max or 0), cell_results, found))
    return results
