"""Shared fixtures (one warm checker per test process, grading code) and the test tiers.

Every test has exactly one tier marker (registered in pyproject.toml):

    unit      no TensorFlow (in this process or any it starts), no nbgrader, no browser: `make test-fast`
    tf        imports TensorFlow or starts the checker's worker (`gradtutor check`, `watch`, check())
    nbgrader  drives nbgrader: a course folder, `gradtutor grade`, nbgrader's own commands
    browser   the built docs site in Chromium

A test that needs several takes the heaviest (browser > nbgrader > tf > unit). A module of one tier
says so once (`pytestmark = pytest.mark.unit`); a module that mixes tiers marks each test. Helpers
that are not fixtures live in tests/support/.
"""
from __future__ import annotations

import ast
import functools
import os
import sys
import time
import uuid
from pathlib import Path

import pytest

from gradtutor.course.secret import new_secret
from gradtutor.dev.answers import STANDARD_IMPORTS  # the known answers are graded with these imports too
from tests.support import REPO, TEST_HOME, schedule

TIERS = ("unit", "tf", "nbgrader", "browser")
# The fixtures below that start the checker's worker, which imports TensorFlow.
WORKER_FIXTURES = {"checker", "grade", "hostile_checker"}
# Stands in for TensorFlow in every subprocess of a unit-tier session (a CLI, the checker's worker).
TF_STUB = REPO / "test-output" / "unit-tier" / "tensorflow" / "__init__.py"

os.environ.setdefault("GRADTUTOR_HOME", str(TEST_HOME))
# `gradtutor check` in-process unless a test asks for the warm checker (tests/learner/test_daemon.py starts and stops its own)
os.environ.setdefault("GRADTUTOR_NO_DAEMON", "1")
# The hidden inputs the shared checker grades on: a course's, from a secret drawn as `gradtutor classroom
# init` draws one. New each session (the xdist workers get the main process's), and named in the
# header, so a failure can be replayed (`python -m gradtutor.dev.sweep --secret ...`). Outside this
# checker, as for a learner, there are no hidden inputs.
COURSE_SECRET = new_secret()
# Marks every process this test session starts (children inherit it, and most tests pass os.environ on): at
# the end, one still running with this very value, or below this process, outlived the test that started
# it (pytest_sessionfinish). A value new each session, so other sessions' processes are never taken for ours;
# it starts with the pid of the process that made it, the only one that looks (not xdist's workers, which
# inherit it, nor a pytest a test runs, whose processes the outer session's look covers).
LEFTOVER_MARK = "PYTEST_GRADTUTOR_SESSION"
os.environ.setdefault(LEFTOVER_MARK, f"{os.getpid()}-{uuid.uuid4().hex}")
# seconds for processes stopped in the last teardowns to finish exiting: a checker's fork server told to stop
# while it still imports TensorFlow exits only once the import is done, which takes tens of seconds on a busy
# machine. A process that outlived its test for good is still running after this, and is named.
LEFTOVER_GRACE = 90.0


def pytest_report_header(config):
    return f"gradtutor: the checker fixture grades the hidden inputs of a course whose secret is {COURSE_SECRET}"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):  # xdist, in the main process: each worker grades on the same secret
    node.workerinput["gradtutor_course_secret"] = COURSE_SECRET


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def course_hidden_inputs():
    """The hidden inputs of a course whose secret is COURSE_SECRET: what its grader's checker runs."""
    from gradtutor.course.seeds import HiddenInputs

    return HiddenInputs(secret=COURSE_SECRET)


@pytest.fixture(scope="session")
def checker(course_hidden_inputs):
    """A course's checker (its hidden inputs from COURSE_SECRET), its worker with TensorFlow imported; one per test process."""
    from gradtutor.checking.checker import Checker

    with Checker(timeout=60, hidden=course_hidden_inputs) as shared:
        yield shared


