"""Hostile and broken submissions (tests/hostile/corpus.toml): no false pass, a verdict for everything,
nothing lost.

Each corpus case is checked in-process through the engine `gradtutor check` uses (one warm worker,
a 3 s time limit and a 512 MiB memory cap, so hangs are cheap and a flood never risks the machine),
a representative subset through the real `gradtutor check` subprocess, and a few attacks through the
notebook `check()` API in a real Jupyter kernel.
"""
from __future__ import annotations

import json
import textwrap
import time
from collections import Counter

import pytest

from tests.support import hostile as harness

pytestmark = pytest.mark.xdist_group("hostile")  # one warm worker for the corpus (`make test` runs --dist loadgroup)

CASES = harness.load_cases()
TARGETS = harness.forgery_targets()  # (lesson, exercise): each lesson's generated forgeries
CLI_CASES = [c for c in CASES if c.cli]
CONTROL = textwrap.dedent('''\
    import tensorflow as tf


    def grad_of_cube(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x ** 3)
        return tape.gradient(y, x)
''')


def _skip_unless_available(case):
    """Every case names a real lesson and exercise: a corpus that drifts from the course is a failure."""
    why = harness.available(case)
    assert not why, f"{case.file}: {case.lesson} {case.exercise} is not in course.toml: {why}"


@pytest.fixture(scope="module")
def hostile_checker(course_hidden_inputs):
    """One warm worker for the whole corpus: short time limit, low memory cap, a course's hidden inputs."""
    from gradtutor.checking.checker import Checker

    with Checker(timeout=harness.TIMEOUT, memory_mb=harness.MEMORY_MB, hidden=course_hidden_inputs) as checker:
        checker.worker.wait_ready()  # TensorFlow's import is not part of any case's time
        yield checker


def _control(checker, tmp_path):
    from gradtutor.course import manifest as course

    checker.timeout = harness.SLOW_TIMEOUT
    path = tmp_path / "control.py"
    path.write_text(CONTROL)
    lesson = course.load().lesson("lesson1")
    return checker.check_file(lesson, path, [lesson.exercise("watch_constant")]).exercises[0]


# --------------------------------------------------------------------------- the corpus

@pytest.mark.unit
def test_corpus_is_big_and_spread():
    from gradtutor.course import manifest as course

    assert len(CASES) >= 40
    assert len({c.file for c in CASES}) == len(CASES), "one file per submission"
    kinds = Counter(c.kind for c in CASES)
    assert set(kinds) == set(harness.KINDS) and min(kinds.values()) >= 5, kinds
    lessons_with_exercises = {l.id for l in course.load().lessons if l.exercises}
    assert len({c.lesson for c in CASES} & lessons_with_exercises) >= 5, "the written corpus spreads over the lessons"
    # every lesson, a new one too, also gets the generated forgeries (test_every_lesson_s_answers_stay_hidden)
    assert {lesson for lesson, _ in TARGETS} == lessons_with_exercises
    for case in CASES:
        assert case.path.is_file(), case.file
        assert "pass" not in case.expect, f"{case.file}: a hostile submission never passes"
    on_disk = {p.name for p in harness.HERE.iterdir() if p.is_file() and not p.name.startswith("_")} - {"corpus.toml"}
    assert on_disk == {c.file for c in CASES}, "every file in tests/hostile is listed in corpus.toml"


@pytest.mark.tf
def test_the_control_passes(hostile_checker, tmp_path):
    """The harness can tell a pass: the right answer passes under the same limits."""
    assert _control(hostile_checker, tmp_path).status == "pass"


@pytest.mark.tf
@pytest.mark.parametrize("road", sorted(harness.FORGERY_ROADS))
@pytest.mark.parametrize("lesson,exercise", TARGETS, ids=[lesson for lesson, _ in TARGETS])
def test_every_lesson_s_answers_stay_hidden(hostile_checker, lesson, exercise, road, tmp_path):
    """A forgery generated for each lesson (tests/isolation/test_hostile_aim.py shows it reaches the answers
    outside the sandbox) fails inside it: a lesson added tomorrow is attacked the same way."""
    case = harness.write_forgery(tmp_path, lesson, exercise, road)
    verdict = harness.run_in_process(hostile_checker, case, tmp_path)
    problems = harness.judge(case, verdict)
    assert not problems, f"{case.file}: {'; '.join(problems)} — got {verdict.status}: {verdict.message}"


