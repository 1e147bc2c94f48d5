"""The seeds every check runs: the visible ones are the inputs a learner can print
while working; the hidden ones catch answers hard-coded from what was seen.

Kept apart from gradtutor.references (the answers), which the processes that run
learner code may not read: a notebook kernel that shows a verdict needs the seeds,
never the answers.
"""
from __future__ import annotations

VISIBLE_SEEDS = (0, 1)
HIDDEN_SEEDS = (7919, 104729)
ALL_SEEDS = VISIBLE_SEEDS + HIDDEN_SEEDS


def seeds_for(which: str) -> tuple[int, ...]:
    """Seeds for 'visible', 'hidden' or 'all'."""
    return {"visible": VISIBLE_SEEDS, "hidden": HIDDEN_SEEDS, "all": ALL_SEEDS}[which]
