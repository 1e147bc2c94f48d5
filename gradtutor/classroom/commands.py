"""The `gradtutor grade` and `gradtutor classroom init` commands: arguments, progress bar, result lines."""
from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from gradtutor import defaults
from gradtutor.errors import ClassroomError, UsageError
from gradtutor.classroom.lms import lms_commands
from gradtutor.classroom.feedback import serve
from gradtutor.messages import say

if TYPE_CHECKING:
    from gradtutor.classroom.grading.pool import Pool
    from gradtutor.classroom.grading.results import Course, SubmissionResult

# The grading modules load when a classroom verb runs: every `gradtutor` command builds these verbs'
# parsers, and a learner's `gradtutor check` should not pay for the grader's imports.


def add_verbs(verbs) -> None:
    """Register this module's verbs on the CLI's subparsers (each sets `func`)."""
    def helptext(name: str, **params) -> str:  # built with the parser, in the language chosen by then
        return say(f"classroom.help.{name}", **params).replace("%", "%%")  # argparse formats help with %

    p = verbs.add_parser("grade", help=helptext("grade"))
    p.add_argument("course", type=Path, metavar="COURSE_DIR", help=helptext("course"))
    p.add_argument("lesson", metavar="LESSON", help=helptext("lesson"))
    p.add_argument("--jobs", "-j", type=int, default=default_jobs(), metavar="N",
                   help=helptext("jobs", jobs=default_jobs()))
    p.add_argument("--student", action="append", metavar="ID", help=helptext("student"))
    p.add_argument("--force", action="store_true", help=helptext("force"))
    p.add_argument("--timeout", type=float, default=defaults.SUBMISSION_TIMEOUT, metavar="S",
                   help=helptext("timeout", seconds=f"{defaults.SUBMISSION_TIMEOUT:g}"))
    p.add_argument("--verbose", "-v", action="store_true", help=helptext("verbose"))
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help=helptext("scheduler"))
    p.add_argument("--report", type=Path, metavar="DIR", help=helptext("report"))
    lms_commands.add_export_option(p)
    p.set_defaults(func=cmd_grade)

    p = verbs.add_parser("classroom", help=helptext("classroom"))
    sub = p.add_subparsers(dest="classroom_verb", metavar="COMMAND", parser_class=type(p))
    init = sub.add_parser("init", help=helptext("init"))
    init.add_argument("folder", type=Path, metavar="DIR", help=helptext("folder"))
    init.add_argument("--course-id", default="gradtutor", metavar="ID", help=helptext("course_id"))
    init.set_defaults(func=cmd_classroom_init)
    lms_commands.add_roster_verb(sub)
    serve.add_serve_verb(sub)
    p.set_defaults(func=_classroom_usage)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def make_console():
    from rich.console import Console

    return Console(highlight=False)


def _classroom_usage(args) -> int:
    raise UsageError(say("classroom.init.choose_command"))


def cmd_classroom_init(args) -> int:
    console = make_console()
    from gradtutor.classroom.grading.course_folder import init_course
    from gradtutor.classroom.report.class_report import pad

    made = init_course(Path(args.folder), course_id=args.course_id)
    for path, what in made:
        console.print(f"  {pad(what, 22)} {path}")
    folder = Path(args.folder)
    console.print("\n" + say("classroom.init.secret", config=folder / "nbgrader_config.py"))
    console.print("\n" + say("classroom.init.next", folder=f"[bold]{folder}[/]") + "\n"
                  + say("classroom.init.steps", folder=folder, jobs=default_jobs()))
    return 0


def cmd_grade(args) -> int:
    if args.jobs < 1:
        raise UsageError(say("classroom.grade.jobs_at_least_1", jobs=args.jobs))
    if args.timeout <= 0:
        raise UsageError(say("classroom.grade.timeout_positive", seconds=f"{args.timeout:g}"))
    from rich.console import Console

    from gradtutor.classroom.report import report_files

    report_dir = report_files.prepare(args.report) if args.report else None  # before an hour of grading, not after
    exports = lms_commands.prepare_exports(args)
    console = Console(highlight=False, soft_wrap=True)  # one result line per notebook, never wrapped
    started = time.monotonic()
    results = grade(args.course, args.lesson, jobs=args.jobs, students=args.student, force=args.force,
                    timeout=args.timeout, console=console, verbose=args.verbose, scheduler=args.scheduler)
    _print_summary(console, args, results, time.monotonic() - started)
    _class_report(console, args, results, report_dir)
    lms_commands.write_exports(console, Path(args.course).expanduser().resolve(), exports)
    return 0 if all(r.graded or r.skipped for r in results) else 1


