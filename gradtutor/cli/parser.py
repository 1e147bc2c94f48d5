"""The `gradtutor` command's argument parser, in the messages' language: argparse's own words too.

argparse writes its headings ("usage:", "options") and its errors ("the following arguments are
required: …") in English. Here the headings come from the catalogue (`cli.argparse.*`), and an error
argparse has already put together is read back against the English texts of those same ids (each
English text is the argparse template it stands for) and said again in the current language; one it
does not know stays as argparse said it. Every error is one line, naming `--help`.
"""
from __future__ import annotations

import argparse
import functools
import re

from gradtutor.errors import UsageError
from gradtutor.messages import catalogue, say

AREA = "cli.argparse."
ERRORS = ("argument", "required", "unrecognized", "invalid_choice", "invalid_value", "expected_one",
          "expected_at_least_one", "expected_at_most_one", "ignored_explicit", "one_required",
          "not_allowed_with", "ambiguous")


class Formatter(argparse.HelpFormatter):
    """argparse's help, with the usage line's prefix and each heading's colon in the messages' language."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, say(f"{AREA}usage") if prefix is None else prefix)

    def start_section(self, heading):  # argparse's own, with our section
        self._indent()
        section = _Section(self, self._current_section, heading)
        self._add_item(section.format_help, [])
        self._current_section = section


class _Section(argparse.HelpFormatter._Section):
    def format_help(self):
        text = super().format_help()
        if not isinstance(self.heading, str) or self.heading == argparse.SUPPRESS:
            return text
        return text.replace(f"{self.heading}:\n", say(f"{AREA}heading", title=self.heading) + "\n", 1)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose headings, -h help and errors are the catalogue's; an error is a one-line UsageError."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)
        self._positionals.title = say(f"{AREA}positionals")
        self._optionals.title = say(f"{AREA}options")
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = say(f"{AREA}help")

    def error(self, message: str) -> None:
        raise UsageError(say("cli.usage", message=translate(message), prog=self.prog))


def translate(message: str) -> str:
    """An argparse error message said in the current language (as it was, when it is not one of argparse's)."""
    for key, pattern in _patterns():
        found = pattern.fullmatch(message)
        if found:
            values = found.groupdict()
            if "problem" in values:
                values["problem"] = translate(values["problem"])
            return say(AREA + key, **values)
    return message


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern]]:
    english = catalogue("en")
    made = []
    for key in ERRORS:
        parts = re.split(r"\{(\w+)\}", english[AREA + key])
        regex = "".join(re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)" for index, part in enumerate(parts))
        made.append((key, re.compile(regex, re.DOTALL)))
    return made
