"""Which demonstration cells need not run for a submission (gradtutor.course.demonstrations)?"""
from __future__ import annotations

import random

import nbformat
import pytest

from gradtutor.course import cell_names, conventions
from gradtutor.course import manifest as course
from gradtutor.course.demonstrations import left_out, why_needed
from tests.course.test_cell_names import drawn_names
from tests.support.classroom import answers_of

pytestmark = pytest.mark.unit


def drawn_notebook(rng: random.Random):
    """A set-up cell, a chain of demonstrations (each reads the one before), a markdown cell, an answer, its check."""
    count = rng.randint(3, 7)
    names = drawn_names(rng, count + 3)
    module, function, helpers = names[0], names[1], names[2:]
    demos = [f"{helpers[0]} = {module}.ones(3)\nprint({helpers[0]})\n"]
    demos += [f"def {helpers[i]}(v):\n    return {helpers[i - 1]} * v\nprint({helpers[i]}(2))\n" for i in range(1, count)]
    sources = [f"import numpy as {module}\n", *demos, None,
               f"def {function}(x):\n    return {module}.sum(x)\n", f"check('lesson', 'exercise', {function})\n"]
    return sources, demos, helpers, function


def test_with_no_cell_reading_them_every_demonstration_is_left_out():
    sources, demos, _, _ = drawn_notebook(random.Random())
    assert left_out(sources, set(demos)) == frozenset(range(1, 1 + len(demos)))


def test_an_answer_that_reads_a_demonstrations_name_runs_it_and_every_one_it_needs():
    rng = random.Random()
    sources, demos, helpers, function = drawn_notebook(rng)
    leaned_on = rng.randrange(len(demos))
    answer = len(demos) + 2
    sources[answer] = f"def {function}(x):\n    return {helpers[leaned_on]}(x) if callable({helpers[leaned_on]}) else x\n"
    # demonstration i reads the name demonstration i - 1 binds: it needs all before it
    assert left_out(sources, set(demos)) == frozenset(range(2 + leaned_on, 1 + len(demos))), sources
    needed = why_needed(sources, set(demos))
    assert needed[1 + leaned_on] == (helpers[leaned_on], answer)


def test_a_demonstration_the_learner_edited_runs():
    rng = random.Random()
    sources, demos, _, _ = drawn_notebook(rng)
    edited = rng.randrange(len(demos))
    sources[1 + edited] += "# mine\n"
    # it runs, and needs the ones before it; those after it are still left out
    assert left_out(sources, set(demos)) == frozenset(range(2 + edited, 1 + len(demos)))


def test_an_opaque_cell_that_runs_makes_every_cell_run():
    rng = random.Random()
    sources, demos, _, _ = drawn_notebook(rng)
    sources.insert(rng.randint(1, len(sources)), rng.choice(["%timeit 1\n", "print(globals())\n", "print(_3)\n"]))
    assert left_out(sources, set(demos)) == frozenset()


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in course.load().lessons])
def test_every_known_answer_leaves_out_every_demonstration_it_does_not_read(lesson_id):
    lesson = course.load().lesson(lesson_id)
    for lang in ("en", "zh_CN"):
        path = lesson.source_notebook(lang)
        if not path.is_file():
            continue
        nb = nbformat.read(path, as_version=4)
        sources = [cell.source if cell.cell_type == "code" else None for cell in nb.cells]
        marked = {i for i, cell in enumerate(nb.cells) if conventions.is_demonstration(cell)}
        demos = {sources[i] for i in marked}
        assert left_out(sources, demos) == marked  # the solutions need none of them (dev check holds it too)
        where = {conventions.grade_id(cell): i for i, cell in enumerate(nb.cells) if conventions.grade_id(cell)}
        for answer in answers_of(lesson.id):
            answered = list(sources)
            answered[where[answer["exercise"]]] = answer["code"]
            skipped = left_out(answered, demos)
            assert skipped <= marked
            running = [cell_names.of(s) for i, s in enumerate(answered) if s is not None and i not in skipped]
            reads = set().union(*(names.reads for names in running))
            for i in skipped:
                assert not (cell_names.of(sources[i]).binds & reads), (answer["name"], i)
