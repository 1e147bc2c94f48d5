"""The package's TOML files (the message catalogues, the course manifest), parsed once per install, not per command.

Parsing TOML is most of what a short `gradtutor` command does before its real work: the course
manifest and a language's catalogues are ~150 KB of it, read by every `gradtutor check` even when
the warm checker does the checking. So, as Python keeps .pyc files, the parsed data is kept beside
the file in __pycache__/ (as JSON) and used while the file, and the code that vouched for the data
(`depends`: the schema that validated it), have the size and modification time it was made from.
A folder that cannot be written (a read-only install, a sandboxed kernel) only means parsing every time.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

FORMAT = 1  # of the kept files: a gradtutor that keeps them differently ignores older ones


class NotToml(ValueError):
    """The file is not valid TOML; the text is the parser's (tomllib is imported only to parse)."""


def load(path: Path, check: Callable[[dict], None] | None = None, depends: tuple = ()) -> dict:
    """The data of the TOML file at `path`; OSError or UnicodeDecodeError as reading it raises, NotToml.

    check(data) runs on freshly parsed data and may raise; only data it let through is kept.
    """
    path = Path(path)
    stamp = [FORMAT, *(_stamp(Path(p)) for p in (path, *depends))]
    kept = path.parent / "__pycache__" / f"{path.name}.json"
    try:
        saved = json.loads(kept.read_text(encoding="utf-8"))
        if isinstance(saved, dict) and saved.get("stamp") == stamp and isinstance(saved.get("data"), dict):
            return saved["data"]
    except (OSError, ValueError):
        pass
    data = parse(path.read_text(encoding="utf-8"))
    if check is not None:
        check(data)
    if stamp == [FORMAT, *(_stamp(Path(p)) for p in (path, *depends))]:  # unchanged while it was read
        _keep(kept, {"stamp": stamp, "data": data})
    return data


def parse(text: str) -> dict:
    """TOML text's data, NotToml when it is not TOML: the one place that knows where the parser lives."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NotToml(str(exc)) from exc


def _stamp(path: Path) -> list[int]:
    info = path.stat()
    return [info.st_size, info.st_mtime_ns]


def _keep(kept: Path, saved: dict) -> None:
    try:
        text = json.dumps(saved, ensure_ascii=False)
    except (TypeError, ValueError):
        return  # a date or time value: JSON has none, so this file is parsed every time
    try:
        kept.parent.mkdir(exist_ok=True)
        tmp = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(kept)
    except OSError:
        pass  # a folder this user cannot write: parse every time, as before
