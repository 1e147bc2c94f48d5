"""Does `gradtutor grade`, `gradtutor classroom init` and the class report speak the chosen language?

Every sentence gradtutor.classroom shows an instructor or a student comes from the catalogue
(gradtutor/messages/<lang>/classroom.toml) through say(), at the moment it is shown: a few
representative ones are checked in Chinese here, and an `ast` scan of the package finds no
sentence written inline where a person reads it (print, the errors, argparse help, a submission's
problem). `classroom init` copies the chosen language's notebooks under the English names.
"""
from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.classroom.report import report_files
from gradtutor.classroom.report import report_html
from gradtutor.classroom.report.class_report import ClassReport, Outcome, StudentReport, cells, summary_lines
from gradtutor.classroom.grading.results import CellResult, NotebookResult, SubmissionResult
from gradtutor.classroom.grading.similarity import ExerciseSimilarity, SimilarityFlag
from gradtutor.errors import ClassroomError, UsageError
from tests.support import REPO
from tests.support.message_scan import MESSAGE_CALLS, name_of as _name, scan

pytestmark = pytest.mark.unit

CLASSROOM = REPO / "gradtutor" / "classroom"
CATALOGUES = {lang: REPO / "gradtutor" / "messages" / lang / "classroom.toml" for lang in messages.LANGUAGES}


@pytest.fixture
def chinese():
    messages.use("zh_CN", export=False)
    yield
    messages.use(None, export=False)


@pytest.fixture
def english():
    messages.use("en", export=False)
    yield
    messages.use(None, export=False)


# --------------------------------------------------------------------------- the catalogue


def _ids(lang: str) -> dict[str, str]:
    return {k: v for k, v in messages.catalogue(lang).items() if k.startswith("classroom.")}


def test_both_languages_have_the_same_ids_with_the_same_parameters():
    english_ids, chinese_ids = _ids("en"), _ids("zh_CN")
    assert all(path.is_file() for path in CATALOGUES.values())
    assert len(english_ids) > 100
    assert set(english_ids) == set(chinese_ids), set(english_ids) ^ set(chinese_ids)
    differ = {k: (messages.parameters(v), messages.parameters(chinese_ids[k])) for k, v in english_ids.items()
              if messages.parameters(v) != messages.parameters(chinese_ids[k])}
    assert not differ, differ
    same = [k for k, v in english_ids.items() if v == chinese_ids[k] and re.search(r"[A-Za-z]{4,}", v)]
    assert not same, f"not translated: {same}"


# --------------------------------------------------------------------------- Chinese where a person reads it


def _report() -> ClassReport:
    amy = StudentReport("amy", 1.0, 3.0, (Outcome("slice_inside", 0.0, 1.0, "fail", "outside-tape", "why"),
                                          Outcome("two_targets", 1.0 , 2.0, "not_attempted", None, "")))
    bob = StudentReport("bob", 3.0, 3.0, (Outcome("slice_inside", 1.0, 1.0, "pass", None, ""),
                                          Outcome("two_targets", 2.0, 2.0, "pass", None, "")))
    return ClassReport("lesson2", ("slice_inside", "two_targets"), (amy, bob),
                       (ExerciseSimilarity("slice_inside", 7, 0, (SimilarityFlag("slice_inside", ("amy", "bob"), True,
                                                                                 "outside-tape"),)),))


def test_the_class_table_is_chinese_and_fits_80_columns(chinese):
    lines = summary_lines(_report())
    assert lines[0] == "全班在 lesson2 中出错的地方（2 名学生）："
    assert lines[1].startswith("练习") and "诊断" in lines[1]
    assert any("outside-tape" in line for line in lines)  # a cause id is never translated
    assert any("（未作答）" in line for line in lines)
    assert any("slice_inside，相同的错误答案，outside-tape：amy, bob" in line for line in lines)
    assert any(line.startswith("与随附的参考答案相同") and "slice_inside 7" in line for line in lines)
    assert all(cells(line) <= 80 for line in lines), max(lines, key=cells)
    assert cells(lines[1]) > len(lines[1])  # wide characters counted as two columns


def test_the_html_pages_are_chinese_and_say_so(chinese):
    report = _report()
    page = report_html.class_page(report)
    assert '<html lang="zh-CN">' in page and "全班出错的地方：lesson2" in page
    assert "<code>gradtutor explain</code>" in page and "“为什么我的梯度是 None？”" in page
    assert '<a href="grades.csv">grades.csv</a>（供 LMS 导入）' in page
    student = report_html.student_page("lesson2", report.students[0])
    assert "1/3 分。" in student and ">未通过<" in student and ">未作答<" in student
    assert "（未作答）" in student


