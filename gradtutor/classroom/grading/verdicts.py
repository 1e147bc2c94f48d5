"""Each check cell's verdict in an autograded notebook: status, cause id and the text the student read.

check() displays its verdict as data (protocol.VERDICT_MIME) beside its HTML, and
nbgrader keeps the outputs of the cells it ran, so the cause is read from there.
A cell without that data (check() never ran: a NameError, nbgrader's cell timeout,
stderr) falls back to what gradebook.cell_verdict reads from the exception's name;
a cause is then given only where the exception's name itself says it.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from gradtutor.course import conventions
from gradtutor.classroom.grading.gradebook import CELL_STATUS, cell_verdict
from gradtutor.classroom.grading.nbgrader_glue import without_iri_checks
from gradtutor.protocol import VERDICT_MIME, Cause, Status

# Exceptions nbgrader records that are not check()'s, and the cause their name alone shows.
CAUSE_OF_EXCEPTION = {"NameError": Cause.UNDEFINED_NAME, "CellTimeoutError": Cause.TIMEOUT,
                      "SyntaxError": Cause.SYNTAX, "IndentationError": Cause.SYNTAX}


@dataclasses.dataclass(frozen=True)
class CellVerdict:
    status: str  # pass | fail | not_attempted | error (the gradebook's words, gradebook.CELL_STATUS)
    cause: str | None  # a protocol.Cause id, when the verdict carries one
    message: str  # what the student read (check()'s full diagnosis, or the error's first line)


def notebook_verdicts(path: Path) -> dict[str, CellVerdict]:
    """grade_id -> verdict for every grade cell of one autograded notebook; {} if it cannot be read."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}  # what nbformat could not read either
    if not _plain_format_4(nb):
        nb = _read_with_nbformat(path)
        if nb is None:
            return {}
    return {grade_id: verdict_of(cell) for grade_id, cell in conventions.grade_cells(nb).items()}


def _plain_format_4(nb) -> bool:
    """A format-4 notebook as nbformat would read it, once each stream's lines are joined (in place) as it joins them.

    Read so, not with nbformat: importing nbformat (and its jsonschema) and validating
    each notebook is most of the seconds a re-run with nothing new to grade spends.
    The outputs read here are stream text, errors and check()'s JSON verdict, which
    nbformat leaves as they are in the file but for joining a stream's lines.
    """
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        return False  # another format (nbformat converts it), or something only nbformat can say what it is
    for cell in nb["cells"]:
        outputs = cell.get("outputs", []) if isinstance(cell, dict) else None
        if not isinstance(outputs, list) or not all(isinstance(output, dict) for output in outputs):
            return False
        for output in outputs if cell.get("cell_type") == "code" else ():
            text = output.get("text")
            if output.get("output_type") not in ("execute_result", "display_data") and isinstance(text, list):
                if not all(isinstance(line, str) for line in text):
                    return False
                output["text"] = "".join(text)
    return True


def _read_with_nbformat(path: Path):
    without_iri_checks()  # nbformat's jsonschema would spend a second compiling format grammars it never uses
    import nbformat

    try:
        return nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - nbformat raises many kinds; an unreadable copy has no verdicts
        return None


def verdict_of(cell) -> CellVerdict:
    status, why = cell_verdict(cell)
    data = _verdict_data(cell)
    if data is not None and CELL_STATUS[Status(data["status"])] == status:
        cause = _known(data.get("cause")) if status != "pass" else None
        return CellVerdict(status, cause, str(data.get("message") or why))
    # check() never ran, or the cell went wrong after it (stderr, another exception): the exception decides
    return CellVerdict(status, _exception_cause(cell) if status == "error" else None, why)


def _verdict_data(cell) -> dict | None:
    for output in cell.get("outputs", []):
        if isinstance(output, dict) and output.get("output_type") in ("display_data", "execute_result") \
                and isinstance(output.get("data"), dict):
            data = output["data"].get(VERDICT_MIME)
            if isinstance(data, dict) and isinstance(data.get("status"), str) \
                    and data["status"] in {s.value for s in Status}:
                return data
    return None


def _exception_cause(cell) -> str | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            cause = CAUSE_OF_EXCEPTION.get(output.get("ename", ""))
            return cause.value if cause else None
    return None


def _known(cause) -> str | None:
    """Only ids of the vocabulary: what a notebook holds is the student's file, and could say anything."""
    try:
        return Cause(cause).value
    except ValueError:
        return None
