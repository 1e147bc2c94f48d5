"""The lessons' own tests (each folder's claims and reference cross-checks) under the suite's tier rules.

tests/conftest.py holds the rules; its hooks that judge a module by its path (collection, tier
marks) apply only below tests/, so they are re-used here for the lessons' folders. This file and
the tests beside it are left out of the wheel (pyproject.toml).
"""
from tests.conftest import (  # noqa: F401 - hooks and an autouse fixture, found by pytest by name
    _unit_tests_stay_free_of_tensorflow,
    pytest_ignore_collect,
    pytest_make_collect_report,
)
