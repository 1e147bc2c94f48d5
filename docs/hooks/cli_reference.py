"""The CLI reference: each `<!-- help: gradtutor VERB -->` line in a page becomes the text argparse prints for
`gradtutor VERB --help` in the page's language, and the page must name every verb."""
from __future__ import annotations

import logging
import os
import re

log = logging.getLogger("mkdocs.plugins.gradtutor")

HELP_LINE = re.compile(r"^<!-- help: (gradtutor(?: [\w-]+)*) -->$", re.MULTILINE)

def cli_help_texts(lang: str = "en") -> dict[str, str]:
    """`gradtutor ... --help` for the command and every verb (and sub-verb), as argparse prints it at 80 columns,
    in `lang` (what `GRADTUTOR_LANG=lang gradtutor ... --help` prints)."""
    import argparse

    from gradtutor import messages
    from gradtutor.cli import build_parser

    texts = {}

    def walk(parser, name):
        texts[name] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for verb, sub in action.choices.items():
                    walk(sub, f"{name} {verb}")

    saved = {name: os.environ.get(name) for name in ("COLUMNS", "GRADTUTOR_LANG")}
    chosen = messages._chosen
    os.environ["COLUMNS"] = "80"
    messages.use(lang, export=True)
    try:
        walk(build_parser(), "gradtutor")
    finally:
        messages._chosen = chosen
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return texts


def fill(markdown: str, lang: str, page_uri: str) -> str:
    """The page with each help line replaced by that command's --help; a warning for a command it misses."""
    if not HELP_LINE.search(markdown):
        return markdown
    texts = cli_help_texts(lang)
    named = set(HELP_LINE.findall(markdown))
    for command in sorted(named - set(texts)):
        log.warning("%s: `%s` is not a gradtutor command (its --help cannot be shown)", page_uri, command)
    for command in sorted(set(texts) - named):
        log.warning("%s: the CLI reference does not cover `%s` — add a section with <!-- help: %s -->",
                    page_uri, command, command)

    def replace(match):
        text = texts.get(match.group(1), "")
        return (f'<div class="gt-help" data-command="{match.group(1)}" markdown>\n\n'
                f'```text\n{text.rstrip()}\n```\n\n</div>')

    return HELP_LINE.sub(replace, markdown)
