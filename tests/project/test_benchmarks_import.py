"""`make bench` runs each benchmark as a module only there: a name it imports from the package that moved away
would fail the bench run alone, long after the change that moved it. Each import is resolved here, statically
(the modules named are imported; the benchmarks themselves are not run)."""
from __future__ import annotations

import ast
import importlib
import importlib.util

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit

BENCHMARKS = sorted((REPO / "benchmarks").glob("*.py"))


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("gradtutor", "tests",
                                                                                            "benchmarks"):
            yield from ((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names if alias.name.split(".")[0] in ("gradtutor", "tests"))


def _has(module, name: str) -> bool:
    """A name the module defines, or a submodule of a package."""
    return hasattr(module, name) or (hasattr(module, "__path__") and
                                     importlib.util.find_spec(f"{module.__name__}.{name}") is not None)


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_from_the_project_exists(path):
    missing = []
    for module, name in _imports(path):
        if importlib.util.find_spec(module) is None:
            missing.append(module)
        elif name is not None and not _has(importlib.import_module(module), name):
            missing.append(f"{module}.{name}")
    assert not missing, f"benchmarks/{path.name} imports what is not there: {missing}"


def test_the_benchmarks_are_found():
    assert {"run.py", "bench_memory.py", "bench_grading.py"} <= {p.name for p in BENCHMARKS}
