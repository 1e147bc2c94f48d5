"""Is docs/glossary.md kept: no variant it lists as not used appears in any Chinese text?

The Chinese edition uses one word per idea. The glossary's last table lists the words that once
stood for one of its terms; every Chinese text a learner or an instructor reads is searched for
them: the message catalogues, the course's translated texts, the Chinese notebooks (solutions/ and
the released lessons/), the Chinese docs pages and the README's Chinese section.
"""
from __future__ import annotations

import re

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from tests.support import REPO

pytestmark = pytest.mark.unit

GLOSSARY = REPO / "docs" / "glossary.md"
HEADING = "## Variants not used"


def variants() -> dict[str, str]:
    """The glossary's table of variants not used: variant → the word to use."""
    text = GLOSSARY.read_text(encoding="utf-8").split(HEADING, 1)[1]
    rows = [line.strip().strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): cells[1].strip() for cells in rows[1:] if len(cells) >= 2}


def chinese_texts() -> dict[str, str]:
    found = {str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
             for pattern in ("gradtutor/messages/zh_CN/*.toml", "gradtutor/course/lessons/*/zh_CN.toml",
                             "solutions/*/*.zh_CN.ipynb", "lessons/*/*.zh_CN.ipynb", "docs/**/*.zh.md")
             for path in sorted(REPO.glob(pattern))}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found["README.md"] = "\n".join(line for line in readme.splitlines() if re.search(r"[\u4e00-\u9fff]", line))
    return found


def test_does_the_glossary_list_the_variants_it_forbids():
    listed = variants()
    assert len(listed) >= 10 and listed["修正"].startswith("解决办法") and listed["论断"] == "结论"
    texts = chinese_texts()
    assert len([name for name in texts if name.endswith(".ipynb")]) == 2 * len(messages.LANGUAGES[1:]) * len(course.load().lessons)
    assert any(name.endswith(".zh.md") for name in texts) and "gradtutor/messages/zh_CN/course.toml" in texts
    assert len([name for name in texts if name.endswith("/zh_CN.toml")]) == len(course.load().lessons)


def test_is_no_listed_variant_in_any_chinese_text():
    found = [f"{name}: {variant!r} (use {use})" for name, text in chinese_texts().items()
             for variant, use in variants().items() if variant in text]
    assert not found, "\n".join(found)