@pytest.mark.tf
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_submission(hostile_checker, case, tmp_path):
    _skip_unless_available(case)
    verdict = harness.run_in_process(hostile_checker, case, tmp_path)
    problems = harness.judge(case, verdict)
    assert not problems, f"{case.file} ({case.why or case.kind}): {'; '.join(problems)} — got {verdict.status}: {verdict.message}"


@pytest.mark.tf
def test_the_grader_survives_the_corpus(hostile_checker, tmp_path):
    """After floods, crashes and killed workers, the same checker still grades correctly."""
    assert _control(hostile_checker, tmp_path).status == "pass"


@pytest.mark.tf
def test_twenty_rechecks_give_identical_verdicts(hostile_checker, tmp_path):
    from gradtutor.course import manifest as course

    case = next(c for c in CASES if c.file == "v_random.py")
    lesson = course.load().lesson(case.lesson)
    exercise = lesson.exercise(case.exercise)
    hostile_checker.timeout = harness.SLOW_TIMEOUT
    verdicts = set()
    for _ in range(20):
        one = hostile_checker.check_file(lesson, case.path, [exercise]).exercises[0]
        verdicts.add((one.status, one.message))
    assert len(verdicts) == 1, f"{len(verdicts)} different verdicts in 20 re-checks: {sorted(verdicts)[:3]}"


@pytest.mark.tf
def test_a_hang_is_a_timeout_within_the_limit(hostile_checker):
    from gradtutor.course import manifest as course

    lesson = course.load().lesson("lesson1")
    hostile_checker.timeout = harness.TIMEOUT
    started = time.monotonic()
    result = hostile_checker.check_file(lesson, harness.HERE / "rt_infinite_loop.py", [lesson.exercise("watch_constant")])
    assert result.exercises[0].status == "timeout"
    assert time.monotonic() - started <= harness.TIMEOUT + 5


# --------------------------------------------------------------------------- the real CLI

@pytest.mark.tf
@pytest.mark.xdist_group("hostile-cli")
@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_hostile_submission_cli(case, tmp_path):
    """`gradtutor check --json`: the exit code, a one-line message, never a traceback."""
    _skip_unless_available(case)
    verdict, done = harness.run_cli(case, tmp_path, env={"GRADTUTOR_HOME": str(tmp_path / "home")})
    problems = harness.judge(case, verdict)
    if verdict.status == "unreadable":
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith("gradtutor: "):
            problems.append(f"stderr is not one `gradtutor: ...` line: {done.stderr!r}")
    assert not problems, f"{case.file}: {'; '.join(problems)} — exit {done.returncode}, stdout {done.stdout[-300:]!r}, stderr {done.stderr[-300:]!r}"


@pytest.mark.tf
@pytest.mark.xdist_group("hostile-cli")
def test_cli_verdicts_do_not_depend_on_hash_seed_or_run(tmp_path):
    """Two runs (two workers, two PYTHONHASHSEEDs) agree; the table heads each verdict with its exercise, one line."""
    submission = tmp_path / "det.py"
    submission.write_text((harness.HERE / "v_random.py").read_text() + "\n\n" + (harness.HERE / "v_hash_dependent.py").read_text())
    args = ["check", "lesson1", "--file", str(submission), "--timeout", "10", "--memory-mb", str(harness.MEMORY_MB)]
    runs = []
    for seed in ("1", "2"):
        done, _ = harness.cli(args + ["--json"], env={"PYTHONHASHSEED": seed, "GRADTUTOR_HOME": str(tmp_path / "home")})
        assert "Traceback" not in done.stderr, done.stderr
        runs.append([(e["id"], e["status"], e["message"]) for e in json.loads(done.stdout)["exercises"]])
    assert runs[0] == runs[1], f"PYTHONHASHSEED=1 vs 2:\n{runs[0]}\n{runs[1]}"
    plain, _ = harness.cli(args, env={"PYTHONHASHSEED": "3", "GRADTUTOR_HOME": str(tmp_path / "home"), "COLUMNS": "100"})
    lines = plain.stdout.splitlines()
    for exercise_id, status, message in runs[0]:
        if status != "pass":  # the verdict is laid out on lines of its own (what, where, why, fix), headed by the id
            assert any(line.strip()[:1] in "✗!⧗·" and f" {exercise_id}: " in line for line in lines), (
                f"no line heading `{exercise_id}`'s verdict in the table output:\n{plain.stdout}")


