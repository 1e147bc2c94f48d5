"""Answers identical to the shipped solution or to another student's, once names and layout are set aside.

Two answers are "the same" when their function definitions, parsed with `ast`,
are equal after: docstrings and comments dropped, the function's own name and
every name local to it (arguments, assigned names, loop / with / except targets,
comprehension variables, nested functions) renamed in order of first use, and
the code printed back by `ast.unparse`. Global names (`tf`, `np`) and attributes
keep theirs: using another API is a different answer.

The result is a flag for the instructor to look at, never a score change: a
short fix can be found independently by many. An answer equal to the starter
(not attempted) is never flagged.
"""
from __future__ import annotations

import ast
import dataclasses

from gradtutor.course import extract


@dataclasses.dataclass(frozen=True)
class SimilarityFlag:
    exercise: str  # exercise id
    students: tuple[str, ...]  # sorted; one student is enough when it is the solution that was matched
    to_solution: bool  # identical to the solution shipped with the package (else: to each other)


def normalised(source: str, function: str) -> str | None:
    """The canonical text of `function`'s last definition in `source`; None if there is none or it does not parse."""
    definition = extract.find_function(extract.cells_from_sources([source], "answer"), function)
    if definition.node is None:
        return None
    return canonical(definition.node)


def canonical(node: ast.stmt) -> str:
    tree = ast.parse(ast.unparse(node))  # a private copy to rewrite
    local = _LocalNames()
    local.visit(tree)
    renamer = _Renamer(local.names - local.declared_global)
    renamer.visit(tree)
    return ast.unparse(tree)


class _LocalNames(ast.NodeVisitor):
    """Every name bound inside the definition (its own name too); `global`/`nonlocal` names are left out."""

    def __init__(self):
        self.names: set[str] = set()
        self.declared_global: set[str] = set()

    def visit_FunctionDef(self, node):
        self.names.add(node.name)
        _drop_docstring(node)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node):
        self.names.add(node.arg)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node):
        self.declared_global.update(node.names)

    visit_Nonlocal = visit_Global


class _Renamer(ast.NodeTransformer):
    """Local names become v0, v1, … in the order the code first mentions them."""

    def __init__(self, local: set[str]):
        self.local = local
        self.new: dict[str, str] = {}

    def _name(self, old: str) -> str:
        if old not in self.local:
            return old
        return self.new.setdefault(old, f"v{len(self.new)}")

    def visit_FunctionDef(self, node):
        node.name = self._name(node.name)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node):
        node.arg = self._name(node.arg)
        node.annotation = None  # a type hint is formatting, not behaviour
        return node

    def visit_Name(self, node):
        node.id = self._name(node.id)
        return node

    def visit_ExceptHandler(self, node):
        if node.name:
            node.name = self._name(node.name)
        return self.generic_visit(node)


def _drop_docstring(node) -> None:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        node.body = body[1:] or [ast.Pass()]


def flags(exercise: str, answers: dict[str, str | None], solution: str | None,
          starter: str | None) -> list[SimilarityFlag]:
    """Flags for one exercise, from each student's normalised answer (None: no answer found).

    Students matching the solution make one flag; every other group of two or more
    students with the same answer makes one flag each.
    """
    groups: dict[str, list[str]] = {}
    for student, answer in answers.items():
        if answer is not None and answer != starter:
            groups.setdefault(answer, []).append(student)
    found = []
    if solution is not None and solution != starter and solution in groups:
        found.append(SimilarityFlag(exercise, tuple(sorted(groups.pop(solution))), True))
    found.extend(SimilarityFlag(exercise, tuple(sorted(students)), False)
                 for students in groups.values() if len(students) > 1)
    return sorted(found, key=lambda f: (not f.to_solution, f.students))
