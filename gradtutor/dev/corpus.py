"""One schema for every corpus of code and the verdict it must get, and its one reader.

Three corpora hold real code and what gradtutor must say of it:
  the known answers    a lesson's answers.toml       `[[answer]]` tables, the code inline (gradtutor.dev.answers)
  the hostile corpus   tests/hostile/corpus.toml     `[[case]]` tables, each naming a file beside it
  the explain corpus   tests/explain/corpus/*.py     one script each, what it must get in `# key: …` headers
Whatever its form on disk, every entry is a `Case`: the code (inline, or a file) and what it must get —
  expect   the outcome: a verdict's status (pass | fail | error | not_attempted | timeout), "unreadable" (the
           file cannot be read at all), or for `gradtutor explain` "found" (a finding) or "clean" (none);
           a list where more than one is right
  cause    the cause id it must name (a gradtutor.protocol.Cause)
  line     where: the learner's line its message must quote — for a script, that line's number
  says     what its message must say: regular expressions (`(?i)` for any case)
  source   where the mistake was seen (a public question, an issue)
— and its corpus's own fields (`context`: the exercise, the lesson, how it attacks, …). pytest and `gradtutor
dev check` read the corpora here, so both hold them to the same rules; a malformed entry is one line naming
the file, the entry and what to fix (CourseError).
"""
from __future__ import annotations

import dataclasses
import re
import types
from pathlib import Path
from typing import Mapping

from gradtutor.errors import CourseError
from gradtutor.messages import toml_files
from gradtutor.protocol import Cause, Status

VERDICTS = tuple(s.value for s in Status)
UNREADABLE = "unreadable"  # `gradtutor check` cannot read the file at all (exit 2)
FOUND, CLEAN = "found", "clean"  # what `gradtutor explain` must say of a script: a finding, or none
SCHEMA = {"expect", "cause", "line", "says", "source"}  # what every corpus's entries may say of the outcome

