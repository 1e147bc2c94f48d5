"""Filling a ClassReport from a graded course folder.

Points come from the gradebook (the SubmissionResults `gradtutor grade` read back);
each check cell's status, cause and text from the autograded notebooks (verdicts);
the answers compared for similarity from the submitted notebooks. A submission
skipped as already autograded is reported from the same files.
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.classroom.grading import similarity
from gradtutor.classroom.coursedir.layout import layout
from gradtutor.classroom.report.class_report import ClassReport, Outcome, StudentReport
from gradtutor.classroom.grading.results import CellResult, SubmissionResult
from gradtutor.classroom.grading.verdicts import CellVerdict, notebook_verdicts
from gradtutor.errors import GradtutorError
from gradtutor.messages import say

# the statuses of an answer that ran and was wrong (a not-attempted or ungraded one says nothing of the answer)
WRONG = ("fail", "error", "timeout")


def collect(root: Path, assignment: str, results: list[SubmissionResult]) -> ClassReport:
    """The report on `results`, graded in the course folder `root`."""
    lesson = course.load().lesson(assignment)
    submitted, autograded = _folders(root, assignment)
    students = tuple(student_report(r, autograded(r.student)) for r in results)
    exercises = [e.id for e in lesson.exercises]
    for student in students:  # a grade cell the course added: a column of its own, after the lesson's
        exercises.extend(o.exercise for o in student.outcomes if o.exercise not in exercises)
    students = tuple(dataclasses.replace(s, outcomes=tuple(sorted(s.outcomes, key=lambda o: exercises.index(o.exercise))))
                     for s in students)  # the lesson's order (the gradebook's is by name for a skipped submission)
    compared = []
    cells = functools.cache(notebook_cells)  # each notebook read once, though every exercise looks in it
    for exercise in lesson.exercises:
        answers = {r.student: answer_of(cells(submitted(r.student) / lesson.notebook), exercise.function)
                   for r in results}
        wrong = {s.student: o.diagnosis for s in students for o in s.outcomes
                 if o.exercise == exercise.id and o.status in WRONG and o.diagnosis}
        compared.append(similarity.compare(exercise.id, answers,
                                           answer_of(cells(lesson.source_notebook()), exercise.function),
                                           answer_of(cells(lesson.release_notebook()), exercise.function), wrong))
    return ClassReport(assignment, tuple(exercises), students, tuple(compared))


def student_report(result: SubmissionResult, autograded: Path) -> StudentReport:
    ran = result.graded or result.skipped  # otherwise any autograded copy is not this grading's
    outcomes = []
    problems = [result.problem] if result.problem else []
    for nb in result.notebooks:
        verdicts = notebook_verdicts(autograded / nb.notebook) if ran else {}
        outcomes.extend(outcome(cell, verdicts.get(cell.id), None if ran else result.problem) for cell in nb.cells)
        problems.extend(p for p in nb.problems if p not in problems)
    return StudentReport(result.student, sum(nb.score for nb in result.notebooks),
                         sum(nb.max_score for nb in result.notebooks), tuple(outcomes), tuple(problems))


def outcome(cell: CellResult, verdict: CellVerdict | None, not_graded: str | None) -> Outcome:
    """One grade cell: the gradebook's points, with the verdict the cell showed when there is one."""
    if not_graded is not None:
        return Outcome(cell.exercise, cell.score, cell.max_score, "not_graded", None, not_graded)
    if verdict is None:  # no autograded cell to read (test cell deleted, notebook not run)
        return Outcome(cell.exercise, cell.score, cell.max_score, cell.status, None, cell.why)
    if verdict.status == "pass" and cell.score < cell.max_score:
        # passed in the kernel, zeroed by the out-of-kernel re-check (or by hand): the gradebook wins
        why = cell.why if cell.status != "pass" and cell.why else say("classroom.problem.below_full_marks_gradebook")
        return Outcome(cell.exercise, cell.score, cell.max_score, "zeroed", None, why)
    return Outcome(cell.exercise, cell.score, cell.max_score, verdict.status, verdict.cause, verdict.message)


def notebook_cells(notebook: Path) -> list[extract.Cell] | None:
    """A notebook's code cells; None when it cannot be read (its answers are not compared)."""
    try:
        return extract.read_cells(notebook)
    except (GradtutorError, OSError, ValueError, RecursionError, MemoryError):
        return None


def answer_of(cells: list[extract.Cell] | None, function: str) -> str | None:
    """The normalised definition of `function` in a notebook's cells; None when it has none or cannot be read."""
    if cells is None:
        return None
    try:
        definition = extract.find_function(cells, function)
        return similarity.canonical(definition.node) if definition.node is not None else None
    except (GradtutorError, OSError, ValueError, RecursionError, MemoryError):
        return None  # too deeply nested for `ast`, unreadable: not compared (the checker says what is wrong)


def _folders(root: Path, assignment: str):
    """student -> submitted folder, student -> autograded folder, as the course's nbgrader config lays them out."""
    coursedir = layout(root)

    def submitted(student: str) -> Path:
        return Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))

    def autograded(student: str) -> Path:
        return Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))

    return submitted, autograded


