"""The guide's before/after pairs (docs/hooks/fix_examples.py): made by the tool at build time, verified, in both languages."""
from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

import fix_examples  # docs/hooks/fix_examples.py: pyproject.toml's pytest `pythonpath` has docs/hooks, as mkdocs does

pytestmark = pytest.mark.tf

REPO = Path(__file__).resolve().parents[2]
GUIDE = {"en": REPO / "docs" / "why-is-my-gradient-none.md", "zh": REPO / "docs" / "why-is-my-gradient-none.zh.md"}


@pytest.fixture(scope="module", autouse=True)
def one_child_for_every_example():
    """The guide's examples and the failing one below, made in one child process (as a build makes them)."""
    fix_examples.run([*fix_examples.MARKER.findall(GUIDE["en"].read_text()), "leaves_gan_numpy.py"])


def _page(markdown: str, locale: str) -> str:
    plugin = types.SimpleNamespace(current_language=locale, default_language="en", build_languages=["en", "zh"])
    config = types.SimpleNamespace(plugins={"i18n": plugin})
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri=f"why-is-my-gradient-none.{locale}.md"))
    return fix_examples.on_page_markdown(markdown, page, config, None)


def test_both_languages_mark_the_same_examples_one_per_repairable_section():
    marked = {lang: fix_examples.MARKER.findall(path.read_text()) for lang, path in GUIDE.items()}
    assert marked["en"] == marked["zh"] and len(marked["en"]) == len(set(marked["en"])) >= 10
    assert all((fix_examples.CORPUS / name).is_file() for name in marked["en"])


def test_the_guide_shows_each_example_as_the_tool_made_it_verified(caplog):
    english, chinese = (_page(path.read_text(), locale) for path, locale in ((GUIDE["en"], "en"),
                                                                             (GUIDE["zh"], "zh")))
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []
    assert "<!-- fix-example" not in english + chinese
    marked = fix_examples.MARKER.findall(GUIDE["en"].read_text())
    shown = re.findall(r'^\?\?\? example "Before and after: what `gradtutor explain --fix` does to (\S+)"$',
                       english, re.MULTILINE)
    assert shown == marked
    assert english.count("    ✓ verified: the gradient for ") == len(marked)
    assert chinese.count("    ✓ 已验证：") == len(marked)
    block = english.split('does to unwatched_constant.py"', 1)[1].split("    ✓", 1)[0]
    assert "    +    g.watch(w)" in block and "    --- a/unwatched_constant.py" in block


def test_an_example_that_does_not_verify_is_a_warning_not_a_page(caplog):
    text = _page("<!-- fix-example: leaves_gan_numpy.py -->\n", "en")
    assert text == "\n"
    assert any("did not verify" in r.getMessage() for r in caplog.records)
