"""Read a learner's file into code cells, find the exercise functions in them, and say what of a cell runs.

The checker loads a learner's cells the way their kernel did, minus the top-level
work that is unsafe or slow to repeat: it keeps every statement that defines a
name (imports, functions and classes with their decorators, assignments of any
expression: `fast = tf.function(impl)`, lambdas, models) and skips bare
expressions (prints, plots, `model.fit(...)`), loops, `with` blocks and any
assignment whose value calls a function the notebook defines itself (a demo, a
timing, a training run) or one of the slow or unsafe calls in SKIPPED_CALLS. That rule is `statement_kind` below, read by
the child that loads the cells (`loaded_statements`) and by the classroom's
re-check (`only_definitions`). This module only reads and parses; nothing here
executes learner code.
"""
from __future__ import annotations

import ast
import dataclasses
import enum
import json
import re
from pathlib import Path

from gradtutor.errors import UnreadableFile  # noqa: F401 - raised here, caught by its base class
from gradtutor.messages import say


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
        raise UnreadableFile(say("files.missing", path=path)) from None
    except IsADirectoryError:
        raise UnreadableFile(say("files.folder", path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableFile(say("files.unreadable", path=path, error=exc.__class__.__name__)) from None
    if path.suffix == ".py":
        return [Cell(path.name, text)]
    if path.suffix != ".ipynb":
        raise UnreadableFile(say("files.wrong_kind", path=path))
    return _notebook_cells(path, text)


def _notebook_cells(path: Path, text: str) -> list[Cell]:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFile(say("files.bad_json", path=path, line=exc.lineno, error=exc.msg)) from None
    if not isinstance(notebook, dict):
        raise UnreadableFile(say("files.not_object", path=path))
    major = notebook.get("nbformat")
    if major != 4:
        raise UnreadableFile(say("files.old_format", path=path, version=repr(major)))
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise UnreadableFile(say("files.no_cells", path=path))
    result = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number = len(result) + 1  # among code cells, as an editor shows them (markdown cells are not counted)
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise UnreadableFile(say("files.no_source", path=path, number=number))
        count = cell.get("execution_count")
        shown = f" (In [{count}])" if isinstance(count, int) and not isinstance(count, bool) else ""
        result.append(Cell(say("files.cell_label", file=path.name, number=number, shown=shown), _without_magics(source)))
    return result


def cells_from_sources(sources: list[str], label: str) -> list[Cell]:
    """Cells from sources already in memory (a notebook kernel's input history)."""
    return [Cell(f"{label} {n}", _without_magics(s)) for n, s in enumerate(sources, start=1)]


@dataclasses.dataclass(frozen=True)
class Definition:
    """Where an exercise function is defined, and its code."""

    cell: Cell | None  # None: not defined anywhere
    syntax_error: str | None = None  # set when the defining cell does not parse
    node: ast.FunctionDef | ast.Assign | None = None

    @property
    def source(self) -> str:
        if self.node is None or self.cell is None:
            return ""
        return ast.get_source_segment(self.cell.source, self.node) or ""


def find_function(cells: list[Cell], name: str) -> Definition:
    """The last top-level `def name` or `name = ...` (a wrapper, a lambda) in the cells: the last one wins."""
    found = Definition(None)
    pattern = re.compile(rf"^(def\s+{re.escape(name)}\s*\(|{re.escape(name)}\s*=)", re.MULTILINE)
    for cell in cells:
        if name not in cell.source:  # cannot define it: not parsed (a check looks up every exercise's function)
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError as exc:
            if pattern.search(cell.source):
                found = Definition(cell, syntax_error=_describe_syntax_error(cell, exc))
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name or \
                    isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found = Definition(cell, node=node)
    return found


def _describe_syntax_error(cell: Cell, exc: SyntaxError) -> str:
    return say("files.syntax_error", error=exc.__class__.__name__, where=cell.label, line=exc.lineno, message=exc.msg)


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


# --------------------------------------------------------------------------- what of a cell runs


class Statement(enum.Enum):
    """What a top-level statement of a cell is, for the one "definitions only" rule."""

    IMPORT = "import"
    FUNCTION = "function"  # def, async def
    CLASS = "class"  # its body runs when it is defined
    CONSTANT = "constant"  # an assignment of a literal (`N = 3`, `SHAPE: tuple = (2, 3)`)
    BINDING = "binding"  # an assignment of any other expression that does no work (`f = tf.function(g)`)
    INERT = "inert"  # a docstring or `pass`: nothing to run
    WORK = "work"  # anything else: calls, loops, training, plotting


# What the checker's child runs of each cell; the rest of the cell is skipped.
LOADED = frozenset({Statement.IMPORT, Statement.FUNCTION, Statement.CLASS, Statement.CONSTANT, Statement.BINDING})

# Calls that make an assignment top-level work: slow to repeat (training, evaluation), output
# (printing, plotting, display) or writes outside the checker's control.
SKIPPED_CALLS = frozenset({"print", "display", "input", "open", "exec", "eval", "breakpoint", "help",
                           "fit", "fit_generator", "train_on_batch", "evaluate", "predict", "save", "save_weights",
                           "savefig", "show", "imshow", "plot", "subplots", "figure", "to_csv", "write", "system"})
SKIPPED_MODULES = frozenset({"plt", "matplotlib", "pyplot", "sns", "seaborn", "os", "subprocess", "shutil", "time"})


def statement_kind(node: ast.stmt, notebook_functions: frozenset = frozenset()) -> Statement:
    """What a top-level statement is; `notebook_functions`: the names the notebook itself defines with def."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return Statement.IMPORT
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return Statement.FUNCTION
    if isinstance(node, ast.ClassDef):
        return Statement.CLASS
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _is_literal(node.value):
        return Statement.CONSTANT
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and \
            not _does_work(node.value, notebook_functions):
        return Statement.BINDING
    if isinstance(node, ast.Pass) or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return Statement.INERT
    return Statement.WORK


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _does_work(value: ast.expr, notebook_functions: frozenset) -> bool:
    """Does evaluating this expression call the notebook's own functions or a skipped call? (Lambda bodies do not run.)"""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            root = func
            while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if name in SKIPPED_CALLS or isinstance(func, ast.Name) and name in notebook_functions or \
                    isinstance(root, ast.Name) and root.id in SKIPPED_MODULES:
                return True
        pending.extend(ast.iter_child_nodes(node))
    return False


def notebook_functions(trees: list[ast.Module]) -> frozenset:
    """The names every cell defines with a top-level def."""
    return frozenset(node.name for tree in trees for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def loaded_statements(tree: ast.Module, functions: frozenset = frozenset()) -> list[ast.stmt]:
    """The statements of a parsed cell that the checker runs (LOADED), in order."""
    return [node for node in tree.body if statement_kind(node, functions) in LOADED]


def only_definitions(source: str, local_modules: set[str]) -> bool:
    """Does running this whole cell only define things, so no code of it can run before a check?

    Stricter than what the checker loads, because here the cell runs as written (in a
    notebook kernel): only INERT statements and definitions that run nothing of the
    learner's when defined — no classes (their body runs), no decorators, defaults or
    annotations beyond names and constants, constants bound to plain names, imports
    of no module from the notebook's folder (`local_modules`) — and no IPython magics.
    """
    if any(line.lstrip().startswith(("%", "!")) for line in source.splitlines()):
        return False
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True  # the kernel runs none of it
    return all(_defines_only(node, statement_kind(node), local_modules) for node in tree.body)


def _defines_only(node: ast.stmt, kind: Statement, local_modules: set[str]) -> bool:
    if kind is Statement.INERT:
        return True
    if kind is Statement.IMPORT:
        if isinstance(node, ast.ImportFrom):
            return not node.level and (node.module or "").split(".")[0] not in local_modules
        return not any(alias.name.split(".")[0] in local_modules for alias in node.names)
    if kind is Statement.FUNCTION:
        arguments = node.args
        every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + \
            [a for a in (arguments.vararg, arguments.kwarg) if a]
        evaluated = [node.returns, *(a.annotation for a in every), *arguments.defaults,
                     *(d for d in arguments.kw_defaults if d)]
        return not node.decorator_list and all(_simple(e) for e in evaluated)
    if kind is Statement.CONSTANT:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) for t in targets)
    return False  # a class body, or work


def _simple(node: ast.expr | None) -> bool:
    """An expression that cannot run learner code when evaluated: a name, a constant, an attribute of one."""
    if node is None or isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_simple(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    return False
