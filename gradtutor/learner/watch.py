"""`gradtutor watch`: check again on every save, with a worker kept warm.

TensorFlow is imported once, when watching starts; each save then costs a fork
and the exercises themselves, well under a second for these lessons.
"""
from __future__ import annotations

import time
from pathlib import Path

from gradtutor import defaults
from gradtutor.course import extract
from gradtutor.learner import verdict_view as report
from gradtutor.learner import workspace
from gradtutor.checking.checker import Checker
from gradtutor.messages import say


def watch(lesson, path: Path, interval: float = 0.2, timeout: float = defaults.EXERCISE_TIMEOUT,
          memory_mb: int | None = defaults.MEMORY_MB) -> int:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    # prepare_next: each save finds a child with the lesson's inputs built
    with Checker(timeout=timeout, memory_mb=memory_mb, prepare_next=True) as checker:
        seen = None
        try:
            while True:
                stamp = _stamp(path)
                if stamp != seen:
                    seen = stamp
                    _check_once(console, checker, lesson, path)
                    console.print(f"[dim]{time.strftime('%H:%M:%S')} {escape(say('lab.watching', path=path))}[/]")
                time.sleep(interval)
        except KeyboardInterrupt:
            console.print(say("lab.stopped_watching"))
            return 0


def _stamp(path: Path):
    try:
        info = path.stat()
        return (info.st_mtime_ns, info.st_size)
    except OSError:
        return None


def _check_once(console, checker: Checker, lesson, path: Path) -> None:
    from rich.markup import escape

    try:
        cells = extract.read_cells(path)
    except extract.UnreadableFile as exc:
        console.print(f"[yellow]{escape(str(exc))}[/]", markup=True)
        return
    result = checker.check_cells(lesson, cells, None, "all", str(path))
    workspace.record(path, lesson.id, {e.id: e.status for e in result.exercises})
    report.print_lesson(console, result)
