"""`gradtutor classroom serve COURSE`: feedback at the moment of submission, beside nbgrader's exchange.

A plain process run by the instructor (or as a JupyterHub service) next to the hub. Every
`--poll` seconds it lists the exchange's inbound/; each new submission of a course lesson
is checked on the visible inputs by one warm checker (TensorFlow imported once, a child
ready for the next check) or, with --scheduler, on the Dask cluster, and its page is put
where the student's Assignments tab fetches feedback for that submission (exchange.py).
A submission that cannot be read gets a page saying why. Past `--limit` checks per
student per hour, the page says when the next check comes: the checker must not become
an answer oracle. The counts are kept in COURSE/.gradtutor-serve.json, so a restart
does not reset them. A submission that already has a page is never checked again.
"""
from __future__ import annotations

import faulthandler
import json
import os
import signal
import time
from datetime import datetime
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.classroom.feedback import exchange as ex
from gradtutor.errors import ClassroomError, UnreadableFile, UsageError
from gradtutor.messages import say
from gradtutor import stopping

HOUR = 3600.0
STATE_FILE = ".gradtutor-serve.json"


def add_serve_verb(sub) -> None:
    p = sub.add_parser("serve", help=say("classroom.serve.help.serve").replace("%", "%%"))
    p.add_argument("course", type=Path, metavar="COURSE_DIR", help=say("classroom.serve.help.course").replace("%", "%%"))
    p.add_argument("--limit", type=int, default=10, metavar="N", help=say("classroom.serve.help.limit").replace("%", "%%"))
    p.add_argument("--poll", type=float, default=1.0, metavar="S", help=say("classroom.serve.help.poll").replace("%", "%%"))
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help=say("classroom.serve.help.scheduler").replace("%", "%%"))
    p.add_argument("--once", action="store_true", help=say("classroom.serve.help.once").replace("%", "%%"))
    p.set_defaults(func=cmd_serve)


class Limiter:
    """At most `per_hour` checks per student in any hour, counted in a file that outlives the process."""

    def __init__(self, path: Path, per_hour: int):
        self.path, self.per_hour = path, per_hour
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            self.checks = {str(k): [float(t) for t in v] for k, v in loaded.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            self.checks = {}

    def recent(self, student: str, now: float) -> list[float]:
        return [t for t in self.checks.get(student, []) if now - t < HOUR]

    def allows(self, student: str, now: float) -> tuple[bool, int, float]:
        """(may check now, checks in the last hour, when the next check is possible)."""
        recent = self.recent(student, now)
        if len(recent) < self.per_hour:
            return True, len(recent), now
        return False, len(recent), min(recent) + HOUR

    def record(self, student: str, now: float) -> None:
        self.checks[student] = self.recent(student, now) + [now]
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(self.checks), encoding="utf-8")
        os.replace(temporary, self.path)


class LocalChecks:
    """One warm checker in this process's worker: visible inputs only, the course's files out of reach."""

    def __init__(self, course_dir: Path, exchange: ex.Exchange):
        from gradtutor.checking.checker import Checker

        hide = [str(p) for p in (course_dir / "nbgrader_config.py", course_dir / "gradebook.db", exchange.root,
                                 *(course_dir / d for d in ("source", "release", "submitted", "autograded",
                                                            "feedback"))) if p.exists()]
        self.checker = Checker(prepare_next=True, hide=hide)

    def warm(self, lessons) -> None:
        """References computed and a child ready before the first student submits (TensorFlow imported)."""
        for lesson in lessons:
            self.checker.prepare(lesson, "visible")

    def page(self, lesson, cells, timestamp: str) -> tuple[str, str]:
        from gradtutor.classroom.feedback import instant_feedback as pages

        return pages.verdict_page(self.checker, lesson, cells, timestamp)

    def close(self) -> None:
        self.checker.close()


