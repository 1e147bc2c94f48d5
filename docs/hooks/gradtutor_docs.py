"""mkdocs hooks: the lessons, the navigation and the CLI reference come from the course itself.

* Navigation: the "Lessons" section is filled from gradtutor/course.toml, in course
  order, so a new lesson needs no edit here (nor on the home page, whose
  `<!-- lessons: table -->` line becomes a table of the lessons). The instructor
  guide is listed only once docs/instructor.md exists, so the strict build passes
  before and after.
* Lesson pages: each solutions notebook runs at build time (notebooks.py) and
  becomes a page with its real outputs and plots; executed notebooks are cached in
  build/docs-cache/ by a hash of the notebook, the package and the library versions.
* CLI reference: each `<!-- help: gradtutor VERB -->` line in a page becomes the
  text argparse prints for `gradtutor VERB --help`, and the page must name every verb.
* Two languages (mkdocs-static-i18n, `docs_structure: suffix`): English at /, Chinese at
  /zh/ (`page.zh.md` beside `page.md`). Each lesson's Chinese page is rendered from
  solutions/lessonN/lessonN.zh_CN.ipynb with the outputs of the executed English
  notebook, cell by cell (their code differs only in comments), so the notebooks run
  once for both languages. The hook's own sentences are `docs.*` messages
  (gradtutor/messages/<lang>/docs.toml); lesson titles and summaries come from
  course_text (zh_CN/course.toml).
* Offline: mermaid (the troubleshooting flowchart) and KaTeX (the lessons' maths)
  come from the npm registry at build time, pinned by version and checksum, cached
  in build/docs-cache/vendor/ and served from the site itself, only on the pages
  that use them. Nothing is loaded from another host; nothing is vendored in git.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from importlib import metadata
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for path in (str(HERE), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)

import notebooks  # noqa: E402  (docs/hooks/notebooks.py)

log = logging.getLogger("mkdocs.plugins.gradtutor")

CACHE = Path(os.environ.get("GRADTUTOR_DOCS_CACHE", ROOT / "build" / "docs-cache"))
LESSONS_SECTION = "Lessons"
INSTRUCTOR_PAGE = "instructor.md"
DOCS_MESSAGES = "docs.toml"  # gradtutor/messages/<lang>/docs.toml: this hook's sentences

# Front-end libraries, from the npm registry (its ordinary client), pinned by version and integrity.
VENDOR = {
    "mermaid": {
        "spec": "mermaid@11.17.2",
        "integrity": "sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg==",
        "files": [r"dist/mermaid\.min\.js"],
    },
    "katex": {
        "spec": "katex@0.16.22",
        "integrity": "sha512-XCHRdUw4lf3SKBaJe4EvgqIuWwkPSo9XoeO8GjQW94Bp7TWv9hNhzZjZ+OH9yf1UmLygb7DIT5GSFQiyt16zYg==",
        "files": [r"dist/katex\.min\.(js|css)", r"dist/fonts/[\w-]+\.woff2"],  # Chromium & co. read woff2
    },
}
VENDOR_URL = "assets/vendor"

I18N_PLUGIN = "i18n"  # mkdocs-static-i18n, in mkdocs.yml
# The site's locales (mkdocs-static-i18n's, the URL prefix) → gradtutor's message languages.
LANGUAGES = {"en": "en", "zh": "zh_CN"}


# --------------------------------------------------------------------------- languages


def _i18n(config):
    return config.plugins.get(I18N_PLUGIN)


def _locale(config) -> str:
    """The locale being built now: mkdocs-static-i18n builds the whole site once per language."""
    plugin = _i18n(config)
    if plugin is None:
        return "en"
    return plugin.current_language or plugin.default_language


def _locales(config) -> list[str]:
    plugin = _i18n(config)
    return plugin.build_languages if plugin is not None else ["en"]


def _default_locale(config) -> str:
    plugin = _i18n(config)
    return plugin.default_language if plugin is not None else "en"


def _lang(locale: str) -> str:
    if locale not in LANGUAGES:
        raise PluginError(f"mkdocs.yml: the site's language {locale!r} has no gradtutor messages "
                          f"(known: {', '.join(LANGUAGES)})")
    return LANGUAGES[locale]


def _say(message_id: str, lang: str, **params) -> str:
    from gradtutor import messages

    return messages.say(f"docs.{message_id}", lang=lang, **params)


def _text(key: str, english: str, lang: str) -> str:
    """A course.toml text (lesson title, summary) in `lang`, English until its translation lands."""
    from gradtutor import messages

    return messages.course_text(key, english, lang=lang)


# --------------------------------------------------------------------------- navigation


def _course():
    from gradtutor import course

    return course.load()


def on_config(config):
    the_course = _course()
    # The nav keeps the English titles; mkdocs-static-i18n's nav_translations turns them into each language's.
    lesson_pages = [{_nav_title(lesson, "en"): f"lessons/{lesson.id}.md"} for lesson in the_course.lessons]
    plugin = _i18n(config)
    for language in plugin.config.languages if plugin is not None else []:
        if language.build and language.locale != _default_locale(config):
            if language.nav_translations is None:
                language.nav_translations = {}
            lang = _lang(language.locale)
            language.nav_translations.update(
                {_nav_title(lesson, "en"): _nav_title(lesson, lang) for lesson in the_course.lessons})
    nav = config.get("nav") or []
    if not _fill_section(nav, LESSONS_SECTION, lesson_pages):
        raise PluginError(f"mkdocs.yml: the nav needs a '{LESSONS_SECTION}' section for the lesson pages")
    if not (Path(config["docs_dir"]) / INSTRUCTOR_PAGE).is_file():
        log.info("docs/%s does not exist yet: the instructor guide is left out of the nav", INSTRUCTOR_PAGE)
        _drop_page(nav, INSTRUCTOR_PAGE)
    config["nav"] = nav
    return config


def _nav_title(lesson, lang: str) -> str:
    return _say("lesson.nav", lang, number=lesson.number, title=_text(f"{lesson.id}.title", lesson.title, lang))


def _fill_section(items, title, pages) -> bool:
    for item in items:
        if isinstance(item, dict):
            for key, value in item.items():
                if key == title and isinstance(value, list):
                    value[:] = [v for v in value if not _is_lesson_page(v)] + pages
                    return True
                if isinstance(value, list) and _fill_section(value, title, pages):
                    return True
    return False


def _is_lesson_page(item) -> bool:
    target = next(iter(item.values())) if isinstance(item, dict) else item
    return isinstance(target, str) and re.fullmatch(r"lessons/(?!index\.md)[^/]+\.md", target) is not None


def _drop_page(items, page):
    for item in list(items):
        target = next(iter(item.values())) if isinstance(item, dict) else item
        if target == page:
            items.remove(item)
        elif isinstance(target, list):
            _drop_page(target, page)
            if not target:
                items.remove(item)


# --------------------------------------------------------------------------- lesson pages


@event_priority(-110)  # after mkdocs-static-i18n (-100) has chosen this language's files: ours are added as they are
def on_files(files, config):
    locale = _locale(config)
    lang = _lang(locale)
    the_course = _course()
    executed = _executed_notebooks(the_course.lessons)  # the English notebooks run once; every language shows them
    # a translated page's checks run again in its language (answer and check cells only): their verdicts are its words
    checked = {} if lang == "en" else _executed_notebooks(the_course.lessons, lang)
    pages = []
    pages.append(_add(files, config, "lessons/index.md", _lessons_index(the_course, lang).encode(), locale))
    for lesson in the_course.lessons:
        nb = executed[lesson.id] if lang == "en" else _translated_notebook(lesson, executed[lesson.id], lang,
                                                                              checked[lesson.id])
        learner = lesson.release_notebook(lang)
        download = f"{lesson.id}/{learner.name}" if learner.is_file() else None
        page = notebooks.render(nb, lesson.id, intro=_lesson_intro(lesson, lang, download),
                                labels={k: _say(f"lesson.{k}", lang) for k in ("solution", "answer", "plot")})
        title = _text(f"{lesson.id}.title", lesson.title, lang)
        front = {"title": _say("lesson.title", lang, number=lesson.number, title=title),
                 "description": _text(f"{lesson.id}.summary", lesson.summary, lang)}
        header = "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in front.items()) + "---\n\n"
        pages.append(_add(files, config, f"lessons/{lesson.id}.md", (header + page.markdown).encode(), locale))
        for name, data in page.files.items():
            _add(files, config, f"lessons/{name}", data, locale)
        if download:
            _add(files, config, f"lessons/{download}", learner.read_bytes(), locale)
    for name, data in _vendor_files().items():  # one copy at the site's root serves every language
        _add(files, config, f"{VENDOR_URL}/{name}", data, _default_locale(config))
    plugin = _i18n(config)
    if plugin is not None:  # the language switch goes to the same page in the other language; the sitemap lists it
        for file in pages:
            file.alternates = {other: file if other == locale else _generated(config, file.src_uri, b"", other)
                               for other in _locales(config)}
        plugin.i18n_files_per_language.setdefault(locale, []).extend(pages)
    return files


def _add(files, config, src_uri: str, content: bytes, locale: str) -> File:
    existing = files.get_file_from_path(src_uri)
    if existing is not None:
        files.remove(existing)
    file = _generated(config, src_uri, content, locale)
    files.append(file)
    return file


def _generated(config, src_uri: str, content: bytes, locale: str) -> File:
    """A generated file of one language: under /LOCALE/ unless it is the default one, as mkdocs-static-i18n places
    the files of docs/ (and with the attributes it reads: locale, alternates...)."""
    file = File.generated(config, src_uri, content=content)
    default = _default_locale(config)
    if locale != default:
        file.dest_uri = f"{locale}/{file.dest_uri}"
    file.locale = locale
    file.localization = None if locale == default else locale
    file.locale_alternate_of = locale
    file.norm_src_uri = src_uri
    file.alternates = {locale: file}
    return file


def _translated_notebook(lesson, executed, lang: str, checked):
    """The lesson's notebook in `lang` with the outputs of the executed English one (same code but for comments),
    but for its check cells: theirs are from `checked`, the same notebook's checks run in `lang`."""
    import nbformat

    source = lesson.source_notebook(lang)
    if not source.is_file():
        raise PluginError(f"{lesson.id}: {source} is missing — the /zh/ lesson page is rendered from it "
                          f"(write it, beside {lesson.notebook})")
    try:
        page = notebooks.with_outputs_of(notebooks.prepare(nbformat.read(source, as_version=4)), executed)
        return notebooks.with_check_outputs_of(page, checked)
    except ValueError as exc:
        raise PluginError(f"{lesson.id}: {source.name} does not match {lesson.notebook}: {exc}") from None


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


