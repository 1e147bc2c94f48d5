"""The lesson notebooks, executed at build time: from a cache keyed by content, or run now, several at once.

Executed notebooks are cached in build/docs-cache/ (GRADTUTOR_DOCS_CACHE) by a hash of the notebook, the
package's sources and the library versions; a language other than English runs only its answer and check
cells (their verdicts are its words), the rest of its page shows the English run's outputs.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import time
from importlib import metadata
from pathlib import Path

from mkdocs.exceptions import PluginError

import notebooks  # docs/hooks/notebooks.py

ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger("mkdocs.plugins.gradtutor")

CACHE = Path(os.environ.get("GRADTUTOR_DOCS_CACHE", ROOT / "build" / "docs-cache"))

DOCS_MESSAGES = "docs.toml"  # gradtutor/messages/<lang>/docs.toml: this hook's sentences

def _outputs_depend_on() -> str:
    """Everything besides the notebook that shapes its outputs: the package's sources and library versions."""
    digest = hashlib.sha256()
    package = ROOT / "gradtutor"
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts
                       and p.name != DOCS_MESSAGES):  # the site's own words, not the notebooks' outputs
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in ("tensorflow", "keras", "tf-keras", "numpy", "matplotlib", "ipykernel", "nbclient"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{name}={metadata.version(name)}\0".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()

def executed_notebooks(lessons, lang: str = "en") -> dict:
    """Each lesson's solutions notebook, executed: from the cache, or run now (several at once).

    In a language other than English, only its answer and check cells (notebooks.checks_only), under that
    language: the rest of the page shows the English run's outputs, which the same code gives.
    """
    import nbformat

    extra = _outputs_depend_on() + lang
    wanted, pending = {}, []
    for lesson in lessons:
        source = lesson.source_notebook(lang)
        if not source.is_file():
            raise PluginError(f"{lesson.id}: the solutions notebook {source} is missing (listed in course.toml)")
        prepared = notebooks.prepare(nbformat.read(source, as_version=4))
        if lang != "en":
            prepared = notebooks.checks_only(prepared)
        text = nbformat.writes(prepared)
        key = notebooks.cache_key(text, extra)
        target = CACHE / "notebooks" / f"{lesson.id}-{'' if lang == 'en' else lang + '-'}{key}.ipynb"
        wanted[lesson.id] = target
        if not target.is_file():
            staged = CACHE / "notebooks" / f"{lesson.id}-{key}.{os.getpid()}.prepared.ipynb"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_text(text, encoding="utf-8")
            pending.append((lesson, staged, target, lang))
    if pending:
        _run_all(pending)
    executed = {lesson_id: nbformat.read(path, as_version=4) for lesson_id, path in wanted.items()}
    _prune(wanted.values(), lang)
    return executed

def _run_all(pending) -> None:
    jobs = max(1, int(os.environ.get("GRADTUTOR_DOCS_JOBS", min(len(pending), 4))))
    log.info("executing %d lesson notebook(s), %d at a time: %s", len(pending), jobs,
             ", ".join(f"{lesson.id} ({lang})" for lesson, _, _, lang in pending))
    queue, running, failures = list(pending), [], []
    while queue or running:
        while queue and len(running) < jobs:
            lesson, staged, target, lang = queue.pop(0)
            logfile = target.with_suffix(".log")
            running.append((lesson, staged, target, logfile, time.monotonic(),
                            notebooks.start_execution(staged, target, logfile, lang)))
        for entry in list(running):
            lesson, staged, target, logfile, started, process = entry
            if process.poll() is None:
                continue
            running.remove(entry)
            staged.unlink(missing_ok=True)
            if process.returncode == 0 and target.is_file():
                log.info("%s executed in %.0f s", lesson.id, time.monotonic() - started)
            else:
                tail = logfile.read_text(errors="replace")[-3000:] if logfile.is_file() else ""
                failures.append(f"{lesson.id} ({lesson.source_notebook()}) did not run to the end:\n{tail}")
        time.sleep(0.2)
    if failures:
        raise PluginError("lesson notebooks failed while building the docs\n" + "\n".join(failures))

def _run_language(name: str) -> str:
    """The language a cache entry ran in: lessonN-zh_CN-KEY.ipynb → zh_CN, lessonN-KEY.ipynb → en."""
    parts = name.split("-")
    return parts[1] if len(parts) > 2 and parts[1] in _message_languages() else "en"

def _message_languages():
    from gradtutor import messages

    return messages.LANGUAGES

def _prune(keep, lang: str = "en") -> None:
    """Drop cache entries of older versions of the notebooks (an hour old: another build may still want them),
    among the runs in `lang` (each language's build keeps only its own)."""
    keep = {Path(p).name for p in keep}
    for path in (CACHE / "notebooks").glob("*.ipynb"):
        if (path.name not in keep and not path.name.endswith(".prepared.ipynb") and _run_language(path.name) == lang
                and time.time() - path.stat().st_mtime > 3600):
            with contextlib.suppress(OSError):
                path.unlink()
                path.with_suffix(".log").unlink(missing_ok=True)
