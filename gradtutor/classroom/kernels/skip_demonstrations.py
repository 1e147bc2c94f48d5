"""`gradtutor grade`'s side of leaving demonstration cells out (the rule: gradtutor.course.demonstrations).

Which cells the course marks comes from the course's own source and release notebooks, never from the
submission (a learner can edit any metadata). A left-out cell keeps the outputs the learner's own run gave it,
and says in its metadata that grading did not run it. Plain `nbgrader autograde` runs every cell; only
gradtutor's SandboxedExecute asks this module.
"""
from __future__ import annotations

from pathlib import Path

from gradtutor.course import conventions

SKIPPED_MARK = "not_run_at_grading"  # metadata.gradtutor.not_run_at_grading = true in the autograded copy


def course_demonstrations(coursedir, assignment: str, notebook: str) -> set[str]:
    """The sources of the cells the course's source and release notebooks mark as demonstrations."""
    from gradtutor.classroom.grading.nbgrader_glue import course_copies

    return {cell.source for nb in course_copies(coursedir, assignment, notebook) for cell in nb.cells
            if conventions.is_demonstration(cell)}


def keep_learner_outputs(nb, skipped: frozenset[int], submitted: Path) -> None:
    """Give each left-out cell back the outputs the learner's own run left in `submitted`, and mark it.

    nbgrader cleared every output before running the notebook; the submitted file still holds them. Only a
    cell with the same source at the same place gets them back (nbgrader's sanitizing keeps the cells in order).
    """
    import nbformat

    try:
        handed_in = nbformat.read(submitted, as_version=4).cells
    except Exception:  # noqa: BLE001 - nbgrader read it a moment ago; without it the outputs stay cleared
        handed_in = []
    for index in sorted(skipped):
        cell = nb.cells[index]
        own = handed_in[index] if index < len(handed_in) else None
        if own is not None and own.cell_type == "code" and own.source == cell.source:
            cell.outputs = own.outputs
            cell.execution_count = own.execution_count
        marks = cell.metadata.get(conventions.METADATA_KEY)
        cell.metadata[conventions.METADATA_KEY] = dict(marks if isinstance(marks, dict) else {}, **{SKIPPED_MARK: True})
