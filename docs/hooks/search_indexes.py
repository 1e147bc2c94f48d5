"""One search index per language: the English site's search lists English pages, the Chinese site's its own.

mkdocs-static-i18n builds the whole site once per language into one site directory (the other languages under
/LOCALE/), and after the last language it writes every language's pages into the one search/search_index.json
at the site's root, which material's script loads from the `base` of every page's `__config`. So here:
* at the end of another language's build, the root index holds that language's pages alone: they are copied to
  LOCALE/search/search_index.json, their locations made relative to /LOCALE/;
* that language's pages get `base` = their /LOCALE/ folder, so material loads that index and resolves its
  results' links from there (the page's own links and assets keep mkdocs' base_url);
* after the last build, the root index is brought back to the default language's pages.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

import site_languages as languages

INDEX = Path("search", "search_index.json")

# material's page settings (templates/base.html): `"base": base_url` in a JSON script.
CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": )("[^"]*")')


def language_base(output: str, config) -> str:
    """A page of a non-default language: material's `base` is that language's folder, where its index is."""
    locale = languages.locale(config)
    if locale == languages.default_locale(config):
        return output

    def below(match: re.Match) -> str:
        base = json.loads(match.group(2))  # "..", "../..", or "/" on a 404 page
        folder = base if base.endswith("/") or not base else base + "/"
        return match.group(1) + json.dumps(f"{folder}{locale}/")

    return CONFIG_BASE.sub(below, output, count=1)


def split_index(config) -> None:
    """At the end of each language's build: the root index, as mkdocs-static-i18n left it, split by language."""
    root_index = Path(config.site_dir) / INDEX
    if not root_index.is_file():  # the search plugin is off
        return
    index = json.loads(root_index.read_text(encoding="utf-8"))
    plugin = languages.i18n(config)
    if plugin is not None and plugin.building:  # a language built inside the default one's post-build: its pages only
        locale = languages.locale(config)
        index["docs"] = [dict(entry, location=_below(entry["location"], locale)) for entry in index["docs"]]
        _write(Path(config.site_dir) / locale / INDEX, index)
        return
    default = languages.default_locale(config)
    others = tuple(f"{locale}/" for locale in languages.locales(config) if locale != default)
    index["docs"] = [entry for entry in index["docs"] if not entry["location"].startswith(others)]
    _write(root_index, index)


def _below(location: str, locale: str) -> str:
    prefix = f"{locale}/"
    if not location.startswith(prefix):
        raise PluginError(f"search index of the '{locale}' site: the page '{location}' is not under /{prefix}; "
                          f"check mkdocs.yml's i18n languages (docs_structure: suffix)")
    return location[len(prefix):]


def _write(path: Path, index: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # as material's search plugin writes it (compact: its size is what every reader downloads)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
