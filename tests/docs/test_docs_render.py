"""Is a lesson notebook turned into the page a learner should see?

docs/hooks/notebooks.py on small notebooks made here (no kernel, no TensorFlow):
solution regions folded into collapsed blocks, the learner's starter shown,
hidden tests taken out before the notebook runs, outputs kept real.
"""
from __future__ import annotations

import base64
import copy

import markdown
import nbformat
import notebooks  # docs/hooks/notebooks.py: pyproject.toml's pytest `pythonpath` has docs/hooks, as mkdocs does
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

pytestmark = pytest.mark.unit

SOLUTION = '''def grad_of_cube(x):
    """Return dy/dx."""
    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return tape.gradient(y, x)
    ### END SOLUTION'''

TEST = '''check("lesson1", "watch_constant", grad_of_cube, seeds="visible")
### BEGIN HIDDEN TESTS
check("lesson1", "watch_constant", grad_of_cube, seeds="hidden")
### END HIDDEN TESTS'''

PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")).decode()


def _nb():
    nb = new_notebook()
    nb.cells = [
        new_markdown_cell("# Lesson 1 — Watching\n\nIntro.\nThe list:\n* one\n* two"),
        new_code_cell("print('hi')", outputs=[new_output("stream", name="stdout", text="hi\n")]),
        new_code_cell(SOLUTION, metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": "watch_constant"}}),
        new_code_cell(TEST, metadata={"nbgrader": {"solution": False, "grade": True, "grade_id": "check_watch_constant",
                                                   "points": 1}}),
        new_code_cell("plot()", outputs=[new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]),
        new_code_cell("boom()", metadata={"tags": ["raises-exception"]},
                      outputs=[new_output("error", ename="ValueError", evalue="\x1b[1mbad\x1b[0m", traceback=["..."])]),
        new_code_cell("import gradtutor.quiet", outputs=[new_output(
            "stream", name="stderr",
            text="WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
                 "I0000 00:00:1796020713.533880   14480 cudart_stub.cc:31] Could not find cuda drivers.\n")]),
        new_markdown_cell("1. Why?\n   <details><summary>Answer</summary>\n   Because.\n   </details>\n2. And?"),
    ]
    return nb


def test_prepare_takes_out_hidden_tests_and_outputs():
    """Does the notebook that runs at build time lose its hidden tests and old outputs, and keep the rest?"""
    prepared = notebooks.prepare(_nb())
    assert prepared.cells[3].source == 'check("lesson1", "watch_constant", grad_of_cube, seeds="visible")'
    assert prepared.cells[2].source == SOLUTION
    assert all(c.outputs == [] for c in prepared.cells if c.cell_type == "code")


def test_starter_is_what_nbgrader_gives_learners():
    """Is a solution region replaced by the indented `# YOUR CODE HERE` / `raise NotImplementedError()`?"""
    assert notebooks.starter(SOLUTION) == ('def grad_of_cube(x):\n    """Return dy/dx."""\n'
                                           "    # YOUR CODE HERE\n    raise NotImplementedError()")
    assert "BEGIN SOLUTION" not in notebooks.solution(SOLUTION) and "tape.watch(x)" in notebooks.solution(SOLUTION)


def test_render_folds_solution_and_keeps_real_outputs():
    """Does the page show the starter, the solution in a collapsed block, outputs, plots, and the intro box?"""
    page = notebooks.render(_with_outputs(), "lesson1", intro="!!! note\n    INTRO")
    md = page.markdown
    assert md.index("INTRO") > md.index("# Lesson 1") and md.index("INTRO") < md.index("print('hi')")
    assert "raise NotImplementedError()" in md
    assert '??? success "Solution"' in md and "        tape.watch(x)" in md  # indented into the block
    assert "BEGIN SOLUTION" not in md and "HIDDEN" not in md
    assert '<pre>hi</pre>' in md
    assert page.figures == 1 and page.files["lesson1/figure-1.png"].startswith(b"\x89PNG")
    assert "](lesson1/figure-1.png)" in md
    assert "ValueError: bad" in md and "\x1b" not in md
    assert "absl" not in md and "cudart" not in md  # TensorFlow's start-up noise is not part of the lesson


def _with_outputs():
    nb = _nb()
    prepared = notebooks.prepare(nb)
    for kept, original in zip(prepared.cells, nb.cells):
        if kept.cell_type == "code":
            kept.outputs = original.outputs
    return prepared


def test_rendered_markdown_becomes_collapsed_details():
    """Through material's Markdown extensions, are the solution and the answers <details> without `open`?"""
    page = notebooks.render(_with_outputs(), "lesson1")
    html = markdown.markdown(page.markdown, extensions=["admonition", "pymdownx.details", "pymdownx.superfences",
                                                        "md_in_html", "sane_lists", "attr_list"])
    assert html.count('<details class="success">') == 1
    assert html.count('<details class="question">') == 1
    assert "<details open" not in html
    assert "<li>one</li>" in html  # a list right after a paragraph line still is a list
    assert '<ol start="2">' in html  # numbering goes on after a folded answer


def test_notebook_markdown_lists_and_details():
    """Are Jupyter-style lists and <details> answers rewritten for Python-Markdown?"""
    text = notebooks.markdown_cell("Intro:\n- a\n- b\n\n<details><summary>Why?</summary>\n\nBecause.\n</details>")
    assert "Intro:\n\n- a\n- b" in text
    assert '??? question "Why?"\n\n    Because.' in text


def test_cache_key_changes_with_the_notebook_and_the_package():
    """Does the cache key change when the notebook or what shapes its outputs changes, and only then?"""
    text = nbformat.writes(notebooks.prepare(_nb()))
    assert notebooks.cache_key(text, "a") == notebooks.cache_key(text, "a")
    assert notebooks.cache_key(text, "a") != notebooks.cache_key(text, "b")
    assert notebooks.cache_key(text, "a") != notebooks.cache_key(text.replace("hi", "ho"), "a")


def _twins():
    """The executed English notebook and a prepared translation of it: other Markdown and comments, same code."""
    executed = _with_outputs()
    zh = copy.deepcopy(executed)
    for cell in zh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    zh.cells[0].source = "# 第 1 课 — 监视\n\n简介。"
    zh.cells[1].source = "# 打印一行\nprint('hi')  # 输出 hi"
    zh.cells[2].source = zh.cells[2].source.replace('"""Return dy/dx."""', '"""Return dy/dx."""  # 返回 dy/dx')
    return executed, zh


def test_translated_notebook_takes_the_executed_outputs():
    """Does a translation whose code differs only in comments get the English run's outputs, cell by cell?"""
    executed, zh = _twins()
    zh = notebooks.with_outputs_of(zh, executed)
    assert zh.cells[0].source.startswith("# 第 1 课") and "# 输出 hi" in zh.cells[1].source
    assert [c.get("outputs") for c in zh.cells] == [c.get("outputs") for c in executed.cells]
    page = notebooks.render(zh, "lesson1", labels={"solution": "参考答案"})
    assert '??? success "参考答案"' in page.markdown and '<pre>hi</pre>' in page.markdown and page.figures == 1
    assert "# 输出 hi" in page.markdown and "简介。" in page.markdown


@pytest.mark.parametrize("change, says", [
    (lambda nb: setattr(nb.cells[1], "source", "print('hello')"), "cell 2 .*differs"),
    (lambda nb: nb.cells.pop(), "cells"),
    (lambda nb: setattr(nb.cells[4], "id", "elsewhere"), "cell 5 .*id"),
    (lambda nb: nb.cells.__setitem__(1, new_markdown_cell("print('hi')", id=nb.cells[1].id)), "cell 2 .*markdown"),
], ids=["code", "count", "id", "type"])
def test_translated_notebook_that_differs_is_refused(change, says):
    """A translation with other code, another cell count, a cell moved or of another type: a clear ValueError."""
    executed, zh = _twins()
    change(zh)
    with pytest.raises(ValueError, match=says):
        notebooks.with_outputs_of(zh, executed)


def test_code_without_comments_keeps_strings_and_code():
    """Are comments and blank lines all a translation may change, and not a `#` inside a string?"""
    same = notebooks.code_without_comments
    assert same("x = 1  # one\n\n# note\ny = 2") == same("x = 1\ny = 2  # 二")
    assert same("s = '# not a comment'") != same("s = '# 不是注释'")
    assert same('"""Doc."""') != same('"""文档。"""')
    assert same("!pip list  # shell") == same("!pip list  # 命令")


def test_a_translation_runs_its_imports_answers_and_checks_only():
    """Does a translated page run just the cells whose outputs its language changes (and what they need)?"""
    _, zh = _twins()
    run = notebooks.checks_only(zh)
    assert [c.source for c in run.cells] == [zh.cells[1].source, zh.cells[2].source, zh.cells[3].source]
    assert all(c.cell_type == "code" for c in run.cells)


def test_a_translated_page_shows_its_own_checks_verdicts():
    """Are a translated page's check outputs the ones run in its language, and every other output the English run's?"""
    executed, zh = _twins()
    executed.cells[3].outputs = [new_output("display_data", data={"text/html": "<b>✓ lesson1 / watch_constant: pass</b>"})]
    page = notebooks.with_outputs_of(zh, executed)
    checked = notebooks.checks_only(zh)
    checked.cells[2].outputs = [new_output("display_data", data={"text/html": "<b>✓ lesson1 / watch_constant：通过</b>"})]
    shown = notebooks.with_check_outputs_of(page, checked)
    assert shown.cells[3].outputs == checked.cells[2].outputs and shown.cells[1].outputs == executed.cells[1].outputs
    assert "通过" in notebooks.render(shown, "lesson1").markdown
    checked.cells.pop()
    with pytest.raises(ValueError, match="check cell"):
        notebooks.with_check_outputs_of(page, checked)


@pytest.mark.parametrize("figsize", [(13, 5), (6, 3.5), (3, 2)])  # lesson 3's, lesson 4's and a small one
def test_a_figure_carries_the_width_it_was_drawn_at(figsize):
    """Does a plot's <figure> tell the stylesheet its PNG's width (how far it may shrink legibly)?"""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure = plt.figure(figsize=figsize, dpi=100)
    figure.gca().plot([0, 1], [1, 0])
    png = io.BytesIO()
    figure.savefig(png, format="png")
    plt.close(figure)
    nb = new_notebook(cells=[new_code_cell("plot()", outputs=[new_output(
        "display_data", data={"image/png": base64.b64encode(png.getvalue()).decode(), "text/plain": "<Figure>"})])])
    page = notebooks.render(nb, "lesson3")
    width = round(figsize[0] * 100)
    assert f'<figure class="gt-output gt-figure" style="--gt-figure-width: {width}px" markdown>' in page.markdown
    assert notebooks.png_width(b"GIF89a" + bytes(30)) is None  # not a PNG: no width, the figure just fits the column
