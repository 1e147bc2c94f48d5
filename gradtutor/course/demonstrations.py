"""Which of a notebook's demonstration cells no score can depend on: the rule, read from the cells' code.

A lesson marks the cells that only show something (conventions.is_demonstration): lesson 4's Keras 2 run
and its five-way timing take more of a submission's grading than its four checks. No score depends on them:
a check() sends the sources of the cells its kernel ran to the checker, whose child loads only their
definitions (gradtutor.course.extract) and calls the answer there. So a demonstration changes a score
only through a name it binds that a cell which runs reads. A cell need not run when

* it is one of the course's own demonstration cells, character for character: a cell the learner
  edited is the learner's code, and runs;
* no cell that runs reads a name it binds (gradtutor.course.cell_names, which errs towards reading and
  binding more), where the cells that run are every other cell plus, in turn, each demonstration one of
  them needs;
* no cell that runs is opaque (it reaches the namespace in ways its text cannot show): then every cell runs.

`gradtutor grade` leaves such cells out (gradtutor.classroom.kernels.skip_demonstrations); `gradtutor dev
check` requires that a lesson's own notebook leaves out every cell it marks.
"""
from __future__ import annotations

from gradtutor.course import cell_names


def left_out(sources: list[str | None], demonstrations: set[str]) -> frozenset[int]:
    """The positions in `sources` (a notebook's cells in order; None for a cell that is not code) that need not run.

    `demonstrations`: the sources of the cells the course's own notebook marks as demonstrations.
    """
    names = {i: cell_names.of(s) for i, s in enumerate(sources) if s is not None}
    waiting = {i for i in names if sources[i] in demonstrations and not names[i].opaque}
    running = [i for i in names if i not in waiting]
    if any(names[i].opaque for i in running):
        return frozenset()
    reads = set().union(*(names[i].reads for i in running))
    needed = True
    while needed:  # a demonstration that must run may itself read what another one binds
        needed = [i for i in sorted(waiting) if names[i].binds & reads]
        for i in needed:
            waiting.discard(i)
            reads |= names[i].reads
    return frozenset(waiting)


def why_needed(sources: list[str | None], demonstrations: set[str]) -> dict[int, tuple[str, int]]:
    """For each demonstration that must run: (a name it binds, the position of a running cell that reads it)."""
    skipped = left_out(sources, demonstrations)
    names = {i: cell_names.of(s) for i, s in enumerate(sources) if s is not None}
    found = {}
    for i in names:
        if sources[i] not in demonstrations or i in skipped:
            continue
        readers = [(sorted(names[i].binds & names[j].reads), j) for j in names if j != i and j not in skipped]
        name, reader = next(((shared[0], j) for shared, j in readers if shared), ("", -1))
        found[i] = (name, reader)  # ("", -1): it is opaque, or an opaque cell runs
    return found
