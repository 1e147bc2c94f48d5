"""Does `gradtutor grade --report` say what a real class got wrong?

A lesson-2 class is written into a course folder made by `gradtutor classroom init`:
every known-wrong answer of gradtutor/course/lessons/lesson2/answers.toml (packed one per exercise to a
notebook, each with the cause it really has), the untouched release, a student who
pastes the shipped solution under other names, a student whose right answers are
their own, and two students who hand in the same answer with names and layout
changed. It is graded by nbgrader through `gradtutor grade --jobs 2 --report DIR`; the
table, the CSV files and the HTML pages are then read back.
"""
from __future__ import annotations

import csv
import html
import os
import random
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from gradtutor.course import manifest as course
from gradtutor.classroom.report.cause_lessons import lesson_for
from tests.support.classroom import (Slot, Student, answers_of, gradtutor, make_course, read_gradebook, solution_code,
                                     submission)

LESSON = "lesson2"
pytestmark = [pytest.mark.nbgrader, pytest.mark.xdist_group("classroom")]


def renamed(code: str, names: dict[str, str]) -> str:
    """The same answer as someone else types it: other names, a docstring, comments, other spacing."""
    for old, new in names.items():
        code = re.sub(rf"\b{old}\b", new, code)
    head, _, body = code.strip("\n").partition("\n")
    lines = [line for line in body.splitlines() if not re.fullmatch(r'\s*""".*"""', line)]  # their docstring
    return f"{head}\n    '''My own work.'''\n\n" + "\n".join(
        line + ("  # step" if line.strip() else "") for line in lines) + "\n"


def build_class(folder: Path, lesson: course.Lesson) -> dict[str, dict[str, str | None]]:
    """Submit the class; return student → exercise → the diagnosis the report must count (None: a pass)."""
    release = nbformat.read(folder / "release" / LESSON / lesson.notebook, as_version=4)
    answers = answers_of(LESSON)
    exercises = list(lesson.exercises)
    wrong = {e.id: [a for a in answers if a["exercise"] == e.id and a["expect"] != "pass"] for e in exercises}
    right = {e.id: [a["code"] for a in answers if a["exercise"] == e.id and a["expect"] == "pass"] for e in exercises}
    twin_exercise = exercises[0]
    students: list[tuple[Student, dict]] = []

    def add(student_id: str, codes: dict[str, str | None], expected: dict[str, str | None]) -> None:
        slots = {e.id: Slot(codes.get(e.id), False) for e in exercises}
        students.append((Student(student_id, slots, trimmed=True), expected))

    for number in range(max(len(w) for w in wrong.values())):
        picked = {e.id: wrong[e.id][number] for e in exercises if number < len(wrong[e.id])}
        add(f"wrong{number + 1:02d}", {e: a["code"] for e, a in picked.items()},
            {e.id: picked[e.id]["cause"] if e.id in picked else "not-attempted" for e in exercises})
    add("untouched", {}, {e.id: "not-attempted" for e in exercises})
    copied = {e.id: renamed(solution_code(lesson, e), {"model": "net", "inp": "batch", "x": "xs", "tape": "t"})
              for e in exercises}
    add("copier", copied, {e.id: None for e in exercises})
    own = {e.id: right[e.id][-1] for e in exercises}
    add("independent", own, {e.id: None for e in exercises})
    twin = right[twin_exercise.id][0]
    add("twin_a", {twin_exercise.id: twin}, {e.id: None if e is twin_exercise else "not-attempted" for e in exercises})
    add("twin_b", {twin_exercise.id: renamed(twin, {"model": "m", "inp": "data", "x": "v", "tape": "g"})},
        {e.id: None if e is twin_exercise else "not-attempted" for e in exercises})
    first_mistake = wrong[twin_exercise.id][0]  # wrong01 hands it in too: a mistake two students share
    add("misled", {twin_exercise.id: renamed(first_mistake["code"], {"model": "mdl", "inp": "batch", "x": "xx"})},
        {e.id: first_mistake["cause"] if e is twin_exercise else "not-attempted" for e in exercises})
    for student, _ in students:
        target = folder / "submitted" / student.id / LESSON / lesson.notebook
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(submission(release, student), target)
    return {student.id: expected for student, expected in students}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = make_course(tmp_path_factory.mktemp("report") / "course", [LESSON])
    lesson = course.load().lesson(LESSON)
    expected = build_class(folder, lesson)
    report = folder.parent / "report"
    records = write_roster(folder.parent / "roster.csv", sorted(expected))
    imported = gradtutor("classroom", "roster", str(folder.parent / "roster.csv"), cwd=folder)
    assert imported.returncode == 0 and f"{len(records)} student(s) added" in imported.stdout, imported.stderr
    exports = [arg for fmt in ("canvas", "moodle", "csv") for arg in ("--export", fmt, str(report.parent / f"{fmt}.csv"))]
    done = gradtutor("grade", str(folder), LESSON, "--jobs", "2", "--report", str(report), *exports, cwd=folder.parent)
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return folder, report, expected, done.stdout, lesson, records


