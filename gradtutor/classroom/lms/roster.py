"""`gradtutor classroom roster FILE.csv`: the students' records (LMS id, names, email) into nbgrader's gradebook.

The file has nbgrader's own columns (those of `nbgrader db student import`): `id` (the
student's folder name in submitted/, their hub user name), `first_name`, `last_name`,
`email`, `lms_user_id`. Headers are matched without regard to case, spaces or hyphens;
other columns are left out and said. An empty cell changes nothing: a roster that lacks
the e-mail addresses never erases the ones the gradebook has. No student is removed.
The whole file is checked before the gradebook is touched.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path

from gradtutor.classroom.grading.grade_table import StudentRecord
from gradtutor.errors import ClassroomError
from gradtutor.messages import say

FIELDS = ("id", "first_name", "last_name", "email", "lms_user_id")
ALIASES = {"student_id": "id", "username": "id", "user_name": "id", "firstname": "first_name",
           "lastname": "last_name", "surname": "last_name", "email_address": "email", "lms_id": "lms_user_id"}
# a student id names a folder (submitted/<id>/): no separators, nothing that is not one plain name
BAD_ID = re.compile(r"[/\\\x00-\x1f]|^\.\.?$")


def given(record: StudentRecord) -> dict[str, str]:
    """The fields a row fills (an empty cell is not a value)."""
    return {f: getattr(record, f) for f in FIELDS[1:] if getattr(record, f)}


@dataclasses.dataclass(frozen=True)
class Roster:
    records: tuple[StudentRecord, ...]
    ignored: tuple[str, ...]  # columns that are not nbgrader's


def field_of(header: str) -> str:
    name = re.sub(r"[\s\-]+", "_", header.strip().lower())
    return ALIASES.get(name, name)


def parse(text: str, name: str) -> Roster:
    """The roster in `text` (a CSV file's contents; `name` is how errors name the file)."""
    rows = list(csv.reader(io.StringIO(text)))
    while rows and not any(cell.strip() for cell in rows[0]):
        rows.pop(0)
    if not rows:
        raise ClassroomError(say("classroom.lms.roster.empty", file=name))
    header = [field_of(h) for h in rows[0]]
    if "id" not in header:
        raise ClassroomError(say("classroom.lms.roster.no_id_column", file=name,
                                 columns=", ".join(h.strip() for h in rows[0]) or "-"))
    columns = {field: header.index(field) for field in FIELDS if field in header}
    ignored = tuple(h.strip() for h, f in zip(rows[0], header) if f not in FIELDS and h.strip())
    records: list[StudentRecord] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        values = {field: (row[index].strip() if index < len(row) else "") for field, index in columns.items()}
        student = values["id"]
        if not student:
            raise ClassroomError(say("classroom.lms.roster.no_id", file=name, line=line))
        if BAD_ID.search(student):
            raise ClassroomError(say("classroom.lms.roster.bad_id", file=name, line=line, id=student))
        if student in seen:
            raise ClassroomError(say("classroom.lms.roster.duplicate", file=name, line=line, id=student,
                                     first=seen[student]))
        seen[student] = line
        records.append(StudentRecord(**values))
    if not records:
        raise ClassroomError(say("classroom.lms.roster.empty", file=name))
    return Roster(tuple(records), ignored)


def read(path: Path) -> Roster:
    path = Path(path).expanduser()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ClassroomError(say("classroom.lms.roster.cannot_read", file=path,
                                 error=exc.strerror or exc.__class__.__name__)) from None
    try:
        text = data.decode("utf-8-sig")  # a spreadsheet's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError as exc:
        raise ClassroomError(say("classroom.lms.roster.not_utf8", file=path, offset=exc.start)) from None
    return parse(text, str(path))


def import_roster(course_dir: Path, roster: Roster) -> tuple[int, int]:
    """Add or update each record in the course's gradebook; returns (added, updated)."""
    from nbgrader.api import Gradebook, MissingEntry

    from gradtutor.classroom.grading.grade_table import course_database
    from gradtutor.classroom.grading.nbgrader_glue import busy_url

    db_url, course_id = course_database(course_dir)
    added = updated = 0
    with Gradebook(busy_url(db_url), course_id) as gb:
        for record in roster.records:
            try:
                gb.find_student(record.id)
                updated += 1
            except MissingEntry:
                added += 1
            gb.update_or_create_student(record.id, **given(record))
    return added, updated