def _class_report(console, args, results: list[SubmissionResult], report_dir: Path | None) -> None:
    """The table of what the class got wrong, and with --report its files."""
    from gradtutor.classroom.report import report_files
    from gradtutor.classroom.report.class_report import summary_lines
    from gradtutor.classroom.grading.nbgrader_glue import assignment_name
    from gradtutor.classroom.report.report_collect import collect

    try:
        report = collect(Path(args.course).expanduser().resolve(), assignment_name(args.lesson), results)
    except Exception as exc:  # noqa: BLE001 - the grading is done and in the gradebook: say so, in one line
        raise ClassroomError(say("classroom.grade.report_failed", error=f"{exc.__class__.__name__}: {exc}")) from None
    console.print()
    for line in summary_lines(report):
        console.print(line, markup=False, highlight=False)  # student ids are the students' own text
    if report_dir is not None:
        try:
            report_files.write(report, report_dir)
        except OSError as exc:
            raise ClassroomError(say("classroom.grade.report_write_failed", folder=report_dir, error=exc)) from None
        console.print(say("classroom.grade.report_written", index=report_dir / "index.html") + "\n"
                      + say("classroom.grade.grades_written", grades=report_dir / "grades.csv"), markup=False)


def grade(course_dir: Path, lesson: str, jobs: int = 1, students: list[str] | None = None, force: bool = False,
          timeout: float = defaults.SUBMISSION_TIMEOUT, console=None, verbose: bool = False,
          scheduler: str | None = None) -> list[SubmissionResult]:
    """Autograde the lesson's submissions, `jobs` at a time (or on the Dask cluster at `scheduler`)."""
    console = console or make_console()
    course_dir = Path(course_dir).expanduser().resolve()
    if not course_dir.is_dir():
        raise ClassroomError(say("classroom.grade.no_course", folder=course_dir))
    from gradtutor.dev.release import tools_on_path

    tools_on_path()  # nbgrader shells out to `alembic` when it creates a gradebook
    from gradtutor.classroom.grading.gradebook import graded_before
    from gradtutor.classroom.coursedir.submissions import read_course
    from gradtutor.classroom.grading.nbgrader_glue import assignment_name, ensure_assignment
    from gradtutor.classroom.grading.pool import Pool
    from gradtutor.course.secret import require_secret
    from gradtutor.isolation import landlock

    if scheduler is not None:
        from gradtutor.classroom.cluster.distributed import check_address

        check_address(scheduler)  # a typo in the address is told before anything else
    require_secret(course_dir)  # before any worker starts: a course without one has no hidden inputs
    assignment = assignment_name(lesson)
    if scheduler is not None:
        return _grade_on_cluster(scheduler, course_dir, assignment, students, force, timeout, console, verbose)
    if landlock.abi_version() < 1:
        console.print(f"[yellow]{say('classroom.grade.note')}[/] {say('classroom.grade.no_landlock')}")
    planned = min(jobs, _count_new(course_dir, assignment, students, force))
    logs = Path(tempfile.mkdtemp(prefix="gradtutor-grade-"))
    # the workers load nbgrader (and their kernels' TensorFlow) while this process does; none for a re-run
    pool = Pool(course_dir, logs, planned, timeout) if planned else None
    try:
        with console.status(say("classroom.grade.reading", folder=course_dir)) if console.is_terminal else _nothing():
            course_info = read_course(course_dir, assignment, students)
        todo = sorted(course_info.submissions)
        before = {} if force else graded_before(course_info, assignment, todo)
        if len(before) < len(todo):
            pool = pool or Pool(course_dir, logs, 1, timeout)
            pool.resize(min(jobs, len(todo) - len(before)))
        ensure_assignment(course_info, assignment, console)
        return _run(pool, course_info, assignment, todo, before, force, console, verbose)
    finally:
        if pool is not None:
            pool.close()
        shutil.rmtree(logs, ignore_errors=True)


