"""`make test` relies on pytest-xdist's --dist loadgroup: the tests of one xdist_group share one
worker, so a group's session fixtures (a graded class, the hostile course, the docs build) are
made once. A pytest/xdist pair that splits groups still passes every test, only slower, so it is
checked here."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.unit


def test_a_group_stays_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent('''\
        import os
        import pytest

        pytestmark = pytest.mark.xdist_group("together")


        @pytest.mark.parametrize("n", range(8))
        def test_where(n):
            assert os.environ["PYTEST_XDIST_WORKER"].startswith("gw")
    '''))
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider",
                           "test_grouped.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("[gw") and "PASSED" in line]
    assert len(workers) == 8, done.stdout
    assert len(set(workers)) == 1, f"the group ran on {sorted(set(workers))}:\n{done.stdout}"


def test_the_schedule_puts_the_longest_groups_first_and_names_only_real_groups(tmp_path):
    """tests/support/schedule.py orders the long groups first; a group renamed in its tests but not there
    would silently go back to the end of the queue, so every name it orders must be a group some test has."""
    import re

    from tests.support import REPO, schedule

    sources = "\n".join(path.read_text() for path in (REPO / "tests").rglob("test_*.py"))
    literal = set(re.findall(r'xdist_group\("([^"]+)"\)', sources))
    plain = {schedule.plain_nbgrader_group(lang) for lang in schedule.messages.LANGUAGES}
    assert "xdist_group(plain_nbgrader_group(lang))" in (REPO / "tests/classroom/test_plain_nbgrader.py").read_text()
    assert set(schedule.LONGEST_FIRST) <= literal | plain, set(schedule.LONGEST_FIRST) - literal - plain
    assert "--no-loadscope-reorder" in (REPO / "Makefile").read_text()  # else xdist re-sorts the queue by test count

    (tmp_path / "conftest.py").write_text("from tests.support import schedule\n\n\n"
                                          "def pytest_collection_modifyitems(items):\n    schedule.longest_first(items)\n")
    (tmp_path / "test_a.py").write_text(textwrap.dedent('''\
        import pytest


        @pytest.mark.parametrize("n", range(3))
        def test_short(n):
            pass


        @pytest.mark.xdist_group("dask")
        def test_dask():
            pass


        @pytest.mark.xdist_group("classroom")
        def test_classroom():
            pass


        @pytest.mark.xdist_group("other")
        def test_other():
            pass
    '''))
    done = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "test_a.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stdout + done.stderr
    collected = [line.split("::")[1] for line in done.stdout.splitlines() if "::" in line]
    # a group LONGEST_FIRST does not name still comes before the tests of no group, which even out the end
    assert collected == ["test_classroom", "test_dask", "test_other", "test_short[0]", "test_short[1]",
                         "test_short[2]"], done.stdout


def test_the_tests_sharing_a_module_fixture_share_one_worker_and_one_fixture(tmp_path):
    """A module-scoped fixture is made once per worker that runs a test using it: handed out one by one, a
    module's tests would land on both workers and both would make it (tests/support/schedule.py groups them)."""
    from tests.support import REPO

    (tmp_path / "conftest.py").write_text(textwrap.dedent('''\
        import pytest

        from tests.support import schedule


        @pytest.hookimpl(tryfirst=True)
        def pytest_collection_modifyitems(items):
            schedule.group_by_module_fixtures(items)
            schedule.longest_first(items)
    '''))
    (tmp_path / "test_shared.py").write_text(textwrap.dedent('''\
        import os
        import pytest


        @pytest.fixture(scope="module")
        def made():
            with open("made.txt", "a") as log:
                log.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")


        @pytest.mark.parametrize("n", range(8))
        def test_uses_it(made, n):
            pass
    '''))
    (tmp_path / "test_alone.py").write_text("import pytest\n\n\n@pytest.mark.parametrize('n', range(8))\n"
                                            "def test_alone(n):\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder",
                           "-v", "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {line.split()[0] for line in done.stdout.splitlines() if "test_uses_it" in line and "PASSED" in line}
    assert len(workers) == 1, done.stdout
    assert len((tmp_path / "made.txt").read_text().splitlines()) == 1, "the module fixture was made once"
