"""Checks `gradtutor dev check` makes of a lesson's notebooks as text: answer names kept to the answers, reading time."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from gradtutor.dev.notebook_lint import answer_names, reading_time, word_count


def findings(lesson_id: str, notebooks: dict[str, Path], shown: Callable[[Path], str]) -> Iterator[tuple[bool, str]]:
    """(is a problem, one line) for a lesson's solutions notebooks, one per language (a missing one is skipped:
    dev check's lesson files report it)."""
    notebooks = {lang: path for lang, path in notebooks.items() if path.is_file()}
    shared = 0
    for path in notebooks.values():
        for name, other, answer in answer_names.shared_names(path):
            shared += 1  # a demo cell run after the answer replaces the learner's answer
            yield True, (f"{lesson_id}: {shown(path)} cell {other} defines {name}, which the answer in cell {answer} "
                         "defines: running it after the answer replaces the learner's answer — rename it in that cell")
    if not shared:
        yield False, f"{lesson_id}: only the answer cells define the answers' names"
    for lang, path in notebooks.items():  # each language on its own: a learner reads one of them
        prose = word_count.notebook_prose(path)
        took, made_of = reading_time.minutes(prose), reading_time.described(prose)
        if reading_time.too_long(prose):
            yield True, (f"{lesson_id}: {shown(path)} ({lang}) takes {took:.1f} minutes to read, more than "
                         f"{reading_time.MAX_MINUTES} ({made_of}) — trim its prose")
        else:
            yield False, f"{lesson_id}: {shown(path)} ({lang}) reads in {took:.1f} minutes ({made_of})"
