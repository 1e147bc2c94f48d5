"""`gradtutor check` from the terminal, again and again: the warm checker (gradtutor.daemon) at work.

The first check starts the per-user daemon (it imports TensorFlow once); every later
`gradtutor check` asks it over its socket. Printed: the median of the repeats and the
first, then an in-process check (`--no-daemon`) for scale. Goal: repeat < 0.5 s.
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
CHECK = [sys.executable, "-m", "gradtutor", "check", "lesson1", "--file", "solutions/lesson1/lesson1.ipynb", "--json"]


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gradtutor-bench-") as home:
        env = dict(os.environ, GRADTUTOR_HOME=home, GRADTUTOR_NO_DAEMON="0")
        try:
            first = timed(CHECK, env)
            repeats = [timed(CHECK, env) for _ in range(ROUNDS)]
            in_process = timed([*CHECK, "--no-daemon"], env)
        finally:
            subprocess.run([sys.executable, "-c", "from gradtutor.daemon.client import stop; stop()"], cwd=REPO, env=env)
    print(f"repeat check: {statistics.median(repeats):.2f} s (first {first:.2f} s)")
    print(f"  in-process check (--no-daemon): {in_process:.2f} s; repeats {', '.join(f'{r:.2f}' for r in repeats)}")


if __name__ == "__main__":
    main()
