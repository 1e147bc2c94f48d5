"""Run the hostile corpus (corpus.toml) and judge each verdict; shared by tests/test_hostile.py and
benchmarks/bench_hostile.py. Not a submission itself."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
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
    message: str
    exit: int
    cli: bool = False
    workspace: bool = False
    why: str = ""

    @property
    def path(self) -> Path:
        return HERE / self.file

    @property
    def id(self) -> str:
        return Path(self.file).stem


def load_cases() -> list[Case]:
    data = tomllib.loads(MANIFEST.read_text())
    cases = []
    for raw in data["case"]:
        expect = raw["expect"]
        expect = (expect,) if isinstance(expect, str) else tuple(expect)
        exit_code = raw.get("exit", EXIT_FOR[expect[0]])
        cases.append(Case(raw["file"], raw["lesson"], raw["exercise"], raw["kind"], expect, raw.get("message", ""),
                          exit_code, raw.get("cli", False), raw.get("workspace", False), raw.get("why", "")))
    return cases


def available(case: Case) -> str | None:
    """Why the case cannot run yet (its lesson or exercise is not in course.toml), or None."""
    from gradtutor import course

    try:
        course.load().lesson(case.lesson).exercise(case.exercise)
    except course.UnknownLesson as exc:
        return str(exc)
    return None


# --------------------------------------------------------------------------- workspaces

def make_workspace(root: Path) -> Path:
    """A throwaway learner workspace: the marker, a lesson notebook and sibling files."""
    from gradtutor import workspace as workspace_mod

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
    from gradtutor import course, extract

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
    full_env.setdefault("GRADTUTOR_HOME", str(REPO / "test-output" / "gradtutor-home"))
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
    from gradtutor import course

    problems = []
    if verdict.status == "pass":
        problems.append("FALSE PASS")
    if verdict.status == "crash":
        problems.append(f"grader crash: {verdict.message}")
    elif verdict.status not in case.expect:
        problems.append(f"status {verdict.status!r}, expected {' or '.join(case.expect)}")
    if verdict.exit != case.exit and verdict.status != "crash":
        problems.append(f"exit code {verdict.exit}, expected {case.exit}")
    if case.message and case.message.lower() not in verdict.message.lower():
        problems.append(f"message lacks {case.message!r}")
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
