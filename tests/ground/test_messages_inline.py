"""Is every sentence the checker, the CLI and check() show taken from the message catalogue?

The same `ast` scan as the classroom's (tests/support/message_scan.py) over the modules a learner
hears from: the command line, the verdicts and diagnoses, the notebook's check(), hints, the workspace,
reading a file. A sentence written inline there would stay English in the Chinese edition.
(gradtutor.dev, the course author's tools, and course_schema's errors about course.toml itself are
for the course's maintainers and stay English.)
"""
from __future__ import annotations

import re

import pytest

from tests.support import REPO
from tests.support.message_scan import scan

pytestmark = pytest.mark.unit

SENTENCE = re.compile(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}")  # two words; one ('id', 'python', 'gradtutor: ') is data

LEARNER_FACING = ["cli/__init__.py", "learner/verdict_view.py", "learner/notebook.py", "learner/hints.py",
                  "learner/workspace.py", "checking/verdict.py", "checking/precheck.py", "checking/diagnose.py",
                  "checking/compare.py", "course/extract.py", "learner/judge.py", "course/manifest.py", "course/seeds.py",
                  "checking/checker.py", "course/secret.py", "learner/watch.py", "learner/lab/__init__.py", "isolation/results.py",
                  "isolation/describe.py", "learner/daemon/client.py", "explain/command.py", "explain/findings_view.py",
                  "evidence/reading/wording.py"]


def test_is_no_sentence_a_learner_reads_written_inline():
    inline, with_say = [], []
    for name in LEARNER_FACING:
        found, said, _ = scan((REPO / "gradtutor" / name).read_text(encoding="utf-8"), name,
                              also_shown={"CheckError"})  # check()'s own error, in a notebook
        inline += [site for site in found if SENTENCE.search(site.split(": ", 1)[1])]  # not a key or a name
        with_say += said
    assert not inline, "text a learner reads, written inline instead of say(...):\n" + "\n".join(inline)
    files = {site.split(":")[0] for site in with_say}
    assert {"cli/__init__.py", "course/extract.py", "learner/hints.py", "learner/notebook.py", "learner/workspace.py",
            "course/manifest.py"} <= files, files
    assert len(with_say) >= 40, len(with_say)