def _grade_on_cluster(scheduler: str, course_dir: Path, assignment: str, students: list[str] | None, force: bool,
                      timeout: float, console, verbose: bool) -> list[SubmissionResult]:
    """The same grading on a Dask cluster (gradtutor.classroom.cluster.distributed): only the tasks run elsewhere."""
    from gradtutor.classroom.cluster.distributed import Cluster
    from gradtutor.classroom.grading.gradebook import graded_before
    from gradtutor.classroom.coursedir.submissions import read_course
    from gradtutor.classroom.grading.nbgrader_glue import ensure_assignment

    cluster = Cluster(scheduler, timeout)
    try:
        course_info = cluster.info = read_course(course_dir, assignment, students)
        ensure_assignment(course_info, assignment, console)
        todo = sorted(course_info.submissions)
        before = {} if force else graded_before(course_info, assignment, todo)
        results = _run(cluster, course_info, assignment, todo, before, force, console, verbose)
    finally:
        cluster.close()
    for worker in cluster.unfenced():
        console.print(f"[yellow]{say('classroom.grade.note')}[/] {say('classroom.grade.unfenced', worker=worker)}")
    return results


def _count_new(course_dir: Path, assignment: str, students: list[str] | None, force: bool) -> int:
    """A first count of what is to grade in nbgrader's default layout (submitted/<student>/<lesson>/, not yet in
    autograded/ unless `force`), to size the pool early; nbgrader's own reading of the course decides."""
    found = [p for p in (course_dir / "submitted").glob(f"*/{assignment}") if any(p.glob("*.ipynb"))
             and (force or not (course_dir / "autograded" / p.parent.name / assignment).exists())]
    return len([p for p in found if p.parent.name in students] if students else found)


@contextmanager
def _nothing():
    yield


def _run(pool: "Pool | None", info: Course, assignment: str, todo: list[str], before: dict[str, SubmissionResult],
         force: bool, console, verbose: bool) -> list[SubmissionResult]:
    """Each of `todo` graded by `pool`, but those in `before` (graded before: their scores as they are)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from gradtutor.classroom.grading.gradebook import zero_submission, zeroed_notebooks
    from gradtutor.classroom.report.result_lines import result_lines

    width = max(len(s) for s in todo)
    results: dict[str, SubmissionResult] = {}
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn(f"[dim]{say('classroom.grade.elapsed')}"), TimeElapsedColumn(),
               TextColumn(f"[dim]{say('classroom.grade.left')}"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        where = say("classroom.grade.here", jobs=pool.size if pool is not None else 0)
        task = progress.add_task(say("classroom.grade.progress", assignment=assignment, where=where), total=len(todo))
        new = [student for student in todo if student not in before]
        for result in itertools.chain(before.values(), pool.grade(assignment, new, force) if new else ()):
            if result.stopped:  # killed after --timeout, or its worker died: nbgrader never finished it
                zero_submission(info, assignment, result.student)
                result.notebooks = zeroed_notebooks(info, assignment, result.student, result.problem)
            results[result.student] = result
            for line in result_lines(result, width, verbose):
                progress.console.print(line, highlight=False)
            progress.advance(task)
    return [results[s] for s in todo]


def _where(args) -> str:
    """How the submissions ran: on the Dask cluster (its scheduler's address) or `--jobs` at a time here."""
    scheduler = getattr(args, "scheduler", None)
    if scheduler:
        return say("classroom.grade.on_cluster", scheduler=scheduler)
    return say("classroom.grade.here", jobs=args.jobs)


def _print_summary(console, args, results: list[SubmissionResult], seconds: float) -> None:
    from gradtutor.classroom.grading.nbgrader_glue import assignment_name

    notebooks = [nb for r in results for nb in r.notebooks]
    broken = [r for r in results if not r.graded and not r.skipped]
    full = sum(nb.full_marks for nb in notebooks)
    summary = "classroom.grade.summary_" + ("one" if len(results) == 1 else "other")
    console.print("\n" + say(summary, count=len(results), seconds=f"{seconds:.0f}", where=_where(args), full=full,
                              notebooks=len(notebooks))
                  + (say("classroom.grade.broken", count=len(broken)) if broken else ""))
    console.print(say("classroom.grade.next", assignment=assignment_name(args.lesson)))
