"""A diagnosis laid out to read: what happened, where, why and the fix, each on its own line.

The diagnosis is worded in one place (gradtutor.checking.diagnose, from the `diagnosis` catalogue) as
one sentence; this module only cuts it where that catalogue's own templates join its parts, so the
wording is never changed here and a reworded catalogue is cut where its new templates join:
  - a failure, "{subject} {what}: {why}": what happened, then why;
  - an error, "{line} — {why}": what was raised, then why;
  - why, "<cause> — <fix>" (the same joint as an error's): the cause, then the fix;
  - " (the path broke at {site})" at the end: the learner's line, on its own.
A message whose joints are not there (a timeout, "not attempted") stays one line.

Where: the exercise and the cell that defines its function, numbered as Jupyter numbers it (In [n]),
in the notebook and the terminal alike; a cell never run has no In [n], so its place among the code
cells is given instead.
"""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from gradtutor.messages import catalogue, language, say


@dataclasses.dataclass(frozen=True)
class VerdictLines:
    what: str  # what happened (the whole message when it has no joints)
    why: str | None = None
    fix: str | None = None
    broke_at: str | None = None  # the learner's line the path broke at, as the message says it


def lay_out(status: str, message: str, lang: str | None = None) -> VerdictLines:
    """Cut a diagnosis at its catalogue's joints; a message without them is one line."""
    lang = lang or language()
    text, broke_at = _split_broke_at(message.strip(), lang)
    dash = _joint(lang, "diagnosis.because", "{line}", "{why}")
    if status == "fail":
        head, why = _cut(text, _joint(lang, "diagnosis.failure", "{what}", "{why}"), first=True)
    elif status == "error":
        head, why = _cut(text, dash, first=True)
    else:
        return VerdictLines(message.strip())
    if why is None:
        return VerdictLines(text, broke_at=broke_at)
    cause, fix = _cut(why, dash, first=False)
    return VerdictLines(head, cause, fix, broke_at)


def _template(lang: str, message_id: str) -> str:
    return catalogue(lang).get(message_id) or catalogue("en")[message_id]


def _joint(lang: str, message_id: str, before: str, after: str) -> str | None:
    """The literal text a template puts between two of its parameters ("{what}: {why}" → ": ")."""
    template = _template(lang, message_id)
    start, end = template.find(before), template.find(after)
    if start < 0 or end < 0 or end <= start + len(before):
        return None
    joint = template[start + len(before):end]
    return joint if "{" not in joint else None


def _cut(text: str, joint: str | None, first: bool) -> tuple[str, str | None]:
    at = -1 if not joint else (text.find(joint) if first else text.rfind(joint))
    if at <= 0:
        return text, None
    return text[:at].strip(), text[at + len(joint):].strip() or None


# The learner's line a diagnosis ends with (gradtutor.checking.diagnose._broke_at): where the path broke, the
# source the tape did not watch, or the step that made float64
SITE_TEMPLATES = ("diagnosis.broke_at", "diagnosis.unwatched_at", "diagnosis.dtype_at")


def _split_broke_at(text: str, lang: str) -> tuple[str, str | None]:
    """The message without its trailing "(the path broke at …)", and that part without its brackets."""
    for message_id in SITE_TEMPLATES:
        found = _split_site(text, _template(lang, message_id))
        if found[1] is not None:
            return found
    return text, None


def _split_site(text: str, template: str) -> tuple[str, str | None]:
    before, _, after = template.partition("{site}")
    if not _:
        return text, None
    before, after = before.lstrip(), after.rstrip()
    found = re.search(re.escape(before) + r"(.+)" + re.escape(after) + r"\s*$", text, re.DOTALL)
    if found is None or found.start() == 0:
        return text, None
    # the template's own brackets go (the line is on its own now), the learner's code keeps its own
    shown = before.lstrip("(（") + found.group(1) + after.rstrip(")）")
    return text[:found.start()].rstrip(), shown.strip()


def cell_of_history(sources: list[str], defines) -> str | None:
    """The kernel's cell that last defined the function, as Jupyter numbers it: In [n] is the history's n-th."""
    for number in range(len(sources), 0, -1):
        if defines(sources[number - 1]):
            return say("text.verdict.cell_run", number=number)
    return None


def cell_of_notebook(path: str | Path, function: str) -> str | None:
    """The notebook's code cell that last defines `function`: In [n] when it has run, else its place."""
    try:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    found = None
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    for number, cell in enumerate(code, start=1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if defines_function(source, function):
            count = cell.get("execution_count")
            found = say("text.verdict.cell_run", number=count) if isinstance(count, int) and count > 0 else \
                say("text.verdict.cell_unrun", number=number)
    return found


def defines_function(source: str, function: str) -> bool:
    return re.search(rf"^(async\s+)?def\s+{re.escape(function)}\s*\(|^{re.escape(function)}\s*=", source, re.M) is not None
