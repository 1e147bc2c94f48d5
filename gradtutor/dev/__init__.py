"""`gradtutor dev`: tools for whoever writes the course, not for learners.

    gradtutor dev check [--lesson LESSON] [--timeout S] [--quick]
                                                          prove the course works (one line per finding)
    gradtutor dev new-lesson SLUG [--title T]             scaffold a lesson: its folder and its two notebooks

`add_verbs` registers them on the CLI; `python -m gradtutor.dev` runs them alone.
"""
from __future__ import annotations

import sys

from gradtutor.cli.parser import Parser
from gradtutor.defaults import DEV_CHECK_TIMEOUT
from gradtutor.errors import GradtutorError, UsageError
from gradtutor.messages import say

TIMEOUT = DEV_CHECK_TIMEOUT


def add_verbs(verbs) -> None:
    """Register the `dev` verb and its sub-verbs on the CLI's subparsers (each sets `func`)."""
    p = verbs.add_parser("dev", help=say("cli.dev.help"))
    sub = p.add_subparsers(dest="dev_verb", metavar="COMMAND", parser_class=type(p))
    check = sub.add_parser("check", help=say("cli.dev.check"))
    check.add_argument("--lesson", action="append", metavar="LESSON",
                       help=say("cli.dev.check_lesson"))
    check.add_argument("--timeout", type=float, default=TIMEOUT, metavar="S",
                       help=say("cli.dev.check_timeout", default=f"{TIMEOUT:g}"))
    check.add_argument("--quick", action="store_true", help=say("cli.dev.check_quick"))
    check.set_defaults(func=cmd_check)
    new = sub.add_parser("new-lesson", help=say("cli.dev.new_lesson"))
    new.add_argument("slug", metavar="SLUG", help=say("cli.dev.slug"))
    new.add_argument("--title", help=say("cli.dev.title"))
    new.set_defaults(func=cmd_new_lesson)
    p.set_defaults(func=_usage)


def cmd_check(args) -> int:
    from gradtutor.dev import check

    return check.run(args.lesson, args.timeout, quick=args.quick)


def cmd_new_lesson(args) -> int:
    from gradtutor.dev import scaffold

    for line in scaffold.new_lesson(args.slug, args.title):
        print(line)
    return 0


def _usage(args) -> int:
    raise UsageError(say("cli.dev.choose"))


def main(argv: list[str] | None = None) -> int:
    """`python -m gradtutor.dev ...`: the same verbs without the rest of the CLI."""
    parser = Parser(prog="gradtutor")
    add_verbs(parser.add_subparsers(dest="verb", parser_class=Parser))
    try:
        args = parser.parse_args(["dev", *(sys.argv[1:] if argv is None else argv)])
        return args.func(args)
    except GradtutorError as exc:
        print(f"gradtutor: {exc}", file=sys.stderr)
        return exc.exit_code
