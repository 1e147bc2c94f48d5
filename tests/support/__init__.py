"""What tests share and is not a fixture: helpers, corpora runners, paths.

Imported as `tests.support...`: pytest puts the repository root on sys.path (`pythonpath` in
pyproject.toml); benchmarks run as modules from the root (`python -m benchmarks.run`), which does
the same. Fixtures stay in tests/conftest.py; no test module imports another.
"""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Where tests keep gradtutor's per-user state (progress, caches), away from the real home folder.
TEST_HOME = REPO / "test-output" / "gradtutor-home"
