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


def test_a_demonstration_whose_name_an_answer_reads_is_reported_and_the_shipped_ones_are_not(tmp_path):
    import json
    import random

    from gradtutor.course import cell_names, conventions
    from gradtutor.course import manifest as course
    from gradtutor.dev.notebook_lint.demonstration_names import marked, needed_demonstrations

    marking = [lesson for lesson in course.load().lessons if marked(lesson.source_notebook())]
    assert marking, "no lesson marks a demonstration cell"
    for lesson in marking:
        assert list(needed_demonstrations(lesson.source_notebook())) == []
    rng = random.Random()
    lesson = rng.choice(marking)
    nb = json.loads(lesson.source_notebook().read_text(encoding="utf-8"))
    source = lambda cell: "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]  # noqa: E731
    demos = [i for i, cell in enumerate(nb["cells"]) if conventions.is_demonstration(cell)]
    demo = rng.choice(demos)
    name = rng.choice(sorted(cell_names.of(source(nb["cells"][demo])).binds))
    answer = rng.choice([i for i, cell in enumerate(nb["cells"]) if conventions.is_solution(cell)])
    nb["cells"][answer]["source"] = source(nb["cells"][answer]) + f"\nprint({name})\n"
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    found = {cell: (shown, reader) for cell, shown, reader in needed_demonstrations(path)}
    assert demo + 1 in found, (name, demo, found)
    shown, reader = found[demo + 1]
    assert shown in cell_names.of(source(nb["cells"][demo])).binds
    assert shown in cell_names.of(source(nb["cells"][reader - 1])).reads
