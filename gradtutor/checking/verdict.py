"""From what a child reported to a verdict: pure, no process and no TensorFlow.

The checker hands this module what the reference job and the learner's job left
behind (plain JSON descriptions and numpy arrays); it compares them seed by seed
(gradtutor.checking.compare), picks the first mismatch, and asks gradtutor.checking.diagnose for the
line a learner reads. Nothing here starts a process or runs learner code, so every
path is unit-tested with hand-made child results.
"""
from __future__ import annotations

import dataclasses
import functools

from gradtutor.checking import compare as compare_mod
from gradtutor.checking import diagnose, requirements
from gradtutor.course.manifest import Exercise, Lesson
from gradtutor.protocol import Cause, ChildResult, Status
from gradtutor.course.seeds import VISIBLE_SEEDS, is_hidden
from gradtutor.messages import say


@dataclasses.dataclass
class ExerciseResult:
    """The verdict on one exercise: its status, the one-line message, the cause id and the points."""

    id: str
    function: str
    status: Status
    message: str
    points: int  # earned
    max_points: int
    reports: list = dataclasses.field(default_factory=list)  # ElementReports behind the verdict
    output: str = ""  # what the learner's code printed
    bad_input: bool = False  # the file itself is at fault (missing function, syntax error)
    hidden: bool = False  # failed on a hidden input: the message and reports hold none of its reference values
    cause: Cause | None = None  # why, as a stable id; None for a pass

    def __post_init__(self) -> None:
        self.status = Status(self.status)

    def to_json(self) -> dict:
        return {"id": self.id, "function": self.function, "status": self.status.value,
                "message": self.message, "cause": self.cause.value if self.cause else None,
                "points": self.points, "max_points": self.max_points}


@dataclasses.dataclass
class LessonResult:
    """The verdicts on a lesson's checked exercises, and the exit code they mean for the CLI."""

    lesson: Lesson
    source: str  # the file or place that was checked
    exercises: list[ExerciseResult]
    visible_only: bool = False  # checked on the visible inputs alone: there were no hidden ones (outside a course)

    @property
    def passed(self) -> int:
        return sum(e.status is Status.PASS for e in self.exercises)

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
                "passed": self.passed, "total": self.total, "visible_only": self.visible_only}


@dataclasses.dataclass
class Reference:
    """One exercise's reference answers: descriptions per seed (and tolerance), and the arrays they name."""

    results: dict
    arrays: dict

    def covers(self, seeds) -> bool:
        return all(str(seed) in self.results for seed in seeds)


def result_for(exercise: Exercise, **fields) -> "functools.partial[ExerciseResult]":
    """A maker of this exercise's verdicts: only the status, message and cause vary."""
    return functools.partial(ExerciseResult, exercise.id, exercise.function, points=0,
                             max_points=exercise.points, **fields)


def not_attempted(exercise: Exercise, **fields) -> ExerciseResult:
    message = say("check.not_attempted", function=exercise.function)
    return result_for(exercise, **fields)(Status.NOT_ATTEMPTED, message, cause=Cause.NOT_ATTEMPTED)


def stopped(exercise: Exercise, timed_out: bool, problem: str | None, timeout: float, output: str) -> ExerciseResult:
    """The verdict for the exercise that was running when its child hung or died."""
    result = result_for(exercise, output=output)
    if timed_out:
        return result(Status.TIMEOUT, say("check.timeout", function=exercise.function, seconds=f"{timeout:g}"),
                      cause=Cause.TIMEOUT)
    return result(Status.ERROR, f"{exercise.function}(): {problem}", cause=Cause.CRASHED)


def reference_missing(exercise: Exercise, lesson_id: str, problem: str) -> ExerciseResult:
    return result_for(exercise, bad_input=True)(
        Status.ERROR, say("check.reference_missing", lesson=lesson_id, problem=problem), cause=Cause.UNKNOWN)


