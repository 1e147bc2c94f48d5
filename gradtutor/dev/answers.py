"""The known answers of a lesson (tests/answers/<id>.toml): real mistakes and the verdict each must get.

Read by `gradtutor dev check` and by tests/test_answers.py, so both hold the
answers to the same rules. An entry:

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

from gradtutor.errors import CourseError
from gradtutor.messages import catalogue, course_text, has, language, say
from gradtutor.protocol import Cause, Status

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

STANDARD_IMPORTS = "import numpy as np\nimport tensorflow as tf\nimport keras\n\n"
EXPECTS = tuple(s.value for s in Status)
KEYS = {"exercise", "name", "expect", "cause", "code", "says", "line", "variant", "source"}


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


def answers_dir(root: Path) -> Path:
    return Path(root) / "tests" / "answers"


def answers_path(root: Path, lesson_id: str) -> Path:
    return answers_dir(root) / f"{lesson_id}.toml"


def load_answers(path: Path, lesson) -> list[Answer]:
    """Every answer in one lesson's file; CourseError (one line) when the file or an entry is wrong."""
    path = Path(path)
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("answer", [])
    except FileNotFoundError:
        raise CourseError(f"{path}: no such file — every lesson needs its known answers "
                          f"(`gradtutor dev new-lesson` writes a first one)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CourseError(f"{path}: cannot be read ({exc}) — fix the file") from None
    known = {e.id for e in lesson.exercises}
    answers = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: answer {number}"
        if set(entry) - KEYS or not {"exercise", "name", "expect", "code"} <= set(entry):
            raise CourseError(f"{where}: has keys {sorted(entry)} — give it exactly {sorted(KEYS)} "
                              "(cause is left out for an answer that must pass)")
        if entry["exercise"] not in known:
            raise CourseError(f"{where}: exercise {entry['exercise']!r} is not in {lesson.id} — "
                              f"use one of: {', '.join(sorted(known))}")
        if entry["expect"] not in EXPECTS:
            raise CourseError(f"{where}: expect {entry['expect']!r} is not a status — use one of: {', '.join(EXPECTS)}")
        says = entry.get("says", [])
        if not isinstance(says, list) or not all(isinstance(p, str) and _compiles(p) for p in says):
            raise CourseError(f"{where}: says must be a list of regular expressions, each in '…' — fix it")
        if entry.get("line") and entry["line"] not in entry["code"]:
            raise CourseError(f"{where}: line {entry['line']!r} is not in its code — copy the line from the code")
        if entry.get("variant") and not has(f"variant.{entry['exercise']}.{entry['variant']}"):
            raise CourseError(f"{where}: variant {entry['variant']!r} has no text — add variant.{entry['exercise']}."
                              f"{entry['variant']} to gradtutor/messages/*/variant.toml")
        answers.append(Answer(lesson.id, number, entry["exercise"], entry["name"], entry["expect"],
                              entry["code"], entry.get("cause", ""), tuple(says), entry.get("line", ""),
                              entry.get("variant", ""), entry.get("source", "")))
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
    if answer.line and answer.line not in message:
        return f"its message does not quote {answer.line!r}: {first_line}"
    if answer.variant and say(f"variant.{answer.exercise}.{answer.variant}") not in message:
        return f"its message does not say what was computed instead ({answer.variant}): {first_line}"
    unsaid = [p for p in answer.says if not re.search(p, message)]
    if unsaid:
        return f"its message does not say {unsaid[0]!r}: {first_line}"
    return None


@functools.cache
def cause_sentences(lesson_id: str, exercise_id: str, cause: str) -> tuple[str, ...]:
    """The fixed words of every sentence that names `cause` for this exercise, in the current language (each
    template's longest piece between {parameters}): a message that names that cause carries one of them."""
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
              or cause == "load-failed" and key == "diagnosis.load_failed"
              or cause == "hard-coded" and key == "check.right_on_another"
              or key.startswith("diagnosis.requires.") and REQUIREMENTS.get(key.rsplit(".", 1)[1].replace("_", "-")) == cause]
    if f"cause.{cause}.checker" not in messages:  # worded as wrong-function's (gradtutor.checking.diagnose.cause_text)
        texts.append(messages[f"cause.{Cause.WRONG_FUNCTION.value}.checker"])
    return tuple(max(re.split(r"\{[^}]*\}", text), key=len).strip() for text in texts)


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True
