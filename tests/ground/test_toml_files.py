"""The package's TOML files are parsed once per change, and a file's data is kept only once it was vouched for."""
from __future__ import annotations

import os

import pytest

from gradtutor.messages import toml_files

pytestmark = pytest.mark.unit


def _touch(path, nanoseconds: int) -> None:
    os.utime(path, ns=(nanoseconds, nanoseconds))


def test_is_the_parsed_data_kept_until_the_file_or_what_vouched_for_it_changes(tmp_path):
    data, schema = tmp_path / "course.toml", tmp_path / "schema.py"
    data.write_text('title = "one"\n[[lessons]]\nid = "a"\nratio = 1.5e-3\n')
    schema.write_text("# v1\n")
    checked = []
    load = lambda: toml_files.load(data, checked.append, (schema,))  # noqa: E731 - one call, three times
    first = load()
    assert first == {"title": "one", "lessons": [{"id": "a", "ratio": 1.5e-3}]}
    assert (tmp_path / "__pycache__" / "course.toml.json").is_file()
    assert load() == first and len(checked) == 1, "kept data is not parsed or checked again"
    data.write_text('title = "two"\n')  # a new file: parsed and checked again
    _touch(data, 10**18)
    assert load() == {"title": "two"} and len(checked) == 2
    schema.write_text("# v2, longer\n")  # the code that checks it changed: checked again
    assert load() == {"title": "two"} and len(checked) == 3


def test_is_data_its_check_refused_never_kept(tmp_path):
    data = tmp_path / "course.toml"
    data.write_text('title = "bad"\n')

    def refuse(parsed):
        raise ValueError("not a course")

    for _ in range(2):
        with pytest.raises(ValueError, match="not a course"):
            toml_files.load(data, refuse)
    assert not (tmp_path / "__pycache__" / "course.toml.json").exists()


def test_does_a_folder_it_cannot_write_only_mean_parsing_every_time(tmp_path):
    data = tmp_path / "messages.toml"
    data.write_text('[check]\nhello = "hi"\n')
    (tmp_path / "__pycache__").write_text("a file where the folder would be")
    assert toml_files.load(data) == toml_files.load(data) == {"check": {"hello": "hi"}}


def test_is_a_file_with_dates_parsed_every_time(tmp_path):
    data = tmp_path / "dated.toml"
    data.write_text("when = 2026-12-03\n")
    assert str(toml_files.load(data)["when"]) == "2026-12-03"
    assert not (tmp_path / "__pycache__" / "dated.toml.json").exists()