def from_child(exercise: Exercise, source: str, seeds, reference: Reference, child: ChildResult, arrays: dict,
               printed: str, memory_mb: int | None) -> ExerciseResult:
    """The verdict on one exercise from its child's result (and the arrays it wrote)."""
    result = result_for(exercise, output=printed)
    status = child.get("status")
    if status == "not_attempted":
        return not_attempted(exercise, output=printed)
    if status == "missing":
        return result(Status.ERROR, say("check.not_a_function", function=exercise.function),
                      bad_input=True, cause=Cause.MISSING)
    if status == "error":
        error = child.get("error") or {}
        if error.get("type") == "MemoryError":
            return result(Status.ERROR, say("check.out_of_memory", function=exercise.function, memory_mb=memory_mb),
                          cause=Cause.OUT_OF_MEMORY)
        cause, message = diagnose.explain_error(exercise, error, source, child.get("facts"))
        return result(Status.ERROR, message, cause=cause)
    if status != "ok":
        return _unreadable(result, say("check.unexpected_result"))
    facts = child.get("facts") if isinstance(child.get("facts"), dict) else {}
    if facts.get("inputs_modified"):
        return result(Status.FAIL, diagnose.inputs_modified(exercise, [str(c) for c in facts["inputs_modified"]]),
                      cause=Cause.INPUTS_MODIFIED)
    compared = compare_seeds(exercise, source, reference, child.get("results"), arrays, seeds, result, facts)
    unmet = requirements.unmet_requirement(exercise, facts) if compared.status is Status.PASS else None
    if unmet:  # the right values, computed in a way the exercise rules out
        return result(Status.FAIL, unmet[1], reports=compared.reports, cause=unmet[0])
    return compared


def compare_seeds(exercise: Exercise, source: str, reference: Reference, got, arrays: dict, seeds,
                  result, facts: dict | None = None) -> ExerciseResult:
    """Compare seed by seed, visible seeds first; the first mismatch is the verdict."""
    expected = reference.results
    tolerance = expected["tolerance"]
    if not isinstance(got, dict):
        return _unreadable(result, say("check.unexpected_result"))
    first_reports = None
    passed = set()  # the seeds already compared and matched
    for seed in seeds:
        value = got.get(str(seed))
        if not isinstance(value, dict):
            return _unreadable(result, say("check.unexpected_result"))
        try:
            reports = compare_mod.compare(expected[str(seed)], reference.arrays, value, arrays,
                                          seed, tolerance["rtol"], tolerance["atol"])
        except (KeyError, TypeError, ValueError):
            return _unreadable(result, say("check.unreadable_result"))
        if not reports:  # a comparison always reports something; nothing means it was tampered with
            return _unreadable(result, say("check.no_report"))
        first_reports = first_reports or reports
        failed = next((r for r in reports if not r.passed), None)
        if failed and is_hidden(seed):
            return _hidden_failure(exercise, source, failed, reference, got, arrays, seeds, passed, result, facts)
        if failed:
            shapes = (expected.get("shapes") or {}).get(str(seed))
            variant = _variant(expected, reference.arrays, got, arrays, seed, tolerance, seeds)
            elsewhere = _factors_elsewhere(reference, got, arrays, seeds, failed) if failed.pattern == "scale" else None
            cause, message = diagnose.explain_failure(exercise, failed, source, facts=facts, shapes=shapes,
                                                      variant=variant, elsewhere=elsewhere)
            if passed and cause is Cause.WRONG_FUNCTION:
                # right on one input, unrelated values on another: something of one input is built in
                message += say("check.right_on_another")
                cause = Cause.HARD_CODED
            return result(Status.FAIL, message, reports=reports, cause=cause)
        passed.add(seed)
    return result(Status.PASS, say("check.passed", function=exercise.function, count=len(seeds)),
                  points=exercise.points, reports=first_reports or [])


def _hidden_failure(exercise, source, failed, reference, got, arrays, seeds, passed, result, facts) -> ExerciseResult:
    """Say what is wrong, never what is right: no reference values, shapes or comparison table."""
    cause, message = diagnose.explain_failure(exercise, failed, source, blind=True, facts=facts)
    visible = [s for s in VISIBLE_SEEDS if s in seeds]
    # visible seeds come first, so they have been compared already; any other order compares them now
    if visible and all(s in passed or _passes(reference, got, arrays, s) for s in visible):
        message += say("check.hidden_hard_coded")
        cause = Cause.HARD_CODED
    else:
        message += say("check.hidden_wrong")
    return result(Status.FAIL, message, hidden=True, cause=cause)