def write_roster(path: Path, students: list[str]) -> dict[str, dict[str, str]]:
    """The class's records as an LMS gives them: drawn names with accents and commas, a Canvas id, an email."""
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    names = ["Zoë", "Nguyễn", "王", "O'Brien", "Anne-Marie", "José", "Smith, Jr.", "Łukasz"]
    records = {s: {"id": s, "first_name": rng.choice(names), "last_name": rng.choice(names),
                   "email": f"{s}.{rng.randint(1, 999)}@uni.example", "lms_user_id": str(rng.randint(10_000, 99_999) * 100 + n)}
               for n, s in enumerate(students)}
    with path.open("w", newline="", encoding="utf-8-sig") as handle:  # as a spreadsheet saves "CSV UTF-8"
        writer = csv.DictWriter(handle, ["id", "first_name", "last_name", "email", "lms_user_id"])
        writer.writeheader()
        writer.writerows(records.values())
    return records


def _csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_report_counts_each_known_wrong_answers_cause(graded):
    _, report, expected, _, lesson, _ = graded
    rows = _csv(report / "summary.csv")
    for exercise in lesson.exercises:
        want = Counter(e[exercise.id] for e in expected.values() if e[exercise.id] is not None)
        got = {r["diagnosis"]: int(r["count"]) for r in rows if r["exercise"] == exercise.id and r["diagnosis"]}
        assert got == dict(want), f"{exercise.id}: counted {got}, the class holds {dict(want)}"
        passed = {int(r["passed"]) for r in rows if r["exercise"] == exercise.id}
        assert passed == {sum(e[exercise.id] is None for e in expected.values())}
        for row in (r for r in rows if r["exercise"] == exercise.id and r["diagnosis"]):
            named = set(row["which students"].split("; "))
            assert named == {s for s, e in expected.items() if e[exercise.id] == row["diagnosis"]}


def test_the_grades_csv_opens_with_csv_and_sums_to_the_gradebook(graded):
    folder, report, expected, _, lesson, _ = graded
    rows = _csv(report / "grades.csv")
    book = read_gradebook(folder, LESSON)
    assert [r["student_id"] for r in rows] == sorted(expected)
    assert list(rows[0]) == ["student_id", *(e.id for e in lesson.exercises), "total"]
    for row in rows:
        parts = [float(row[e.id]) for e in lesson.exercises]
        assert float(row["total"]) == sum(parts) == book[row["student_id"]]["score"], row
        earned = {e.id: float(e.points) if expected[row["student_id"]][e.id] is None else 0.0 for e in lesson.exercises}
        assert dict(zip(earned, parts)) == earned, row
    assert sum(float(r["total"]) for r in rows) == sum(b["score"] for b in book.values())


def test_shared_answers_and_mistakes_are_flagged_and_solution_copies_only_counted(graded):
    _, report, _, output, lesson, _ = graded
    rows = _csv(report / "similar.csv")
    first = lesson.exercises[0].id
    named = {(r["exercise"], r["same as"], r["students"], r["diagnosis"]) for r in rows if r["students"]}
    cause = _first_mistake(lesson)["cause"]
    assert named == {(first, "each other", "twin_a; twin_b", ""),
                     (first, "a wrong answer of each other", "misled; wrong01", cause)}
    counted = {(r["exercise"], r["same as"], r["count"]) for r in rows if not r["students"]}
    assert counted == {(e.id, "the shipped solution", "1") for e in lesson.exercises}  # the copier, never named
    assert f"{first}, the same answer: twin_a, twin_b" in output
    assert f"{first}, the same wrong answer, {cause}: misled, wrong01" in output
    assert f"Same as the shipped solution (counted, not flagged): {first} 1" in output


