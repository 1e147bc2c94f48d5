"""How much prose a lesson asks the learner to read: the words of its markdown cells, per language.

Code (fenced blocks, inline code), HTML tags and link targets are not prose and are not counted. A Chinese
character counts as one word (its reading time is about that of an English word), a run of Latin letters
or digits as one word.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAG = re.compile(r"<[^>\n]+>")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")


def prose_words(text: str) -> int:
    """The words of one markdown text, code and markup left out."""
    for pattern in (_FENCED, _INLINE_CODE, _TAG):
        text = pattern.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    return len(_WORD.findall(text))


def notebook_words(notebook: Path) -> int:
    """The prose words of a notebook's markdown cells."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(prose_words("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
               for c in cells if c.get("cell_type") == "markdown")
