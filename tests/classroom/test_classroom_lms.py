"""Grades to the LMS (`grade --export`), the students' records (`classroom roster`) and what each cause
sends a student to read — the parts that need no nbgrader. The same files from a real graded class are
checked in tests/classroom/test_class_report_grade.py.

The layouts are checked against each LMS's own samples:
- Canvas: its gradebook export/import layout (canvas-lms app/models/gradebook_exporter.rb writes
  Student, ID, SIS User ID, SIS Login ID, Section, then the assignments; its importer's fixtures,
  spec/fixtures/gradebooks/*.csv, have a second row starting "Points Possible"), and Canvas matches
  a row to a student by ID.
- Moodle: grade/import/csv/tests/load_data_test.php imports a file whose header is First name,
  Surname, ID number, Institution, Department, Email address, then grade items, and refuses one
  whose rows are not all as long as the header ("csvweirdcolumns"); users are mapped by email.
"""
from __future__ import annotations

import csv
import io
import random
import shutil
import string
import subprocess
import sys

import pytest

from gradtutor.course import manifest as course
from gradtutor.classroom.grading.course_folder import init_course
from gradtutor.classroom.lms import lms_export
from gradtutor.classroom.lms import roster
from gradtutor.classroom.report.cause_lessons import TEACHES, lesson_for, readings
from gradtutor.classroom.grading.grade_table import AssignmentColumn, GradeTable, StudentRecord
from gradtutor.classroom.report.class_report import Outcome
from gradtutor.errors import ClassroomError, UsageError
from gradtutor.protocol import Cause
from tests.support.classroom import gradtutor, tool_env

pytestmark = pytest.mark.unit

# Moodle's sample header (load_data_test.php's $oktext), its user columns
MOODLE_SAMPLE_USER_COLUMNS = ["First name", "Surname", "ID number", "Institution", "Department", "Email address"]
CANVAS_SAMPLE_USER_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
NAMES = ["Zoë", "O'Neil", "Nguyễn", "王", "Anne-Marie", "=cmd", "Smith, Jr.", "José"]


def drawn_table(rng: random.Random, students: int = 7) -> GradeTable:
    """A gradebook as a class leaves one: names with accents, commas and quotes; some lessons not handed in."""
    records = []
    for number in range(students):
        first, last = rng.choice(NAMES), rng.choice(NAMES)
        records.append(StudentRecord(f"s{number:02d}{rng.choice(string.ascii_lowercase)}", first, last,
                                     f"s{number}@uni.example", str(rng.randint(1000, 99999))))
    lessons = [lesson for lesson in course.load().lessons if lesson.exercises][:3]
    columns = tuple(AssignmentColumn(lesson.id, float(sum(e.points for e in lesson.exercises))) for lesson in lessons)
    scores = {}
    for record in records:
        for column in columns:
            if rng.random() < 0.8:
                scores[(record.id, column.name)] = float(rng.randint(0, int(column.max_score)))
    return GradeTable(tuple(records), columns, scores)


def as_file(table: GradeTable, fmt: str, tmp_path) -> str:
    path = lms_export.prepare(tmp_path / f"grades-{fmt}.csv")
    lms_export.write(table, fmt, path)
    data = path.read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf")  # the header's first name is "Student" / "First name", not a BOM
    return data.decode("utf-8")  # UTF-8, as both import forms read by default


@pytest.mark.parametrize("seed", range(3))
def test_canvas_export_is_canvas_gradebook_layout_matched_by_canvas_id(seed, tmp_path):
    table = drawn_table(random.Random(seed))
    rows = list(csv.reader(io.StringIO(as_file(table, "canvas", tmp_path))))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == CANVAS_SAMPLE_USER_COLUMNS
    assert header[5:] == [a.name for a in table.assignments]
    assert points[0] == "Points Possible" and points[1:5] == ["", "", "", ""]
    assert [float(p) for p in points[5:]] == [a.max_score for a in table.assignments]
    assert all(len(row) == len(header) for row in rows)
    by_id = {s.lms_user_id: s for s in table.students}
    graded = [s for s in table.students if any(table.score(s.id, a.name) is not None for a in table.assignments)]
    assert sorted(row[1] for row in students) == sorted(s.lms_user_id for s in graded)
    for row in students:
        student = by_id[row[1]]  # Canvas matches the row by ID
        name = f"{student.last_name}, {student.first_name}"
        assert row[0] in (name, "'" + name)  # "Last, First"; a formula-looking name is kept from running
        for column, cell in zip(table.assignments, row[5:]):
            score = table.score(student.id, column.name)
            assert cell == ("" if score is None else f"{score:g}")
            assert score is None or 0 <= float(cell) <= column.max_score


