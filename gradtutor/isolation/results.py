"""Reading back what a job's child left in its folder, trusting nothing of it.

One result slot per exercise, filled in order: result-<i>.json (a ChildResult
that must carry this job's nonce) and arrays-<i>.npz (numeric arrays only,
loaded with allow_pickle=False). The first empty slot is where the child
stopped; why it stopped is told from its exit status and worker-error.txt.
"""
from __future__ import annotations

import dataclasses
import json
import signal
from pathlib import Path

import numpy as np

from gradtutor.protocol import ChildResult
from gradtutor.messages import say

MAX_RESULT_BYTES = 50 * 1024 * 1024


@dataclasses.dataclass
class Outcome:
    """What one job left behind: a result per exercise, filled in order."""

    slots: list  # per exercise: (ChildResult, arrays) or None where the job never got to it
    exit: dict | None  # {"code": n} or {"signal": n}; None if the worker died
    timed_out: bool = False
    output: str = ""  # what the learner's code printed
    problem: str | None = None  # why the job ended early

    @property
    def stopped_at(self) -> int | None:
        """Index of the first exercise without a result (where a hang or crash happened)."""
        return next((i for i, slot in enumerate(self.slots) if slot is None), None)


def filled(out: Path, count: int) -> int:
    """How many result slots the child has written so far."""
    done = 0
    for index in range(count):
        try:
            if (out / f"result-{index}.json").stat().st_size == 0:
                break
        except OSError:
            break
        done += 1
    return done


def collect(out: Path, nonce: str, count: int, exit_status: dict | None, timed_out: bool) -> Outcome:
    """The Outcome of a finished job: every slot that was filled (and carries the nonce), and why the rest are not."""
    outcome = Outcome([None] * count, exit_status, timed_out=timed_out, output=read_text(out / "output.txt"))
    for index in range(count):
        result_file = out / f"result-{index}.json"
        if not result_file.is_file() or result_file.stat().st_size == 0:
            break
        try:
            if result_file.stat().st_size > MAX_RESULT_BYTES:
                raise ValueError("result too large")
            result: ChildResult = json.loads(result_file.read_text())
            if not isinstance(result, dict) or result.get("nonce") != nonce:
                raise ValueError("nonce mismatch")
            arrays = _load_arrays(out / f"arrays-{index}.npz")
        except (ValueError, OSError, UnicodeDecodeError):
            outcome.problem = say("check.worker.overwritten")
            return outcome
        outcome.slots[index] = (result, arrays)
    if outcome.stopped_at is not None and not timed_out:
        outcome.problem = _describe_missing_result(exit_status, out)
    return outcome


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file() or path.stat().st_size == 0:
        return {}
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    for array in arrays.values():
        if not isinstance(array, np.ndarray) or array.dtype.kind not in "biufc":
            raise ValueError("non-numeric array")
    return arrays


def _describe_missing_result(exit_status: dict | None, out: Path) -> str:
    if exit_status is None:
        return say("check.worker.stopped")
    if "signal" in exit_status:
        number = exit_status["signal"]
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        if number in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
            return say("check.worker.crashed_memory", signal=name)
        return say("check.worker.crashed", signal=name)
    if read_text(out / "worker-error.txt").strip():
        return say("check.worker.failed", error=read_text(out / "worker-error.txt").strip().splitlines()[-1])
    return say("check.worker.exited", code=exit_status.get("code"))


def read_text(path: Path, limit: int = 4000) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""
