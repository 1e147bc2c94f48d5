"""Does the extractor find exercise functions, report broken files in one line, and skip top-level work?"""
from __future__ import annotations

import json

import pytest

from gradtutor import extract

pytestmark = pytest.mark.unit


def _notebook(tmp_path, *sources, nbformat=4):
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None} for s in sources]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": nbformat, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    return path


def test_are_code_cells_read_with_magics_commented_out(tmp_path):
    path = _notebook(tmp_path, "%matplotlib inline\nimport numpy as np", "!pip install x\ndef f(x):\n    return x")
    cells = extract.read_cells(path)
    assert [c.label for c in cells] == ["nb.ipynb, cell 1", "nb.ipynb, cell 2"]
    assert cells[0].source.startswith("# %matplotlib")
    assert extract.find_function(cells, "f").cell is cells[1]


def test_does_the_last_definition_win(tmp_path):
    cells = extract.read_cells(_notebook(tmp_path, "def f(x):\n    return 1", "def f(x):\n    return 2"))
    found = extract.find_function(cells, "f")
    assert found.cell is cells[1] and "return 2" in found.source


def test_is_a_syntax_error_in_the_defining_cell_reported_with_its_line(tmp_path):
    cells = extract.read_cells(_notebook(tmp_path, "def f(x):\n    return (x"))
    found = extract.find_function(cells, "f")
    assert found.syntax_error and "nb.ipynb, cell 1, line" in found.syntax_error


def test_is_a_missing_function_not_found(tmp_path):
    assert extract.find_function(extract.read_cells(_notebook(tmp_path, "x = 1")), "f").cell is None


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid notebook JSON"),
    ("[1, 2]", "not a Jupyter notebook"),
])
def test_is_corrupt_json_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.ipynb"
    path.write_text(content)
    with pytest.raises(extract.UnreadableFile, match=message) as info:
        extract.read_cells(path)
    assert "\n" not in str(info.value) and "bad.ipynb" in str(info.value)


def test_is_nbformat_3_refused_with_what_to_do(tmp_path):
    with pytest.raises(extract.UnreadableFile, match="nbformat 4"):
        extract.read_cells(_notebook(tmp_path, "x = 1", nbformat=3))


def test_are_missing_files_and_other_suffixes_refused(tmp_path):
    with pytest.raises(extract.UnreadableFile, match="no such file"):
        extract.read_cells(tmp_path / "nope.ipynb")
    other = tmp_path / "notes.txt"
    other.write_text("hi")
    with pytest.raises(extract.UnreadableFile, match="not a notebook"):
        extract.read_cells(other)


def test_does_the_fingerprint_ignore_docstrings_and_positions():
    import ast

    a = ast.parse('def f(x):\n    """doc"""\n    raise NotImplementedError()').body[0]
    b = ast.parse('\n\ndef f(x):\n    raise NotImplementedError()').body[0]
    c = ast.parse('def f(x):\n    return x').body[0]
    assert extract.fingerprint(a) == extract.fingerprint(b) != extract.fingerprint(c)
