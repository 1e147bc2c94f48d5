"""Checks `gradtutor dev check` makes of a lesson's notebooks as text: answer names kept to the answers, demonstrations
the grader may leave out, reading time."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from gradtutor.dev.notebook_lint import answer_names, demonstration_names, reading_time, word_count


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
    needed, marked = 0, sum(demonstration_names.marked(path) for path in notebooks.values())
    for path in notebooks.values():
        for cell, name, reader in demonstration_names.needed_demonstrations(path):
            needed += 1  # it runs for every submission: the marking promises what grading cannot keep
            yield True, (f"{lesson_id}: {shown(path)} cell {cell} is marked as a demonstration, but " +
                         (f"cell {reader} reads {name}, which it defines — move {name} out of it or unmark it"
                          if name else "its names cannot be read from its code (or another cell's) — unmark it"))
    if marked and not needed:
        yield False, f"{lesson_id}: no answer, check or other cell reads a name one of its {marked} demonstration cells defines"
    for lang, path in notebooks.items():  # each language on its own: a learner reads one of them
        prose = word_count.notebook_prose(path)
        took, made_of = reading_time.minutes(prose), reading_time.described(prose)
        if reading_time.too_long(prose):
            yield True, (f"{lesson_id}: {shown(path)} ({lang}) takes {took:.1f} minutes to read, more than "
                         f"{reading_time.MAX_MINUTES} ({made_of}) — trim its prose")
        else:
            yield False, f"{lesson_id}: {shown(path)} ({lang}) reads in {took:.1f} minutes ({made_of})"
