"""The course manifest, read once, and where the notebooks live.

course.toml holds the course's own fields and the order of its lessons; each lesson is a
folder gradtutor/course/lessons/<id>/ whose lesson.toml is its entry (docs/authoring.md).
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from gradtutor import payloads, protocol
from gradtutor.course import schema as course_schema
from gradtutor.errors import CourseError, UnknownLesson  # noqa: F401 - raised here, caught by their base class
from gradtutor.messages import join, say, toml_files

COURSE_DIR = Path(__file__).resolve().parent  # gradtutor/course/: the manifest and the lessons' folders
PACKAGE_DIR = COURSE_DIR.parent  # gradtutor/
MANIFEST = COURSE_DIR / "course.toml"
LESSONS_DIR = COURSE_DIR / "lessons"
LESSON_FILE = "lesson.toml"  # a lesson's manifest entry, in its folder
REFERENCE_FILE = "reference.py"  # its seeded inputs and reference answers (gradtutor.course.references loads it)
ANSWERS_FILE = "answers.toml"  # its known answers (gradtutor.dev.answers)


def lesson_folder(lesson_id: str, manifest: Path = MANIFEST) -> Path:
    """The folder of a lesson of the course whose course.toml is `manifest`."""
    return Path(manifest).parent / "lessons" / lesson_id


@dataclasses.dataclass(frozen=True)
class Diagnosis:
    """A rule that turns a failed comparison into a cause and a fix (lesson.toml `diagnoses`)."""

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
    hint_keys: tuple[str, ...] = ()  # lesson.exercise.hint.<hint id>, one per hint: their translations' keys


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
    folder: Path | None = None  # gradtutor/course/lessons/<id>/: its lesson.toml, reference and answers

    @property
    def manifest(self) -> Path:
        """Its lesson.toml, named in every CourseError about its entry."""
        return (self.folder or lesson_folder(self.id)) / LESSON_FILE

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
    """A course from the course.toml at `path` and its lessons' lesson.toml; CourseError (one line) when
    one is not valid.

    The notebooks' points are not compared here (see course_schema.check_points): this
    runs in every process, including sandboxed kernels that may not read solutions/.
    """
    path = Path(path)
    # each file validated once per change of it or of the vocabulary it is validated against (toml_files)
    vocabulary = (course_schema.__file__, payloads.__file__, protocol.__file__)
    data = _read(path, lambda parsed: course_schema.validate(parsed, path), vocabulary)
    entries = {}
    for lesson_id in data["lessons"]:
        lesson_path = lesson_folder(lesson_id, path) / LESSON_FILE
        if not lesson_path.is_file():
            raise course_schema.no_lesson_file(path, lesson_id, lesson_path)
        entries[lesson_id] = _read(lesson_path, lambda parsed, at=lesson_path, lesson=lesson_id:
                                   course_schema.validate_lesson(parsed, at, lesson), vocabulary)
    course_schema.validate_lessons(entries, path)
    lessons = tuple(_lesson(lesson_id, number, entries[lesson_id], lesson_folder(lesson_id, path))
                    for number, lesson_id in enumerate(data["lessons"], start=1))
    return Course(data["course"]["title"], data["course"].get("summary", ""), lessons, path)


def _read(path: Path, check, depends: tuple) -> dict:
    try:
        return toml_files.load(path, check, depends)
    except FileNotFoundError:
        raise CourseError(say("lessons.manifest.missing", path=path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseError(say("lessons.manifest.unreadable", path=path, error=exc.__class__.__name__)) from None
    except toml_files.NotToml as exc:
        raise CourseError(say("lessons.manifest.not_toml", path=path, error=exc)) from None


def _lesson(lesson_id: str, number: int, entry: dict, folder: Path) -> Lesson:
    exercises = tuple(
        Exercise(
            id=e["id"],
            function=e["function"],
            points=e["points"],
            hints=tuple(h["say"] for h in e.get("hints", ())),
            diagnoses=tuple(Diagnosis(**d, key=f"{lesson_id}.{e['id']}.diagnosis.{d['id']}")
                            for d in e.get("diagnoses", ())),
            requires=tuple(e.get("requires", ())),
            hint_keys=tuple(f"{lesson_id}.{e['id']}.hint.{h['id']}" for h in e.get("hints", ())),
        )
        for e in entry["exercises"]
    )
    return Lesson(
        id=lesson_id,
        number=number,
        slug=entry["slug"],
        title=entry["title"],
        notebook=entry["notebook"],
        summary=entry.get("summary", ""),
        exercises=exercises,
        folder=folder,
    )


def course_texts(course: Course) -> list[tuple[str, str]]:
    """Every text of the manifest a learner reads, as (key, English): what the translations translate
    (zh_CN/course.toml the course's, each lesson folder's zh_CN.toml its own).

    The key names the text by ids only: `course.title`, `lesson3.summary`, `lesson3.class_gradient.hint.nudge`,
    `lesson3.class_gradient.diagnosis.softmax-sum`: inserting a hint or a rule changes no other key.
    """
    texts = [("course.title", course.title), ("course.summary", course.summary)]
    for lesson in course.lessons:
        texts += [(f"{lesson.id}.title", lesson.title), (f"{lesson.id}.summary", lesson.summary)]
        for exercise in lesson.exercises:
            texts += list(zip(exercise.hint_keys, exercise.hints))
            texts += [(rule.key, rule.say) for rule in exercise.diagnoses]
    return [(key, text) for key, text in texts if text]


def course_dir(kind: str) -> Path:
    """`lessons` or `solutions`: in a checkout, the repo's folders; installed, the copies in the wheel."""
    checkout = PACKAGE_DIR.parent / kind
    if checkout.is_dir():
        return checkout
    return PACKAGE_DIR / "_course" / kind
