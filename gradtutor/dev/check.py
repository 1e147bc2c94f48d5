"""`gradtutor dev check`: prove that the course works, one line per finding.

It checks the course this package belongs to (course.PACKAGE_DIR.parent), so a
copy of the repository checks itself when its own gradtutor is imported:

1. the manifest validates, and its points are those of the solutions notebooks;
   every lesson has its files and its translations (gradtutor.dev.lesson_files);
2. every reference module defines exactly the manifest's exercises, no diagnosis rule's
   source pattern matches the unchanged starter (gradtutor.dev.rule_words), and every rule an
   exercise's text states is in its `requires` (gradtutor.dev.rule_words);
3. lessons/ is what nbgrader generates from solutions/ (skipped without nbgrader);
4. the untouched starter is "not attempted", and stays short of a pass once edited;
5. every solution passes;
6. every known answer in a lesson's answers.toml gets its verdict and the cause id it must carry;
   a checkout's explain and hostile corpora follow the same corpus schema (gradtutor.dev.corpus);
7. no code cell but an answer defines a name an answer cell defines (gradtutor.dev.notebook_lint.answer_names),
   no cell reads a name a demonstration cell defines (gradtutor.dev.notebook_lint.demonstration_names),
   and each lesson's prose reads in 12 minutes or fewer in every language (gradtutor.dev.notebook_lint.reading_time).

Exit 0 when every check holds, 1 when one does not (each problem is one line).
"""
from __future__ import annotations

import ast
import functools
import json
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.course import schema as course_schema
from gradtutor.defaults import DEV_CHECK_TIMEOUT as TIMEOUT
from gradtutor.dev import answers as answers_mod
from gradtutor.dev import corpus
from gradtutor.dev import lesson_files, rule_words
from gradtutor.dev import notebook_lint
from gradtutor.errors import GradtutorError

OK, PROBLEM, SKIP = "ok", "FAIL", "skip"
SAY = functools.partial(print, flush=True)  # each line as it is found: a whole-course check takes minutes


class Report:
    """Writes each finding as one line and counts the problems."""

    def __init__(self, root: Path, write: Callable[[str], None] = SAY):
        self.root, self.write, self.problems = root, write, 0

    def path(self, path: Path) -> str:
        try:
            return str(Path(path).relative_to(self.root))
        except ValueError:
            return str(path)

    def __call__(self, kind: str, text: str) -> None:
        self.problems += kind == PROBLEM
        self.write(f"{kind:<4} {text}")


def run(lesson_refs: list[str] | None = None, timeout: float = TIMEOUT, write: Callable[[str], None] = SAY,
        quick: bool = False) -> int:
    """Check the course (or only the lessons named; quick: only what runs nothing); return the exit code."""
    root = course.PACKAGE_DIR.parent
    report = Report(root, write)
    try:
        the_course = course.load()
    except GradtutorError as exc:
        report(PROBLEM, str(exc))
        return 1  # nothing else can be trusted when the manifest cannot be read
    lessons = [the_course.lesson(ref) for ref in lesson_refs] if lesson_refs else list(the_course.lessons)
    _manifest(the_course, lessons, report)
    for lesson in lessons:
        _lesson_files(lesson, report)
        _references(lesson, report)
        _rule_words(lesson, report)
        _notebook_text(lesson, report)
    if not lesson_refs:
        _corpora(report)
    if quick:
        report(SKIP, "--quick: no nbgrader release, starter, solution or known answer ran — run without it to commit")
    else:
        _release(lessons, report)
        _run_lessons(lessons, timeout, report)
    write(f"dev check: {report.problems} problem(s)" if report.problems else "dev check: all good")
    return 1 if report.problems else 0


def _manifest(the_course, lessons, report: Report) -> None:
    problems = list(course_schema.point_problems(lessons))
    for problem in problems:
        report(PROBLEM, problem)
    if not problems:
        exercises = sum(len(lesson.exercises) for lesson in lessons)
        report(OK, f"{report.path(the_course.manifest)}: valid; the points of {exercises} exercise(s) in "
                   f"{len(lessons)} lesson(s) are those of the solutions notebooks")


def _corpora(report: Report) -> None:
    """The checkout's explain and hostile corpora follow the schema the answers do (gradtutor.dev.corpus)."""
    cases, problems = corpus.checkout_corpora(report.root)
    for problem in problems:
        report(PROBLEM, problem)
    if cases and not problems:
        report(OK, f"{len(cases)} explain scripts and hostile cases follow the corpus schema")


