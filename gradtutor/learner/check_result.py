"""What check() returns in a notebook: the verdict as data the learner can look at, falsy unless it passed.

`result = check(...)` then `result.status`, `result.message`; `if not check(...):` reads as it says.
The verdict itself is already shown above the cell's end, so a result left as a cell's last value
shows nothing more (no "Out[n]: CheckResult(...)" under the verdict).
"""
from __future__ import annotations

import dataclasses

SKIPPED = "skipped"  # a hidden-test cell outside a course: no hidden inputs to check here, said in one line


@dataclasses.dataclass(frozen=True)
class CheckResult:
    lesson: str
    exercise: str
    status: str  # a gradtutor.protocol.Status word ("pass", "fail", ...) or SKIPPED
    message: str
    cause: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def __bool__(self) -> bool:
        return self.passed

    def _ipython_display_(self) -> None:
        """Shown already, as the verdict: IPython calls this instead of printing the repr."""
