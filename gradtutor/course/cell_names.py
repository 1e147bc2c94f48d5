"""Which names a code cell binds in its notebook's namespace, and which it reads from there: read from its text.

The classroom grader leaves out a lesson's demonstration cell only when no cell that runs reads a name the
demonstration binds (gradtutor.course.demonstrations); `gradtutor dev check` holds the lessons to the
same rule. Both answers lean the safe way for that use:

* `binds` is every name stored or deleted anywhere in the cell, at any depth (a function's locals too), every
  def, class and import name, every name declared global or nonlocal: more than the cell can bind, never less.
* `reads` follows Python's own scopes (symtable), so an answer's parameters and locals are not reads of the
  notebook's names: every name the top level uses, every global a function, class or comprehension uses, and
  every name an augmented assignment or a `del` needs to exist.
* a cell whose reads or binds its text cannot tell is `opaque`: it does not parse as Python (an IPython magic, a
  top-level await), it reaches the namespace some other way (globals(), eval, get_ipython(), IPython's In, Out
  and _5 history names, `__main__`, frames, sys.modules), or it imports with `*`.

Nothing here runs code.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
import symtable

# Names whose use reads the namespace as a whole, or IPython's history (which cells ran, and their outputs).
OPAQUE_NAMES = frozenset({"globals", "locals", "vars", "dir", "eval", "exec", "compile", "__import__",
                          "__builtins__", "get_ipython", "In", "Out", "_ih", "_oh", "_dh", "_", "__", "___",
                          "_i", "_ii", "_iii"})
_HISTORY_NAME = re.compile(r"_i{0,3}\d+$")  # IPython's _5 (an output) and _i5 (an input)
# Attributes that reach a namespace or a frame: module.__dict__, f.__globals__, frame.f_globals, sys.modules.
OPAQUE_ATTRIBUTES = frozenset({"__dict__", "__globals__", "f_globals", "f_locals", "f_back", "user_ns",
                               "modules", "_getframe"})
OPAQUE_MODULES = frozenset({"__main__", "builtins", "inspect", "gc", "ctypes", "IPython"})


@dataclasses.dataclass(frozen=True)
class CellNames:
    binds: frozenset = frozenset()
    reads: frozenset = frozenset()
    opaque: bool = False  # what it binds or reads cannot be told from its text


OPAQUE = CellNames(opaque=True)


@functools.lru_cache(maxsize=512)
def of(source: str) -> CellNames:
    """The names `source` (one code cell) binds and reads; OPAQUE when its text cannot tell."""
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return OPAQUE
    binds: set[str] = set()
    needed: set[str] = set()  # augmented assignments and del need the name to exist
    for node in ast.walk(tree):
        if _reaches_namespace(node):
            return OPAQUE
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            binds.add(node.id)
            if isinstance(node.ctx, ast.Del):
                needed.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            needed.add(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            binds.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            binds.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            binds.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            binds.add(node.rest)
    reads = _reads(table) | needed
    if any(name in OPAQUE_NAMES or _HISTORY_NAME.match(name) for name in reads):
        return OPAQUE
    return CellNames(frozenset(binds), frozenset(reads))


def _reaches_namespace(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in OPAQUE_ATTRIBUTES:
        return True
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] in OPAQUE_MODULES for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in OPAQUE_MODULES or any(a.name == "*" for a in node.names)
    return isinstance(node, ast.Constant) and node.value == "__main__"  # importlib.import_module("__main__")


def _reads(table: symtable.SymbolTable) -> set[str]:
    """Names the cell looks up in the notebook's namespace: the top level's, and every nested scope's globals."""
    found = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    pending = list(table.get_children())
    while pending:
        scope = pending.pop()
        # a class body looks a name up in the namespace when it is not yet bound in the class (`x = x`)
        in_class = scope.get_type() == "class"
        found.update(s.get_name() for s in scope.get_symbols() if s.is_referenced() and (s.is_global() or in_class))
        pending.extend(scope.get_children())
    return found
