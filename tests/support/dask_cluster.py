"""A real Dask cluster on 127.0.0.1 for tests: `dask scheduler` and two `dask worker`s, each in a folder of its own.

Used by tests/classroom/test_classroom_dask.py. The processes are the CLIs an instructor runs
(with a nanny, which starts a fresh worker process when one is killed). The scheduler
allows one worker death per task (`allowed-failures` 1), so a test can kill a worker
once and see the task run again, and twice and see it given up.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.support.classroom import BIN, tool_env

ALLOWED_FAILURES = 1
START_TIMEOUT = 180.0  # seconds for the scheduler and both workers on a loaded 2-core machine


class DaskCluster:
    def __init__(self, root: Path, workers: int = 2):
        self.root = root
        self.processes: list[subprocess.Popen] = []
        env = tool_env()
        env["DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES"] = str(ALLOWED_FAILURES)
        env["DASK_DISTRIBUTED__SCHEDULER__WORK_STEALING"] = "False"  # a task stays where it started
        self.env = env
        scheduler_dir = root / "scheduler"
        scheduler_dir.mkdir(parents=True)
        info = scheduler_dir / "scheduler.json"
        self._start([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(info)], scheduler_dir)
        deadline = time.monotonic() + START_TIMEOUT
        while not info.is_file() or not info.read_text().strip():
            assert time.monotonic() < deadline, "dask scheduler did not start: " + self.logs()
            time.sleep(0.5)
        self.address = json.loads(info.read_text())["address"]
        self.port = int(self.address.rsplit(":", 1)[1])
        for number in range(workers):
            folder = root / f"worker-{number}"  # separate working directories: nothing shared but the network
            folder.mkdir()
            self._start([str(BIN / "dask"), "worker", self.address, "--host", "127.0.0.1", "--nworkers", "1",
                         "--nthreads", "1", "--no-dashboard", "--local-directory", str(folder)], folder)
        from distributed import Client

        self.client = Client(self.address, set_as_default=False)
        self.client.wait_for_workers(workers, timeout=START_TIMEOUT)

    def _start(self, command: list[str], cwd: Path) -> None:
        log = open(cwd / "log.txt", "wb")
        self.processes.append(subprocess.Popen(command, cwd=cwd, env=self.env, stdout=log, stderr=log,
                                               start_new_session=True))

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.root.glob("*/log.txt")))

    def worker_pids(self) -> dict[str, int]:
        """Worker address -> the pid of its worker process (the nanny's child, where tasks run)."""
        return self.client.run(os.getpid)

    def kill_worker_running(self, key_part: str, timeout: float = 600) -> tuple[int, str]:
        """Wait until a task whose key holds `key_part` runs on a worker, then SIGKILL that worker process."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for worker, keys in self.client.processing().items():
                if any(key_part in str(key) for key in keys):
                    time.sleep(3)  # mid-task: its grading host is at work
                    try:
                        pid = self.client.run(os.getpid, workers=[worker])[worker]
                    except Exception:  # noqa: BLE001 - a worker that died since: look again
                        break
                    os.kill(pid, signal.SIGKILL)
                    return pid, worker
            time.sleep(0.5)
        raise AssertionError(f"no task with {key_part!r} in its key ran within {timeout:g} s")

    def close(self) -> None:
        import psutil

        self.client.close()
        for process in self.processes:
            try:
                family = psutil.Process(process.pid).children(recursive=True)
            except psutil.Error:
                family = []
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            for child in family:  # grading hosts and their kernels run in sessions of their own
                try:
                    child.kill()
                except psutil.Error:
                    pass
