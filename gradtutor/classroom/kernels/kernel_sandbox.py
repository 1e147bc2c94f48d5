"""nbgrader's kernels under Landlock while `gradtutor grade` autogrades.

nbgrader runs every cell of a submitted notebook in a kernel with the grader's
own permissions: a cell that deletes files, reads other students' submissions
or rewrites the gradebook would do so. gradtutor's checks already run learner
functions in a sandbox (gradtutor.isolation); this puts the same kernel-enforced
limits on the kernel itself, so whatever a notebook does at the top level:

* it writes, creates and removes files only in its own autograded folder and in
  a scratch folder of its own (matplotlib's and Keras' caches, TMPDIR);
* it cannot read the course's source/, submitted/, autograded/ (other than its
  own), feedback/ or gradebook, nor gradtutor's reference implementation (it
  may list folders: Python's imports need that; names are all it sees);
* it has no TCP (the kernels talk to nbgrader over Unix sockets) and cannot
  signal processes outside the kernel.

The kernel is started through `python -m gradtutor.classroom.kernels.kernel_sandbox
SPEC -- KERNEL_COMMAND...` (by gradtutor.classroom.grading.sandboxed_execute, the
Execute preprocessor nbgrader is configured with), which applies the limits
and then execs the kernel command; Landlock limits survive exec and cannot be
lifted. Where the kernel has no Landlock the kernel runs as nbgrader would run it.

Scores do not change: a notebook that only does what the lessons ask (define
functions, run the tests, plot) never touches what is fenced off.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# What a course folder keeps that no submission's kernel may read: the instructor's
# notebooks (with hidden tests), every student's files, and the grades.
COURSE_PRIVATE = ("source", "submitted", "autograded", "feedback", "gradebook.db", "nbgrader_config.py")


def hidden_paths(course_root) -> list[str]:
    from gradtutor.isolation.policy import HIDDEN_FROM_LEARNERS

    return [str(Path(course_root).resolve() / name) for name in COURSE_PRIVATE] + list(HIDDEN_FROM_LEARNERS)


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: python -m gradtutor.classroom.kernels.kernel_sandbox SPEC -- KERNEL_COMMAND...")
    spec, command = json.loads(argv[0]), argv[2:]
    from gradtutor.isolation import landlock

    landlock.restrict(spec["writable"], spec["hidden"], list_hidden=True)  # False without Landlock: the kernel runs as nbgrader runs it
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
