"""The user's file as text, tokens' places and syntax tree; edits by character span, the patched text and its diff.

Edits replace exact spans of the original text (from the syntax tree's positions), so a patch
touches only the characters it must and keeps the rest of the user's formatting.
"""
from __future__ import annotations

import ast
import difflib
import io
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    start: int  # character offsets into the original text
    end: int
    text: str


class Source:
    def __init__(self, text: str, name: str = "script.py"):
        self.text, self.name = text, name
        self.tree = ast.parse(text)
        self.lines = text.splitlines(keepends=True)
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line))
        first = self.lines[0] if self.lines else "\n"
        self.newline = "\r\n" if first.endswith("\r\n") else "\r" if first.endswith("\r") else "\n"
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def offset(self, lineno: int, col: int) -> int:
        """The character offset of (line, UTF-8 byte column), as ast gives positions."""
        line = self.lines[lineno - 1] if lineno <= len(self.lines) else ""
        return self._starts[lineno - 1] + len(line.encode()[:col].decode(errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset))

    def code(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_start(self, lineno: int) -> int:
        return self._starts[lineno - 1]

    def after_line(self, lineno: int) -> int:
        """The offset just after line `lineno`: where the next line starts, or the end of the text after the last."""
        return self.line_start(lineno + 1) if lineno < len(self.lines) else len(self.text)

    def indent(self, lineno: int) -> str:
        line = self.lines[lineno - 1]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def nodes_on(self, lineno: int, kind=ast.AST):
        return [n for n in ast.walk(self.tree) if isinstance(n, kind) and getattr(n, "lineno", None) is not None
                and n.lineno <= lineno <= n.end_lineno]

    def statement_at(self, lineno: int) -> ast.stmt | None:
        """The innermost statement that covers the line."""
        found = [n for n in self.nodes_on(lineno, ast.stmt)]
        return min(found, key=lambda n: n.end_lineno - n.lineno, default=None)

    def multiline_strings(self) -> set[int]:
        """Lines inside (not at the start of) a string token that spans lines: they must not be re-indented."""
        inside = set()
        for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
        return inside

    def module_alias(self, module: str) -> str | None:
        """The name the file gives a module (`import numpy as np` → np)."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == module:
                        return alias.asname or alias.name
        return None


    def names_bound_to(self, module: str) -> set[str]:
        """Every name the file binds to a module (`from keras import ops` → ops for keras.ops; `import keras.ops as
        kops` → kops; `import keras.ops` → keras.ops)."""
        found = set()
        parent, _, last = module.rpartition(".")
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                found |= {alias.asname or alias.name for alias in node.names if alias.name == module}
            elif isinstance(node, ast.ImportFrom) and node.module == parent and not node.level:
                found |= {alias.asname or alias.name for alias in node.names if alias.name == last}
        return found


def apply(text: str, edits: list[Edit]) -> str:
    """The text with the edits made (they must not overlap)."""
    out, at = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < at:
            raise ValueError("overlapping edits")
        out.append(text[at:edit.start])
        out.append(edit.text)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


def diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{name}", tofile=f"b/{name}"))


def names_in(nodes) -> set[str]:
    """The names read or bound anywhere in these AST nodes."""
    return {name.id for node in nodes for name in ast.walk(node) if isinstance(name, ast.Name)}


def names_read_now(statements) -> set[str]:
    """The names these statements read or bind when they run: not those in a lambda's or a function's body, read
    only when it is called."""
    later = {id(n) for s in statements for f in ast.walk(s) if isinstance(f, (ast.Lambda, ast.FunctionDef))
             for part in ([f.body] if isinstance(f, ast.Lambda) else f.body) for n in ast.walk(part)}
    return {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and id(n) not in later}
