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


# --------------------------------------------------------------------------- navigation


def _course():
    from gradtutor import course

    return course.load()


def on_config(config):
    the_course = _course()
    lesson_pages = [{f"{lesson.number}. {lesson.title}": f"lessons/{lesson.id}.md"} for lesson in the_course.lessons]
    nav = config.get("nav") or []
    if not _fill_section(nav, LESSONS_SECTION, lesson_pages):
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


def on_files(files, config):
    the_course = _course()
    executed = _executed_notebooks(the_course.lessons)
    _add(files, config, "lessons/index.md", _lessons_index(the_course).encode())
    for lesson in the_course.lessons:
        nb = executed[lesson.id]
        learner = lesson.release_notebook()
        page = notebooks.render(nb, lesson.id, intro=_lesson_intro(lesson, learner.is_file()))
        front = {"title": f"Lesson {lesson.number}: {lesson.title}", "description": lesson.summary}
        header = "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in front.items()) + "---\n\n"
        _add(files, config, f"lessons/{lesson.id}.md", (header + page.markdown).encode())
        for name, data in page.files.items():
            _add(files, config, f"lessons/{name}", data)
        if learner.is_file():
            _add(files, config, f"lessons/{lesson.id}/{lesson.notebook}", learner.read_bytes())
    for name, data in _vendor_files().items():
        _add(files, config, f"{VENDOR_URL}/{name}", data)
    return files


def _add(files, config, src_uri: str, content: bytes) -> None:
    existing = files.get_file_from_path(src_uri)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, src_uri, content=content))


def _outputs_depend_on() -> str:
    """Everything besides the notebook that shapes its outputs: the package's sources and library versions."""
    digest = hashlib.sha256()
    package = ROOT / "gradtutor"
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in ("tensorflow", "keras", "tf-keras", "numpy", "matplotlib", "ipykernel", "nbclient"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{name}={metadata.version(name)}\0".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def _executed_notebooks(lessons) -> dict:
    """Each lesson's solutions notebook, executed: from the cache, or run now (several at once)."""
    import nbformat

    extra = _outputs_depend_on()
    wanted, pending = {}, []
    for lesson in lessons:
        source = lesson.source_notebook()
        if not source.is_file():
            raise PluginError(f"{lesson.id}: the solutions notebook {source} is missing (listed in course.toml)")
        prepared = notebooks.prepare(nbformat.read(source, as_version=4))
        text = nbformat.writes(prepared)
        key = notebooks.cache_key(text, extra)
        target = CACHE / "notebooks" / f"{lesson.id}-{key}.ipynb"
        wanted[lesson.id] = target
        if not target.is_file():
            staged = CACHE / "notebooks" / f"{lesson.id}-{key}.{os.getpid()}.prepared.ipynb"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_text(text, encoding="utf-8")
            pending.append((lesson, staged, target))
    if pending:
        _run_all(pending)
    executed = {lesson_id: nbformat.read(path, as_version=4) for lesson_id, path in wanted.items()}
    _prune(wanted.values())
    return executed


def _run_all(pending) -> None:
    jobs = max(1, int(os.environ.get("GRADTUTOR_DOCS_JOBS", min(len(pending), 4))))
    log.info("executing %d lesson notebook(s), %d at a time: %s", len(pending), jobs,
             ", ".join(lesson.id for lesson, _, _ in pending))
    queue, running, failures = list(pending), [], []
    while queue or running:
        while queue and len(running) < jobs:
            lesson, staged, target = queue.pop(0)
            logfile = target.with_suffix(".log")
            running.append((lesson, staged, target, logfile, time.monotonic(),
                            notebooks.start_execution(staged, target, logfile)))
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


def _prune(keep) -> None:
    """Drop cache entries of older versions of the notebooks (an hour old: another build may still want them)."""
    keep = {Path(p).name for p in keep}
    for path in (CACHE / "notebooks").glob("*.ipynb"):
        if (path.name not in keep and not path.name.endswith(".prepared.ipynb")
                and time.time() - path.stat().st_mtime > 3600):
            with contextlib.suppress(OSError):
                path.unlink()
                path.with_suffix(".log").unlink(missing_ok=True)


def _lesson_intro(lesson, has_learner_copy: bool) -> str:
    points = sum(e.points for e in lesson.exercises)
    rows = "\n".join(f"    | {n} | `{e.function}` | `{e.id}` | {e.points} |"
                     for n, e in enumerate(lesson.exercises, start=1))
    download = (f" [Download the learner's notebook]({lesson.id}/{lesson.notebook}) to work without a workspace."
                if has_learner_copy else "")
    return f"""!!! abstract "Work through it yourself"

    Every output on this page is real: the solutions notebook ran when this site was built.
    Solutions are folded away; open one only after you have tried.

    In your workspace (`gradtutor init`, see [Getting started](../getting-started.md)) open
    `{lesson.id}/{lesson.notebook}`, write each exercise, and run the cell after it, or
    `gradtutor check {lesson.id}` in a terminal. Stuck? `gradtutor hint {lesson.id} EXERCISE`.{download}

    | # | function you write | exercise id | points |
    |---|---|---|---|
{rows}

    {len(lesson.exercises)} exercises, {points} points."""


def _lessons_index(the_course) -> str:
    rows = "\n".join(
        f"| {l.number} | [{l.title}]({l.id}.md) | {l.summary} | {len(l.exercises)} | {l.points} |"
        for l in the_course.lessons
    )
    return f"""---
title: Lessons
description: {json.dumps(the_course.summary, ensure_ascii=False)}
---

# Lessons

{the_course.summary} Each lesson reproduces a real `None` or zero gradient from a
Stack Overflow question, explains it, fixes it, and ends with exercises that the
checker grades. Take them in order: later lessons assume the earlier ones.

| # | lesson | in one line | exercises | points |
|---|---|---|---|---|
{rows}

Each lesson page is the lesson's notebook, run when this site was built, with its
solutions folded away. To do the exercises, work in your own copy: see
[Getting started](../getting-started.md).
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
    return output


# --------------------------------------------------------------------------- CLI reference


HELP_LINE = re.compile(r"^<!-- help: (gradtutor(?: [\w-]+)*) -->$", re.MULTILINE)


def cli_help_texts() -> dict[str, str]:
    """`gradtutor ... --help` for the command and every verb (and sub-verb), as argparse prints it at 80 columns."""
    import argparse

    from gradtutor.cli import build_parser

    texts = {}

    def walk(parser, name):
        texts[name] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for verb, sub in action.choices.items():
                    walk(sub, f"{name} {verb}")

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        walk(build_parser(), "gradtutor")
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return texts


LESSONS_TABLE = "<!-- lessons: table -->"


def _lessons_table(the_course) -> str:
    rows = "".join(f"| [{l.number}. {l.title}](lessons/{l.id}.md) | {l.summary} |\n" for l in the_course.lessons)
    return "| lesson | pitfall in one line |\n|---|---|\n" + rows


def on_page_markdown(markdown, page, config, files):
    if LESSONS_TABLE in markdown:  # the home page: the lessons as the manifest lists them
        markdown = markdown.replace(LESSONS_TABLE, _lessons_table(_course()))
    if not HELP_LINE.search(markdown):
        return markdown
    texts = cli_help_texts()
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
