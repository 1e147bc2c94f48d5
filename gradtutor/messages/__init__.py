"""Every sentence gradtutor shows a learner or an instructor, by id, in English or Chinese (简体).

A message is an id and named parameters: `say("check.summary", passed=3, total=4)`.
The texts live in catalogues beside this file, one folder per language and one TOML
file per area (`en/check.toml` holds the ids `check.*`); a test checks that every id
has both translations and that both use the same parameters. What a machine reads
(`--json`'s `cause` and `status`, nbgrader's `ename`) stays a stable id; only the
words are translated.

The course's own words (titles, hints, diagnoses) are English in the manifest; their
Chinese is in `zh_CN/course.toml` (the course's title and summary) and in each lesson's
folder (gradtutor/course/lessons/<id>/zh_CN.toml), keyed by the text's ids (never its
position) and holding the English it translates, so a changed English text shows
up as a missing translation instead of a stale one (`course_text`).

The language, first found wins: `use(...)` (the CLI's `--lang`; a Dask grading host, the
instructor's), GRADTUTOR_LANG, the language of the workspace the current folder is in (the
marker `gradtutor init --lang zh` wrote: so every command run there, and a notebook's check()
in a kernel started there, speak the notebooks' language whatever the locale), the locale
(LC_ALL, LC_MESSAGES, LANG), English. The warm checker is one per language
(gradtutor.learner.daemon.package_key), so it never switches.

A ground module: it imports nothing of gradtutor's but the error types.
"""
from __future__ import annotations

import functools
import os
import string
from pathlib import Path

from gradtutor.errors import UsageError
from gradtutor.messages import toml_files  # the catalogues, parsed once per install

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh_CN")
DEFAULT = "en"
COURSE_AREA = "course"  # the translated manifest texts: zh_CN/course.toml (English stays in course.toml)
LESSONS_DIR = HERE.parent / "course" / "lessons"  # each lesson's folder holds its own translations, <lang>.toml
WORKSPACE_MARKER = ".gradtutor-workspace"  # the file `gradtutor init` writes at a workspace's top
LANGUAGE_LINE = "language: "  # the marker's line naming the workspace's language

_chosen: str | None = None  # set by use(): outranks the environment


def normalise(name: str | None) -> str | None:
    """A language or locale name as one of LANGUAGES: "zh", "zh-CN", "zh_CN.UTF-8", "zh_Hans" → "zh_CN";
    "en_GB.UTF-8", "C", "POSIX" → "en"; anything else (or empty) → None."""
    text = (name or "").strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if not text:
        return None
    if text in ("c", "posix") or text == "en" or text.startswith("en_"):
        return "en"
    if text == "zh" or text in ("zh_cn", "zh_sg", "zh_hans") or text.startswith("zh_hans"):
        return "zh_CN"
    return None


def parse_language(name: str, where: str = "--lang") -> str:
    """A language asked for by name (`--lang`, GRADTUTOR_LANG); an unknown one is a one-line UsageError."""
    found = normalise(name)
    if found is None:
        raise UsageError(f"{where}: unknown language {name!r} — use en or zh (简体中文)")
    return found


def from_command_line(argv: list[str]) -> str | None:
    """The language `--lang X` / `--lang=X` names anywhere on a command line (before a bare `--`), or None.

    Read before the parser is built, so that its help texts, and its errors, are in that language.
    """
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word.startswith("--lang="):
            return parse_language(word.split("=", 1)[1])
        if word == "--lang":
            if index + 1 >= len(argv):
                raise UsageError("--lang needs a language: en or zh (简体中文)")
            return parse_language(argv[index + 1])
    return None


def from_file_option(argv: list[str]) -> str | None:
    """The language of the workspace that `check`'s or `watch`'s `--file PATH` is in, or None: a notebook checked
    from outside its workspace is spoken of in that workspace's language (after --lang and GRADTUTOR_LANG)."""
    if next((word for word in argv if not word.startswith("-")), None) not in ("check", "watch"):
        return None
    for index, word in enumerate(argv):
        if word == "--":
            break
        named = word.split("=", 1)[1] if word.startswith("--file=") else \
            argv[index + 1] if word == "--file" and index + 1 < len(argv) else None
        if named:
            try:
                return workspace_language(str(Path(named).expanduser().resolve().parent))
            except (OSError, RuntimeError):  # RuntimeError: a ~user that has no home folder
                return None
    return None


def from_environment() -> str | None:
    """The language GRADTUTOR_LANG names, or None when it is unset; one it does not name is a UsageError."""
    asked = os.environ.get("GRADTUTOR_LANG", "").strip()
    return parse_language(asked, "GRADTUTOR_LANG") if asked else None


