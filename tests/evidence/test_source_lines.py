"""The line that dropped a value (gradtutor.evidence.source_lines.overwritten_after): the next statement of the same
block that assigns the name again without reading it, and never one after the value was read."""
from __future__ import annotations

import linecache
import random

import pytest

from gradtutor.evidence.source_lines import overwritten_after

pytestmark = pytest.mark.unit


def _at(tmp_path, text: str, name: str = "model.py"):
    path = tmp_path / name
    path.write_text(text)
    linecache.checkcache(str(path))
    return str(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_reassignment_that_drops_the_value_is_named(tmp_path, seed):
    rng = random.Random(seed)
    name = rng.choice(["out", "h", "hidden", "x2"])
    between = rng.randint(0, 3)  # statements that leave the name alone
    lines = ["def call(self, x):", f"    {name} = self.a(x)", f"    {name} = self.b({name})"]
    lines += [f"    unrelated_{i} = {i}" for i in range(between)]
    lines += [f"    {name} = self.c(x)", f"    return {name}"]
    file = _at(tmp_path, "\n".join(lines) + "\n")
    assert overwritten_after((file, 3)) == (file, 4 + between)
    assert overwritten_after((file, 2)) is None  # read on the next line: used


def test_a_value_read_first_or_added_to_is_not_dropped(tmp_path):
    file = _at(tmp_path, "def f(x):\n    y = x * 2\n    print(y)\n    y = x\n    z = x * 3\n    z += 1\n    return y + z\n")
    assert overwritten_after((file, 2)) is None  # printed before it was replaced
    assert overwritten_after((file, 5)) is None  # z += 1 reads it
    assert overwritten_after(None) is None and overwritten_after((str(tmp_path / "gone.py"), 3)) is None
