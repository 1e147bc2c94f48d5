"""One check, from a learner's file to one verdict per exercise.

file → cells (extract) → reference job, then one learner job per exercise
(runner/worker) → compare → diagnose. The terminal, the notebook API and
nbgrader all come through `Checker.check_cells`.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
from pathlib import Path

from gradtutor import compare as compare_mod
from gradtutor import course as course_mod
from gradtutor import diagnose, extract
from gradtutor.seeds import HIDDEN_SEEDS, VISIBLE_SEEDS, seeds_for
from gradtutor.runner import Worker


DEFAULT_TIMEOUT = 30.0  # seconds for one exercise, all seeds
REFERENCE_TIMEOUT = 300.0
STATUSES = ("pass", "fail", "not_attempted", "error", "timeout")


@dataclasses.dataclass
class ExerciseResult:
    """The verdict on one exercise: status (pass, fail, not_attempted, error, timeout), message and points."""

    id: str
    function: str
    status: str
    message: str
    points: int  # earned
    max_points: int
    reports: list = dataclasses.field(default_factory=list)  # ElementReports behind the verdict
    output: str = ""  # what the learner's code printed
    bad_input: bool = False  # the file itself is at fault (missing function, syntax error)
    hidden: bool = False  # failed on a hidden input: the message and reports hold none of its reference values

    def to_json(self) -> dict:
        return {"id": self.id, "function": self.function, "status": self.status,
                "message": self.message, "points": self.points, "max_points": self.max_points}


@dataclasses.dataclass
class LessonResult:
    """The verdicts on a lesson's checked exercises, and the exit code they mean for the CLI."""

    lesson: course_mod.Lesson
    source: str  # the file or place that was checked
    exercises: list[ExerciseResult]

    @property
    def passed(self) -> int:
        return sum(e.status == "pass" for e in self.exercises)

    @property
    def total(self) -> int:
        return len(self.exercises)

    @property
    def exit_code(self) -> int:
        if any(e.bad_input for e in self.exercises):
            return 2
        return 0 if self.passed == self.total else 1

    def to_json(self) -> dict:
        return {"lesson": self.lesson.id, "file": self.source,
                "exercises": [e.to_json() for e in self.exercises],
                "passed": self.passed, "total": self.total}


@dataclasses.dataclass
class Reference:
    """One exercise's reference answers: descriptions per seed (and tolerance), and the arrays they name."""

    results: dict
    arrays: dict

    def covers(self, seeds) -> bool:
        return all(str(seed) in self.results for seed in seeds)