@pytest.fixture(scope="session")
def playwright():
    """One sync Playwright per test process, shared by every browser test.

    Between its calls a sync Playwright marks its asyncio loop as running in this thread, so a
    second `sync_playwright()` started while another is alive (the docs site's session-scoped
    browser, then the Lab test on the same xdist worker) refuses to start.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as shared:
        yield shared


@pytest.fixture
def grade(checker, tmp_path):
    """grade(lesson, exercise, code) → ExerciseResult, for code written as a .py file."""
    from gradtutor.course import manifest as course

    def _grade(lesson_id: str, exercise_id: str, code: str, seeds: str = "all"):
        lesson = course.load().lesson(lesson_id)
        exercise = lesson.exercise(exercise_id)
        path = tmp_path / f"{lesson_id}_{exercise_id}.py"
        path.write_text(STANDARD_IMPORTS + code)
        return checker.check_file(lesson, path, [exercise], seeds).exercises[0]

    return _grade


# --------------------------------------------------------------------------- tiers


def _unit_session(config) -> bool:
    """`-m unit` exactly, as `make test-fast` runs it: the session that must stay free of TensorFlow."""
    return (config.getoption("markexpr") or "").strip() == "unit"


@functools.cache
def _tiers_in_source(path: Path) -> frozenset[str]:
    """The tiers a module's source marks anything with (read, not imported)."""
    tree = ast.parse(path.read_text(), str(path))
    return frozenset(node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in TIERS
                     and isinstance(node.value, ast.Attribute) and node.value.attr == "mark")


def pytest_configure(config):
    global COURSE_SECRET
    COURSE_SECRET = getattr(config, "workerinput", {}).get("gradtutor_course_secret", COURSE_SECRET)
    if _unit_session(config):
        # A subprocess that imports TensorFlow (a `gradtutor check`, the checker's worker) finds this
        # first and fails, naming the tier: `sys.modules` of this process cannot see into children.
        TF_STUB.parent.mkdir(parents=True, exist_ok=True)
        TF_STUB.write_text('raise ImportError("TensorFlow imported under `pytest -m unit`: mark the test `tf`, '
                           'not `unit` (tests/conftest.py)")\n')
        paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if str(TF_STUB.parent.parent) not in paths:  # xdist workers inherit it from the main process
            os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TF_STUB.parent.parent), *paths]))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the xdist_group marks into node ids
def pytest_collection_modifyitems(items):
    # `make test` hands out whole xdist groups in this order (--no-loadscope-reorder): tests/support/schedule.py
    schedule.group_by_module_fixtures(items)
    schedule.longest_first(items)


def pytest_ignore_collect(collection_path, config):
    # Collecting a module imports it, and many import TensorFlow at the top: a unit session skips
    # the modules whose marks name other tiers only, rather than import them to deselect every test.
    # A module with no tier mark at all is still collected, so that its tests fail as unmarked.
    if _unit_session(config) and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        tiers = _tiers_in_source(collection_path)
        if tiers and "unit" not in tiers:
            return True
    return None


def _tier(item) -> tuple[str | None, str]:
    """The tier of a test, and what is wrong with its marks.

    Exactly one tier over the test and its module: `-m` selects by every mark a test inherits, so a
    test marked `unit` in a module marked `tf` would run in both tiers. A module that mixes tiers
    marks each test instead.
    """
    marked = sorted({mark.name for mark in item.iter_markers() if mark.name in TIERS})
    if len(marked) > 1:
        return None, f"marked {' and '.join(marked)} (one tier, the heaviest it needs; a mixed module marks each test)"
    if not marked:
        return None, f"no tier marker (one of {', '.join(TIERS)}: `pytestmark = pytest.mark.unit` or a mark on the test)"
    return marked[0], ""


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # A wrong tier is a collection error of its module: reported before `-m` deselects anything (so
    # an unmarked test fails every session, not only those that would select it), and reported
    # as such by xdist's workers too.
    tensorflow_before = "tensorflow" in sys.modules
    outcome = yield
    report = outcome.get_result()
    if not isinstance(collector, (pytest.Module, pytest.Class)) or not report.passed:
        return
    problems = []
    for item in report.result:
        if not isinstance(item, pytest.Function):
            continue
        tier, wrong = _tier(item)
        if tier is None:
            problems.append(f"{item.nodeid}: {wrong}")
        elif tier == "unit" and WORKER_FIXTURES & set(item.fixturenames):
            uses = ", ".join(sorted(WORKER_FIXTURES & set(item.fixturenames)))
            problems.append(f"{item.nodeid}: marked unit but uses {uses}, which starts the checker's worker: mark it tf")
    if _unit_session(collector.config) and not tensorflow_before and "tensorflow" in sys.modules:
        problems.append(f"{collector.nodeid}: importing it imported TensorFlow, and it has unit tests "
                        "(import TensorFlow inside the tf tests, or split the module)")
    if problems:
        report.outcome = "failed"
        report.longrepr = "test tiers (tests/conftest.py):\n  " + "\n  ".join(problems)
        report.result = []


