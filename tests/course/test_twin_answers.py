"""Can an answer that builds its own copy of an input's layer or model match by coincidence?

The learner's function runs under keras.utils.set_random_seed(seed) (gradtutor.isolation.child); an
input's Keras weights drawn under that same seed are the weights the learner's own fresh `Dense(C)`
gets, so an answer that rebuilds the model instead of reading its kernel would pass. The inputs are
drawn apart from that seed (gradtutor.course.references.seed_weights). Every `twin:` answer in the
lessons' answers.toml (each re-creates an input's layer or model) is graded here on 20 hidden seeds
drawn as a course draws them, from a fresh secret, run as the checker's child runs them: none may
match on any one of them.
"""
from __future__ import annotations

import pytest

from gradtutor.course import manifest as course
from gradtutor.course.secret import new_secret
from gradtutor.course.seeds import course_seeds
from gradtutor.dev.answers import STANDARD_IMPORTS, load_answers

pytestmark = [pytest.mark.tf, pytest.mark.xdist_group("twins")]

SEEDS = 20
TWIN = "twin:"  # how an answers.toml entry that re-creates an input's layer or model is named
# The lessons whose exercises receive a Keras layer or model (their reference.py builds one)
KERAS_LESSONS = [lesson.id for lesson in course.load().lessons
                 if "keras.layers." in (lesson.folder / "reference.py").read_text(encoding="utf-8")]


def _twins(lesson) -> list:
    return [a for a in load_answers(lesson.folder / course.ANSWERS_FILE, lesson) if a.name.startswith(TWIN)]


def test_every_lesson_with_keras_inputs_has_twin_answers():
    assert KERAS_LESSONS, "no lesson builds a Keras layer: the twins test would check nothing"
    missing = [lesson_id for lesson_id in KERAS_LESSONS if not _twins(course.load().lesson(lesson_id))]
    assert not missing, f"lessons with Keras inputs but no `{TWIN}` answer in answers.toml: {missing}"


def _matches_on(recipe, function, seed: int) -> bool:
    """Does the answer's function return the reference's values on the seed's inputs, run as the checker's
    child runs it: fresh inputs, then keras.utils.set_random_seed(seed) before the call?"""
    import keras
    import numpy as np

    expected = recipe.reference(*recipe.build(seed).values())
    inputs = list(recipe.build(seed).values())
    keras.utils.set_random_seed(seed)
    try:
        got = function(*inputs)
    except Exception:  # noqa: BLE001 - an answer that raises does not match
        return False
    pairs = list(zip(got, expected)) if isinstance(expected, tuple) and isinstance(got, (tuple, list)) else [(got, expected)]
    try:
        return all(np.allclose(np.asarray(g), np.asarray(e), rtol=recipe.rtol, atol=recipe.atol) for g, e in pairs)
    except (TypeError, ValueError):  # another shape or structure
        return False


@pytest.mark.parametrize("lesson_id", KERAS_LESSONS)
def test_an_answer_that_rebuilds_an_input_fails_on_every_drawn_seed(lesson_id):
    from gradtutor.course.references import exercises_of

    lesson = course.load().lesson(lesson_id)
    seeds = course_seeds(new_secret(), lesson_id, SEEDS)  # as a course draws its hidden seeds
    table = exercises_of(lesson_id)
    matched = []
    for answer in _twins(lesson):
        namespace: dict = {}
        exec(compile(STANDARD_IMPORTS + answer.code, answer.label(), "exec"), namespace)  # noqa: S102 - our own corpus
        function = namespace[lesson.exercise(answer.exercise).function]
        matched += [f"{answer.label()} on seed {seed}" for seed in seeds
                    if _matches_on(table[answer.exercise], function, seed)]
    assert not matched, "answers that rebuild an input's layer or model matched it:\n" + "\n".join(matched)
