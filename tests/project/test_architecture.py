"""Do gradtutor's modules import each other in one direction only?

Read from the source with `ast` (nothing is imported): every import of one of gradtutor's own
modules, absolute or relative, at the top or inside a function, is an edge. The import graph must
have no cycle, and no module may import one in a higher layer than its own.

ADDING A MODULE: put its name (dotted, relative to gradtutor/, e.g. "isolation.client";
the package itself is "__init__") or a pattern matching it into the right layer of LAYERS below.
A module no pattern matches fails the test, so the table always describes the whole package.
The packages are the layers; read top to bottom, the picture is
    front ends (cli, learner, classroom, explain, dev) → checking → isolation → course → evidence → ground
Lower layers never import higher ones. The evidence sits below the course: the recorder and its
reading need only the ground, so `gradtutor explain` runs on anyone's script without a course.
The house stays shallow: at most MAX_TOP_LEVEL modules directly in gradtutor/, and no package holds more
than MAX_PACKAGE_MODULES modules of its own (a bigger one is split into subpackages).
"""
from __future__ import annotations

import ast
import fnmatch
import sys
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit

PACKAGE = REPO / "gradtutor"

# Lowest first. fnmatch patterns over the dotted name relative to gradtutor/.
LAYERS: list[tuple[str, list[str]]] = [
    # Definitions everything shares: error types and exit codes, the worker protocol and its payloads,
    # constants, TensorFlow's log silencing, the message catalogues (and reading the package's TOML files).
    ("ground", ["errors", "protocol", "payloads", "defaults", "quiet", "stopping", "messages", "messages.*"]),
    # The one recorder of what TensorFlow ran around a tape (evidence.recording), and what it says
    # (evidence.reading): the checker's child records its run facts with it, `gradtutor explain` its findings.
    ("evidence", ["evidence", "evidence.*"]),
    # The course as data: the manifest (and its schema), naming conventions, reading a learner's file,
    # seeds and the hidden-input secret, the reference answers.
    ("course", ["course", "course.*"]),
    # Running learner code apart: the worker process, its client and server, the sandbox.
    ("isolation", ["isolation", "isolation.*"]),
    # Turning a learner's values into a verdict: what needs no run, comparison, diagnosis.
    ("checking", ["checking", "checking.precheck", "checking.compare", "checking.verdict", "checking.diagnose",
                  "checking.factors", "checking.requirements"]),
    # The checker: isolation and checking put together, one warm worker; and the one check service
    # (a typed request to a typed reply) that the daemon, the notebook's judge and the classroom's host.
    ("checker", ["checking.checker", "checking.service"]),
    # What people and other programs call: the CLI, the learner's path (notebooks' check(), hints, the
    # workspace, JupyterLab, the warm checker behind `gradtutor check`), nbgrader grading, explain, authoring.
    ("front ends", ["__init__", "__main__", "cli", "cli.*", "learner", "learner.*", "classroom", "classroom.*",
                    "explain", "explain.*", "dev", "dev.*"]),
]
# Front ends share a layer but not each other: a front end that imports another (the classroom
# drawing with the learner's terminal and notebook views) ties a library's pages to one front end's
# changes. (importer pattern, imported pattern, why) — each pair is forbidden at every depth.
APART: list[tuple[str, str, str]] = [
    ("classroom*", "learner*", "the classroom draws its own pages from checking's results"),
    # evidence.recording observes, evidence.reading concludes from what was recorded: the seams hand what they
    # see to the reading through the record (gradtutor.evidence.Reader), never by importing it
    ("evidence.recording*", "evidence.reading*", "the recording observes; the reading concludes from its records"),
]
MAX_TOP_LEVEL = 8
MAX_PACKAGE_MODULES = 12
# Every `import gradtutor.x` runs the package's __init__ first, so importing the package itself
# (for __version__, or to reach the package object) adds no dependency the submodule import did
# not already have; such edges are not counted.
ROOT = "__init__"


