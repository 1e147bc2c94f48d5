"""nbgrader configuration: solutions/ is the source, lessons/ the release.

`nbgrader generate_assignment lessonN` turns solutions/lessonN/ into lessons/lessonN/.
"""
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.root = "."
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "lessons"
c.CourseDirectory.course_id = "gradtutor"
# Keep release notebooks clean for diffs: no outputs, no execution counts.
c.ClearOutput.enabled = True
# A lesson's first check starts TensorFlow and each check may run the learner's
# code for up to 30 s: nbgrader's default of 30 s per cell is too short. The value is
# gradtutor's (the one `gradtutor classroom init` writes): this repository is only
# worked on with gradtutor installed (`pip install -e .[classroom]`).
from gradtutor.defaults import NBGRADER_CELL_TIMEOUT  # noqa: E402

c.Execute.timeout = NBGRADER_CELL_TIMEOUT
