"""Read a learner's file into code cells, and find the exercise functions in them.

The checker never runs a whole notebook: from every code cell it keeps only the
statements that define things (imports, functions, classes, literal constants),
so slow or stateful top-level code (training loops, plots) is skipped and an
exercise can be graded on its own. This module only reads and parses; nothing
here executes learner code.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

from gradtutor.errors import UnreadableFile  # noqa: F401 - raised here, caught by its base class


@dataclasses.dataclass(frozen=True)
class Cell:
    """One code cell (or a whole .py file), with where it came from."""

    label: str  # e.g. "lesson1.ipynb, cell 7" — how errors point at it
    source: str  # IPython magics already commented out

    def to_json(self) -> dict:
        return {"label": self.label, "source": self.source}


# `%matplotlib inline`, `!pip install x`, `%%time`: IPython syntax, not Python.
_MAGIC = re.compile(r"^(\s*)([%!])", re.MULTILINE)


def _without_magics(source: str) -> str:
    return _MAGIC.sub(r"\1# \2", source)


def read_cells(path: Path) -> list[Cell]:
    """Code cells of a notebook, or one cell holding a .py file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableFile(f"{path}: no such file — check the path, or run `gradtutor init` to get the lessons") from None
    except IsADirectoryError:
        raise UnreadableFile(f"{path}: is a folder — name the notebook (.ipynb) or .py file inside it") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableFile(f"{path}: cannot be read ({exc.__class__.__name__}) — is it a text file?") from None
    if path.suffix == ".py":
        return [Cell(path.name, text)]
    if path.suffix != ".ipynb":
        raise UnreadableFile(f"{path}: not a notebook (.ipynb) or Python (.py) file")
    return _notebook_cells(path, text)


def _notebook_cells(path: Path, text: str) -> list[Cell]:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFile(
            f"{path}: not valid notebook JSON (line {exc.lineno}: {exc.msg}) — "
            "restore it with `gradtutor reset` (your file is kept as a backup) or from your editor's history"
        ) from None
    if not isinstance(notebook, dict):
        raise UnreadableFile(f"{path}: not a Jupyter notebook (the JSON is not an object)")
    major = notebook.get("nbformat")
    if major != 4:
        raise UnreadableFile(
            f"{path}: notebook format {major!r} is not supported — open and save it in a current Jupyter "
            "(nbformat 4), or run `jupyter nbconvert --to notebook --nbformat 4`"
        )
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise UnreadableFile(f"{path}: the notebook has no list of cells")
    result = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise UnreadableFile(f"{path}: cell {number} has no readable source")
        result.append(Cell(f"{path.name}, cell {number}", _without_magics(source)))
    return result


def cells_from_sources(sources: list[str], label: str) -> list[Cell]:
    """Cells from sources already in memory (a notebook kernel's input history)."""
    return [Cell(f"{label} {n}", _without_magics(s)) for n, s in enumerate(sources, start=1)]


@dataclasses.dataclass(frozen=True)
class Definition:
    """Where an exercise function is defined, and its code."""

    cell: Cell | None  # None: not defined anywhere
    syntax_error: str | None = None  # set when the defining cell does not parse
    node: ast.FunctionDef | None = None

    @property
    def source(self) -> str:
        if self.node is None or self.cell is None:
            return ""
        return ast.get_source_segment(self.cell.source, self.node) or ""


def find_function(cells: list[Cell], name: str) -> Definition:
    """The last top-level `def name` in the cells (notebook order: the last one wins)."""
    found = Definition(None)
    pattern = re.compile(rf"^def\s+{re.escape(name)}\s*\(", re.MULTILINE)
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError as exc:
            if pattern.search(cell.source):
                found = Definition(cell, syntax_error=_describe_syntax_error(cell, exc))
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                found = Definition(cell, node=node)
    return found


def _describe_syntax_error(cell: Cell, exc: SyntaxError) -> str:
    return f"{exc.__class__.__name__} in {cell.label}, line {exc.lineno}: {exc.msg}"


def fingerprint(node: ast.AST) -> str:
    """The function's code without positions or docstring: equal means unchanged."""
    node = _strip_docstring(node)
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def _strip_docstring(node: ast.AST) -> ast.AST:
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            node = _shallow_copy(node)
            node.body = body[1:] or [ast.Pass()]
    return node


def _shallow_copy(node: ast.AST) -> ast.AST:
    clone = node.__class__()
    for field in node._fields:
        setattr(clone, field, getattr(node, field, None))
    return clone


def mentions(source: str, pattern: str) -> bool:
    return re.search(pattern, source) is not None
