"""`gradtutor classroom serve --scheduler`: each instant check run as a Dask task.

The task carries the lesson id and the notebook's code cells (text, never a file path) and
brings back the finished page, so a worker needs nothing of the course or the exchange.
Each worker process keeps one warm checker (visible inputs only, the worker holds no secret)
for the checks it is given, one at a time.
"""
from __future__ import annotations

import threading

from gradtutor.errors import ClassroomError
from gradtutor.messages import say

_checker = None
_lock = threading.Lock()


def instant_check(lesson_id: str, cells: list[tuple[str, str]], timestamp: str, lang: str) -> tuple[str, str]:
    """The Dask task: (page, outcome) for the cells, checked on this worker's warm checker."""
    global _checker
    from gradtutor.course import manifest as course
    from gradtutor.course import extract
    from gradtutor.checking.checker import Checker
    from gradtutor.classroom.feedback.instant_feedback import verdict_page
    from gradtutor.messages import use

    use(lang)  # the page in the instructor's language, whatever the worker's locale
    with _lock:
        if _checker is None:
            _checker = Checker(prepare_next=True)
        return verdict_page(_checker, course.load().lesson(lesson_id), [extract.Cell(*c) for c in cells], timestamp)


class ClusterChecks:
    """The instant checks on the Dask cluster at `address` (same `page` and `close` as serve.LocalChecks)."""

    def __init__(self, address: str):
        try:
            import distributed
        except ImportError:
            raise ClassroomError(say("classroom.dask.needs_dask")) from None
        try:
            self.client = distributed.Client(address)
        except (OSError, TimeoutError) as exc:
            raise ClassroomError(say("classroom.dask.unreachable", address=address,
                                     error=str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)) from None

    def warm(self, lessons) -> None:
        """Nothing to warm here: each worker's checker starts with its first task."""

    def page(self, lesson, cells, timestamp: str) -> tuple[str, str]:
        from gradtutor.messages import language

        payload = [(c.label, c.source) for c in cells]
        return self.client.submit(instant_check, lesson.id, payload, timestamp, language(), pure=False).result()

    def close(self) -> None:
        self.client.close()
