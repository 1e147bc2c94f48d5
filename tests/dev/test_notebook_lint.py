"""The two text checks of `gradtutor dev check` on lesson notebooks: answer names, prose words."""
from __future__ import annotations

import pytest

from gradtutor.dev.notebook_lint.answer_names import defined_names
from gradtutor.dev.notebook_lint.word_count import prose_words

pytestmark = pytest.mark.unit


def test_which_names_does_a_cell_define_at_its_top_level():
    source = ("import numpy as np\nfrom x import y\n"
              "def layer_gradient_norms(activation, depth=10):\n    inner = 1\n    return inner\n"
              "class Model:\n    field = 2\n"
              "norms, (a, b) = 1, (2, 3)\nlimit: int = 4\ncount += 1\n"
              "if True:\n    flagged = 1\nelse:\n    other = 2\n"
              "for i in range(3):\n    looped = i\nwith open(p) as handle:\n    read = 1\n"
              "try:\n    tried = 1\nexcept ValueError:\n    caught = 2\nfinally:\n    done = 3\n"
              "print(norms)\n")
    assert defined_names(source) == {"layer_gradient_norms", "Model", "norms", "a", "b", "limit", "count",
                                     "flagged", "other", "i", "looped", "handle", "read", "tried", "caught", "done"}
    assert defined_names("def f(:\n") == set()  # a cell that does not parse defines nothing here


def test_what_counts_as_prose():
    text = ("## Why is my gradient None?\n\nThe tape's `tape.watch(x)` call [see here](https://example.org/a-b) "
            "matters.\n\n```python\nx = tf.constant(1.0)\nwith tf.GradientTape() as tape:\n    pass\n```\n"
            "<img src='figure.png' alt='a figure'> It's done.")
    # Why is my gradient None | The tape's call see here matters | It's done
    assert prose_words(text) == 5 + 6 + 2
    assert prose_words("梯度为什么是 None？用 `tape.watch`。") == 6 + 1 + 1
