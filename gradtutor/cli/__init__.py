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

from gradtutor import __version__, messages
from gradtutor.course import manifest as course
from gradtutor.course import seeds
from gradtutor.learner import workspace
from gradtutor.cli.parser import Parser
from gradtutor.errors import GradtutorError, UsageError
from gradtutor.messages import course_text, say

DEFAULT_WORKSPACE = "gradtutor-course"


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command line; for a learner's `verb` (check, …) only the learner's verbs: a re-check skips classroom's imports."""
    parser = Parser(prog="gradtutor", description=say("cli.description"))  # argparse's own words translated too
    parser.add_argument("--version", action="version", version=f"gradtutor {__version__}",
                        help=say("cli.argparse.version"))
    verbs = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=Parser)

    verbs.add_parser("list", help=say("cli.help.list"))

    p = verbs.add_parser("init", help=say("cli.help.init"))
    p.add_argument("folder", nargs="?", default=DEFAULT_WORKSPACE, metavar="DIR",
                   help=say("cli.help.init_folder", default=DEFAULT_WORKSPACE))

    p = verbs.add_parser("check", help=say("cli.help.check"))
    _lesson_argument(p)
    p.add_argument("exercise", nargs="?", metavar="EXERCISE", help=say("cli.help.check_exercise"))
    p.add_argument("--file", type=Path, metavar="PATH", help=say("cli.help.check_file"))
    p.add_argument("--json", action="store_true", help=say("cli.help.json"))
    p.add_argument("--seeds", choices=("visible", "hidden", "all"), default="all", help=say("cli.help.seeds"))
    p.add_argument("--no-daemon", action="store_true", help=say("cli.help.no_daemon"))
    _limits(p)

    p = verbs.add_parser("hint", help=say("cli.help.hint"))
    _lesson_argument(p)
    p.add_argument("exercise", metavar="EXERCISE")
    p.add_argument("--level", type=int, default=1, metavar="N", help=say("cli.help.level"))

    p = verbs.add_parser("solution", help=say("cli.help.solution"))
    _lesson_argument(p)
    p.add_argument("exercise", metavar="EXERCISE")

    p = verbs.add_parser("reset", help=say("cli.help.reset"))
    _lesson_argument(p)

    p = verbs.add_parser("watch", help=say("cli.help.watch"))
    _lesson_argument(p)
    p.add_argument("--file", type=Path, metavar="PATH", help=say("cli.help.watch_file"))
    p.add_argument("--interval", type=float, default=0.2, metavar="S", help=say("cli.help.interval"))
    _limits(p)

    p = verbs.add_parser("lab", help=say("cli.help.lab"))
    p.add_argument("folder", nargs="?", type=Path, metavar="DIR", help=say("cli.help.lab_folder"))
    p.add_argument("--port", type=int, metavar="N", help=say("cli.help.port"))
    p.add_argument("--no-launch", action="store_true", help=say("cli.help.no_launch"))

    for name, sub in verbs.choices.items():
        sub.set_defaults(func=VERBS[name])
    if verb in VERBS:
        _language_option(parser)
        return parser
    # `grade` and `classroom init` live in gradtutor.classroom, which imports nbgrader only when they run.
    from gradtutor import classroom, dev, explain

    classroom.add_verbs(verbs)
    dev.add_verbs(verbs)  # course authoring: `dev check`, `dev new-lesson`
    explain.add_verbs(verbs)  # anyone's script: `gradtutor explain train.py`
    _language_option(parser)
    return parser


def _language_option(parser: argparse.ArgumentParser) -> None:
    """`--lang` on every command and subcommand (main() reads it before building the parser: messages.from_command_line)."""
    parser.add_argument("--lang", metavar="LANG", default=argparse.SUPPRESS, help=say("cli.help.lang"))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _language_option(sub)


def _lesson_argument(parser) -> None:
    parser.add_argument("lesson", metavar="LESSON", help=say("cli.help.lesson"))


