"""Run the hostile corpus (tests/hostile/corpus.toml) and judge each verdict; shared by tests/isolation/test_hostile.py,
tests/classroom/test_hostile_grade.py and benchmarks/bench_hostile.py."""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from gradtutor.dev import corpus
from tests.support import REPO, TEST_HOME, classroom as tc

HERE = REPO / "tests" / "hostile"  # the corpus: submissions and their manifest, nothing else
MANIFEST = HERE / "corpus.toml"
TIMEOUT = 3.0  # seconds per exercise for the cases that hang: short, so they cost little
SLOW_TIMEOUT = 60.0  # for every other case: a loaded 2-core machine must not turn a verdict into a timeout
MEMORY_MB = 512  # low, so a memory flood never puts the machine at risk
KINDS = ("runtime", "forgery", "values", "files")
# What `gradtutor check` exits with for a status (bad input is 2 whatever the status).
EXIT_FOR = {"pass": 0, "fail": 1, "error": 1, "timeout": 1, "not_attempted": 1, "unreadable": 2}


@dataclasses.dataclass(frozen=True)
class Case:
    file: str
    lesson: str
    exercise: str
    kind: str
    expect: tuple[str, ...]
    entry: corpus.Case  # what the corpus schema says of it: its outcome and words
    exit: int
    cli: bool = False
    workspace: bool = False
    why: str = ""
    folder: Path = HERE  # where the submission is: the corpus, or a test's folder for a generated forgery

    @property
    def path(self) -> Path:
        return self.folder / self.file

    @property
    def id(self) -> str:
        return Path(self.file).stem


def load_cases() -> list[Case]:
    cases = []
    for entry in corpus.read_hostile(MANIFEST):
        c = entry.context
        cases.append(Case(c["file"], c["lesson"], c["exercise"], c["kind"], entry.expect, entry,
                          c.get("exit", EXIT_FOR[entry.expect[0]]), c.get("cli", False), c.get("workspace", False),
                          c.get("why", "")))
    return cases


# --------------------------------------------------------------------------- every lesson's own forgeries

# Forgeries written for whichever lesson they are graded as, so a new lesson is attacked the day it is added
# (the corpus's hand-written forgeries name the lessons that existed when they were written). Each goes for
# the lesson's answers by another road: gradtutor's own loader, the reference module's file, the known answers.
FORGERY_ROADS = {
    "loader": '''\
# forgery (generated): asks gradtutor's own loader for {lesson}'s reference and returns its answer
import importlib
import tensorflow as tf


def {function}({params}):
    references = importlib.import_module("grad" + "tutor.course.refer" + "ences")
    return references.exercises_of("{lesson}")["{exercise}"].reference({params})
''',
    "source": '''\
# forgery (generated): reads {lesson}'s reference.py from the package's folder and runs it
import os
import tensorflow as tf
from gradtutor import check


def {function}({params}):
    folder = os.path.join(os.path.dirname(check.__code__.co_filename), "course", "less" + "ons", "{lesson}")
    with open(os.path.join(folder, "refer" + "ence.py")) as fh:
        namespace = {{"__name__": "copy"}}
        exec(fh.read(), namespace)
    return namespace["EXERCISES"]["{exercise}"].reference({params})
''',
    "answers": '''\
# forgery (generated): reads {lesson}'s answers.toml and runs a correct answer from it
import os
import tomllib
import numpy as np
import tensorflow as tf
import keras
from gradtutor import check


def {function}({params}):
    folder = os.path.join(os.path.dirname(check.__code__.co_filename), "course", "less" + "ons", "{lesson}")
    with open(os.path.join(folder, "ans" + "wers.toml"), "rb") as fh:
        answers = tomllib.load(fh)["answer"]
    code = next(a["code"] for a in answers if a["exercise"] == "{exercise}" and a["expect"] == "pass")
    namespace = {{"tf": tf, "keras": keras, "np": np}}
    exec(code, namespace)
    return namespace["{function}"]({params})
''',
}


