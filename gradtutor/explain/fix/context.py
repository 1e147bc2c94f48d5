"""What every repair needs: the finding's context in the user's file (its tape, its call, its aliases) and shared edits.

A repair that does not recognise the code raises NoRepair with the reason's message id
(under `fix.none` in gradtutor/messages/<lang>/fix.toml).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gradtutor.explain.fix.source import Edit, Source

GRADIENT_CALLS = ("gradient", "jacobian", "batch_jacobian")
# Keras's math modules (keras.ops, the backend Keras 2 code calls K) spell some of TensorFlow's ops otherwise
KERAS_MATH = ("keras.ops", "keras.backend", "tensorflow.keras.backend", "tensorflow.keras.ops", "tf_keras.backend")
KERAS_SPELLING = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "clip_by_value": "clip",
                  "pow": "power"}


class NoRepair(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass


class Repair:
    edits: list[Edit]
    subject: str  # the sources whose gradient the repair is for, as the user's code names them
    line: int | None = None  # the gradient call it is judged at, when not the finding's (a watch's next gradient)
    notes: list[str] = field(default_factory=list)
    whole_run: bool = False  # its line asks for no gradient (a trainable flag's): judged by the whole re-run


class Context:
    def __init__(self, source: Source, finding: dict):
        self.source, self.finding = source, finding
        self.line = finding["line"]
        self.broke = (finding.get("broke_at") or {}).get("line") or self.line
        self.tf = source.module_alias("tensorflow") or "tf"
        self.np = source.module_alias("numpy")
        self.keras_math = {name for module in KERAS_MATH for name in source.names_bound_to(module)}

    def gradient_call(self) -> tuple[ast.Call, str]:
        for call in self.source.nodes_on(self.line, ast.Call):
            func = call.func
            if (isinstance(func, ast.Attribute) and func.attr in GRADIENT_CALLS and isinstance(func.value, ast.Name)
                    and len(call.args) >= 2):
                return call, func.value.id
        raise NoRepair("pattern")

    def tape_block(self, tape: str) -> tuple[ast.With, ast.withitem]:
        """The latest `with …GradientTape(…) as TAPE:` before the gradient call."""
        best = None
        for node in ast.walk(self.source.tree):
            if isinstance(node, ast.With) and node.lineno <= self.line:
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == tape and (
                            best is None or node.lineno > best[0].lineno):
                        best = (node, item)
        if best is None or best[0].body[0].lineno == best[0].lineno:
            raise NoRepair("pattern")
        return best

    def subject(self) -> str:
        try:
            call, _ = self.gradient_call()
        except NoRepair:
            return ", ".join(self.finding.get("sources") or [])
        return self.source.code(call.args[1])

    def is_tf(self, call: ast.AST, *names: str) -> bool:
        """Is `call` tf.NAME(…) (or tf.math.NAME, tf.nn.NAME) for one of the names?"""
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.func.attr not in names:
            return False
        owner = root(call.func)
        return isinstance(owner, ast.Name) and owner.id == self.tf

    def is_math(self, call: ast.AST, *names: str) -> bool:
        """is_tf, or the op called from Keras's math modules (`ops.sqrt`, `K.sum`, `keras.ops.square`)."""
        if self.is_tf(call, *names):
            return True
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            return False
        if call.func.attr not in {KERAS_SPELLING.get(name, name) for name in names}:
            return False
        owner = ast.unparse(call.func.value)
        tf_keras = (f"{self.tf}.keras.ops", f"{self.tf}.keras.backend")
        return owner in self.keras_math or owner in ("keras.ops", "keras.backend") + tf_keras


