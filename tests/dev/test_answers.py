"""Does every answer in a lesson's answers.toml get the verdict a learner needs, the cause it really has, and the words?

Each lesson keeps, per exercise, correct answers written in unusual ways (they must
pass) and the mistakes people really make (they must fail, each with the cause id its
code really has). Every wrong answer's message is read again, not only its id:

* it carries a sentence of the cause it names (a rule of the exercise for that cause, the
  cause's own sentence, a named variant, a constant factor read as a count);
* `line = "…"`: it quotes that learner line (where the path broke, or where it raised);
* `variant = "…"`: it says what the code computed instead (the reference's variant of that id);
* `says = ["regex", …]`: each regular expression matches it.

One test per lesson (`-k lesson3` runs one), and a last one over the whole corpus that prints

    answers: C/C correct pass, W/W wrong fail, D/W diagnosed with the expected cause and words
    agree: A/B
    quoted: Q/L

(B: the wrong answers whose cause is a run-time one, gradtutor.dev.agreement.RUN_TIME, and whose
code asked for a gradient when it ran — a closed form with no tape gives explain nothing to look at; A: those on which the checker's cause is the cause of `gradtutor explain`'s
first finding on the same code; L: those of A on which explain found the learner's line where the
path broke; Q: those whose message quotes that line). It fails unless A = B and Q = L.
"""
from __future__ import annotations


import pytest

from gradtutor.course import manifest as course

pytestmark = pytest.mark.xdist_group("answers")  # one worker: the corpus test reads the lessons' results

LESSONS = [lesson.id for lesson in course.load().lessons if (lesson.folder / course.ANSWERS_FILE).is_file()]
MIN_CORRECT = 5
MIN_WRONG = 8
GRADED: dict = {}  # (lesson, number) -> result, filled by the lesson tests and read by the corpus test


def _answers(lesson_id: str | None = None) -> list:
    """The known answers (gradtutor.dev.answers reads them, for `gradtutor dev check` too)."""
    from gradtutor.dev.answers import load_answers

    return [answer for lesson in course.load().lessons if lesson_id in (None, lesson.id)
            for answer in load_answers(lesson.folder / course.ANSWERS_FILE, lesson)]


def _graded(grade, answer):
    key = (answer.lesson, answer.number)
    if key not in GRADED:
        GRADED[key] = grade(answer.lesson, answer.exercise, answer.code)
    return GRADED[key]


def _problem(answer, result) -> str | None:
    """What a graded answer lacks: its verdict (a correct one passes with every point), its cause, its words."""
    from gradtutor.dev.answers import verdict_problem

    if answer.expect == "pass":
        return None if result.status == "pass" and result.points == result.max_points else f"failed ({result.status})"
    if result.points:
        return "scored points"
    # a wrong answer's expected status is fail or error: either way it must carry its cause and words
    return verdict_problem(answer, answer.expect if result.status in ("fail", "error") else result.status,
                           result.message, result.cause)


@pytest.mark.tf
@pytest.mark.parametrize("lesson_id", LESSONS)
def test_every_answer_gets_its_verdict_cause_and_words(grade, lesson_id, capsys):
    problems = []
    for answer in _answers(lesson_id):
        problem = _problem(answer, _graded(grade, answer))
        if problem:
            problems.append(f"{answer.label()}: {problem}")
    with capsys.disabled():
        for problem in problems:
            print("\n  " + problem, end="")
    assert not problems, f"{len(problems)} answers of {lesson_id} do not get their verdict, cause and words"