def forgery_targets() -> list[tuple[str, str]]:
    """(lesson, exercise) for every lesson with exercises: its first exercise that has a known correct answer
    (the `answers` road runs one), read from the manifest and answers.toml alone (no TensorFlow)."""
    from gradtutor.course import manifest as course
    from gradtutor.dev.answers import load_answers

    targets = []
    for lesson in course.load().lessons:
        if not lesson.exercises:
            continue
        passing = {a.exercise for a in load_answers(lesson.folder / course.ANSWERS_FILE, lesson) if a.expect == "pass"}
        exercise = next((e.id for e in lesson.exercises if e.id in passing), lesson.exercises[0].id)
        targets.append((lesson.id, exercise))
    return targets


def write_forgery(folder: Path, lesson_id: str, exercise_id: str, road: str) -> Case:
    """One generated forgery of `road` for an exercise, written into `folder`, as a corpus case: it must fail
    (or error) and say why in terms of the reference."""
    from gradtutor.course import manifest as course
    from gradtutor.course.references import exercises_of

    function = course.load().lesson(lesson_id).exercise(exercise_id).function
    params = ", ".join(exercises_of(lesson_id)[exercise_id].build(0))  # the learner's parameters, in order
    name = f"generated_{road}_{lesson_id}_{exercise_id}.py"
    (folder / name).write_text(FORGERY_ROADS[road].format(lesson=lesson_id, exercise=exercise_id,
                                                          function=function, params=params))
    entry = corpus.Case("generated", 1, name, ("fail", "error"), file=folder / name, says=("(?i)reference",))
    return Case(name, lesson_id, exercise_id, "forgery", entry.expect, entry, EXIT_FOR["fail"],
                why=f"goes for {lesson_id}'s answers through {road}", folder=folder)


def available(case: Case) -> str | None:
    """Why the case cannot run yet (its lesson or exercise is not in course.toml), or None."""
    from gradtutor.course import manifest as course

    try:
        course.load().lesson(case.lesson).exercise(case.exercise)
    except course.UnknownLesson as exc:
        return str(exc)
    return None


# --------------------------------------------------------------------------- workspaces

def make_workspace(root: Path) -> Path:
    """A throwaway learner workspace: the marker, a lesson notebook and sibling files."""
    from gradtutor.learner import workspace as workspace_mod

    home = root / "workspace"
    (home / "lesson2").mkdir(parents=True)
    (home / "data").mkdir()
    (home / workspace_mod.MARKER).write_text("gradtutor workspace (test)\n")
    shutil.copyfile(REPO / "lessons" / "lesson2" / "lesson2.ipynb", home / "lesson2" / "lesson2.ipynb")
    (home / "notes.txt").write_text("my notes: the slice goes inside the tape\n")
    (home / "helper.py").write_text("def helper():\n    return 42\n")
    (home / "data" / "weights.npy").write_bytes(bytes(range(256)) * 4)
    return home


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under folder: kind, and the sha256 of file contents (symlinks not followed)."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                entries[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                entries[rel] = "dir"
            elif path.is_file():
                entries[rel] = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                entries[rel] = "other"
    return entries


def diff_snapshots(before: dict, after: dict) -> list[str]:
    changes = [f"deleted {k}" for k in before if k not in after]
    changes += [f"created {k}" for k in after if k not in before]
    changes += [f"changed {k}" for k in before if k in after and before[k] != after[k]]
    return sorted(changes)


def place(case: Case, root: Path) -> tuple[Path, Path | None]:
    """The file to check: in a fresh workspace (placeholder filled in) or the corpus file itself."""
    if not case.workspace:
        return case.path, None
    home = make_workspace(root)
    text = case.path.read_text().replace("@WORKSPACE@", str(home))
    target = home / "lesson2" / ("attempt" + case.path.suffix)
    if case.path.suffix == ".ipynb":
        target = home / "lesson2" / "lesson2.ipynb"  # the learner's own notebook, as `gradtutor check` finds it
    target.write_text(text)
    return target, home


# --------------------------------------------------------------------------- running

