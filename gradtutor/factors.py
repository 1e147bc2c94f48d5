"""A constant factor between a learner's gradient and the reference, read as a count the inputs have.

A factor of exactly 1/20 where x has 20 elements is a mean over x where the sum is asked; a
factor of exactly 4 where the batch has 4 rows is a sum over the batch where the mean is asked.
The counts come from the inputs' shapes, which the reference process records for every seed.
"""
from __future__ import annotations

import math
import re

from gradtutor.messages import say


def counted_factor(factor: str | None, shapes: dict) -> tuple[str, int, str] | None:
    """("mean" | "sum", N, what has N) when a factor of exactly 1/N or N is a count the inputs have: the size
    of one input, else its first axis (the batch), else its last (the classes, the features); else None."""
    found = re.fullmatch(r"(1/)?(\d+)", factor or "")
    if not found or int(found.group(2)) < 3:
        return None  # 2 is as often a constant of the formula (d x**2 = 2x, a loss doubled) as a count
    count, reading = int(found.group(2)), "mean" if found.group(1) else "sum"
    sized = [(name, [int(d) for d in shape]) for name, shape in shapes.items() if isinstance(shape, list)]
    for kind, holds in (("size", lambda s: len(s) >= 1 and math.prod(s) == count),
                        ("rows", lambda s: len(s) >= 2 and s[0] == count),
                        ("last", lambda s: len(s) >= 2 and s[-1] == count)):
        for name, shape in sized:
            if holds(shape):
                return reading, count, say(f"diagnosis.counted_{kind}", name=name, count=count)
    return None
