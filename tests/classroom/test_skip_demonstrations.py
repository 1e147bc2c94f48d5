"""Does a left-out demonstration keep the learner's own outputs, and say that grading did not run it?"""
from __future__ import annotations

import random

import nbformat
import pytest

from gradtutor.classroom.kernels.skip_demonstrations import SKIPPED_MARK, keep_learner_outputs
from gradtutor.course import conventions

pytestmark = pytest.mark.unit


def test_left_out_cells_get_the_submitted_outputs_back_and_a_mark(tmp_path):
    rng = random.Random()
    count = rng.randint(4, 9)
    handed_in = nbformat.v4.new_notebook()
    for number in range(count):
        cell = nbformat.v4.new_code_cell(f"print({rng.random()!r})\n", execution_count=rng.randint(1, 99))
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{rng.random()}\n")]
        handed_in.cells.append(cell)
    path = tmp_path / "submitted.ipynb"
    nbformat.write(handed_in, path)
    # what nbgrader runs: the same cells, outputs cleared; one left-out cell no longer matches its submitted source
    graded = nbformat.from_dict(nbformat.reads(nbformat.writes(handed_in), as_version=4))
    for cell in graded.cells:
        cell.outputs, cell.execution_count = [], None
    skipped = frozenset(rng.sample(range(count), rng.randint(2, count - 1)))
    changed = rng.choice(sorted(skipped))
    graded.cells[changed].source += "# changed\n"
    keep_learner_outputs(graded, skipped, path)
    for index, cell in enumerate(graded.cells):
        marked = (cell.metadata.get(conventions.METADATA_KEY) or {}).get(SKIPPED_MARK)
        assert marked is (True if index in skipped else None)
        restored = index in skipped and index != changed
        assert cell.outputs == (handed_in.cells[index].outputs if restored else [])
        assert cell.execution_count == (handed_in.cells[index].execution_count if restored else None)