HEADER = re.compile(r"^# (?P<key>[a-z][a-z0-9-]*): (?P<value>.*)$", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Case:
    corpus: str  # the file the entry is in (a script is its own)
    number: int  # its place in that file, from 1
    name: str
    expect: tuple[str, ...]
    code: str = ""  # inline code, or the text of `file`
    file: Path | None = None
    cause: str = ""
    line: str = ""
    says: tuple[str, ...] = ()
    source: str = ""
    context: Mapping[str, object] = dataclasses.field(default_factory=lambda: types.MappingProxyType({}))

    def label(self) -> str:
        return f"{self.corpus} entry {self.number} ({self.name})"

    def words_problem(self, message: str) -> str | None:
        """What the message does not say of what this case expects it to (its quoted line, its words), or None."""
        return words_problem(message, self.line, self.says)


def words_problem(message: str, line: str, says: tuple[str, ...]) -> str | None:
    """What `message` does not say that an entry expects: the learner's `line` quoted (a number is a script's
    line, not words), every pattern of `says`; None when it says it all."""
    message = message or ""
    first_line = message.splitlines()[0] if message else ""
    if line and not line.isdigit() and line not in message:
        return f"its message does not quote {line!r}: {first_line}"
    unsaid = [p for p in says if not re.search(p, message)]
    if unsaid:
        return f"its message does not say {unsaid[0]!r}: {first_line}"
    return None


def read_tables(path: Path, table: str, *, outcomes: tuple[str, ...], required: set[str],
                context: set[str] = frozenset(), code_from: str = "code") -> list[Case]:
    """Every `[[table]]` entry of a TOML corpus: the schema's keys, `required` ones, and its corpus's `context` keys.

    `code_from` is "code" (the code inline) or "file" (a file beside the corpus, read here).
    """
    path = Path(path)
    try:
        entries = toml_files.parse(path.read_text(encoding="utf-8")).get(table, [])
    except FileNotFoundError:
        raise CourseError(f"{path}: no such file — the corpus is missing") from None
    except (OSError, UnicodeDecodeError, toml_files.NotToml) as exc:
        raise CourseError(f"{path}: cannot be read ({exc}) — fix the file") from None
    allowed = SCHEMA | set(required) | set(context) | {code_from, "name"}
    cases = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: {table} {number}"
        if set(entry) - allowed or not set(required) <= set(entry):
            raise CourseError(f"{where}: has keys {sorted(entry)} — it needs {sorted(required)} "
                              f"and may have {sorted(allowed - set(required))}")
        code, file = entry.get("code", ""), None
        if code_from == "file":
            file = path.parent / entry["file"]
            if not file.is_file():
                raise CourseError(f"{where}: file {entry['file']!r} is not beside {path.name} — add it or fix the name")
        expect = entry.get("expect", ())
        outcome = (expect,) if isinstance(expect, str) else tuple(expect)
        cases.append(_checked(Case(str(path), number, entry.get("name", entry.get("file", "")), outcome, code, file,
                                   entry.get("cause", ""), str(entry.get("line", "")), _says(entry, where),
                                   entry.get("source", ""),
                                   types.MappingProxyType({k: v for k, v in entry.items() if k in context})),
                              where, outcomes))
    return cases


HOSTILE_CONTEXT = {"file", "lesson", "exercise", "kind", "exit", "cli", "workspace", "why"}


def read_hostile(path: Path) -> list[Case]:
    """The hostile corpus: each `[[case]]` names a submission beside it, the exercise it is graded as, how it
    attacks (`kind`), and the statuses that are right for it — never pass."""
    cases = read_tables(path, "case", outcomes=VERDICTS + (UNREADABLE,), required={"file", "lesson", "exercise", "kind",
                                                                                   "expect"},
                        context=HOSTILE_CONTEXT, code_from="file")
    for case in cases:
        if Status.PASS.value in case.expect:
            raise CourseError(f"{path}: case {case.number}: expect {list(case.expect)} — a hostile submission never passes")
    return cases


def read_script(path: Path) -> Case:
    """A script whose `# expect: cause=ID line=N` (or `# expect: clean`) and `# source: URL` headers say what
    `gradtutor explain` must find in it; other headers (`# keras: 2`, `# expect-keras: …`) are its context."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    top = "\n".join(line for line in _leading_comments(text))  # the headers; comments in the code are code
    headers = {m["key"]: m["value"].strip() for m in HEADER.finditer(top)}
    where = f"{path}"
    if "expect" not in headers or "source" not in headers:
        raise CourseError(f"{where}: needs a `# expect: cause=ID line=N` (or `# expect: clean`) and a "
                          "`# source: URL` header — add them at the top")
    fields = dict(part.split("=", 1) for part in headers["expect"].split() if "=" in part)
    if headers["expect"] == CLEAN:
        outcome, cause, line = (CLEAN,), "", ""
    elif set(fields) == {"cause", "line"} and fields["line"].isdigit():
        outcome, cause, line = (FOUND,), fields["cause"], fields["line"]
    else:
        raise CourseError(f"{where}: `# expect: {headers['expect']}` — write `cause=ID line=N` or `clean`")
    context = {k: v for k, v in headers.items() if k not in ("expect", "source")}
    return _checked(Case(path.name, 1, path.stem, outcome, text, path, cause, line, (), headers["source"],
                         types.MappingProxyType(context)), where, (FOUND, CLEAN))


def read_scripts(folder: Path) -> list[Case]:
    """Every script of a folder (the explain corpus), in name order."""
    return [read_script(path) for path in sorted(Path(folder).glob("*.py"))]


def checkout_corpora(root: Path) -> tuple[list[Case], list[str]]:
    """The explain and hostile corpora of a checkout at `root` (an installed package has none), and a line for
    each that does not follow the schema: what `gradtutor dev check` reads beside the lessons' answers."""
    cases, problems = [], []
    for read, path in ((read_scripts, Path(root) / "tests" / "explain" / "corpus"),
                       (read_hostile, Path(root) / "tests" / "hostile" / "corpus.toml")):
        if path.exists():
            try:
                cases += read(path)
            except CourseError as exc:
                problems.append(str(exc))
    return cases, problems


def _leading_comments(text: str):
    for line in text.splitlines():
        if not line.startswith("#"):
            return
        yield line


def _says(entry: dict, where: str) -> tuple[str, ...]:
    says = entry.get("says", [])
    if not isinstance(says, list) or not all(isinstance(p, str) and _compiles(p) for p in says):
        raise CourseError(f"{where}: says must be a list of regular expressions, each in '…' — fix it")
    return tuple(says)


def _checked(case: Case, where: str, outcomes: tuple[str, ...]) -> Case:
    """The schema's rules for every corpus: a known outcome, a known cause, a quoted line that is in the code."""
    if not case.expect or set(case.expect) - set(outcomes):
        raise CourseError(f"{where}: expect {list(case.expect)} — use one of: {', '.join(outcomes)}")
    if case.cause and case.cause not in {c.value for c in Cause}:
        raise CourseError(f"{where}: cause {case.cause!r} is not a cause id — use one of gradtutor.protocol.Cause")
    if case.line and not case.line.isdigit() and case.code and case.line not in case.code:
        raise CourseError(f"{where}: line {case.line!r} is not in its code — copy the line from the code")
    return case


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True
