"""The README's table of lessons, made from the manifest, so that adding a lesson needs no edit there.

`gradtutor dev new-lesson` rewrites the lines between BEGIN and END; tests/dev/test_readme.py fails when
they differ from what the manifest makes (the docs site's home page makes its own table as it builds).
"""
from __future__ import annotations

from pathlib import Path

BEGIN = "<!-- lessons: made from each lesson's lesson.toml by `gradtutor dev new-lesson` (gradtutor.dev.readme) -->"
END = "<!-- /lessons -->"


def lessons_table(the_course) -> str:
    """One row per lesson: its number and slug, and its summary (the pitfall and what it does to a gradient)."""
    rows = "".join(f"| {lesson.number} `{lesson.slug}` | {lesson.summary} |\n" for lesson in the_course.lessons)
    return "| lesson | pitfall |\n|---|---|\n" + rows


def with_table(text: str, the_course) -> str | None:
    """The README's text with its table made anew; None when it has no BEGIN … END lines."""
    head, begin, rest = text.partition(BEGIN + "\n")
    _, end, tail = rest.partition(END)
    if not begin or not end:
        return None
    return head + begin + lessons_table(the_course) + end + tail


def refresh(path: Path, the_course) -> bool:
    """Rewrite the table of the README at `path`; False when there is none (a copy without a README)."""
    if not path.is_file():
        return False
    made = with_table(path.read_text(encoding="utf-8"), the_course)
    if made is None:
        return False
    path.write_text(made, encoding="utf-8")
    return True


if __name__ == "__main__":  # python -m gradtutor.dev.readme: remake the checkout's table by hand
    from gradtutor.course import manifest

    refresh(manifest.PACKAGE_DIR.parent / "README.md", manifest.load())
