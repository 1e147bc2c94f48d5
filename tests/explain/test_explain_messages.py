"""`gradtutor explain`, `lab` and `watch` in the catalogue's words: the report in Chinese keeps its stable
fields, and no English sentence is printed or raised straight from the code (an AST scan)."""
from __future__ import annotations

import ast
import inspect
import re

import pytest

from gradtutor import errors, messages
from gradtutor.errors import UnreadableFile
from gradtutor.explain import command
from gradtutor.explain import findings_view as report
from tests.support import REPO

pytestmark = pytest.mark.unit

FINDING = {"file": "train.py", "line": 14, "call": "gradient", "sources": ["w"], "cause": "outside-tape",
           "symptom": "none", "broke_at": {"file": "train.py", "line": 12, "code": "loss = z * 2"},
           "message": "MESSAGE-TEXT", "fix": "FIX-TEXT", "count": 3}
# The modules whose printed and raised text comes from the catalogue's explain.* and lab.* ids.
FILES = ["gradtutor/explain/findings_view.py", "gradtutor/explain/command.py", "gradtutor/explain/magic.py",
         "gradtutor/explain/context.py", "gradtutor/explain/__init__.py", "gradtutor/explain/child.py",
         "gradtutor/learner/lab/__init__.py", "gradtutor/learner/watch.py", "gradtutor/learner/kernelspec.py"]
ERRORS = {name for name, value in vars(errors).items()
          if inspect.isclass(value) and issubclass(value, errors.GradtutorError)}
ENGLISH = re.compile(r"[A-Za-z]{2,}")
MARKUP = re.compile(r"\[/?[\w .#=-]*\]|</?\w+[^>]*>")  # rich's [red]…[/red] and HTML's <td>: not words a person reads


@pytest.fixture
def chinese():
    messages.use("zh_CN", export=False)
    try:
        yield
    finally:
        messages.use(None, export=False)


def test_the_text_report_in_chinese_keeps_the_cause_id_and_the_lines(chinese):
    text = "\n".join(report.lines([FINDING], "train.py", 3))
    for words in ("梯度路径断在 train.py:12：", "解决办法：FIX-TEXT", "在 train.py 中发现 1 个问题",
                  "本身以退出码 3 结束", "《为什么我的梯度是 None？》"):
        assert words in text
    assert "[outside-tape]" in text and "train.py:14" in text and "tape.gradient (×3)" in text
    assert "loss = z * 2" in text and "MESSAGE-TEXT" in text
    assert "fix:" not in text and "problem" not in text and "the path broke" not in text


def test_the_summaries_in_chinese(chinese):
    assert report.lines([], None, 0, 2) == ["[green]✓[/green] 这段代码请求的每个梯度都正常（检查了 2 次调用）。"]
    assert report.lines([], None, 1, 1) == ["[green]✓[/green] 这段代码请求的每个梯度都正常（检查了 1 次调用）；这段代码本身以退出码 1 结束。"]
    assert report.lines([], "t.py", 0, 1) == ["[green]✓[/green] t.py 请求的每个梯度都正常（检查了 1 次调用）。"]
    assert report.lines([], "t.py", 3, 0) == [
        "gradtutor explain：t.py 没有向 TensorFlow 请求任何梯度，因此没有可检查的内容；t.py 本身以退出码 3 结束。"]
    assert "发现 2 个问题" in report.lines([FINDING, FINDING], "t.py")[-1]


def test_the_html_report_in_chinese_keeps_the_cause_id(chinese):
    page = report.as_html([FINDING])
    assert "<th>请求位置</th>" in page and "<i>解决办法：</i> FIX-TEXT" in page and "<b>outside-tape</b>" in page
    assert "<code>train.py:14</code>" in page and "asked at" not in page
    assert "每个梯度都正常" in report.as_html([]) and "没有请求任何梯度" in report.as_html([], gradient_calls=0)


def test_the_quoted_line_is_named_for_what_it_is():
    # an unwatched source: nothing broke on its line, it is where the source was made; a NaN: the first op whose
    # gradient is not finite; an op that cut the path: where it broke
    said = {cause: "\n".join(report.lines([dict(FINDING, cause=cause)], "train.py"))
            for cause in ("unwatched", "non-finite", "no-gradient-op")}
    assert "the source the tape did not watch, made at train.py:12:" in said["unwatched"]
    assert "broke" not in said["unwatched"]
    assert "the first step whose gradient is inf or NaN, at train.py:12:" in said["non-finite"]
    assert "the path broke at train.py:12:" in said["no-gradient-op"]


