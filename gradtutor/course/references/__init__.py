"""Reference gradients: for every exercise, seeded inputs and the right answer.

Each lesson has a module ``gradtutor/course/references/<lesson id>.py`` with a dict

    EXERCISES = {"<exercise id>": Recipe(build=..., reference=..., rtol=..., atol=...)}

* ``build(seed)`` returns a dict of fresh inputs, in the order of the learner's
  function parameters (the function is called positionally with its values).
  It must be deterministic in ``seed`` (numpy ``default_rng(seed)``,
  ``keras.utils.set_random_seed(seed)`` before building a model) and build new
  objects on every call: the reference and the learner each get their own.
* ``variants`` (optional) maps an id to a function of the same inputs that computes
  what learners compute by mistake (the class next to k, a softmax applied twice);
  computed in the reference process, a learner's values equal to one are named by it.
* ``reference(*inputs)`` returns a ``tf.Tensor`` or a tuple of ``tf.Tensor``.
  It is the answer the learner's function must reproduce, and it runs in a
  process where no learner code has been loaded.

Every reference is cross-checked in ``tests/test_references_<lesson>.py`` by a
method that does not use GradientTape (a closed form or finite differences).

This package is imported only inside the checker's worker process, which has
TensorFlow; the parent process that compares results never imports it.
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable

from gradtutor.course.seeds import ALL_SEEDS, HIDDEN_SEEDS, VISIBLE_SEEDS, seeds_for  # the seeds live apart from the answers

__all__ = ["ALL_SEEDS", "HIDDEN_SEEDS", "VISIBLE_SEEDS", "Recipe", "exercises_of", "seeds_for"]


@dataclasses.dataclass(frozen=True)
class Recipe:
    """How to check one exercise: its seeded inputs and its reference answer (course.manifest.Exercise
    is what the learner is asked; gradtutor.checking.verdict.Reference is a recipe's computed result)."""

    build: Callable[[int], dict[str, Any]]
    reference: Callable[..., Any]
    rtol: float = 1e-4
    atol: float = 1e-6
    # what learners compute by mistake, as functions of the same inputs (id -> function): a learner's values
    # equal to one are named by it (messages: variant.<exercise id>.<variant id>)
    variants: dict[str, Callable[..., Any]] = dataclasses.field(default_factory=dict)


def exercises_of(lesson_id: str) -> dict[str, Recipe]:
    """The EXERCISES table of one lesson's reference module."""
    module = importlib.import_module(f"{__name__}.{lesson_id}")
    return module.EXERCISES
