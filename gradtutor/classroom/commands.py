"""The `gradtutor grade` and `gradtutor classroom init` commands: arguments, progress bar, result lines."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from gradtutor import defaults
from gradtutor.errors import ClassroomError, UsageError
from gradtutor.classroom.course_folder import init_course
from gradtutor.classroom.gradebook import zero_submission, zeroed_notebooks
from gradtutor.classroom.nbgrader_glue import assignment_name, ensure_assignment, read_course
from gradtutor.classroom.pool import Pool
from gradtutor.classroom.results import Course, NotebookResult, SubmissionResult
from gradtutor.isolation import landlock


def add_verbs(verbs) -> None:
    """Register this module's verbs on the CLI's subparsers (each sets `func`)."""
    p = verbs.add_parser("grade", help="autograde every submission of a lesson with nbgrader, N at a time")
    p.add_argument("course", type=Path, metavar="COURSE_DIR",
                   help="the nbgrader course folder (with nbgrader_config.py and submitted/)")
    p.add_argument("lesson", metavar="LESSON", help="lesson id, number or slug (lesson3, 3, softmax)")
    p.add_argument("--jobs", "-j", type=int, default=default_jobs(), metavar="N",
                   help=f"submissions graded at the same time (default: {default_jobs()}, the CPUs here)")
    p.add_argument("--student", action="append", metavar="ID",
                   help="grade only this student (repeat for several)")
    p.add_argument("--force", action="store_true", help="grade again submissions that are already autograded")
    p.add_argument("--timeout", type=float, default=defaults.SUBMISSION_TIMEOUT, metavar="S",
                   help=f"seconds one submission may take in all before it is stopped and scored 0 "
                        f"(default {defaults.SUBMISSION_TIMEOUT:g}; nbgrader's Execute.timeout limits each cell)")
    p.add_argument("--verbose", "-v", action="store_true", help="also print the diagnosis of every lost point")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="grade on a Dask cluster: the address `dask scheduler` prints (--jobs is then the workers')")
    p.add_argument("--report", type=Path, metavar="DIR",
                   help="also write the class report there: index.html, summary.csv, grades.csv (for an LMS), "
                        "similar.csv and students/<id>.html")
    p.set_defaults(func=cmd_grade)

    p = verbs.add_parser("classroom", help="set up an nbgrader course folder for the lessons (instructors)")
    sub = p.add_subparsers(dest="classroom_verb", metavar="COMMAND", parser_class=type(p))
    init = sub.add_parser("init", help="make DIR an nbgrader course: nbgrader_config.py and source/<lesson>/")
    init.add_argument("folder", type=Path, metavar="DIR", help="the course folder to create or complete")
    init.add_argument("--course-id", default="gradtutor", metavar="ID", help="nbgrader course id (default gradtutor)")
    init.set_defaults(func=cmd_classroom_init)
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
    raise UsageError("choose a classroom command: `gradtutor classroom init DIR` (see `gradtutor classroom --help`)")


def cmd_classroom_init(args) -> int:
    console = make_console()
    made = init_course(Path(args.folder), course_id=args.course_id)
    for path, what in made:
        console.print(f"  {what:<22} {path}")
    folder = Path(args.folder)
    console.print(f"\n{folder / 'nbgrader_config.py'} holds the course's secret, which its hidden test inputs "
                  "come from: keep it out of everything students get.")
    console.print(f"\nThe course folder is [bold]{folder}[/]. Next, from inside it:\n"
                  f"  cd {folder}\n"
                  f"  nbgrader generate_assignment lesson1     # release/lesson1/lesson1.ipynb for the students\n"
                  f"  # collect submissions into submitted/<student>/lesson1/lesson1.ipynb, then\n"
                  f"  gradtutor grade . lesson1 --jobs {default_jobs()}\n"
                  f"  nbgrader generate_feedback lesson1")
    return 0


def cmd_grade(args) -> int:
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.timeout <= 0:
        raise UsageError(f"--timeout must be more than 0 seconds, not {args.timeout:g}")
    from rich.console import Console

    from gradtutor.classroom import report_files

    report_dir = report_files.prepare(args.report) if args.report else None  # before an hour of grading, not after
    console = Console(highlight=False, soft_wrap=True)  # one result line per notebook, never wrapped
    started = time.monotonic()
    results = grade(args.course, args.lesson, jobs=args.jobs, students=args.student, force=args.force,
                    timeout=args.timeout, console=console, verbose=args.verbose, scheduler=args.scheduler)
    _print_summary(console, args, results, time.monotonic() - started)
    _class_report(console, args, results, report_dir)
    return 0 if all(r.graded or r.skipped for r in results) else 1


def _class_report(console, args, results: list[SubmissionResult], report_dir: Path | None) -> None:
    """The table of what the class got wrong, and with --report its files."""
    from gradtutor.classroom import report_files
    from gradtutor.classroom.report import summary_lines
    from gradtutor.classroom.report_collect import collect

    try:
        report = collect(Path(args.course).expanduser().resolve(), assignment_name(args.lesson), results)
    except Exception as exc:  # noqa: BLE001 - the grading is done and in the gradebook: say so, in one line
        raise ClassroomError(f"the class report could not be made ({exc.__class__.__name__}: {exc}) — the scores "
                             "are in the gradebook") from None
    console.print()
    for line in summary_lines(report):
        console.print(line, markup=False, highlight=False)  # student ids are the students' own text
    if report_dir is not None:
        try:
            report_files.write(report, report_dir)
        except OSError as exc:
            raise ClassroomError(f"--report {report_dir}: writing the report failed ({exc}) — the scores are "
                                 "in the gradebook; run again with --report naming another folder") from None
        console.print(f"Class report: {report_dir / 'index.html'}\nGrades for an LMS: {report_dir / 'grades.csv'}",
                      markup=False)


def grade(course_dir: Path, lesson: str, jobs: int = 1, students: list[str] | None = None, force: bool = False,
          timeout: float = defaults.SUBMISSION_TIMEOUT, console=None, verbose: bool = False,
          scheduler: str | None = None) -> list[SubmissionResult]:
    """Autograde the lesson's submissions, `jobs` at a time (or on the Dask cluster at `scheduler`)."""
    console = console or make_console()
    course_dir = Path(course_dir).expanduser().resolve()
    if not course_dir.is_dir():
        raise ClassroomError(f"{course_dir}: no such course folder — make one with `gradtutor classroom init DIR`")
    from gradtutor.release import tools_on_path

    tools_on_path()  # nbgrader shells out to `alembic` when it creates a gradebook
    from gradtutor.course_secret import require_secret

    if scheduler is not None:
        from gradtutor.classroom.distributed import check_address

        check_address(scheduler)  # a typo in the address is told before anything else
    require_secret(course_dir)  # before any worker starts: a course without one has no hidden inputs
    assignment = assignment_name(lesson)
    if scheduler is not None:
        return _grade_on_cluster(scheduler, course_dir, assignment, students, force, timeout, console, verbose)
    if landlock.abi_version() < 1:
        console.print("[yellow]note:[/] this Linux kernel has no Landlock, so the notebooks' own code runs with your "
                      "rights while they are graded (see Security in the instructor guide)")
    planned = min(jobs, max(1, _count_submissions(course_dir, assignment, students)))
    logs = Path(tempfile.mkdtemp(prefix="gradtutor-grade-"))
    pool = Pool(course_dir, logs, planned, timeout)  # the workers load nbgrader while this process does
    try:
        with console.status(f"reading the course folder {course_dir}…") if console.is_terminal else _nothing():
            course_info = read_course(course_dir, assignment, students)
        todo = sorted(course_info.submissions)
        pool.resize(min(jobs, len(todo)))
        ensure_assignment(course_info, assignment, console)
        return _run(pool, course_info, assignment, todo, force, console, verbose)
    finally:
        pool.close()
        shutil.rmtree(logs, ignore_errors=True)