def test_json_is_the_same_in_every_language(chinese):
    chinese_json = report.as_json([FINDING], 0)
    messages.use("en", export=False)
    assert report.as_json([FINDING], 0) == chinese_json


def test_the_english_report_reads_as_before():
    text = "\n".join(report.lines([FINDING], "train.py"))
    assert "  the path broke at train.py:12:  [cyan]loss = z * 2[/cyan]" in text and "  fix: FIX-TEXT" in text
    assert text.endswith("1 problem found in train.py; each cause is explained in the docs' guide "
                         "“Why is my gradient None?”, section Cause ids")
    assert "2 problems found" in report.lines([FINDING, FINDING], "train.py")[-1]
    assert report.lines([], None, 1, 1) == [
        "[green]✓[/green] every gradient the code asked for came back fine (1 call checked); "
        "the code itself exited with code 1."]
    assert report.lines([FINDING], None)[-1].startswith("1 problem found in the code; each cause")


def test_a_missing_script_in_chinese(chinese, tmp_path):
    with pytest.raises(UnreadableFile) as raised:
        command.check_script(str(tmp_path / "train.py"))
    assert str(raised.value).endswith("train.py：文件不存在——请给出你的 Python 脚本的路径（gradtutor explain train.py）")


@pytest.mark.parametrize("area", ["explain", "lab"])
def test_both_languages_have_the_same_ids_and_parameters(area):
    english = {k: v for k, v in messages.catalogue("en").items() if k.startswith(f"{area}.")}
    chinese = {k: v for k, v in messages.catalogue("zh_CN").items() if k.startswith(f"{area}.")}
    assert english and sorted(english) == sorted(chinese)
    assert {k: messages.parameters(v) for k, v in english.items()} == {
        k: messages.parameters(v) for k, v in chinese.items()}


def _is_say(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "say")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "say"))


def _literal_text(node: ast.AST) -> list[str]:
    """The literal text an argument is built from (not what say() or a variable supplies)."""
    if _is_say(node):
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [text for part in node.values for text in _literal_text(part)]
    if isinstance(node, ast.FormattedValue):
        return _literal_text(node.value)
    if isinstance(node, ast.BinOp):
        return _literal_text(node.left) + _literal_text(node.right)
    if isinstance(node, ast.IfExp):
        return _literal_text(node.body) + _literal_text(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _literal_text(node.func.value)
    return []


def _is_sink(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ("print", "show", "_show") or func.id in ERRORS
    if isinstance(func, ast.Attribute):
        return func.attr == "print" or (func.attr == "append" and isinstance(func.value, ast.Name)
                                         and func.value.id in ("out", "rows"))
    return False


def scan(source: str) -> tuple[list[str], int, int]:
    """(English passed straight to a sink, sink calls seen, say() calls seen) in one module's source."""
    english, sinks, says = [], 0, 0
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        says += _is_say(node)
        if _is_sink(node):
            sinks += 1
            for argument in node.args:
                for text in _literal_text(argument):
                    if ENGLISH.search(MARKUP.sub("", text)):
                        english.append(f"line {node.lineno}: {text!r}")
    return english, sinks, says


def test_the_scan_finds_english_handed_to_each_kind_of_sink():
    bad = ('print("stopped watching")\nconsole.print(f"[dim]{t} watching {path}[/]")\n'
           'raise UnreadableFile(f"{script}: no such file")\nout.append("  fix: " + fix)\n'
           'rows.append("<td>{}</td><td>why</td>".format(x))\nshow("kernel: " if a else b)\n')
    assert len(scan(bad)[0]) == 6
    good = ('print(say("lab.stopped_watching"))\nconsole.print(f"[dim]{t} {escape(say(\'lab.watching\', path=p))}[/]")\n'
            'out.append(f"[red]✗[/red] [bold]{where}[/bold]  [yellow]\\\\[{finding[\'cause\']}][/yellow]")\n')
    assert scan(good) == ([], 3, 2)


def test_no_english_is_printed_or_raised_straight_from_the_code():
    found, sinks, says = {}, {}, {}
    for name in FILES:
        english, sinks[name], says[name] = scan((REPO / name).read_text(encoding="utf-8"))
        if english:
            found[name] = english
    assert not found, f"text for the catalogue (gradtutor/messages/en/explain.toml or lab.toml): {found}"
    for name in ("gradtutor/explain/findings_view.py", "gradtutor/explain/command.py", "gradtutor/learner/lab/__init__.py",
                 "gradtutor/learner/watch.py"):
        assert sinks[name] and says[name] >= 2, (name, sinks[name], says[name])  # the scan saw the call sites
    assert sum(says.values()) >= 30
