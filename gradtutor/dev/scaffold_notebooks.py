"""A new lesson's two solutions notebooks, English and Chinese: the same cells, other words.

The Chinese one is the English one's twin as tests/learner/test_notebooks_zh.py asks: the same cell
ids and metadata, code that differs only in its comments, the checked (locked) cell
byte-identical, the answer cell's specification in Chinese comments under its English
docstring. Their words are in templates/notebook.<lang>.toml.
"""
from __future__ import annotations

import json
import string
from pathlib import Path

from gradtutor.messages import LANGUAGES, say, toml_files


TEMPLATES = Path(__file__).resolve().parent / "templates"
EXERCISE_ID, FUNCTION = "square_gradient", "grad_of_square"
DOCSTRING = f'''def {FUNCTION}(x):
    """Return dy/dx for y = tf.reduce_sum(x ** 2), where x is a tf.constant."""
'''
SOLUTION = '''    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 2)
    return tape.gradient(y, x)
    ### END SOLUTION'''
CHECK = '''from gradtutor import check  # again here, so no earlier cell can replace it
check("{id}", "{exercise}", {function}, seeds="visible")
### BEGIN HIDDEN TESTS
check("{id}", "{exercise}", {function}, seeds="hidden")
### END HIDDEN TESTS'''


def notebooks(values: dict) -> dict[str, str]:
    """lang -> the text of the lesson's solutions notebook in that language (values: id, number, title)."""
    return {lang: _notebook(values, lang) for lang in LANGUAGES}


def _notebook(values: dict, lang: str) -> str:
    words = {key: string.Template(text).substitute(values, function=FUNCTION)
             for key, text in toml_files.parse((TEMPLATES / f"notebook.{lang}.toml").read_text(encoding="utf-8")).items()}
    heading = "# " + say("docs.lesson.title", lang, number=values["number"], title=values["title"])
    answer = DOCSTRING + (words["specification"] + "\n" if words["specification"] else "") + SOLUTION
    check = CHECK.format(id=values["id"], exercise=EXERCISE_ID, function=FUNCTION)
    cells = [_cell("markdown", f"{heading}\n\n{words['intro']}"), _cell("code", words["set_up"]),
             _cell("markdown", words["task"]),
             _cell("code", answer, {"grade": False, "grade_id": EXERCISE_ID, "locked": False,
                                    "schema_version": 3, "solution": True}),
             _cell("code", check, {"grade": True, "grade_id": f"check_{EXERCISE_ID}", "locked": True,
                                   "points": 1, "schema_version": 3, "solution": False})]
    for number, cell in enumerate(cells):
        cell["id"] = f"{values['id']}-{number:02d}"
    notebook = {"cells": cells,
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                             "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"  # as Jupyter writes it


def _cell(kind: str, source: str, nbgrader: dict | None = None) -> dict:
    cell = {"cell_type": kind, "metadata": {"nbgrader": nbgrader} if nbgrader else {},
            "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell
