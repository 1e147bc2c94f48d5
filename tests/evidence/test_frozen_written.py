"""A compiled step that changes its own Python state (`self.calls += 1`, `self.x = self.x - lr * g`): what the
recording notes of it (python_state._reads) and where the reading takes it to decide an update (subtle._updates)."""
from __future__ import annotations

import random

import pytest

from gradtutor.evidence.reading import subtle
from gradtutor.evidence.recording.compiled import python_state

pytestmark = pytest.mark.unit


class Step:
    def __init__(self, steps):
        self.calls, self.steps, self.sums = 0, steps, [1.0, 2.0]

    def train_step(self):
        self.calls += 1
        if self.calls % self.steps == 0:  # a comprehension below reads self too: `self` is a cell here
            return [total / self.steps for total in self.sums]
        return []


@pytest.mark.parametrize("seed", range(2))
def test_a_counter_the_method_changes_is_noted_with_its_changing_line_when_self_is_a_cell(seed):
    step = Step(random.Random(seed).randint(2, 9))
    noted = python_state._reads(step.train_step)
    first = Step.train_step.__code__.co_firstlineno
    assert {(read.name, read.line - first) for read in noted.reads} >= {("calls", 2), ("steps", 2)}
    assert noted.written == {"calls": first + 1}


@pytest.mark.parametrize("header, updates", [
    ("if self.calls % self.steps == 0:  # every `steps` batches: apply", True),
    ("if self.calls % self.steps == 0:", True),
    ("if self.calls > 3:  # log only", False),
])
def test_an_if_over_an_update_decides_the_update_whatever_its_comment(tmp_path, header, updates):
    body = "optimizer.apply_gradients(pairs)" if updates else "print(loss)"
    path = tmp_path / "step.py"
    path.write_text(f"def step():\n    {header}\n        {body}\n    return 1\n")
    assert subtle._updates(str(path), 2) is updates


@pytest.mark.parametrize("line, name, rebinds", [
    ("self.x = self.x - self.lr * g", "x", True),
    ("x = x - lr * g", "x", True),
    ("self.y = self.x - self.lr * g", "x", False),
    ("self.x = tf.zeros((3, 1))", "x", False),
])
def test_a_value_rebound_from_itself_is_an_update_by_hand(tmp_path, line, name, rebinds):
    path = tmp_path / "step.py"
    path.write_text(f"def step(self, g):\n    {line}\n")
    assert subtle._rebinds_itself(str(path), 2, name) is rebinds