def test_the_html_escapes_the_words_around_its_parameters(english):
    page = report_html.class_page(_report())
    assert '<html lang="en">' in page and "&ldquo;" not in page
    assert "the guide “Why is my gradient None?” use." in page
    assert report_html.text("classroom.report.flag", exercise="<b>", kind="&amp;") == "<b>, &amp;: "


def test_a_report_folder_that_is_a_file_is_said_in_chinese(chinese, tmp_path):
    a_file = tmp_path / "report.txt"
    a_file.write_text("")
    with pytest.raises(ClassroomError, match="这是一个文件，不是文件夹"):
        report_files.prepare(a_file)


def test_the_result_lines_and_the_lost_points_are_chinese(chinese):
    from gradtutor.classroom.report.result_lines import result_lines

    cells_lost = [CellResult("check_a", 0.0, 1.0, "not_attempted"), CellResult("check_b", 0.0, 1.0, "not_attempted"),
                  CellResult("check_c", 0.0, 1.0, "fail", "why")]
    nb = NotebookResult("amy", "lesson2.ipynb", 0.0, 3.0, cells_lost, [])
    [line] = result_lines(SubmissionResult("amy", True, notebooks=[nb]), 5, False)
    assert "未作答：a、b; 未通过：c" in line
    [skipped] = result_lines(SubmissionResult("amy", False, skipped=True, notebooks=[nb]), 5, False)
    assert "已自动评分（加 --force 可重新评分）" in skipped


def test_the_grade_command_checks_its_options_in_chinese(chinese):
    from gradtutor.classroom.commands import cmd_grade

    with pytest.raises(UsageError, match="--jobs 至少为 1，不能是 0"):
        cmd_grade(argparse.Namespace(jobs=0, timeout=1.0))


def test_the_help_texts_are_made_in_the_language_chosen_when_the_parser_is_built(chinese):
    from gradtutor.classroom.commands import add_verbs

    parser = argparse.ArgumentParser(prog="gradtutor")
    verbs = parser.add_subparsers()
    add_verbs(verbs)
    grade = verbs.choices["grade"].format_help()
    assert "同时评分的提交份数" in grade and "--jobs" in grade
    assert "要创建或补全的课程文件夹" in verbs.choices["classroom"].format_help() + \
        verbs.choices["classroom"]._subparsers._group_actions[0].choices["init"].format_help()


def test_what_the_grading_processes_report_is_chinese(chinese):
    from gradtutor.classroom.cluster.distributed import check_address
    from gradtutor.classroom.grading.gradebook import cell_verdict, why_not_graded

    assert why_not_graded("DeadKernelError: ...", {}) == "运行笔记本时内核意外退出（os._exit、崩溃或内存不足）——记 0 分"
    assert why_not_graded("", {"lesson2": ["文件无法读取（OSError）"]}) == "文件无法读取（OSError）——记 0 分"
    import nbformat

    cell = nbformat.v4.new_code_cell("check()")
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text="warning\n")]
    assert cell_verdict(cell) == ("error", "该单元格向 stderr 写了内容，nbgrader 对此记 0 分：warning")
    with pytest.raises(ClassroomError, match="请以 tcp://HOST:PORT 的形式给出"):
        check_address("nowhere")


def test_the_language_is_read_when_the_text_is_made_not_when_imported(chinese):
    from gradtutor.classroom.report.class_report import diagnosis_text

    assert diagnosis_text("(scored 0 on re-check)") == "（复查后记 0 分）"
    messages.use("en", export=False)
    assert diagnosis_text("(scored 0 on re-check)") == "(scored 0 on re-check)"
    assert diagnosis_text("outside-tape") == "outside-tape"


# --------------------------------------------------------------------------- classroom init in a language


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A solutions/ folder with every lesson's English and Chinese notebook and a data file beside them."""
    root = tmp_path / "shipped"
    lessons = course.load().lessons
    for lesson in lessons:
        folder = root / "solutions" / lesson.id
        folder.mkdir(parents=True)
        (folder / lesson.notebook).write_text(f"english {lesson.id}")
        (folder / lesson.notebook_name("zh_CN")).write_text(f"chinese {lesson.id}")
        (folder / "weights.npz").write_text("data")
    monkeypatch.setattr(course, "course_dir", lambda kind: root / kind)
    return lessons


def _made(folder: Path, lesson) -> list[str]:
    return sorted(p.name for p in (folder / "source" / lesson.id).iterdir())