def root(node: ast.AST) -> ast.AST:
    """The start of an attribute chain: `tf` of `tf.math.log`, `K` of `K.log`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def fresh(c: Context, stem: str, taken=()) -> str:
    """A name the file does not use (nor any of `taken`, names a repair has already chosen): stem, stem_1, …"""
    names = {n.id for n in ast.walk(c.source.tree) if isinstance(n, ast.Name)} | set(taken)
    return next(n for n in (stem, *(f"{stem}_{i}" for i in range(1, 100))) if n not in names)


def scope_of(c: Context, node: ast.AST) -> ast.AST:
    """The function (or the module) the node is in."""
    while node in c.source.parents and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = c.source.parents[node]
    return node


def assigned(c: Context, name: ast.Name) -> ast.Assign | None:
    """The last `NAME = …` before the name is read, in the same function (or the module's own statements)."""
    scope = scope_of(c, name)
    found = [n for n in ast.walk(scope) if isinstance(n, ast.Assign) and n.lineno < name.lineno
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name.id]
    if not found and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found = [n for n in c.source.tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name.id]
    return max(found, key=lambda n: n.lineno) if found else None


def hoist(c: Context, call: ast.Call, block: ast.With, after: ast.stmt, form: str) -> list[Edit]:
    """The gradient's target computed as `NAME = form(target)` inside the block (after `after`), the call given NAME."""
    target = call.args[0]
    name = fresh(c, "target")
    end = after.end_lineno
    at = c.source.after_line(end)
    line = f"{c.source.indent(block.body[0].lineno)}{name} = {form.format(c.source.code(target))}{c.source.newline}"
    return [Edit(at, at, line), Edit(*c.source.span(target), name)]


def indent_unit(source: Source) -> str:
    """One level of indentation as the file writes it (four spaces when it has no block)."""
    for node in ast.walk(source.tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.stmt) and isinstance(body, list) and body and body[0].lineno > node.lineno:
            outer, inner = source.indent(node.lineno), source.indent(body[0].lineno)
            if inner.startswith(outer) and len(inner) > len(outer):
                return inner[len(outer):]
    return "    "


def drop_argument(source: Source, call: ast.Call, argument: ast.AST) -> Edit:
    """The edit that removes one argument of a call, with the comma that separated it."""
    items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    at = items.index(argument)
    start, end = source.span(argument)
    if at + 1 < len(items):
        end = source.span(items[at + 1])[0]
    elif at > 0:
        start = source.span(items[at - 1])[1]
    return Edit(start, end, "")


def renamed(source: Source, node: ast.Attribute, name: str) -> Edit:
    """`owner.attr` → `owner.name`: only the last name of the chain changes (tf.nn.relu → tf.nn.leaky_relu)."""
    end = source.span(node)[1]
    return Edit(end - len(node.attr), end, name)


def restrung(source: Source, node: ast.Constant, text: str) -> Edit:
    """A string literal given new text in the quotes it was written with ("relu" → "leaky_relu")."""
    start, end = source.span(node)
    quote = source.text[start]
    return Edit(start, end, f"{quote}{text}{quote}")


def called_name(call: ast.Call) -> str | None:
    """The name a call is made by: `SGD` of `keras.optimizers.SGD(…)` and of `SGD(…)`; None for anything else."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def overlap(edits: list[Edit]) -> bool:
    ordered = sorted(edits, key=lambda e: e.start)
    return any(a.end > b.start for a, b in zip(ordered, ordered[1:]))


def release_after_last_use(c: Context, block: ast.With, tape: str) -> list[Edit]:
    """`del TAPE` after the last statement beside the `with` block that uses the tape: a persistent tape holds every
    intermediate it recorded until it is deleted. None when that statement returns, or the name is used further on."""
    body = body_of(c.source, block)
    uses = [s for s in body[body.index(block) + 1:] if _names(s, tape)] if body else []
    if not uses or isinstance(uses[-1], (ast.Return, ast.Raise)):
        return []
    last = uses[-1]
    later = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Name) and n.id == tape and n.lineno > last.end_lineno]
    if later:
        return []
    end, newline = last.end_lineno, c.source.newline
    at = c.source.after_line(end)
    before = "" if c.source.text.endswith(("\n", "\r")) or at < len(c.source.text) else newline
    return [Edit(at, at, f"{before}{c.source.indent(last.lineno)}del {tape}{newline}")]


def body_of(source: Source, statement: ast.stmt) -> list:
    """The list of statements the statement is one of (a block's body, its else, its finally, the module's); [] when
    it is none of them."""
    parent = source.parents.get(statement)
    return next((getattr(parent, name) for name in ("body", "orelse", "finalbody")
                 if statement in (getattr(parent, name, None) or [])), [])


def _names(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def import_tensorflow(source: Source) -> Edit:
    """`import tensorflow as tf` after the file's last top-level import (at its top when it has none): a repair that
    writes a TensorFlow op into a script that imports only Keras and NumPy."""
    imports = [node for node in source.tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    below = imports[-1].end_lineno if imports else 0
    at = source.after_line(below)
    return Edit(at, at, f"import tensorflow as tf{source.newline}")
