"""Is a verdict laid out to read — what happened, where, why, the fix, each on its own line — without rewording it?

Diagnoses are made here as the checker makes them, from the catalogues' own templates and cause sentences
(causes drawn at random, both languages); the layout must cut each back into its parts exactly.
"""
from __future__ import annotations

import io
import json
import random

import pytest
from rich.console import Console

from gradtutor import messages
from gradtutor.checking.compare import ElementReport
from gradtutor.checking.verdict import ExerciseResult, LessonResult, comparison_rows
from gradtutor.course import manifest as course
from gradtutor.learner import verdict_view as report
from gradtutor.learner.verdict_layout import VerdictLines, cell_of_history, cell_of_notebook, defines_function, lay_out

pytestmark = pytest.mark.unit

LESSON = course.load().lesson("lesson1")


def _cause_sentences(lang: str) -> list[tuple[str, str, str]]:
    """(sentence, cause, fix) of every cause sentence the checker words with one "cause — fix" joint."""
    joint = " — " if lang == "en" else "——"
    found = []
    for key, text in messages.catalogue(lang).items():
        if key.startswith("cause.") and key.endswith(".checker") and "{" not in text and text.count(joint) == 1:
            cause, fix = text.split(joint)
            found.append((text, cause, fix))
    return found


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_is_a_failure_cut_at_its_templates_joints(lang):
    sentence, cause, fix = random.choice(_cause_sentences(lang))
    site = f"notebook cell {random.randint(1, 40)}, line {random.randint(1, 9)}: y = tf.reduce_sum(x ** 3)"
    what = messages.say("diagnosis.returned_none", lang)
    message = messages.say("diagnosis.failure", lang, subject="grad_of_cube()", what=what, why=sentence) + \
        messages.say("diagnosis.broke_at", lang, site=site)
    lines = lay_out("fail", message, lang)
    assert lines.what == f"grad_of_cube() {what}" and lines.why == cause and lines.fix == fix
    assert site in lines.broke_at and lines.broke_at.endswith("** 3)"), "the learner's code keeps its brackets"


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_is_an_error_cut_at_its_templates_joints(lang):
    sentence, cause, fix = random.choice(_cause_sentences(lang))
    raised = messages.say("diagnosis.raised", lang, function="f", error="ValueError: Dimensions must be equal",
                          where=" (notebook cell 3, line 2: x = a @ b)")
    lines = lay_out("error", messages.say("diagnosis.because", lang, line=raised, why=sentence), lang)
    assert lines == VerdictLines(raised, cause, fix)


def test_is_a_message_without_joints_one_line():
    assert lay_out("timeout", "grad_of_cube() ran past 30 s") == VerdictLines("grad_of_cube() ran past 30 s")
    assert lay_out("fail", "no joint here at all") == VerdictLines("no joint here at all")


def test_is_the_cell_numbered_as_jupyter_numbers_it(tmp_path):
    sources = ["import tensorflow as tf", "def f(x):\n    return x", "f(1)", "def f(x):\n    return 2 * x", "g = 1"]
    assert cell_of_history(sources, lambda s: defines_function(s, "f")) == messages.say("text.verdict.cell_run", number=4)
    notebook = {"cells": [{"cell_type": "markdown", "source": "# f"},
                          {"cell_type": "code", "source": ["def f(x):\n", "    return x"], "execution_count": 19},
                          {"cell_type": "code", "source": "def h(x):\n    return x", "execution_count": None}]}
    path = tmp_path / "attempt.ipynb"
    path.write_text(json.dumps(notebook))
    assert cell_of_notebook(path, "f") == messages.say("text.verdict.cell_run", number=19)
    assert cell_of_notebook(path, "h") == messages.say("text.verdict.cell_unrun", number=2)
    assert cell_of_notebook(tmp_path / "missing.ipynb", "f") is None


def _none_report():
    return ElementReport(0, None, "none", messages.say("compare.is_none"))


def test_does_the_notebook_show_each_part_on_its_own_line_code_as_code_and_no_empty_row():
    sentence, cause, fix = random.choice(_cause_sentences("en"))
    message = messages.say("diagnosis.failure", subject="grad_of_cube()", what="returned None", why=sentence)
    rows = comparison_rows([_none_report()])
    html = report.verdict_html("lesson1", "watch_constant", "fail", message, rows, "cell In [8]")
    for part in ("grad_of_cube() returned None", "where: exercise watch_constant, cell In [8]"):
        assert f">{part}</div>" in html, html
    assert report.as_code(f"why: {cause}") in html and report.as_code(f"fix: {fix}") in html
    assert "<table" not in html, "a None has no numbers to table"
    assert "`" not in html and "`" not in report.as_code("use `tape.watch(x)`")
    assert report.as_code("use `tape.watch(x)` <here>") == "use <code>tape.watch(x)</code> &lt;here&gt;"


def test_does_the_terminal_lay_out_each_exercise_and_name_it_in_its_footer():
    sentence, cause, fix = random.choice(_cause_sentences("en"))
    failing = ExerciseResult("watch_constant", "grad_of_cube", "fail",
                             messages.say("diagnosis.failure", subject="grad_of_cube()", what="returned None",
                                          why=sentence), 0, 1, reports=[_none_report()])
    erroring = ExerciseResult("numpy_input", "grad_from_numpy", "error", messages.say(
        "diagnosis.because", line="grad_from_numpy() raised TypeError: no", why=sentence), 0, 1)
    buffer = io.StringIO()
    report.print_lesson(Console(file=buffer, width=400), LessonResult(LESSON, "lesson1.ipynb", [failing, erroring]))
    text = buffer.getvalue().splitlines()
    for line in ("✗ watch_constant: grad_of_cube() returned None", "  where: exercise watch_constant",
                 f"  why: {cause}", f"  fix: {fix}", "  Stuck? gradtutor hint lesson1 watch_constant",
                 "  Stuck? gradtutor hint lesson1 numpy_input"):
        assert any(shown.rstrip().endswith(line.strip()) and shown.startswith(line[:2]) for shown in text), (line, text)
    assert not any("is None" in shown and "—" in shown for shown in text), "no empty — — — is None row"
    assert not any("<exercise>" in shown for shown in text)
