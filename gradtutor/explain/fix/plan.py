"""From findings to one patch: each finding's repair (repairs.py) on the script's text, joined into one diff.

Findings of the same cause at the same gradient call and break line share one repair. Two
repairs that would edit the same characters are not joined: the later one is left out and said.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from gradtutor.explain.fix import repairs
from gradtutor.explain.fix.source import Edit, Source, apply, diff


@dataclass
class Item:
    """One repaired finding: where it was asked, what the patch is for, and (after the re-run) its verification."""

    cause: str
    line: int  # the gradient call in the original script
    broke_line: int | None
    subject: str
    edits: list[Edit]
    verified: bool = False
    why: str = ""  # a message id under fix.why, when not verified
    why_params: dict = field(default_factory=dict)
    fd_error: float | None = None
    compiled_steps: int = 0  # verified from the in-graph checks of this many compiled steps (a traced gradient)
    zero: bool = False  # verified all zero: central differences measured zero as the target's slope there
    call: str = "gradient"  # the finding's call: a gradient call, or "raised" / "watch" (a line that asks no gradient)
    after: dict | None = None  # another cause the re-run found at the same call once this one was gone: cause, line
    symptom: str = ""  # the finding's (none, zeros, nonfinite, error): the same one found again there is not mended
    sources: tuple[str, ...] = ()  # the sources the finding named (the recording's names)


@dataclass
class Manual:
    cause: str
    line: int | None
    reason: str  # a message id under fix.none
    params: dict = field(default_factory=dict)


@dataclass
class Plan:
    script: str
    original: str
    patched: str = ""
    items: list[Item] = field(default_factory=list)
    manual: list[Manual] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    later: list[tuple[str, list[Edit]]] = field(default_factory=list)  # follow-up rounds: (text before, edits)
    follow_ups: list[Item] = field(default_factory=list)  # what the re-run found next, repaired in a later round

    def moved(self, line: int | None) -> int | None:
        """Where a line of the original is in the patched text (None when the patch deleted it)."""
        for text, edits in [(self.original, self.edits), *self.later]:
            line = _moved(text, edits, line)
        return line

    def extend(self, more: Plan) -> None:
        """Add a follow-up round: the repairs of what the re-run of this patch found next."""
        self.later.append((self.patched, more.edits))
        self.patched = more.patched
        self.follow_ups.extend(more.items)

    @property
    def diff(self) -> str:
        return diff(self.original, self.patched, os.path.basename(self.script)) if self.items else ""


def _moved(text: str, edits: list[Edit], line: int | None) -> int | None:
    if line is None or not 1 <= line <= text.count("\n") + 1:
        return None
    lines = text.splitlines(keepends=True)
    start = sum(len(one) for one in lines[:line - 1])
    end = start + (len(lines[line - 1]) if line <= len(lines) else 0)
    delta = 0
    for edit in edits:
        if edit.start <= start and edit.end >= end > start and not edit.text.strip():
            return None
        if edit.end <= start:
            delta += edit.text.count("\n") - text[edit.start:edit.end].count("\n")
    return line + delta


def _same_file(a: str | None, b: str) -> bool:
    return bool(a) and os.path.realpath(a) == os.path.realpath(b)


def make(script: str, findings: list[dict], text: str | None = None) -> Plan:
    """The patch for the script's findings (nothing is written)."""
    if text is None:
        with open(script, encoding="utf-8", newline="") as handle:  # the line endings as the user wrote them
            text = handle.read()
    original = text
    plan = Plan(script, original)
    source = Source(original, os.path.basename(script))
    done, taken = set(), []
    tape_causes = {(f["cause"], (f.get("broke_at") or {}).get("line")) for f in findings
                   if f.get("call") != "apply_gradients"}
    for finding in findings:
        broke = finding.get("broke_at") or {}
        key = (finding["cause"], finding.get("line"), broke.get("line"))
        if key in done or (finding.get("call") == "apply_gradients" and (key[0], key[2]) in tape_causes):
            continue  # the optimizer's complaint about a tape's gradients is repaired with the tape's finding
        done.add(key)
        asked_here = _same_file(finding.get("file"), script) or finding["cause"] in repairs.AT_BREAK_LINE and broke
        if not asked_here or (broke and not _same_file(broke.get("file"), script)):
            where = broke.get("file") if broke and not _same_file(broke.get("file"), script) else finding.get("file")
            plan.manual.append(Manual(finding["cause"], finding.get("line"), "elsewhere",
                                      {"file": os.path.basename(where or "?")}))
            continue
        try:
            repair = repairs.repair(source, finding)
        except repairs.NoRepair as no:
            plan.manual.append(Manual(finding["cause"], finding.get("line"), no.reason, {"line": broke.get("line")}))
            continue
        new = [edit for edit in repair.edits if edit not in taken]  # another finding's repair may be the same
        if any(a.start < b.end and b.start < a.end or a.start == b.start and (a.end, b.end) != (a.start, b.start)
               for a in new for b in taken):  # (two lines inserted at one place, one after the other, do not clash)
            plan.manual.append(Manual(finding["cause"], finding.get("line"), "overlap", {"line": broke.get("line")}))
            continue
        taken.extend(new)
        call = "whole" if repair.whole_run else finding.get("call") if repair.line is None else "gradient"
        plan.items.append(Item(finding["cause"], repair.line or finding["line"], broke.get("line"), repair.subject,
                               repair.edits, call=call, symptom=finding.get("symptom") or "",
                               sources=tuple(finding.get("sources") or ())))
    plan.edits = taken
    plan.patched = apply(original, taken) if taken else original
    return plan
