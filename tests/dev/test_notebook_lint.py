"""The two text checks of `gradtutor dev check` on lesson notebooks: answer names, reading time."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.dev import notebook_lint
from gradtutor.dev.notebook_lint import reading_time
from gradtutor.dev.notebook_lint.answer_names import defined_names
from gradtutor.dev.notebook_lint.word_count import Prose, notebook_prose, prose

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
    assert prose(text) == Prose(words=5 + 6 + 2, characters=0)
    # 梯度为什么是 | 用: Chinese characters, counted apart from the Latin word None
    assert prose("梯度为什么是 None？用 `tape.watch`。") == Prose(words=1, characters=6 + 1)


ENGLISH = ("gradient", "tape", "watch", "None", "softmax", "Keras", "2021", "layer's", "float32")
CHINESE = "梯度带变量监视张量损失函数为什么是零"


def drawn_prose(draw: random.Random, words: int, characters: int) -> str:
    """Markdown of `words` Latin words and `characters` Chinese characters, mixed as a Chinese lesson mixes
    them, with code, tags and link targets around them that must not count."""
    pieces = [draw.choice(ENGLISH) for _ in range(words)] + [draw.choice(CHINESE) for _ in range(characters)]
    draw.shuffle(pieces)
    noise = ["`tape.gradient(y, x)`", "<br>", "](https://example.org/a-b)", "，", "。", "\n\n```python\nx = 1\n```\n"]
    return "".join(piece + (" " if piece.isascii() else draw.choice(["", "", *noise])) for piece in pieces)


def test_are_words_and_characters_counted_apart_and_timed_each_at_its_rate():
    draw = random.Random()
    words, characters = draw.randrange(0, 3000), draw.randrange(0, 4000)
    counted = prose(drawn_prose(draw, words, characters))
    assert counted == Prose(words, characters)
    expected = words / reading_time.WORDS_PER_MINUTE + characters / reading_time.CHARACTERS_PER_MINUTE
    assert reading_time.minutes(counted) == pytest.approx(expected, abs=0.05)
    assert reading_time.too_long(counted) == (round(expected, 1) > reading_time.MAX_MINUTES)


def test_is_a_lesson_too_long_to_read_caught_in_its_language_only(tmp_path):
    """A copy of a drawn lesson's notebook in a drawn language, padded with prose to just over 12 minutes
    of reading, is one problem line naming it; the same copy just under 12 minutes is not a problem."""
    draw = random.Random()
    lesson = draw.choice(course.load().lessons)
    lang = draw.choice(messages.LANGUAGES)
    notebooks = {}
    for each in messages.LANGUAGES:
        notebooks[each] = tmp_path / lesson.source_notebook(each).name
        shutil.copyfile(lesson.source_notebook(each), notebooks[each])
    rate = (reading_time.WORDS_PER_MINUTE if lang == messages.DEFAULT
            else reading_time.CHARACTERS_PER_MINUTE)  # English pads with words, Chinese with characters
    had = reading_time.minutes(notebook_prose(notebooks[lang]))
    for over, margin in ((True, 0.2), (False, -0.2)):
        shutil.copyfile(lesson.source_notebook(lang), notebooks[lang])
        padding = round((reading_time.MAX_MINUTES + margin - had) * rate)
        if padding < 0:
            pytest.fail(f"{notebooks[lang].name} already takes {had} minutes to read")
        data = json.loads(notebooks[lang].read_text(encoding="utf-8"))
        text = (drawn_prose(draw, padding, 0) if lang == messages.DEFAULT else drawn_prose(draw, 0, padding))
        data["cells"].insert(draw.randrange(len(data["cells"]) + 1),
                             {"cell_type": "markdown", "id": "padding", "metadata": {}, "source": text})
        notebooks[lang].write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        found = list(notebook_lint.findings(lesson.id, notebooks, lambda path: path.name))
        too_long = [text for problem, text in found if problem]
        timed = [text for _, text in found if " minutes" in text]
        assert len(timed) == len(messages.LANGUAGES)  # every language's time is shown, too long or not
        if over:
            took = reading_time.minutes(notebook_prose(notebooks[lang]))
            assert took > reading_time.MAX_MINUTES
            assert too_long == [f"{lesson.id}: {notebooks[lang].name} ({lang}) takes {took:.1f} minutes to read, "
                                f"more than {reading_time.MAX_MINUTES} "
                                f"({reading_time.described(notebook_prose(notebooks[lang]))}) — trim its prose"]
        else:
            assert too_long == [], too_long


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
