"""Benchmarks: `make bench`, or `python -m benchmarks.run` from the repository root."""
