"""Checker speed and memory, each as a ratio against importing TensorFlow, measured side by side.

1. cold `gradtutor check lesson1 --file solutions/...` wall time ÷ `python -c "import tensorflow"`
   wall time, alternated in one run (goal ≤ 1.5: the TensorFlow import is the floor);
2. `gradtutor watch`: seconds from a save to the verdict on screen, after the first check (goal ≤ 1.0 s);
3. peak memory of the process tree (RSS; a forked child's private pages only) of a check ÷ that of importing TensorFlow (goal ≤ 1.5).
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CHECK = [sys.executable, "-m", "gradtutor", "check", "lesson1", "--file", "solutions/lesson1/lesson1.ipynb", "--json"]
IMPORT_TF = [sys.executable, "-c", "import tensorflow"]


def _tree_memory(root: int) -> int:
    """Memory of a process tree, in bytes (from /proc).

    Each exec'd process counts its whole RSS; a forked child (same command line as
    its parent) counts only its private pages, since the rest are its parent's.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except OSError:
                continue
    total, stack = 0, [(root, None)]
    while stack:
        pid, parent_cmdline = stack.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read()
            forked = cmdline == parent_cmdline
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                for line in fh:
                    key, _, rest = line.partition(":")
                    if (key == "Rss" and not forked) or (forked and key in ("Private_Clean", "Private_Dirty")):
                        total += int(rest.split()[0]) * 1024
        except OSError:
            continue
        stack.extend((child, cmdline) for child in children.get(pid, []))
    return total


def measure(command: list[str]) -> tuple[float, int]:
    """Wall time and peak memory of its process tree of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0

    def sample():
        nonlocal peak
        while process.poll() is None:
            peak = max(peak, _tree_memory(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    process.wait()
    elapsed = time.perf_counter() - started
    sampler.join()
    if process.returncode not in (0,):
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}")
    return elapsed, peak


def watch_latency() -> list[float]:
    """Seconds from rewriting the watched file to the verdict line, after the first check."""
    folder = Path(tempfile.mkdtemp(prefix="gradtutor-bench-"))
    notebook = folder / "lesson1.ipynb"
    shutil.copyfile(REPO / "solutions/lesson1/lesson1.ipynb", notebook)
    process = subprocess.Popen([sys.executable, "-m", "gradtutor", "watch", "lesson1", "--file", str(notebook),
                                "--interval", "0.05"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env=dict(os.environ, COLUMNS="200"))
    latencies = []
    try:
        _wait_for_verdict(process)
        for _ in range(ROUNDS + 2):
            time.sleep(0.3)
            saved = time.perf_counter()
            notebook.write_bytes(notebook.read_bytes() + b" ")  # a save: new size and mtime
            _wait_for_verdict(process)
            latencies.append(time.perf_counter() - saved)
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return latencies


def _wait_for_verdict(process) -> None:
    for line in process.stdout:
        if "watching" in line:
            return
    raise SystemExit("gradtutor watch stopped before printing a verdict")


def main() -> None:
    subprocess.run(IMPORT_TF, cwd=REPO, capture_output=True)  # warm the file cache for both sides
    checks, imports = [], []
    for _ in range(ROUNDS):
        imports.append(measure(IMPORT_TF))
        checks.append(measure(CHECK))
    check_time = statistics.median(t for t, _ in checks)
    import_time = statistics.median(t for t, _ in imports)
    check_mem = statistics.median(m for _, m in checks)
    import_mem = statistics.median(m for _, m in imports)
    latency = statistics.median(watch_latency())
    print(f"cold check ÷ TF import: {check_time / import_time:.2f} (goal ≤ 1.5; check {check_time:.2f} s, "
          f"import tensorflow {import_time:.2f} s, median of {ROUNDS} alternated)")
    print(f"watch, save → verdict: {latency:.2f} s (goal ≤ 1.0 s, median after the first check)")
    print(f"peak memory check ÷ TF import: {check_mem / import_mem:.2f} (goal ≤ 1.5; check {check_mem / 2**20:.0f} MiB, "
          f"import tensorflow {import_mem / 2**20:.0f} MiB, process trees)")


if __name__ == "__main__":
    main()
