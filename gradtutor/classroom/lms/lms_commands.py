"""The CLI side of grades to the LMS: `grade --export FORMAT FILE` and `classroom roster FILE.csv`."""
from __future__ import annotations

from pathlib import Path

from gradtutor.errors import ClassroomError
from gradtutor.messages import say


def add_export_option(parser) -> None:
    parser.add_argument("--export", nargs=2, action="append", metavar=("FORMAT", "FILE"), default=[],
                        help=say("classroom.lms.help.export").replace("%", "%%"))


def add_roster_verb(sub) -> None:
    roster = sub.add_parser("roster", help=say("classroom.lms.help.roster").replace("%", "%%"))
    roster.add_argument("file", type=Path, metavar="FILE.csv", help=say("classroom.lms.help.roster_file").replace("%", "%%"))
    roster.add_argument("--course", type=Path, default=Path("."), metavar="DIR", help=say("classroom.lms.help.roster_course").replace("%", "%%"))
    roster.set_defaults(func=cmd_roster)


def prepare_exports(args) -> list[tuple[str, Path]]:
    """Each --export checked (format known, file writable, every student matchable) before any grading starts."""
    from gradtutor.classroom.lms import lms_export

    exports = [(lms_export.check_format(fmt), lms_export.prepare(Path(file))) for fmt, file in args.export or []]
    check_matchable(args.course, args.lesson, args.student, exports)
    return exports


def check_matchable(course_dir: Path, lesson: str, students: list[str] | None,
                    exports: list[tuple[str, Path]]) -> None:
    """Before any grading: every student the exports will hold has what their LMS matches rows by.

    Those are the students with a grade in the gradebook and those about to be graded (a
    submission of this lesson, among --student's); a student not in the gradebook has nothing.
    Asked here, a missing id costs a second, not a class's grading.
    """
    from gradtutor.classroom.lms import lms_export

    formats = [fmt for fmt, _ in exports if fmt in lms_export.MATCHED_BY]
    course_dir = Path(course_dir).expanduser().resolve()
    if not formats or not (course_dir / "nbgrader_config.py").is_file():
        return  # nothing to match, or not a course folder: the grading's own checks say so
    from gradtutor.classroom.grading.grade_table import StudentRecord, read_table
    from gradtutor.classroom.coursedir.submissions import read_course
    from gradtutor.classroom.grading.nbgrader_glue import assignment_name
    from gradtutor.dev.release import tools_on_path

    tools_on_path()  # nbgrader shells out to `alembic` when it creates a gradebook
    about_to_grade = read_course(course_dir, assignment_name(lesson), students).submissions
    table = read_table(course_dir)
    records = {record.id: record for record in table.students}
    exported = sorted({student for student, _ in table.scores} | set(about_to_grade))
    for fmt in dict.fromkeys(formats):
        lms_export.require_matchable([records.get(s, StudentRecord(s)) for s in exported], fmt, graded=False)


def write_exports(console, course_dir: Path, exports: list[tuple[str, Path]]) -> None:
    if not exports:
        return
    from gradtutor.classroom.lms import lms_export
    from gradtutor.classroom.grading.grade_table import read_table

    try:
        table = read_table(course_dir)
    except Exception as exc:  # noqa: BLE001 - the grading is done: say in one line why no export
        raise ClassroomError(say("classroom.lms.export.failed", error=f"{exc.__class__.__name__}: {exc}")) from None
    for fmt, path in exports:
        try:
            count = lms_export.write(table, fmt, path)
        except OSError as exc:
            raise ClassroomError(say("classroom.lms.export.cannot_write", file=path,
                                     error=exc.strerror or exc.__class__.__name__)) from None
        console.print(say("classroom.lms.export.written", format=fmt, file=path, count=count), markup=False, highlight=False)


def cmd_roster(args) -> int:
    from rich.console import Console

    from gradtutor.classroom.lms import roster
    from gradtutor.dev.release import tools_on_path

    console = Console(highlight=False)
    course_dir = Path(args.course).expanduser().resolve()
    if not (course_dir / "nbgrader_config.py").is_file():
        raise ClassroomError(say("classroom.lms.roster.no_course", folder=course_dir))
    found = roster.read(args.file)  # the whole file is checked before the gradebook is touched
    tools_on_path()  # nbgrader shells out to `alembic` when it creates a gradebook
    added, updated = roster.import_roster(course_dir, found)
    if found.ignored:
        console.print(say("classroom.lms.roster.ignored", columns=", ".join(found.ignored)), markup=False)
    console.print(say("classroom.lms.roster.imported", course=course_dir, added=added, updated=updated), markup=False)
    return 0
