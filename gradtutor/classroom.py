"""Classroom autograding with nbgrader: `gradtutor classroom init` and `gradtutor grade`.

`gradtutor classroom init DIR` lays out an nbgrader course folder (its
`nbgrader_config.py` and `source/<lesson>/` from the notebooks this package
carries), so an instructor who only ran `pip install gradtutor[classroom]`
can go on with nbgrader's own commands.

`gradtutor grade COURSE_DIR LESSON --jobs N` autogrades every submission in
`submitted/<student>/<lesson>/` with nbgrader itself: N long-lived worker
processes each run nbgrader's `Autograde` converter (its preprocessors, its
kernel execution, its SQLite gradebook) for one student at a time, exactly as
`nbgrader autograde LESSON --student <id>` would, so the gradebook ends up as a
serial `nbgrader autograde LESSON` leaves it. The parent hands out students,
draws a progress bar, prints one result line per notebook and stops a worker
that runs past `--timeout` (the submission then scores 0).

nbgrader is imported only inside the functions here, so `gradtutor --help`
stays fast.
"""
from __future__ import annotations

import dataclasses
import json
import os
import queue
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

READY_TIMEOUT = 300.0  # a worker imports nbgrader (slow on a loaded machine) before its first job
DEFAULT_TIMEOUT = 900.0  # seconds one student's submission may take in all
SQLITE_BUSY_TIMEOUT = 120  # seconds a worker waits for another's gradebook write
KERNEL_START_FAILED = r"Error occurred while starting new kernel client|Kernel died before replying to kernel_info"

CONFIG_TEMPLATE = '''\
"""nbgrader configuration for a gradtutor course (made by `gradtutor classroom init`).

Run nbgrader's commands from this folder:
    nbgrader generate_assignment lesson1      source/lesson1/ -> release/lesson1/ (+ gradebook.db)
    gradtutor grade . lesson1 --jobs 4        autograde submitted/*/lesson1/ (or: nbgrader autograde lesson1)
    nbgrader generate_feedback lesson1        feedback/<student>/lesson1/lesson1.html
"""
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"

# Release notebooks carry no outputs.
c.ClearOutput.enabled = True

# Seconds one cell may run while autograding. A lesson's first check starts
# TensorFlow in a fresh process and each check may take up to 30 s of the
# learner's code, so keep this well above nbgrader's default of 30 s; a cell
# that runs longer (an infinite loop at the top level) is interrupted and its
# test scores 0.
c.Execute.timeout = {cell_timeout}
'''


# --------------------------------------------------------------------------- CLI


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
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"seconds one submission may take in all before it is stopped and scored 0 "
                        f"(default {DEFAULT_TIMEOUT:g}; nbgrader's Execute.timeout limits each cell)")
    p.add_argument("--verbose", "-v", action="store_true", help="also print the diagnosis of every lost point")
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


def _cli_error(message: str) -> Exception:
    from gradtutor.cli import CliError  # here, not at the top: cli imports this module

    return CliError(message)


def _console():
    from rich.console import Console

    return Console(highlight=False)


def _classroom_usage(args) -> int:
    raise _cli_error("choose a classroom command: `gradtutor classroom init DIR` (see `gradtutor classroom --help`)")


# --------------------------------------------------------------------------- classroom init


def cmd_classroom_init(args) -> int:
    console = _console()
    made = init_course(Path(args.folder), course_id=args.course_id)
    for path, what in made:
        console.print(f"  {what:<22} {path}")
    folder = Path(args.folder)
    console.print(f"\nThe course folder is [bold]{folder}[/]. Next, from inside it:\n"
                  f"  cd {folder}\n"
                  f"  nbgrader generate_assignment lesson1     # release/lesson1/lesson1.ipynb for the students\n"
                  f"  # collect submissions into submitted/<student>/lesson1/lesson1.ipynb, then\n"
                  f"  gradtutor grade . lesson1 --jobs {default_jobs()}\n"
                  f"  nbgrader generate_feedback lesson1")
    return 0


