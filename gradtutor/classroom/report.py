"""What the class got wrong: per exercise, how many passed and the most common diagnoses (cause ids).

The data here is plain and typed; report_collect fills it from a graded course
folder, report_files writes it (CSV, HTML) and `gradtutor grade` prints
`summary_lines`. Diagnoses are counted by cause id (the ids `gradtutor explain`
uses), never by their wording: rewording a diagnosis changes no count.
"""
from __future__ import annotations

import dataclasses
from collections import Counter

from gradtutor.classroom.similarity import SimilarityFlag
from gradtutor.protocol import Status

WIDTH = 80  # the terminal table fits a classic terminal
SHOWN_DIAGNOSES = 4  # per exercise in the terminal; the report files list them all
SHOWN_STUDENTS = 3  # examples per diagnosis

# How a lost point without a cause id is counted: what is known of it, in parentheses (not a cause id).
NO_CAUSE = {"fail": "(fail)", "error": "(error)", "not_attempted": "(not attempted)", "missing": "(no test cell)",
            "not_graded": "(not graded)", "zeroed": "(scored 0 on re-check)"}
# Statuses of a grade cell that are not a verdict's, and how they are shown.
OTHER_LABELS = {"missing": "no test cell", "not_graded": "not graded", "zeroed": "scored 0 by the re-check"}


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One exercise of one student: the gradebook's points and the check cell's verdict."""

    exercise: str  # exercise id
    points: float
    max_points: float
    status: str  # pass | fail | not_attempted | error, or one of OTHER_LABELS
    cause: str | None  # a protocol.Cause id, when the verdict carries one
    message: str  # the verdict's text as the student read it

    @property
    def diagnosis(self) -> str | None:
        """What this outcome is counted as in the table: None for a pass."""
        if self.status == "pass":
            return None
        return self.cause or NO_CAUSE.get(self.status, f"({self.status})")

    @property
    def label(self) -> str:
        try:
            return Status(self.status).display.label
        except ValueError:
            return OTHER_LABELS.get(self.status, self.status)


@dataclasses.dataclass(frozen=True)
class StudentReport:
    student: str
    score: float  # the gradebook's total for the lesson
    max_score: float
    outcomes: tuple[Outcome, ...]
    problems: tuple[str, ...] = ()  # what broke while grading (corrupt file, deleted test cell, …)


@dataclasses.dataclass(frozen=True)
class Diagnosis:
    name: str  # a cause id, or a NO_CAUSE label
    students: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.students)


@dataclasses.dataclass(frozen=True)
class ExerciseSummary:
    exercise: str
    passed: int
    students: int
    diagnoses: tuple[Diagnosis, ...]  # most common first


@dataclasses.dataclass(frozen=True)
class ClassReport:
    assignment: str
    exercises: tuple[str, ...]  # exercise ids in the notebook's order
    students: tuple[StudentReport, ...]
    flags: tuple[SimilarityFlag, ...] = ()

    @property
    def summaries(self) -> list[ExerciseSummary]:
        return [summarise(self, exercise) for exercise in self.exercises]


def summarise(report: ClassReport, exercise: str) -> ExerciseSummary:
    outcomes = [(s.student, o) for s in report.students for o in s.outcomes if o.exercise == exercise]
    by_diagnosis: dict[str, list[str]] = {}
    for student, outcome in outcomes:
        if outcome.diagnosis is not None:
            by_diagnosis.setdefault(outcome.diagnosis, []).append(student)
    counts = Counter({name: len(students) for name, students in by_diagnosis.items()})
    order = sorted(counts, key=lambda name: (-counts[name], name.startswith("("), name))  # ids before labels
    diagnoses = tuple(Diagnosis(name, tuple(sorted(by_diagnosis[name]))) for name in order)
    passed = sum(o.status == "pass" and o.points >= o.max_points for _, o in outcomes)
    return ExerciseSummary(exercise, passed, len(outcomes), diagnoses)


def summary_lines(report: ClassReport) -> list[str]:
    """The table `gradtutor grade` prints: plain text, no line longer than WIDTH."""
    lines = [f"What the class got wrong in {report.assignment} ({_many(len(report.students), 'student', 'students')}):",
             f"{'exercise':<18} {'passed':>7}  {'diagnosis':<22} {'count':>5}  students"]
    for summary in report.summaries:
        first = f"{_fit(summary.exercise, 18):<18} {f'{summary.passed}/{summary.students}':>7}  "
        if not summary.diagnoses:
            lines.append(first + "all passed")
        for index, diagnosis in enumerate(summary.diagnoses[:SHOWN_DIAGNOSES]):
            lead = first if index == 0 else " " * len(first)
            row = f"{lead}{_fit(diagnosis.name, 22):<22} {diagnosis.count:>5}  "
            lines.append(_fit(row + examples(diagnosis.students, WIDTH - len(row)), WIDTH))
        hidden = summary.diagnoses[SHOWN_DIAGNOSES:]
        if hidden:
            more = sum(d.count for d in hidden)
            lines.append(" " * len(first) + f"… {_many(len(hidden), 'more diagnosis', 'more diagnoses')} "
                                            f"({_many(more, 'student', 'students')}): see --report")
    if report.flags:
        lines.append("Identical answers (a flag to look at; no score was changed):")
        lines.extend(_fit("  " + flag_text(flag, WIDTH - 2), WIDTH) for flag in report.flags)
    return lines


def examples(students: tuple[str, ...], room: int = WIDTH, shown: int = SHOWN_STUDENTS) -> str:
    """Up to `shown` names that fit in `room` characters, then how many more ("amy, bob +4")."""
    text = ""
    for index, student in enumerate(students[:shown]):
        after = len(students) - index - 1
        more = len(f" +{after}") if after else 0
        name = _fit(_printable(student), max(8, min(24, room - more)))
        candidate = f"{text}, {name}" if text else name
        if text and len(candidate) + more > room:
            return f"{text} +{len(students) - index}"
        text = candidate
    return text + (f" +{len(students) - shown}" if len(students) > shown else "")


def flag_text(flag: SimilarityFlag, room: int = 10_000) -> str:
    kind = "same as the shipped solution" if flag.to_solution else "the same answer"
    head = f"{flag.exercise}, {kind}: "
    return head + examples(flag.students, room - len(head), shown=len(flag.students))


def _printable(text: str) -> str:
    """A student id as one line of the table, whatever its folder name holds."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _many(n: int, one: str, several: str) -> str:
    return f"{n} {one if n == 1 else several}"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def grade_rows(report: ClassReport) -> list[list[str]]:
    """The grades table an LMS imports: student id, each exercise's points, the gradebook's total."""
    rows = [["student_id", *report.exercises, "total"]]
    for student in report.students:
        points = {o.exercise: o.points for o in student.outcomes}
        rows.append([student.student, *(_number(points.get(e, 0.0)) for e in report.exercises),
                     _number(student.score)])
    return rows


def summary_rows(report: ClassReport) -> list[list[str]]:
    """The class table as CSV rows: one per exercise and diagnosis, every student named."""
    rows = [["exercise", "passed", "students", "diagnosis", "count", "which students"]]
    for summary in report.summaries:
        head = [summary.exercise, str(summary.passed), str(summary.students)]
        if not summary.diagnoses:
            rows.append([*head, "", "0", ""])
        rows.extend([*head, d.name, str(d.count), "; ".join(d.students)] for d in summary.diagnoses)
    return rows


def flag_rows(report: ClassReport) -> list[list[str]]:
    rows = [["exercise", "identical to", "students"]]
    rows.extend([f.exercise, "the shipped solution" if f.to_solution else "each other", "; ".join(f.students)]
                for f in report.flags)
    return rows


def _number(value: float) -> str:
    return f"{value:g}"
