"""What the class got wrong: per exercise, how many passed and the most common diagnoses (cause ids).

The data here is plain and typed; report_collect fills it from a graded course
folder, report_files writes it (CSV, HTML) and `gradtutor grade` prints
`summary_lines`. Diagnoses are counted by cause id (the ids `gradtutor explain`
uses), never by their wording: rewording a diagnosis changes no count.
"""
from __future__ import annotations

import dataclasses
import unicodedata
from collections import Counter

from gradtutor.classroom.grading.similarity import ExerciseSimilarity, SimilarityFlag
from gradtutor.messages import say

WIDTH = 80  # the terminal table fits a classic terminal
SHOWN_DIAGNOSES = 4  # per exercise in the terminal; the report files list them all
SHOWN_STUDENTS = 3  # examples per diagnosis

# How a lost point without a cause id is counted: what is known of it, in parentheses (not a cause id).
# These stay as they are in the data (summary.csv); diagnosis_text shows them in the chosen language.
NO_CAUSE = {"fail": "(fail)", "error": "(error)", "not_attempted": "(not attempted)", "missing": "(no test cell)",
            "not_graded": "(not graded)", "zeroed": "(scored 0 on re-check)"}
# Every status a grade cell can have here: a verdict's, and those that are not (no test cell, not graded, zeroed).
STATUSES = ("pass", "fail", "not_attempted", "error", "timeout", "missing", "not_graded", "zeroed")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One exercise of one student: the gradebook's points and the check cell's verdict."""

    exercise: str  # exercise id
    points: float
    max_points: float
    status: str  # one of STATUSES
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
        """The status as a student's page shows it, in the chosen language."""
        return say(f"classroom.report.status.{self.status}") if self.status in STATUSES else self.status


def diagnosis_text(name: str) -> str:
    """A diagnosis as the table shows it: a cause id as it is, a NO_CAUSE label in the chosen language."""
    status = next((status for status, label in NO_CAUSE.items() if label == name), None)
    return say(f"classroom.report.no_cause.{status}") if status else name


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
    similarity: tuple[ExerciseSimilarity, ...] = ()

    @property
    def summaries(self) -> list[ExerciseSummary]:
        return [summarise(self, exercise) for exercise in self.exercises]

    @property
    def flags(self) -> list[SimilarityFlag]:
        """Answers shared by two or more that are neither the shipped solution nor a common form: to look at."""
        return [flag for compared in self.similarity for flag in compared.flags if not flag.mistake]

    @property
    def mistakes(self) -> list[SimilarityFlag]:
        """Wrong answers shared by two or more: misconceptions to teach again."""
        return [flag for compared in self.similarity for flag in compared.flags if flag.mistake]


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
    def column(name: str) -> str:
        return say(f"classroom.report.column.{name}")

    lines = [say("classroom.report.title", assignment=report.assignment,
                 students=_many("classroom.report.students", len(report.students))),
             f"{pad(column('exercise'), 18)} {pad(column('passed'), 7, right=True)}  {pad(column('diagnosis'), 22)} "
             f"{pad(column('count'), 5, right=True)}  {column('students')}"]
    for summary in report.summaries:
        first = f"{pad(fit(summary.exercise, 18), 18)} {f'{summary.passed}/{summary.students}':>7}  "
        if not summary.diagnoses:
            lines.append(first + say("classroom.report.all_passed"))
        for index, diagnosis in enumerate(summary.diagnoses[:SHOWN_DIAGNOSES]):
            lead = first if index == 0 else " " * cells(first)
            row = f"{lead}{pad(fit(diagnosis_text(diagnosis.name), 22), 22)} {diagnosis.count:>5}  "
            lines.append(fit(row + examples(diagnosis.students, WIDTH - cells(row)), WIDTH))
        hidden = summary.diagnoses[SHOWN_DIAGNOSES:]
        if hidden:
            more = sum(d.count for d in hidden)
            lines.append(" " * cells(first) + say("classroom.report.more",
                                                  diagnoses=_many("classroom.report.more", len(hidden)),
                                                  students=_many("classroom.report.students", more)))
    for heading, flags in (("classroom.report.flags", report.flags), ("classroom.report.mistakes", report.mistakes)):
        if flags:
            lines.append(say(heading))
            lines.extend(fit("  " + flag_text(flag, WIDTH - 2), WIDTH) for flag in flags)
    lines.extend(fit(line, WIDTH) for line in match_counts(report))
    return lines


def match_counts(report: ClassReport) -> list[str]:
    """How many wrote the shipped solution or a common form, per exercise: counts, never names."""
    lines = []
    for kind in ("solution", "common"):
        counts = [f"{c.exercise} {getattr(c, kind)}" for c in report.similarity if getattr(c, kind)]
        if counts:
            lines.append(say(f"classroom.report.as_{kind}", counts=say("classroom.separator").join(counts)))
    return lines


def examples(students: tuple[str, ...], room: int = WIDTH, shown: int = SHOWN_STUDENTS) -> str:
    """Up to `shown` names that fit in `room` characters, then how many more ("amy, bob +4")."""
    text = ""
    for index, student in enumerate(students[:shown]):
        after = len(students) - index - 1
        more = len(f" +{after}") if after else 0
        name = fit(_printable(student), max(8, min(24, room - more)))
        candidate = f"{text}, {name}" if text else name
        if text and cells(candidate) + more > room:
            return f"{text} +{len(students) - index}"
        text = candidate
    return text + (f" +{len(students) - shown}" if len(students) > shown else "")


def flag_text(flag: SimilarityFlag, room: int = 10_000) -> str:
    kind = (say("classroom.report.same_mistake", diagnosis=diagnosis_text(flag.diagnosis or ""))
            if flag.mistake else say("classroom.report.same_answer"))
    head = say("classroom.report.flag", exercise=flag.exercise, kind=kind)
    return head + examples(flag.students, room - cells(head), shown=len(flag.students))


def _printable(text: str) -> str:
    """A student id as one line of the table, whatever its folder name holds."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _many(message_id: str, n: int) -> str:
    """`message_id`_one or _other, with the count."""
    return say(f"{message_id}_{'one' if n == 1 else 'other'}", count=n)


def cells(text: str) -> int:
    """How many terminal columns `text` takes: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, width: int) -> str:
    """`text` cut to `width` columns, "…" marking the cut."""
    if cells(text) <= width:
        return text
    while text and cells(text) > width - 1:
        text = text[:-1]
    return text + "…"


def pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` columns (on the left when `right`)."""
    room = " " * max(0, width - cells(text))
    return room + text if right else text + room


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
    """similar.csv: each shared answer and shared mistake with its students; the solution and common forms as counts."""
    rows = [["exercise", "same as", "count", "students", "diagnosis"]]
    for compared in report.similarity:
        rows.extend([f.exercise, "a wrong answer of each other" if f.mistake else "each other", str(len(f.students)),
                     "; ".join(f.students), f.diagnosis or ""] for f in compared.flags)
        rows.extend([compared.exercise, what, str(count), "", ""] for what, count in
                    (("the shipped solution", compared.solution), ("a form common in the class", compared.common))
                    if count)
    return rows


def _number(value: float) -> str:
    return f"{value:g}"
