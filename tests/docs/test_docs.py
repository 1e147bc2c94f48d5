"""Does the docs site build strictly, and does every page work in a real browser, offline?

The site is built once per session (`mkdocs build --strict`, lesson notebooks
executed or taken from build/docs-cache/), served on 127.0.0.1, and opened page by
page in Debian's headless Chromium driven by playwright. Any request that would
leave 127.0.0.1 is recorded and refused. Screenshots go to test-output/.

The site has two languages: English at /, Chinese (简体中文) at /zh/. Every page of both is
opened; the lesson pages of both are checked alike (plots, folded solutions, real verdicts).
"""
from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import nbformat
import notebooks  # docs/hooks/notebooks.py: pyproject.toml's pytest `pythonpath` has docs/hooks, as mkdocs does
import pytest

from gradtutor import messages
from gradtutor.course import manifest as course

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "test-output"
PLOT_CALL = re.compile(r"\bplt\.(figure|subplots|plot|imshow|semilogy|loglog|bar|hist|scatter|matshow)\(|\.imshow\(")

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("docs")]

# The site's languages: URL prefix → gradtutor's message language.
LOCALES = {"": "en", "zh/": "zh_CN"}
LESSON_PAGES = [(prefix, lesson) for prefix in LOCALES for lesson in course.load().lessons]


def _build(site: Path, config: Path | None = None, env: dict | None = None) -> SimpleNamespace:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    if config is not None:
        command += ["--config-file", str(config)]
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    full_env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{full_env.get('PATH', '')}"
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1200, env=full_env)
    return SimpleNamespace(path=site, returncode=result.returncode, log=result.stdout + result.stderr)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> SimpleNamespace:
    return _build(tmp_path_factory.mktemp("docs") / "site")


@pytest.fixture(scope="session")
def server(site):
    assert site.returncode == 0, site.log[-5000:]
    handler = functools.partial(_QuietHandler, directory=str(site.path))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A page closed while a file was on its way (the search index, say) is no error of the site's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def browser(server, tmp_path_factory, playwright):
    offsite: list[str] = []

    def route(r):
        url = r.request.url
        if url.startswith(server):
            r.continue_()
        else:
            offsite.append(url)
            r.abort()

    context = playwright.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True,
        args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900}, service_workers="block")
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    context.route("**/*", route)
    yield SimpleNamespace(context=context, base=server, offsite=offsite, requests=requests)
    context.close()


def _all_pages(site) -> list[str]:
    pages = sorted(p.relative_to(site.path).as_posix() for p in site.path.rglob("*.html"))
    return [p[: -len("index.html")] if p.endswith("index.html") else p for p in pages]


@pytest.fixture(scope="session")
def visits(site, browser) -> dict[str, SimpleNamespace]:
    """Every page of the built site, opened once: its console errors, links, images and text."""
    seen = {}
    for path in _all_pages(site):
        page = browser.context.new_page()
        errors = []
        page.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        response = page.goto(browser.base + path, wait_until="networkidle")
        page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=30000)
        if page.locator("pre.mermaid, div.mermaid").count():
            page.wait_for_function(  # material swaps each <pre class="mermaid"> for the rendered diagram
                "!document.querySelector('pre.mermaid') && Array.from(document.querySelectorAll('div.mermaid'))"
                ".every(d => d.getBoundingClientRect().height > 100)", timeout=30000)
        seen[path] = SimpleNamespace(
            status=response.status if response else None,
            errors=errors,
            links=page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"),
            images=page.eval_on_selector_all("img", "els => els.map(i => [i.currentSrc || i.src, i.naturalWidth])"),
            figures=page.eval_on_selector_all("figure.gt-figure img", "els => els.map(i => i.naturalWidth)"),
            solutions=page.eval_on_selector_all(
                "details.success", "els => els.map(d => [d.querySelector('summary').textContent.trim(), d.open])"),
            katex=page.locator(".katex").count(),
            arithmatex=page.locator(".arithmatex").count(),
            mermaid=page.eval_on_selector_all("div.mermaid", "els => els.map(d => d.getBoundingClientRect().height)"),
            text=page.inner_text("body"),
            help=page.eval_on_selector_all(
                ".gt-help", "els => els.map(d => [d.dataset.command, d.querySelector('code').textContent])"),
            nav=page.eval_on_selector_all(".md-nav--primary a.md-nav__link[href]",
                                          "els => els.map(a => [a.textContent.trim(), a.href])"),
            lang=page.get_attribute("html", "lang"),
            search_placeholder=page.get_attribute("input.md-search__input", "placeholder"),
            alternates=dict(page.eval_on_selector_all(
                "a.md-select__link[hreflang]", "els => els.map(a => [a.hreflang, a.href])")),
        )
        page.close()
    return seen


