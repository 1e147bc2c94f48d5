"""Does the extractor find exercise functions, report broken files in one line, and skip top-level work?"""
from __future__ import annotations

import json

import pytest

from gradtutor.course import extract

pytestmark = pytest.mark.unit


def _notebook(tmp_path, *sources, nbformat=4):
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None} for s in sources]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": nbformat, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    return path


def test_are_code_cells_read_with_magics_commented_out(tmp_path):
    path = _notebook(tmp_path, "%matplotlib inline\nimport numpy as np", "!pip install x\ndef f(x):\n    return x")
    cells = extract.read_cells(path)
    assert [c.label for c in cells] == ["nb.ipynb, code cell 1", "nb.ipynb, code cell 2"]
    assert cells[0].source.startswith("# %matplotlib")
    assert extract.find_function(cells, "f").cell is cells[1]


def test_does_the_last_definition_win(tmp_path):
    cells = extract.read_cells(_notebook(tmp_path, "def f(x):\n    return 1", "def f(x):\n    return 2"))
    found = extract.find_function(cells, "f")
    assert found.cell is cells[1] and "return 2" in found.source


def test_is_a_syntax_error_in_the_defining_cell_reported_with_its_line(tmp_path):
    cells = extract.read_cells(_notebook(tmp_path, "def f(x):\n    return (x"))
    found = extract.find_function(cells, "f")
    assert found.syntax_error and "nb.ipynb, code cell 1, line" in found.syntax_error


def test_do_cell_numbers_count_code_cells_only_and_show_the_prompt(tmp_path):
    cells = [{"cell_type": "markdown", "source": "# title", "metadata": {}},
             {"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": 4},
             {"cell_type": "markdown", "source": "text", "metadata": {}},
             {"cell_type": "code", "source": "y = 2", "metadata": {}, "outputs": [], "execution_count": None}]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    assert [c.label for c in extract.read_cells(path)] == ["nb.ipynb, code cell 1 (In [4])", "nb.ipynb, code cell 2"]


def test_is_a_wrapper_or_lambda_found_as_the_function(tmp_path):
    cells = extract.read_cells(_notebook(tmp_path, "def impl(x):\n    return x\nf = tf.function(impl)", "g = lambda x: x"))
    assert extract.find_function(cells, "f").cell is cells[0]
    assert extract.find_function(cells, "g").cell is cells[1]


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


LOADED_AND_DEFINING = """\
import numpy as np
from math import pi
N = 3
SHAPE: tuple = (2, 3)
def f(x):
    return x
class Model:
    pass
"""


def test_does_the_child_load_what_defines_names_and_skip_top_level_work():
    import ast

    source = LOADED_AND_DEFINING + (
        '"""a docstring"""\npass\nprint("training")\nfor i in range(3):\n    f(i)\nsettings = dict(a=1)\n'
        'fast = tf.function(f)\nsquare = lambda x: x * x\n@tf.function\ndef g(x):\n    return x\n'
        'history = model.fit(x, y)\nresult = f(3)\nfig, ax = plt.subplots()\nwith tape:\n    y = f(x)\n')
    kept = extract.loaded_statements(ast.parse(source), frozenset({"f", "g"}))
    assert [ast.unparse(node).splitlines()[0] for node in kept] == [
        "import numpy as np", "from math import pi", "N = 3", "SHAPE: tuple = (2, 3)", "def f(x):", "class Model:",
        "settings = dict(a=1)", "fast = tf.function(f)", "square = lambda x: x * x", "@tf.function"]


@pytest.mark.parametrize("source, defines_only", [
    ("import numpy as np\ndef f(x, y=-1.0, *, scale: float = 2):\n    return x\nN = 3\n'''doc'''\npass", True),
    ("def f(x):\n    return x\nprint(f(1))", False),  # work at the top level
    ("class Model:\n    pass", False),  # a class body runs when it is defined
    ("@tf.function\ndef f(x):\n    return x", False),  # a decorator runs when the def does
    ("def f(x, y=g()):\n    return x", False),  # so does a default
    ("def f(x) -> make():\n    return x", False),  # and an annotation
    ("settings.N = 3", False),  # a literal, but stored into something that exists
    ("import helper", False),  # a module beside the notebook
    ("from . import helper", False),
    ("%matplotlib inline\ndef f(x):\n    return x", False),  # IPython magics
    ("def f(x:\n", True),  # does not parse: the kernel runs none of it
])
def test_is_the_recheck_stricter_than_loading_on_the_same_rule(source, defines_only):
    assert extract.only_definitions(source, {"helper"}) is defines_only
