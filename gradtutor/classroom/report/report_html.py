"""The class report and each student's feedback as HTML pages.

Self-contained (inline CSS, no scripts, nothing fetched: classrooms may be
offline), and everything that came from a submission — student ids, the
verdict texts, which quote the student's code — is escaped.
"""
from __future__ import annotations

from html import escape
from urllib.parse import quote

from gradtutor.classroom.report.report_causes import reading_html
from gradtutor.classroom.report.class_report import (ClassReport, Outcome, StudentReport, diagnosis_text, flag_text,
                                                      match_counts)
from gradtutor.messages import language, say
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
    lang = language().replace("_", "-")  # zh_CN → zh-CN, as HTML names it
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


def text(message_id: str, **html) -> str:
    """A message as HTML: its words escaped, its parameters (HTML already) put in as they are."""
    marks = {name: f"\0{index}\0" for index, name in enumerate(html)}
    found = escape(say(message_id, **marks))
    for name, mark in marks.items():
        found = found.replace(mark, html[name])
    return found


def header(*columns: str) -> str:
    return "<tr>" + "".join(f"<th>{text(f'classroom.report.column.{c}')}</th>" for c in columns) + "</tr>"


def student_file(student: str) -> str:
    """The page's file name: the id percent-encoded, so any id is one safe file name."""
    return quote(student, safe="") + ".html"


def student_link(student: str) -> str:
    return f'<a href="students/{escape(quote(student_file(student)))}">{escape(student)}</a>'


def class_page(report: ClassReport) -> str:
    count = "classroom.report.students_" + ("one" if len(report.students) == 1 else "other")
    intro = text("classroom.report.html.intro", students=text(count, count=str(len(report.students))),
                 explain="<code>gradtutor explain</code>")
    body = [f"<h1>{text('classroom.report.html.heading', assignment=escape(report.assignment))}</h1>",
            f"<p>{intro}</p>",
            "<table>" + header("exercise", "passed", "diagnosis", "count", "students")]
    for summary in report.summaries:
        rows = summary.diagnoses or ()
        span = max(1, len(rows))
        head = (f'<td rowspan="{span}">{escape(summary.exercise)}</td>'
                f'<td rowspan="{span}" class="n">{summary.passed}/{summary.students}</td>')
        if not rows:
            body.append(f"<tr>{head}<td colspan=3>{text('classroom.report.all_passed')}</td></tr>")
        for index, diagnosis in enumerate(rows):
            who = ", ".join(student_link(s) for s in diagnosis.students)
            body.append(f"<tr>{head if index == 0 else ''}<td><code>{escape(diagnosis_text(diagnosis.name))}</code></td>"
                        f'<td class="n">{diagnosis.count}</td><td>{who}</td></tr>')
    body.append("</table>")
    for kind, flags in (("identical", report.flags), ("mistakes", report.mistakes)):
        body.append(f"<h2>{text(f'classroom.report.html.{kind}')}</h2>")
        if flags:
            body.append(f"<p>{text(f'classroom.report.html.{kind}_intro')}</p><ul>")
            body.extend(f'<li class="flag">{escape(flag_text(f))} ({", ".join(student_link(s) for s in f.students)})'
                        "</li>" for f in flags)
            body.append("</ul>")
        else:
            body.append(f"<p>{text('classroom.report.html.none_found')}</p>")
    body.extend(f"<p>{escape(line)}</p>" for line in match_counts(report))
    body.append(f"<h2>{text('classroom.report.html.students')}</h2><table>" + header("student", "points", "lost"))
    for student in report.students:
        lost = [o for o in student.outcomes if o.points < o.max_points]
        body.append(f"<tr><td>{student_link(student.student)}</td>"
                    f'<td class="n">{_n(student.score)}/{_n(student.max_score)}</td>'
                    f"<td>{escape(', '.join(f'{o.exercise} ({diagnosis_text(o.diagnosis)})' for o in lost))}</td></tr>")
    files = {name: f'<a href="{name}.csv">{name}.csv</a>' for name in ("summary", "grades", "similar")}
    causes = text("classroom.lms.reading.file", causes='<a href="causes.csv">causes.csv</a>')
    body.append(f"</table><p>{text('classroom.report.html.files', **files)} {causes}</p>")
    return page(say("classroom.report.html.class_title", assignment=report.assignment), "\n".join(body))


def student_page(assignment: str, student: StudentReport) -> str:
    """One student's feedback: every exercise's status, points and the verdict they were shown.

    Similarity flags stay on the class page: they are for the instructor to look at, not a verdict.
    """
    body = [f"<h1>{escape(assignment)}: {escape(student.student)}</h1>",
            f"<p>{text('classroom.report.html.points', score=_n(student.score), max_score=_n(student.max_score))}</p>"]
    if student.problems:
        body.append("<ul>" + "".join(f"<li>{escape(p)}</li>" for p in student.problems) + "</ul>")
    body.append("<table>" + header("exercise", "status", "points", "diagnosis", "said"))
    for outcome in student.outcomes:
        body.append(f"<tr><td>{escape(outcome.exercise)}</td>"
                    f'<td style="color:{_colour(outcome)}">{escape(outcome.label)}</td>'
                    f'<td class="n">{_n(outcome.points)}/{_n(outcome.max_points)}</td>'
                    f"<td><code>{escape(diagnosis_text(outcome.diagnosis) if outcome.diagnosis else '')}</code></td>"
                    f'<td class="msg">{escape(outcome.message)}</td></tr>')
    body.append("</table>" + reading_html(assignment, student))
    body.append(f'<p><a href="../index.html">{text("classroom.report.html.back")}</a></p>')
    return page(f"{assignment}: {student.student}", "\n".join(body))


def _colour(outcome: Outcome) -> str:
    try:
        return Status(outcome.status).display.colour
    except ValueError:
        return OTHER_COLOUR


def _n(value: float) -> str:
    return f"{value:g}"
