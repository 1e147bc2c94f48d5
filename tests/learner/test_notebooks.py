"""Does every solutions notebook execute top to bottom, with clean, passing check cells?

Run as a learner or an author runs them: in a folder with no course around it, so the
hidden-test cells have no hidden inputs and print one line instead of failing.

This is the notebook API (`check()` in a kernel) end to end, plus the lessons'
own demonstration cells and plots, run exactly as a learner runs them.
"""
from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from gradtutor import messages
from gradtutor.course import conventions
from gradtutor.course import manifest as course

pytestmark = pytest.mark.tf

LESSONS = [pytest.param(lesson, id=lesson.id) for lesson in course.load().lessons]


def _execute(path, cwd):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return notebook


# what a passing check() shows, in the notebook's language (the Chinese one runs with GRADTUTOR_LANG=zh_CN)
PASSED = {"en": "pass", "zh_CN": "通过"}


@pytest.mark.parametrize("lang", messages.LANGUAGES)
@pytest.mark.parametrize("lesson", LESSONS)
def test_does_the_solutions_notebook_run_top_to_bottom(lesson, lang, tmp_path, monkeypatch):
    monkeypatch.setenv("GRADTUTOR_LANG", lang)  # the kernel, its judge and the checker's worker inherit it
    source = lesson.source_notebook(lang)
    copy = tmp_path / lesson.notebook
    shutil.copyfile(source, copy)
    notebook = _execute(copy, tmp_path)
    checks = [c for c in notebook.cells if conventions.exercise_of(conventions.grade_id(c))]
    assert len(checks) == len(lesson.exercises)
    for cell in checks:
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        assert ("stream", "stderr") not in kinds, f"{conventions.grade_id(cell)} wrote to stderr: nbgrader would score it 0"
        assert all(o.output_type != "error" for o in cell.outputs), conventions.grade_id(cell)
        html = " ".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
        assert PASSED[lang] in html and "✓" in html
        # no course around it, so no hidden inputs: the hidden-test part of the cell says so in one line
        exercise = conventions.exercise_of(conventions.grade_id(cell))
        said = "".join(o.text for o in cell.outputs if o.output_type == "stream")
        assert said == messages.say("check.hidden.at_grading", lang, lesson=lesson.id, exercise=exercise) + "\n", said
    for cell in notebook.cells:
        if cell.cell_type == "code" and "raises-exception" not in cell.metadata.get("tags", []):
            assert all(o.output_type != "error" for o in cell.outputs), cell.source[:200]
    assert copy.read_bytes() == source.read_bytes(), "executing must not rewrite the file"


def _attempt(tmp_path, exercise, *after: str):
    """A notebook as a learner leaves it: a wrong answer, numpy patched to pass everything, its check, then `after`."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_code_cell("import gradtutor.quiet\nimport numpy as np\nimport tensorflow as tf\nimport keras\n"
                                  "from gradtutor import check"),
        nbformat.v4.new_code_cell(f"def {exercise.function}(*args):\n    return None"),
        nbformat.v4.new_code_cell("import numpy\nnumpy.allclose = lambda *a, **k: True  # cannot help: comparing happens elsewhere"),
        nbformat.v4.new_code_cell(f'check("lesson2", "{exercise.id}", {exercise.function})'),
        *(nbformat.v4.new_code_cell(source) for source in after),
    ]
    return notebook


def _run_all(notebook, tmp_path, allow_errors=False):
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return notebook


def test_does_run_all_go_past_a_wrong_answer_to_the_last_cell(tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)  # a learner's kernel, not nbgrader's
    exercise = course.load().lesson("lesson2").exercises[0]
    notebook = _run_all(_attempt(tmp_path, exercise, f'result = check("lesson2", "{exercise.id}", {exercise.function})\n'
                                 "print(bool(result), result.status, result.exercise)", "print('the last cell ran')"),
                        tmp_path)  # without allow_errors: an error output anywhere stops nbclient with CellExecutionError
    check_cell, inspect_cell, last = notebook.cells[3], notebook.cells[4], notebook.cells[5]
    assert not any(o.output_type == "error" for cell in notebook.cells for o in cell.get("outputs", []))
    html = " ".join(o.get("data", {}).get("text/html", "") for o in check_cell.outputs)
    assert "fail" in html and exercise.id in html and f"{exercise.function}()" in html
    assert [o.output_type for o in check_cell.outputs] == ["display_data"], "the verdict alone: no Out[n] repr under it"
    assert "".join(o.text for o in inspect_cell.outputs if o.output_type == "stream") == f"False fail {exercise.id}\n"
    assert "".join(o.text for o in last.outputs if o.output_type == "stream") == "the last cell ran\n"


@pytest.mark.parametrize("execution", ["autograde", "validate"])
def test_does_check_raise_the_diagnosis_under_nbgrader(execution, tmp_path, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", execution)  # what nbgrader sets around the kernels it runs
    exercise = course.load().lesson("lesson2").exercises[0]
    notebook = _run_all(_attempt(tmp_path, exercise), tmp_path, allow_errors=True)
    outputs = notebook.cells[-1].outputs
    errors = [o for o in outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "ExerciseFailed"  # the class names the status (gradtutor.protocol)
    assert f"{exercise.function}() returned None" in errors[0].evalue
    assert not any(o.output_type == "stream" and o.name == "stderr" for o in outputs)
    html = " ".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "fail" in html and exercise.id in html
