"""Is the class report right on synthetic results: the counts, the table's width, the CSV, the HTML,
the verdicts read from check cells, and the similarity flags? (The real class: test_class_report_grade.py.)"""
from __future__ import annotations

import csv

import nbformat
import pytest

from gradtutor.classroom.report import report_files
from gradtutor.classroom.report import report_html
from gradtutor.classroom.report.class_report import ClassReport, Outcome, StudentReport, grade_rows, summary_lines
from gradtutor.classroom.report.report_collect import outcome, student_report
from gradtutor.classroom.grading.results import CellResult, NotebookResult, SubmissionResult
from gradtutor.classroom.grading.similarity import ExerciseSimilarity, SimilarityFlag, normalised
from gradtutor.classroom.grading.verdicts import verdict_of
from gradtutor.errors import ClassroomError
from gradtutor.protocol import VERDICT_MIME, failure_for
from tests.support.classroom import gradtutor

pytestmark = pytest.mark.unit

ANSWER = '''
def first_class_gradient(model, inp):
    """The gradient of class 0."""
    with tf.GradientTape() as tape:  # record
        result = model(inp, training=False)
        first = result[:, 0]
    return tape.gradient(first, inp)
'''
SAME = '''def first_class_gradient(m,x):
    with tf.GradientTape() as g:
        r = m(x, training = False)

        f = r[:,0]
    return g.gradient(f, x)
'''


# --------------------------------------------------------------------------- similarity


def test_are_names_docstrings_comments_and_layout_set_aside():
    assert normalised(ANSWER, "first_class_gradient") == normalised(SAME, "first_class_gradient")
    assert normalised(SAME.replace("def first_class_gradient", "def first_class_gradient_v2"),
                      "first_class_gradient") is None  # not defined there: nothing to compare


@pytest.mark.parametrize("changed", [
    SAME.replace("r[:,0]", "r[:,1]"),  # another class
    SAME.replace("tf.GradientTape()", "tf.GradientTape(persistent=True)"),  # another call
    SAME.replace("tf.GradientTape", "tf2.GradientTape"),  # a global name is not renamed
])
def test_is_a_different_program_a_different_answer(changed):
    assert normalised(changed, "first_class_gradient") != normalised(ANSWER, "first_class_gradient")


# --------------------------------------------------------------------------- verdicts from check cells


def _check_cell(*outputs):
    cell = nbformat.v4.new_code_cell("check('lesson2', 'slice_inside', first_class_gradient)")
    cell.outputs = list(outputs)
    return cell


def _shown(status: str, cause: str | None, message: str = "the diagnosis"):
    data = {"lesson": "lesson2", "exercise": "slice_inside", "status": status, "cause": cause, "message": message}
    return nbformat.v4.new_output("display_data", data={"text/html": "<b>x</b>", VERDICT_MIME: data})


def _raised(name: str, value: str = "the diagnosis"):
    return nbformat.v4.new_output("error", ename=name, evalue=value, traceback=[])


def test_is_the_cause_read_from_the_verdict_data_check_displayed():
    cell = _check_cell(_shown("fail", "outside-tape", "line one\nline two"), _raised(failure_for("fail").__name__))
    verdict = verdict_of(cell)
    assert (verdict.status, verdict.cause, verdict.message) == ("fail", "outside-tape", "line one\nline two")
    assert verdict_of(_check_cell(_shown("pass", None))).status == "pass"
    timed_out = verdict_of(_check_cell(_shown("timeout", "timeout"), _raised(failure_for("timeout").__name__)))
    assert (timed_out.status, timed_out.cause) == ("error", "timeout")


def test_without_verdict_data_only_the_exception_name_gives_a_cause():
    assert verdict_of(_check_cell(_raised("NameError", "name 'f' is not defined"))).cause == "undefined-name"
    assert verdict_of(_check_cell(_raised("ZeroDivisionError"))).cause is None
    # a pass followed by stderr is an error nbgrader scores 0; the verdict's data does not hide it
    stderr = nbformat.v4.new_output("stream", name="stderr", text="warning\n")
    assert (verdict_of(_check_cell(_shown("pass", None), stderr)).status, verdict_of(_check_cell(stderr)).cause) == \
        ("error", None)
    # a cause outside the vocabulary (the notebook is the student's file) is not counted as one
    assert verdict_of(_check_cell(_shown("fail", "<b>me</b>"), _raised(failure_for("fail").__name__))).cause is None


def test_does_the_gradebook_win_when_a_recheck_zeroed_a_pass():
    zeroed = CellResult("check_slice_inside", 0.0, 1.0, "fail", "passed in the kernel, fails out of it: None")
    passed = verdict_of(_check_cell(_shown("pass", None)))
    got = outcome(zeroed, passed, None)
    assert (got.status, got.points, got.diagnosis, got.label) == ("zeroed", 0.0, "(scored 0 on re-check)",
                                                                  "scored 0 by the re-check")
    assert "fails out of it" in got.message


