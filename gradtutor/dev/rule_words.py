"""Rules cannot fire on words: a manifest rule's `source_has` must not match the unchanged starter.

The learner's answer cell starts as the starter: its docstring and comments name the calls a
rule looks for (".numpy()", "sigmoid(logits)", "activation"), and its code already holds the
function name and the parameters. A pattern that matches that text holds for a learner who
changed nothing it describes, so it would word a cause from the starter's words, not from the
learner's code. `gradtutor dev check` reports each such rule as one line.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from gradtutor import messages


def starter_cells(notebook: Path) -> dict[str, str]:
    """grade_id -> source of every graded code cell of a notebook (empty when it cannot be read)."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # dev check's notebook checks report an unreadable starter
    found = {}
    for cell in cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "code" and grade_id:
            source = cell.get("source", "")
            found[grade_id] = "".join(source) if isinstance(source, list) else str(source)
    return found


def rule_word_problems(lesson, shown=str) -> Iterator[str]:
    """One line per diagnosis rule of the lesson whose source_has matches its unchanged starter cell
    (in any language's learner copy), naming the lesson's lesson.toml. shown: how a path is written in the line."""
    seen = set()
    for lang in messages.LANGUAGES:
        notebook = lesson.release_notebook(lang)
        cells = starter_cells(notebook) if notebook.is_file() else {}
        for exercise in lesson.exercises:
            text = cells.get(exercise.id, "")
            for rule in exercise.diagnoses:
                found = re.search(rule.source_has, text) if rule.source_has and text else None
                if found is None or (exercise.id, rule.id) in seen:
                    continue
                seen.add((exercise.id, rule.id))
                line = text[:found.start()].count("\n")
                quoted = text.splitlines()[line].strip()[:80]
                yield (f"{shown(lesson.manifest)}: lesson {lesson.id} exercise {exercise.id} diagnosis {rule.id}: "
                       f"source_has {rule.source_has!r} matches the unchanged starter in {shown(notebook)} "
                       f"({found.group(0)!r} in line {line + 1}: {quoted!r}) — narrow the pattern to code the "
                       "learner writes, so the starter's own words never pick the wording")