def _first_mistake(lesson: course.Lesson) -> dict:
    return [a for a in answers_of(LESSON) if a["exercise"] == lesson.exercises[0].id and a["expect"] != "pass"][0]


def test_the_terminal_table_fits_80_columns_and_names_the_causes(graded):
    _, _, expected, output, lesson, _ = graded
    table = output[output.index("What the class got wrong"):output.index("Class report: ")]  # then its paths
    lines = table.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    for exercise in lesson.exercises:
        assert any(line.startswith(exercise.id) for line in lines), table
    assert "outside-tape" in table and "not-attempted" in table


def test_every_student_has_a_feedback_page_with_each_verdict(graded):
    _, report, expected, _, lesson, _ = graded
    index = (report / "index.html").read_text()
    assert "<script" not in index and "http" not in index  # self-contained: works offline
    wrong = answers_of(LESSON)[0]
    for student, causes in expected.items():
        page = html.unescape((report / "students" / f"{student}.html").read_text())
        assert f'students/{student}.html' in index
        assert [page.index(f"<td>{e.id}</td>") for e in lesson.exercises] == \
            sorted(page.index(f"<td>{e.id}</td>") for e in lesson.exercises)  # in the lesson's order
        for exercise in lesson.exercises:
            if causes[exercise.id] is not None:
                assert causes[exercise.id] in page, (student, exercise.id)
    first = html.unescape((report / "students" / "wrong01.html").read_text())
    assert "not attempted" not in first and wrong["exercise"] in first and "fail" in first


def test_the_lms_exports_carry_each_students_ids_and_the_gradebooks_points(graded):
    folder, report, expected, output, lesson, records = graded
    book = read_gradebook(folder, LESSON)
    points = float(sum(e.points for e in lesson.exercises))
    assert "Grades for canvas written" in output and "Grades for moodle written" in output
    canvas = list(csv.reader((report.parent / "canvas.csv").open(newline="", encoding="utf-8")))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", LESSON]
    assert canvas[1][0] == "Points Possible" and float(canvas[1][5]) == points
    by_lms_id = {r["lms_user_id"]: s for s, r in records.items()}
    assert sorted(by_lms_id[row[1]] for row in canvas[2:]) == sorted(expected)
    for row in canvas[2:]:
        student = by_lms_id[row[1]]
        assert row[0] == f"{records[student]['last_name']}, {records[student]['first_name']}"
        assert float(row[5]) == book[student]["score"], (student, row)
    moodle = _csv(report.parent / "moodle.csv")
    by_email = {r["email"]: s for s, r in records.items()}
    assert sorted(by_email[row["Email address"]] for row in moodle) == sorted(expected)
    for row in moodle:
        assert float(row[LESSON]) == book[by_email[row["Email address"]]]["score"]
        assert len(row) == 7 and None not in row
    plain = {row["student_id"]: row for row in _csv(report.parent / "csv.csv")}
    assert set(plain) == set(expected)
    for student, row in plain.items():
        assert (row["lms_user_id"], row["email"]) == (records[student]["lms_user_id"], records[student]["email"])
        assert float(row[LESSON]) == book[student]["score"] and float(row[f"{LESSON} max"]) == points


def test_the_report_says_per_student_each_cause_and_the_lesson_that_teaches_it(graded):
    _, report, expected, _, _, _ = graded
    rows = _csv(report / "causes.csv")
    got: dict[str, dict[str, str]] = {}
    for row in rows:
        got.setdefault(row["student_id"], {})[row["cause"]] = row["lesson"]
        assert row["lesson title"] == course.load().lesson(row["lesson"]).title
    for student, causes in expected.items():
        hit = {c for c in causes.values() if c is not None and c != "not-attempted"}
        assert got.get(student, {}) == {c: lesson_for(c, LESSON) for c in hit}, student
        page = html.unescape((report / "students" / f"{student}.html").read_text())
        for cause in hit:
            assert f"{cause} (" in page and "What to read" in page
    assert any(lesson == "lesson2" for causes in got.values() for c, lesson in causes.items() if c == "outside-tape")
