"""Where a course's files are, as nbgrader's commands run in its folder would find them.

nbgrader's own answer (its CourseDirectory) costs an import of nbgrader: about 2 CPU-seconds,
which a re-run with nothing new to grade would spend on nothing else. Most courses keep
nbgrader's default layout ({nbgrader_step}/{student_id}/{assignment_id} under the course
folder, gradebook.db beside it); for those the layout is read here from the same config
files nbgrader loads (traitlets, as nbgrader runs them), without nbgrader. A config that
sets anything that moves these paths, or that nbgrader would first rewrite (its outdated
names), gets nbgrader's own CourseDirectory instead.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from jupyter_core.application import JupyterApp

CONFIG_NAME = "nbgrader_config"
STRUCTURE = os.path.join("{nbgrader_step}", "{student_id}", "{assignment_id}")  # CourseDirectory's default
# CourseDirectory settings that move what the grading command reads: any of these set, nbgrader lays it out
MOVES_PATHS = frozenset({"root", "directory_structure", "submitted_directory", "autograded_directory", "db_url"})
# sections nbgrader rewrites into CourseDirectory settings when it loads them (nbgrader.apps.baseapp.NbGrader._load_config),
# and the base classes whose settings every configurable, CourseDirectory too, takes
REWRITTEN = frozenset({"NbGraderConfig", "BasicConfig", "BaseNbGraderApp", "BaseApp", "NbGrader", "Exchange",
                       "TransferApp", "Configurable", "LoggingConfigurable"})


class PlainLayout:
    """The part of nbgrader's CourseDirectory the grading command reads, for a course in the default layout."""

    directory_structure = STRUCTURE
    submitted_directory = "submitted"
    autograded_directory = "autograded"

    def __init__(self, root: str, course_id: str, source_directory: str):
        self.root, self.course_id, self.source_directory = root, course_id, source_directory
        self.db_url = "sqlite:///{}".format(os.path.abspath(os.path.join(root, "gradebook.db")))

    def format_path(self, nbgrader_step: str, student_id: str, assignment_id: str, escape: bool = False) -> str:
        """nbgrader.coursedir.CourseDirectory.format_path, for the default structure (relative, so under root)."""
        parts = [part.format(nbgrader_step=nbgrader_step, student_id=student_id, assignment_id=assignment_id)
                 for part in STRUCTURE.split(os.sep)]
        if escape:
            return re.escape(os.sep).join([re.escape(self.root), *parts])
        return os.path.join(self.root, STRUCTURE.format(nbgrader_step=nbgrader_step, student_id=student_id,
                                                        assignment_id=assignment_id))


def layout(course_dir: Path):
    """The course's layout: a PlainLayout when its config keeps the default one, else nbgrader's CourseDirectory."""
    root = os.path.realpath(course_dir)  # what os.getcwd() says inside it: nbgrader's default root
    plain = plain_layout(root)
    if plain is not None:
        return plain
    from gradtutor.classroom.grading.nbgrader_glue import inside, nbgrader_api

    with inside(Path(root)):
        coursedir = nbgrader_api().coursedir
        coursedir.root  # noqa: B018 - its default is the working directory when first read: read it here
    return coursedir


def plain_layout(root: str) -> PlainLayout | None:
    """The default layout under `root` with the config's course id and source folder; None when it is not that."""
    config = course_config(root)
    if config is None:
        return None
    sections = {name: section for name, section in config.items() if section}  # reading a Config adds empty ones
    settings = sections.get("CourseDirectory", {})
    if REWRITTEN & set(sections) or MOVES_PATHS & set(settings):
        return None
    course_id, source = settings.get("course_id", ""), settings.get("source_directory", "source")
    if not isinstance(course_id, str) or not isinstance(source, str) or course_id != course_id.strip():
        return None  # a value traitlets would convert (a lazy or deferred one), or nbgrader would strip, with a warning
    return PlainLayout(root, course_id, source)


def course_config(root: str):
    """The config nbgrader's commands load in folder `root`, as a traitlets Config; None when one cannot be loaded.

    nbgrader (an application named "nbgrader") loads jupyter_config and nbgrader_config from Jupyter's
    config folders, then nbgrader_config from the working directory and again from the course root.
    """
    reader = ConfigReader(raise_config_file_errors=True)  # an error there: nbgrader's own loading says what it says
    try:
        reader.load_config_file(suppress_errors=False)
        super(JupyterApp, reader).load_config_file(CONFIG_NAME, path=root)  # as NbGrader.initialize does
    except Exception:  # noqa: BLE001 - whatever a config file raises, nbgrader's own reading decides
        return None
    return reader.config


class ConfigReader(JupyterApp):
    name = "nbgrader"  # so its config file is nbgrader_config, in the folders nbgrader looks in
