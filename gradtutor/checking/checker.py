"""One check, from a learner's cells to one verdict per exercise: orchestration only.

cells → precheck (no run needed?) → references (a job that never sees learner
code, cached per exercise and seed) → one learner job for the exercises left
(after a hang or crash, the rest in a fresh child) → verdict (pure). The terminal,
the notebook API and nbgrader all come through `Checker.check_cells`.
"""
from __future__ import annotations

from pathlib import Path

from gradtutor.course import manifest as course_mod
from gradtutor.checking import diagnose
from gradtutor.course import extract
from gradtutor.checking import precheck
from gradtutor.checking import verdict
from gradtutor.defaults import EXERCISE_TIMEOUT, MEMORY_MB, REFERENCE_TIMEOUT
from gradtutor.isolation.client import Worker
from gradtutor.errors import NoHiddenInputs
from gradtutor.course.seeds import HiddenInputs
from gradtutor.checking.verdict import ExerciseResult, LessonResult, Reference


class Checker:
    """Checks exercises; owns one warm worker, so keep it for several checks.

    prepare_next: after each check, leave a child waiting with the lesson's inputs built
    and TensorFlow warm, so the next check costs only the learner's code (watch, notebooks).
    A batch grader says False: there the next check comes at once, and building inputs
    nobody waits for only takes CPU from the kernels. It never changes a verdict.

    hidden: the hidden inputs it may run — a course's, derived from its secret, for the grader's
    side only (the secret stays in this process; the worker's children get seeds). Without it:
    none (HiddenInputs.default), and "all" means the visible inputs. hide: files the learner code
    it runs may not read (the course's nbgrader_config.py, where the secret lives).
    """

    def __init__(self, timeout: float = EXERCISE_TIMEOUT, memory_mb: int | None = MEMORY_MB,
                 worker: Worker | None = None, prepare_next: bool = False, hidden: HiddenInputs | None = None,
                 hide: list[str] | None = None):
        self.timeout = timeout
        self.hidden = hidden or HiddenInputs.default()
        self.worker = worker or Worker(memory_mb=memory_mb, hide=hide)
        self.prepare_next = prepare_next
        self._reference_cache: dict[tuple, Reference] = {}
        self._reference_problem = ""

    def close(self) -> None:
        self.worker.close()

    def __enter__(self) -> "Checker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def prepare(self, lesson, seeds: str = "all") -> None:
        """Get a child ready for the next check of `lesson` (when this checker prepares at all).

        The references are computed first: until the prepared child is used, the worker runs nothing else.
        """
        if not self.prepare_next:
            return
        seed_list = self.seeds(lesson, seeds)
        self._references(lesson, list(lesson.exercises), seed_list)
        self.worker.prepare_learner(lesson.id, seed_list, [_ref(e) for e in lesson.exercises])

    def check_file(self, lesson: course_mod.Lesson, path: Path, exercises=None, seeds: str = "all") -> LessonResult:
        """Raises errors.UnreadableFile for a file that cannot be read at all."""
        cells = extract.read_cells(Path(path))
        return self.check_cells(lesson, cells, exercises, seeds, str(path))

    def check_cells(self, lesson, cells, exercises=None, seeds: str = "all", source: str = "",
                    then_prepare: bool = True) -> LessonResult:
        """then_prepare=False: the caller calls prepare(lesson) itself once its reply is out (a service's
        host), so nobody waits for the next child to be forked."""
        chosen = list(exercises) if exercises else list(lesson.exercises)
        seed_list = self.seeds(lesson, seeds)
        results: dict[str, ExerciseResult] = {}
        to_run: list[tuple[course_mod.Exercise, extract.Definition]] = []
        internals = precheck.uses_internals(cells)
        for exercise in chosen:
            found, definition = precheck.static_verdict(lesson, exercise, cells, source, internals)
            if found:
                results[exercise.id] = found
            else:
                to_run.append((exercise, definition))
        if to_run:
            references = self._references(lesson, [e for e, _ in to_run], seed_list)
            ready = [(e, d) for e, d in to_run if references.get(e.id)]
            for exercise, _ in to_run:
                if not references.get(exercise.id):
                    results[exercise.id] = verdict.reference_missing(exercise, lesson.id, self._reference_problem)
            results.update(self._run_learners(lesson, ready, cells, seed_list, references))
        if then_prepare:
            self.prepare(lesson)
        return LessonResult(lesson, source, [results[e.id] for e in chosen], self.hidden.visible_only(seeds))

    def seeds(self, lesson, which: str) -> tuple[int, ...]:
        """The seeds a check asked for `which` runs; NoHiddenInputs for 'hidden' where there are none."""
        if which == "hidden" and not self.hidden.available:
            raise NoHiddenInputs(diagnose.no_hidden_inputs())
        return self.hidden.seeds_for(which, lesson.id)

    def _references(self, lesson, exercises, seeds) -> dict[str, Reference | None]:
        """Reference answers, computed once per seed in a process that never sees learner code."""
        def cached(exercise_id):
            return self._reference_cache.get((lesson.id, exercise_id))

        missing = [e.id for e in exercises if not (cached(e.id) and cached(e.id).covers(seeds))]
        if missing:
            outcome = self.worker.run({"kind": "reference", "lesson": lesson.id, "exercises": missing,
                                       "seeds": list(seeds)}, REFERENCE_TIMEOUT)
            for exercise_id, slot in zip(missing, outcome.slots):
                if slot is not None and slot[0].get("status") == "ok":
                    reference = self._reference_cache.setdefault((lesson.id, exercise_id), Reference({}, {}))
                    fresh = dict(slot[0]["results"])
                    for per_seed in ("shapes", "variants"):  # merged seed by seed, like the results themselves
                        reference.results.setdefault(per_seed, {}).update(fresh.pop(per_seed, {}))
                    reference.results.update(fresh)
                    reference.arrays.update(slot[1])
            if outcome.stopped_at is not None:
                self._reference_problem = "timed out" if outcome.timed_out else (outcome.problem or "failed")
        return {e.id: cached(e.id) if cached(e.id) and cached(e.id).covers(seeds) else None for e in exercises}

    def _run_learners(self, lesson, pending, cells, seeds, references) -> dict[str, ExerciseResult]:
        """All exercises in one child (cells loaded once); after a hang or crash, the rest in a new one."""
        results: dict[str, ExerciseResult] = {}
        cell_json = [c.to_json() for c in cells]
        while pending:
            outcome = self.worker.run_learner(lesson.id, list(seeds), [_ref(e) for e, _ in pending], cell_json,
                                              self.timeout)
            for (exercise, definition), slot in zip(pending, outcome.slots):
                if slot is None:
                    break
                results[exercise.id] = verdict.from_child(exercise, definition.source, seeds,
                                                          references[exercise.id], slot[0], slot[1],
                                                          outcome.output, self.worker.memory_mb)
            stopped = outcome.stopped_at
            if stopped is None:
                break
            exercise = pending[stopped][0]
            results[exercise.id] = verdict.stopped(exercise, outcome.timed_out, outcome.problem, self.timeout,
                                                   outcome.output)
            pending = pending[stopped + 1:]
        return results


def _ref(exercise) -> dict:
    return {"id": exercise.id, "function": exercise.function}
