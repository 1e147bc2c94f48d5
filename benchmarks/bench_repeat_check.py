"""`gradtutor check` from the terminal, again and again: the warm checker (gradtutor.learner.daemon) at work.

The first check starts the per-user daemon (it imports TensorFlow once); every later
`gradtutor check` asks it over its socket. A learner edits between checks, so the
headline repeats come PAUSE seconds apart (the daemon's next child is prepared by then,
as `gradtutor watch`'s is between saves); back-to-back repeats, which wait for that
child, are printed too, with an in-process check (`--no-daemon`) and the same checker
in-process (the watch path, no CLI) for scale. Goal: repeat ≤ 0.3 s.
The daemon lives in a temporary state folder and is stopped at the end.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
PAUSE = 2.0
CHECK = [sys.executable, "-m", "gradtutor", "check", "lesson1", "--file", "solutions/lesson1/lesson1.ipynb", "--json"]


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return elapsed


def watch_path() -> float:
    """The same check on a warm in-process Checker after a pause: what `gradtutor watch` pays per save."""
    from gradtutor.course import manifest as course
    from gradtutor.course import extract
    from gradtutor.checking.checker import Checker

    lesson = course.load().lesson("lesson1")
    cells = extract.read_cells(REPO / "solutions" / "lesson1" / "lesson1.ipynb")
    times = []
    with Checker(prepare_next=True) as checker:
        checker.check_cells(lesson, cells)
        for _ in range(3):
            time.sleep(PAUSE)
            started = time.perf_counter()
            checker.check_cells(lesson, cells)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gradtutor-bench-") as home:
        env = dict(os.environ, GRADTUTOR_HOME=home, GRADTUTOR_NO_DAEMON="0")
        try:
            first = timed(CHECK, env)
            paused = []
            for _ in range(ROUNDS):
                time.sleep(PAUSE)
                paused.append(timed(CHECK, env))
            back_to_back = [timed(CHECK, env) for _ in range(ROUNDS)]
            in_process = timed([*CHECK, "--no-daemon"], env)
        finally:
            subprocess.run([sys.executable, "-c", "from gradtutor.learner.daemon.client import stop; stop()"], cwd=REPO, env=env)
    print(f"repeat check: {statistics.median(paused):.2f} s (first {first:.2f} s)")
    print(f"  {PAUSE:g} s apart: {', '.join(f'{r:.2f}' for r in paused)}; back to back: "
          f"{', '.join(f'{r:.2f}' for r in back_to_back)}; in-process check (--no-daemon): {in_process:.2f} s; "
          f"the watch path (warm checker in-process, no CLI): {watch_path():.2f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
