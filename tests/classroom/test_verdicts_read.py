"""Are the verdicts read from an autograded notebook's JSON those nbformat's reading gives?

The class report reads each check cell's verdict from the file as JSON (nbformat's import
and validation were most of a re-run's seconds); notebooks are drawn with the outputs
nbgrader leaves (check()'s verdict data, errors, stderr and stdout, as one string or as
lines), some in an older format or broken, and written both by nbformat and by hand.
"""
from __future__ import annotations

import json
import random

import nbformat
import pytest

from gradtutor.classroom.grading.verdicts import notebook_verdicts, verdict_of
from gradtutor.course import conventions
from gradtutor.protocol import VERDICT_MIME, Cause, Status, failure_for

pytestmark = pytest.mark.unit

EXCEPTIONS = ["NameError", "CellTimeoutError", "SyntaxError", "ZeroDivisionError", "DeadKernelError",
              *(failure_for(s).__name__ for s in Status if s is not Status.PASS)]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(["grad is None\n", "  at line 3\n", "W0000 oneDNN\n", "ok", "✓ 1/1\n", "\n"])
                   for _ in range(rng.randint(0, 4)))


def _output(rng: random.Random) -> dict:
    kind = rng.choice(["verdict", "error", "stream", "html"])
    if kind == "verdict":
        data = {"status": rng.choice([*(s.value for s in Status), "bogus"]), "message": _text(rng)}
        if rng.random() < 0.7:
            data["cause"] = rng.choice([*(c.value for c in Cause), "not-a-cause"])
        return nbformat.v4.new_output("display_data", data={VERDICT_MIME: data, "text/plain": _text(rng)})
    if kind == "error":
        return nbformat.v4.new_output("error", ename=rng.choice(EXCEPTIONS), evalue=_text(rng), traceback=[])
    if kind == "stream":
        return nbformat.v4.new_output("stream", name=rng.choice(["stdout", "stderr"]), text=_text(rng))
    return nbformat.v4.new_output("execute_result", data={"text/html": _text(rng)}, execution_count=1)


def _notebook(rng: random.Random):
    nb = nbformat.v4.new_notebook()
    for number in range(rng.randint(1, 6)):
        exercise = f"ex{number}"
        kind = rng.choice(["test", "answer", "plain", "markdown"])
        if kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(_text(rng)))
            continue
        metadata = {"test": {"nbgrader": conventions.check_metadata(exercise, 1)},
                    "answer": {"nbgrader": conventions.answer_metadata(exercise)}, "plain": {}}[kind]
        cell = nbformat.v4.new_code_cell(_text(rng), metadata=metadata)
        cell.outputs = [_output(rng) for _ in range(rng.randint(0, 3))]
        nb.cells.append(cell)
    return nb


def _by_nbformat(path) -> dict:
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - as the report did: an unreadable copy has no verdicts
        return {}
    return {grade_id: verdict_of(cell) for grade_id, cell in conventions.grade_cells(nb).items()}


@pytest.mark.parametrize("written", ["by nbformat", "as one string per text", "in format 3", "broken"])
def test_verdicts_read_as_json_are_nbformats(tmp_path, written):
    rng = random.Random(random.randrange(2**32))
    for number in range(20):
        nb, path = _notebook(rng), tmp_path / f"{number}.ipynb"
        if written == "by nbformat":
            nbformat.write(nb, path)  # nbformat splits multi-line text into lists of lines
        elif written == "as one string per text":
            path.write_text(json.dumps(nb))
        elif written == "in format 3":
            nbformat.write(nb, path, version=3)
        else:
            text = json.dumps(nb)
            path.write_text(text[:rng.randint(0, len(text) - 1)])

        assert notebook_verdicts(path) == _by_nbformat(path)
