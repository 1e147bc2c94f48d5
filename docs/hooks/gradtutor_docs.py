"""mkdocs hooks: the lessons, the navigation and the CLI reference come from the course itself.

This module is the hook mkdocs loads (mkdocs.yml `hooks:`): its events only, each job in a module of its own
beside it.
* Navigation (here): the "Lessons" section is filled from the manifest (course.toml and each lesson's
  lesson.toml), in course order, so a new lesson needs no edit here (nor on the home page, whose
  `<!-- lessons: table -->` line becomes a table of the lessons). The instructor guide is listed only once docs/instructor.md exists.
* Lesson pages (notebook_runs.py, lesson_pages.py, notebooks.py): each solutions notebook runs at build time
  and becomes a page with its real outputs and plots, cached in build/docs-cache/.
* CLI reference (cli_reference.py): `<!-- help: gradtutor VERB -->` lines become `gradtutor VERB --help`.
* Two languages (site_languages.py; mkdocs-static-i18n, `docs_structure: suffix`): English at /, Chinese at
  /zh/ (`page.zh.md` beside `page.md`). Each lesson's Chinese page is rendered from
  solutions/lessonN/lessonN.zh_CN.ipynb with the outputs of the executed English notebook, cell by cell.
* Offline (vendor_libraries.py): mermaid and KaTeX come from the npm registry at build time, pinned, cached,
  and served from the site itself, only on the pages that use them.
* Search (search_indexes.py): one index per language, each language's pages searching their own.
"""
from __future__ import annotations

import json
import logging
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for path in (str(HERE), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)

import cli_reference  # noqa: E402  (docs/hooks/…: each of the hook's jobs)
import lesson_pages  # noqa: E402
import notebook_runs  # noqa: E402
import notebooks  # noqa: E402
import search_indexes  # noqa: E402
import site_languages as languages  # noqa: E402
import vendor_libraries  # noqa: E402

log = logging.getLogger("mkdocs.plugins.gradtutor")

LESSONS_SECTION = "Lessons"

INSTRUCTOR_PAGE = "instructor.md"


# --------------------------------------------------------------------------- navigation


def _course():
    from gradtutor.course import manifest as course

    return course.load()

def on_config(config):
    the_course = _course()
    # The nav keeps the English titles; mkdocs-static-i18n's nav_translations turns them into each language's.
    nav_pages = [{lesson_pages.nav_title(lesson, "en"): f"lessons/{lesson.id}.md"} for lesson in the_course.lessons]
    plugin = languages.i18n(config)
    for language in plugin.config.languages if plugin is not None else []:
        if language.build and language.locale != languages.default_locale(config):
            if language.nav_translations is None:
                language.nav_translations = {}
            lang = languages.lang_of(language.locale)
            language.nav_translations.update(
                {lesson_pages.nav_title(lesson, "en"): lesson_pages.nav_title(lesson, lang) for lesson in the_course.lessons})
    nav = config.get("nav") or []
    if not _fill_section(nav, LESSONS_SECTION, nav_pages):
        raise PluginError(f"mkdocs.yml: the nav needs a '{LESSONS_SECTION}' section for the lesson pages")
    if not (Path(config["docs_dir"]) / INSTRUCTOR_PAGE).is_file():
        log.info("docs/%s does not exist yet: the instructor guide is left out of the nav", INSTRUCTOR_PAGE)
        _drop_page(nav, INSTRUCTOR_PAGE)
    config["nav"] = nav
    return config

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
    locale = languages.locale(config)
    lang = languages.lang_of(locale)
    the_course = _course()
    executed = notebook_runs.executed_notebooks(the_course.lessons)  # the English notebooks run once; every language shows them
    # a translated page's checks run again in its language (answer and check cells only): their verdicts are its words
    checked = {} if lang == "en" else notebook_runs.executed_notebooks(the_course.lessons, lang)
    pages = []
    pages.append(_add(files, config, "lessons/index.md", lesson_pages.lessons_index(the_course, lang).encode(), locale))
    for lesson in the_course.lessons:
        nb = executed[lesson.id] if lang == "en" else lesson_pages.translated_notebook(lesson, executed[lesson.id], lang,
                                                                              checked[lesson.id])
        learner = lesson.release_notebook(lang)
        download = f"{lesson.id}/{learner.name}" if learner.is_file() else None
        page = notebooks.render(nb, lesson.id, intro=lesson_pages.lesson_intro(lesson, lang, download),
                                labels={k: languages.say(f"lesson.{k}", lang) for k in ("solution", "answer", "plot")})
        title = languages.text(f"{lesson.id}.title", lesson.title, lang)
        front = {"title": languages.say("lesson.title", lang, number=lesson.number, title=title),
                 "description": languages.text(f"{lesson.id}.summary", lesson.summary, lang)}
        header = "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in front.items()) + "---\n\n"
        pages.append(_add(files, config, f"lessons/{lesson.id}.md", (header + page.markdown).encode(), locale))
        for name, data in page.files.items():
            _add(files, config, f"lessons/{name}", data, locale)
        if download:
            _add(files, config, f"lessons/{download}", learner.read_bytes(), locale)
    for name, data in vendor_libraries.vendor_files().items():  # one copy at the site's root serves every language
        _add(files, config, f"{vendor_libraries.VENDOR_URL}/{name}", data, languages.default_locale(config))
    plugin = languages.i18n(config)
    if plugin is not None:  # the language switch goes to the same page in the other language; the sitemap lists it
        for file in pages:
            file.alternates = {other: file if other == locale else _generated(config, file.src_uri, b"", other)
                               for other in languages.locales(config)}
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
    default = languages.default_locale(config)
    if locale != default:
        file.dest_uri = f"{locale}/{file.dest_uri}"
    file.locale = locale
    file.localization = None if locale == default else locale
    file.locale_alternate_of = locale
    file.norm_src_uri = src_uri
    file.alternates = {locale: file}
    return file


