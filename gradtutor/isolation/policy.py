"""What learner code may not do: one table of rules, and the code that puts them in force.

The child that runs a learner's functions enforces these in three layers, all
set up by `enforce` before the first line of learner code loads:

* resource limits (a memory cap, no core files);
* Landlock (gradtutor.isolation.landlock): the kernel hides HIDDEN_FROM_LEARNERS
  and fences writes into the scratch folder, for C++ code too (tf.io);
* an audit hook that interprets RULES: each rule names the audit events it
  watches, the test on their arguments, and the line the learner reads when
  the test finds a culprit (raised as PermissionError).

The static side reads the same table: the checker refuses, before running
anything, code that imports FORBIDDEN_MODULES or uses gradtutor beyond
LEARNER_NAMES (gradtutor.checking.precheck), and the classroom fences kernels off the
same hidden paths (gradtutor.classroom.kernels.kernel_sandbox).
"""
from __future__ import annotations

import dataclasses
import os
import re
import resource
import sys
from typing import Callable

from gradtutor.isolation import landlock
from gradtutor.messages import say

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE_DIR = os.path.join(PACKAGE_DIR, "course", "references")  # the package that loads the answers
LESSONS_DIR = os.path.join(PACKAGE_DIR, "course", "lessons")  # one folder per lesson (gradtutor.course.manifest)
# What of a lesson's folder holds its answers: its reference module, its known answers, and the
# bytecode Python caches beside them. Its lesson.toml and translations stay readable: a kernel reads the course.
LESSON_ANSWER_FILES = ("reference.py", "answers.toml", "__pycache__")


def _lesson_answers() -> list[str]:
    try:
        lessons = sorted(os.listdir(LESSONS_DIR))
    except OSError:
        return []
    return [os.path.join(LESSONS_DIR, lesson, name) for lesson in lessons for name in LESSON_ANSWER_FILES]


# Unreadable for learner code: the answers, in a checkout and in an installed wheel.
ANSWER_PATHS = [REFERENCE_DIR, *_lesson_answers()]
HIDDEN_FROM_LEARNERS = [*ANSWER_PATHS, os.path.join(os.path.dirname(PACKAGE_DIR), "solutions"),
                        os.path.join(PACKAGE_DIR, "_course", "solutions")]

# The answers (by the package that loads them, and by their folders' own package path), and the
# machinery that runs learner code: never importable by it.
FORBIDDEN_MODULES = ("gradtutor.course.references", "gradtutor.course.lessons", "gradtutor.isolation")
# What learner code may use of gradtutor: these modules, and of them only these names.
LEARNER_MODULES = ("gradtutor", "gradtutor.quiet")
LEARNER_NAMES = frozenset({"check", "quiet", "__version__", "prestart", "hint", "solution",
                           "expect_error"})  # hint, solution and expect_error compute nothing
# A string in learner code that names the forbidden modules' files (to open or import them by path).
NAMES_FORBIDDEN_FILES = re.compile(
    r"gradtutor[./\\]+(" + "|".join(m.split(".", 1)[1].replace(".", r"[./\\]+") for m in FORBIDDEN_MODULES) + ")")

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC


class Scratch:
    """The one folder learner code may change (and /dev/null), and the process it runs in."""

    def __init__(self, folder: str):
        self.prefix = os.path.realpath(folder) + os.sep
        self.pid = os.getpid()

    def holds(self, path) -> bool:
        try:
            real = os.path.realpath(os.fsdecode(path)) if not isinstance(path, int) else None
        except (TypeError, ValueError):
            return False
        return real is not None and (real.startswith(self.prefix) or real == os.devnull)


# -- the tests a rule applies to an event's arguments: the culprit, or None when the event is allowed


def _reads_the_answers(args: tuple, scratch: Scratch):
    path = args[0]
    if isinstance(path, (str, bytes)):
        real = os.path.realpath(os.fsdecode(path))
        if any(real == hidden or real.startswith(hidden + os.sep) for hidden in ANSWER_PATHS):
            return path
    return None