def _executed_notebooks(lessons, lang: str = "en") -> dict:
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


def _lesson_intro(lesson, lang: str, download: str | None) -> str:
    points = sum(e.points for e in lesson.exercises)
    rows = "\n".join(f"    | {n} | `{e.function}` | `{e.id}` | {e.points} |"
                     for n, e in enumerate(lesson.exercises, start=1))
    intro = _say("lesson.intro", lang, lesson_id=lesson.id, notebook=f"{lesson.id}/{lesson.notebook}",
                 download=_say("lesson.download", lang, path=download) if download else "")
    return (f"{intro}\n\n{_say('lesson.table', lang)}\n{rows}\n\n"
            f"    {_say('lesson.total', lang, count=len(lesson.exercises), points=points)}")


def _lessons_index(the_course, lang: str) -> str:
    rows = "\n".join(
        f"| {l.number} | [{_text(f'{l.id}.title', l.title, lang)}]({l.id}.md) "
        f"| {_text(f'{l.id}.summary', l.summary, lang)} | {len(l.exercises)} | {l.points} |"
        for l in the_course.lessons
    )
    summary = _text("course.summary", the_course.summary, lang)
    title = _say("lessons.title", lang)
    return f"""---
title: {json.dumps(title, ensure_ascii=False)}
description: {json.dumps(summary, ensure_ascii=False)}
---

# {title}

{_say("lessons.intro", lang, summary=summary)}

{_say("lessons.table", lang)}
{rows}

{_say("lessons.outro", lang)}
"""


