"""`make bench`: every figure, each printed as a ratio measured side by side in this one run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (script, arguments): the hostile corpus both through `gradtutor check` and under nbgrader
SUITES = [("bench_check.py", []), ("bench_jacobian.py", []), ("bench_grading.py", []),
          ("bench_hostile.py", ["--nbgrader"]), ("bench_explain.py", [])]


def main() -> int:
    failed = 0
    for name, arguments in SUITES:
        print(f"== {name} {' '.join(arguments)}".rstrip(), flush=True)
        done = subprocess.run([sys.executable, str(HERE / name), *arguments], cwd=HERE.parent)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
