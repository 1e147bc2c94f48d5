"""A function's code without its words: what a manifest rule's source pattern is matched against.

A rule (lesson.toml `source_has` / `source_lacks`) refines the wording of a cause the evidence
named; it must read what the code does, never what its docstring or comments say. The starter's
own docstring mentions the very calls a rule looks for (".numpy()", "sigmoid(logits)", …), so a
learner who kept it would otherwise be told about code they never wrote.
"""
from __future__ import annotations

import ast
import io
import tokenize


def code_only(source: str) -> str:
    """source with its comments and docstrings blanked out (line numbers kept); unchanged if it does not parse."""
    try:
        tree = ast.parse(source)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return source
    docstrings = {(node.body[0].lineno, node.body[0].col_offset) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}
    lines = source.splitlines(keepends=True)
    for token in reversed(tokens):  # from the end, so earlier positions stay valid
        if token.type == tokenize.COMMENT or token.type == tokenize.STRING and token.start in docstrings:
            _blank(lines, token.start, token.end)
    return "".join(lines)


def _blank(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> None:
    """Replace the text from start to end (tokenize's (row, col), rows from 1) by spaces, keeping newlines."""
    (row0, col0), (row1, col1) = start, end
    for row in range(row0, row1 + 1):
        line = lines[row - 1]
        left = col0 if row == row0 else 0
        right = col1 if row == row1 else len(line.rstrip("\r\n"))
        lines[row - 1] = line[:left] + " " * (right - left) + line[right:]