def language() -> str:
    """The language messages are shown in now (see the module's docstring for the order).

    Never fails: a GRADTUTOR_LANG naming no language counts as unset here (the CLI refuses it
    up front with from_environment), so an error about it can still be shown.
    """
    if _chosen:
        return _chosen
    asked = normalise(os.environ.get("GRADTUTOR_LANG"))
    if asked:
        return asked
    here = workspace_here()
    if here:
        return here
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "").strip()
        if value:  # the first locale variable set decides, as in POSIX; one we have no catalogue for is English
            return normalise(value) or DEFAULT
    return DEFAULT


def marker_language(home: Path) -> str | None:
    """The language a workspace's marker names (its last language line), or None (no marker, or none named)."""
    try:
        lines = (home / WORKSPACE_MARKER).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    chosen = [line[len(LANGUAGE_LINE):].strip() for line in lines if line.startswith(LANGUAGE_LINE)]
    return normalise(chosen[-1]) if chosen else None


@functools.lru_cache(maxsize=64)
def workspace_language(folder: str | None) -> str | None:
    """The language of the workspace containing `folder` (the nearest marker upwards), or None.

    Cached per folder: say() asks for the language of every message. `gradtutor init` calls
    workspace_language.cache_clear() after writing a marker.
    """
    if not folder:
        return None
    here = Path(folder)
    for candidate in (here, *here.parents):
        if (candidate / WORKSPACE_MARKER).is_file():
            return marker_language(candidate)
    return None


def workspace_here() -> str | None:
    """The language of the workspace the current folder is in, or None."""
    try:
        return workspace_language(os.getcwd())
    except OSError:  # the folder was deleted under us: no workspace
        return None


def use(name: str | None, export: bool = True) -> str:
    """Show messages in this language from now on (None: back to the environment's choice).

    export: also set GRADTUTOR_LANG, so the processes this one starts (the checker's worker,
    a notebook's judge, nbgrader's kernels) speak it too.
    """
    global _chosen
    _chosen = parse_language(name) if name else None
    if export and _chosen:
        os.environ["GRADTUTOR_LANG"] = _chosen
    return language()


def say(message_id: str, lang: str | None = None, **params) -> str:
    """The message `message_id` in the current language (or `lang`), its {parameters} filled in.

    An id missing from a translation falls back to English (the catalogue test keeps that from
    shipping); an id missing from English is a programming error and raises KeyError.
    """
    lang = lang or language()
    text = catalogue(lang).get(message_id)
    if text is None:
        text = catalogue(DEFAULT)[message_id]
    return text.format(**params) if params else text.replace("{{", "{").replace("}}", "}")


def join(items, lang: str | None = None) -> str:
    """Names or phrases as one list, with the language's own separator (", " in English, "、" in Chinese)."""
    return say("text.separator", lang).join(str(item) for item in items)


def has(message_id: str) -> bool:
    """Is there a message with this id (in English, which every translation follows)?"""
    return message_id in catalogue(DEFAULT)


def course_text(key: str, english: str, lang: str | None = None) -> str:
    """A manifest text in the current language: its translation when one matches this English (and is
    written: a new lesson's stubs are empty), else the English."""
    lang = lang or language()
    if lang == DEFAULT:
        return english
    entry = _texts_of(lang, key.partition(".")[0]).get(key)
    return entry["text"] if entry and entry.get("en") == english and entry.get("text") else english


def parameters(text: str) -> set[str]:
    """The {names} a message text takes."""
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(text) if field}


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """Every message id of one language → its text (the course's texts are separate: course_catalogue)."""
    found: dict[str, str] = {}
    for path in sorted((HERE / lang).glob("*.toml")):
        if path.stem == COURSE_AREA:
            continue
        _flatten(toml_files.load(path), path.stem, found)
    return found


@functools.cache
def course_catalogue(lang: str) -> dict[str, dict]:
    """A language's translations of the manifest's texts: key → {"en": the English, "text": the translation}.
    The course's own, then every lesson folder's (their keys start with the lesson's id, so none collide)."""
    found = dict(_texts_of(lang, COURSE_AREA))
    for folder in sorted(LESSONS_DIR.glob(f"*/{lang}.toml")):
        found.update(_texts_of(lang, folder.parent.name))
    return found


@functools.cache
def _texts_of(lang: str, owner: str) -> dict[str, dict]:
    """The translations one file holds: the course's (owner "course") or a lesson's, whose id starts its keys.
    Read by its path, never by listing a folder: a sandboxed kernel may not list gradtutor/course/lessons/."""
    if not owner.isidentifier():
        return {}
    path = HERE / lang / f"{COURSE_AREA}.toml" if owner == COURSE_AREA else LESSONS_DIR / owner / f"{lang}.toml"
    if not path.is_file():
        return {}
    return {entry["key"]: entry for entry in toml_files.load(path).get("text", [])}


def _flatten(table: dict, prefix: str, into: dict[str, str]) -> None:
    for name, value in table.items():
        if isinstance(value, dict):
            _flatten(value, f"{prefix}.{name}", into)
        else:
            into[f"{prefix}.{name}"] = value
