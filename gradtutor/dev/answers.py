"""The known answers of a lesson (tests/answers/<id>.toml): real mistakes and the verdict each must get.

Read by `gradtutor dev check` and by tests/test_answers.py, so both hold the
answers to the same rules. An entry:

    [[answer]]
    exercise = "watch_constant"      # an exercise id of the lesson
    name = "no tape.watch"           # what the mistake is, for the report
    expect = "fail"                  # pass | fail | error | not_attempted | timeout
    cause = "unwatched"              # (for a wrong answer) the cause id its diagnosis must carry
    says = ['tape\\.watch']          # (optional) regular expressions its message must match: the words
                                     # the learner needs (the computed-instead, the quoted line, …)
    code = '''def grad_of_cube(x): ...'''

The code is graded as a .py file that starts with STANDARD_IMPORTS.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from gradtutor.course import tomllib  # the standard library's, or tomli before Python 3.11
from gradtutor.errors import CourseError
from gradtutor.protocol import Status

STANDARD_IMPORTS = "import numpy as np\nimport tensorflow as tf\nimport keras\n\n"
EXPECTS = tuple(s.value for s in Status)
KEYS = {"exercise", "name", "expect", "cause", "code", "says"}


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
        answers.append(Answer(lesson.id, number, entry["exercise"], entry["name"], entry["expect"],
                              entry["code"], entry.get("cause", ""), tuple(says)))
    return answers


def verdict_problem(answer: Answer, status: str, message: str, cause=None) -> str | None:
    """Why a graded answer did not get what its entry expects, or None when it did."""
    first_line = (message or "").splitlines()[0] if message else ""
    if str(status) != answer.expect:
        return f"expected {answer.expect}, got {status!s}: {first_line}"
    if answer.cause and str(cause) != answer.cause:
        return f"expected the cause {answer.cause}, got {cause}: {first_line}"
    unsaid = [p for p in answer.says if not re.search(p, message or "")]
    if unsaid:
        return f"its message does not say {unsaid[0]!r}: {first_line}"
    return None


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True
