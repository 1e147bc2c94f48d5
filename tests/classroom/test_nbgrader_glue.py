"""nbgrader as gradtutor's grading processes load it (gradtutor.classroom.grading.nbgrader_glue)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO

pytestmark = pytest.mark.nbgrader

pytest.importorskip("nbgrader")


def test_nbgrader_is_loaded_without_the_iri_format_checks_and_still_validates_notebooks(tmp_path):
    # a process of its own: the import gate only works before anything has imported jsonschema
    code = (
        "import sys\n"
        "from gradtutor.classroom.grading.nbgrader_glue import nbgrader_api\n"
        "api = nbgrader_api()\n"
        "import jsonschema, nbformat\n"
        f"nb = nbformat.read({str(REPO / 'lessons' / 'lesson2' / 'lesson2.ipynb')!r}, as_version=4)\n"
        "nbformat.validate(nb)\n"
        "print(sys.modules.get('rfc3987_syntax', 'absent'), 'iri' in jsonschema.FormatChecker().checkers,\n"
        "      type(api).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "False", "NbGraderAPI"]
