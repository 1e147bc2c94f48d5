"""Which names does a cell bind and read, and when can its text not tell (gradtutor.course.cell_names)?"""
from __future__ import annotations

import keyword
import random
import string

import pytest

from gradtutor.course import cell_names

pytestmark = pytest.mark.unit


def drawn_names(rng: random.Random, count: int) -> list[str]:
    """`count` distinct identifiers no Python or IPython meaning is attached to."""
    names: set[str] = set()
    while len(names) < count:
        name = rng.choice(string.ascii_letters) + "".join(rng.choices(string.ascii_lowercase + string.digits + "_",
                                                                        k=rng.randint(2, 8)))
        if not keyword.iskeyword(name) and name not in dir(__builtins__) and not name.startswith("_"):
            names.add(name)
    return sorted(names)


def test_a_functions_parameters_and_locals_are_not_reads_its_globals_are():
    rng = random.Random()
    function, parameter, local, outer, module = drawn_names(rng, 5)
    source = (f"def {function}({parameter}):\n    {local} = {parameter} * 2\n"
              f"    return [{local} + v for v in {outer}]\n{module} = 3\n")
    names = cell_names.of(source)
    assert not names.opaque
    assert names.reads == {outer}, source
    assert {function, local, module, parameter} - {parameter} <= names.binds


@pytest.mark.parametrize("how", ["top level", "default", "decorator", "class body", "augmented", "del", "global"])
def test_every_way_a_cell_reaches_a_name_is_a_read(how):
    name, other = drawn_names(random.Random(), 2)
    source = {"top level": f"print({name})\n",
              "default": f"def {other}(a={name}):\n    return a\n",
              "decorator": f"@{name}\ndef {other}():\n    pass\n",
              "class body": f"class {other}:\n    {name} = {name}\n",  # the class looks it up outside first
              "augmented": f"{name} += 1\n",
              "del": f"del {name}\n",
              "global": f"def {other}():\n    global {name}\n    return {name}\n"}[how]
    assert name in cell_names.of(source).reads, source


def test_everything_stored_at_any_depth_is_bound():
    rng = random.Random()
    a, b, c, d, e, f, g = drawn_names(rng, 7)
    source = (f"import numpy as {a}\nfrom os import path as {b}\n"
              f"def {c}():\n    global {d}\n    {d} = 1\n    for {e} in range(2):\n        pass\n"
              f"try:\n    pass\nexcept ValueError as {f}:\n    pass\nwith open('x') as {g}:\n    pass\n")
    assert {a, b, c, d, e, f, g} <= cell_names.of(source).binds


@pytest.mark.parametrize("source", ["%time x = 1\n", "!ls\n", "x = globals()['y']\n", "eval('y')\n", "print(_5)\n",
                                    "print(_i3)\n", "print(In[2])\n", "print(Out)\n", "get_ipython().run_cell('y')\n",
                                    "import __main__\n", "import sys\nx = sys.modules['__main__'].y\n",
                                    "from numpy import *\n", "import inspect\n", "f = lambda: 1\nf.__globals__['y']\n",
                                    "import importlib\nimportlib.import_module('__main__')\n",
                                    "def f(:\n", "x = vars()\n"])
def test_a_cell_whose_text_cannot_tell_is_opaque(source):
    assert cell_names.of(source).opaque, source