def _references(lesson, report: Report) -> None:
    """Statically, so the parent never imports TensorFlow: the EXERCISES keys of the lesson's reference.py."""
    path = lesson.folder / course.REFERENCE_FILE
    if not path.is_file():
        report(PROBLEM, f"{lesson.id}: {report.path(path)} is missing — every lesson needs its reference "
                        "module (see docs/authoring.md)")
        return
    keys = _exercise_keys(path)
    if keys is None:
        report(SKIP, f"{lesson.id}: {report.path(path)} builds EXERCISES in code; the checker runs below test it")
        return
    wanted = [e.id for e in lesson.exercises]
    missing, extra = [i for i in wanted if i not in keys], [k for k in keys if k not in wanted]
    if missing or extra:
        report(PROBLEM, f"{lesson.id}: {report.path(path)} EXERCISES lacks {missing} and has extra {extra} — "
                        "make its keys the exercise ids of the manifest")
    else:
        report(OK, f"{lesson.id}: {report.path(path)} has a reference for every exercise")


def _lesson_files(lesson, report: Report) -> None:
    problems = list(lesson_files.problems(lesson))
    for problem in problems:
        report(PROBLEM, problem)
    if not problems:
        report(OK, f"{lesson.id}: {report.path(lesson.folder)} has every file, every text is translated, "
                   "and there is a notebook in every language")
    for line in lesson_files.unfinished(lesson):
        report(SKIP, f"{line} (not a failure here; the test suite asks it of the course)")


def _rule_words(lesson, report: Report) -> None:
    problems = list(rule_words.rule_word_problems(lesson, report.path))
    unchecked = list(rule_words.unchecked_rule_problems(lesson, report.path))
    for problem in problems + unchecked:
        report(PROBLEM, problem)
    if not problems:
        report(OK, f"{lesson.id}: no diagnosis rule's source pattern matches the unchanged starter")
    if not unchecked:
        report(OK, f"{lesson.id}: every rule its exercises' texts state is checked (requires)")


def _notebook_text(lesson, report: Report) -> None:
    """Answer names kept to the answer cells, and the prose's length (gradtutor.dev.notebook_lint)."""
    notebooks = {lang: lesson.source_notebook(lang) for lang in _languages(lesson)}
    for problem, text in notebook_lint.findings(lesson.id, notebooks, report.path):
        report(PROBLEM if problem else OK, text)


def _exercise_keys(path: Path) -> list[str] | None:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "EXERCISES" for t in node.targets):
            if isinstance(node.value, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.value.keys):
                return [k.value for k in node.value.keys]
    return None


def _release(lessons, report: Report) -> None:
    from gradtutor.dev import release

    try:
        import nbgrader  # noqa: F401
    except ImportError:
        report(SKIP, "nbgrader is not installed, so lessons/ was not compared with what it generates from "
                     "solutions/ — pip install 'gradtutor[classroom]'")
        return
    with tempfile.TemporaryDirectory(prefix="gradtutor-dev-") as scratch:
        try:
            written = release.generate(Path(scratch), [lesson.id for lesson in lessons])
        except Exception as exc:  # noqa: BLE001 - nbgrader's own failures, reported as one line
            report(PROBLEM, f"nbgrader could not generate the lessons ({exc.__class__.__name__}: "
                            f"{str(exc).splitlines()[0] if str(exc) else ''}) — fix the solutions notebook")
            return
        made = {(path.parent.name, path.name): path for path in written}
        for lesson in lessons:
            for lang in _languages(lesson):  # every language's learner copy
                committed = lesson.release_notebook(lang)
                fresh = made.get((lesson.id, committed.name))
                if committed.is_file() and fresh is not None and committed.read_text() == fresh.read_text():
                    report(OK, f"{lesson.id}: {report.path(committed)} is what nbgrader generates from solutions/")
                else:
                    state = "differs from" if committed.is_file() else "is missing, so it is not"
                    report(PROBLEM, f"{lesson.id}: {report.path(committed)} {state} what nbgrader generates from "
                                    f"{report.path(lesson.source_notebook(lang))} — run `make lessons` "
                                    f"(python -m gradtutor.dev.release {lesson.id})")


def _run_lessons(lessons, timeout: float, report: Report) -> None:
    from gradtutor.checking.checker import Checker  # only now: it starts a worker that imports TensorFlow
    from gradtutor.course.seeds import HiddenInputs

    # the package's public hidden inputs: the known answers hard-coded from the visible ones must fail on them
    with Checker(timeout=timeout, hidden=HiddenInputs(public=True)) as checker, tempfile.TemporaryDirectory(prefix="gradtutor-dev-") as scratch:
        for lesson in lessons:
            folder = Path(scratch) / lesson.id
            folder.mkdir()
            for kind, text in _lesson_findings(checker, lesson, folder, report):
                report(kind, text)