# --------------------------------------------------------------------------- page and template output


def on_post_page(output, page, config):
    """Load mermaid and KaTeX, from this site, on the pages that use them; search this page's language."""
    head = vendor_libraries.head_tags(output, page.url)
    if head:
        output = output.replace("</head>", "\n".join(head) + "\n</head>", 1)
    output = search_indexes.language_base(output, config)
    # The language switch's targets are also <link rel="alternate" hreflang> in <head>, and material's script
    # fetches a sitemap.xml below each of them (a 404 for every page: the twins are pages, not site roots)
    # to steer the switch's clicks. The switch's own links already lead to the twin page: keep those alone.
    return ALTERNATE_LINK.sub("", output)


ALTERNATE_LINK = re.compile(r'\n?[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')

@event_priority(-200)  # after mkdocs-static-i18n's (-100), which builds the other languages and merges their indexes
def on_post_build(config):
    search_indexes.split_index(config)

_NOT_FOUND: dict[str, str] = {}  # 404.html of the default language, kept while the other languages build

def on_pre_template(template, template_name, config):
    """404.html comes after the pages: its language switch goes to the languages' home pages, not to the
    twins of the last page built."""
    plugin = languages.i18n(config)
    if template_name == "404.html" and plugin is not None and plugin.extra_alternate:
        config.extra["alternate"] = [dict(alternate) for alternate in plugin.extra_alternate]
    return template

def on_post_template(output, template_name, config):
    """Each language its own 404 page: the default one's at the root (where servers look), the others' under
    /LOCALE/ (every build writes the root's 404.html: give the later ones the default language's back)."""
    if template_name != "404.html":
        return output
    output = ALTERNATE_LINK.sub("", output)
    locale = languages.locale(config)
    if locale == languages.default_locale(config):
        _NOT_FOUND[config.site_dir] = output
        return output
    target = Path(config.site_dir) / locale / "404.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(search_indexes.language_base(output, config), encoding="utf-8")
    return _NOT_FOUND.get(config.site_dir, output)


# --------------------------------------------------------------------------- markdown: the home table, the CLI reference


LESSONS_TABLE = "<!-- lessons: table -->"


def on_page_markdown(markdown, page, config, files):
    lang = languages.lang_of(languages.locale(config))
    if LESSONS_TABLE in markdown:  # the home page: the lessons as the manifest lists them
        markdown = markdown.replace(LESSONS_TABLE, lesson_pages.lessons_table(_course(), lang))
    return cli_reference.fill(markdown, lang, page.file.src_uri)
