"""nbgrader's cell conventions as gradtutor's lessons use them, in one place so every reader agrees.

A lesson notebook (solutions/<id>/<id>.ipynb) is an nbgrader source notebook. Each exercise has

* an answer cell: `metadata.nbgrader` = {"grade": false, "grade_id": "<exercise id>",
  "locked": false, "schema_version": 3, "solution": true}, the solution between
  `### BEGIN SOLUTION` and `### END SOLUTION`;
* right after it a test cell: grade_id `check_<exercise id>`, {"grade": true,
  "locked": true, "points": N, "schema_version": 3, "solution": false}, its hidden
  checks between `### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS`.

What nbgrader itself decides about a cell (graded? a solution? locked? its score?)
is asked of nbgrader.utils in a process that has loaded nbgrader (a grading one), so
gradtutor reads a notebook there exactly as nbgrader grades it; elsewhere (a learner's
install has no nbgrader; a reader that has not loaded it would pay seconds to) the
fallback here applies the same rules (nbgrader 0.9's).

The release form of a cell is what nbgrader's ClearSolutions and ClearHiddenTests
make of it with their default settings: a line *containing* a delimiter opens or
closes a region, and a solution region becomes the stub, indented like its first
line. tests/course/test_conventions.py pins the delimiters and stubs to nbgrader's own.
"""
from __future__ import annotations

import re
import sys

TEST_PREFIX = "check_"  # a test cell's grade_id is check_<exercise id>
SCHEMA_VERSION = 3  # of metadata.nbgrader, as nbgrader 0.9 writes it

# How the lessons write the regions (what authors type, docs/authoring.md) ...
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
# ... and what nbgrader looks for in a line (ClearSolutions / ClearHiddenTests defaults).
SOLUTION_DELIMITERS = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TESTS_DELIMITERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
# ClearSolutions' replacements of a solution region in a Python notebook.
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"


# --------------------------------------------------------------------------- grade ids


def check_id(exercise_id: str) -> str:
    """The grade_id of an exercise's test cell."""
    return TEST_PREFIX + exercise_id


def exercise_of(grade_id: str | None) -> str | None:
    """The exercise a test cell's grade_id checks, or None when it is not one."""
    if grade_id and grade_id.startswith(TEST_PREFIX):
        return grade_id[len(TEST_PREFIX):]
    return None


# --------------------------------------------------------------------------- cell metadata


def metadata(cell) -> dict:
    """`metadata.nbgrader` of a cell (a dict or an nbformat node); {} for a cell nbgrader ignores."""
    return (cell.get("metadata") or {}).get("nbgrader") or {}


def grade_id(cell) -> str | None:
    return metadata(cell).get("grade_id") or None


def answer_metadata(exercise_id: str) -> dict:
    """`metadata.nbgrader` of an exercise's answer cell."""
    return {"grade": False, "grade_id": exercise_id, "locked": False,
            "schema_version": SCHEMA_VERSION, "solution": True}


def check_metadata(exercise_id: str, points: float) -> dict:
    """`metadata.nbgrader` of an exercise's test cell."""
    return {"grade": True, "grade_id": check_id(exercise_id), "locked": True, "points": points,
            "schema_version": SCHEMA_VERSION, "solution": False}


def _nbgrader_utils():
    """nbgrader's helpers once this process has loaded nbgrader for its own work (a grading process has); else None.

    Loading nbgrader only to ask these costs about 2 CPU-seconds (its package imports its server
    extensions): a reader that has not loaded it (the class report of a re-run with nothing new
    to grade, a learner's install) applies the rules here, which tests/course/test_conventions.py
    holds to nbgrader's own.
    """
    return sys.modules.get("nbgrader.utils")


def _node(cell):
    """nbgrader's helpers read `cell.metadata`: give them an nbformat node."""
    if hasattr(cell, "metadata"):
        return cell
    import nbformat

    return nbformat.from_dict(cell)


def is_grade(cell) -> bool:
    """A grade cell: nbgrader scores it (gradtutor's test cells)."""
    utils = _nbgrader_utils()
    return bool(utils.is_grade(_node(cell)) if utils else metadata(cell).get("grade", False))


def is_solution(cell) -> bool:
    """A solution cell: the learner writes in it (gradtutor's answer cells)."""
    utils = _nbgrader_utils()
    return bool(utils.is_solution(_node(cell)) if utils else metadata(cell).get("solution", False))


