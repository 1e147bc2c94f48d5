"""Children that run the explain corpus's scripts, one TensorFlow import each, and the rows they write.

Used by tests/explain/conftest.py (the corpus explained and patched once) and the corpus test's plain run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # tests/
CORPUS = HERE / "explain" / "corpus"
REPO = HERE.parent
FIX_RUNNER = HERE / "support" / "fix_runner.py"  # explained, patched, the patch verified
EXPLAIN_RUNNER = HERE / "support" / "explain_runner.py"  # explained
PLAIN_RUNNER = HERE / "explain" / "plain_runner.py"  # run plainly, its gradients recorded


def start(runner: Path, scripts: list[str], out: Path, legacy: bool = False) -> subprocess.Popen:
    """A child running one of the runners above over scripts (in the corpus folder), its rows written to out."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    if legacy:
        env["TF_USE_LEGACY_KERAS"] = "1"
    return subprocess.Popen([sys.executable, str(runner), str(out), *scripts], cwd=CORPUS, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rows_of(children: list[tuple[subprocess.Popen, Path]]) -> dict[str, dict]:
    """Every child's rows by script, once each has ended well."""
    rows = {}
    for child, out in children:
        assert child.wait(timeout=1200) == 0, out
        rows.update((row["script"], row) for row in map(json.loads, out.read_text().splitlines()))
    return rows
