"""Verdicts that need no run: the function is missing, its cell does not parse, the starter is
unchanged, or the code reaches into gradtutor's own answers. Reads and parses only."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from gradtutor.course import manifest as course_mod
from gradtutor.course import extract
from gradtutor.errors import UnreadableFile
from gradtutor.isolation import policy
from gradtutor.protocol import Cause, Status
from gradtutor.checking.verdict import ExerciseResult, not_attempted, result_for
from gradtutor.messages import say


def static_verdict(lesson, exercise, cells, source: str,
                   internals: str | None) -> tuple[ExerciseResult | None, extract.Definition]:
    """A verdict that needs no run (missing, syntax error, internals, starter unchanged), or None; and the definition."""
    result = result_for(exercise)
    definition = extract.find_function(cells, exercise.function)
    where = Path(source).name if source else say("check.your_file")
    if definition.cell is None:
        return result(Status.ERROR, say("check.not_defined", function=exercise.function, where=where),
                      bad_input=True, cause=Cause.MISSING), definition
    if definition.syntax_error:
        # the file is readable and the other exercises are checked: an error of this exercise, not bad input
        return result(Status.ERROR, say("check.syntax", function=exercise.function, error=definition.syntax_error),
                      cause=Cause.SYNTAX), definition
    if internals:
        return result(Status.FAIL, say("check.internals", function=exercise.function, what=internals),
                      cause=Cause.INTERNALS), definition
    if unchanged(lesson, exercise, definition):
        return not_attempted(exercise), definition
    return None, definition


def unchanged(lesson, exercise, definition: extract.Definition) -> bool:
    """Is the function exactly the starter the lesson hands out (docstring and layout aside)?"""
    starter = _starter_fingerprints(lesson.id).get(exercise.function)
    return starter is not None and starter == extract.fingerprint(definition.node)


@functools.lru_cache(maxsize=None)
def _starter_fingerprints(lesson_id: str) -> dict[str, str]:
    lesson = course_mod.load().lesson(lesson_id)
    try:
        cells = extract.read_cells(lesson.release_notebook())
    except UnreadableFile:
        return {}
    prints = {}
    for exercise in lesson.exercises:
        definition = extract.find_function(cells, exercise.function)
        if definition.node is not None:
            prints[exercise.function] = extract.fingerprint(definition.node)
    return prints


def uses_internals(cells) -> str | None:
    """Does learner code reach into gradtutor beyond `check` (its references, its worker)? Where, if so."""
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            found = _internal_use(node)
            if found:
                return f"{cell.label} {found}"
    return None


def _internal_use(node: ast.AST) -> str | None:
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gradtutor"):
        if node.module not in policy.LEARNER_MODULES or not {a.name for a in node.names} <= policy.LEARNER_NAMES:
            return say("check.internal.imports_from", module=node.module)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.startswith("gradtutor.") and alias.name not in policy.LEARNER_MODULES:
                return say("check.internal.imports", module=alias.name)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "gradtutor":
        if node.attr not in policy.LEARNER_NAMES:
            return say("check.internal.uses", name=node.attr)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and policy.NAMES_FORBIDDEN_FILES.search(node.value):
        return say("check.internal.names_files")
    return None