def _writes_outside(args: tuple, scratch: Scratch):
    path, mode, flags = args
    if isinstance(path, (str, bytes)):
        writing = (mode and any(c in str(mode) for c in "wax+")) or (flags is not None and flags & _WRITE_FLAGS)
        if writing and not scratch.holds(path):
            return path
    return None


def _imports_forbidden(args: tuple, scratch: Scratch):
    return args[0] if args and str(args[0]).startswith(FORBIDDEN_MODULES) else None


def _paths_outside(args: tuple, scratch: Scratch):
    return next((path for path in args[:2]
                 if isinstance(path, (str, bytes, os.PathLike)) and not scratch.holds(path)), None)


def _signals_another_process(args: tuple, scratch: Scratch):
    return args[0] if args and args[0] not in (scratch.pid, 0) else None


def _always(args: tuple, scratch: Scratch):
    return ""


@dataclasses.dataclass(frozen=True)
class Rule:
    events: tuple[str, ...]  # the audit events it watches
    test: Callable[[tuple, Scratch], object]  # the culprit among the event's arguments, or None
    message: str  # the id of what the learner reads (check.sandbox.*); {path} is the culprit


RULES = (
    Rule(("open",), _reads_the_answers, "check.sandbox.reads_answers"),
    Rule(("open",), _writes_outside, "check.sandbox.writes_outside"),
    Rule(("import",), _imports_forbidden, "check.sandbox.imports_forbidden"),
    Rule(("os.remove", "os.rmdir", "os.rename", "os.truncate", "shutil.rmtree", "os.chmod", "os.chown"),
         _paths_outside, "check.sandbox.changes_outside"),
    Rule(("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
          "pty.spawn"), _always, "check.sandbox.processes"),
    Rule(("os.kill", "os.killpg"), _signals_another_process, "check.sandbox.signals"),
    Rule(("os.link", "os.symlink", "os.mkdir", "os.mkfifo", "os.mknod", "sqlite3.connect"),
         _paths_outside, "check.sandbox.creates_outside"),
    Rule(("ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function", "ctypes.cdata"),
         _always, "check.sandbox.ctypes"),
)


def audit_hook(scratch: Scratch) -> Callable[[str, tuple], None]:
    """The hook that interprets RULES (in their order) for every audit event of this process."""
    by_event: dict[str, list[Rule]] = {}
    # each rule's words, looked up now: inside the hook, reading a catalogue would be an audited event itself
    said = {rule.message: say(rule.message) for rule in RULES}
    for rule in RULES:
        for event in rule.events:
            by_event.setdefault(event, []).append(rule)

    def guard(event: str, args: tuple) -> None:
        for rule in by_event.get(event, ()):
            culprit = rule.test(args, scratch)
            if culprit is not None:
                raise PermissionError(said[rule.message].format(path=culprit))

    return guard


def resource_limits(memory_mb: int | None) -> list[tuple[int, int]]:
    """(resource, limit) pairs: `memory_mb` more address space than the process holds now; no core files."""
    limits = []
    if memory_mb:
        limits.append((resource.RLIMIT_AS, memory_mb * 1024 * 1024 + _virtual_size()))
    limits.append((resource.RLIMIT_CORE, 0))
    return limits


def _virtual_size() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * resource.getpagesize()


def enforce(scratch: str, memory_mb: int | None, hide: list[str] = ()) -> None:
    """Every rule, for the rest of this process's life: nothing here can be lifted by the code it guards.

    hide: more files the learner code may not read (a course's secret, gradtutor.course.secret).
    """
    for which, limit in resource_limits(memory_mb):
        resource.setrlimit(which, (limit, limit))
    # The kernel's layer first (it uses ctypes, which the hook below forbids): it also covers
    # TensorFlow's C++ file functions, which no audit hook sees.
    landlock.restrict(scratch, HIDDEN_FROM_LEARNERS + list(hide))
    sys.addaudithook(audit_hook(Scratch(scratch)))  # audit hooks cannot be removed, even by the code they guard
