"""Does every example in "Why is my gradient None?" do what the page says it does?

The troubleshooting guide states, next to each example, what it prints (`# → ...`)
or which exception it raises (`# raises ...`). These tests run every such example
with the TensorFlow and Keras installed here and compare, so a new TensorFlow that
changes a symptom fails loudly instead of leaving the guide wrong.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.tf

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "why-is-my-gradient-none.md"
PRELUDE = "import gradtutor.quiet\nimport numpy as np\nimport tensorflow as tf\nimport keras\n"


def _examples() -> list[tuple[str, str]]:
    """(section anchor, code) of every python block that states its outcome."""
    text = GUIDE.read_text(encoding="utf-8")
    examples, section = [], "top"
    for match in re.finditer(r"^### .*?\{ #([\w-]+) \}$|^```python\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        if match.group(1):
            section = match.group(1)
        elif "# → " in match.group(2) or "# raises " in match.group(2):
            examples.append((section, match.group(2)))
    return examples


EXAMPLES = _examples()

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
def outcomes() -> list[dict]:
    result = subprocess.run([sys.executable, "-c", RUNNER, PRELUDE], input=json.dumps([c for _, c in EXAMPLES]),
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_guide_has_examples_for_its_causes():
    """Does the guide show a runnable example for most of its causes (at least 15)?"""
    assert len({section for section, _ in EXAMPLES}) >= 15, [s for s, _ in EXAMPLES]


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=[f"{s}-{i}" for i, (s, _) in enumerate(EXAMPLES)])
def test_example_does_what_the_guide_says(outcomes, index):
    """Does the example print exactly its `# →` lines, and raise what its `# raises` comment names?"""
    section, code = EXAMPLES[index]
    outcome = outcomes[index]
    expected_lines = [line.split("# → ", 1)[1].rstrip() for line in code.splitlines() if "# → " in line]
    raises = re.search(r"# raises (\w+)", code)
    if raises:
        assert outcome["error"] == raises.group(1), f"#{section}: expected {raises.group(1)}, got {outcome}"
    else:
        assert outcome["error"] is None, f"#{section}: raised {outcome['error']}"
    printed = [line.rstrip() for line in outcome["stdout"].splitlines()]
    assert printed == expected_lines, f"#{section}:\n{code}"