def _grade_on_cluster(scheduler: str, course_dir: Path, assignment: str, students: list[str] | None, force: bool,
                      timeout: float, console, verbose: bool) -> list[SubmissionResult]:
    """The same grading on a Dask cluster (gradtutor.classroom.distributed): only the tasks run elsewhere."""
    from gradtutor.classroom.distributed import Cluster

    cluster = Cluster(scheduler, timeout)
    try:
        course_info = cluster.info = read_course(course_dir, assignment, students)
        ensure_assignment(course_info, assignment, console)
        results = _run(cluster, course_info, assignment, sorted(course_info.submissions), force, console, verbose)
    finally:
        cluster.close()
    for worker in cluster.unfenced():
        console.print(f"[yellow]note:[/] the Dask worker {worker} could fence learner code off the network neither "
                      "with Landlock nor with a network namespace (see Security in the instructor guide)")
    return results


def _count_submissions(course_dir: Path, assignment: str, students: list[str] | None) -> int:
    """A first count in nbgrader's default layout (submitted/<student>/<lesson>/), to size the pool early."""
    found = [p for p in (course_dir / "submitted").glob(f"*/{assignment}") if any(p.glob("*.ipynb"))]
    if students:
        found = [p for p in found if p.parent.name in students]
    return len(found)


