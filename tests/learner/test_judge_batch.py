"""Does a notebook's judge build the next check's child only for a learner, not in nbgrader's batch?"""
from __future__ import annotations

import pytest

from gradtutor.learner.judge import prepares_next

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("execution", ["autograde", "validate"])
def test_under_nbgrader_the_judge_prepares_no_child_nobody_waits_for(execution):
    assert prepares_next({"NBGRADER_EXECUTION": execution}) is False


def test_for_a_learner_the_next_check_finds_its_child_ready():
    assert prepares_next({}) is True
    assert prepares_next({"NBGRADER_EXECUTION": ""}) is True  # set but empty: as grading() reads it, no nbgrader run
