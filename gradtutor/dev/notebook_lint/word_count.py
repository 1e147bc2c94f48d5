"""How much prose a lesson asks the learner to read: the words and Chinese characters of its markdown cells.

Code (fenced blocks, inline code), HTML tags and link targets are not prose and are not counted. Chinese
characters and Latin words are counted apart, because they are read at different speeds
(gradtutor.dev.notebook_lint.reading_time): a Chinese character is one character, a run of Latin letters
or digits one word, whichever language's notebook they are in.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from gradtutor.course import conventions

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAG = re.compile(r"<[^>\n]+>")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_CHARACTER = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")


class Prose(NamedTuple):
    """What there is to read: Latin words and Chinese characters."""

    words: int = 0
    characters: int = 0

    def __add__(self, other: "Prose") -> "Prose":  # a tuple's + would concatenate, not count
        return Prose(self.words + other.words, self.characters + other.characters)


def prose(text: str) -> Prose:
    """The words and characters of one markdown text, code and markup left out."""
    for pattern in (_FENCED, _INLINE_CODE, _TAG):
        text = pattern.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    return Prose(len(_WORD.findall(text)), len(_CHARACTER.findall(text)))


def notebook_prose(notebook: Path) -> Prose:
    """The prose of a notebook's markdown cells."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum((prose(conventions.cell_source(c)) for c in cells if c.get("cell_type") == "markdown"), Prose())
