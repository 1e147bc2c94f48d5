"""The explain corpus run once for the two modules that read it: test_explain_corpus.py and test_explain_fix_corpus.py.

Each Keras 3 script is explained, patched and its patch verified in one pass (tests/support/fix_runner.py,
whose rows carry the findings the corpus test reads as well as the patches the fix test reads), in two
children that split the scripts between the cores; the Keras 2 scripts, which --fix does not patch, are
only explained (explain_runner.py) with TF_USE_LEGACY_KERAS set. Both modules are one xdist group ("explain_corpus"), so
one worker makes this fixture once.
"""
from __future__ import annotations

import pytest

from gradtutor.dev import corpus
from tests.support.corpus_runs import CORPUS, EXPLAIN_RUNNER, FIX_RUNNER, rows_of, start


@pytest.fixture(scope="session")
def corpus_runs(tmp_path_factory) -> dict[str, dict]:
    """Each corpus script's row: its findings, and for a Keras 3 script its patches ("patched", "manual", "diff")."""
    cases = corpus.read_scripts(CORPUS)
    modern = sorted(case.file.name for case in cases if case.context.get("keras") != "2")
    legacy = sorted(case.file.name for case in cases if case.context.get("keras") == "2")
    folder = tmp_path_factory.mktemp("explain-corpus")
    children = [(start(FIX_RUNNER, half, folder / f"fix{i}.jsonl"), folder / f"fix{i}.jsonl")
                for i, half in enumerate((modern[0::2], modern[1::2])) if half]
    if legacy:
        children.append((start(EXPLAIN_RUNNER, legacy, folder / "legacy.jsonl", legacy=True),
                         folder / "legacy.jsonl"))
    return rows_of(children)
