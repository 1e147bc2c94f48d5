"""Every default limit of gradtutor in one place: how long things may take, how much memory they may use.

Options and configuration override them (`--timeout`, `--memory-mb`, nbgrader's
`Execute.timeout`); what is here is what applies when nobody says otherwise.
Imports nothing, so anything (even nbgrader_config.py) may read it.
"""

# --------------------------------------------------------------------------- checking one exercise

EXERCISE_TIMEOUT = 30.0  # seconds for one exercise, all seeds: `check --timeout`, `watch`, check() in a notebook
REFERENCE_TIMEOUT = 300.0  # seconds to compute a lesson's reference gradients (cached on disk afterwards)
WORKER_IMPORT_TIMEOUT = 180.0  # seconds for the checker's worker to import TensorFlow on a loaded 2-core machine
DEV_CHECK_TIMEOUT = 60.0  # seconds per exercise in `gradtutor dev check`: it runs the whole course at once
MEMORY_MB = 4096  # MiB the learner's code may use (`--memory-mb`)

# --------------------------------------------------------------------------- classroom grading (nbgrader)

# nbgrader's Execute.timeout, seconds per cell: a lesson's first check starts TensorFlow in
# a fresh process and each check may take EXERCISE_TIMEOUT of the learner's code, so
# nbgrader's own default (30 s) is too short. Written by `gradtutor classroom init`.
NBGRADER_CELL_TIMEOUT = 300
SUBMISSION_TIMEOUT = 900.0  # seconds one student's submission may take in all (`gradtutor grade --timeout`)
KERNEL_FORKER_TIMEOUT = 180.0  # seconds for the warm kernel forker to import TensorFlow and fork a grading kernel
KERNEL_FORKER_BIND_TIMEOUT = 60.0  # seconds start_forker waits for the forker to bind its socket (a Python start-up)
KERNEL_FORKER_READ_TIMEOUT = 10.0  # seconds the forker waits for a connected peer's request line before it drops the line
GRADING_WORKER_READY_TIMEOUT = 300.0  # seconds a grading worker may take to import nbgrader before its first job
SQLITE_BUSY_TIMEOUT = 120  # seconds a grading worker waits for another's gradebook write
