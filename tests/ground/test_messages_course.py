"""The Chinese translation of the manifest's texts: the course's (gradtutor/messages/zh_CN/course.toml)
and each lesson's (gradtutor/course/lessons/<id>/zh_CN.toml).

Every text a learner reads in the manifest (titles, summaries, hints, diagnoses) has one entry,
keyed by its ids (never its position) and holding the English it translates; the translation keeps every code
fragment of the English verbatim, so `tape.watch(x)` in a hint is still code a learner can copy.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

pytestmark = pytest.mark.unit

PATH = messages.HERE / "zh_CN" / f"{messages.COURSE_AREA}.toml"
TEXTS = course.course_texts(course.load())
# file -> its entries: the course's own, then each lesson's folder in course order
FILES = {path: tomllib.loads(path.read_text(encoding="utf-8")).get("text", [])
         for path in [PATH, *(lesson.folder / "zh_CN.toml" for lesson in course.load().lessons)]}
ENTRIES = [entry for entries in FILES.values() for entry in entries]
BY_KEY = {entry["key"]: entry for entry in ENTRIES}
CJK = re.compile(r"[\u4e00-\u9fff]")
# What the English writes as code: a `backticked` span, or anything that looks like a call.
CODE = (re.compile(r"`[^`]+`"), re.compile(r"[\w.]+\([^()]*\)"))
# Texts that are code alone (a hint's last rung that is just the answer): kept as they are, ending "。".
PURE_CODE = {"lesson4.jacobian_norms.hint.show"}
TEXT_PARAMS = [pytest.param(key, english, id=key) for key, english in TEXTS]


def code_fragments(text: str) -> list[str]:
    return [match for pattern in CODE for match in pattern.findall(text)]


def test_every_entry_has_key_en_and_text_only():
    for entry in ENTRIES:
        assert set(entry) == {"key", "en", "text"}, entry
        assert all(isinstance(value, str) for value in entry.values()), entry


def test_keys_are_unique_and_in_manifest_order():
    keys = [entry["key"] for entry in ENTRIES]
    assert len(keys) == len(set(keys)), sorted({key for key in keys if keys.count(key) > 1})
    order = [key for key, _ in TEXTS]
    assert keys == [key for key in order if key in BY_KEY]


def test_does_each_file_hold_only_its_own_texts():
    """A lesson's translations live in its folder, the course's beside the messages: nothing strays."""
    for path, entries in FILES.items():
        owner = "course" if path == PATH else path.parent.name
        assert entries, f"{path} is empty"
        strays = [entry["key"] for entry in entries if entry["key"].split(".")[0] != owner]
        assert not strays, f"{path} holds other files' texts: {strays}"
    assert sorted(messages.course_catalogue("zh_CN")) == sorted(BY_KEY), "the catalogue reads every file"


def test_every_course_text_is_translated_from_its_current_english():
    missing = [key for key, _ in TEXTS if key not in BY_KEY]
    assert not missing, f"{len(missing)} course texts have no translation, e.g. {missing[:5]}"
    stale = [key for key, english in TEXTS if BY_KEY[key]["en"] != english]
    assert not stale, f"translated from another English (update en and text): {stale}"


def test_no_entry_for_a_text_that_no_longer_exists():
    current = {key for key, _ in TEXTS}
    assert sorted(set(BY_KEY) - current) == []
    assert PURE_CODE <= current, "PURE_CODE names a text that no longer exists"


@pytest.mark.parametrize("key, english", TEXT_PARAMS)
def test_translation_is_chinese_and_keeps_the_code(key, english):
    entry = BY_KEY.get(key)
    if entry is None:
        pytest.fail(f"{key} has no translation")
    text = entry["text"]
    assert text.strip(), key
    if key in PURE_CODE:
        assert not CJK.search(english) and text == english.removesuffix(".") + "。", key
    else:
        assert CJK.search(text), f"{key}: no Chinese in {text!r}"
    lost = [fragment for fragment in code_fragments(english) if fragment not in text]
    assert not lost, f"{key}: code changed or missing in the translation: {lost}"
    assert (text.count("{"), text.count("}")) == (english.count("{"), english.count("}")), key
    assert " — " not in text, f"{key}: use the Chinese dash ——"


def test_code_fragments_are_found():
    """The fragment patterns catch what the check above relies on (so it cannot pass by matching nothing)."""
    sample = "call tape.watch(x) inside `with tf.GradientTape() as tape:` — then tf.reduce_sum(x ** 3)"
    assert code_fragments(sample) == [
        "`with tf.GradientTape() as tape:`", "tape.watch(x)", "tf.GradientTape()", "tf.reduce_sum(x ** 3)"]
    assert sum(len(code_fragments(english)) for _, english in TEXTS) > len(TEXTS)


@pytest.mark.parametrize("key, english", TEXT_PARAMS)
def test_course_text_returns_the_translation_for_chinese_and_the_english_for_english(key, english):
    assert messages.course_text(key, english, lang="en") == english
    translated = messages.course_text(key, english, lang="zh_CN")
    assert translated == BY_KEY[key]["text"] if key in BY_KEY else translated == english
    assert translated != english, f"{key} is shown in English under zh_CN"


def test_a_changed_english_text_shows_as_english_not_a_stale_translation():
    key, english = TEXTS[0]
    changed = english + " (revised)"
    assert messages.course_text(key, changed, lang="zh_CN") == changed
    assert messages.course_text("lesson99.nowhere.hint.1", "Some hint.", lang="zh_CN") == "Some hint."


def test_is_a_lessons_translation_read_without_listing_its_folder(monkeypatch):
    """A sandboxed kernel may read the lessons' files but not list gradtutor/course/lessons/: course_text reads
    the one file a key names, by its path."""
    def refuse(*args, **kwargs):
        raise PermissionError("listing a folder is refused here")

    key, english = next((key, english) for key, english in TEXTS if ".hint." in key)
    messages._texts_of.cache_clear()
    try:
        for name in ("listdir", "scandir"):
            monkeypatch.setattr(os, name, refuse)
        monkeypatch.setattr(Path, "glob", refuse)
        assert messages.course_text(key, english, lang="zh_CN") == BY_KEY[key]["text"]
        with pytest.raises(PermissionError):
            messages.course_catalogue.__wrapped__("zh_CN")  # what would list the folder
    finally:
        monkeypatch.undo()
        messages._texts_of.cache_clear()
