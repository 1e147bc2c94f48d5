"""`make bench`: every figure, each printed as a ratio measured side by side in this one run.

Run from the repository root as modules (`python -m benchmarks.run`, `python -m benchmarks.bench_hostile`),
so that they import the tests' shared helpers as `tests.support`.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (script, arguments): the hostile corpus both through `gradtutor check` and under nbgrader
SUITES = [("bench_check", []), ("bench_jacobian", []), ("bench_grading", []), ("bench_hostile", ["--nbgrader"]),
          ("bench_explain", [])]


def main() -> int:
    failed = 0
    for name, arguments in SUITES:
        print(f"== {name} {' '.join(arguments)}".rstrip(), flush=True)
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *arguments], cwd=HERE.parent)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