def is_locked(cell) -> bool:
    """nbgrader puts the source notebook's version back before grading (a grade cell that is no solution)."""
    utils = _nbgrader_utils()
    if utils:
        return bool(utils.is_locked(_node(cell)))
    meta = metadata(cell)
    if not meta or meta.get("solution", False):
        return False
    return bool(meta.get("grade", False) or meta.get("locked", False))


def is_test(cell) -> bool:
    """One of gradtutor's test cells: a graded code cell that is not an answer."""
    return cell.get("cell_type") == "code" and is_grade(cell) and not is_solution(cell)


# A lesson's own marking, beside nbgrader's: `metadata.gradtutor.demonstration` = true on a code cell that only
# shows something (a timing, a plot, a run under Keras 2). No answer or check cell may read a name it binds
# (`gradtutor dev check`), so `gradtutor grade` may leave it out where no cell that runs reads one either
# (gradtutor.course.demonstrations). The grader reads the marking from the course's own notebooks only.
METADATA_KEY = "gradtutor"
DEMONSTRATION = "demonstration"


def is_demonstration(cell) -> bool:
    """A code cell the lesson marks as a demonstration."""
    marks = (cell.get("metadata") or {}).get(METADATA_KEY) or {}
    return cell.get("cell_type") == "code" and isinstance(marks, dict) and marks.get(DEMONSTRATION) is True


# --------------------------------------------------------------------------- a notebook's cells


def cells_by_grade_id(notebook) -> dict:
    """grade_id -> cell, for every cell of a notebook (dict or nbformat node) that has one, in order."""
    return {grade_id(cell): cell for cell in notebook.get("cells", []) if grade_id(cell)}


def grade_cells(notebook) -> dict:
    """grade_id -> cell for the grade cells of a notebook, in the notebook's order."""
    return {gid: cell for gid, cell in cells_by_grade_id(notebook).items() if is_grade(cell)}


# --------------------------------------------------------------------------- the release form


def _regions(source: str, delimiters: tuple[str, str]):
    """Yield (kind, line): kind is "begin", "end", "in" or "out", as nbgrader reads the delimiters.

    nbgrader refuses a source notebook with nested or unclosed regions; a submitted cell is
    read anyway (an unclosed region runs to the end), since a learner's typing must never
    stop the grading.
    """
    begin, end = delimiters
    inside = False
    for line in source.split("\n"):
        if begin in line:
            inside = True
            yield "begin", line
        elif end in line:
            inside = False
            yield "end", line
        else:
            yield ("in" if inside else "out"), line


def without_hidden_tests(source: str) -> str:
    """A test cell's source as learners get it: ClearHiddenTests drops the hidden regions, markers included."""
    return "\n".join(line for kind, line in _regions(source, HIDDEN_TESTS_DELIMITERS) if kind == "out")


def starter(source: str, code: bool = True) -> str:
    """A solution cell's source as learners get it: ClearSolutions puts the stub in each region."""
    stub = (CODE_STUB if code else TEXT_STUB).split("\n")
    out: list[str] = []
    for kind, line in _regions(source, SOLUTION_DELIMITERS):
        if kind == "begin":
            indent = re.match(r"\s*", line).group(0)
            out.extend(indent + part for part in stub)
        elif kind == "out":
            out.append(line)
    return "\n".join(out)


def has_solution_region(source: str) -> bool:
    return any(kind == "begin" for kind, _ in _regions(source, SOLUTION_DELIMITERS))


def without_solution_markers(source: str) -> str:
    """The solution as an instructor reads it: the source with its solution markers taken out."""
    return "\n".join(line for kind, line in _regions(source, SOLUTION_DELIMITERS) if kind in ("in", "out"))


def cell_source(cell) -> str:
    """A cell's source as one text: a notebook read as plain JSON keeps it as a list of lines."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def release_source(cell) -> str:
    """What nbgrader's generate_assignment makes of a cell's source (ClearSolutions, then ClearHiddenTests)."""
    source = cell_source(cell)
    code = cell.get("cell_type") == "code"
    if has_solution_region(source):
        source = starter(source, code)
    elif is_solution(cell):
        source = CODE_STUB if code else TEXT_STUB
    return without_hidden_tests(source)
