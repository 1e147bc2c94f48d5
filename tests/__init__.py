"""The test suite. A package so that its shared helpers are importable as `tests.support`."""
