"""The hostile corpus as figures: submissions tried, false passes, grader crashes.

Runs every case of tests/hostile/corpus.toml through the checking engine (one warm worker, the
corpus's short time limit and 512 MiB memory cap) and prints one line per case, then

    hostile corpus: 77 submissions tried, 0 false passes, 0 grader crashes, 4 timeouts

A false pass is a hostile submission graded "pass"; a grader crash is the checker itself raising
(or showing a traceback) instead of giving a verdict. Cases whose verdict is wrong in another way
(status, message, files changed) are listed above the figures; `--verbose` lists every case.
The tests (tests/test_hostile.py) are the gate; this only reports.
"""
from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "hostile"))
import _harness as harness  # noqa: E402


def main(argv: list[str]) -> int:
    from gradtutor.engine import Checker

    verbose = "--verbose" in argv
    tried = false_passes = crashes = 0
    statuses: Counter = Counter()
    other_problems = 0
    with Checker(timeout=harness.TIMEOUT, memory_mb=harness.MEMORY_MB) as checker:
        checker.worker.wait_ready()
        for case in harness.load_cases():
            if harness.available(case):
                continue
            with tempfile.TemporaryDirectory(prefix="gradtutor-hostile-") as root:
                verdict = harness.run_in_process(checker, case, Path(root))
            tried += 1
            statuses[verdict.status] += 1
            false_passes += verdict.status == "pass"
            crashes += verdict.status == "crash"
            problems = harness.judge(case, verdict)
            other_problems += bool(problems) and verdict.status not in ("pass", "crash")
            if verbose or problems:
                mark = "ok " if not problems else "BAD"
                print(f"{mark} {case.kind:8} {case.id:32} {verdict.status:11} {verdict.seconds:5.1f}s  "
                      + ("; ".join(problems) if problems else verdict.message[:90]), flush=True)
    if verbose:
        print(f"verdicts: {dict(sorted(statuses.items()))}; other wrong verdicts or lost files: {other_problems}")
    print(f"hostile corpus: {tried} submissions tried, {false_passes} false passes, "
          f"{crashes} grader crashes, {statuses['timeout']} timeouts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
