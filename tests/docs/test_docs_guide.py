"""Does every example in "Why is my gradient None?" do what the page says it does?

The troubleshooting guide states, next to each example, what it prints (`# → ...`)
or which exception it raises (`# raises ...`). These tests run every such example
with the TensorFlow and Keras installed here and compare, so a new TensorFlow that
changes a symptom fails loudly instead of leaving the guide wrong. The Chinese
guide (`why-is-my-gradient-none.zh.md`) is held to the same checks, and to the
English one's sections and examples, so a translation cannot drop a cause.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import markdown  # the docs' own Markdown (mkdocs depends on it)
import pytest

pytestmark = pytest.mark.tf

ROOT = Path(__file__).resolve().parents[2]
GUIDES = {
    "en": ROOT / "docs" / "why-is-my-gradient-none.md",
    "zh": ROOT / "docs" / "why-is-my-gradient-none.zh.md",
}
TRANSLATIONS = [lang for lang in GUIDES if lang != "en"]
PRELUDE = "import gradtutor.quiet\nimport numpy as np\nimport tensorflow as tf\nimport keras\n"


def _examples(guide: Path) -> list[tuple[str, str]]:
    """(section anchor, code) of every python block that states its outcome."""
    text = guide.read_text(encoding="utf-8")
    examples, section = [], "top"
    for match in re.finditer(r"^### .*?\{ #([\w-]+) \}$|^```python\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        if match.group(1):
            section = match.group(1)
        elif "# → " in match.group(2) or "# raises " in match.group(2):
            examples.append((section, match.group(2)))
    return examples


def _anchors(guide: Path) -> list[tuple[int, str]]:
    """(level, anchor) of every heading, in page order, as the site's Markdown gives them ids."""
    md = markdown.Markdown(extensions=["meta", "fenced_code", "tables", "attr_list", "toc"])
    md.convert(guide.read_text(encoding="utf-8"))
    headings, todo = [], list(md.toc_tokens)
    while todo:
        token = todo.pop(0)
        headings.append((token["level"], token["id"]))
        todo[:0] = token["children"]
    return headings


def _without_comments(code: str) -> str:
    """The code with its plain comments removed (a translation may translate them); `# →` and `# raises` stay."""
    lines = [line if re.match(r"\s*# → ", line) else re.sub(r"\s*#(?! → | raises ).*$", "", line)
             for line in code.splitlines()]
    return "\n".join(lines)


EXAMPLES = {lang: _examples(guide) for lang, guide in GUIDES.items()}
CASES = [(lang, index) for lang, examples in EXAMPLES.items() for index in range(len(examples))]

RUNNER = textwrap.dedent("""
    import contextlib, io, json, sys
    exec(compile(sys.argv[1], "<prelude>", "exec"), {})
    results = []
    for code in json.loads(sys.stdin.read()):
        namespace = {}
        exec(compile(sys.argv[1], "<prelude>", "exec"), namespace)
        out = io.StringIO()
        error = None
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<example>", "exec"), namespace)
        except Exception as exc:
            error = type(exc).__name__
        results.append({"stdout": out.getvalue(), "error": error})
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[str, int], dict]:
    """What every example of every guide did, from one TensorFlow process."""
    codes = [EXAMPLES[lang][index][1] for lang, index in CASES]
    result = subprocess.run([sys.executable, "-c", RUNNER, PRELUDE], input=json.dumps(codes),
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return dict(zip(CASES, json.loads(result.stdout.strip().splitlines()[-1])))


@pytest.mark.parametrize("lang", GUIDES)
def test_the_guide_has_examples_for_its_causes(lang):
    """Does the guide show a runnable example for most of its causes (at least 15)?"""
    assert len({section for section, _ in EXAMPLES[lang]}) >= 15, [s for s, _ in EXAMPLES[lang]]


@pytest.mark.parametrize("lang, index", CASES, ids=[f"{lang}-{EXAMPLES[lang][i][0]}-{i}" for lang, i in CASES])
def test_example_does_what_the_guide_says(outcomes, lang, index):
    """Does the example print exactly its `# →` lines, and raise what its `# raises` comment names?"""
    section, code = EXAMPLES[lang][index]
    outcome = outcomes[(lang, index)]
    expected_lines = [line.split("# → ", 1)[1].rstrip() for line in code.splitlines() if "# → " in line]
    raises = re.search(r"# raises (\w+)", code)
    if raises:
        assert outcome["error"] == raises.group(1), f"{lang} #{section}: expected {raises.group(1)}, got {outcome}"
    else:
        assert outcome["error"] is None, f"{lang} #{section}: raised {outcome['error']}"
    printed = [line.rstrip() for line in outcome["stdout"].splitlines()]
    assert printed == expected_lines, f"{lang} #{section}:\n{code}"


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_has_every_section(lang):
    """Does the translated guide have every section of the English one, with the same anchor, in the same order?"""
    english, translated = _anchors(GUIDES["en"]), _anchors(GUIDES[lang])
    assert len(english) >= 25, english
    assert translated == english, (f"missing: {sorted(set(english) - set(translated))}, "
                                   f"extra: {sorted(set(translated) - set(english))} (or a level or the order differs)")


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_has_every_example(lang):
    """Does the translated guide show the English guide's examples, in the same sections, changed only in comments?"""
    english = [(section, _without_comments(code)) for section, code in EXAMPLES["en"]]
    translated = [(section, _without_comments(code)) for section, code in EXAMPLES[lang]]
    assert translated == english
