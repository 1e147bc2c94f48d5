"""Does argparse speak the messages' language: the help's headings, `-h`, `dev`'s help and every error it makes?

argparse writes "usage:", "options" and its errors in English; gradtutor.cli.parser says them from the
catalogue. Run as a learner runs the command, on an English-locale machine with `--lang zh`.
"""
from __future__ import annotations

import re

import pytest

from gradtutor import messages
from gradtutor.cli import parser as cli_parser
from tests.support.cli import run_cli

pytestmark = pytest.mark.unit

C_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "", "GRADTUTOR_LANG": ""}
ARGPARSE_ENGLISH = re.compile(r"usage:|options:|positional arguments|show this help|the following arguments"
                              r"|unrecognized arguments|invalid choice|invalid float value|expected one argument")


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"], ["dev", "--help"], ["dev", "check", "--help"],
                                  ["explain", "--help"]])
def test_is_the_help_chinese_headings_and_all(args, tmp_path):
    shown = run_cli(*args, "--lang", "zh", env=C_LOCALE, cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("用法：gradtutor"), shown.stdout + shown.stderr
    assert "选项：" in shown.stdout and "显示这条帮助并退出" in shown.stdout, shown.stdout
    assert not ARGPARSE_ENGLISH.search(shown.stdout), shown.stdout


@pytest.mark.parametrize("args, said", [
    (["check"], "缺少必需的参数：LESSON"),
    (["check", "lesson1", "--bogus"], "无法识别的参数：--bogus"),
    (["check", "lesson1", "--timeout", "abc"], "参数 --timeout：无效的 float 值：'abc'"),
    (["frob"], "参数 COMMAND：无效的选择：'frob'（可选："),
    (["hint", "lesson1", "1", "--level"], "参数 --level：需要一个值"),
    (["dev"], "请选择一个 dev 命令"),
])
def test_is_every_argparse_error_one_chinese_line(args, said, tmp_path):
    shown = run_cli(*args, "--lang", "zh", env=C_LOCALE, cwd=tmp_path)
    assert shown.returncode == 2 and said in shown.stderr and shown.stderr.count("\n") == 1, shown.stderr
    assert not ARGPARSE_ENGLISH.search(shown.stderr) and "Traceback" not in shown.stderr, shown.stderr


def test_does_every_error_template_match_what_argparse_says():
    """Each English text of cli.argparse.* is the argparse template it reads back (a changed one would not match)."""
    import argparse

    parser = argparse.ArgumentParser(prog="p", exit_on_error=False)
    parser.add_argument("n", type=int)
    parser.add_argument("--c", choices=["a", "b"])
    said = []
    for argv in (["1", "--c", "z"], ["x"], [], ["1", "--c"], ["1", "2"]):
        try:
            parser.parse_args(argv)
        except argparse.ArgumentError as exc:
            said.append(str(exc))
        except SystemExit:
            pass
    assert len(said) >= 3, said
    english = [cli_parser.translate(text) for text in said]
    assert english == said  # English in, the same English out: every template reads back whole
    chinese = messages.use("zh_CN", export=False)
    try:
        assert chinese == "zh_CN"
        assert all(re.search(r"[\u4e00-\u9fff]", cli_parser.translate(text)) for text in said), said
        assert cli_parser.translate("something argparse never said") == "something argparse never said"
    finally:
        messages.use(None, export=False)


def test_a_learner_s_verb_parses_the_same_without_the_other_packages():
    """`gradtutor check` builds only the learner's verbs (a terminal re-check skips importing the classroom's,
    dev's and explain's modules); what it parses and the help it prints are the whole command line's."""
    import subprocess
    import sys

    probe = ("import sys\nfrom gradtutor.cli import build_parser\n"
             "args = build_parser('check').parse_args(['check', 'lesson1', '--json', '--seeds', 'visible'])\n"
             "print(sorted(m for m in sys.modules if m.split('.')[1:2] in (['classroom'], ['dev'], ['explain'])))\n"
             "print(args.func.__name__, args.lesson, args.json, args.seeds)\n"
             "print(build_parser('check')._subparsers._group_actions[0].choices['check'].format_help())")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded, parsed, help_text = done.stdout.split("\n", 2)
    assert loaded == "[]" and parsed == "cmd_check lesson1 True visible"
    from gradtutor.cli import build_parser

    whole = build_parser()._subparsers._group_actions[0].choices
    assert {"grade", "dev", "explain"} <= set(whole) and help_text.rstrip() == whole["check"].format_help().rstrip()
