"""The `gradtutor` command: one function per verb.

Exit codes: 0 every checked exercise passes; 1 some do not; 2 bad input (an
unknown lesson, an unreadable file, a missing function), always explained in
one line and never with a Python traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gradtutor import __version__, course, workspace
from gradtutor.errors import GradtutorError, UsageError

DEFAULT_WORKSPACE = "gradtutor-course"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gradtutor", description="Why is my gradient None? Lessons and an autograder for "
                                                   "TensorFlow's GradientTape.")
    parser.add_argument("--version", action="version", version=f"gradtutor {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)

    verbs.add_parser("list", help="the lessons, with your progress")

    p = verbs.add_parser("init", help="copy the lessons into a workspace folder (never overwrites)")
    p.add_argument("folder", nargs="?", default=DEFAULT_WORKSPACE, metavar="DIR",
                   help=f"where to put the lessons (default: {DEFAULT_WORKSPACE})")

    p = verbs.add_parser("check", help="grade a lesson's exercises")
    _lesson_argument(p)
    p.add_argument("exercise", nargs="?", metavar="EXERCISE", help="only this exercise (id, function or number)")
    p.add_argument("--file", type=Path, metavar="PATH", help="grade this notebook or .py file instead of the workspace copy")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--seeds", choices=("visible", "hidden", "all"), default="all", help="which inputs to check on")
    p.add_argument("--no-daemon", action="store_true",
                   help="check in this process, not in the warm checker later checks reuse (GRADTUTOR_NO_DAEMON=1)")
    _limits(p)

    p = verbs.add_parser("hint", help="a hint for an exercise; higher levels say more")
    _lesson_argument(p)
    p.add_argument("exercise", metavar="EXERCISE")
    p.add_argument("--level", type=int, default=1, metavar="N", help="which rung of the hint ladder (default 1)")

    p = verbs.add_parser("solution", help="show the solution of an exercise")
    _lesson_argument(p)
    p.add_argument("exercise", metavar="EXERCISE")

    p = verbs.add_parser("reset", help="a fresh copy of a lesson; your old file is kept as a backup")
    _lesson_argument(p)

    p = verbs.add_parser("watch", help="check a lesson again every time you save it")
    _lesson_argument(p)
    p.add_argument("--file", type=Path, metavar="PATH", help="watch this file instead of the workspace copy")
    p.add_argument("--interval", type=float, default=0.2, metavar="S", help="how often to look for a save")
    _limits(p)

    p = verbs.add_parser("lab", help="JupyterLab on your workspace, with the course's kernel (Ctrl-C stops it)")
    p.add_argument("folder", nargs="?", type=Path, metavar="DIR", help="the workspace (made if missing)")
    p.add_argument("--port", type=int, metavar="N", help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-launch", action="store_true", help="install the kernel and workspace only (GRADTUTOR_NO_LAB=1)")

    for name, verb in verbs.choices.items():
        verb.set_defaults(func=VERBS[name])
    # `grade` and `classroom init` live in gradtutor.classroom, which imports nbgrader only when they run.
    from gradtutor import classroom, dev, explain

    classroom.add_verbs(verbs)
    dev.add_verbs(verbs)  # course authoring: `dev check`, `dev new-lesson`
    explain.add_verbs(verbs)  # anyone's script: `gradtutor explain train.py`
    return parser


def _lesson_argument(parser) -> None:
    parser.add_argument("lesson", metavar="LESSON", help="lesson id, number or slug (lesson3, 3, softmax)")


def _limits(parser) -> None:
    from gradtutor import defaults

    parser.add_argument("--timeout", type=float, default=defaults.EXERCISE_TIMEOUT, metavar="S",
                        help=f"seconds per exercise (default {defaults.EXERCISE_TIMEOUT:g})")
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_MB, metavar="MB",
                        help=f"memory the exercise code may use (default {defaults.MEMORY_MB})")


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if not args.verb:
            return cmd_list(args)
        return args.func(args)
    except GradtutorError as exc:
        _fail(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except BrokenPipeError:
        return 0


def _fail(message: str) -> None:
    print(f"gradtutor: {message}", file=sys.stderr)


def _console():
    from rich.console import Console

    return Console(highlight=False)


# --------------------------------------------------------------------------- verbs


def cmd_list(args) -> int:
    from rich.table import Table

    the_course = course.load()
    home = workspace.find()
    table = Table(title=the_course.title, title_justify="left", show_edge=False,
                  caption=f"workspace: {home}" if home else "no workspace here — run `gradtutor init` to start",
                  caption_justify="left")
    for column in ("#", "lesson", "title", "exercises", "progress"):
        table.add_column(column)
    for lesson in the_course.lessons:
        table.add_row(str(lesson.number), f"{lesson.id} ({lesson.slug})", lesson.title,
                      str(len(lesson.exercises)), _progress_cell(home, lesson))
    _console().print(table)
    from gradtutor.learner_state import next_exercise

    upcoming = next_exercise(home)
    if upcoming:
        lesson, exercise = upcoming
        _console().print(f"▶ next: {lesson.id} {exercise.id} — write {exercise.function}() in "
                         f"{workspace.notebook_path(home, lesson)}", markup=False)
    return 0


def _progress_cell(home: Path | None, lesson: course.Lesson) -> str:
    if home is None:
        return ""
    notebook = workspace.notebook_path(home, lesson)
    if not notebook.exists():
        return "[dim]no notebook (gradtutor reset " + lesson.id + ")[/]"
    statuses = workspace.progress_of(notebook)
    if not statuses:
        return "[dim]not checked yet[/]"
    passed = sum(statuses.get(e.id) == "pass" for e in lesson.exercises)
    colour = "green" if passed == len(lesson.exercises) else "yellow"
    return f"[{colour}]{passed}/{len(lesson.exercises)} passed[/]"


def cmd_init(args) -> int:
    folder = Path(args.folder)
    console = _console()
    for path, what in workspace.init(folder):
        console.print(f"  {what:<20} {path}")
    console.print(f"\nYour workspace is [bold]{folder}[/]. Next:\n"
                  f"  cd {folder}\n  jupyter lab lesson1/lesson1.ipynb   (or any editor)\n"
                  f"  gradtutor check lesson1")
    return 0


def _target_file(lesson: course.Lesson, file: Path | None) -> Path:
    if file is not None:
        return file
    home = workspace.find()
    if home is None:
        raise UsageError(f"no workspace in {Path.cwd()} or its parents — run `gradtutor init` first, "
                       f"or name a notebook with --file")
    return workspace.notebook_path(home, lesson)


def cmd_check(args) -> int:
    from gradtutor import extract
    from gradtutor.daemon.client import check_warm

    lesson = course.load().lesson(args.lesson)
    exercises = [lesson.exercise(args.exercise)] if args.exercise else None
    path = _target_file(lesson, args.file)
    cells = extract.read_cells(path)  # before starting TensorFlow: a bad file fails fast
    console = None if args.json else _console()  # --json draws no table: rich need not even load
    warm = check_warm(args, lesson, path, console)  # the warm checker, unless it is off or out of reach
    if warm is not None:
        return warm
    console = console or _console()
    from gradtutor import report  # numpy, TensorFlow's worker: only when checking in this process
    from gradtutor.checker import Checker

    with Checker(timeout=args.timeout, memory_mb=args.memory_mb) as checker:
        if args.json or not console.is_terminal:
            result = checker.check_cells(lesson, cells, exercises, args.seeds, str(path))
        else:
            with console.status(f"Checking {lesson.id} (TensorFlow takes a few seconds to load)…"):
                result = checker.check_cells(lesson, cells, exercises, args.seeds, str(path))
    workspace.record(path, lesson.id, {e.id: e.status for e in result.exercises})
    if args.json:
        print(report.to_json(result))
    else:
        report.print_lesson(console, result)
    return result.exit_code


def cmd_hint(args) -> int:
    lesson = course.load().lesson(args.lesson)
    exercise = lesson.exercise(args.exercise)
    if not exercise.hints:
        raise UsageError(f"{lesson.id} {exercise.id} has no hints")
    if not 1 <= args.level <= len(exercise.hints):
        raise UsageError(f"{lesson.id} {exercise.id} has hints 1 to {len(exercise.hints)}, not {args.level}")
    console = _console()
    console.print(f"[bold]Hint {args.level} of {len(exercise.hints)}[/] for {exercise.function}():")
    console.print(exercise.hints[args.level - 1], markup=False)
    if args.level < len(exercise.hints):
        console.print(f"[dim]More: gradtutor hint {lesson.id} {exercise.id} --level {args.level + 1}[/]")
    return 0


def cmd_solution(args) -> int:
    from gradtutor.hints import solution_code

    lesson = course.load().lesson(args.lesson)
    code = solution_code(lesson, lesson.exercise(args.exercise))
    if not sys.stdout.isatty():  # piped or redirected: the code itself, every line whole, to paste or save
        sys.stdout.write(code + "\n")
        return 0
    from rich.syntax import Syntax

    # soft wrap: a line longer than the terminal is folded by the terminal, never cropped, so a copy pastes whole
    _console().print(Syntax(code, "python", theme="ansi_dark", background_color="default",
                            code_width=max(len(line) for line in code.splitlines())), soft_wrap=True)
    return 0


def cmd_reset(args) -> int:
    lesson = course.load().lesson(args.lesson)
    home = workspace.find()
    if home is None:
        raise UsageError(f"no workspace in {Path.cwd()} or its parents — run `gradtutor init` first")
    target, backup = workspace.reset(home, lesson)
    console = _console()
    console.print(f"fresh copy: {target}")
    if backup:
        console.print(f"your previous file is kept as {backup}")
    return 0


def cmd_lab(args) -> int:
    from gradtutor import lab

    return lab.run(args.folder, port=args.port, no_launch=args.no_launch)


def cmd_watch(args) -> int:
    from gradtutor.watch import watch

    lesson = course.load().lesson(args.lesson)
    path = _target_file(lesson, args.file)
    return watch(lesson, path, interval=args.interval, timeout=args.timeout, memory_mb=args.memory_mb)


VERBS = {
    "list": cmd_list,
    "init": cmd_init,
    "check": cmd_check,
    "hint": cmd_hint,
    "solution": cmd_solution,
    "reset": cmd_reset,
    "watch": cmd_watch,
    "lab": cmd_lab,
}


def run() -> None:
    """Console-script entry point; GRADTUTOR_DEBUG=1 lets internal errors show their traceback."""
    try:
        code = main()
    except Exception as exc:  # noqa: BLE001 - the promise is one line, never a traceback
        if os.environ.get("GRADTUTOR_DEBUG"):
            raise
        _fail(f"internal error ({exc.__class__.__name__}: {exc}) — please report it; "
              "GRADTUTOR_DEBUG=1 shows the details")
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    run()
