"""No cell but an answer defines an answer's name.

A demo cell that defines the function an exercise asks for (lesson 7 once had a demo
`layer_gradient_norms` beside exercise 4's answer of that name) replaces the learner's answer
whenever it runs after it: Run All, or a re-run of the demo. The check then grades the demo and
reports a wrong cause, while `gradtutor check` on the file says pass. So every name an answer cell
defines at its top level (def, class, assignment) must be defined by no other code cell.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Iterator

from gradtutor.course import conventions


def defined_names(source: str) -> set[str]:
    """The names a cell binds at its top level (inside if/for/with/try too, not inside a def or class)."""
    try:
        tree = ast.parse(conventions.without_solution_markers(source))
    except SyntaxError:
        return set()  # a cell that does not parse defines nothing here; the checker's own runs report it
    names: set[str] = set()
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            continue
        bound = [node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else \
            [item.optional_vars for item in getattr(node, "items", []) if item.optional_vars is not None]
        names.update(n.id for t in bound for n in ast.walk(t) if isinstance(n, ast.Name))
        for field in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(getattr(node, field, []) or [])
    return names


def shared_names(notebook: Path) -> Iterator[tuple[str, int, int]]:
    """(name, the other cell's index, the answer cell's index) for each name an answer shares with another cell.

    Indexes count every cell of the notebook from 1, markdown too, as Jupyter shows them in order.
    """
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [(number, cell) for number, cell in enumerate(cells, start=1) if cell.get("cell_type") == "code"]
    answers = {number: defined_names(conventions.cell_source(cell)) for number, cell in code if conventions.is_solution(cell)}
    for number, cell in code:
        if number in answers:
            continue
        for name in sorted(defined_names(conventions.cell_source(cell))):
            for answer, names in answers.items():
                if name in names:
                    yield name, number, answer
