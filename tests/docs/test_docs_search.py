"""One search index per language (docs/hooks/search_indexes.py), on the files mkdocs-static-i18n leaves.

mkdocs-static-i18n builds the Chinese site inside the English build's post-build and then writes every
language's pages into the root's search/search_index.json; these tests give the hook that file as each
moment leaves it (the site's real pages as locations) and read what it writes. The built site is checked in
the browser tier (tests/docs/test_docs.py: the index files and typed searches).
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import search_indexes  # docs/hooks/: pyproject.toml's pytest `pythonpath` has it, as mkdocs does
from mkdocs.exceptions import PluginError

from tests.support import REPO

pytestmark = pytest.mark.unit

DOCS = REPO / "docs"


def _pages() -> list[str]:
    """The site's hand-written pages, as the search index locates them ("" for the home page)."""
    pages = [p.relative_to(DOCS).as_posix()[: -len(".md")] for p in DOCS.rglob("*.md") if ".zh." not in p.name]
    return sorted("" if page == "index" else f"{page}/" for page in pages)


def _config(site: Path, building: bool, current: str) -> SimpleNamespace:
    i18n = SimpleNamespace(building=building, current_language=current, default_language="en",
                           build_languages=["en", "zh"])
    return SimpleNamespace(site_dir=str(site), plugins={"i18n": i18n})


def _write_root_index(site: Path, locations: list[str]) -> dict:
    index = {"config": {"lang": ["en", "zh"]},
             "docs": [{"location": location, "title": location or "home", "text": ""} for location in locations]}
    (site / "search").mkdir(parents=True, exist_ok=True)
    (site / "search" / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    return index


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_each_language_gets_its_own_index(tmp_path):
    """After the Chinese build, its pages go to zh/search/search_index.json (located from /zh/); after the last
    build, the root index keeps the English pages only, as they were."""
    pages = _pages()
    assert len(pages) > 5
    chinese = [f"zh/{page}" for page in pages] + [f"zh/{page}#a-section" for page in pages]
    written = _write_root_index(tmp_path, chinese)
    search_indexes.split_index(_config(tmp_path, building=True, current="zh"))
    zh = _read(tmp_path / "zh" / "search" / "search_index.json")
    assert [entry["location"] for entry in zh["docs"]] == [location[len("zh/"):] for location in chinese]
    assert zh["config"] == written["config"]

    _write_root_index(tmp_path, pages + chinese)  # what mkdocs-static-i18n writes after the last language
    search_indexes.split_index(_config(tmp_path, building=False, current="zh"))
    assert [entry["location"] for entry in _read(tmp_path / "search" / "search_index.json")["docs"]] == pages
    assert len(_read(tmp_path / "zh" / "search" / "search_index.json")["docs"]) == len(chinese)  # left alone


def test_a_page_outside_its_language_is_a_one_line_error(tmp_path):
    """A Chinese build whose index holds a page outside /zh/ (a misconfigured site) stops with what to check."""
    _write_root_index(tmp_path, ["zh/", "getting-started/"])
    with pytest.raises(PluginError, match=r"'getting-started/' is not under /zh/; check mkdocs.yml"):
        search_indexes.split_index(_config(tmp_path, building=True, current="zh"))


def test_no_search_plugin_no_index(tmp_path):
    search_indexes.split_index(_config(tmp_path, building=False, current="en"))
    assert list(tmp_path.iterdir()) == []


CONFIG_SCRIPT = ('<script id="__config" type="application/json">{"annotate": null, "base": %s, "features": '
                 '["content.code.copy"], "search": "../assets/javascripts/workers/search.js"}</script>')


@pytest.mark.parametrize("base, chinese", [('".."', '"../zh/"'), ('"../../.."', '"../../../zh/"'),
                                           ('"/"', '"/zh/"')])  # the home page, a lesson, the 404 page
def test_a_chinese_page_searches_from_its_own_folder(base, chinese):
    """material loads the index from the page's `base`: a Chinese page's becomes its /zh/ folder; an English
    page's, and the page's other settings, stay as they were."""
    page = f"<html><head>{CONFIG_SCRIPT % base}</head><body>base: {base}</body></html>"
    assert search_indexes.language_base(page, _config(Path("site"), building=True, current="zh")) == \
        page.replace(CONFIG_SCRIPT % base, CONFIG_SCRIPT % chinese)
    assert search_indexes.language_base(page, _config(Path("site"), building=False, current="en")) == page
