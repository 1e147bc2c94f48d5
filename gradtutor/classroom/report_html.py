"""The class report and each student's feedback as HTML pages.

Self-contained (inline CSS, no scripts, nothing fetched: classrooms may be
offline), and everything that came from a submission — student ids, the
verdict texts, which quote the student's code — is escaped.
"""
from __future__ import annotations

from html import escape
from urllib.parse import quote

from gradtutor.classroom.report import ClassReport, Outcome, StudentReport, flag_text
from gradtutor.protocol import Status

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #1f2328; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.flag { background: #fff8c5; padding: 2px 6px; }
.msg { white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 13px; }
"""
OTHER_COLOUR = "#57606a"  # statuses that are not a verdict's (no test cell, not graded)


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


def student_file(student: str) -> str:
    """The page's file name: the id percent-encoded, so any id is one safe file name."""
    return quote(student, safe="") + ".html"


def student_link(student: str) -> str:
    return f'<a href="students/{escape(quote(student_file(student)))}">{escape(student)}</a>'


def class_page(report: ClassReport) -> str:
    body = [f"<h1>What the class got wrong: {escape(report.assignment)}</h1>",
            f"<p>{len(report.students)} students. Diagnoses are counted by cause id: the ids "
            "<code>gradtutor explain</code> and the guide &ldquo;Why is my gradient None?&rdquo; use.</p>",
            "<table><tr><th>exercise</th><th>passed</th><th>diagnosis</th><th>count</th><th>students</th></tr>"]
    for summary in report.summaries:
        rows = summary.diagnoses or ()
        span = max(1, len(rows))
        head = (f'<td rowspan="{span}">{escape(summary.exercise)}</td>'
                f'<td rowspan="{span}" class="n">{summary.passed}/{summary.students}</td>')
        if not rows:
            body.append(f"<tr>{head}<td colspan=3>all passed</td></tr>")
        for index, diagnosis in enumerate(rows):
            who = ", ".join(student_link(s) for s in diagnosis.students)
            body.append(f"<tr>{head if index == 0 else ''}<td><code>{escape(diagnosis.name)}</code></td>"
                        f'<td class="n">{diagnosis.count}</td><td>{who}</td></tr>')
    body.append("</table>")
    body.append("<h2>Identical answers</h2>")
    if report.flags:
        body.append("<p>Answers that are the same once names and formatting are set aside: a flag to look at. "
                    "No score was changed.</p><ul>")
        body.extend(f'<li class="flag">{escape(flag_text(f))} ({", ".join(student_link(s) for s in f.students)})</li>'
                    for f in report.flags)
        body.append("</ul>")
    else:
        body.append("<p>None found.</p>")
    body.append("<h2>Students</h2><table><tr><th>student</th><th>points</th><th>lost points</th></tr>")
    for student in report.students:
        lost = [o for o in student.outcomes if o.points < o.max_points]
        body.append(f"<tr><td>{student_link(student.student)}</td>"
                    f'<td class="n">{_n(student.score)}/{_n(student.max_score)}</td>'
                    f"<td>{escape(', '.join(f'{o.exercise} ({o.diagnosis})' for o in lost))}</td></tr>")
    body.append("</table><p>Files: <a href=\"summary.csv\">summary.csv</a>, <a href=\"grades.csv\">grades.csv</a>"
                " (for an LMS), <a href=\"similar.csv\">similar.csv</a>.</p>")
    return page(f"{report.assignment}: class report", "\n".join(body))


def student_page(assignment: str, student: StudentReport) -> str:
    """One student's feedback: every exercise's status, points and the verdict they were shown.

    Similarity flags stay on the class page: they are for the instructor to look at, not a verdict.
    """
    body = [f"<h1>{escape(assignment)}: {escape(student.student)}</h1>",
            f"<p>{_n(student.score)} of {_n(student.max_score)} points.</p>"]
    if student.problems:
        body.append("<ul>" + "".join(f"<li>{escape(p)}</li>" for p in student.problems) + "</ul>")
    body.append("<table><tr><th>exercise</th><th>status</th><th>points</th><th>diagnosis</th><th>what the check said</th></tr>")
    for outcome in student.outcomes:
        body.append(f"<tr><td>{escape(outcome.exercise)}</td>"
                    f'<td style="color:{_colour(outcome)}">{escape(outcome.label)}</td>'
                    f'<td class="n">{_n(outcome.points)}/{_n(outcome.max_points)}</td>'
                    f"<td><code>{escape(outcome.diagnosis or '')}</code></td>"
                    f'<td class="msg">{escape(outcome.message)}</td></tr>')
    body.append('</table><p><a href="../index.html">the class report</a></p>')
    return page(f"{assignment}: {student.student}", "\n".join(body))


def _colour(outcome: Outcome) -> str:
    try:
        return Status(outcome.status).display.colour
    except ValueError:
        return OTHER_COLOUR


def _n(value: float) -> str:
    return f"{value:g}"