def init_course(folder: Path, course_id: str = "gradtutor", cell_timeout: int = 300) -> list[tuple[Path, str]]:
    """Create (or complete) an nbgrader course folder; never overwrites. Returns (path, what was done)."""
    from gradtutor import course

    if folder.exists() and not folder.is_dir():
        raise _cli_error(f"{folder} exists and is not a folder — choose another DIR")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", course_id):
        raise _cli_error(f"--course-id {course_id!r}: use letters, digits, '.', '_' or '-'")
    done: list[tuple[Path, str]] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "nbgrader_config.py"
        if config.exists():
            done.append((config, "kept (exists)"))
        else:
            config.write_text(CONFIG_TEMPLATE.format(course_id=course_id, cell_timeout=cell_timeout), encoding="utf-8")
            done.append((config, "wrote"))
        for lesson in course.load().lessons:
            source = lesson.source_notebook()
            target = folder / "source" / lesson.id / lesson.notebook
            if target.exists():
                done.append((target, "kept (exists)"))
                continue
            if not source.is_file():
                done.append((target, "skipped (not in this gradtutor)"))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            for extra in sorted(source.parent.iterdir()):  # data files a lesson ships beside its notebook
                if extra.is_file() and extra.name != lesson.notebook and not (target.parent / extra.name).exists():
                    shutil.copyfile(extra, target.parent / extra.name)
            shutil.copyfile(source, target)
            done.append((target, "copied"))
    except OSError as exc:
        raise _cli_error(f"cannot write the course folder {folder}: {exc.strerror or exc}") from None
    return done


# --------------------------------------------------------------------------- grade: the parent


@dataclasses.dataclass
class CellResult:
    id: str  # the grade cell's grade_id (check_<exercise>)
    score: float
    max_score: float
    status: str  # pass | fail | not_attempted | error | missing
    why: str = ""

    @property
    def exercise(self) -> str:
        return self.id[len("check_"):] if self.id.startswith("check_") else self.id


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


def cmd_grade(args) -> int:
    if args.jobs < 1:
        raise _cli_error(f"--jobs must be at least 1, not {args.jobs}")
    if args.timeout <= 0:
        raise _cli_error(f"--timeout must be more than 0 seconds, not {args.timeout:g}")
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)  # one result line per notebook, never wrapped
    started = time.monotonic()
    results = grade(args.course, args.lesson, jobs=args.jobs, students=args.student, force=args.force,
                    timeout=args.timeout, console=console, verbose=args.verbose)
    _print_summary(console, args, results, time.monotonic() - started)
    return 0 if all(r.graded or r.skipped for r in results) else 1


def grade(course_dir: Path, lesson: str, jobs: int = 1, students: list[str] | None = None, force: bool = False,
          timeout: float = DEFAULT_TIMEOUT, console=None, verbose: bool = False) -> list[SubmissionResult]:
    """Autograde the lesson's submissions, `jobs` at a time; return one result per student."""
    console = console or _console()
    course_dir = Path(course_dir).expanduser().resolve()
    if not course_dir.is_dir():
        raise _cli_error(f"{course_dir}: no such course folder — make one with `gradtutor classroom init DIR`")
    from gradtutor.release import tools_on_path

    tools_on_path()  # nbgrader shells out to `alembic` when it creates a gradebook
    assignment = _assignment_name(lesson)
    planned = min(jobs, max(1, _count_submissions(course_dir, assignment, students)))
    logs = Path(tempfile.mkdtemp(prefix="gradtutor-grade-"))
    pool = _Pool(course_dir, logs, planned, timeout)  # the workers load nbgrader while this process does
    try:
        with console.status(f"reading the course folder {course_dir}…") if console.is_terminal else _nothing():
            course_info = _read_course(course_dir, assignment, students)
        todo = sorted(course_info.submissions)
        pool.resize(min(jobs, len(todo)))
        _ensure_assignment(course_info, assignment, console)
        return _run(pool, course_info, assignment, todo, force, console, verbose)
    finally:
        pool.close()
        shutil.rmtree(logs, ignore_errors=True)


def _count_submissions(course_dir: Path, assignment: str, students: list[str] | None) -> int:
    """A first count in nbgrader's default layout (submitted/<student>/<lesson>/), to size the pool early."""
    found = [p for p in (course_dir / "submitted").glob(f"*/{assignment}") if any(p.glob("*.ipynb"))]
    if students:
        found = [p for p in found if p.parent.name in students]
    return len(found)


@contextmanager
def _nothing():
    yield


def _assignment_name(lesson: str) -> str:
    """The nbgrader assignment of a gradtutor lesson: its id (lesson3 for `3` or `softmax`)."""
    from gradtutor import course

    return course.load().lesson(lesson).id  # UnknownLesson lists the valid ones


