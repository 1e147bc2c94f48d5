"""The checker's memory for a second open lesson: what a learner's second kernel adds beside its own.

Two kernels, as two lessons open in JupyterLab, each runs a lesson's set-up and a check of a wrong
answer. After each, the checker's memory is summed as PSS (each shared page split between the
processes that share it, so a sum is what the machine pays): every process below the kernels (a
judge of a kernel's own and its worker) and the learner's warm daemon with its worker. The kernels
themselves are not counted (printed for scale). Measured with the shared daemon (a learner's kernel
today) and with a judge per kernel (GRADTUTOR_NO_DAEMON=1, as before), side by side. Goal: the
second lesson's checker ≤ 50 MB.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.learner.lab import process_tree

REPO = Path(__file__).resolve().parent.parent
GOAL_MB = 50
SETTLE = 5.0  # seconds after a check: the checker prepares its next child then, and that child is counted too


def pss_mb(pids) -> float:
    total_kb = 0
    for pid in set(pids):
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except OSError:
            pass  # gone since it was listed
    return total_kb / 1024


def daemons(home: str) -> list[int]:
    mark = f"GRADTUTOR_HOME={home}".encode()
    found = []
    for pid in process_tree.all_processes():
        try:
            if b"gradtutor.learner.daemon" in Path(f"/proc/{pid}/cmdline").read_bytes() and \
                    mark in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                found.append(pid)
        except OSError:
            continue
    return found


def checker_pids(kernels: list[int], home: str) -> list[int]:
    pids = [p.pid for kernel in kernels for p in process_tree.descendants(kernel)]
    for daemon in daemons(home):
        pids += [daemon, *(p.pid for p in process_tree.descendants(daemon))]
    return pids


def open_lesson(lesson, env: dict, folder: str):
    """A kernel that ran the lesson's set-up and a check of a wrong answer to its first exercise."""
    from jupyter_client.manager import KernelManager

    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=folder)
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=300)
    exercise = lesson.exercises[0]
    code = (f"import gradtutor.quiet\nimport tensorflow as tf\nfrom gradtutor import check, prestart\nprestart()\n"
            f"def {exercise.function}(*args):\n    return None\n"
            f"result = check('{lesson.id}', '{exercise.id}', {exercise.function}, seeds='visible')\n"
            f"assert result.status == 'fail', result")
    reply = client.execute_interactive(code, timeout=900, output_hook=lambda message: None)
    if reply["content"]["status"] != "ok":
        raise SystemExit(f"the check in the {lesson.id} kernel failed: {reply['content'].get('evalue')}")
    return manager, client


def measure(shared: bool) -> tuple[float, float, float]:
    """(checker MB with one lesson open, with two, one kernel's own MB)."""
    lessons = course.load().lessons[:2]
    with tempfile.TemporaryDirectory(prefix="gradtutor-bench-") as home:
        env = dict(os.environ, GRADTUTOR_HOME=home, GRADTUTOR_NO_DAEMON="0" if shared else "1")
        env.pop("NBGRADER_EXECUTION", None)
        opened, figures = [], []
        try:
            for lesson in lessons:
                opened.append(open_lesson(lesson, env, home))
                time.sleep(SETTLE)
                kernels = [manager.provisioner.process.pid for manager, _ in opened]
                figures.append(pss_mb(checker_pids(kernels, home)))
            kernel_mb = pss_mb([kernels[-1]])
        finally:
            for manager, client in opened:
                client.stop_channels()
                manager.shutdown_kernel(now=True)
            subprocess.run([sys.executable, "-c", "from gradtutor.learner.daemon.client import stop; stop()"],
                           cwd=REPO, env=env, capture_output=True)
    return figures[0], figures[1], kernel_mb


def main() -> None:
    one, two, kernel = measure(shared=True)
    own_one, own_two, _ = measure(shared=False)
    added, before = two - one, own_two - own_one
    print(f"second open lesson's checker: {added:+.0f} MB PSS (goal ≤ {GOAL_MB} MB) with the learner's shared "
          f"checker; {before:+.0f} MB with a judge per kernel")
    print(f"  checker with one lesson open / two: {one:.0f} / {two:.0f} MB shared, {own_one:.0f} / {own_two:.0f} MB "
          f"a judge per kernel; a kernel itself: {kernel:.0f} MB; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    if added > GOAL_MB:
        raise SystemExit(f"the second lesson's checker costs {added:.0f} MB, more than {GOAL_MB} MB")


if __name__ == "__main__":
    main()