def _limits(parser) -> None:
    from gradtutor import defaults

    parser.add_argument("--timeout", type=float, default=defaults.EXERCISE_TIMEOUT, metavar="S",
                        help=say("cli.help.timeout", default=f"{defaults.EXERCISE_TIMEOUT:g}"))
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_MB, metavar="MB",
                        help=say("cli.help.memory", default=defaults.MEMORY_MB))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        # before the parser is built, so its help is in that language; a GRADTUTOR_LANG naming none stops here.
        # Inside a workspace its language comes next (before the locale), exported like --lang: the warm
        # checker and the worker, which run in other folders, speak it too.
        messages.use(messages.from_command_line(argv) or messages.from_environment()
                     or messages.from_file_option(argv) or messages.workspace_here())
        args = build_parser(next((a for a in argv if not a.startswith("-")), None)).parse_args(argv)
        if not args.verb:
            return cmd_list(args)
        return args.func(args)
    except GradtutorError as exc:
        _fail(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _fail(say("cli.interrupted"))
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
    table = Table(title=course_text("course.title", the_course.title), title_justify="left", show_edge=False,
                  caption=say("cli.list.workspace", home=home) if home else say("cli.list.no_workspace"),
                  caption_justify="left")
    for column in ("number", "lesson", "title", "exercises", "progress"):
        table.add_column(say(f"cli.list.{column}"))
    for lesson in the_course.lessons:
        table.add_row(str(lesson.number), f"{lesson.id} ({lesson.slug})", course_text(f"{lesson.id}.title", lesson.title),
                      str(len(lesson.exercises)), _progress_cell(home, lesson))
    _console().print(table)
    from gradtutor.learner.workspace import next_exercise

    upcoming = next_exercise(home)
    if upcoming:
        lesson, exercise = upcoming
        _console().print(say("cli.list.next", lesson=lesson.id, exercise=exercise.id, function=exercise.function,
                             path=workspace.notebook_path(home, lesson)), markup=False)
    return 0


def _progress_cell(home: Path | None, lesson: course.Lesson) -> str:
    from rich.markup import escape

    if home is None:
        return ""
    notebook = workspace.notebook_path(home, lesson)
    if not notebook.exists():
        return f"[dim]{escape(say('cli.list.no_notebook', lesson=lesson.id))}[/]"
    statuses = workspace.progress_of(notebook)
    if not statuses:
        return f"[dim]{escape(say('cli.list.not_checked'))}[/]"
    passed = sum(statuses.get(e.id) == "pass" for e in lesson.exercises)
    colour = "green" if passed == len(lesson.exercises) else "yellow"
    return f"[{colour}]{escape(say('cli.list.passed', passed=passed, total=len(lesson.exercises)))}[/]"


def cmd_init(args) -> int:
    folder = Path(args.folder)
    console = _console()
    for path, what in workspace.init(folder):
        console.print(f"  {what:<20} {path}", markup=False)
    console.print("\n" + say("cli.init.next", folder=folder), markup=False)
    spoken = workspace.language(folder.expanduser())
    console.print(say("cli.workspace_language.said", language=say(f"cli.workspace_language.{spoken}")), markup=False)
    return 0


def _target_file(lesson: course.Lesson, file: Path | None) -> Path:
    if file is not None:
        return file
    home = workspace.find()
    if home is None:
        raise UsageError(say("cli.no_workspace_or_file", folder=Path.cwd()))
    return workspace.notebook_path(home, lesson)


def cmd_check(args) -> int:
    from gradtutor.course import extract
    from gradtutor.learner.daemon.client import check_warm

    lesson = course.load().lesson(args.lesson)
    exercises = [lesson.exercise(args.exercise)] if args.exercise else None
    path = _target_file(lesson, args.file)
    cells = extract.read_cells(path)  # before starting TensorFlow: a bad file fails fast
    console = None if args.json else _console()  # --json draws no table: rich need not even load
    hidden, config = seeds.of_course_folder(Path.cwd(), args.seeds)  # an instructor in a course folder
    warm = None if config else check_warm(args, lesson, path, console)  # the warm checker holds no secret
    if warm is not None:
        return warm
    console = console or _console()
    from gradtutor.learner import verdict_view as report  # numpy, TensorFlow's worker: only when checking in this process
    from gradtutor.checking.checker import Checker

    if config:
        print(say("cli.check.course_secret", config=config), file=sys.stderr if args.json else sys.stdout)
    with Checker(timeout=args.timeout, memory_mb=args.memory_mb, hidden=hidden,
                 hide=[str(config)] if config else None) as checker:
        if args.json or not console.is_terminal:
            result = checker.check_cells(lesson, cells, exercises, args.seeds, str(path))
        else:
            with console.status(say("check.checking", lesson=lesson.id)):
                result = checker.check_cells(lesson, cells, exercises, args.seeds, str(path))
    workspace.record(path, lesson.id, {e.id: e.status for e in result.exercises})
    if args.json:
        print(report.to_json(result))
    else:
        report.print_lesson(console, result)
    return result.exit_code


def cmd_hint(args) -> int:
    from gradtutor.learner import hints

    return hints.print_hint(_console(), args.lesson, args.exercise, args.level)


def cmd_solution(args) -> int:
    from gradtutor.learner import hints

    return hints.print_solution(_console(), args.lesson, args.exercise)


def cmd_reset(args) -> int:
    lesson = course.load().lesson(args.lesson)
    home = workspace.find()
    if home is None:
        raise UsageError(say("cli.no_workspace", folder=Path.cwd()))
    target, backup = workspace.reset(home, lesson)
    console = _console()
    console.print(say("cli.reset.fresh", path=target), markup=False)
    if backup:
        console.print(say("cli.reset.backup", path=backup), markup=False)
    return 0


def cmd_lab(args) -> int:
    from gradtutor.learner import lab

    return lab.run(args.folder, port=args.port, no_launch=args.no_launch)


def cmd_watch(args) -> int:
    from gradtutor.learner.watch import watch

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
        _fail(say("cli.internal_error", error=f"{exc.__class__.__name__}: {exc}"))
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    run()