def _variant(expected: dict, ref_arrays: dict, got: dict, arrays: dict, seed, tolerance, seeds=()) -> str | None:
    """The id of the reference's variant (a known mistake) the learner's values equal on this seed, if any.

    Two variants can coincide on one seed (the top class is class k-1 on some inputs): the one the
    values also equal on the most other seeds is what the code computes."""
    matching = [name for name in ((expected.get("variants") or {}).get(str(seed)) or {})
                if _equals_variant(expected, ref_arrays, got, arrays, seed, tolerance, name)]
    if len(matching) <= 1:
        return matching[0] if matching else None
    others = [s for s in seeds if s != seed and isinstance(got.get(str(s)), dict)]
    return max(matching, key=lambda name: sum(_equals_variant(expected, ref_arrays, got, arrays, s, tolerance, name)
                                              for s in others))


def _equals_variant(expected: dict, ref_arrays: dict, got: dict, arrays: dict, seed, tolerance, name: str) -> bool:
    described = ((expected.get("variants") or {}).get(str(seed)) or {}).get(name)
    try:
        reports = compare_mod.compare(described, ref_arrays, got[str(seed)], arrays, seed,
                                      tolerance["rtol"], tolerance["atol"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    return bool(reports) and all(r.passed for r in reports)


def _factors_elsewhere(reference: Reference, got: dict, arrays: dict, seeds, failed) -> list[tuple[str | None, dict]]:
    """The failed element's constant factor on every other seed ("1" where it matched, None where it is no
    constant multiple), with that seed's input shapes: a count the factor follows from one input size to
    another is a count, one that stays put is a constant (gradtutor.checking.factors). Nothing of them is told."""
    tolerance = reference.results["tolerance"]
    found = []
    for seed in seeds:
        if seed == failed.seed or not isinstance(got.get(str(seed)), dict):
            continue
        try:
            reports = compare_mod.compare(reference.results[str(seed)], reference.arrays, got[str(seed)], arrays,
                                          seed, tolerance["rtol"], tolerance["atol"])
        except (KeyError, TypeError, ValueError):
            continue
        same = next((r for r in reports if r.element == failed.element), None)
        if same is not None:
            factor = "1" if same.passed else same.factor if same.pattern == "scale" else None
            found.append((factor, ((reference.results.get("shapes") or {}).get(str(seed))) or {}))
    return found


def _passes(reference: Reference, got: dict, arrays: dict, seed: int) -> bool:
    tolerance = reference.results["tolerance"]
    reports = compare_mod.compare(reference.results[str(seed)], reference.arrays, got[str(seed)], arrays,
                                  seed, tolerance["rtol"], tolerance["atol"])
    return all(r.passed for r in reports)


def _unreadable(result, what: str) -> ExerciseResult:
    function = result.args[1]
    return result(Status.ERROR, f"{function}(): {what}", cause=Cause.UNKNOWN)


def comparison_rows(reports: list[compare_mod.ElementReport]) -> list[dict]:
    """Karpathy's cmp(), per returned tensor: exact | allclose | max abs diff | worst element (headings translated)."""
    rows = []
    heads = [say(f"check.table.{key}") for key in ("tensor", "exact", "allclose", "max_abs_diff", "worst")]
    for report in reports:
        name = say("check.table.result") if report.element is None else say("check.table.element",
                                                                             element=report.element)
        if report.max_abs_diff is None:
            rows.append(dict(zip(heads, (name, "—", "—", "—", report.detail or report.symptom or ""))))
            continue
        worst = "—"
        if report.worst_index is not None and report.learner_at_worst is not None:
            index = "[" + ", ".join(map(str, report.worst_index)) + "]"
            worst = f"{index}: {report.learner_at_worst:.6g} vs {report.reference_at_worst:.6g}"
        rows.append(dict(zip(heads, (name, _yes(report.exact), _yes(report.allclose), f"{report.max_abs_diff:.3g}",
                                     worst))))
    return rows


def _yes(value) -> str:
    return "—" if value is None else say("check.table.yes" if value else "check.table.no")
