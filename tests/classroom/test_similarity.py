"""Does the similarity flag mean something: shared unusual answers and shared mistakes named, the shipped
solution and the class's common forms only counted?

The class is drawn from the lesson's known answers (gradtutor/course/lessons/<id>/answers.toml: mistakes
seen in public questions, each with its source, and correct variants), each student typing theirs with
their own argument names, docstring, comments and spacing, as students do.
"""
from __future__ import annotations

import ast
import random
import re

import nbformat
import pytest

from gradtutor.classroom.grading.similarity import COMMON_AT_LEAST, SimilarityFlag, compare, normalised
from gradtutor.classroom.report.class_report import ClassReport, flag_rows, summary_lines
from gradtutor.course import manifest as course
from gradtutor.course import conventions
from tests.support.classroom import answers_of, solution_code

pytestmark = pytest.mark.unit

WRONG = ("fail", "error")


def typed_by(student: str, code: str) -> str:
    """`code` as `student` types it: their own argument names, docstring, comments and blank lines."""
    definition = [node for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)][-1]
    one_line = {node.lineno for node in ast.walk(definition) if isinstance(node, ast.stmt)
                and node.lineno == node.end_lineno and node is not definition}
    lines = [line + "  # my step" if number in one_line else line
             for number, line in enumerate(code.splitlines(), start=1)]
    first = definition.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        del lines[first.lineno - 1:first.end_lineno]  # their docstring, for ours
    lines[first.lineno - 1:first.lineno - 1] = [f'    """{student}\'s own work."""', ""]
    code = "\n".join(lines) + "\n"
    for number, name in enumerate(a.arg for a in definition.args.args):
        def rename(match, name=name, new=f"{name}_{student}{number}"):
            keyword = match.string[:match.start()].rstrip().endswith(("(", ",")) and \
                re.match(r"\s*=(?!=)", match.string[match.end():])  # `training=x`: the callee's name, not theirs
            return name if keyword else new
        code = re.sub(rf"(?<![.\w\"']){name}\b", rename, code)
    return code


def drawn_exercise(rng: random.Random):
    """A lesson's exercise with a known mistake and two known correct variants besides the solution."""
    choices = []
    for lesson in course.load().lessons:
        answers = answers_of(lesson.id) if lesson.exercises else []
        for exercise in lesson.exercises:
            mine = [a for a in answers if a["exercise"] == exercise.id and a["code"].lstrip().startswith("def ")]
            wrong = [a for a in mine if a["expect"] in WRONG and a.get("cause")]
            right = [a for a in mine if a["expect"] == "pass"]
            if wrong and len(right) >= 2:
                choices.append((lesson, exercise, wrong, right))
    return rng.choice(choices)


def test_a_class_with_shared_mistakes_and_solution_copies_gets_the_flags_it_should():
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    lesson, exercise, wrong, right = drawn_exercise(rng)
    solution = solution_code(lesson, exercise)
    mistake, unusual, common_form = rng.choice(wrong), right[0]["code"], right[1]["code"]
    plan = ([("copier", solution)] * rng.randint(3, 9) + [("confused", mistake["code"])] * rng.randint(2, 5)
            + [("pair", unusual)] * 2 + [("usual", common_form)] * rng.randint(COMMON_AT_LEAST, COMMON_AT_LEAST + 3))
    others = [a for a in wrong if normalised(a["code"], exercise.function) != normalised(mistake["code"],
                                                                                           exercise.function)]
    if others:
        plan.append(("alone", rng.choice(others)["code"]))  # a mistake nobody shares: no flag
    class_ = {f"{who}{number:02d}": (who, code) for number, (who, code) in enumerate(plan)}
    source_cell = conventions.cells_by_grade_id(nbformat.read(lesson.source_notebook(), as_version=4))[exercise.id]
    starter = conventions.release_source(source_cell)  # what nbgrader releases: the solution cut out
    class_.update({f"untouched{n}": ("untouched", starter) for n in range(2)})
    answers = {student: normalised(typed_by(student, code), exercise.function) for student, (_, code) in class_.items()}
    wrong_ones = {s: mistake["cause"] for s, (who, _) in class_.items() if who == "confused"}
    wrong_ones.update({s: "other" for s, (who, _) in class_.items() if who == "alone"})

    found = compare(exercise.id, answers, normalised(solution, exercise.function),
                    normalised(starter, exercise.function), wrong_ones)

    def named(who: str) -> tuple[str, ...]:
        return tuple(sorted(s for s, (w, _) in class_.items() if w == who))

    context = f"seed {seed}: {lesson.id} {exercise.id}, mistake {mistake['name']!r}"
    assert found.solution == len(named("copier")), context
    assert found.common == len(named("usual")), context
    assert found.flags == (SimilarityFlag(exercise.id, named("pair")),
                           SimilarityFlag(exercise.id, named("confused"), mistake=True, diagnosis=mistake["cause"])), context

    lines = "\n".join(summary_lines(ClassReport(lesson.id, (exercise.id,), (), (found,))))
    rows = flag_rows(ClassReport(lesson.id, (exercise.id,), (), (found,)))
    assert "copier" not in lines + str(rows) and "usual" not in lines + str(rows)  # counted, never named
    assert f"{exercise.id} {len(named('copier'))}" in lines and mistake["cause"] in lines
    assert [row[1] for row in rows[1:]] == ["each other", "a wrong answer of each other", "the shipped solution",
                                            "a form common in the class"]


def test_in_a_big_class_a_shared_form_is_common_and_in_a_small_one_it_is_a_flag():
    answers = {f"s{n}": "A" for n in range(COMMON_AT_LEAST)} | {f"t{n}": "SOL" for n in range(30)}
    assert compare("ex", answers, "SOL", None, {}).common == COMMON_AT_LEAST  # 5 of 35: common enough
    bigger = answers | {f"u{n}": f"own{n}" for n in range(40)}  # 5 of 75 is under a tenth: worth a look
    assert compare("ex", bigger, "SOL", None, {}).flags == (SimilarityFlag("ex", tuple(f"s{n}" for n in range(5))),)
    assert compare("ex", {"amy": "X", "bob": "X"}, "SOL", None, {"amy": "shape"}).flags == (
        SimilarityFlag("ex", ("amy", "bob")),)  # not wrong for both (a timeout for one): a shared answer to look at