def test_init_in_chinese_copies_the_chinese_notebooks_under_the_english_names(shipped, chinese, tmp_path):
    from gradtutor.classroom.grading.course_folder import init_course

    folder = tmp_path / "course"
    done = init_course(folder)
    for lesson in shipped:
        assert _made(folder, lesson) == sorted([lesson.notebook, "weights.npz"])
        assert (folder / "source" / lesson.id / lesson.notebook).read_text() == f"chinese {lesson.id}"
    assert {what for _, what in done} == {"已写入（含密钥）", "已复制"}


def test_init_in_english_copies_no_other_language_s_notebook(shipped, english, tmp_path):
    from gradtutor.classroom.grading.course_folder import init_course

    folder = tmp_path / "course"
    init_course(folder)
    for lesson in shipped:
        assert _made(folder, lesson) == sorted([lesson.notebook, "weights.npz"])
        assert (folder / "source" / lesson.id / lesson.notebook).read_text() == f"english {lesson.id}"


def test_init_in_chinese_without_a_chinese_notebook_is_one_line_naming_it(shipped, chinese, tmp_path):
    from gradtutor.classroom.grading.course_folder import init_course

    missing = shipped[-1].source_notebook("zh_CN")
    missing.unlink()
    with pytest.raises(ClassroomError) as raised:
        init_course(tmp_path / "course")
    assert str(missing) in str(raised.value) and "\n" not in str(raised.value)
    assert "简体中文" in str(raised.value)
    assert not (tmp_path / "course").exists()  # nothing written: a course is made in one language


# --------------------------------------------------------------------------- no sentence written inline

# Lines written to a grading process's log for debugging, never shown to a person.
LOG_LINES = {("grading_worker.py", "===== autograde"), ("warm_kernels.py", "kernel forker ready")}


def test_the_scan_finds_inline_sentences_and_passes_messages():
    bad = '''
raise ClassroomError(f"{folder}: no such course folder")
console.print("[yellow]note:[/] " + detail)
p.add_argument("--force", help="grade again")
result = SubmissionResult(student, graded=False, problem="it died")
reply = {"student": student, "problem": f"could not grade it ({exc})"}
'''
    good = '''
raise ClassroomError(say("classroom.grade.no_course", folder=folder))
console.print(f"[yellow]{say('classroom.grade.note')}[/] {detail}", markup=False)
p.add_argument("--force", help=helptext("force"))
result = SubmissionResult(student, graded=False, problem=say("classroom.problem.died"))
'''
    inline, _, _ = scan(bad)
    assert len(inline) == 5, inline
    inline, with_say, _ = scan(good)
    assert inline == [] and len(with_say) == 4


def test_no_sentence_in_the_classroom_package_is_written_inline():
    inline, with_say, logs = [], [], set()
    modules = sorted(CLASSROOM.rglob("*.py"))
    for path in modules:
        found, said, seen = scan(path.read_text(encoding="utf-8"), path.name, LOG_LINES)
        inline += found
        with_say += said
        logs |= seen
    assert not inline, "text a person reads, written inline instead of say(\"classroom.…\"):\n" + "\n".join(inline)
    assert logs == LOG_LINES  # every exemption still names a line that exists
    # the scan reached the places that show text: the commands, the errors, the grading processes' problems
    files = {site.split(":")[0] for site in with_say}
    assert {"commands.py", "course_folder.py", "nbgrader_glue.py", "distributed.py", "report_files.py", "pool.py",
            "grading_worker.py", "dask_task.py", "dask_host.py", "shipment.py", "sandboxed_execute.py",
            "shared_judge.py"} <= files, files
    assert len(with_say) >= 45, len(with_say)


def test_every_message_id_the_package_names_exists_with_the_parameters_it_is_given():
    english_ids = _ids("en")
    used, prefixes = 0, 0
    for path in sorted(CLASSROOM.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and _name(node.func) in MESSAGE_CALLS and node.args):
                continue
            first = node.args[0]
            prefix = "classroom.help." if _name(node.func) == "helptext" else ""
            if isinstance(first, ast.Constant):
                message_id = prefix + first.value
                assert message_id in english_ids, f"{path.name}:{node.lineno}: no message {message_id}"
                if not any(k.arg is None for k in node.keywords):  # no **params
                    given = {k.arg for k in node.keywords} - {"lang"}
                    wanted = messages.parameters(english_ids[message_id])
                    assert given == wanted, f"{path.name}:{node.lineno}: {message_id} takes {wanted}, given {given}"
                used += 1
            elif isinstance(first, ast.JoinedStr) and isinstance(first.values[0], ast.Constant):
                start = prefix + first.values[0].value
                assert any(k.startswith(start) for k in english_ids), f"{path.name}:{node.lineno}: no {start}…"
                prefixes += 1
    assert used >= 80 and prefixes >= 4, (used, prefixes)