# --------------------------------------------------------------------------- the build


def test_build_is_strict_and_clean(site):
    """Does `mkdocs build --strict` succeed without a single warning?"""
    assert site.returncode == 0, site.log[-5000:]
    problems = [line for line in site.log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert problems == []


def test_every_lesson_of_the_manifest_has_a_page_in_course_order(site, visits):
    """Is there one page per lesson of course.toml, listed in the navigation in course order?"""
    lessons = course.load().lessons
    for lesson in lessons:
        assert (site.path / "lessons" / lesson.id / "index.html").is_file(), lesson.id
    nav = [href for _, href in visits[""].nav]
    positions = [next(i for i, href in enumerate(nav) if href.endswith(f"/lessons/{lesson.id}/")) for lesson in lessons]
    assert positions == sorted(positions)


def test_instructor_guide_is_in_the_nav_exactly_when_it_exists(site, visits):
    """Is docs/instructor.md listed when it exists, and left out (build still strict) when it does not?"""
    listed = any(href.endswith("/instructor/") for _, href in visits[""].nav)
    assert listed == (ROOT / "docs" / "instructor.md").is_file()
    assert any(href.endswith("/authoring/") for _, href in visits[""].nav)  # "Writing a lesson"


def test_build_is_strict_clean_in_the_other_instructor_state(site, tmp_path):
    """Does the strict build also pass with docs/instructor.md in the other state (added or removed)?"""
    assert site.returncode == 0, site.log[-5000:]
    copy = tmp_path / "repo"
    copy.mkdir()
    # tests/: the guide's fix examples are made from the explain corpus (docs/hooks/fix_examples.py)
    for name in ("gradtutor", "solutions", "lessons", "tests"):
        (copy / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    guide = copy / "docs" / "instructor.md"
    if guide.exists():
        for twin in (copy / "docs").glob("instructor.*md"):  # the guide in every language
            twin.unlink()
    else:
        guide.write_text("# Instructor guide\n\nSee [the command line](reference/cli.md) and "
                         "[Writing a lesson](authoring.md).\n")
    other = _build(tmp_path / "site", copy / "mkdocs.yml",
                   env={"GRADTUTOR_DOCS_CACHE": os.environ.get("GRADTUTOR_DOCS_CACHE",
                                                                str(ROOT / "build" / "docs-cache"))})
    assert other.returncode == 0, other.log[-5000:]
    assert not [line for line in other.log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert (tmp_path / "site" / "instructor" / "index.html").is_file() == guide.exists()


# --------------------------------------------------------------------------- every page in the browser


def test_site_has_the_pages_the_course_needs(visits):
    """Are the home, getting started, guide, references, lessons and authoring pages all there and served?"""
    needed = {"", "getting-started/", "why-is-my-gradient-none/", "reference/cli/", "reference/api/",
              "authoring/", "lessons/"} | {f"lessons/{l.id}/" for l in course.load().lessons}
    assert needed <= set(visits)
    assert all(v.status == 200 for path, v in visits.items() if path != "404.html")
    # A page whose YAML front matter does not parse shows it as text instead of using it.
    assert [p for p, v in visits.items() if re.search(r"^(title|description): ", v.text, re.MULTILINE)] == []


def test_no_console_errors(visits):
    """Does every page load without a console error or an uncaught exception?"""
    assert {path: v.errors for path, v in visits.items() if v.errors} == {}


def test_no_request_leaves_localhost(browser, visits):
    """Did the browser ask for nothing (script, font, stylesheet...) from any host but 127.0.0.1?"""
    assert len(browser.requests) > len(visits)  # pages, then their assets
    assert browser.offsite == []
    assert [u for u in browser.requests if not u.startswith(browser.base) and not u.startswith("data:")] == []


def test_every_internal_link_resolves(browser, visits):
    """Does every link to this site lead to a page or file that exists, and to an anchor that exists there?"""
    targets: dict[str, set[str]] = {}
    for v in visits.values():
        for href in v.links:
            if href.startswith(browser.base):
                url, _, fragment = href.partition("#")
                targets.setdefault(url, set()).add(urllib.parse.unquote(fragment))
    assert len(targets) >= len([p for p in visits if not p.endswith("404.html")])  # every page is linked to
    broken = []
    for url, fragments in sorted(targets.items()):
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                body = response.read().decode("utf-8", "replace") if url.endswith("/") or url.endswith(".html") else ""
        except urllib.error.URLError as exc:
            broken.append(f"{url}: {exc}")
            continue
        ids = set(re.findall(r'\sid="([^"]+)"', body))
        broken += [f"{url}#{f}" for f in fragments if f and body and html.unescape(f) not in ids]
    assert broken == []


def test_every_image_loads(visits):
    """Does every image on every page have a natural width above zero?"""
    images = [(path, src, width) for path, v in visits.items() for src, width in v.images]
    assert images, "no images at all: the lesson plots are missing"
    assert [i for i in images if i[2] <= 0] == []


def _solutions_notebook(lesson, lang: str = "en"):
    return nbformat.read(lesson.source_notebook(lang), as_version=4)


def _lesson_id(param) -> str:
    return f"{param[0] or 'en/'}{param[1].id}"


@pytest.mark.parametrize("prefix, lesson", LESSON_PAGES, ids=map(_lesson_id, LESSON_PAGES))
def test_lesson_page_shows_its_plots(visits, prefix, lesson):
    """Does each lesson page, in each language, show a plot for every cell of its notebook that draws one?"""
    nb = _solutions_notebook(lesson, LOCALES[prefix])
    plotting_cells = [c for c in nb.cells if c.cell_type == "code" and PLOT_CALL.search(c.source)]
    figures = visits[f"{prefix}lessons/{lesson.id}/"].figures
    assert len(figures) >= len(plotting_cells)
    assert all(width > 100 for width in figures)


def test_lessons_with_plots_are_found(visits):
    """Do the lessons that draw with matplotlib (3 and 4 at least, by their notebooks) show pictures?"""
    with_plots = {l.id for l in course.load().lessons
                  if any(c.cell_type == "code" and PLOT_CALL.search(c.source) for c in _solutions_notebook(l).cells)}
    assert with_plots, "no lesson notebook draws a plot"
    assert all(visits[f"lessons/{lesson_id}/"].figures for lesson_id in with_plots)


@pytest.mark.parametrize("prefix, lesson", LESSON_PAGES, ids=map(_lesson_id, LESSON_PAGES))
def test_lesson_page_folds_its_solutions_and_shows_real_verdicts(visits, prefix, lesson):
    """Are solutions in collapsed "Solution" (参考答案) blocks, hidden tests gone, and every exercise's check
    shown passing, in the page's language (a Chinese page's checks ran in Chinese: no English verdict on it)?"""
    lang = LOCALES[prefix]
    nb = _solutions_notebook(lesson, lang)
    visit = visits[f"{prefix}lessons/{lesson.id}/"]
    solution_cells = [c for c in nb.cells if notebooks.is_solution(c)]
    label = messages.say("docs.lesson.solution", lang=lang)
    assert len([s for s in visit.solutions if s[0] == label]) == len(solution_cells) > 0
    assert not any(is_open for _, is_open in visit.solutions)
    assert "BEGIN SOLUTION" not in visit.text and "HIDDEN TESTS" not in visit.text
    assert visit.text.count("raise NotImplementedError()") >= len(solution_cells)
    passed = messages.say("check.status.pass", lang=lang)
    for exercise in lesson.exercises:
        head = messages.say("check.verdict.head", lang=lang, mark="✓", lesson=lesson.id, exercise=exercise.id,
                            status=passed)
        assert head in visit.text, exercise.id
    said = messages.catalogue(lang)["check.passed"].rsplit("}", 1)[1].strip()  # "inputs", "组输入上都与参考梯度一致"
    assert visit.text.count(said) >= len(lesson.exercises), said
    if lang != "en":
        assert not re.search(r"✓ lesson\d / \w+: pass|matches the reference|reference gradients", visit.text), visit.text
    assert "ExerciseResult(" not in visit.text
    assert "absl::InitializeLog" not in visit.text and "cudart_stub" not in visit.text


def test_maths_is_typeset_offline(visits):
    """Is every formula of the lesson pages typeset by the site's own KaTeX?"""
    pages = {path: v for path, v in visits.items() if v.arithmatex}
    assert pages, "no page has maths"
    for path, v in pages.items():
        assert v.katex >= v.arithmatex, path


def test_troubleshooting_guide_has_table_and_flowchart(visits):
    """Does the guide show its flowchart (rendered by the local mermaid) and cover every pitfall?"""
    guide = visits["why-is-my-gradient-none/"]
    assert guide.mermaid and all(height > 300 for height in guide.mermaid)
    text = guide.text
    for pitfall in ("tape.watch", "trainable=False", "after the with block", "model.predict", "argmax",
                    "assign_sub", "tf.data", "stateful", "softmax", "sigmoid", "ReLU", "tf.where", "tf.gradients",
                    "persistent=True", "unconnected_gradients", "add_weight", "batch_jacobian", "NaN", "LookupError"):
        assert pitfall in text, pitfall
    for lesson in course.load().lessons:
        assert any(href.endswith(f"/lessons/{lesson.id}/") for href in guide.links), lesson.id


def test_cli_reference_matches_the_real_help(visits):
    """Is each help text on the CLI page exactly what `gradtutor ... --help` prints, for every command?"""
    shown = dict(visits["reference/cli/"].help)
    env = {**os.environ, "COLUMNS": "80"}
    top = subprocess.run([sys.executable, "-m", "gradtutor", "--help"], capture_output=True, text=True, env=env)
    verbs = re.findall(r"^    (\w[\w-]*)", top.stdout, re.MULTILINE)
    assert len(verbs) >= 7 and {f"gradtutor {v}" for v in verbs} <= set(shown)
    for command, text in shown.items():
        real = subprocess.run([sys.executable, "-m", "gradtutor", *command.split()[1:], "--help"],
                              capture_output=True, text=True, env=env, timeout=60)
        assert real.returncode == 0, command
        assert text.rstrip() == real.stdout.rstrip(), command


def test_api_reference_is_generated_from_docstrings(visits):
    """Does the API page carry the docstrings of check() and the manifest loader?"""
    text = visits["reference/api/"].text
    assert "Check one exercise function in a notebook" in text  # gradtutor.check
    assert "A lesson by id" in text  # gradtutor.course.manifest.Course.lesson
    assert "Checks exercises; owns one warm worker" in text  # gradtutor.checking.checker.Checker
    assert "description:" not in text  # the front matter was parsed, not shown


def test_search_finds_the_stateful_rnn_lesson(browser, visits):
    """Does searching the site for "stateful" list the lesson 4 page?"""
    lesson = next(l for l in course.load().lessons if "stateful" in l.title.lower())  # whichever number it has
    page = browser.context.new_page()
    page.goto(browser.base, wait_until="networkidle")
    page.click("input.md-search__input")
    page.keyboard.type("stateful", delay=30)  # material searches on keyup, as a person types
    page.wait_for_selector("a.md-search-result__link", timeout=30000)
    hrefs = page.eval_on_selector_all("a.md-search-result__link", "els => els.map(a => a.href)")
    page.close()
    assert any(f"/lessons/{lesson.id}/" in href for href in hrefs), hrefs


# --------------------------------------------------------------------------- the Chinese edition


def _zh(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None


def test_every_page_has_its_chinese_twin(visits):
    """Is every English page also served under /zh/, in Chinese dress (<html lang="zh">, Chinese search box)?"""
    english = [p for p in visits if not p.startswith("zh/") and p != "404.html"]
    assert [p for p in english if f"zh/{p}" not in visits] == []
    for path, v in visits.items():
        if path.endswith("404.html"):
            continue
        chinese = path.startswith("zh/")
        assert v.lang == ("zh" if chinese else "en"), path
        assert _zh(v.search_placeholder or "") == chinese, (path, v.search_placeholder)


def test_translated_pages_are_in_chinese(visits):
    """Does each translated page (page.zh.md) show its Chinese text at /zh/, and each Chinese lesson page
    the Chinese notebook's?"""
    docs = ROOT / "docs"
    for source in sorted(docs.rglob("*.zh.md")):
        stem = source.relative_to(docs).as_posix()[: -len(".zh.md")]
        path = "zh/" if stem == "index" else f"zh/{stem}/"
        text = source.read_text(encoding="utf-8").split("\n---\n", 1)[-1]  # below the front matter
        heading = re.search(r"^# (.+?)(?:\s*\{[^}]*\})?$", text, re.MULTILINE).group(1)
        chinese = re.search(r"[\u4e00-\u9fff]{4,}", text.split(heading, 1)[1]).group(0)  # its first Chinese words
        assert heading.replace("`", "") in visits[path].text and chinese in visits[path].text, path
    for lesson in course.load().lessons:
        heading = notebooks.title(_solutions_notebook(lesson, "zh_CN"))
        assert heading and _zh(heading), lesson.id
        assert re.sub(r"[`*]", "", heading) in visits[f"zh/lessons/{lesson.id}/"].text, lesson.id


def test_chinese_nav_is_translated(browser, visits):
    """Is the /zh/ navigation in Chinese (sections, pages, lesson titles) and does it stay under /zh/?"""
    nav = visits["zh/"].nav
    titles = [title for title, _ in nav]
    for title in ("首页", "快速上手", "命令行", "环境变量", "术语表"):
        assert title in titles, titles
    for lesson in course.load().lessons:
        title = messages.course_text(f"{lesson.id}.title", lesson.title, lang="zh_CN")
        assert f"{lesson.number}. {title}" in titles
    assert all(href.startswith(f"{browser.base}zh/") for _, href in nav), nav
    assert any(href.endswith("/zh/glossary/") for _, href in nav)  # the bilingual glossary, reachable from /zh/


def test_chinese_cli_reference_matches_the_real_help(visits):
    """Is each help text on the Chinese CLI page what `GRADTUTOR_LANG=zh_CN gradtutor ... --help` prints?"""
    shown = dict(visits["zh/reference/cli/"].help)
    assert set(shown) == set(dict(visits["reference/cli/"].help))
    env = {**os.environ, "COLUMNS": "80", "GRADTUTOR_LANG": "zh_CN"}
    for command in ("gradtutor", "gradtutor check", "gradtutor classroom init"):
        real = subprocess.run([sys.executable, "-m", "gradtutor", *command.split()[1:], "--help"],
                              capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
        assert real.returncode == 0, command
        assert shown[command].rstrip() == real.stdout.rstrip(), command


def test_language_switch_goes_to_the_twin_page_and_back(browser, visits):
    """From an English page, does the header's language switch open its Chinese twin, and the switch there
    bring the reader back to the English page?"""
    for path in ("getting-started/", "lessons/lesson4/", "reference/cli/", "glossary/"):
        assert visits[path].alternates == {"en": browser.base + path, "zh": browser.base + "zh/" + path}
        assert visits["zh/" + path].alternates == visits[path].alternates
    page = browser.context.new_page()
    page.goto(browser.base + "lessons/lesson4/", wait_until="networkidle")
    for target, lang in (("zh/lessons/lesson4/", "zh"), ("lessons/lesson4/", "en")):
        page.hover(".md-header__option .md-select")
        page.click(f"a.md-select__link[hreflang={lang}]")
        page.wait_for_url(browser.base + target)
        page.wait_for_load_state("networkidle")
        assert page.get_attribute("html", "lang") == lang
    page.close()


def test_chinese_search_finds_the_stateful_rnn_lesson(browser, visits):
    """Does searching the Chinese site for "有状态" (stateful) list the Chinese lesson 4 page?"""
    lesson = next(l for l in course.load().lessons if "stateful" in l.title.lower())
    page = browser.context.new_page()
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(browser.base + "zh/", wait_until="networkidle")
    page.click("input.md-search__input")
    page.keyboard.type("有状态", delay=50)  # characters off the keyboard are inserted as an IME commits them,
    page.keyboard.press("End")  # with no key event; material searches on keyup: the next key a person presses
    page.wait_for_selector("a.md-search-result__link", timeout=30000)
    hrefs = page.eval_on_selector_all("a.md-search-result__link", "els => els.map(a => a.href)")
    page.close()
    assert any(href.startswith(f"{browser.base}zh/lessons/{lesson.id}/") for href in hrefs), hrefs
    assert errors == []


def test_screenshots_of_the_chinese_site(browser, visits):
    """Screenshots of the Chinese home, lesson 4 with its plot and lesson 1 at its first check() verdict
    (test-output/docs-zh-*.png), with the Chinese drawn in a CJK font: a missing font draws boxes, or
    nothing, instead of the characters."""
    SCREENSHOTS.mkdir(exist_ok=True)
    page = browser.context.new_page()
    page.goto(browser.base + "zh/", wait_until="networkidle")
    page.screenshot(path=str(SCREENSHOTS / "docs-zh-home.png"))
    page.goto(browser.base + "zh/lessons/lesson4/", wait_until="networkidle")
    page.screenshot(path=str(SCREENSHOTS / "docs-zh-lesson4.png"))
    # Without a CJK font every character is the same box: draw three in the page's font, compare the pixels.
    different = page.evaluate("""() => {
        const font = getComputedStyle(document.querySelector('article')).fontFamily;
        const pixels = ch => { const c = document.createElement('canvas'); c.width = c.height = 40;
            const g = c.getContext('2d'); g.font = `32px ${font}`; g.fillText(ch, 2, 34);
            return Array.from(g.getImageData(0, 0, 40, 40).data).join(); };
        return pixels('有') !== pixels('状') && pixels('状') !== pixels('态'); }""")
    page.locator("figure.gt-figure").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # the header's title swap animates on scroll
    page.screenshot(path=str(SCREENSHOTS / "docs-zh-lesson4-plot.png"))
    page.goto(browser.base + "zh/lessons/lesson1/", wait_until="networkidle")  # a check() verdict, run in Chinese
    verdict = page.get_by_text(messages.say("check.verdict.head", lang="zh_CN", mark="✓", lesson="lesson1",
                                            exercise="watch_constant", status=messages.say("check.status.pass",
                                                                                           lang="zh_CN")))
    verdict.first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENSHOTS / "docs-zh-lesson1-verdict.png"))
    page.close()
    assert different, "Chinese is drawn as boxes: no CJK font (`make browser` installs fonts-noto-cjk)"
    for name in ("home", "lesson4", "lesson4-plot", "lesson1-verdict"):
        assert (SCREENSHOTS / f"docs-zh-{name}.png").stat().st_size > 10_000, name


def test_screenshots_light_and_dark(browser, visits):
    """Do the home page and a lesson page render in the light scheme and, after the toggle, the dark one?"""
    SCREENSHOTS.mkdir(exist_ok=True)
    lesson = "lessons/lesson3/" if "lessons/lesson3/" in visits else next(p for p in visits if p.startswith("lessons/l"))
    page = browser.context.new_page()
    for path, name in (("", "home"), (lesson, "lesson")):
        page.goto(browser.base + path, wait_until="networkidle")
        assert page.get_attribute("body", "data-md-color-scheme") == "default"
        page.screenshot(path=str(SCREENSHOTS / f"docs-{name}-light.png"))
        page.click("form[data-md-component=palette] label:visible")
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
        page.screenshot(path=str(SCREENSHOTS / f"docs-{name}-dark.png"))
        page.click("form[data-md-component=palette] label:visible")
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    figure = page.locator("figure.gt-figure").first
    figure.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENSHOTS / "docs-lesson-plot.png"))
    page.goto(browser.base + "why-is-my-gradient-none/", wait_until="networkidle")
    page.locator("div.mermaid").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # the header's title swap animates on scroll
    page.screenshot(path=str(SCREENSHOTS / "docs-guide-flowchart.png"))
    page.close()
    for name in ("home-light", "home-dark", "lesson-light", "lesson-dark", "lesson-plot", "guide-flowchart"):
        assert (SCREENSHOTS / f"docs-{name}.png").stat().st_size > 10_000, name


# --------------------------------------------------------------------------- one search index per language


CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _index(site, prefix: str) -> list[dict]:
    return json.loads((site.path / prefix / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


def _pages_of(entries: list[dict]) -> set[str]:
    return {entry["location"].partition("#")[0] for entry in entries}


def _site_pages(site, prefix: str) -> set[str]:
    """The pages of one language's site, relative to its root ("" for its home page)."""
    root = site.path / prefix
    pages = {page.parent.relative_to(root).as_posix() + "/" for page in root.rglob("index.html")}
    return {"" if page == "./" else page for page in pages if prefix or not page.startswith("zh/")}


def test_each_language_searches_its_own_pages(site):
    """Does the English site's search index hold the English pages and no Chinese one, and the Chinese site's
    (zh/search/search_index.json) every Chinese page, in Chinese? The English pages may quote Chinese (the
    language switch's name, the bilingual glossary): every Chinese word of the English index must be one
    an English page's source writes."""
    assert site.returncode == 0, site.log[-5000:]
    english, chinese = _index(site, ""), _index(site, "zh")
    assert _pages_of(english) == _site_pages(site, "") and _pages_of(chinese) == _site_pages(site, "zh")
    sources = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md") if ".zh." not in p.name)
    foreign = [(entry["location"], words) for entry in english  # material's index splits Chinese words with U+200B
               for words in CJK.findall((entry["title"] + entry["text"]).replace("\u200b", "")) if words not in sources]
    assert foreign == []
    in_chinese = _pages_of([entry for entry in chinese if CJK.search(entry["title"] + entry["text"])])
    translated = {"" if p.name == "index.zh.md" else p.relative_to(ROOT / "docs").as_posix()[: -len(".zh.md")] + "/"
                  for p in (ROOT / "docs").rglob("*.zh.md")}
    lessons = {"lessons/"} | {f"lessons/{lesson.id}/" for lesson in course.load().lessons}
    assert translated | lessons <= in_chinese


@pytest.mark.parametrize("prefix", LOCALES)
def test_search_lists_only_pages_of_the_readers_language(browser, visits, prefix):
    """Searching for a word both languages use ("GradientTape"), does each site list its own pages only?"""
    page = browser.context.new_page()
    page.goto(browser.base + prefix, wait_until="networkidle")
    page.click("input.md-search__input")
    page.keyboard.type("GradientTape", delay=30)
    page.wait_for_selector("a.md-search-result__link", timeout=30000)
    hrefs = page.eval_on_selector_all("a.md-search-result__link", "els => els.map(a => a.href)")
    page.close()
    chinese = [href.startswith(browser.base + "zh/") for href in hrefs]
    assert hrefs
    assert (all(chinese) if prefix else not any(chinese)), hrefs


# --------------------------------------------------------------------------- on a phone


PHONE = {"width": 390, "height": 844}  # CSS pixels, a common phone's
LEGIBLE_PX = 11  # the smallest text size read without zooming
MATPLOTLIB_TEXT_PT = 10  # matplotlib's default text size: tick labels, axis labels, legends
# material draws each mermaid diagram into a closed shadow root; opened here so the test can measure its text
OPEN_SHADOW_ROOTS = """(() => { const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: 'open'}); }; })()"""


def _phone_page(browser, path: str):
    page = browser.context.new_page()
    page.set_viewport_size(PHONE)
    page.add_init_script(OPEN_SHADOW_ROOTS)
    page.goto(browser.base + path, wait_until="networkidle")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=30000)
    return page


def _page_width(page) -> int:
    """The page's own width: more than the screen's means the whole page scrolls sideways."""
    return page.evaluate("document.documentElement.scrollWidth")


def _show_below_the_header(page, selector: str) -> None:
    """Scroll the first `selector` to the top of the screen, under material's header (it stays on top)."""
    page.locator(selector).first.evaluate(
        "e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY"
        " - document.querySelector('.md-header').getBoundingClientRect().height - 8)")
    page.wait_for_timeout(500)  # the header's title swap animates on scroll


def _png_dpi(path: Path) -> float:
    """The resolution matplotlib wrote in the PNG (pHYs chunk, pixels per metre)."""
    data = path.read_bytes()
    at = data.index(b"pHYs")
    per_metre = int.from_bytes(data[at + 4:at + 8], "big")
    assert data[at + 12] == 1, path  # the unit is the metre
    return per_metre * 0.0254


def _mermaid_pages(site) -> list[str]:
    pages = [p for p in _all_pages(site) if p.endswith("/") or p == ""]
    return [p for p in pages if 'class="mermaid"' in (site.path / p / "index.html").read_text(encoding="utf-8")]


def test_flowcharts_are_legible_on_a_phone(site, browser, visits):
    """At 390 px wide, is every label of every mermaid diagram drawn at 11 px or more (the diagram scrolls
    sideways in its own box; the page does not)? Screenshots: test-output/docs-phone-flowchart*.png."""
    pages = _mermaid_pages(site)
    assert "why-is-my-gradient-none/" in pages and "zh/why-is-my-gradient-none/" in pages
    SCREENSHOTS.mkdir(exist_ok=True)
    for path in pages:
        page = _phone_page(browser, path)
        page.wait_for_function("!document.querySelector('pre.mermaid') && document.querySelector('div.mermaid')")
        diagrams = page.evaluate("""() => Array.from(document.querySelectorAll('div.mermaid')).map(host => {
            const svg = host.shadowRoot.querySelector('svg');
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return Array.from(host.shadowRoot.querySelectorAll('.nodeLabel, .edgeLabel'))
                .filter(label => label.textContent.trim())
                .map(label => [label.textContent.trim(), parseFloat(getComputedStyle(label).fontSize) * scale]); })""")
        width = _page_width(page)
        if path.endswith("why-is-my-gradient-none/"):
            _show_below_the_header(page, "div.mermaid")
            name = "docs-phone-flowchart" + ("-zh" if path.startswith("zh/") else "")
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        page.close()
        assert diagrams and all(len(labels) >= 5 for labels in diagrams), (path, diagrams)
        small = [(text, round(px, 2)) for labels in diagrams for text, px in labels if round(px, 2) < LEGIBLE_PX]
        assert small == [], path
        assert width <= PHONE["width"], path


@pytest.mark.parametrize("prefix", LOCALES)
def test_lesson_figures_are_legible_on_a_phone(site, browser, visits, prefix):
    """At 390 px wide, is each lesson figure drawn large enough that matplotlib's default 10 pt text is 11 px
    or more (a wide figure scrolls sideways in its own box; the page does not)? Its rendered height is
    measured too: 120 px strips are what shrinking to the screen gave. Screenshot of lesson 3's figure (the
    widest): test-output/docs-phone-figure*.png."""
    lessons = [l for l in course.load().lessons if visits[f"{prefix}lessons/{l.id}/"].figures]
    assert lessons
    SCREENSHOTS.mkdir(exist_ok=True)
    for lesson in lessons:
        path = f"{prefix}lessons/{lesson.id}/"
        page = _phone_page(browser, path)
        figures = page.eval_on_selector_all("figure.gt-figure img", """els => els.map(i => [
            new URL(i.currentSrc).pathname, i.naturalWidth, i.naturalHeight,
            i.getBoundingClientRect().width, i.getBoundingClientRect().height])""")
        width = _page_width(page)
        if lesson.id == "lesson3":
            _show_below_the_header(page, "figure.gt-figure")
            page.screenshot(path=str(SCREENSHOTS / f"docs-phone-figure{'-zh' if prefix else ''}.png"))
        page.close()
        assert figures, path
        for src, natural_width, natural_height, shown_width, shown_height in figures:
            drawn_px = MATPLOTLIB_TEXT_PT / 72 * _png_dpi(site.path / src.lstrip("/"))  # its text, in the PNG's pixels
            scale = shown_width / natural_width
            assert drawn_px * scale >= LEGIBLE_PX, (src, round(drawn_px * scale, 1))
            assert shown_height >= natural_height * LEGIBLE_PX / drawn_px - 1, (src, shown_height)
        assert width <= PHONE["width"], path


@pytest.mark.parametrize("prefix", LOCALES)
def test_code_in_tables_stays_whole_on_a_phone(browser, visits, prefix):
    """At 390 px wide, does every piece of inline code in the guide's tables stay on one line (the table
    scrolls sideways instead of breaking `tf.Variable(..., trainable=False)` mid-word)?"""
    page = _phone_page(browser, f"{prefix}why-is-my-gradient-none/")
    code = page.eval_on_selector_all(".md-typeset table code", "els => els.map(c => [c.textContent, c.getClientRects().length])")
    width = _page_width(page)
    page.close()
    assert len(code) > 20
    assert [text for text, lines in code if lines > 1] == []
    assert width <= PHONE["width"]
