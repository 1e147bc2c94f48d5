"""The course manifest (course.toml), read once, and where the notebooks live."""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from gradtutor import payloads, protocol
from gradtutor.course import schema as course_schema
from gradtutor.errors import CourseError, UnknownLesson  # noqa: F401 - raised here, caught by their base class
from gradtutor.messages import join, say, toml_files

COURSE_DIR = Path(__file__).resolve().parent  # gradtutor/course/: the manifest and the reference modules
PACKAGE_DIR = COURSE_DIR.parent  # gradtutor/
MANIFEST = COURSE_DIR / "course.toml"
REFERENCES_DIR = COURSE_DIR / "references"


@dataclasses.dataclass(frozen=True)
class Diagnosis:
    """A rule that turns a failed comparison into a cause and a fix (course.toml `diagnoses`)."""

    when: str
    say: str
    element: int | None = None
    source_has: str | None = None
    source_lacks: str | None = None
    error_has: str | None = None
    cause: str | None = None  # the cause id the wording claims; the rule fires only when the evidence names it
    fact: str | None = None  # (optional) a run-time fact that must hold too (gradtutor.payloads.RunFacts)
    id: str = ""  # the rule's own name within its exercise: stable when rules are inserted or moved
    key: str = ""  # lesson.exercise.diagnosis.<id>: its translations' key


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One graded function of a lesson: its id (the nbgrader grade_id), function name, points and hints."""

    id: str
    function: str
    points: int
    hints: tuple[str, ...]
    diagnoses: tuple[Diagnosis, ...]
    requires: tuple[str, ...] = ()  # how the text says to compute it (course_schema.REQUIREMENTS), checked from facts


@dataclasses.dataclass(frozen=True)
class Lesson:
    """A lesson in course order, with its notebook name and exercises."""

    id: str
    number: int
    slug: str
    title: str
    notebook: str
    summary: str
    exercises: tuple[Exercise, ...]

    @property
    def points(self) -> int:
        return sum(e.points for e in self.exercises)

    def exercise(self, ref: str) -> Exercise:
        """An exercise by id, function name or number (1-based)."""
        ref = str(ref).strip()
        for number, exercise in enumerate(self.exercises, start=1):
            if ref in (exercise.id, exercise.function, str(number)):
                return exercise
        names = join(e.id for e in self.exercises)
        raise UnknownLesson(say("lessons.no_exercise", lesson=self.id, ref=repr(ref), names=names))

    def release_notebook(self, lang: str = "en") -> Path:
        """The learner's copy in a language ("en", "zh_CN"): lessonN.ipynb, or lessonN.zh_CN.ipynb beside it."""
        return course_dir("lessons") / self.id / self.notebook_name(lang)

    def source_notebook(self, lang: str = "en") -> Path:
        return course_dir("solutions") / self.id / self.notebook_name(lang)

    def notebook_name(self, lang: str = "en") -> str:
        """The file name of this lesson's notebook in a language: the English one's, with the language before .ipynb."""
        if lang == "en":
            return self.notebook
        stem, _, suffix = self.notebook.rpartition(".")
        return f"{stem}.{lang}.{suffix}"


@dataclasses.dataclass(frozen=True)
class Course:
    """The whole course as course.toml describes it."""

    title: str
    summary: str
    lessons: tuple[Lesson, ...]
    manifest: Path = MANIFEST  # the file it was read from, named in every CourseError about it

    def lesson(self, ref: str) -> Lesson:
        """A lesson by id (`lesson3`), number (`3`) or slug (`softmax`)."""
        key = str(ref).strip().lower()
        for lesson in self.lessons:
            if key in (lesson.id, str(lesson.number), lesson.slug):
                return lesson
        names = join(f"{l.id} ({l.slug})" for l in self.lessons)
        raise UnknownLesson(say("lessons.no_lesson", ref=repr(ref), names=names))


@functools.lru_cache(maxsize=1)
def load() -> Course:
    """The course manifest, read and validated once per process."""
    return load_manifest(MANIFEST)


def load_manifest(path: Path) -> Course:
    """A course from the manifest at `path`; CourseError (one line) when it is not valid.

    The notebooks' points are not compared here (see course_schema.check_points): this
    runs in every process, including sandboxed kernels that may not read solutions/.
    """
    path = Path(path)
    # validated once per change of the manifest or of the vocabulary it is validated against
    vocabulary = (course_schema.__file__, payloads.__file__, protocol.__file__)
    try:
        data = toml_files.load(path, lambda parsed: course_schema.validate(parsed, path), vocabulary)
    except FileNotFoundError:
        raise CourseError(say("lessons.manifest.missing", path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseError(say("lessons.manifest.unreadable", path=path, error=exc.__class__.__name__)) from None
    except toml_files.NotToml as exc:
        raise CourseError(say("lessons.manifest.not_toml", path=path, error=exc)) from None
    lessons = tuple(_lesson(entry) for entry in data["lessons"])
    return Course(data["course"]["title"], data["course"].get("summary", ""), lessons, path)


def _lesson(entry: dict) -> Lesson:
    exercises = tuple(
        Exercise(
            id=e["id"],
            function=e["function"],
            points=e["points"],
            hints=tuple(e.get("hints", ())),
            diagnoses=tuple(Diagnosis(**d, key=f"{entry['id']}.{e['id']}.diagnosis.{d['id']}")
                            for d in e.get("diagnoses", ())),
            requires=tuple(e.get("requires", ())),
        )
        for e in entry["exercises"]
    )
    return Lesson(
        id=entry["id"],
        number=entry["number"],
        slug=entry["slug"],
        title=entry["title"],
        notebook=entry["notebook"],
        summary=entry.get("summary", ""),
        exercises=exercises,
    )


def course_texts(course: Course) -> list[tuple[str, str]]:
    """Every text of the manifest a learner reads, as (key, English): what zh_CN/course.toml translates.

    The key says where the text sits: `course.title`, `lesson3.summary`, `lesson3.class_gradient.hint.2`,
    `lesson3.class_gradient.diagnosis.softmax-sum` (by the rule's id: inserting a rule changes no other key).
    """
    texts = [("course.title", course.title), ("course.summary", course.summary)]
    for lesson in course.lessons:
        texts += [(f"{lesson.id}.title", lesson.title), (f"{lesson.id}.summary", lesson.summary)]
        for exercise in lesson.exercises:
            texts += [(f"{lesson.id}.{exercise.id}.hint.{n}", hint) for n, hint in enumerate(exercise.hints, 1)]
            texts += [(rule.key, rule.say) for rule in exercise.diagnoses]
    return [(key, text) for key, text in texts if text]


def course_dir(kind: str) -> Path:
    """`lessons` or `solutions`: in a checkout, the repo's folders; installed, the copies in the wheel."""
    checkout = PACKAGE_DIR.parent / kind
    if checkout.is_dir():
        return checkout
    return PACKAGE_DIR / "_course" / kind