@dataclasses.dataclass
class Verdict:
    status: str  # a checker status, "unreadable", or "crash" (the checker itself raised)
    message: str
    exit: int
    seconds: float
    changes: list = dataclasses.field(default_factory=list)  # what changed in the workspace / corpus file


def run_in_process(checker, case: Case, root: Path) -> Verdict:
    """One case through Checker.check_file (the engine `gradtutor check` uses)."""
    from gradtutor.course import manifest as course
    from gradtutor.course import extract

    lesson = course.load().lesson(case.lesson)
    exercise = lesson.exercise(case.exercise)
    path, home = place(case, root)
    watched = home if home else case.path.parent
    before = snapshot(watched) if home else {case.file: _digest(case.path)}
    checker.timeout = timeout_for(case)
    started = time.monotonic()
    try:
        result = checker.check_file(lesson, path, [exercise])
        one = result.exercises[0]
        verdict = Verdict(one.status, one.message, result.exit_code, time.monotonic() - started)
    except extract.UnreadableFile as exc:
        verdict = Verdict("unreadable", str(exc), 2, time.monotonic() - started)
    except Exception as exc:  # noqa: BLE001 - a crash of the grader is a finding, not a test error
        verdict = Verdict("crash", f"{exc.__class__.__name__}: {exc}", -1, time.monotonic() - started)
    after = snapshot(watched) if home else {case.file: _digest(case.path)}
    verdict.changes = diff_snapshots(before, after)
    return verdict


def timeout_for(case: Case) -> float:
    return TIMEOUT if "timeout" in case.expect else SLOW_TIMEOUT


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() + f":{path.stat().st_mtime_ns}"


def cli(args: list[str], env: dict | None = None, cwd: Path | None = None, timeout: float = 300):
    """The real `gradtutor` command in a subprocess; returns (CompletedProcess, seconds)."""
    full_env = dict(os.environ)
    full_env.setdefault("GRADTUTOR_HOME", str(TEST_HOME))
    full_env.pop("GRADTUTOR_DEBUG", None)
    full_env.update(env or {})
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gradtutor", *args], cwd=cwd or REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - started


