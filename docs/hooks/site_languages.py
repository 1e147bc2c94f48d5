"""The site's languages: which one mkdocs-static-i18n is building, and gradtutor's words in it.

mkdocs-static-i18n builds the whole site once per language (English at /, Chinese at /zh/); each
locale maps to one of gradtutor's message languages. The hooks' own sentences are `docs.*` messages
(gradtutor/messages/<lang>/docs.toml); lesson titles and summaries come from course_text.
"""
from __future__ import annotations

from mkdocs.exceptions import PluginError

I18N_PLUGIN = "i18n"  # mkdocs-static-i18n, in mkdocs.yml

# The site's locales (mkdocs-static-i18n's, the URL prefix) → gradtutor's message languages.
LANGUAGES = {"en": "en", "zh": "zh_CN"}

def i18n(config):
    return config.plugins.get(I18N_PLUGIN)

def locale(config) -> str:
    """The locale being built now: mkdocs-static-i18n builds the whole site once per language."""
    plugin = i18n(config)
    if plugin is None:
        return "en"
    return plugin.current_language or plugin.default_language

def locales(config) -> list[str]:
    plugin = i18n(config)
    return plugin.build_languages if plugin is not None else ["en"]

def default_locale(config) -> str:
    plugin = i18n(config)
    return plugin.default_language if plugin is not None else "en"

def lang_of(locale: str) -> str:
    if locale not in LANGUAGES:
        raise PluginError(f"mkdocs.yml: the site's language {locale!r} has no gradtutor messages "
                          f"(known: {', '.join(LANGUAGES)})")
    return LANGUAGES[locale]

def say(message_id: str, lang: str, **params) -> str:
    from gradtutor import messages

    return messages.say(f"docs.{message_id}", lang=lang, **params)

def text(key: str, english: str, lang: str) -> str:
    """A manifest text (lesson title, summary) in `lang`, English until its translation lands."""
    from gradtutor import messages

    return messages.course_text(key, english, lang=lang)
