"""What grading a submission gives the command: scores and problems per notebook and grade cell."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from gradtutor.course import conventions


@dataclasses.dataclass
class CellResult:
    id: str  # the grade cell's grade_id (check_<exercise>)
    score: float
    max_score: float
    status: str  # pass | fail | not_attempted | error | missing
    why: str = ""

    @property
    def exercise(self) -> str:
        return conventions.exercise_of(self.id) or self.id


@dataclasses.dataclass
class NotebookResult:
    student: str
    notebook: str  # file name, e.g. lesson2.ipynb
    score: float
    max_score: float
    cells: list[CellResult]
    problems: list[str]  # what broke: corrupt file, a deleted test cell, the kernel died...

    @property
    def full_marks(self) -> bool:
        return self.max_score > 0 and self.score >= self.max_score


@dataclasses.dataclass
class SubmissionResult:
    student: str
    graded: bool  # nbgrader autograded it (the scores are its scores)
    skipped: bool = False  # already autograded, and no --force
    notebooks: list[NotebookResult] = dataclasses.field(default_factory=list)
    problem: str | None = None  # why nbgrader could not grade it
    seconds: float = 0.0
    stopped: bool = False  # its grading process was stopped (timeout) or died before nbgrader finished

    @classmethod
    def from_json(cls, data: dict) -> "SubmissionResult":
        notebooks = [NotebookResult(**{**nb, "cells": [CellResult(**c) for c in nb["cells"]]})
                     for nb in data.get("notebooks", [])]
        return cls(data["student"], data["graded"], data.get("skipped", False), notebooks,
                   data.get("problem"), data.get("seconds", 0.0))


@dataclasses.dataclass
class Course:
    """What the parent needs to know about the course folder, read with nbgrader's own config loading."""

    root: Path
    db_url: str
    course_id: str
    source: Path  # source/<assignment>
    submissions: dict[str, list[str]]  # student id -> notebook file names
    autograded: frozenset[str] = frozenset()  # students whose autograded copy is there: graded before