@pytest.mark.tf
def test_checker_and_explain_agree_and_the_line_is_quoted(grade, capsys):
    from gradtutor.dev.agreement import RUN_TIME, explain_causes

    answers = _answers()
    results = [_graded(grade, answer) for answer in answers]
    correct = [(a, r) for a, r in zip(answers, results) if a.expect == "pass"]
    wrong = [(a, r) for a, r in zip(answers, results) if a.expect != "pass"]
    run_time = [(a, r) for a, r in wrong if a.cause in RUN_TIME and r.status != "pass"]
    explained = explain_causes([{"lesson": a.lesson, "exercise": a.exercise, "code": a.code} for a, _ in run_time])
    asked = [(a, r, found) for (a, r), found in zip(run_time, explained) if found["asked"]]  # no tape: nothing to explain
    agreed = [(a, r, found) for a, r, found in asked if str(r.cause) == found["cause"]]
    lines = [(a, r, found["code"]) for a, r, found in agreed if found["code"]]
    unquoted = [(a, code) for a, r, code in lines if code not in (r.message or "")]
    with capsys.disabled():
        print(f"\nanswers: {sum(not _problem(a, r) for a, r in correct)}/{len(correct)} correct pass, "
              f"{sum(r.status != 'pass' and not r.points for a, r in wrong)}/{len(wrong)} wrong fail, "
              f"{sum(not _problem(a, r) for a, r in wrong)}/{len(wrong)} diagnosed with the expected cause and words")
        print(f"agree: {len(agreed)}/{len(asked)}")
        for a, r, found in asked:
            if str(r.cause) != found["cause"]:
                print(f"  {a.label()}: the checker says {r.cause}, explain {found['cause'] or 'nothing'}")
        print(f"quoted: {len(lines) - len(unquoted)}/{len(lines)}")
        for a, code in unquoted:
            print(f"  {a.label()}: the message does not quote {code!r}")
    assert asked and len(agreed) == len(asked), f"agree: {len(agreed)}/{len(asked)}"
    assert lines and not unquoted, f"quoted: {len(lines) - len(unquoted)}/{len(lines)}"


# Sentences that name no cause (the fallbacks the checker no longer has) and TensorFlow's op-wrapper prefix:
# where the evidence names no cause, a message says what was observed and that the cause is not known.
NO_CAUSE = ("belongs to a different function", "read the exception and the line above", "print the shapes of its inputs",
            "{{function_node", "is connected but", "are connected but", "check the function you differentiate",
            "the gradient of another function", "belongs to a different loss", "belong to another loss")
# A fix that contradicts the exercise's own rules: an exercise that requires NumPy inside is never told to keep
# every step in TensorFlow.
CONTRADICTS = {"numpy": ("keep every step a TensorFlow",)}


@pytest.mark.tf
def test_no_message_in_the_corpus_names_no_cause(grade):
    answers = _answers()
    found = [f"{a.label()}: {words!r} in {r.message.splitlines()[0][:200]}"
             for a, r in ((a, _graded(grade, a)) for a in answers) for words in NO_CAUSE if words in (r.message or "")]
    assert len(GRADED) >= len(answers) and not found, "\n".join(found)


@pytest.mark.tf
def test_no_message_contradicts_its_exercises_rules(grade):
    answers = _answers()
    lessons = course.load()
    found = [f"{a.label()}: {words!r} where the exercise requires {need}"
             for a in answers for need in lessons.lesson(a.lesson).exercise(a.exercise).requires
             for words in CONTRADICTS.get(need, ()) if words.lower() in (_graded(grade, a).message or "").lower()]
    assert any(CONTRADICTS.get(need) for lesson in lessons.lessons for exercise in lesson.exercises
               for need in exercise.requires), "no exercise has a rule this test reads"
    assert not found, "\n".join(found)


@pytest.mark.unit
def test_every_exercise_has_unusual_correct_answers_and_realistic_wrong_ones():
    from gradtutor.protocol import Cause

    answers = _answers()  # the loader refuses an unknown key, a line not in the code, a variant with no text
    for lesson in course.load().lessons:
        for exercise in lesson.exercises:
            mine = [a for a in answers if a.lesson == lesson.id and a.exercise == exercise.id]
            right = [a for a in mine if a.expect == "pass"]
            wrong = [a for a in mine if a.expect != "pass"]
            assert len(right) >= MIN_CORRECT, f"{lesson.id} {exercise.id}: only {len(right)} correct answers"
            assert len(wrong) >= MIN_WRONG, f"{lesson.id} {exercise.id}: only {len(wrong)} wrong answers"
            for answer in wrong:
                assert answer.expect in ("fail", "error"), answer.label()
                assert Cause(answer.cause), answer.label()  # a known cause id