def test_does_a_student_report_join_gradebook_points_and_notebook_verdicts(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = _check_cell(_shown("fail", "softmax-sum"), _raised(failure_for("fail").__name__))
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "check_slice_inside", "points": 1, "locked": True,
                                 "solution": False, "schema_version": 3}
    nb.cells = [cell]
    nbformat.write(nb, tmp_path / "lesson2.ipynb")
    cells = [CellResult("check_slice_inside", 0.0, 1.0, "fail", "first line"),
             CellResult("check_two_targets", 2.0, 2.0, "pass")]
    result = SubmissionResult("amy", True, notebooks=[NotebookResult("amy", "lesson2.ipynb", 2.0, 3.0, cells, [])])
    report = student_report(result, tmp_path)
    assert [(o.exercise, o.status, o.diagnosis) for o in report.outcomes] == [
        ("slice_inside", "fail", "softmax-sum"), ("two_targets", "pass", None)]
    assert (report.score, report.max_score) == (2.0, 3.0)
    broken = SubmissionResult("bob", False, notebooks=[NotebookResult("bob", "lesson2.ipynb", 0.0, 3.0, cells[:1], [])],
                              problem="corrupt notebook — scored 0")
    assert student_report(broken, tmp_path).outcomes[0].diagnosis == "(not graded)"


# --------------------------------------------------------------------------- the table and the files


def _class(n_wrong: int = 5) -> ClassReport:
    causes = ["outside-tape", "softmax-sum", "leaves-tensorflow", "shape", "wrong-function", "scale"]
    students = []
    for number in range(n_wrong + 2):
        cause = causes[number % len(causes)] if number < n_wrong else None
        ex1 = Outcome("slice_inside", 0.0 if cause else 1.0, 1.0, "fail" if cause else "pass", cause, "why <b>")
        ex2 = Outcome("a_very_long_exercise_identifier_indeed", 2.0, 2.0, "pass", None, "")
        name = f"student-with-a-long-name-{number:02d}" if number else "new\nline"  # a folder name may hold anything
        students.append(StudentReport(name, ex1.points + 2.0, 3.0, (ex1, ex2)))
    flagged = (ExerciseSimilarity("slice_inside", 3, 0, (SimilarityFlag("slice_inside",
                                                                     tuple(s.student for s in students[:5])),)),)
    return ClassReport("lesson2", ("slice_inside", "a_very_long_exercise_identifier_indeed"), tuple(students), flagged)


def test_does_the_table_count_causes_and_fit_80_columns():
    report = _class(13)
    lines = summary_lines(report)
    assert all(len(line) <= 80 and "\n" not in line for line in lines), max(lines, key=len)
    assert any("new?line" in line for line in lines)
    first = report.summaries[0]
    assert (first.passed, first.students) == (2, 15)
    # most common first; a tie in the order of the names
    assert [(d.name, d.count) for d in first.diagnoses][:3] == [("outside-tape", 3), ("leaves-tensorflow", 2),
                                                                ("scale", 2)]
    assert any("more diagnoses" in line for line in lines)
    assert any(line.startswith("a_very_long_exerc") and "all passed" in line for line in lines)
    assert any("slice_inside, the same answer: new?line, student-with-a-long-nam" in line for line in lines)


def test_do_the_grade_rows_sum_to_the_totals():
    rows = grade_rows(_class())
    assert rows[0] == ["student_id", "slice_inside", "a_very_long_exercise_identifier_indeed", "total"]
    assert all(float(r[1]) + float(r[2]) == float(r[3]) for r in rows[1:])


def test_are_the_files_written_readable_and_is_student_text_escaped(tmp_path):
    evil = Outcome("slice_inside", 0.0, 1.0, "fail", "shape", "<script>alert(1)</script> & more")
    students = (StudentReport("<img src=x>", 0.0, 1.0, (evil,)), StudentReport("../../etc", 1.0, 1.0, ()))
    report = ClassReport("lesson2", ("slice_inside",), students)
    written = report_files.write(report, tmp_path / "out")
    assert all(path.is_relative_to(tmp_path / "out") for path in written)
    pages = [p.read_text() for p in written if p.suffix == ".html"]
    assert len(pages) == 3 and not any("<script" in p or "<img" in p or "http" in p for p in pages)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in pages[1] and "&lt;img src=x&gt;" in pages[0]
    with (tmp_path / "out" / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["student_id"] for r in rows] == ["<img src=x>", "../../etc"]
    assert report_html.student_file("../../etc") == "..%2F..%2Fetc.html"


def test_is_a_report_folder_that_cannot_be_written_a_one_line_error(tmp_path):
    a_file = tmp_path / "report.txt"
    a_file.write_text("")
    for folder, says in ((a_file, "is a file"), (a_file / "inside", "cannot write there")):
        with pytest.raises(ClassroomError, match=says):
            report_files.prepare(folder)
    done = gradtutor("grade", str(tmp_path), "lesson2", "--report", str(a_file), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("gradtutor: --report") and "is a file" in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr + done.stdout


def test_does_check_display_its_verdict_as_data_beside_the_html(monkeypatch):
    import IPython
    import IPython.display

    from gradtutor.learner import notebook

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: shown.append((args, kwargs)))
    answer = {"id": "slice_inside", "status": "fail", "message": "None: …", "cause": "outside-tape", "rows": []}
    notebook._show("lesson2", answer)
    (bundle,), kwargs = shown[0]
    assert kwargs == {"raw": True} and "slice_inside" in bundle["text/html"]
    assert bundle[VERDICT_MIME] == {"lesson": "lesson2", "exercise": "slice_inside", "status": "fail",
                                    "cause": "outside-tape", "message": "None: …"}