# --------------------------------------------------------------------------- front-end libraries from npm


def _vendor_files() -> dict[str, bytes]:
    out = {}
    for name, spec in VENDOR.items():
        folder = _vendor_package(name, spec)
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out[f"{name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    return out


def _vendor_package(name: str, spec: dict) -> Path:
    version = spec["spec"].rsplit("@", 1)[1]
    folder = CACHE / "vendor" / f"{name}-{version}"
    if (folder / ".complete").is_file():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(f"the docs serve {spec['spec']} themselves (no CDN), and fetch it once from the npm "
                          f"registry with `npm pack`: install npm (Debian: apt-get install npm), then build again")
    with tempfile.TemporaryDirectory(prefix="gradtutor-vendor-") as tmp:
        result = subprocess.run([npm, "pack", spec["spec"], "--pack-destination", tmp, "--json", "--silent"],
                                capture_output=True, text=True, cwd=tmp, timeout=300)
        tarballs = list(Path(tmp).glob("*.tgz"))
        if result.returncode != 0 or len(tarballs) != 1:
            raise PluginError(f"`npm pack {spec['spec']}` failed:\n{result.stderr[-2000:]}")
        data = tarballs[0].read_bytes()
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        if integrity != spec["integrity"]:
            raise PluginError(f"{spec['spec']}: checksum {integrity} is not the pinned {spec['integrity']}")
        staging = folder.with_name(folder.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        patterns = [re.compile("package/" + p) for p in spec["files"]]
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if member.isfile() and any(p.fullmatch(member.name) for p in patterns):
                    relative = member.name[len("package/dist/"):]
                    content = archive.extractfile(member).read()
                    if relative.endswith(".js"):  # no source map: it is not shipped, so nothing may ask for it
                        content = re.sub(rb"\n//# sourceMappingURL=\S+\s*$", b"\n", content)
                    destination = staging / relative
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(content)
        (staging / ".complete").write_text(spec["spec"] + "\n")
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    log.info("fetched %s from the npm registry into %s", spec["spec"], folder)
    return folder


def on_post_page(output, page, config):
    """Load mermaid and KaTeX, from this site, on the pages that use them."""
    def url(path):
        return get_relative_url(f"{VENDOR_URL}/{path}", page.url)

    head = []
    if 'class="mermaid"' in output:
        # material renders the diagrams itself and uses this `mermaid` instead of fetching one from a CDN.
        head.append(f'<script src="{url("mermaid/mermaid.min.js")}"></script>')
    if 'class="arithmatex"' in output:
        head.append(f'<link rel="stylesheet" href="{url("katex/katex.min.css")}">')
        head.append(f'<script src="{url("katex/katex.min.js")}"></script>')
        head.append(f'<script defer src="{get_relative_url("assets/javascripts/math.js", page.url)}"></script>')
    if head:
        output = output.replace("</head>", "\n".join(head) + "\n</head>", 1)
    # The language switch's targets are also <link rel="alternate" hreflang> in <head>, and material's script
    # fetches a sitemap.xml below each of them (a 404 for every page: the twins are pages, not site roots)
    # to steer the switch's clicks. The switch's own links already lead to the twin page: keep those alone.
    return ALTERNATE_LINK.sub("", output)


ALTERNATE_LINK = re.compile(r'\n?[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')
_NOT_FOUND: dict[str, str] = {}  # 404.html of the default language, kept while the other languages build


def on_pre_template(template, template_name, config):
    """404.html comes after the pages: its language switch goes to the languages' home pages, not to the
    twins of the last page built."""
    plugin = _i18n(config)
    if template_name == "404.html" and plugin is not None and plugin.extra_alternate:
        config.extra["alternate"] = [dict(alternate) for alternate in plugin.extra_alternate]
    return template


def on_post_template(output, template_name, config):
    """Each language its own 404 page: the default one's at the root (where servers look), the others' under
    /LOCALE/ (every build writes the root's 404.html: give the later ones the default language's back)."""
    if template_name != "404.html":
        return output
    output = ALTERNATE_LINK.sub("", output)
    locale = _locale(config)
    if locale == _default_locale(config):
        _NOT_FOUND[config.site_dir] = output
        return output
    target = Path(config.site_dir) / locale / "404.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(output, encoding="utf-8")
    return _NOT_FOUND.get(config.site_dir, output)


# --------------------------------------------------------------------------- CLI reference


HELP_LINE = re.compile(r"^<!-- help: (gradtutor(?: [\w-]+)*) -->$", re.MULTILINE)


def cli_help_texts(lang: str = "en") -> dict[str, str]:
    """`gradtutor ... --help` for the command and every verb (and sub-verb), as argparse prints it at 80 columns,
    in `lang` (what `GRADTUTOR_LANG=lang gradtutor ... --help` prints)."""
    import argparse

    from gradtutor import messages
    from gradtutor.cli import build_parser

    texts = {}

    def walk(parser, name):
        texts[name] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for verb, sub in action.choices.items():
                    walk(sub, f"{name} {verb}")

    saved = {name: os.environ.get(name) for name in ("COLUMNS", "GRADTUTOR_LANG")}
    chosen = messages._chosen
    os.environ["COLUMNS"] = "80"
    messages.use(lang, export=True)
    try:
        walk(build_parser(), "gradtutor")
    finally:
        messages._chosen = chosen
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return texts


LESSONS_TABLE = "<!-- lessons: table -->"


def _lessons_table(the_course, lang: str) -> str:
    rows = "".join(f"| [{_nav_title(l, lang)}](lessons/{l.id}.md) | {_text(f'{l.id}.summary', l.summary, lang)} |\n"
                   for l in the_course.lessons)
    return _say("lessons.home_table", lang) + "\n" + rows


def on_page_markdown(markdown, page, config, files):
    lang = _lang(_locale(config))
    if LESSONS_TABLE in markdown:  # the home page: the lessons as the manifest lists them
        markdown = markdown.replace(LESSONS_TABLE, _lessons_table(_course(), lang))
    if not HELP_LINE.search(markdown):
        return markdown
    texts = cli_help_texts(lang)
    named = set(HELP_LINE.findall(markdown))
    for command in sorted(named - set(texts)):
        log.warning("%s: `%s` is not a gradtutor command (its --help cannot be shown)", page.file.src_uri, command)
    for command in sorted(set(texts) - named):
        log.warning("%s: the CLI reference does not cover `%s` — add a section with <!-- help: %s -->",
                    page.file.src_uri, command, command)

    def replace(match):
        text = texts.get(match.group(1), "")
        return (f'<div class="gt-help" data-command="{match.group(1)}" markdown>\n\n'
                f'```text\n{text.rstrip()}\n```\n\n</div>')

    return HELP_LINE.sub(replace, markdown)
