"""Every cell a lesson marks as a demonstration is one the grader may leave out of the shipped notebook.

`gradtutor grade` leaves a demonstration out only where no cell that runs reads a name it binds
(gradtutor.course.demonstrations). A marked cell whose names an answer, a check or another cell reads would
run for every submission anyway, and says the marking is wrong: either the name belongs in a cell that is no
demonstration, or the reader should not lean on a demonstration. The shipped answers are the solutions.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from gradtutor.course import conventions
from gradtutor.course.demonstrations import why_needed


def needed_demonstrations(notebook: Path) -> Iterator[tuple[int, str, int]]:
    """(the marked cell's number, a name it binds, the number of a cell that reads it) for each marked cell that must run.

    Numbers count every cell of the notebook from 1, markdown too, as Jupyter shows them in order; the name is
    "" and the reader 0 when the marked cell, or a cell that runs, is opaque (gradtutor.course.cell_names).
    """
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    sources = [conventions.cell_source(cell) if cell.get("cell_type") == "code" else None for cell in cells]
    marked = {sources[i] for i, cell in enumerate(cells) if conventions.is_demonstration(cell)}
    for index, (name, reader) in sorted(why_needed(sources, marked).items()):
        yield index + 1, name, reader + 1


def marked(notebook: Path) -> int:
    """How many cells the notebook marks as demonstrations."""
    return sum(conventions.is_demonstration(cell) for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"])
