"""Answers identical to the shipped solution or to another student's, once names and layout are set aside.

Two answers are "the same" when their function definitions, parsed with `ast`,
are equal after: docstrings and comments dropped, the function's own name and
every name local to it (arguments, assigned names, loop / with / except targets,
comprehension variables, nested functions) renamed in order of first use, and
the code printed back by `ast.unparse`. Global names (`tf`, `np`) and attributes
keep theirs: using another API is a different answer.

For a 3–6-line exercise most correct answers are the same, so "identical" alone
says nothing. Per exercise, the answers are sorted into:
- the shipped solution: only counted (writing it is what the lesson teaches);
- a correct form common in the class (COMMON_SHARE of the answers, at least
  COMMON_AT_LEAST students): only counted, it is how many people write it;
- a wrong answer shared by two or more students: a shared mistake, listed with
  the diagnosis most of them got — a misconception to teach again;
- any other answer shared by two or more students: the flag worth a look.
A flag is for the instructor to look at, never a score change. An answer equal
to the starter (not attempted) is never compared.
"""
from __future__ import annotations

import ast
import dataclasses
import math
from collections import Counter

from gradtutor.course import extract

# A correct answer this share of the class's answers wrote (and at least this many students) is a
# common way to write it, not a sign of copying: counted, not flagged. A class of 20 has no common
# form but the solution unless 5 wrote it; a class of 600 needs 60.
COMMON_SHARE = 0.1
COMMON_AT_LEAST = 5


@dataclasses.dataclass(frozen=True)
class SimilarityFlag:
    """Two or more students with the same answer, once names and layout are set aside."""

    exercise: str  # exercise id
    students: tuple[str, ...]  # sorted
    mistake: bool = False  # a wrong answer they share: a misconception to teach again (else: look at it)
    diagnosis: str | None = None  # for a mistake: the diagnosis most of them got (a cause id or a label)


@dataclasses.dataclass(frozen=True)
class ExerciseSimilarity:
    """One exercise's answers compared across the class."""

    exercise: str
    solution: int = 0  # students whose answer is the shipped solution: a count, no names
    common: int = 0  # students whose answer is a form common in the class: a count, no names
    flags: tuple[SimilarityFlag, ...] = ()  # shared answers first, then shared mistakes; bigger groups first


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


def compare(exercise: str, answers: dict[str, str | None], solution: str | None, starter: str | None,
            wrong: dict[str, str]) -> ExerciseSimilarity:
    """The exercise's answers sorted as the module says, from each student's normalised answer (None: none found).

    `wrong`: student → the diagnosis of their answer, for the students it failed or raised for.
    """
    groups: dict[str, list[str]] = {}
    for student, answer in answers.items():
        if answer is not None and answer != starter:
            groups.setdefault(answer, []).append(student)
    common_at = max(COMMON_AT_LEAST, math.ceil(COMMON_SHARE * sum(map(len, groups.values()))))
    as_solution = len(groups.pop(solution, ())) if solution is not None and solution != starter else 0
    common, found = 0, []
    for students in (tuple(sorted(group)) for group in groups.values() if len(group) > 1):
        if all(student in wrong for student in students):
            diagnoses = Counter(wrong[student] for student in students)
            most = min(diagnoses, key=lambda name: (-diagnoses[name], name))
            found.append(SimilarityFlag(exercise, students, mistake=True, diagnosis=most))
        elif len(students) >= common_at:
            common += len(students)
        else:
            found.append(SimilarityFlag(exercise, students))
    found.sort(key=lambda flag: (flag.mistake, -len(flag.students), flag.students))
    return ExerciseSimilarity(exercise, as_solution, common, tuple(found))
