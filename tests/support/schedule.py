"""The order in which `make test`'s two xdist workers are handed the long xdist groups: the longest first.

Under `--dist loadgroup` a worker takes a whole group (or one test of no group) at a time, from a queue
built in collection order when `--no-loadscope-reorder` is given; xdist's default orders that queue by
the number of tests instead. By that count the long groups with few tests came last: the plain nbgrader
course (one serial `nbgrader autograde` of ~10 minutes, 14 tests) then started while the other worker
was nearly done, and ran on alone. Longest first (as LPT scheduling does) leaves only short modules for
the end, which whichever worker is free takes. Any test order is still a valid run; this one is faster.
"""
from __future__ import annotations

from gradtutor import messages


def plain_nbgrader_group(lang: str) -> str:
    """The group of tests/classroom/test_plain_nbgrader.py's tests in one language (one course per language)."""
    return f"plain_nbgrader_{lang}"


# The long groups, longest first; seconds for the whole group in the last full run (`--durations`, 2 loaded
# cores): classroom ~1400, hostile_grade ~650, answers ~450, plain_nbgrader_* ~320 each, docs ~300,
# explain_corpus ~300, dask ~200.
LONGEST_FIRST = ("classroom", "hostile_grade", "answers", *map(plain_nbgrader_group, messages.LANGUAGES), "docs",
                 "explain_corpus", "dask")


def group_of(item) -> str | None:
    """The xdist group a test is marked with (xdist joins several with '_'; none here has several)."""
    names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                    for mark in item.iter_markers("xdist_group")})
    return "_".join(names) or None


def longest_first(items: list) -> None:
    """Reorder items in place: the long groups' tests first, in LONGEST_FIRST's order, then every other group's,
    then the tests of no group, as collected.

    A group is handed out whole, so one met late (the hostile corpus through the checker, the warm daemon's,
    the Lab's, each minutes long) can keep one worker busy while the other has nothing left; the tests of
    no group go one by one to whichever worker is free, so they are what evens out the end.
    Within a group, and within every other module, the collected order is kept (a stable sort).
    """
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(group_of(item), len(rank) if group_of(item) else len(rank) + 1))


def module_group(item) -> str | None:
    """The group of a test of no group that uses a fixture of its module's scope: its module.

    A module-scoped fixture is made once per worker that runs a test using it. Handed out one by one, a
    module's tests land on both workers, and both make it: the explain corpus run, a guide's examples in
    TensorFlow, a warm forker or checker. As one group, its tests share one worker and one fixture.
    """
    if group_of(item) is not None or getattr(item, "_fixtureinfo", None) is None:
        return None
    defs = item._fixtureinfo.name2fixturedefs
    if any(defs.get(name) and defs[name][-1].scope == "module" for name in item.fixturenames):
        return item.nodeid.split("::")[0]
    return None


def group_by_module_fixtures(items: list) -> None:
    """Mark each test that module_group gives a group with it (before xdist reads the marks into node ids)."""
    import pytest

    for item in items:
        group = module_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))

