"""`gradtutor dev`: tools for whoever writes the course, not for learners.

    gradtutor dev check [--lesson LESSON] [--timeout S]   prove the course works (one line per finding)
    gradtutor dev new-lesson SLUG [--title T]             scaffold a lesson in its four places

`add_verbs` registers them on the CLI; `python -m gradtutor.dev` runs them alone.
"""
from __future__ import annotations

import argparse
import sys

from gradtutor.defaults import DEV_CHECK_TIMEOUT
from gradtutor.errors import GradtutorError, UsageError

TIMEOUT = DEV_CHECK_TIMEOUT


def add_verbs(verbs) -> None:
    """Register the `dev` verb and its sub-verbs on the CLI's subparsers (each sets `func`)."""
    p = verbs.add_parser("dev", help="course authoring: check the course, scaffold a lesson")
    sub = p.add_subparsers(dest="dev_verb", metavar="COMMAND", parser_class=type(p))
    check = sub.add_parser("check", help="prove the manifest, notebooks, references, solutions and known answers agree")
    check.add_argument("--lesson", action="append", metavar="LESSON",
                       help="check only this lesson (id, number or slug; repeat for several)")
    check.add_argument("--timeout", type=float, default=TIMEOUT, metavar="S",
                       help=f"seconds per exercise before a solution or known answer times out (default {TIMEOUT:g})")
    check.set_defaults(func=cmd_check)
    new = sub.add_parser("new-lesson", help="scaffold a lesson: solutions notebook, reference module, "
                                            "manifest entry, known answers (never overwrites)")
    new.add_argument("slug", metavar="SLUG", help="the lesson's slug, e.g. persistent-tapes; its id is lesson<N>")
    new.add_argument("--title", help="the lesson's title (default: from the slug)")
    new.set_defaults(func=cmd_new_lesson)
    p.set_defaults(func=_usage)


def cmd_check(args) -> int:
    from gradtutor.dev import check

    return check.run(args.lesson, args.timeout)


def cmd_new_lesson(args) -> int:
    from gradtutor.dev import scaffold

    for line in scaffold.new_lesson(args.slug, args.title):
        print(line)
    return 0


def _usage(args) -> int:
    raise UsageError("choose a dev command: `gradtutor dev check` or `gradtutor dev new-lesson SLUG` "
                     "(see `gradtutor dev --help`)")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, as the gradtutor command does
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def main(argv: list[str] | None = None) -> int:
    """`python -m gradtutor.dev ...`: the same verbs without the rest of the CLI."""
    parser = _Parser(prog="gradtutor")
    add_verbs(parser.add_subparsers(dest="verb", parser_class=_Parser))
    try:
        args = parser.parse_args(["dev", *(sys.argv[1:] if argv is None else argv)])
        return args.func(args)
    except GradtutorError as exc:
        print(f"gradtutor: {exc}", file=sys.stderr)
        return exc.exit_code
