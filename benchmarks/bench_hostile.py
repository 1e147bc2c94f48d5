"""The hostile corpus as figures: submissions tried, false passes, grader crashes.

Runs every case of tests/hostile/corpus.toml through the checking engine (one warm worker, the
corpus's short time limit and 512 MiB memory cap) and prints one line per case, then

    hostile corpus: 77 submissions tried, 0 false passes, 0 grader crashes, 4 timeouts

A false pass is a hostile submission graded "pass"; a grader crash is the checker itself raising
(or showing a traceback) instead of giving a verdict. Cases whose verdict is wrong in another way
(status, message, files changed) are listed above the figures; `--verbose` lists every case.
The tests (tests/isolation/test_hostile.py) are the gate; this only reports.

With `--nbgrader` the corpus is then also handed in to a real nbgrader course, one student per
case (and a control student per lesson, who must get full marks), and autograded lesson by lesson
with `gradtutor grade COURSE LESSON --jobs 2 --verbose` (as tests/classroom/test_hostile_grade.py does, with
the same code: tests/support/hostile.py). A second line follows:

    hostile corpus under nbgrader: 77 submissions tried, 0 false passes, 0 grader crashes

A false pass is a hostile submission with a score above 0 in the gradebook; a grader crash is a
submission whose `gradtutor grade` run printed a traceback, exited with a code other than 0 or 1 or
had to be killed, whose result line is missing (or says gradtutor could not grade it). This takes
several minutes (about 14 s of kernel time per submission, two at a time); `--nbgrader-only`
prints the second line alone.
"""
from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.support import hostile as harness


def main(argv: list[str]) -> int:
    from gradtutor.checking.checker import Checker
    from gradtutor.course.secret import new_secret
    from gradtutor.course.seeds import HiddenInputs

    verbose = "--verbose" in argv
    if "--nbgrader-only" in argv:  # only the second line (for a look at grading alone)
        return under_nbgrader(verbose)
    tried = false_passes = crashes = 0
    statuses: Counter = Counter()
    other_problems = 0
    # A course's hidden inputs, from a secret drawn as `gradtutor classroom init` draws one (as
    # tests/isolation/test_hostile.py grades): answers hard-coded from the visible inputs must fail on them.
    hidden = HiddenInputs(secret=new_secret())
    with Checker(timeout=harness.TIMEOUT, memory_mb=harness.MEMORY_MB, hidden=hidden) as checker:
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
          f"{crashes} grader crashes, {statuses['timeout']} timeouts", flush=True)
    if "--nbgrader" in argv:
        return under_nbgrader(verbose)
    return 0


def under_nbgrader(verbose: bool) -> int:
    """The corpus through `gradtutor grade` in a real nbgrader course; prints the second summary line."""
    cases = [case for case in harness.load_cases() if not harness.available(case)]
    with tempfile.TemporaryDirectory(prefix="gradtutor-hostile-grade-") as root:
        _, runs, verdicts = harness.run_under_nbgrader(Path(root), cases)
    for run in runs.values():
        if verbose or run.returncode not in (0, 1) or harness.TRACEBACK in run.output:
            print(f"--- gradtutor grade {run.lesson}: exit {run.returncode}, {run.seconds:.0f} s")
            if run.returncode not in (0, 1) or harness.TRACEBACK in run.output:
                print(run.output[-3000:])
    hostile = [v for v in verdicts if v.submission.case is not None]
    for verdict in verdicts:
        if verbose or verdict.problems:
            mark = "ok " if not verdict.problems else "BAD"
            print(f"{mark} {verdict.submission.lesson} {verdict.submission.student:32} {verdict.score}/{verdict.max_score}  "
                  + ("; ".join(verdict.problems) if verdict.problems else (verdict.lines[0].strip() if verdict.lines else "")),
                  flush=True)
            if verdict.problems:
                for line in verdict.lines:
                    print(f"      | {line}")
    print(f"hostile corpus under nbgrader: {len(hostile)} submissions tried, "
          f"{sum(v.false_pass for v in hostile)} false passes, {sum(v.crash for v in hostile)} grader crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