@contextmanager
def _inside(folder: Path):
    """nbgrader reads nbgrader_config.py from the working directory, as when run from the course folder."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _nbgrader_api(kernels_over_ipc: bool = False):
    """NbGraderAPI configured exactly like an nbgrader command run in the current directory.

    `kernels_over_ipc`: talk to the kernels over Unix sockets instead of TCP ports
    (unless the course configures the transport). jupyter_client picks a free port
    and the kernel binds it a moment later; with several kernels starting at once
    on a busy machine another process can take the port in between, and the kernel
    dies while nbgrader blocks for ever sending to it. A socket path of this
    process's own cannot be taken. The transport does not change any score.
    """
    import logging

    from nbgrader.apps import NbGraderAPI
    from nbgrader.apps.baseapp import NbGrader

    app = NbGrader()
    app.initialize([])
    if kernels_over_ipc and "transport" not in app.config.KernelManager:
        app.config.KernelManager.transport = "ipc"
        # absolute, and one per worker: the kernel (running in the notebook's folder)
        # and nbgrader (in the course folder) must find the same socket files
        app.config.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"gradtutor-kernel-{os.getpid()}")
    api = NbGraderAPI(config=app.config)
    api.log.setLevel(logging.INFO)
    return api


def _read_course(course_dir: Path, assignment: str, students: list[str] | None) -> Course:
    with _inside(course_dir):
        api = _nbgrader_api()
        coursedir = api.coursedir
        root = Path(coursedir.root).resolve()
        pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
        regexp = coursedir.format_path(coursedir.submitted_directory, "(?P<student_id>[^/]+)", assignment, escape=True)
        found: dict[str, list[str]] = {}
        import glob

        for folder in sorted(glob.glob(pattern)):
            match = re.fullmatch(regexp, folder)
            if not match or not os.path.isdir(folder):
                continue
            notebooks = sorted(p.name for p in Path(folder).glob("*.ipynb"))
            if notebooks:
                found[match.group("student_id")] = notebooks
        source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment)).resolve()
        info = Course(root, coursedir.db_url, coursedir.course_id, source, found)
    if not source.is_dir():
        raise _cli_error(f"{source} does not exist — is {course_dir} an nbgrader course folder? "
                         "(`gradtutor classroom init DIR` makes one)")
    if students:
        missing = [s for s in students if s not in found]
        if missing:
            raise _cli_error(f"no submission of {assignment} from {', '.join(missing)} in "
                             f"{os.path.relpath(os.path.dirname(os.path.dirname(pattern)), course_dir)}/")
        info.submissions = {s: found[s] for s in students}
    if not info.submissions:
        where = os.path.relpath(pattern, course_dir)
        raise _cli_error(f"no submissions of {assignment} in {course_dir} (looked for {where}/*.ipynb) — "
                         "collect them first (`nbgrader collect`, `nbgrader zip_collect`, or copy them there)")
    return info


def _ensure_assignment(info: Course, assignment: str, console) -> None:
    """nbgrader autograde needs the assignment in the gradebook; generate_assignment puts it there."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(info.db_url, info.course_id) as gb:
        try:
            gb.find_assignment(assignment)
            return
        except MissingEntry:
            pass
    console.print(f"{assignment} is not in the gradebook yet: running `nbgrader generate_assignment {assignment}` first")
    with _inside(info.root):
        outcome = _nbgrader_api().generate_assignment(assignment, force=True)
    if not outcome.get("success"):
        last = (outcome.get("error") or outcome.get("log") or "").strip().splitlines()[-1:] or ["unknown error"]
        raise _cli_error(f"nbgrader generate_assignment {assignment} failed: {last[0]}")


