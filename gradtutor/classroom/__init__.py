"""Classroom autograding with nbgrader: `gradtutor classroom init` and `gradtutor grade`.

`gradtutor classroom init DIR` lays out an nbgrader course folder (its
`nbgrader_config.py` and `source/<lesson>/` from the notebooks this package
carries), so an instructor who only ran `pip install gradtutor[classroom]`
can go on with nbgrader's own commands.

`gradtutor grade COURSE_DIR LESSON --jobs N` autogrades every submission in
`submitted/<student>/<lesson>/` with nbgrader itself: N long-lived worker
processes each run nbgrader's `Autograde` converter (its preprocessors, its
kernel execution, its SQLite gradebook) for one student at a time, exactly as
`nbgrader autograde LESSON --student <id>` would, so the gradebook ends up as a
serial `nbgrader autograde LESSON` leaves it. The parent hands out students,
draws a progress bar, prints one result line per notebook and stops a worker
that runs past `--timeout` (the submission then scores 0).

nbgrader is imported only inside the functions here, so `gradtutor --help`
stays fast.

Modules: commands (CLI), course_folder (classroom init), pool and
grading_worker (the two sides of batch grading), nbgrader_glue, gradebook
(reading results back), recheck and shared_judge (the out-of-kernel check),
sandboxed_execute and kernel_sandbox (nbgrader's kernels under Landlock, set
through nbgrader's configuration), warm_kernels (those kernels forked from a
process that has imported TensorFlow already).
"""
from gradtutor.classroom.commands import add_verbs, grade

__all__ = ["add_verbs", "grade", "init_course"]


def __getattr__(name: str):
    # init_course loads with its module, when it is used: not with every `gradtutor` command's parser
    if name == "init_course":
        from gradtutor.classroom.grading.course_folder import init_course

        return init_course
    raise AttributeError(name)
