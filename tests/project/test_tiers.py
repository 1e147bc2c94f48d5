"""Do the tier rules of tests/conftest.py hold? An unmarked (or doubly marked) test fails collection,
and TensorFlow brought in by a unit test (in pytest's process or a subprocess) or by a module with
unit tests fails `pytest -m unit`.

Each case runs pytest on a small copy of the suite's configuration in a temporary folder.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit


def _suite(root: Path, test_source: str) -> Path:
    """root/ with pyproject.toml's pytest settings, tests/conftest.py, tests/support/ and one test module."""
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    (root / "tests").mkdir()
    shutil.copyfile(REPO / "tests" / "__init__.py", root / "tests" / "__init__.py")
    shutil.copyfile(REPO / "tests" / "conftest.py", root / "tests" / "conftest.py")
    (root / "tests" / "support").mkdir()
    for name in ("__init__.py", "schedule.py"):  # what conftest.py imports from tests/support/
        shutil.copyfile(REPO / "tests" / "support" / name, root / "tests" / "support" / name)
    (root / "tests" / "test_sample.py").write_text(textwrap.dedent(test_source))
    return root


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          cwd=root, capture_output=True, text=True, timeout=300)


def _collection_fails(root: Path, says: str) -> None:
    """Collecting the sample suite fails, and the output says why."""
    done = _pytest(root, "--collect-only", "-q")
    assert done.returncode != 0, done.stdout
    assert says in done.stdout + done.stderr


def test_a_test_without_a_tier_fails_collection(tmp_path):
    root = _suite(tmp_path, '''\
        def test_unmarked():
            pass
    ''')
    _collection_fails(root, "test_sample.py::test_unmarked: no tier marker")


def test_a_test_with_two_tiers_fails_collection(tmp_path):
    root = _suite(tmp_path, '''\
        import pytest

        pytestmark = pytest.mark.tf


        @pytest.mark.unit
        def test_both():
            pass
    ''')
    _collection_fails(root, "marked tf and unit")


def test_tensorflow_in_a_unit_test_fails_the_unit_tier(tmp_path):
    root = _suite(tmp_path, '''\
        import subprocess
        import sys
        import types

        import pytest

        pytestmark = pytest.mark.unit


        def test_in_a_subprocess():
            done = subprocess.run([sys.executable, "-c", "import tensorflow"], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr


        def test_in_this_process():
            sys.modules["tensorflow"] = types.ModuleType("tensorflow")  # as an import would leave it


        def test_without():
            pass
    ''')
    done = _pytest(root, "-m", "unit", "-q")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "TensorFlow imported under `pytest -m unit`" in output  # the subprocess met the stand-in
    assert "this unit test imported TensorFlow into the pytest process" in output
    assert "FAILED tests/test_sample.py::test_in_a_subprocess" in output
    assert "ERROR tests/test_sample.py::test_in_this_process" in output
    assert "2 passed" in output  # test_in_this_process's call and test_without


def test_a_unit_module_importing_tensorflow_at_the_top_fails_collection(tmp_path):
    root = _suite(tmp_path, '''\
        import sys
        import types

        import pytest

        sys.modules["tensorflow"] = types.ModuleType("tensorflow")  # as `import tensorflow` would leave it

        pytestmark = pytest.mark.unit


        def test_anything():
            pass
    ''')
    done = _pytest(root, "-m", "unit", "-q")
    assert done.returncode != 0, done.stdout
    assert "test_sample.py: importing it imported TensorFlow" in done.stdout + done.stderr
