"""Find sentences a person reads that are written inline instead of coming from the message catalogue.

An `ast` scan of a module's source: the text handed to print(), console.print(), a spinner's status,
any gradtutor error, argparse's help= and a submission's `problem`, when it spells out English words
itself rather than through say() (gradtutor.messages). Shared by the tests of each part of the package.
"""
from __future__ import annotations

import ast
import re

from gradtutor import errors

# Calls whose text a person reads: print, console.print, a spinner's status line, every gradtutor error.
ERRORS = {cls.__name__ for cls in vars(errors).values()
          if isinstance(cls, type) and issubclass(cls, errors.GradtutorError)}
SHOWN = {"print", "status"} | ERRORS
ARGPARSE = {"add_argument", "add_parser"}  # their help= is the verbs' help (traitlets' help= documents configuration)
MESSAGE_CALLS = {"say", "helptext"}  # their literals are message ids
MARKUP = re.compile(r"\[/?[a-z #]*\]")  # rich markup ([yellow], [/], [dim]) is not words
WORDS = re.compile(r"[A-Za-z]{2,}")


def name_of(func: ast.AST) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _literals(node: ast.AST):
    """The string constants an expression spells out, not those inside a say() call (message ids)."""
    if isinstance(node, ast.Call) and name_of(node.func) in MESSAGE_CALLS:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
        return
    for child in ast.iter_child_nodes(node):
        yield from _literals(child)


def _has_say(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and name_of(n.func) in MESSAGE_CALLS for n in ast.walk(node))


def scan(source: str, filename: str = "<source>", log_lines=frozenset(), also_shown=frozenset()) -> tuple[list[str], list[str], set[tuple[str, str]]]:
    """(inline English shown to a person, call sites that use say(), log_lines seen) of one module's source.

    log_lines: (file name, start of the text) of lines meant for a log, not a person: exempt.
    also_shown: more calls whose text a person reads (an exception class of the module's own).
    """
    inline, with_say, logs = [], [], set()
    for node in ast.walk(ast.parse(source)):
        shown = []
        if isinstance(node, ast.Call):
            if name_of(node.func) in SHOWN | also_shown:
                shown = [*node.args, *(k.value for k in node.keywords if k.arg in (None, "sep", "end"))]
            shown += [k.value for k in node.keywords  # argparse's help; a submission's problem (SubmissionResult)
                      if k.arg == "problem" or (k.arg == "help" and name_of(node.func) in ARGPARSE)]
        elif isinstance(node, ast.Dict):
            shown = [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == "problem"]
        for expression in shown:
            where = f"{filename}:{expression.lineno}"
            if _has_say(expression):
                with_say.append(where)
            texts = list(_literals(expression))
            log = next((entry for entry in log_lines if entry[0] == filename
                        and any(text.startswith(entry[1]) for text in texts)), None)
            if log:
                logs.add(log)
                continue
            inline += [f"{where}: {text!r}" for text in texts if WORDS.search(MARKUP.sub("", text))]
    return inline, with_say, logs