def cmd_serve(args) -> int:
    from rich.console import Console

    if args.limit < 1:
        raise UsageError(say("classroom.serve.limit_at_least_1", limit=args.limit))
    if args.poll <= 0:
        raise UsageError(say("classroom.serve.poll_positive", seconds=f"{args.poll:g}"))
    course_dir = Path(args.course).expanduser().resolve()
    if not (course_dir / "nbgrader_config.py").is_file():
        raise ClassroomError(say("classroom.lms.roster.no_course", folder=course_dir))
    if args.scheduler:
        from gradtutor.classroom.cluster.distributed import check_address
        from gradtutor.classroom.cluster.serve_dask import ClusterChecks

        check_address(args.scheduler)
    console = Console(highlight=False, soft_wrap=True)
    exchange = ex.exchange_of(course_dir)
    if not exchange.inbound.is_dir():
        raise ClassroomError(say("classroom.serve.no_inbound", inbound=exchange.inbound))
    # A long-lived service: `kill -USR1 PID` prints where each of its threads is to stderr (for a
    # serve that does not stop or answer), without stopping it.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    stop_on_signals()
    limiter = Limiter(course_dir / STATE_FILE, args.limit)
    checks = None
    try:
        checks = ClusterChecks(args.scheduler) if args.scheduler else LocalChecks(course_dir, exchange)
        checks.warm(released(exchange))
        console.print(say("classroom.serve.watching", inbound=exchange.inbound, limit=args.limit), markup=False)
        serve(exchange, checks, limiter, args.poll, args.once, lambda line: console.print(line, markup=False))
    except KeyboardInterrupt:
        console.print(say("classroom.serve.stopped"), markup=False)
    finally:
        if checks is not None:
            checks.close()
    return 0


# Ctrl-C (SIGINT) and `kill` (SIGTERM, as JupyterHub stops a service) both end serve the way Ctrl-C does,
# closing its checker; SIGHUP is left as it is (nohup ignores it on purpose).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def stop_on_signals() -> None:
    """Serve's stop signals raise KeyboardInterrupt, even in a process started with SIGINT ignored (gradtutor.stopping)."""
    stopping.interrupt_on(STOP_SIGNALS)


def released(exchange: ex.Exchange) -> list:
    """The course lessons released in the exchange (outbound/<lesson>/): those students will submit."""
    lessons = {lesson.id: lesson for lesson in course.load().lessons}
    outbound = exchange.root / exchange.course_id / "outbound"
    return [lessons[p.name] for p in sorted(outbound.glob("*")) if p.name in lessons and p.is_dir()]


def serve(exchange: ex.Exchange, checks, limiter: Limiter, poll: float, once: bool, log) -> None:
    lessons = {lesson.id: lesson for lesson in course.load().lessons}
    done: set[str] = set()
    while True:
        for submission in ex.inbound(exchange):
            if submission.key in done:
                continue
            lesson = lessons.get(submission.assignment)
            if lesson is None:  # another assignment of the course: not a gradtutor lesson
                done.add(submission.key)
                continue
            secret = ex.secret_of(submission)
            if secret is None:  # nbgrader writes the secret last: the copy is not finished
                continue
            targets = {nb: ex.feedback_file(exchange, submission, nb, secret) for nb in ex.notebooks_of(submission)}
            waiting = {nb: path for nb, path in targets.items() if not path.exists()}
            if waiting:
                log(serve_one(checks, limiter, lesson, submission, waiting))
            elif not targets:
                log(say("classroom.serve.no_notebook", student=submission.student, assignment=submission.assignment,
                        timestamp=submission.timestamp))
            done.add(submission.key)
        if once:
            return
        time.sleep(poll)


def serve_one(checks, limiter: Limiter, lesson, submission: ex.Submission, waiting: dict[str, Path]) -> str:
    """Write each waiting page of one submission; returns the log line."""
    # the pages (and numpy, with the verdicts) load here, not with this module: every `gradtutor` command's
    # parser includes this verb's, and `gradtutor check` through the warm checker needs neither
    from gradtutor.classroom.feedback import instant_feedback as pages

    started, now = time.monotonic(), time.time()
    allowed, count, next_at = limiter.allows(submission.student, now)
    outcome = say("classroom.serve.limited")
    checked = False
    for notebook_id, path in waiting.items():
        if notebook_id != lesson.notebook.removesuffix(".ipynb"):
            text = pages.other_notebook_page(lesson, notebook_id)
        elif not allowed:
            when = datetime.fromtimestamp(next_at).astimezone().strftime("%H:%M")
            text = pages.limit_page(lesson.id, count, limiter.per_hour, when)
        else:
            checked = True
            try:
                cells = pages.read_lesson_cells(submission, notebook_id)
                text, outcome = checks.page(lesson, cells, submission.timestamp)
            except UnreadableFile as exc:
                text, outcome = pages.unreadable_page(lesson.id, str(exc)), say("classroom.serve.unreadable")
            except Exception as exc:  # noqa: BLE001 - the student still gets a page, the log the reason
                error = f"{exc.__class__.__name__}: {exc}"
                text, outcome = pages.failed_page(lesson.id, error), error
        ex.write_new(path, text)
    if checked:
        limiter.record(submission.student, now)
    return say("classroom.serve.served", student=submission.student, assignment=submission.assignment,
               timestamp=submission.timestamp, outcome=outcome, seconds=f"{time.monotonic() - started:.1f}")
