"""Is a course's layout, read without nbgrader, the one nbgrader's commands would use?

Course folders get drawn nbgrader_config.py files: the settings `classroom init` writes,
settings that move nothing the grading command reads, and sometimes one that does (a
submitted folder of its own, a gradebook elsewhere, nbgrader's outdated names). The layout
read without nbgrader must then either agree with nbgrader's CourseDirectory on every path
the command reads, or not be offered, and `read_course` must find the class either way.
"""
from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from gradtutor.classroom.coursedir import layout as course_layout
from tests.support.classroom import tool_env

pytestmark = pytest.mark.unit

HARMLESS = ['c.CourseDirectory.release_directory = "handout"', 'c.CourseDirectory.feedback_directory = "returned"',
            "c.CourseDirectory.max_file_size = 5000", 'c.ClearOutput.enabled = True', "c.Execute.timeout = 300",
            "c.Gradtutor.hidden_inputs_secret = '" + "ab" * 16 + "'"]
# (a setting that moves what the command reads, where a submission then is)
MOVING = [('c.CourseDirectory.submitted_directory = "handed_in"', "handed_in/{student}/{lesson}"),
          ('c.CourseDirectory.directory_structure = "{{nbgrader_step}}/{{assignment_id}}/{{student_id}}"',
           "submitted/{lesson}/{student}"),
          ('c.CourseDirectory.db_url = "sqlite:///{root}/elsewhere.db"', "submitted/{student}/{lesson}"),
          ('c.CourseDirectory.autograded_directory = "marked"', "submitted/{student}/{lesson}"),
          ('c.NbGrader.course_id = "{course_id}"', "submitted/{student}/{lesson}"),  # outdated: nbgrader moves it
          ('c.CourseDirectory.course_id = " {course_id} "', "submitted/{student}/{lesson}")]  # nbgrader strips it


def _draw_course(tmp_path: Path, rng: random.Random, moving: int | None):
    """A course folder with a drawn config and one submission per drawn student; returns (folder, lesson, students, setting)."""
    folder = tmp_path / "course"
    folder.mkdir()
    course_id = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10)))
    source = rng.choice(["source", "solutions", "src"])
    lines = [f"c.CourseDirectory.course_id = {course_id!r}", f'c.CourseDirectory.source_directory = "{source}"',
             *rng.sample(HARMLESS, rng.randint(0, len(HARMLESS)))]
    setting, submitted = MOVING[moving] if moving is not None else (None, "submitted/{student}/{lesson}")
    if setting:
        lines.append(setting.format(root=folder, course_id=course_id))  # last: it wins over the lines above
    (folder / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n" + "\n".join(lines) + "\n")
    lesson = f"lesson{rng.randint(1, 9)}"
    (folder / source / lesson).mkdir(parents=True)
    students = sorted({"".join(rng.choices(string.ascii_lowercase + string.digits, k=rng.randint(2, 9)))
                       for _ in range(rng.randint(1, 5))})
    for student in students:
        where = folder / submitted.format(student=student, lesson=lesson)
        where.mkdir(parents=True)
        (where / f"{lesson}.ipynb").write_text("{}")
    return folder, lesson, students, setting


# Both readings of the course, in a process of its own: nbgrader's application is not started in the test
# runner's (its logging would keep the runner's captured output)
READ_BOTH = """
import json, sys
from pathlib import Path
from gradtutor.classroom.coursedir.layout import PlainLayout, layout
from gradtutor.classroom.coursedir.submissions import read_course
from gradtutor.classroom.grading.nbgrader_glue import inside, nbgrader_api

folder, lesson, students = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])

def paths(where):
    steps = (where.submitted_directory, where.autograded_directory, where.source_directory)
    return [where.root, where.db_url, where.course_id] + [where.format_path(step, student, lesson, escape=escape)
            for student in students for step in steps for escape in (False, True)]

with inside(folder):
    nbgraders = nbgrader_api().coursedir
    nbgraders.root  # read inside the folder, as nbgrader does
read, info = layout(folder), read_course(folder, lesson, None)
print(json.dumps({"plain": isinstance(read, PlainLayout), "read": paths(read), "nbgrader": paths(nbgraders),
                  "found": sorted(info.submissions), "db_url": [info.db_url, nbgraders.db_url],
                  "course_id": [info.course_id, nbgraders.course_id],
                  "source": [str(info.source), str(Path(nbgraders.format_path(nbgraders.source_directory, ".",
                                                                                lesson)).resolve())]}))
"""


@pytest.mark.parametrize("moving", [None, *range(len(MOVING))], ids=["default", *(s for s, _ in MOVING)])
def test_the_layout_is_nbgraders_own(tmp_path, moving):
    rng = random.Random(random.randrange(2**32))
    folder, lesson, students, setting = _draw_course(tmp_path, rng, moving)

    plain = course_layout.plain_layout(os.path.realpath(folder))
    done = subprocess.run([sys.executable, "-c", READ_BOTH, str(folder), lesson,
                           json.dumps([*students, "(?P<student_id>[^/]+)", "*"])],
                          cwd=tmp_path, env=tool_env(), capture_output=True, text=True, timeout=300)

    assert done.returncode == 0, done.stderr
    both = json.loads(done.stdout.splitlines()[-1])
    assert (plain is None) == (moving is not None) == (not both["plain"])  # nbgrader's own layout when moved
    assert both["read"] == both["nbgrader"]  # every path the command reads, each student, escaped or not
    assert both["found"] == students
    for mine, nbgraders in (both["db_url"], both["course_id"], both["source"]):
        assert mine == nbgraders


def test_a_config_that_fails_to_load_is_left_to_nbgrader(tmp_path):
    rng = random.Random(random.randrange(2**32))
    folder, *_ = _draw_course(tmp_path, rng, moving=None)
    config = folder / "nbgrader_config.py"
    config.write_text(config.read_text() + rng.choice(["c.CourseDirectory.root = (", "raise RuntimeError('no')"]) + "\n")

    assert course_layout.plain_layout(os.path.realpath(folder)) is None
