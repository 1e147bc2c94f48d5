"""`make bench`: every figure, each printed as a ratio measured side by side in this one run.

Run from the repository root as modules (`python -m benchmarks.run`, `python -m benchmarks.bench_hostile`),
so that they import the tests' shared helpers as `tests.support`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (script, arguments): the hostile corpus both through `gradtutor check` and under nbgrader
SUITES = [("bench_check", []), ("bench_jacobian", []), ("bench_grading", ["--lesson", "lesson2"]),
          ("bench_grading", ["--lesson", "lesson4"]), ("bench_hostile", ["--nbgrader"]),
          ("bench_explain", []), ("bench_repeat_check", []), ("bench_serve", []), ("bench_memory", [])]


def main() -> int:
    failed = 0
    for name, arguments in SUITES:
        print(f"== {name} {' '.join(arguments)}".rstrip(), flush=True)
        # every other figure is an in-process `gradtutor check`; bench_repeat_check and bench_memory measure the
        # warm daemon (bench_memory sets it on and off itself)
        env = dict(os.environ, GRADTUTOR_NO_DAEMON=os.environ.get("GRADTUTOR_NO_DAEMON", "1"))
        if name in ("bench_repeat_check", "bench_memory"):
            env.pop("GRADTUTOR_NO_DAEMON")
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *arguments], cwd=HERE.parent, env=env)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
