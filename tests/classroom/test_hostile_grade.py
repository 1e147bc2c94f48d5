"""The hostile corpus (tests/hostile/corpus.toml) under nbgrader: 0 false passes in `gradtutor grade`.

tests/isolation/test_hostile.py runs the corpus through `gradtutor check`'s engine. Here every case is handed
in to a real nbgrader course as one student's notebook (`submitted/<case id>/<lesson>/<lesson>.ipynb`;
how each kind of file is submitted: tests/support/hostile.py::build_grade_course) and autograded by
`gradtutor grade COURSE LESSON --jobs 2 --verbose`, one run per lesson, with nbgrader's kernels, the
shared judge, the default 4 GiB memory cap and 30 s per-exercise limit (the course's nbgrader cell
timeout is lowered from 300 s to 90 s: see harness.GRADE_CELL_TIMEOUT). The scores are read back
from nbgrader's SQLite gradebook. Each lesson's run also grades a control student (every exercise's
solution), which must get full marks: a pipeline that scores everything 0 cannot pass this module.

The course is built with tests/support/classroom.py's helpers (make_course, submission, read_gradebook,
gradtutor), once per session, by code shared with `benchmarks/bench_hostile.py --nbgrader`
(tests/support/hostile.py). About 7 minutes on 2 idle cores (81 notebooks, ~10 s of kernel each).
"""
from __future__ import annotations

import dataclasses
import time
from collections import Counter
from pathlib import Path

import pytest

from gradtutor.course import manifest as course
from tests.support import hostile as harness

pytestmark = pytest.mark.xdist_group("hostile_grade")  # one worker builds and grades the course once

CASES = harness.load_cases()
LESSONS = sorted({c.lesson for c in CASES})


@dataclasses.dataclass
class Graded:
    folder: Path
    runs: dict  # lesson -> harness.GradeRun
    verdicts: dict  # (lesson, student) -> harness.GradeVerdict
    seconds: float


@pytest.fixture(scope="session")
def graded(tmp_path_factory) -> Graded:
    for case in CASES:  # a corpus that drifts from the course is a failure, not a skip
        why = harness.available(case)
        assert not why, f"{case.file}: {case.lesson} {case.exercise} is not in course.toml: {why}"
    root = tmp_path_factory.mktemp("hostile-grade")
    started = time.monotonic()
    folder, runs, verdicts = harness.run_under_nbgrader(root, CASES)
    result = Graded(folder, runs, {(v.submission.lesson, v.submission.student): v for v in verdicts},
                    time.monotonic() - started)
    # For people: every submission's score and result line, beside the course folder.
    (root / "summary.txt").write_text("".join(
        f"{v.submission.lesson} {v.submission.student:32} {v.score}/{v.max_score} {'; '.join(v.problems) or 'ok'}"
        + "\n"
        + "".join(f"    | {line}\n" for line in v.lines) for v in verdicts)
        + "".join(f"{r.lesson}: exit {r.returncode}, {r.seconds:.0f} s\n" for r in runs.values()))
    return result


def _output(graded: Graded, lesson: str) -> str:
    return graded.runs[lesson].output[-6000:]


@pytest.mark.nbgrader
@pytest.mark.parametrize("lesson", LESSONS)
def test_each_grade_run_finishes_without_a_traceback(graded, lesson):
    run = graded.runs[lesson]
    assert run.returncode is not None, (
        f"`gradtutor grade {lesson}` was still running after {harness.GRADE_RUN_TIMEOUT:g} s and was killed\n"
        + _output(graded, lesson))
    assert run.returncode in (0, 1), f"exit code {run.returncode}\n{_output(graded, lesson)}"
    assert harness.TRACEBACK not in run.output, _output(graded, lesson)
    students = [s for (l, s) in graded.verdicts if l == lesson]
    assert f"{len(students)} submissions in " in run.output, _output(graded, lesson)


@pytest.mark.nbgrader
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_control_gets_full_marks_in_the_same_run(graded, lesson):
    verdict = graded.verdicts[(lesson, harness.GRADE_CONTROL)]
    points = course.load().lesson(lesson).points
    assert verdict.score == points, f"control: {verdict.score}/{points} {verdict.grades}\n{_output(graded, lesson)}"
    assert not verdict.problems, verdict.problems
    assert len(verdict.lines) == 1 and verdict.lines[0].startswith("✓"), verdict.lines


@pytest.mark.nbgrader
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_submission_scores_zero_under_nbgrader(graded, case):
    """Score 0 in the gradebook, one result line naming the student, the workspace untouched."""
    verdict = graded.verdicts[(case.lesson, case.id)]
    assert not verdict.problems, (f"{case.file} ({case.why or case.kind}; submitted: {verdict.submission.how}): "
                                  f"{'; '.join(verdict.problems)}\n" + "\n".join(verdict.lines))


@pytest.mark.unit
def test_the_workspace_attacks_include_a_notebooks_own_top_level_code():
    """Top-level code runs in nbgrader's kernel, not in the checker: `gradtutor grade` sandboxes that kernel,
    so such an attack must leave its workspace as it was, like the attacks inside exercise functions."""
    assert [c for c in CASES if c.workspace and c.path.suffix == ".ipynb"], "a notebook attacking at the top level"
    assert [c for c in CASES if c.workspace and c.path.suffix == ".py"], "attacks inside exercise functions"


@pytest.mark.nbgrader
def test_no_false_passes_across_the_corpus(graded):
    """The issue's figure: 0 hostile submissions earning any point, over the whole corpus."""
    verdicts = [v for v in graded.verdicts.values() if v.submission.case is not None]
    assert len(verdicts) == len(CASES)
    assert Counter(v.score for v in verdicts).keys() <= {0.0}, {
        v.submission.student: v.score for v in verdicts if v.score != 0.0}
    false_passes = [f"{v.submission.student}: {v.score:g}/{v.max_score:g} {v.grades}" for v in verdicts if v.false_pass]
    assert not false_passes, "FALSE PASSES under nbgrader:\n" + "\n".join(false_passes)