def _run(pool: "_Pool", info: Course, assignment: str, todo: list[str], force: bool, console,
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
                _zero(info, assignment, result.student)
                result.notebooks = _zeroed_notebooks(info, assignment, result.student, result.problem)
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


def _points(value: float) -> str:
    return f"{value:g}"


def _print_summary(console, args, results: list[SubmissionResult], seconds: float) -> None:
    notebooks = [nb for r in results for nb in r.notebooks]
    broken = [r for r in results if not r.graded and not r.skipped]
    full = sum(nb.full_marks for nb in notebooks)
    console.print(f"\n{len(results)} submission{'s' * (len(results) != 1)} in {seconds:.0f} s "
                  f"({args.jobs} at a time): {full}/{len(notebooks)} notebooks with full marks"
                  + (f", {len(broken)} could not be autograded (scored 0)" if broken else ""))
    console.print("Scores are in the gradebook; next: "
                  f"`nbgrader generate_feedback {_assignment_name(args.lesson)}` "
                  "and `nbgrader export`")


# --------------------------------------------------------------------------- grade: the pool


class _Pool:
    """Worker processes that each run nbgrader's Autograde for one student at a time."""

    def __init__(self, course_dir: Path, logs: Path, size: int, timeout: float):
        self.course_dir = course_dir
        self.logs = logs
        self.timeout = timeout
        self.size = size
        self._workers: list[_Worker | None] = [_Worker(course_dir, logs / f"worker-{i}.log") for i in range(size)]
        self._count = size

    def resize(self, size: int) -> None:
        """As many workers as will have work (the first count may have missed a custom layout)."""
        size = max(1, size)
        while len(self._workers) > size:
            worker = self._workers.pop()
            if worker is not None:
                worker.close()
        while len(self._workers) < size:
            self._count += 1
            self._workers.append(_Worker(self.course_dir, self.logs / f"worker-{self._count}.log"))
        self.size = len(self._workers)

    def grade(self, assignment: str, students: list[str], force: bool):
        """Yield a SubmissionResult per student, as each finishes."""
        jobs: queue.Queue = queue.Queue()
        for student in students:
            jobs.put(student)
        done: queue.Queue = queue.Queue()

        lock = threading.Lock()

        def slot(index: int) -> None:
            while True:
                try:
                    student = jobs.get_nowait()
                except queue.Empty:
                    return
                worker = self._workers[index]
                if worker is None:  # the last one was stopped: a fresh one for this student
                    with lock:
                        self._count += 1
                        number = self._count
                    worker = self._workers[index] = _Worker(self.course_dir, self.logs / f"worker-{number}.log")
                try:
                    result = worker.grade(assignment, student, force, self.timeout)
                except Exception as exc:  # noqa: BLE001 - one broken submission never stops the batch
                    worker.kill()
                    result = SubmissionResult(student, graded=False, problem=f"gradtutor could not grade it ({exc})",
                                              stopped=True)
                if not worker.alive:  # killed after a timeout, or it died
                    worker.close()
                    self._workers[index] = None
                done.put(result)

        threads = [threading.Thread(target=slot, args=(i,), daemon=True) for i in range(len(self._workers))]
        for thread in threads:
            thread.start()
        for _ in students:
            yield done.get()
        for thread in threads:
            thread.join()

    def close(self) -> None:
        for worker in self._workers:
            if worker is not None:
                worker.close()


class _Worker:
    """One `python -c 'gradtutor.classroom._serve()'` process; its kernels are its children."""

    def __init__(self, course_dir: Path, log: Path):
        self.log = log
        env = dict(os.environ)  # the kernels inherit it, as they inherit nbgrader's
        env["PYTHONUNBUFFERED"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from gradtutor.classroom import _serve; _serve()", str(course_dir), str(log)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True,  # Ctrl-C reaches the parent, which stops the workers cleanly
        )
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._ready = False

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def grade(self, assignment: str, student: str, force: bool, timeout: float) -> SubmissionResult:
        if not self._ready:
            message = self._read(time.monotonic() + READY_TIMEOUT)
            if not message or not message.get("ready"):
                self.kill()
                return SubmissionResult(student, graded=False, problem="the grading process could not start nbgrader: "
                                        + (message or {}).get("error", self._log_tail() or "no reason given"), stopped=True)
            self._ready = True
        started = time.monotonic()  # the submission's time starts once nbgrader is loaded
        try:
            self.process.stdin.write((json.dumps({"assignment": assignment, "student": student, "force": force}) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            self.kill()
            return SubmissionResult(student, graded=False, problem="the grading process stopped unexpectedly", stopped=True)
        message = self._read(started + timeout)
        seconds = time.monotonic() - started
        if message is None:
            timed_out = self.alive
            self.kill()
            why = (f"grading took longer than --timeout {timeout:g} s and was stopped — scored 0" if timed_out
                   else "the grading process died (out of memory?) — scored 0")
            return SubmissionResult(student, graded=False, problem=why, seconds=seconds, stopped=True)
        result = SubmissionResult.from_json(message)
        result.seconds = seconds
        return result

    def _read(self, deadline: float) -> dict | None:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.alive and not self._selector.select(0):
                return None
            if not self._selector.select(min(remaining, 1.0)):
                continue
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            return None
        return message if isinstance(message, dict) else None

    def _log_tail(self) -> str:
        try:
            lines = [l for l in self.log.read_text(errors="replace").splitlines() if l.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def kill(self) -> None:
        """Stop the worker and everything it started (kernels run in sessions of their own)."""
        if self.process is None:
            return
        _kill_tree(self.process.pid)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for leftover in Path(tempfile.gettempdir()).glob(f"gradtutor-kernel-{self.process.pid}-*"):
            leftover.unlink(missing_ok=True)  # its kernel's sockets (see _nbgrader_api)

    def close(self) -> None:
        if self.process is None:
            return
        if self.alive:
            try:
                self.process.stdin.close()  # the worker ends after its current job
                self.process.wait(timeout=5 if self._ready else 0.1)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._selector.close()
        self.process = None


def _kill_tree(pid: int) -> None:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with ipykernel
        psutil = None
    victims = []
    if psutil is not None:
        try:
            victims = psutil.Process(pid).children(recursive=True)
        except psutil.Error:
            victims = []
    for process in [*victims]:
        try:
            process.kill()
        except Exception:  # noqa: BLE001 - gone already
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for process in victims:  # their own sessions: kernels, gradtutor's checker workers
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _zero(info: Course, assignment: str, student: str) -> None:
    """A submission whose grading was stopped: leave it as nbgrader leaves one it could not grade.

    Its grades exist, with no autograder score (so they count 0) and marked for manual
    grading; the half-written autograded copy is removed.
    """
    from nbgrader.api import Gradebook

    with Gradebook(_busy_url(info.db_url), info.course_id) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(assignment, student)
    autograded = info.root / "autograded" / student / assignment
    if autograded.is_dir():
        shutil.rmtree(autograded, ignore_errors=True)


def _zeroed_notebooks(info: Course, assignment: str, student: str, problem: str | None) -> list[NotebookResult]:
    from nbgrader.api import Gradebook

    with Gradebook(info.db_url, info.course_id) as gb:
        return _scores(gb, assignment, student, {}, {}, problem)


# --------------------------------------------------------------------------- grade: the worker


def _serve() -> None:
    """A grading worker: one job per stdin line, one JSON result per job on the protocol pipe."""
    course_dir, log = sys.argv[1], sys.argv[2]
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)  # nbgrader's logs and the kernels' start-up noise go to the log, never to the protocol
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(course_dir)
    os.environ["NBGRADER_EXECUTION"] = "autograde"  # what nbgrader sets around each run; constant here
    judge = _SharedJudge()  # its checker imports TensorFlow while nbgrader loads
    os.environ["GRADTUTOR_JUDGE"] = judge.path  # the kernels nbgrader starts inherit it
    try:
        api = _nbgrader_api(kernels_over_ipc=True)
        api.coursedir.db_url = _busy_url(api.coursedir.db_url)
    except BaseException as exc:  # noqa: BLE001
        protocol.write(json.dumps({"ready": False, "error": f"{exc.__class__.__name__}: {exc}"}) + "\n")
        return
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        started = time.monotonic()
        try:
            result = _grade_student(api, job["assignment"], job["student"], job["force"])
            judge.hang_up()
        except Exception as exc:  # noqa: BLE001 - report it; the parent scores the submission 0
            import traceback

            traceback.print_exc()
            result = {"student": job["student"], "graded": False,
                      "problem": f"gradtutor could not grade it: {exc.__class__.__name__}: {exc}"}
        result["seconds"] = time.monotonic() - started
        protocol.write(json.dumps(result) + "\n")
    judge.close()
    for leftover in Path(tempfile.gettempdir()).glob(f"gradtutor-kernel-{os.getpid()}-*"):  # the kernels' sockets
        leftover.unlink(missing_ok=True)


def _busy_url(db_url: str) -> str:
    """Workers write one gradebook: let SQLite wait for another's write instead of failing."""
    if db_url.startswith("sqlite:") and "?" not in db_url:
        return f"{db_url}?timeout={SQLITE_BUSY_TIMEOUT}"
    return db_url


def _grade_student(api, assignment: str, student: str, force: bool) -> dict:
    from nbgrader.api import Gradebook

    coursedir = api.coursedir
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
    autograded = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))
    if autograded.exists() and not force:
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            notebooks = _scores(gb, assignment, student, {}, {}, None)
        return {"student": student, "graded": False, "skipped": True, "notebooks": _plain(notebooks)}

    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        read_problems, tampering = _inspect_submission(gb, assignment, submitted)

    for attempt in (1, 2):
        print(f"===== autograde {assignment} {student} (attempt {attempt})", flush=True)
        outcome = api.autograde(assignment, student, force=True, create=True)
        log = outcome.get("log", "") + "\n" + outcome.get("error", "")
        print(log, flush=True)
        # A kernel that fails to start is the machine's fault, never the submission's: try once more.
        if outcome.get("success") or not re.search(KERNEL_START_FAILED, log):
            break
    problem = None if outcome.get("success") else _why_not_graded(log, read_problems)

    bypassed = _recheck(api, assignment, student, autograded) if outcome.get("success") else {}
    for name, cells_lost in bypassed.items():
        tampering.setdefault(name, []).append(
            f"check() bypassed? {', '.join(g[len('check_'):] for g in cells_lost)} passed in the kernel but "
            "fail out of it — scored 0, flagged for review")
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for notebook in gb.find_assignment(assignment).notebooks:
            if not (submitted / f"{notebook.name}.ipynb").exists():
                tampering.setdefault(notebook.name, []).append("no such notebook in the submission")
        cells = _cell_outcomes(autograded) if outcome.get("success") else {}
        for name, cells_lost in bypassed.items():
            for grade_id, why in cells_lost.items():
                cells.setdefault(name, {})[grade_id] = ("fail", f"passed in the kernel, fails out of it: {why}")
        notebooks = _scores(gb, assignment, student, cells, tampering, problem)  # read problems are in `problem`
    return {"student": student, "graded": bool(outcome.get("success")), "problem": problem,
            "notebooks": _plain(notebooks)}


# --------------------------------------------------------------------------- grade: the re-check
#
# A test cell calls gradtutor's check() inside the student's kernel, after the
# student's own cells ran there; code in those cells can replace check() (or
# what it relies on) so that every test passes. nbgrader cannot see that. So
# when a notebook holds code that does more than define functions — code that
# could have reached check() — every exercise nbgrader scored full is checked
# again out of the kernel, by gradtutor's engine, on the same cells the kernel
# had run when the test cell ran. An answer that fails there is scored 0 and
# flagged for the instructor (needs manual grading), with a comment saying why.

_checker = None  # one warm checker per grading worker: the shared judge's, also used by the re-check
_checker_lock = threading.Lock()  # a Checker runs one check at a time


def _recheck(api, assignment: str, student: str, autograded: Path) -> dict[str, dict[str, str]]:
    """Re-check the full-score exercises of notebooks with untrusted top-level code.

    Returns, per notebook, the grade cells now scored 0 and why.
    """
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    from gradtutor import course

    try:
        lesson = course.load().lesson(assignment)
    except course.UnknownLesson:
        return {}  # not one of gradtutor's lessons: nothing to re-check against
    coursedir = api.coursedir
    found: dict[str, dict[str, str]] = {}
    for path in sorted(autograded.glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - nbgrader wrote it; if it cannot be read there is nothing to re-check
            continue
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            try:
                notebook = gb.find_submission_notebook(path.stem, assignment, student)
            except MissingEntry:
                continue
            full = [g.name for g in notebook.grades if g.max_score and (g.auto_score or 0) >= g.max_score]
        untrusted = _untrusted_cells(nb, _trusted_sources(coursedir, assignment, path.name), path.parent)
        if not untrusted or not full:
            continue
        sources = [cell.source for cell in nb.cells if cell.cell_type == "code"]
        for grade_id in full:
            exercise = next((e for e in lesson.exercises if f"check_{e.id}" == grade_id), None)
            position = next((i for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code")
                             if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id), None)
            if exercise is None or position is None:
                continue
            verdict = _engine_verdict(lesson, exercise, sources[: position + 1])
            if verdict.status == "pass":
                continue
            # the engine words a failure on a hidden input without the reference's values
            why = verdict.message.splitlines()[0] if verdict.message else verdict.status
            comment = (f"gradtutor: {exercise.function}() passed inside the notebook, but not when checked outside "
                       f"its kernel ({why}). Code in {', '.join(untrusted[:3])} can change what check() does, "
                       f"so this exercise scores 0 until an instructor reviews it.")
            with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
                grade = gb.find_grade(grade_id, path.stem, assignment, student)
                grade.auto_score = 0
                grade.needs_manual_grade = True
                try:
                    gb.find_comment(exercise.id, path.stem, assignment, student).auto_comment = comment
                except MissingEntry:
                    pass
                gb.db.commit()
            found.setdefault(path.stem, {})[grade_id] = why
    return found


def _warm_checker():
    global _checker
    from gradtutor.engine import Checker

    class GradingChecker(Checker):
        def prepare(self, lesson, seeds: str = "all") -> None:
            """No child waiting with every exercise's inputs built: while grading, the next check comes
            at once, and building all of a lesson's inputs after each check only takes CPU from the
            kernels. (Preparing saves a learner waiting time; it never changes a verdict.)"""

    if _checker is None:
        _checker = GradingChecker()
    return _checker


def _engine_verdict(lesson, exercise, sources: list[str]):
    from gradtutor import extract

    cells = extract.cells_from_sources(sources, "notebook cell")
    with _checker_lock:
        return _warm_checker().check_cells(lesson, cells, [exercise], "all", "the submitted notebook").exercises[0]


class _SharedJudge:
    """gradtutor.judge's answers, from one warm checker, for every kernel this worker runs.

    A kernel's check() finds it through GRADTUTOR_JUDGE (see gradtutor.notebook.SharedJudgeClient)
    and asks exactly what it would ask a judge process of its own; the answers come from
    the same code (gradtutor.judge), so the verdicts are the same — only the TensorFlow
    import and the reference answers are not paid again for every submission.
    """

    def __init__(self):
        import socket

        self.folder = tempfile.mkdtemp(prefix="gradtutor-judge-")  # mode 0700: this user's kernels only
        self.path = os.path.join(self.folder, "judge.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(8)
        self._connections: set = set()
        self._lock = threading.Lock()
        with _checker_lock:
            _warm_checker()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with self._lock:
                self._connections.add(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def hang_up(self) -> None:
        """After each submission: whatever its kernel left behind cannot ask on a later student's time."""
        import socket

        with self._lock:
            connections, self._connections = self._connections, set()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _serve(self, connection) -> None:
        from gradtutor.judge import answer

        with connection, connection.makefile("rw", encoding="utf-8", newline="\n") as stream:
            try:
                for line in stream:
                    if not line.strip():
                        continue
                    with _checker_lock:
                        try:
                            reply = answer(_warm_checker(), line)
                        except Exception as exc:  # noqa: BLE001 - one bad request never stops the judge
                            reply = {"problem": f"the checker failed: {exc.__class__.__name__}"}
                    stream.write(json.dumps(reply) + "\n")
                    stream.flush()
            except (OSError, ValueError):
                return  # the kernel went away

    def close(self) -> None:
        self.hang_up()
        try:
            self.server.close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            if _checker is not None:
                _checker.close()


def _trusted_sources(coursedir, assignment: str, notebook: str) -> set[str]:
    """The code cells the course itself wrote: the release and source versions of the notebook."""
    import nbformat

    trusted: set[str] = set()
    for step in (coursedir.release_directory, coursedir.source_directory):
        path = Path(coursedir.format_path(step, ".", assignment)) / notebook
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - a missing release: every changed cell counts as the student's
            continue
        trusted.update(_normalised(cell.source) for cell in nb.cells if cell.cell_type == "code")
    return trusted


def _untrusted_cells(nb, trusted: set[str], folder: Path) -> list[str]:
    """Labels of the student's code cells that run more than definitions at the top level."""
    found = []
    number = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        number += 1
        if _normalised(cell.source) in trusted or _only_definitions(cell.source, folder):
            continue
        found.append(f"cell {number}")
    return found


def _only_definitions(source: str, folder: Path) -> bool:
    """Does running this cell only define things (no decorators, no calls, no magics, no local modules)?"""
    import ast

    if any(line.lstrip().startswith(("%", "!")) for line in source.splitlines()):
        return False
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True  # the kernel runs none of it
    local = {p.stem for p in folder.iterdir()} if folder.is_dir() else set()

    def simple(node) -> bool:  # evaluated when the def runs: annotations and defaults
        if node is None or isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Attribute):
            return simple(node.value)
        if isinstance(node, ast.Subscript):
            return simple(node.value) and simple(node.slice)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(simple(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return isinstance(node.operand, ast.Constant)
        return False

    for node in tree.body:
        if isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] in local for alias in node.names):
                return False
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] in local:
                return False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + \
                [a for a in (arguments.vararg, arguments.kwarg) if a]
            if node.decorator_list or not simple(node.returns) or not all(simple(a.annotation) for a in every) \
                    or not all(simple(d) for d in arguments.defaults + [d for d in arguments.kw_defaults if d]):
                return False
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        elif isinstance(node, ast.Pass):
            continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                return False
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return False
        else:
            return False
    return True


def _plain(notebooks: list[NotebookResult]) -> list[dict]:
    return [dataclasses.asdict(nb) for nb in notebooks]


def _inspect_submission(gb, assignment: str, submitted: Path) -> tuple[dict, dict]:
    """Problems visible before running anything: unreadable files, deleted or edited test cells."""
    import nbformat

    read_problems: dict[str, list[str]] = {}
    tampering: dict[str, list[str]] = {}
    for notebook in gb.find_assignment(assignment).notebooks:
        path = submitted / f"{notebook.name}.ipynb"
        if not path.exists():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            json.loads(text)
        except (OSError, UnicodeDecodeError) as exc:
            read_problems[notebook.name] = [f"unreadable file ({exc.__class__.__name__})"]
            continue
        except json.JSONDecodeError as exc:
            read_problems[notebook.name] = [f"corrupt notebook: not valid JSON (line {exc.lineno}: {exc.msg})"]
            continue
        try:
            nb = nbformat.reads(text, as_version=4)
        except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
            read_problems[notebook.name] = [f"not a Jupyter notebook nbgrader can read ({exc.__class__.__name__})"]
            continue
        submitted_cells = {}
        for cell in nb.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id:
                submitted_cells[grade_id] = cell
        found = []
        for source_cell in notebook.source_cells:
            grade_cell = next((g for g in notebook.grade_cells if g.name == source_cell.name), None)
            if grade_cell is None or not source_cell.locked:
                continue
            cell = submitted_cells.get(source_cell.name)
            if cell is None:
                found.append(f"test cell {source_cell.name} deleted — scored 0")
            elif _normalised(_release_form(cell.source)) != _normalised(_release_form(source_cell.source)):
                found.append(f"test cell {source_cell.name} edited — graded with the original")
        if found:
            tampering[notebook.name] = found
    return read_problems, tampering


def _release_form(source: str) -> str:
    """A test cell as learners get it: nbgrader's ClearHiddenTests drops the hidden region."""
    return re.sub(r"(?ms)^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[ \t]*\n?", "", source)


def _normalised(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _cell_outcomes(autograded: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """notebook -> grade_id -> (status, first line of why), read from nbgrader's autograded copies."""
    import nbformat

    outcomes: dict[str, dict[str, tuple[str, str]]] = {}
    for path in sorted(autograded.glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001
            continue
        cells = outcomes.setdefault(path.stem, {})
        for cell in nb.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
                cells[grade_id] = _cell_verdict(cell)
    return outcomes


def _cell_verdict(cell) -> tuple[str, str]:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", ""), str(output.get("evalue", ""))
            first = value.strip().splitlines()[0] if value.strip() else ""
            if name == "CheckFailed":
                if "not attempted" in first:
                    return "not_attempted", first
                if "did not finish within" in first or "ended the process" in first or "raised" in first:
                    return "error", first
                return "fail", first
            if name == "CellTimeoutError" or "timeout" in name.lower():
                return "error", "the cell ran past nbgrader's Execute.timeout (an infinite loop?) and was interrupted"
            if name == "NameError":
                return "error", f"NameError: {first} (renamed or deleted?)"
            return "error", f"{name}: {first}"
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return "error", "the cell wrote to stderr, which nbgrader scores 0: " + str(output.get("text", "")).strip()[:120]
    return "pass", ""


def _why_not_graded(log: str, read_problems: dict) -> str:
    for problems in read_problems.values():
        if problems:
            return problems[0] + " — scored 0"
    if re.search(r"DeadKernelError|Kernel died|kernel died", log):
        return "the kernel died while running the notebook (os._exit, a crash or out of memory) — scored 0"
    if "UnresponsiveKernel" in log or "kernel became unresponsive" in log:
        return "the kernel stopped responding (an infinite loop that ignores interrupts?) — scored 0"
    errors = [line for line in log.splitlines() if line.strip() and not line.startswith((" ", "\t", "[INFO]", "[WARNING]"))]
    last = errors[-1].strip() if errors else "nbgrader failed"
    return f"nbgrader could not autograde it ({last[:200]}) — scored 0"


def _scores(gb, assignment: str, student: str, cells: dict, problems: dict, problem: str | None) -> list[NotebookResult]:
    """Per notebook, the gradebook's scores, with what the autograded copy says about each lost point."""
    from nbgrader.api import MissingEntry

    results = []
    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:
        return results
    for notebook in sorted(submission.notebooks, key=lambda n: n.name):
        outcomes = cells.get(notebook.name, {})
        order = {name: index for index, name in enumerate(outcomes)}  # the notebook's order, when it ran
        cell_results = []
        for grade in sorted(notebook.grades, key=lambda g: (order.get(g.name, len(order)), g.name)):
            status, why = outcomes.get(grade.name, ("missing" if cells else "error", problem or ""))
            score = float(grade.score or 0)
            if status == "pass" and score < float(grade.max_score):
                status, why = "fail", "scored below full marks"
            cell_results.append(CellResult(grade.name, score, float(grade.max_score), status, why))
        found = list(problems.get(notebook.name, []))
        results.append(NotebookResult(student, f"{notebook.name}.ipynb", float(notebook.score or 0),
                                      float(notebook.max_score or 0), cell_results, found))
    return results
