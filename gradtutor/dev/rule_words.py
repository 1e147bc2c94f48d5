"""Rules and the words around them: a manifest rule's `source_has` must not match the unchanged starter,
and every rule an exercise's text states must be one its manifest checks.

The learner's answer cell starts as the starter: its docstring and comments name the calls a
rule looks for (".numpy()", "sigmoid(logits)", "activation"), and its code already holds the
function name and the parameters. A pattern that matches that text holds for a learner who
changed nothing it describes, so it would word a cause from the starter's words, not from the
learner's code. `gradtutor dev check` reports each such rule as one line.

Every rule an exercise's text states is checked: a text that says how to compute the answer ("one
forward pass and one tape", "(so watch it)", "in `build` with `self.add_weight`", "no loop over t")
must have that rule in its lesson.toml `requires`, or the checker passes an answer that breaks it.

The text is what a learner reads of the exercise, in every language: the markdown cells of the
lesson's source notebook (solutions/<id>/<id>[.<lang>].ipynb) from the graded cell before it to the
exercise's own, and its hints (lesson.toml, and their translations in zh_CN.toml). Each rule of
gradtutor.course.schema.REQUIREMENTS has the phrasings that state it below; `gradtutor dev check`
reports each rule stated and not required as one line.
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


# --------------------------------------------------------------------------- rules the texts state
# rule (a lesson.toml `requires` item) -> the phrasings that state it, English and Chinese, matched on
# the text with its runs of white space made one space
PHRASINGS = {
    "tape": (r"with a `?GradientTape`?", r"\(so watch it\)", r"\(watch `\w+`\)", r"compute the Jacobian inside it",
             r"用 `?GradientTape`? ?计算", r"（所以要监视它）", r"（要监视 `\w+`）", r"在函数内部计算雅可比矩阵"),
    "one-pass": (r"\**one\**\s*forward pass and one tape", r"\**一次\**\s*前向传播和一个梯度带"),
    "one-jacobian": (r"one tape and one Jacobian call", r"no loop over \$?t\b", r"一个梯度带和一次雅可比调用",
                     r"不对 ?\$?t\$? ?做循环"),
    "forward-mode": (r"use `tf\.autodiff\.ForwardAccumulator`", r"使用 `tf\.autodiff\.ForwardAccumulator`"),
    "numpy": (r"computed by NumPy", r"由 NumPy 在"),
    "custom-gradient": (r"`tf\.custom_gradient` gives it its derivative", r"由 `tf\.custom_gradient` 给出"),
    "add-weight-in-build": (r"in `build` with `self\.add_weight`", r"在 `build` 中用 `self\.add_weight`"),
}
# a rule whose check holds another's: one tape and one Jacobian call is a tape too
COVERS = {"one-jacobian": {"tape"}, "forward-mode": {"tape"}, "one-pass": {"tape"}, "custom-gradient": {"tape"}}


def exercise_texts(notebook: Path) -> dict[str, str]:
    """grade_id -> the markdown a learner reads for that exercise: every markdown cell after the graded
    cell before it, up to its own graded cell (empty when the notebook cannot be read)."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # dev check's notebook checks report an unreadable notebook
    found, pending = {}, []
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "markdown":
            pending.append(source)
        elif cell.get("cell_type") == "code" and grade_id:
            if grade_id not in found and cell["metadata"]["nbgrader"].get("solution"):
                found[grade_id] = "\n".join(pending)
            pending = []
    return found


def stated_rules(text: str) -> dict[str, str]:
    """rule -> the words of `text` that state it."""
    flat = re.sub(r"\s+", " ", text)
    found = {}
    for rule, phrasings in PHRASINGS.items():
        match = next((m for m in (re.search(p, flat, re.IGNORECASE) for p in phrasings) if m), None)
        if match:
            found[rule] = match.group(0)
    return found


def _texts(lesson, exercise) -> Iterator[tuple[str, str]]:
    """(where, text) of everything a learner reads of one exercise, in every language."""
    for lang in messages.LANGUAGES:
        notebook = lesson.source_notebook(lang)
        if notebook.is_file():
            yield notebook.as_posix(), exercise_texts(notebook).get(exercise.id, "")
        for key, hint in zip(exercise.hint_keys, exercise.hints):
            yield f"{lesson.manifest.as_posix()} ({key}, {lang})", messages.course_text(key, hint, lang)


def unchecked_rule_problems(lesson, shown=str) -> Iterator[str]:
    """One line per rule an exercise's text states that its lesson.toml `requires` does not check."""
    for exercise in lesson.exercises:
        checked = set(exercise.requires).union(*(COVERS.get(need, set()) for need in exercise.requires))
        reported = set()
        for where, text in _texts(lesson, exercise):
            for rule, words in stated_rules(text).items():
                if rule in checked or rule in reported:
                    continue
                reported.add(rule)
                yield (f"{shown(lesson.manifest)}: lesson {lesson.id} exercise {exercise.id}: its text states the rule "
                       f"{rule!r} ({words!r} in {where}) but `requires` does not check it — add {rule!r} to the "
                       "exercise's requires (a rule of gradtutor.course.schema.REQUIREMENTS), or take the rule out "
                       "of the text")
