"""The guide's before/after pairs, made by `gradtutor explain --fix` itself at docs build (never pasted).

A line `<!-- fix-example: SCRIPT.py -->` in a page becomes the tool's patch for the explain
corpus's tests/explain/corpus/SCRIPT.py (a real mistake from a public question) as a diff, with the
verification the tool printed, in the page's language. Every example of the site runs once
per build, in one child process (this file run as `python fix_examples.py OUT SCRIPT…`:
TensorFlow imported once, about 10 s), and both languages' pages reuse the result. An example
whose patch does not verify is a warning, so `mkdocs build --strict` fails rather than show it.
"""
from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import site_languages  # docs/hooks (on sys.path while mkdocs loads a hook): the page's language, as the site finds it

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "explain" / "corpus"
MARKER = re.compile(r"^<!-- fix-example: (\S+\.py) -->$", re.MULTILINE)
log = logging.getLogger("mkdocs.plugins.gradtutor.fix_examples")
_done: dict[str, dict] = {}


def run(names: list[str]) -> dict[str, dict]:
    """Each corpus script explained, patched and verified: {name: the fix runner's row}."""
    wanted = [name for name in dict.fromkeys(names) if name not in _done]
    if wanted:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "fix.jsonl"
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
            subprocess.run([sys.executable, str(REPO / "tests" / "support" / "fix_runner.py"), str(out),
                            *(str(CORPUS / name) for name in wanted)], cwd=CORPUS, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
            _done.update((row["script"], row) for row in map(json.loads, out.read_text().splitlines()))
    return {name: _done[name] for name in names}


def render(row: dict, lang: str) -> str | None:
    """The example as Markdown (None when its patch did not verify)."""
    from gradtutor import messages

    items = row["patched"]
    if not items or not all(item["verified"] for item in items):
        return None
    said = []
    for item in items:
        text = messages.say("fix.report.verified", lang=lang, subject=item["subject"])
        if item["fd_error"] is not None:
            text += "; " + messages.say("fix.report.central", lang=lang, error=f"{item['fd_error']:.1e}")
        said.append(text)
    title = messages.say("fix.docs.title", lang=lang, script=row["script"])
    body = "\n".join(f"    {line}" if line else "" for line in ["```diff", *row["diff"].splitlines(), "```"])
    notes = "\n".join(f"    ✓ {text}" for text in said)
    return f'??? example "{title}"\n\n{body}\n\n{notes}\n'


def on_page_markdown(markdown, page, config, files):
    names = MARKER.findall(markdown)
    if not names:
        return markdown
    lang = site_languages.lang_of(site_languages.locale(config))
    missing = [name for name in names if not (CORPUS / name).is_file()]
    for name in missing:
        log.warning("%s: no corpus script tests/explain/corpus/%s for a fix example", page.file.src_uri, name)
    rows = run([name for name in names if name not in missing])

    def replace(match):
        row = rows.get(match.group(1))
        shown = render(row, lang) if row else None
        if row and shown is None:
            log.warning("%s: the fix example for %s did not verify: %s", page.file.src_uri, match.group(1),
                        [(item["cause"], item["why"]) for item in row["patched"]])
        return shown or ""

    return MARKER.sub(replace, markdown)