@pytest.mark.parametrize("seed", range(3))
def test_moodle_export_is_moodle_import_layout_matched_by_email(seed, tmp_path):
    table = drawn_table(random.Random(100 + seed))
    reader = csv.DictReader(io.StringIO(as_file(table, "moodle", tmp_path)))
    assert reader.fieldnames[:6] == MOODLE_SAMPLE_USER_COLUMNS
    assert reader.fieldnames[6:] == [a.name for a in table.assignments]
    rows = list(reader)
    assert all(None not in row and None not in row.values() for row in rows)  # no row longer or shorter
    by_email = {s.email: s for s in table.students}
    for row in rows:
        student = by_email[row["Email address"]]
        assert row["First name"].lstrip("'") == student.first_name and row["Surname"].lstrip("'") == student.last_name
        for column in table.assignments:
            score = table.score(student.id, column.name)
            assert row[column.name] == ("" if score is None else f"{score:.2f}")


def test_plain_csv_has_every_student_and_points_out_of_their_points(tmp_path):
    table = drawn_table(random.Random(7))
    rows = list(csv.DictReader(io.StringIO(as_file(table, "csv", tmp_path))))
    assert [r["student_id"] for r in rows] == [s.id for s in table.students]  # also those with nothing handed in
    for row in rows:
        for column in table.assignments:
            assert float(row[f"{column.name} max"]) == column.max_score


def test_an_export_the_lms_could_not_match_names_the_students_and_writes_nothing(tmp_path):
    table = drawn_table(random.Random(3))
    first = table.students[0]
    unmatched = StudentRecord(first.id, first.first_name, first.last_name, "", "")
    broken = GradeTable((unmatched, *table.students[1:]), table.assignments,
                        {**table.scores, (first.id, table.assignments[0].name): 1.0})
    for fmt, field in (("canvas", "lms_user_id"), ("moodle", "email")):
        path = tmp_path / f"{fmt}.csv"
        with pytest.raises(ClassroomError) as raised:
            lms_export.write(broken, fmt, path)
        message = str(raised.value)
        assert first.id in message and field in message and "gradtutor classroom roster" in message
        assert "\n" not in message and not path.exists()


def test_export_arguments_are_checked_before_grading(tmp_path):
    with pytest.raises(UsageError, match="blackboard"):
        lms_export.check_format("blackboard")
    with pytest.raises(ClassroomError, match="folder"):
        lms_export.prepare(tmp_path)
    with pytest.raises(ClassroomError, match="cannot write"):
        lms_export.prepare(tmp_path / "no such folder" / "grades.csv")
    shown = gradtutor("grade", str(tmp_path), "lesson2", "--export", "blackboard", str(tmp_path / "g.csv"),
                      cwd=tmp_path)
    assert shown.returncode != 0 and "blackboard" in shown.stderr and "Traceback" not in shown.stderr