class Checker:
    """Checks exercises; owns one warm worker, so keep it for several checks."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, memory_mb: int | None = 4096, worker: Worker | None = None):
        self.timeout = timeout
        self.worker = worker or Worker(memory_mb=memory_mb)
        self._reference_cache: dict[tuple, Reference] = {}
        self._reference_problem = ""
        self._prepared = None  # (lesson id, seeds, runner.Prepared): a learner child waiting for cells

    def prepare(self, lesson, seeds: str = "all") -> None:
        """Get a child ready for the next check of `lesson` (inputs built, TensorFlow warm).

        For `gradtutor watch` and notebooks: the next check then costs only the learner's
        code. Until it is used, this worker runs nothing else, so the references are
        computed first.
        """
        self._drop_prepared()
        seed_list = seeds_for(seeds)
        self._references(lesson, list(lesson.exercises), seed_list)
        job = {"kind": "learner", "lesson": lesson.id, "seeds": list(seed_list),
               "exercises": [{"id": e.id, "function": e.function} for e in lesson.exercises]}
        prepared = self.worker.prepare(job)
        if prepared is not None:
            self._prepared = (lesson.id, tuple(seed_list), prepared)

    def _drop_prepared(self) -> None:
        if self._prepared is not None:
            self.worker.cancel(self._prepared[2])
            self._prepared = None

    def close(self) -> None:
        self._drop_prepared()
        self.worker.close()

    def __enter__(self) -> "Checker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def check_file(self, lesson: course_mod.Lesson, path: Path, exercises=None, seeds: str = "all") -> LessonResult:
        """Raises extract.UnreadableFile for a file that cannot be read at all."""
        cells = extract.read_cells(Path(path))
        return self.check_cells(lesson, cells, exercises, seeds, str(path))

    def check_cells(self, lesson, cells, exercises=None, seeds: str = "all", source: str = "") -> LessonResult:
        chosen = list(exercises) if exercises else list(lesson.exercises)
        seed_list = seeds_for(seeds)
        results: dict[str, ExerciseResult] = {}
        to_run: list[tuple[course_mod.Exercise, extract.Definition]] = []
        internals = _uses_internals(cells)
        for exercise in chosen:
            verdict, definition = _static_verdict(lesson, exercise, cells, source, internals)
            if verdict:
                results[exercise.id] = verdict
            else:
                to_run.append((exercise, definition))
        if to_run:
            references = self._references(lesson, [e for e, _ in to_run], seed_list)
            ready = [(e, d) for e, d in to_run if references.get(e.id)]
            for exercise, _ in to_run:
                if not references.get(exercise.id):
                    results[exercise.id] = ExerciseResult(
                        exercise.id, exercise.function, "error",
                        f"the reference gradients for {lesson.id} could not be computed ({self._reference_problem}) "
                        "— this is a gradtutor bug: please report it", 0, exercise.points, bad_input=True)
            results.update(self._run_learners(lesson, ready, cells, seed_list, references))
        return LessonResult(lesson, source, [results[e.id] for e in chosen])

    def _references(self, lesson, exercises, seeds) -> dict[str, "Reference | None"]:
        """Reference answers, computed once per seed in a process that never sees learner code."""
        def cached(exercise_id):
            return self._reference_cache.get((lesson.id, exercise_id))

        missing = [e.id for e in exercises if not (cached(e.id) and cached(e.id).covers(seeds))]
        if missing:
            self._drop_prepared()  # the worker runs one job at a time
            outcome = self.worker.run({"kind": "reference", "lesson": lesson.id, "exercises": missing,
                                       "seeds": list(seeds)}, REFERENCE_TIMEOUT)
            for exercise_id, slot in zip(missing, outcome.slots):
                if slot is not None and slot[0].get("status") == "ok":
                    reference = self._reference_cache.setdefault((lesson.id, exercise_id), Reference({}, {}))
                    reference.results.update(slot[0]["results"])
                    reference.arrays.update(slot[1])
            if outcome.stopped_at is not None:
                self._reference_problem = "timed out" if outcome.timed_out else (outcome.problem or "failed")
        return {e.id: cached(e.id) if cached(e.id) and cached(e.id).covers(seeds) else None for e in exercises}

    def _run_learners(self, lesson, pending, cells, seeds, references) -> dict[str, ExerciseResult]:
        """All exercises in one child (cells loaded once); after a hang or crash, the rest in a new one."""
        results: dict[str, ExerciseResult] = {}
        cell_json = [c.to_json() for c in cells]
        while pending:
            exercises = [{"id": e.id, "function": e.function} for e, _ in pending]
            prepared, self._prepared = self._prepared, None
            if prepared and prepared[0] == lesson.id and set(seeds) <= set(prepared[1]):
                outcome = self.worker.finish(prepared[2], cell_json, exercises, list(seeds), self.timeout)
            else:
                if prepared:
                    self.worker.cancel(prepared[2])
                outcome = self.worker.run({"kind": "learner", "lesson": lesson.id, "cells": cell_json,
                                           "seeds": list(seeds), "exercises": exercises}, self.timeout)
            for (exercise, definition), slot in zip(pending, outcome.slots):
                if slot is None:
                    break
                results[exercise.id] = self._verdict(exercise, definition, seeds, references[exercise.id],
                                                     slot, outcome.output)
            stopped = outcome.stopped_at
            if stopped is None:
                break
            exercise = pending[stopped][0]
            results[exercise.id] = self._stopped(exercise, outcome)
            pending = pending[stopped + 1:]
        return results

    def _stopped(self, exercise, outcome) -> ExerciseResult:
        """The verdict for the exercise that was running when the child hung or died."""
        if outcome.timed_out:
            return ExerciseResult(exercise.id, exercise.function, "timeout",
                                  f"{exercise.function}() did not finish within {self.timeout:g} s — "
                                  "look for a loop that never ends", 0, exercise.points, output=outcome.output)
        return ExerciseResult(exercise.id, exercise.function, "error", f"{exercise.function}(): {outcome.problem}",
                              0, exercise.points, output=outcome.output)

    def _verdict(self, exercise, definition, seeds, reference, slot, printed) -> ExerciseResult:
        learner, arrays = slot
        source = definition.source
        result = functools.partial(ExerciseResult, exercise.id, exercise.function, max_points=exercise.points, points=0)
        status = learner.get("status")
        if status == "not_attempted":
            return result("not_attempted", _not_attempted(exercise), output=printed)
        if status == "missing":
            return result("error", f"{exercise.function} is not a function after running its cell — "
                                   "keep `def " + exercise.function + "(...)` at the top level of the cell",
                          output=printed, bad_input=True)
        if status == "error":
            error = learner.get("error") or {}
            if error.get("type") == "MemoryError":
                return result("error", f"{exercise.function}() ran out of memory (the checker's cap is "
                                       f"{self.worker.memory_mb} MiB) — look for a tensor far larger than the inputs",
                              output=printed)
            return result("error", diagnose.explain_error(exercise, error, source), output=printed)
        if status != "ok":
            return result("error", f"{exercise.function}(): the checker got an unexpected result", output=printed)
        return self._judge(exercise, source, reference, learner, arrays, seeds, result, printed)

    def _judge(self, exercise, source, reference, learner, arrays, seeds, result, printed) -> ExerciseResult:
        expected = reference.results
        tolerance = expected["tolerance"]
        got = learner.get("results")
        if not isinstance(got, dict):
            return result("error", f"{exercise.function}(): the checker got an unexpected result", output=printed)
        first_reports = None
        passed = set()  # the seeds already compared and matched
        for seed in seeds:
            value = got.get(str(seed))
            if not isinstance(value, dict):
                return result("error", f"{exercise.function}(): the checker got an unexpected result", output=printed)
            try:
                reports = compare_mod.compare(expected[str(seed)], reference.arrays, value, arrays,
                                              seed, tolerance["rtol"], tolerance["atol"])
            except (KeyError, TypeError, ValueError):
                return result("error", f"{exercise.function}(): its result could not be read back", output=printed)
            if not reports:  # a comparison always reports something; nothing means it was tampered with
                return result("error", f"{exercise.function}(): the comparison produced no report", output=printed)
            first_reports = first_reports or reports
            failed = next((r for r in reports if not r.passed), None)
            if failed and seed in HIDDEN_SEEDS:
                # Say what is wrong, never what is right: no reference values, shapes or comparison table.
                message = diagnose.explain_failure(exercise, failed, source, blind=True)
                visible = [s for s in VISIBLE_SEEDS if s in seeds]
                # visible seeds come first, so they have been compared already; any other order compares them now
                if visible and all(s in passed or _passes(expected, reference, got, arrays, s, tolerance)
                                   for s in visible):
                    message += " (right on the visible inputs, wrong on a hidden one: does it hard-code values or shapes?)"
                else:
                    message += " (wrong on an input you have not seen: does it hard-code values or shapes?)"
                return result("fail", message, output=printed, hidden=True)
            if failed:
                return result("fail", diagnose.explain_failure(exercise, failed, source), reports=reports, output=printed)
            passed.add(seed)
        return result("pass", f"{exercise.function}() matches the reference on {len(seeds)} inputs",
                      points=exercise.points, reports=first_reports or [], output=printed)


def _passes(expected, reference, got, arrays, seed, tolerance) -> bool:
    reports = compare_mod.compare(expected[str(seed)], reference.arrays, got[str(seed)], arrays,
                                  seed, tolerance["rtol"], tolerance["atol"])
    return all(r.passed for r in reports)


def _static_verdict(lesson, exercise, cells, source, internals):
    """A verdict that needs no run (missing, syntax error, starter unchanged), or None."""
    result = functools.partial(ExerciseResult, exercise.id, exercise.function, points=0, max_points=exercise.points)
    definition = extract.find_function(cells, exercise.function)
    where = Path(source).name if source else "your file"
    if definition.cell is None:
        return result("error", f"{exercise.function}() is not defined in {where} — did you rename it or delete its "
                               f"cell? The checker looks for `def {exercise.function}(`", bad_input=True), definition
    if definition.syntax_error:
        return result("error", f"{exercise.function}(): {definition.syntax_error} — fix the cell, then check again",
                      bad_input=True), definition
    if internals:
        return result("fail", f"{exercise.function}(): {internals} — exercise code may not use gradtutor's own "
                              "reference implementation; compute the gradient with GradientTape yourself"), definition
    if _unchanged(lesson, exercise, definition):
        return result("not_attempted", _not_attempted(exercise)), definition
    return None, definition


def _not_attempted(exercise) -> str:
    return (f"{exercise.function}() is not attempted yet: replace `raise NotImplementedError()` with your code "
            f"(stuck? `gradtutor hint`)")


def _unchanged(lesson, exercise, definition) -> bool:
    starter = _starter_fingerprints(lesson.id).get(exercise.function)
    return starter is not None and starter == extract.fingerprint(definition.node)


@functools.lru_cache(maxsize=None)
def _starter_fingerprints(lesson_id: str) -> dict[str, str]:
    lesson = course_mod.load().lesson(lesson_id)
    try:
        cells = extract.read_cells(lesson.release_notebook())
    except extract.UnreadableFile:
        return {}
    prints = {}
    for exercise in lesson.exercises:
        definition = extract.find_function(cells, exercise.function)
        if definition.node is not None:
            prints[exercise.function] = extract.fingerprint(definition.node)
    return prints


_ALLOWED = {"check", "prestart", "quiet", "__version__"}


def _uses_internals(cells) -> str | None:
    """Does learner code reach into gradtutor beyond `check` (its references, its worker)?"""
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gradtutor"):
                names = {a.name for a in node.names}
                if node.module not in ("gradtutor", "gradtutor.quiet") or not names <= _ALLOWED:
                    return f"{cell.label} imports from {node.module}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("gradtutor.") and alias.name != "gradtutor.quiet":
                        return f"{cell.label} imports {alias.name}"
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "gradtutor":
                if node.attr not in _ALLOWED:
                    return f"{cell.label} uses gradtutor.{node.attr}"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.search(r"gradtutor[./\\]+(references|worker)", node.value):
                    return f"{cell.label} names gradtutor's reference files"
    return None
