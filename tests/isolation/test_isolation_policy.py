"""Does the policy's one table say what learner code may not do, in the words the learner reads?"""
from __future__ import annotations

import os

import pytest

from gradtutor.course import extract
from gradtutor.checking import precheck
from gradtutor.isolation import policy

pytestmark = pytest.mark.unit


@pytest.fixture
def guard(tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return policy.audit_hook(policy.Scratch(str(scratch))), scratch


def test_may_it_write_only_inside_its_scratch_folder(guard, tmp_path):
    hook, scratch = guard
    hook("open", (str(scratch / "ok.txt"), "w", os.O_WRONLY))
    hook("open", (os.devnull, "w", os.O_WRONLY))
    hook("open", (str(tmp_path / "elsewhere.txt"), "r", os.O_RDONLY))
    with pytest.raises(PermissionError, match="^exercise code may not write files outside its scratch folder: "):
        hook("open", (str(tmp_path / "elsewhere.txt"), "w", os.O_WRONLY))
    with pytest.raises(PermissionError, match="^exercise code may not change files outside its scratch folder: "):
        hook("os.remove", (str(tmp_path / "elsewhere.txt"), None))
    with pytest.raises(PermissionError, match="^exercise code may not create files outside its scratch folder: "):
        hook("os.mkdir", (str(tmp_path / "new"), 0o777, None))


def test_are_the_answers_and_the_machinery_out_of_reach(guard):
    hook, _ = guard
    with pytest.raises(PermissionError, match="^exercise code may not read gradtutor's reference implementation$"):
        hook("open", (os.path.join(policy.REFERENCE_DIR, "lesson1.py"), "r", os.O_RDONLY))
    lesson1 = os.path.join(policy.LESSONS_DIR, "lesson1")
    assert os.path.isfile(os.path.join(lesson1, "reference.py")) and os.path.isfile(os.path.join(lesson1, "answers.toml"))
    for name in ("reference.py", "answers.toml", os.path.join("__pycache__", "reference.cpython-311.pyc")):
        with pytest.raises(PermissionError, match="^exercise code may not read gradtutor's reference implementation$"):
            hook("open", (os.path.join(lesson1, name), "r", os.O_RDONLY))
    hook("open", (os.path.join(lesson1, "lesson.toml"), "r", os.O_RDONLY))  # the course itself stays readable
    hook("open", (os.path.join(lesson1, "zh_CN.toml"), "r", os.O_RDONLY))
    for module in ("gradtutor.course.references.lesson1", "gradtutor.course.lessons.lesson1.reference",
                   "gradtutor.isolation.child"):
        with pytest.raises(PermissionError, match="^exercise code may not import gradtutor's reference implementation$"):
            hook("import", (module, None, [], [], []))
    hook("import", ("gradtutor.quiet", None, [], [], []))


def test_are_processes_signals_and_ctypes_refused(guard):
    hook, _ = guard
    with pytest.raises(PermissionError, match="^exercise code may not start other processes$"):
        hook("subprocess.Popen", (["true"], None, None, None))
    hook("os.kill", (os.getpid(), 0))
    with pytest.raises(PermissionError, match="^exercise code may not send signals to other processes$"):
        hook("os.kill", (1, 9))
    with pytest.raises(PermissionError, match="^exercise code may not call C functions through ctypes$"):
        hook("ctypes.dlopen", ("libc.so.6",))


def test_does_the_static_check_read_the_same_import_rules():
    def uses(source):
        return precheck.uses_internals([extract.Cell("cell 1", source)])

    assert uses("from gradtutor import check, quiet\nimport gradtutor.quiet") is None
    assert uses("import gradtutor.isolation.child") == "cell 1 imports gradtutor.isolation.child"
    assert uses("open('gradtutor/isolation/child.py')") == "cell 1 names gradtutor's reference files"
    assert uses("open('gradtutor/course/references/lesson1.py')") == "cell 1 names gradtutor's reference files"
    assert uses("open('gradtutor/course/lessons/lesson1/reference.py')") == "cell 1 names gradtutor's reference files"
    assert uses("import gradtutor.course.lessons.lesson1.reference") == (
        "cell 1 imports gradtutor.course.lessons.lesson1.reference")
