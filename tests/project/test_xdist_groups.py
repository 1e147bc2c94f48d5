"""`make test` relies on pytest-xdist's --dist loadgroup: the tests of one xdist_group share one
worker, so a group's session fixtures (a graded class, the hostile course, the docs build) are
made once. A pytest/xdist pair that splits groups still passes every test, only slower, so it is
checked here."""
from __future__ import annotations

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
