"""Is every module of the package small enough to read in one sitting (at most 300 lines)?

A module past the limit is doing more than one job: split it along that seam rather than
raising the limit.
"""
from __future__ import annotations

import pytest

from tests.support import REPO

pytestmark = pytest.mark.unit

MAX_LINES = 300
PACKAGE = REPO / "gradtutor"


def test_no_module_is_over_the_limit():
    sizes = {path.relative_to(REPO).as_posix(): len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}
    assert sizes, f"no modules under {PACKAGE}"
    too_long = {name: lines for name, lines in sorted(sizes.items(), key=lambda item: -item[1]) if lines > MAX_LINES}
    assert not too_long, f"modules over {MAX_LINES} lines: " + ", ".join(f"{n} ({l})" for n, l in too_long.items())