def _modules() -> dict[str, Path]:
    """Dotted name relative to gradtutor/ → file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The gradtutor modules `name` imports → the first line that does."""
    is_package = path.name == "__init__.py"
    package = ([] if name == ROOT else name.split(".")) if is_package else name.split(".")[:-1]

    def local(dotted: str) -> str | None:
        if dotted == "gradtutor":
            return ROOT
        if dotted.startswith("gradtutor."):
            return dotted[len("gradtutor."):]
        return None

    edges: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [local(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                dotted = ".".join(["gradtutor", *base, *([node.module] if node.module else [])])
            else:
                dotted = node.module or ""
            source = local(dotted)
            if source is not None:
                for alias in node.names:  # `from gradtutor import course` names a module, not an attribute
                    inner = f"{source}.{alias.name}" if source != ROOT else alias.name
                    targets.append(inner if inner in modules else source)
        for target in targets:
            if target is not None and target != name and target != ROOT:
                edges.setdefault(target, node.lineno)
    return edges


def _graph() -> tuple[dict[str, Path], dict[str, dict[str, int]]]:
    modules = _modules()
    return modules, {name: _imports(name, path, modules) for name, path in modules.items()}


def _layer(name: str) -> list[int]:
    return [i for i, (_, patterns) in enumerate(LAYERS) if any(fnmatch.fnmatchcase(name, p) for p in patterns)]


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (a → … → a) per strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(set(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)

    cycles = []
    for component in components:
        start = min(component)
        paths = {start: [start]}  # breadth-first inside the component, back to start: a shortest cycle
        queue = [start]
        while queue:
            node = queue.pop(0)
            for target in sorted(graph[node]):
                if target == start:
                    cycles.append(paths[node] + [start])
                    queue = []
                    break
                if target in component and target not in paths:
                    paths[target] = paths[node] + [target]
                    queue.append(target)
    return cycles


def test_the_import_graph_has_no_cycle():
    modules, graph = _graph()
    assert len(modules) > 10, f"found only {sorted(modules)} under {PACKAGE}"
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(
        "  " + " → ".join(cycle) + "   (" + ", ".join(
            f"{modules[a].relative_to(REPO)}:{graph[a][b]}" for a, b in zip(cycle, cycle[1:])) + ")"
        for cycle in cycles)


def test_every_module_has_one_layer():
    modules, _ = _graph()
    unknown = sorted(name for name in modules if not _layer(name))
    twice = sorted(f"{name} ({', '.join(LAYERS[i][0] for i in _layer(name))})" for name in modules if len(_layer(name)) > 1)
    assert not unknown, f"modules in no layer: {unknown}; add each to LAYERS at the top of {Path(__file__).name}"
    assert not twice, f"modules in more than one layer: {twice}; make LAYERS' patterns in {Path(__file__).name} exclusive"


def test_no_module_imports_a_higher_layer():
    modules, graph = _graph()
    wrong = []
    for name, targets in sorted(graph.items()):
        mine = _layer(name)
        for target, line in sorted(targets.items()):
            theirs = _layer(target)
            if len(mine) == 1 and len(theirs) == 1 and theirs[0] > mine[0]:
                wrong.append(f"{name} ({LAYERS[mine[0]][0]}) imports {target} ({LAYERS[theirs[0]][0]}) "
                             f"at {modules[name].relative_to(REPO)}:{line}")
    assert not wrong, "imports upwards (lower layers must not depend on higher ones):\n  " + "\n  ".join(wrong)


def test_parts_kept_apart_do_not_import_each_other():
    modules, graph = _graph()
    wrong = [f"{name} imports {target} at {modules[name].relative_to(REPO)}:{line} ({why})"
             for importer, imported, why in APART
             for name, targets in sorted(graph.items()) if fnmatch.fnmatchcase(name, importer)
             for target, line in sorted(targets.items()) if fnmatch.fnmatchcase(target, imported)]
    assert not wrong, "imports between parts kept apart:\n  " + "\n  ".join(wrong)
    # the rule reads the real graph: each pair names modules that exist, so it cannot pass by naming nothing
    for importer, imported, _ in APART:
        assert any(fnmatch.fnmatchcase(name, importer) for name in modules), f"{importer} matches no module"
        assert any(fnmatch.fnmatchcase(name, imported) for name in modules), f"{imported} matches no module"


def test_the_house_is_shallow():
    """Few modules at the top, and no package a flat room of many: a newcomer finds a part by its package."""
    modules = _modules()
    top = sorted(name for name, path in modules.items() if path.parent == PACKAGE)
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} modules directly in gradtutor/ (at most {MAX_TOP_LEVEL}): {top}"
    packages = {path.parent for path in modules.values() if path.name == "__init__.py"}
    crowded = {}
    for package in packages:
        own = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
        if len(own) > MAX_PACKAGE_MODULES:
            crowded[str(package.relative_to(REPO))] = len(own)
    assert not crowded, f"packages with more than {MAX_PACKAGE_MODULES} modules of their own (split them): {crowded}"


def test_the_graph_reader_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The reader itself, on a made-up package: absolute, relative, from-package and in-function imports."""
    package = tmp_path / "gradtutor"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from gradtutor.a import x\n")
    (package / "a.py").write_text("import gradtutor.b\nfrom gradtutor import c\nimport gradtutor\n")
    (package / "b.py").write_text("def f():\n    from .sub import d\n")
    (package / "c.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import d\nfrom .. import a\n")
    (package / "sub" / "d.py").write_text("from ..c import y\nfrom gradtutor.sub import d as again\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    _, graph = _graph()
    assert graph == {"__init__": {"a": 1}, "a": {"b": 1, "c": 2}, "b": {"sub.d": 2}, "c": {},
                     "sub": {"sub.d": 1, "a": 2}, "sub.d": {"c": 1}}
    assert _cycles(graph) == []
    assert _cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c", "a"]]