def run_cli(case: Case, root: Path, env: dict | None = None) -> tuple[Verdict, subprocess.CompletedProcess]:
    """One case through `gradtutor check LESSON EXERCISE --file PATH --json` (from inside the workspace, if any)."""
    path, home = place(case, root)
    before = snapshot(home) if home else {case.file: _digest(case.path)}
    args = ["check", case.lesson, case.exercise, "--json", "--timeout", str(timeout_for(case)), "--memory-mb", str(MEMORY_MB)]
    if home and path.name == "lesson2.ipynb":
        cwd = home / "lesson2"  # found through the workspace marker, as a learner runs it
    else:
        args += ["--file", str(path)]
        cwd = home or REPO
    done, seconds = cli(args, env=env, cwd=cwd)
    status, message = "unreadable", done.stderr.strip()
    if done.stdout.strip():
        try:
            exercise = json.loads(done.stdout)["exercises"][0]
            status, message = exercise["status"], exercise["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            status, message = "crash", "stdout is not gradtutor's JSON: " + done.stdout[:200]
    if "Traceback" in done.stderr or "Traceback" in done.stdout:
        status = "crash"
    after = snapshot(home) if home else {case.file: _digest(case.path)}
    # The time limit is judged in-process (run_in_process): here the seconds include Python's and
    # TensorFlow's start-up, which are not the learner's.
    verdict = Verdict(status, message, done.returncode, 0.0, diff_snapshots(before, after))
    verdict.wall_seconds = seconds
    return verdict, done


def judge(case: Case, verdict: Verdict) -> list[str]:
    """Everything wrong with one verdict (empty: as expected)."""
    from gradtutor.course import manifest as course

    problems = []
    if verdict.status == "pass":
        problems.append("FALSE PASS")
    if verdict.status == "crash":
        problems.append(f"grader crash: {verdict.message}")
    elif verdict.status not in case.expect:
        problems.append(f"status {verdict.status!r}, expected {' or '.join(case.expect)}")
    if verdict.exit != case.exit and verdict.status != "crash":
        problems.append(f"exit code {verdict.exit}, expected {case.exit}")
    unsaid = case.entry.words_problem(verdict.message)
    if unsaid:
        problems.append(unsaid)
    if "\n" in verdict.message.strip() or not verdict.message.strip():
        problems.append("message is not one line")
    if "Traceback" in verdict.message:
        problems.append("message shows a traceback")
    if verdict.status not in ("unreadable", "crash"):
        function = course.load().lesson(case.lesson).exercise(case.exercise).function
        if function not in verdict.message and case.exercise not in verdict.message:
            problems.append("message does not name the exercise")
    if verdict.changes:
        problems.append("files changed: " + ", ".join(verdict.changes))
    if verdict.status == "timeout" and verdict.seconds > TIMEOUT + 5:
        problems.append(f"timeout took {verdict.seconds:.1f} s (limit {TIMEOUT:g} s + 5 s)")
    return problems


# --------------------------------------------------------------------------- under nbgrader: `gradtutor grade`
#
# The same corpus, submitted to a real nbgrader course and autograded by `gradtutor grade`
# (tests/classroom/test_hostile_grade.py and `benchmarks/bench_hostile.py --nbgrader`). One course holds
# every lesson; each case is one student, `submitted/<case id>/<lesson>/<lesson>.ipynb`, and each
# lesson also has a control student (every exercise's solution) graded in the same run, so that
# "every hostile submission scored 0" cannot come from a pipeline that scores everything 0.
# The course-building helpers are tests/support/classroom.py's (make_course, submission, ...).

GRADE_CONTROL = "control"  # the student id of each lesson's correct submission
GRADE_JOBS = 2
GRADE_RUN_TIMEOUT = 1500.0  # this harness's own limit on one `gradtutor grade` run (a lesson)
# nbgrader's Execute.timeout for the course (`gradtutor classroom init` writes 300 s). A cell that
# hangs in the kernel itself (rt_loop_in_class_body loops while its cell loads) holds a job for
# this long; 90 s is three times what a test cell needs at most (the checker stops an exercise
# after 30 s). A test cell cut off by it would score 0 without a verdict, so that is a problem.
GRADE_CELL_TIMEOUT = 90
CELL_TIMED_OUT = "ran past nbgrader's Execute.timeout"
TRACEBACK = "Traceback (most recent call last)"


@dataclasses.dataclass
class GradeSubmission:
    student: str
    lesson: str
    case: Case | None  # None: the lesson's control
    how: str  # what was submitted, for people
    home: Path | None = None  # the throwaway workspace of a workspace case
    before: dict | None = None  # its snapshot before grading


@dataclasses.dataclass
class GradeRun:
    lesson: str
    returncode: int | None  # None: killed by GRADE_RUN_TIMEOUT
    output: str  # stdout + stderr
    seconds: float


@dataclasses.dataclass
class GradeVerdict:
    submission: GradeSubmission
    score: float | None  # None: not in the gradebook
    max_score: float | None
    grades: dict  # grade_id -> final score
    lines: list  # its result line and the verbose diagnosis lines under it
    problems: list  # everything wrong ("FALSE PASS", "grader crash: ...", ...)

    @property
    def false_pass(self) -> bool:
        return self.submission.case is not None and bool(self.score)

    @property
    def crash(self) -> bool:
        return any(p.startswith("grader crash") for p in self.problems)


def build_grade_course(root: Path, cases: list[Case]) -> tuple[Path, list[GradeSubmission]]:
    """A real nbgrader course under root/course with one submission per case (+ a control per lesson).

    .py cases: the release notebook with the answer cell of the case's exercise (grade_id = exercise
    id) replaced by the file's text; every other exercise is left as released (not attempted, 0).
    The notebook keeps the set-up cell, definitions, answer and test cells only (tests/support/classroom.py's
    `trimmed`): the lesson's demo cells are the same for every case, hold none of the hostile code
    and cost kernel time (lesson 4's start a TensorFlow subprocess). The answer and test cells, the
    only cells a case's grade depends on, are exactly the release's.
    Every other file (.ipynb, .txt) is submitted byte for byte as the student's notebook
    `<lesson>.ipynb`: the valid notebooks (nbformat 3, no function, a workspace attack) are what a
    student could hand in, and the broken ones (corrupt JSON, binary, a JSON list, a cell source that
    is not text, a .py-like text file under the notebook's name) are the bytes nbgrader's collection
    would hand over. Workspace cases get "@WORKSPACE@" replaced by a throwaway workspace under root,
    snapshotted before grading.
    """
    import nbformat

    from gradtutor.course import manifest as course

    lessons = sorted({c.lesson for c in cases})
    folder = tc.make_course(root / "course", lessons)
    with open(folder / "nbgrader_config.py", "a") as config:
        config.write(f"\n# tests/support/hostile.py: a cell hanging in the kernel costs less\n"
                     f"c.Execute.timeout = {GRADE_CELL_TIMEOUT}\n")
    submissions = []
    for lesson_id in lessons:
        lesson = course.load().lesson(lesson_id)
        release = nbformat.read(folder / "release" / lesson_id / lesson.notebook, as_version=4)
        solution = {e.id: tc.Slot(tc.solution_code(lesson, e), True, name="solution") for e in lesson.exercises}
        control = tc.submission(release, tc.Student(GRADE_CONTROL, solution, trimmed=True))
        _write_submission(folder, GRADE_CONTROL, lesson, nbformat.writes(control).encode())
        submissions.append(GradeSubmission(GRADE_CONTROL, lesson_id, None, "every exercise's solution"))
        for case in (c for c in cases if c.lesson == lesson_id):
            assert case.id != GRADE_CONTROL and case.exercise in {e.id for e in lesson.exercises}, case
            data = case.path.read_bytes()
            home = None
            if case.workspace:
                home = make_workspace(root / "workspaces" / case.id)
                data = data.replace(b"@WORKSPACE@", str(home).encode())
            if case.path.suffix == ".py":
                slots = {case.exercise: tc.Slot(data.decode(), False, name=case.id)}
                data = nbformat.writes(tc.submission(release, tc.Student(case.id, slots, trimmed=True))).encode()
                how = f"answer cell {case.exercise} replaced by {case.file}"
            else:
                how = f"{case.file} byte for byte as {lesson.notebook}"
            _write_submission(folder, case.id, lesson, data)
            submissions.append(GradeSubmission(case.id, lesson_id, case, how, home, snapshot(home) if home else None))
    return folder, submissions


def _write_submission(folder: Path, student: str, lesson, data: bytes) -> None:
    target = folder / "submitted" / student / lesson.id / lesson.notebook
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def grade_course(folder: Path, lessons: list[str], jobs: int = GRADE_JOBS,
                 timeout: float = GRADE_RUN_TIMEOUT) -> dict[str, GradeRun]:
    """`gradtutor grade COURSE LESSON --jobs N --verbose`, lesson by lesson."""
    runs = {}
    for lesson_id in lessons:
        started = time.monotonic()
        try:
            done = tc.gradtutor("grade", str(folder), lesson_id, "--jobs", str(jobs), "--verbose",
                                cwd=folder.parent, timeout=timeout)
            runs[lesson_id] = GradeRun(lesson_id, done.returncode, done.stdout + done.stderr, time.monotonic() - started)
        except subprocess.TimeoutExpired as exc:
            output = "".join(part.decode(errors="replace") if isinstance(part, bytes) else (part or "")
                             for part in (exc.stdout, exc.stderr))
            runs[lesson_id] = GradeRun(lesson_id, None, output, time.monotonic() - started)
    return runs


def grade_verdicts(folder: Path, submissions: list[GradeSubmission], runs: dict[str, GradeRun]) -> list[GradeVerdict]:
    """Each submission's score (read back from nbgrader's gradebook), result line, and what is wrong with it."""
    from gradtutor.course import manifest as course

    books = {lesson: tc.read_gradebook(folder, lesson) for lesson in runs}
    verdicts = []
    for sub in submissions:
        lesson = course.load().lesson(sub.lesson)
        run = runs[sub.lesson]
        entry = books[sub.lesson].get(sub.student)
        problems = []
        if run.returncode is None:
            problems.append(f"grader crash: `gradtutor grade {sub.lesson}` still running after {GRADE_RUN_TIMEOUT:g} s")
        elif run.returncode not in (0, 1):
            problems.append(f"grader crash: `gradtutor grade {sub.lesson}` exited {run.returncode}")
        if TRACEBACK in run.output:
            problems.append(f"grader crash: `gradtutor grade {sub.lesson}` printed a traceback")
        lines = run.output.splitlines()
        mine = [i for i, line in enumerate(lines)
                if re.match(rf"^\S\s+{re.escape(sub.student)}\s+{re.escape(lesson.notebook)}\s", line)]
        shown = []
        for i in mine:
            shown.append(lines[i])
            shown += [line for line in itertools.takewhile(lambda l: l.startswith("    "), lines[i + 1:])]
        if len(mine) != 1:
            problems.append(f"grader crash: {len(mine)} result lines name {sub.student} (one expected)")
        elif "gradtutor could not grade it" in lines[mine[0]]:
            problems.append(f"grader crash: {lines[mine[0]].strip()}")
        score = max_score = None
        grades = {}
        if entry is None:
            problems.append("not in the gradebook")
        else:
            score, max_score = entry["score"], entry["max_score"]
            grades = {name: grade[4] for name, grade in entry["grades"].items()}
            if max_score != lesson.points:
                problems.append(f"gradebook max score {max_score}, expected {lesson.points}")
        if sub.case is None:
            if score != lesson.points:
                problems.append(f"control scored {score}/{lesson.points}: the pipeline cannot give full marks")
        elif score:
            problems.append(f"FALSE PASS: scored {score:g}/{max_score:g} ({grades})")
        if mine and sub.case is not None and not re.search(rf"\s0/{lesson.points:g}\b", lines[mine[0]]):
            problems.append(f"result line does not say 0/{lesson.points:g}")
        timed_out = _timed_out_test_cells(folder / "autograded" / sub.student / sub.lesson / lesson.notebook)
        if timed_out or any(CELL_TIMED_OUT in line for line in shown):
            problems.append(f"test cell {', '.join(timed_out) or '?'} ran past Execute.timeout ({GRADE_CELL_TIMEOUT} s): "
                            "its 0 is no verdict")
        if sub.home is not None:
            changes = diff_snapshots(sub.before, snapshot(sub.home) if sub.home.exists() else {})
            if not sub.home.exists():
                changes = ["deleted the workspace folder itself"] + changes
            if changes:
                # even a notebook's top-level code: `gradtutor grade` runs nbgrader's kernels sandboxed
                problems.append("workspace changed: " + ", ".join(changes[:8]) + (" ..." if len(changes) > 8 else ""))
        verdicts.append(GradeVerdict(sub, score, max_score, grades, shown, problems))
    return verdicts


def _timed_out_test_cells(autograded: Path) -> list[str]:
    """The grade cells nbgrader's kernel cut off (CellTimeoutError in their outputs), read from the autograded copy."""
    from gradtutor.course import conventions

    try:
        nb = json.loads(autograded.read_text())
    except (OSError, ValueError):
        return []  # never autograded (a corrupt file, a stopped grading): no cell ran at all
    found = []
    for grade_id, cell in conventions.grade_cells(nb).items():
        if any(o.get("output_type") == "error" and "timeout" in str(o.get("ename", "")).lower()
               for o in cell.get("outputs", [])):
            found.append(grade_id)
    return found


def run_under_nbgrader(root: Path, cases: list[Case], jobs: int = GRADE_JOBS):
    """Build, grade and judge: (course folder, runs per lesson, verdicts)."""
    folder, submissions = build_grade_course(root, cases)
    runs = grade_course(folder, sorted({s.lesson for s in submissions}), jobs=jobs)
    return folder, runs, grade_verdicts(folder, submissions, runs)
