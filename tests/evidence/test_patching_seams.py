"""Does only gradtutor/evidence/ patch TensorFlow's seams?

One recorder watches what a learner's code does with a tape (gradtutor.evidence: the checker's
run facts and `gradtutor explain`'s findings). A second module that wraps GradientTape, a
tensor's conversions (numpy / __array__ / __float__ / __int__), tf.numpy_function or the C
fast path, or installs an op callback, would be a second recorder seeing different things.
Read from the source with `ast` (nothing is imported): an assignment or `setattr` onto one of
those seams, or a call of `add_op_callback`, anywhere in gradtutor/ outside evidence/ fails.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit

PACKAGE = REPO / "gradtutor"
RECORDER = PACKAGE / "evidence"
# attributes whose replacement changes how a tensor leaves TensorFlow or how an op runs
SEAM_ATTRIBUTES = frozenset({"numpy", "__array__", "__float__", "__int__", "__array_function__",
                             "numpy_function", "py_func", "TFE_Py_FastPathExecute"})
# objects any of whose attributes, replaced, is a recorder (and names bound to them in the module)
SEAM_OBJECTS = ("GradientTape", "ForwardAccumulator", "_EagerTensorBase", "op_callbacks")


def _mentions_seam(node: ast.AST, aliases: set[str]) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr in SEAM_OBJECTS:
            return True
        if isinstance(inner, ast.Name) and (inner.id in SEAM_OBJECTS or inner.id in aliases):
            return True
    return False


def patches(source: str) -> list[tuple[int, str]]:
    """(line, what) for every seam the module's code patches."""
    tree = ast.parse(source)
    aliases: set[str] = set()
    for node in ast.walk(tree):  # tape_class = tf.GradientTape, eager_base = ops._EagerTensorBase, …
        if isinstance(node, ast.Assign) and _mentions_seam(node.value, set()):
            aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            targets = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        for target in targets:
            if isinstance(target, ast.Attribute) and (target.attr in SEAM_ATTRIBUTES
                                                      or _mentions_seam(target.value, aliases)):
                found.append((node.lineno, ast.unparse(target)))
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name.endswith("add_op_callback"):
                found.append((node.lineno, name))
            elif name == "setattr" and node.args:
                attribute = node.args[1] if len(node.args) > 1 else None
                named = isinstance(attribute, ast.Constant) and attribute.value in SEAM_ATTRIBUTES
                if named or _mentions_seam(node.args[0], aliases):
                    found.append((node.lineno, ast.unparse(node)))
    return found


def _found(under: Path, skip: Path | None = None) -> dict[str, list[tuple[int, str]]]:
    return {str(path.relative_to(REPO)): hits for path in sorted(under.rglob("*.py"))
            if not (skip and skip in path.parents) and (hits := patches(path.read_text(encoding="utf-8")))}


def test_only_the_evidence_package_patches_tensorflow():
    outside = _found(PACKAGE, skip=RECORDER)
    assert not outside, "patched outside gradtutor/evidence/ (record through gradtutor.evidence instead):\n" + "\n".join(
        f"  {path}:{line}: {what}" for path, hits in outside.items() for line, what in hits)


def test_the_reader_finds_the_recorders_own_patches():
    """The check above is only as good as its reader: on evidence/ it must see the one recording's patches
    (instrument, the listeners' seams, forward mode's accumulator, sampling's swap of the fast path), and the checker's run facts
    (gradtutor.evidence.reading.run_facts) must patch nothing: they are a listener on that recording."""
    inside = _found(RECORDER)
    assert set(inside) == {"gradtutor/evidence/recording/instrument.py", "gradtutor/evidence/recording/listening.py",
                           "gradtutor/evidence/recording/forward.py", "gradtutor/evidence/recording/sampling.py"}, sorted(inside)
    made_up = ("import tensorflow as tf\nfrom tensorflow.python.framework import ops, op_callbacks\n"
               "tape = tf.GradientTape\nsetattr(tape, 'gradient', None)\ntf.GradientTape.watch = None\n"
               "ops._EagerTensorBase.__float__ = float\ntf.numpy_function = print\n"
               "op_callbacks.add_op_callback(print)\nx = tf.GradientTape()\nx.gradient(1, 2)\n")
    assert sorted(line for line, _ in patches(made_up)) == [4, 5, 6, 7, 8]
