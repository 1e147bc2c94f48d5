"""Grading speed: serial `nbgrader autograde` against `gradtutor grade --jobs 2`, same class, same run.

A course folder is made with `gradtutor classroom init` and one lesson is
generated with nbgrader. A class of 20 submissions goes into submitted/: about
half of them are correct, a quarter have one or two known-wrong answers from
each lesson's answers.toml, and a quarter are not attempted, as in a real class. The
folder is copied twice, one copy is graded by a plain serial
`nbgrader autograde LESSON`, and the other by `gradtutor grade COURSE LESSON --jobs 2`.
The two gradebooks must hold the same scores. The last line printed is the ratio:

    grading speedup: R× (serial nbgrader S s, gradtutor grade --jobs 2 G s, 20 submissions, lesson2)

Goal: at least 5 on 2 cores for lesson 2 (`make bench` prints lesson 4's figure too).
`gradtutor grade` forks each kernel from a warm server that imported TensorFlow
once (gradtutor.classroom.kernels.warm_kernels) and answers check() from one warm
checker; serial nbgrader starts a fresh kernel, and a checker, per submission.

Each side then runs once more with nothing new to grade, and the line before the ratio
gives that re-run's time beside the first (grading) run's and beside `nbgrader
autograde`'s own re-run, wall and CPU seconds (the CPU figure is what a loaded machine
stretches); the re-run must print the first run's summary and class report:

    re-run with nothing new: gradtutor grade W s wall, C s CPU (its grading run G s; nbgrader autograde's re-run N s wall, M s CPU) — goal ≤ 2 s

    python -m benchmarks.bench_grading [--lesson lesson2] [--submissions 20] [--jobs 2] [--rounds 2]

On a machine shared with other work, `--rounds 2` (serial, parallel, parallel,
serial; the fastest of each) keeps a burst of load from deciding the ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import BIN, answers_of, make_course, read_gradebook, solution_code, tool_env


def build_class(folder: Path, lesson: course.Lesson, count: int) -> dict[str, float]:
    """Write `count` submissions; return what each must score."""
    release = nbformat.read(folder / "release" / lesson.id / lesson.notebook, as_version=4)
    solutions = {e.id: solution_code(lesson, e) for e in lesson.exercises}
    wrong = {e.id: [a["code"] for a in answers_of(lesson.id) if a["exercise"] == e.id and a["expect"] != "pass"]
             for e in lesson.exercises}
    expected = {}
    for number in range(count):
        kind = ("correct", "correct", "wrong", "untouched")[number % 4]
        answers, points = {}, 0.0
        for index, exercise in enumerate(lesson.exercises):
            if kind == "correct" or (kind == "wrong" and (index + number) % 2):
                answers[exercise.id], points = solutions[exercise.id], points + exercise.points
            elif kind == "wrong":
                answers[exercise.id] = wrong[exercise.id][number % len(wrong[exercise.id])]
        nb = nbformat.from_dict(json.loads(json.dumps(release)))
        for cell in nb.cells:
            grade_id = conventions.grade_id(cell)
            if grade_id in answers:
                cell.source = answers[grade_id]
        student = f"student{number + 1:02d}"
        target = folder / "submitted" / student / lesson.id / lesson.notebook
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        expected[student] = points
    return expected


def timed(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    seconds, _, done = timed_cpu(args, cwd)
    return seconds, done


def timed_cpu(args: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (the command and every process it waited for) and what it printed."""
    before, started = _children_cpu(), time.monotonic()
    done = subprocess.run(args, cwd=cwd, env=tool_env(), capture_output=True, text=True)
    return time.monotonic() - started, _children_cpu() - before, done


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def after_results(stdout: str) -> str:
    """The summary and class report `gradtutor grade` printed after its result lines, the seconds it took left out."""
    summary = re.search(r"^\d+ submissions? in \d+ s\b.*", stdout, re.MULTILINE | re.DOTALL)
    return re.sub(r" in \d+ s\b", " in N s", summary.group(0)) if summary else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="lesson2")
    parser.add_argument("--submissions", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure both sides this many times, alternating their order; the fastest of each counts")
    parser.add_argument("--keep", action="store_true", help="keep the course folders (printed)")
    args = parser.parse_args()
    lesson = course.load().lesson(args.lesson)

    scratch = Path(tempfile.mkdtemp(prefix="gradtutor-bench-grading-"))
    serial_times, parallel_times = [], []
    serial_reruns: list[tuple[float, float]] = []  # (wall, CPU) seconds of each re-run with nothing new
    parallel_reruns: list[tuple[float, float]] = []
    try:
        base = make_course(scratch / "course", [lesson.id])
        expected = build_class(base, lesson, args.submissions)
        print(f"{args.submissions} submissions of {lesson.id}, {os.cpu_count()} CPUs, {args.rounds} round(s)", flush=True)
        for number in range(args.rounds):
            # alternate the order, so a change in the machine's load hits both sides
            order = ("serial", "parallel") if number % 2 == 0 else ("parallel", "serial")
            for side in order:
                folder = scratch / f"{side}-{number}"
                shutil.copytree(base, folder)
                if side == "serial":
                    command, cwd = [str(BIN / "nbgrader"), "autograde", lesson.id], folder
                    label = "serial nbgrader autograde"
                else:
                    command = [sys.executable, "-m", "gradtutor", "grade", str(folder), lesson.id,
                               "--jobs", str(args.jobs)]
                    cwd, label = scratch, f"gradtutor grade --jobs {args.jobs}"
                seconds, done = timed(command, cwd)
                (serial_times if side == "serial" else parallel_times).append(seconds)
                if done.returncode != 0:
                    sys.exit(f"{label} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
                scores = {student: entry["score"] for student, entry in read_gradebook(folder, lesson.id).items()}
                if scores != expected:
                    sys.exit(f"{label}: unexpected scores {scores} != {expected}")
                print(f"  {label}: {seconds:.0f} s", flush=True)
                book = read_gradebook(folder, lesson.id)
                wall, cpu, again = timed_cpu(command, cwd)  # nothing new to grade now
                (serial_reruns if side == "serial" else parallel_reruns).append((wall, cpu))
                if again.returncode != 0 or read_gradebook(folder, lesson.id) != book:
                    sys.exit(f"{label}, run again: failed or changed the gradebook\n"
                             f"{again.stdout[-3000:]}{again.stderr[-3000:]}")
                summary = after_results(done.stdout) if side == "parallel" else None
                if summary is not None and (not summary or after_results(again.stdout) != summary):
                    sys.exit(f"{label}, run again, printed another summary or class report:\n{again.stdout[-3000:]}")
                print(f"  {label}, run again with nothing new: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
            one = read_gradebook(scratch / f"serial-{number}", lesson.id)
            if one != read_gradebook(scratch / f"parallel-{number}", lesson.id):
                sys.exit("the two gradebooks differ — the speedup would not count")
        if args.keep:
            print(f"  kept: {scratch}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    serial, parallel = min(serial_times), min(parallel_times)  # the least disturbed run of each
    (rerun, rerun_cpu), (own, own_cpu) = min(parallel_reruns), min(serial_reruns)
    print(f"re-run with nothing new: gradtutor grade {rerun:.1f} s wall, {rerun_cpu:.1f} s CPU (its grading run "
          f"{parallel:.0f} s; nbgrader autograde's re-run {own:.1f} s wall, {own_cpu:.1f} s CPU) — goal ≤ 2 s")
    print(f"grading speedup: {serial / parallel:.1f}× (serial nbgrader {serial:.0f} s, gradtutor grade --jobs {args.jobs} "
          f"{parallel:.0f} s, {args.submissions} submissions, {lesson.id})")


if __name__ == "__main__":
    main()