def _languages(lesson) -> list[str]:
    """The languages the lesson has a solutions notebook in (a missing one is a problem of _lesson_files)."""
    found = [lang for lang in messages.LANGUAGES if lesson.source_notebook(lang).is_file()]
    return found if lesson.source_notebook(messages.DEFAULT).is_file() else list(messages.LANGUAGES)


def _lesson_findings(checker, lesson, folder: Path, report: Report) -> Iterator[tuple[str, str]]:
    for lang in _languages(lesson):  # each language's starter and solution: the same code, other words
        starter, solution = report.path(lesson.release_notebook(lang)), report.path(lesson.source_notebook(lang))
        yield from _statuses(checker, lesson, lesson.release_notebook(lang), {"not_attempted"}, (
            f"the untouched starter in {starter} is not attempted",
            f"the untouched starter in {starter} gives {{status}}, not not_attempted ({{message}}) — "
            "regenerate it from solutions/ with `make lessons`"))
        if lang == messages.DEFAULT:
            yield from _statuses(checker, lesson, _edited_starter(lesson, folder), {"not_attempted", "fail", "error"}, (
                f"the starter in {starter} does not pass once edited",
                f"the starter in {starter} passes once edited ({{message}}) — the learner's copy must not hold "
                "the answer: keep it between ### BEGIN SOLUTION and ### END SOLUTION, then `make lessons`"))
        yield from _statuses(checker, lesson, lesson.source_notebook(lang), {"pass"}, (
            f"the solution in {solution} passes",
            f"the solution in {solution} gives {{status}}, not pass ({{message}}) — fix it, or its reference "
            f"in {report.path(lesson.folder / course.REFERENCE_FILE)}"))
    yield from _answers(checker, lesson, folder, report)


def _statuses(checker, lesson, path: Path, allowed: set[str], texts: tuple[str, str]):
    """Check one notebook; (OK, texts[0]) when every exercise's status is allowed, else a problem per exercise."""
    try:
        result = checker.check_file(lesson, path)
    except GradtutorError as exc:
        yield PROBLEM, f"{lesson.id}: {exc}"
        return
    bad = [e for e in result.exercises if str(e.status) not in allowed]
    for e in bad:
        message = e.message.splitlines()[0] if e.message else ""
        yield PROBLEM, f"{lesson.id} {e.id}: " + texts[1].format(status=e.status, message=message)
    if not bad:
        yield OK, f"{lesson.id}: {texts[0]} ({len(result.exercises)} exercise(s))"


def _edited_starter(lesson, folder: Path) -> Path:
    """The starter with `pass` added to each exercise function: it behaves the same but no longer counts as
    untouched, so the checker runs it and a starter that already holds the answer shows up as a pass."""
    starter = lesson.release_notebook()
    try:
        notebook = json.loads(starter.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return starter  # the untouched check above reports it
    functions = {e.id: e.function for e in lesson.exercises}
    for cell in notebook["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell["cell_type"] == "code" and grade_id in functions:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = _add_pass(source, functions[grade_id])
    edited = folder / f"edited-{starter.name}"
    edited.write_text(json.dumps(notebook), encoding="utf-8")
    return edited


def _add_pass(source: str, function: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source  # the untouched check above reports it
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            body = node.body
            first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) else body[0]
            lines = source.splitlines(keepends=True)
            lines.insert(first.lineno - 1, " " * first.col_offset + "pass\n")
            return "".join(lines)
    return source


def _answers(checker, lesson, folder: Path, report: Report):
    path = answers_mod.answers_path(report.root, lesson.id)
    try:
        known = answers_mod.load_answers(path, lesson)
    except GradtutorError as exc:
        yield PROBLEM, f"{lesson.id}: {exc}"
        return
    wrong = 0
    for answer in known:
        code = folder / f"answer{answer.number}.py"
        code.write_text(answer.as_file(), encoding="utf-8")
        result = checker.check_file(lesson, code, [lesson.exercise(answer.exercise)]).exercises[0]
        problem = answers_mod.verdict_problem(answer, result.status, result.message, result.cause)
        if problem:
            wrong += 1
            yield PROBLEM, f"{report.path(path)}: {answer.label()}: {problem}"
    if not wrong:
        yield OK, f"{lesson.id}: all {len(known)} known answer(s) in {report.path(path)} get their verdict"