@pytest.fixture(autouse=True)
def _unit_tests_stay_free_of_tensorflow(request):
    """A unit test that imports TensorFlow into this process fails (the subprocesses meet TF_STUB)."""
    if _tier(request.node)[0] != "unit" or "tensorflow" in sys.modules:
        yield
        return
    yield
    if "tensorflow" in sys.modules:
        pytest.fail("this unit test imported TensorFlow into the pytest process: mark it tf", pytrace=False)


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session, exitstatus):
    # The last word for `make test-fast`: whatever slipped past the per-test check fails the run.
    if _unit_session(session.config) and "tensorflow" in sys.modules and session.exitstatus == 0:
        sys.stderr.write("\nERROR: TensorFlow was imported during `pytest -m unit` (tests/conftest.py)\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if os.environ[LEFTOVER_MARK].split("-")[0] == str(os.getpid()):  # once every xdist worker has finished
        left = _leftovers()
        if left:
            _OUTLIVED.extend(f"{pid}: {command[:400]}" for pid, command in left)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


_OUTLIVED: list[str] = []  # what the session-end check found, reported in the summary


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    """The processes that outlived the tests, next to the last line (a CI log's tail is all some readers get)."""
    if _OUTLIVED:
        terminalreporter.write_sep("=", "ERROR: processes the tests started outlived them (ended now; tests/conftest.py)")
        for line in _OUTLIVED:
            terminalreporter.write_line(line)


def _leftovers() -> list[tuple[int, str]]:
    """(pid, command) of each process this session started that is still running; each is ended.

    Ours: below this process, or carrying this session's LEFTOVER_MARK value in its environment (an
    orphan: a server whose starter is gone, a daemon in a session of its own). Nothing else is looked at.
    """
    from gradtutor.learner.lab import process_tree

    mark = f"{LEFTOVER_MARK}={os.environ[LEFTOVER_MARK]}".encode()

    def ours() -> list:
        below = {p.pid: p for p in process_tree.descendants(os.getpid())}
        for pid, (state, _, started) in process_tree.all_processes().items():
            if pid not in below and pid != os.getpid() and state != "Z" and mark in _environment(pid):
                below[pid] = process_tree.Process(pid, started)
        return list(below.values())

    deadline = time.monotonic() + LEFTOVER_GRACE
    while (found := ours()) and time.monotonic() < deadline:
        time.sleep(0.5)
    found = [(p, _command(p.pid) + _origin(p.pid)) for p in found if p.alive()]
    process_tree.end([p for p, _ in found])
    return [(p.pid, command) for p, command in found]


def _origin(pid: int) -> str:
    """Where a leftover came from: its parent now, and the test that was running when it (or the first of
    its ancestors the tests started) was spawned — pytest names it in the environment each process inherits."""
    from gradtutor.learner.lab import process_tree

    stat = process_tree.all_processes().get(pid)
    parent = f"parent {stat[1]} ({_command(stat[1])[:80]})" if stat else "parent ?"
    test = next((entry.split(b"=", 1)[1].decode(errors="replace") for entry in _environment(pid)
                 if entry.startswith(b"PYTEST_CURRENT_TEST=")), "no test named")
    return f"\n    {parent}; started during: {test}"


def _environment(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:  # gone, or another user's
        return []


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
