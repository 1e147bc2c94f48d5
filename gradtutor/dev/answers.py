"""The known answers of a lesson (gradtutor/course/lessons/<id>/answers.toml): real mistakes and the verdict each must get.

Read by `gradtutor dev check` and by tests/dev/test_answers.py, so both hold the
answers to the same rules: the corpus schema every corpus shares (gradtutor.dev.corpus), with an
exercise and, where the values show it, a variant. An entry:

    [[answer]]
    exercise = "watch_constant"      # an exercise id of the lesson
    name = "no tape.watch"           # what the mistake is, for the report
    expect = "fail"                  # pass | fail | error | not_attempted | timeout
    cause = "unwatched"              # (for a wrong answer) the cause id its diagnosis must carry
    says = ['tape\\.watch']          # (optional) regular expressions its message must match: the words
                                     # the learner needs
    line = "with tf.GradientTape() as tape:"  # (optional) the learner's line the message must quote: where
                                     # the path broke, or where the code raised
    variant = "next_class"           # (optional) the reference's variant its values equal: the message
                                     # must say what was computed instead (variant.<exercise>.<id>)
    source = "https://…"             # (optional) the public question the mistake was seen in
    code = '''def grad_of_cube(x): ...'''

A wrong answer's message must also carry a sentence of the cause it names (`cause_sentences`).

The code is graded as a .py file that starts with STANDARD_IMPORTS.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from gradtutor.course.manifest import ANSWERS_FILE, lesson_folder
from gradtutor.dev import corpus
from gradtutor.errors import CourseError
from gradtutor.messages import catalogue, course_text, has, language, say
from gradtutor.protocol import Cause

STANDARD_IMPORTS = "import numpy as np\nimport tensorflow as tf\nimport keras\n\n"


@dataclasses.dataclass(frozen=True)
class Answer:
    lesson: str
    number: int  # its place in the file, from 1, so a report can point at it
    exercise: str
    name: str
    expect: str
    code: str
    cause: str = ""
    says: tuple[str, ...] = ()
    line: str = ""
    variant: str = ""
    source: str = ""

    def label(self) -> str:
        return f"{self.lesson} answer {self.number} ({self.exercise}: {self.name})"

    def as_file(self) -> str:
        """The text of the .py file the checker grades for this answer."""
        return STANDARD_IMPORTS + self.code


def answers_path(root: Path, lesson_id: str) -> Path:
    """A lesson's answers.toml, in its folder of the checkout at `root`."""
    return lesson_folder(lesson_id, Path(root) / "gradtutor" / "course" / "course.toml") / ANSWERS_FILE


def load_answers(path: Path, lesson) -> list[Answer]:
    """Every answer in one lesson's file, read by the corpus schema's reader (gradtutor.dev.corpus); CourseError
    (one line) when the file or an entry is wrong."""
    path = Path(path)
    if not path.is_file():
        raise CourseError(f"{path}: no such file — every lesson needs its known answers "
                          f"(`gradtutor dev new-lesson` writes a first one)")
    known = {e.id for e in lesson.exercises}
    answers = []
    for case in corpus.read_tables(path, "answer", outcomes=corpus.VERDICTS, required={"exercise", "name", "expect", "code"},
                                   context={"exercise", "variant"}):
        where, exercise, variant = f"{path}: answer {case.number}", case.context["exercise"], case.context.get("variant", "")
        if len(case.expect) != 1:
            raise CourseError(f"{where}: expect {list(case.expect)} — a known answer has one status")
        if exercise not in known:
            raise CourseError(f"{where}: exercise {exercise!r} is not in {lesson.id} — use one of: {', '.join(sorted(known))}")
        if variant and not has(f"variant.{exercise}.{variant}"):
            raise CourseError(f"{where}: variant {variant!r} has no text — add variant.{exercise}.{variant} "
                              "to gradtutor/messages/*/variant.toml")
        answers.append(Answer(lesson.id, case.number, exercise, case.name, case.expect[0], case.code, case.cause,
                              case.says, case.line, variant, case.source))
    return answers


def verdict_problem(answer: Answer, status: str, message: str, cause=None) -> str | None:
    """Why a graded answer did not get what its entry expects (its status, cause and words), or None when it did."""
    message = message or ""
    first_line = message.splitlines()[0] if message else ""
    if str(status) != answer.expect:
        return f"expected {answer.expect}, got {status!s}: {first_line}"
    if answer.cause and str(cause) != answer.cause:
        return f"expected the cause {answer.cause}, got {cause}: {first_line}"
    if answer.cause and not any(words in message for words in cause_sentences(answer.lesson, answer.exercise, answer.cause)):
        return f"its message has no sentence of {answer.cause}: {first_line}"
    if answer.variant and say(f"variant.{answer.exercise}.{answer.variant}") not in message:
        return f"its message does not say what was computed instead ({answer.variant}): {first_line}"
    return corpus.words_problem(message, answer.line, answer.says)


@functools.cache
def cause_sentences(lesson_id: str, exercise_id: str, cause: str) -> tuple[str, ...]:
    """The fixed words of every sentence that names `cause` for this exercise, in the current language (each
    template's longest piece between {parameters}): a message that names that cause carries one of them."""
    from gradtutor.checking.requirements import WITHIN_RULES
    from gradtutor.course import manifest as course
    from gradtutor.course.schema import REQUIREMENTS

    exercise = course.load().lesson(lesson_id).exercise(exercise_id)
    texts = [course_text(rule.key, rule.say) for rule in exercise.diagnoses if rule.cause == cause]
    messages = catalogue(language())
    texts += [text for key, text in messages.items() if key == f"cause.{cause}.checker"
              or key.startswith(f"variant.{exercise_id}.")
              or cause == "scale" and key.startswith(("diagnosis.scale", "diagnosis.row_scale"))
              or cause == "wrong-type" and key.startswith("diagnosis.type_advice.")
              or cause == "no-return" and key == "diagnosis.no_return"
              or cause == "variable-replaced" and key.startswith("diagnosis.replaced.")
              or cause == "dtype" and key == "diagnosis.dtype_seen"
              or cause == "outside-tape" and key == "diagnosis.accumulator_unentered"
              or any(named.value == cause and key == within for (named, _), within in WITHIN_RULES.items())
              or cause == "load-failed" and key == "diagnosis.load_failed"
              or cause == "hard-coded" and key == "check.right_on_another"
              or key.startswith("diagnosis.requires.") and REQUIREMENTS.get(key.rsplit(".", 1)[1].replace("_", "-")) == cause]
    if f"cause.{cause}.checker" not in messages:  # worded as wrong-function's (gradtutor.checking.diagnose.cause_text)
        texts.append(messages[f"cause.{Cause.WRONG_FUNCTION.value}.checker"])
    return tuple(max(re.split(r"\{[^}]*\}", text), key=len).strip() for text in texts)
