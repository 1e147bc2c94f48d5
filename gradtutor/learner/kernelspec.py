"""The course's Jupyter kernel: its name, and the learner's notebook copies that name it.

The notebooks in the package (and nbgrader's classroom releases) keep the
generic `python3` kernel, so graders and the docs build need nothing installed.
The copies `gradtutor init` and `gradtutor reset` make for a learner name the
`gradtutor` kernel (installed by `gradtutor lab` into the Python that has
TensorFlow and gradtutor), so JupyterLab starts it without asking.
"""
from __future__ import annotations

import json
from pathlib import Path

KERNEL_NAME = "gradtutor"
DISPLAY_NAME = "gradtutor (TensorFlow)"
KERNELSPEC = {"display_name": DISPLAY_NAME, "language": "python", "name": KERNEL_NAME}


def copy_for_learner(source: Path, target: Path) -> None:
    """Copy a lesson notebook, naming the course's kernel in its metadata (nothing else changes)."""
    notebook = json.loads(Path(source).read_text(encoding="utf-8"))
    notebook.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    Path(target).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