def test_an_export_whose_roster_lacks_lms_ids_is_refused_before_any_grading(tmp_path):
    """The issue's case: `--export canvas` with students the roster gave no Canvas id, refused in a second, not
    after the class's grading. The course folder is `classroom init`'s; the submissions are the released notebook."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    folder = tmp_path / "course"
    init_course(folder)
    lesson = rng.choice([lesson.id for lesson in course.load().lessons if lesson.exercises])
    students = [f"s{number:02d}{rng.choice(string.ascii_lowercase)}" for number in range(rng.randint(3, 8))]
    for student in students:
        handed_in = folder / "submitted" / student / lesson
        handed_in.mkdir(parents=True)
        shutil.copy(folder / "source" / lesson / f"{lesson}.ipynb", handed_in)
    without_id = set(rng.sample(students, rng.randint(1, len(students) - 1)))
    text = io.StringIO()
    csv.writer(text).writerows([["id", "first_name", "lms_user_id"]] + [
        [s, rng.choice(NAMES), "" if s in without_id else str(rng.randint(1000, 99999))] for s in students])
    roster.import_roster(folder, roster.parse(text.getvalue(), "roster.csv"))
    export = tmp_path / "canvas.csv"
    # the command as the instructor runs it, in a process of its own (nbgrader's application is not started in
    # the test runner's process)
    shown = gradtutor("grade", str(folder), lesson, "--export", "canvas", str(export), cwd=tmp_path)

    said = shown.stderr
    assert shown.returncode != 0 and "Traceback" not in said, f"seed {seed}: {said}"
    assert said.count("\n") == 1 and "gradtutor classroom roster" in said and "lms_user_id" in said, said
    named = {s for s in students if s in said}
    assert named == without_id, f"seed {seed}: names {sorted(named)}, lack an id {sorted(without_id)}"
    # refused before any grading: nothing autograded, nothing in the gradebook, no export written
    assert not export.exists() and not (folder / "autograded").exists()
    # the same class with every id given passes the check (and its grading would start)
    roster.import_roster(folder, roster.parse("id,lms_user_id\n" + "".join(f"{s},{n}\n" for n, s in
                                                                        enumerate(without_id, 100)), "r.csv"))
    passes = subprocess.run([sys.executable, "-c", CHECK_MATCHABLE, str(folder), lesson, str(export)],
                            cwd=tmp_path, env=tool_env(), capture_output=True, text=True, timeout=300)
    assert passes.returncode == 0 and passes.stdout == "ok\n", passes.stdout + passes.stderr


CHECK_MATCHABLE = "\n".join(["import sys", "from pathlib import Path", "from gradtutor.classroom.lms import lms_commands",
                              "lms_commands.check_matchable(Path(sys.argv[1]), sys.argv[2], None,"
                              " [('canvas', Path(sys.argv[3]))])", "print('ok')"])


def test_a_roster_as_a_spreadsheet_saves_it_reads_with_its_byte_order_mark_and_header_words(tmp_path):
    text = "\ufeffID,First Name,Last-Name,E-mail,LMS User ID,Section\nalice,Alice,Ng,a@x.org,123,A\nbob,,Bo,,,B\n\n"
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    found = roster.read(path)
    assert found.records == (StudentRecord("alice", "Alice", "Ng", "", "123"), StudentRecord("bob", "", "Bo"))
    assert found.ignored == ("E-mail", "Section")  # said, not guessed at
    assert roster.given(found.records[1]) == {"last_name": "Bo"}  # empty cells change nothing in the gradebook


@pytest.mark.parametrize("text, words", [
    ("first_name,email\nA,a@x\n", ["no id column", "first_name, email"]),
    ("id,email\n,a@x\n", ["line 2", "empty"]),
    ("id\nalice\nbob\nalice\n", ["line 4", "alice", "line 2"]),
    ("id\n../etc\n", ["line 2", "../etc"]),
    ("id,email\n", ["no students"]),
    ("", ["no students"]),
])
def test_a_roster_that_cannot_be_imported_says_which_line_and_why(text, words, tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClassroomError) as raised:
        roster.read(path)
    message = str(raised.value)
    assert str(path) in message and "\n" not in message
    for word in words:
        assert word in message


def test_a_roster_from_a_latin1_spreadsheet_or_nowhere_is_one_clear_line(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("id,first_name\nzoe,Zoë\n".encode("latin-1"))
    with pytest.raises(ClassroomError, match="CSV UTF-8"):
        roster.read(path)
    shown = gradtutor("classroom", "roster", str(tmp_path / "missing.csv"), "--course", str(tmp_path), cwd=tmp_path)
    assert shown.returncode != 0 and "nbgrader_config.py" in shown.stderr and "Traceback" not in shown.stderr


def test_each_taught_cause_is_worded_by_an_exercise_of_its_lesson():
    worded: dict[str, set[str]] = {}
    for lesson in course.load().lessons:
        for exercise in lesson.exercises:
            for rule in exercise.diagnoses:
                worded.setdefault(rule.cause, set()).add(lesson.id)
    for cause, lesson in TEACHES.items():
        assert Cause(cause).value == cause
        assert lesson in worded.get(cause, set()), f"{cause} → {lesson}, whose exercises never word it"
    assert lesson_for("outside-tape", "lesson5") == "lesson2"
    assert lesson_for("shape", "lesson5") == "lesson5"  # an answer's own mistake: back to its lesson


def test_readings_are_per_cause_and_leave_out_what_is_not_a_mistake():
    def outcome(exercise, status, cause):
        return Outcome(exercise, 0.0, 1.0, status, cause, "")

    found = readings([outcome("a", "fail", "outside-tape"), outcome("b", "not_attempted", "not-attempted"),
                      outcome("c", "fail", "outside-tape"), outcome("d", "fail", "shape"),
                      outcome("e", "pass", None), outcome("f", "error", None)], "lesson3")
    assert [(r.cause, r.exercises, r.lesson) for r in found] == [("outside-tape", ("a", "c"), "lesson2"),
                                                                  ("shape", ("d",), "lesson3")]
    assert found[0].title == course.load().lesson("lesson2").title