# --------------------------------------------------------------------------- notebook check() in a kernel

KERNEL_SETUP = "import gradtutor.quiet\nimport numpy as np\nimport tensorflow as tf\nimport keras\nfrom gradtutor import check\n"
KERNEL_RECORD = textwrap.dedent('''\
    import json as _json
    VERDICTS = {}
    def _record(name, call):
        try:  # check() in a learner's kernel returns its verdict (falsy unless it passed) instead of raising
            result = call()
            VERDICTS[name] = "pass" if result else "fail: " + str(getattr(result, "message", result)).splitlines()[0]
        except AssertionError as exc:
            VERDICTS[name] = "fail: " + str(exc).splitlines()[0]
        except Exception as exc:
            VERDICTS[name] = "error: " + type(exc).__name__ + ": " + str(exc)
''')
KERNEL_CASES = {
    # name: (cell source, expected outcome prefix)
    "control_right_answer": ('''\
def first_class_gradient(model, inp):
    with tf.GradientTape() as tape:
        first = model(inp, training=False)[:, 0]
    return tape.gradient(first, inp)

_record("control_right_answer", lambda: check("lesson2", "slice_inside", first_class_gradient))
''', "pass"),
    "patched_numpy_in_kernel": ('''\
_saved = (np.allclose, np.array_equal, np.isfinite)
np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True

def first_class_gradient(model, inp):
    return tf.zeros_like(inp)

_record("patched_numpy_in_kernel", lambda: check("lesson2", "slice_inside", first_class_gradient))
np.allclose, np.array_equal, np.isfinite = _saved
''', "fail"),
    "patched_gradtutor_in_kernel": ('''\
import sys as _sys
_cmp = _sys.modules["grad" + "tutor.checking.compare"]
_saved_compare = _cmp.compare
_cmp.compare = lambda *a, **k: []

def first_class_gradient(model, inp):
    return tf.zeros_like(inp)

_record("patched_gradtutor_in_kernel", lambda: check("lesson2", "slice_inside", first_class_gradient))
_cmp.compare = _saved_compare
''', "fail"),
    "frames_reference_via_check": ((harness.HERE / "fg_reference_frames.py").read_text() + '''
_record("frames_reference_via_check", lambda: check("lesson2", "two_targets", two_class_gradients))
''', "fail"),
    "shadowed_check_in_test_cell": ('''\
def check(*args, **kwargs):
    return None

def first_class_gradient(model, inp):
    return None

# an nbgrader test cell, exactly as the lesson has it (it imports check again first):
from gradtutor import check
_record("shadowed_check_in_test_cell", lambda: check("lesson2", "slice_inside", first_class_gradient, seeds="visible"))
''', "fail"),
}


@pytest.mark.tf
@pytest.mark.xdist_group("hostile-kernel")
def test_notebook_check_api_in_a_real_kernel(tmp_path):
    """check() in a Jupyter kernel: in-kernel monkeypatching must not turn a wrong answer into a pass."""
    import nbclient
    import nbformat

    cells = [nbformat.v4.new_code_cell(KERNEL_SETUP), nbformat.v4.new_code_cell(KERNEL_RECORD)]
    cells += [nbformat.v4.new_code_cell(source) for source, _ in KERNEL_CASES.values()]
    cells.append(nbformat.v4.new_code_cell("print('VERDICTS=' + _json.dumps(VERDICTS))"))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for o in notebook.cells[-1].outputs if o.get("output_type") == "stream")
    verdicts = json.loads(printed.split("VERDICTS=", 1)[1])
    wrong = {name: verdicts.get(name) for name, (_, expected) in KERNEL_CASES.items()
             if not str(verdicts.get(name, "")).startswith(expected)}
    assert not wrong, f"check() in a kernel: {wrong}"
