"""A slice of `make sweep` (gradtutor.dev.sweep): known answers on 200 random hidden seeds, as a course draws them.

The whole sweep takes minutes and lives in `make sweep`; this slice is the exercise whose
tolerance once failed correct answers on 1-2 % of random seeds (a peaked softmax row).
"""
from __future__ import annotations

import pytest

from gradtutor.dev.sweep import known_answers, sweep

pytestmark = pytest.mark.tf


def test_do_the_soft_argmax_answers_hold_on_200_random_seeds(checker, capsys):
    answers = known_answers(["lesson5"], "soft_argmax")
    assert sum(a.expect == "pass" for a in answers) >= 4 and sum(a.expect == "fail" for a in answers) >= 8
    hidden_before = checker.hidden
    result = sweep(answers, 200, checker=checker)
    with capsys.disabled():
        print("\n" + result.summary())
    assert checker.hidden is hidden_before, "the shared checker goes back with its own hidden inputs"
    assert result.ok, "\n".join(result.problems + [f"replay: python -m gradtutor.dev.sweep --secret {result.secret}"])
    assert result.summary() == (f"sweep: {result.correct}/{result.correct} correct answers pass on 200 random seeds "
                                f"each; {result.wrong}/{result.wrong} wrong answers fail")
