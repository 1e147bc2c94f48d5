"""Is every GRADTUTOR_ environment variable documented, and every documented one real?

The names are read from the package, the Makefile, CI and the docs build; the table is
docs/reference/environment.md's (a row per variable, the name in backticks first).
"""
from __future__ import annotations

import re

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit

NAME = re.compile(r"\bGRADTUTOR_[A-Z0-9_]*[A-Z0-9]\b")
TABLE = REPO / "docs" / "reference" / "environment.md"
ROW = re.compile(r"^\|\s*`(GRADTUTOR_[A-Z0-9_]+)`\s*\|", re.M)


def _sources():
    yield from sorted((REPO / "gradtutor").rglob("*.py"))
    yield from sorted((REPO / "gradtutor").rglob("*.toml"))
    yield REPO / "Makefile"
    yield from sorted(p for p in (REPO / ".ci").rglob("*") if p.is_file())
    yield from sorted((REPO / "docs" / "hooks").glob("*.py"))


def _used() -> dict[str, list[str]]:
    """name → where it appears (path:line)."""
    where: dict[str, list[str]] = {}
    for path in _sources():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for name in NAME.findall(line):
                where.setdefault(name, []).append(f"{path.relative_to(REPO)}:{number}")
    return where


def _documented() -> list[str]:
    return ROW.findall(TABLE.read_text())


def test_every_variable_the_code_reads_is_documented():
    used = _used()
    assert used, "no GRADTUTOR_ variable found at all: is the pattern still right?"
    missing = {name: places[:3] for name, places in used.items() if name not in _documented()}
    assert not missing, f"add a row to {TABLE.relative_to(REPO)} (name, what it does, default) for: {missing}"


def test_every_documented_variable_is_read_somewhere():
    documented = _documented()
    assert len(documented) == len(set(documented)), f"a variable has two rows: {documented}"
    unused = sorted(set(documented) - set(_used()))
    assert not unused, f"{TABLE.relative_to(REPO)} documents variables nothing reads any more: {unused}"