@contextmanager
def _nothing():
    yield


def _run(pool: "Pool", info: Course, assignment: str, todo: list[str], force: bool, console,
         verbose: bool) -> list[SubmissionResult]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    width = max(len(s) for s in todo)
    results: dict[str, SubmissionResult] = {}
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("[dim]elapsed"), TimeElapsedColumn(), TextColumn("[dim]left"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"grading {assignment} ({pool.size} at a time)", total=len(todo))
        for result in pool.grade(assignment, todo, force):
            if result.stopped:  # killed after --timeout, or its worker died: nbgrader never finished it
                zero_submission(info, assignment, result.student)
                result.notebooks = zeroed_notebooks(info, assignment, result.student, result.problem)
            results[result.student] = result
            for line in _result_lines(result, width, verbose):
                progress.console.print(line, highlight=False)
            progress.advance(task)
    return [results[s] for s in todo]


def _result_lines(result: SubmissionResult, width: int, verbose: bool) -> list[str]:
    from rich.markup import escape

    lines = []
    if result.skipped:
        for nb in result.notebooks:
            lines.append(f"[dim]= {escape(result.student):<{width}}  {escape(nb.notebook)}  "
                         f"{_points(nb.score)}/{_points(nb.max_score)}  already autograded (--force grades it again)[/]")
        return lines
    if not result.notebooks:
        return [f"[yellow]! {escape(result.student):<{width}}  (no notebook)  0  {escape(result.problem or 'not graded')}[/]"]
    for nb in result.notebooks:
        problems = list(nb.problems)
        if result.problem and result.problem not in problems:
            problems.insert(0, result.problem)
        if problems:
            mark, colour = "!", "yellow"
        elif nb.full_marks:
            mark, colour = "✓", "green"
        else:
            mark, colour = "✗", "red"
        summary = "; ".join(problems + ([] if result.problem else _lost_points(nb)))
        line = (f"[{colour}]{mark}[/] {escape(result.student):<{width}}  {escape(nb.notebook)}  "
                f"[{colour}]{_points(nb.score)}/{_points(nb.max_score)}[/]")
        if summary:
            line += "  " + escape(summary)
        if verbose:
            line += f"  [dim]({result.seconds:.0f} s)[/]"
        lines.append(line)
        if verbose and not result.problem:
            for cell in nb.cells:
                if cell.score < cell.max_score and cell.why:
                    lines.append(f"    [dim]{escape(cell.exercise)}:[/] {escape(cell.why)}")
    return lines


def _lost_points(nb: NotebookResult) -> list[str]:
    groups: dict[str, list[str]] = {}
    labels = {"not_attempted": "not attempted", "fail": "wrong", "error": "error", "missing": "no test cell"}
    for cell in nb.cells:
        if cell.score < cell.max_score and cell.status != "missing":
            groups.setdefault(labels.get(cell.status, cell.status), []).append(cell.exercise)
    return [f"{label}: {', '.join(names)}" for label, names in groups.items()]


def _where(args) -> str:
    """How the submissions ran: on the Dask cluster (its scheduler's address) or `--jobs` at a time here."""
    scheduler = getattr(args, "scheduler", None)
    return f"on the Dask cluster at {scheduler}" if scheduler else f"{args.jobs} at a time"


def _points(value: float) -> str:
    return f"{value:g}"


def _print_summary(console, args, results: list[SubmissionResult], seconds: float) -> None:
    notebooks = [nb for r in results for nb in r.notebooks]
    broken = [r for r in results if not r.graded and not r.skipped]
    full = sum(nb.full_marks for nb in notebooks)
    console.print(f"\n{len(results)} submission{'s' * (len(results) != 1)} in {seconds:.0f} s "
                  f"({_where(args)}): {full}/{len(notebooks)} notebooks with full marks"
                  + (f", {len(broken)} could not be autograded (scored 0)" if broken else ""))
    console.print("Scores are in the gradebook; next: "
                  f"`nbgrader generate_feedback {assignment_name(args.lesson)}` "
                  "and `nbgrader export`")
