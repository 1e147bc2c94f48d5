"""Does every lesson's reference module keep the contract the checker relies on?

Read from the manifest, so a new lesson is covered without an edit here: for
every exercise and seed, `build(seed)` is deterministic and makes new objects
(the learner and the reference each get their own), and `reference(*inputs)`
returns finite float tf.Tensors, the same on every call.

The independent cross-check of each reference (closed form or finite
differences) needs the maths of the exercise, so it lives beside its lesson in
test_references_<id>.py in each lesson's folder.
"""
from __future__ import annotations

import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course import manifest as course
from gradtutor.course.references import ALL_SEEDS, exercises_of

pytestmark = pytest.mark.tf

CASES = [pytest.param(lesson.id, exercise.id, id=f"{lesson.id}-{exercise.id}")
         for lesson in course.load().lessons for exercise in lesson.exercises]
SCALARS = (int, float, str, bool, type(None))


def arrays(value) -> list[np.ndarray]:
    """The numbers inside one input: a tensor, variable or array, or a Keras layer's or model's weights."""
    if isinstance(value, keras.layers.Layer):
        return [np.asarray(w) for w in value.get_weights()]
    if isinstance(value, keras.Variable):
        value = value.value  # the tf.Variable inside
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return [value.numpy()]
    return [np.asarray(value)]


def outputs(result) -> list[tf.Tensor]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


@pytest.mark.parametrize("lesson_id, exercise_id", CASES)
def test_does_the_module_define_every_exercise_of_the_manifest(lesson_id, exercise_id):
    assert exercise_id in exercises_of(lesson_id), f"gradtutor/course/lessons/{lesson_id}/reference.py has no {exercise_id!r}"


@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("lesson_id, exercise_id", CASES)
def test_are_inputs_deterministic_and_fresh(lesson_id, exercise_id, seed):
    build = exercises_of(lesson_id)[exercise_id].build
    first, second = build(seed), build(seed)
    assert list(first) == list(second)
    for key in first:
        assert first[key] is not second[key] or isinstance(first[key], SCALARS), f"{key} is shared between builds"
        for a, b in zip(arrays(first[key]), arrays(second[key]), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{key} differs between two builds of seed {seed}")


@pytest.mark.parametrize("seed", ALL_SEEDS)
@pytest.mark.parametrize("lesson_id, exercise_id", CASES)
def test_is_the_reference_finite_tensors_and_repeatable(lesson_id, exercise_id, seed):
    exercise = exercises_of(lesson_id)[exercise_id]
    first = outputs(exercise.reference(*exercise.build(seed).values()))
    again = outputs(exercise.reference(*exercise.build(seed).values()))
    assert first and len(first) == len(again)
    for got, other in zip(first, again):
        assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
        assert got.dtype.is_floating, got.dtype
        assert np.isfinite(got.numpy()).all()
        np.testing.assert_allclose(got.numpy(), other.numpy(), rtol=1e-6, atol=0)
