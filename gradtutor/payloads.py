"""The typed messages that cross a process boundary, as plain JSON (never pickle).

The child that runs learner code writes them, the parent reads them; a notebook
kernel, the terminal and the classroom ask the one check service with them; the
classroom pool hands jobs to its grading processes with them; `gradtutor explain`'s
child reports its findings with one. Field values that are vocabulary (a status, a value kind,
a cause) are the `.value` of gradtutor.protocol's enums. A leaf module.
"""
from __future__ import annotations

from typing import Literal, TypedDict


class ValueDescription(TypedDict, total=False):
    """A returned value, described by the child: its kind, and for arrays where the numbers are."""

    type: str  # a ValueKind
    dtype: str | None
    shape: list[int]
    key: str  # the array's name in the job's .npz file
    length: int  # tuple and list
    items: list["ValueDescription"]
    name: str  # for OTHER: the qualified class name


class ErrorDescription(TypedDict, total=False):
    """An exception from learner code: which, and the learner's own last frame."""

    type: str
    message: str
    where: str | None  # "lesson1.ipynb, cell 7, line 3"
    line: str | None  # that line's code
    seed: int | None
    phase: str  # "gradient": raised inside a gradient computation (tape.gradient, jacobian, jvp, tf.gradients);
    # "forward": anywhere else (computing the target, or values before or after a gradient call)
    op: str | None  # the type of the TensorFlow op that raised ("Reshape", "MatMul"), when its message names it
    defines: list[str]  # for a statement that failed to load: the names it would have defined
    unloaded: str  # the name the learner's function needed from that statement


class FoundCause(TypedDict):
    """One finding of gradtutor.evidence's analysis, as the checker's parent reads it."""

    cause: str  # a protocol.Cause value
    symptom: str  # a protocol.Symptom value: none, zeros, tiny, nonfinite, error
    site: str | None  # the learner's line where the path broke, quoted; None outside the learner's cells
    sources: list[str]  # the names the learner's code gives the sources it is about (w, b), as far as known
    restarted: bool  # a variable made again from its first value at `site`, each step (analysis's "restarted")


class RunFacts(TypedDict, total=False):
    """What the learner's code did during one call (gradtutor.evidence.reading.run_facts); absent keys did not happen."""

    watch_calls: list[str]  # per tape.watch argument: "input 0", "another tensor", "a numpy array", …
    ops: list[str]  # op types run while a tape was recording (first 64)
    gradient_calls: int  # tape.gradient / jacobian / batch_jacobian calls
    learner_calls: dict[str, int]  # made by the learner's code itself: "tapes" entered, "gradient", "jacobian", "jvp"
    tapes: int  # tapes entered
    source_unwatched: bool  # a source of a gradient call was neither watched nor a trainable variable
    watched_late: bool  # tape.watch got a tensor an op had already read while recording
    target_outside: bool  # a target was made while no tape was recording (after the with block)
    outside_input: bool  # an op while recording read a tensor this call made while no tape recorded
    target_left_tensorflow: bool  # a target was a numpy value or Python number
    left_tensorflow: bool  # .numpy() or np.* on a tensor while a tape was recording
    custom_gradient: bool  # a gradient function of the learner's own tf.custom_gradient ran (evidence.custom_gradients)
    gradient_while_recording: bool  # tape.gradient called inside its own with block
    zero_fill: bool  # unconnected_gradients=ZERO
    nonscalar_target: bool  # a target with more than one element (its sum is differentiated)
    integer_op: str  # an integer-valued op (ArgMax, Round, a Cast to int) ran while recording
    assigned_variable: bool  # a variable was assigned while recording (a stateful layer's state)
    stop_gradient: bool
    path_break: str  # the cause id of the op nearest a target that cut the only paths back to its source
    path_cut: str  # the same for the nearest value-carrying op that cut a path, even when another path reached
    broke_at: dict[str, str]  # cause id of path_break / path_cut -> the learner's line that ran that op
    findings: list[FoundCause]  # the evidence analysis's findings on the call (the ones `gradtutor explain` makes)
    nonfinite_at: str  # the learner's line of the first op whose values make its gradient inf or NaN ("" unknown)
    saturated: bool  # an element of a sigmoid, tanh or softmax output at its limit (gradtutor.evidence.reading.symptoms)
    numpy_function: bool  # tf.numpy_function ran while recording (eagerly: Python on numpy, a constant result)
    py_function: bool  # tf.py_function ran while recording (its gradient follows only the TensorFlow ops inside)
    variable_replaced: bool  # a source that was a variable in the last gradient call is a tensor or new variable
    no_sources: bool  # a gradient call was given an empty list of sources
    frozen_variable: bool  # a layer made a weight with add_weight(trainable=False)
    inputs_modified: list[str]  # the inputs whose values or layers changed during the call
    forward_calls: int  # calls of the Keras layers and models among the inputs (gradtutor.isolation.keras_calls)
    fresh_weights: list[str]  # Keras layer classes that made new weights during the call (a layer built inside)
    weights_made: list[str]  # per add_weight of a learner's layer class, the learner method it ran in ("build", …)
    forward_mode: bool  # the learner's code called ForwardAccumulator.jvp
    jacobian_called: bool  # the learner's code called tape.jacobian or tape.batch_jacobian
    accumulator_unentered: bool  # acc.jvp of a ForwardAccumulator never entered with `with` (it recorded nothing)
    bias_made_first: bool  # a learner's layer made a vector weight before a matrix one: trainable_variables lists it first


class Tolerance(TypedDict):
    rtol: float
    atol: float


ChildStatus = Literal["ok", "not_attempted", "missing", "error"]


class ChildResult(TypedDict, total=False):
    """One exercise's result as a child writes it (result-<i>.json), checked by its nonce."""

    status: ChildStatus
    results: dict  # seed (as text) -> ValueDescription; references add "tolerance": Tolerance and
    # "shapes": seed -> {input name: shape}
    error: ErrorDescription
    facts: RunFacts  # of the first seed, or of the one that raised or changed its inputs
    nonce: str


class CellSource(TypedDict):
    label: str  # "lesson1.ipynb, cell 7": how errors point at it
    source: str


class ExerciseRef(TypedDict):
    id: str
    function: str


class Job(TypedDict, total=False):
    """One job for the worker: compute references, or run learner code (a fresh child for each)."""

    kind: Literal["reference", "learner"]
    lesson: str
    exercises: list  # reference: exercise ids; learner: ExerciseRef
    seeds: list[int]
    cells: list[CellSource]
    cells_fifo: str  # a prepared learner job reads its cells from here
    id: int
    nonce: str
    out: str
    memory_mb: int | None
    hide: list[str]  # files the learner code may not read, beside the answers (a course's secret)


class WorkerMessage(TypedDict, total=False):
    """What the worker writes on its protocol pipe: ready, then per job its child's pid and exit."""

    ready: bool
    error: str
    id: int
    pid: int
    exit: dict  # {"code": n} or {"signal": n}


class ConsoleInfo(TypedDict, total=False):
    """The terminal `gradtutor check` prints to, so its host draws the table for it."""

    width: int
    terminal: bool
    colour: str | None  # rich's colour system name; None: no colours


class CheckRequest(TypedDict, total=False):
    """One check, from any front end, for the one check service (gradtutor.checking.service).

    The learner's code comes as `cells` (the sources a notebook kernel ran, in order: its check())
    or as `path` (a file the terminal names). `lesson` is required; the rest have defaults.
    """

    lesson: str
    exercise: str | None  # None or absent: every exercise of the lesson (a file's check)
    seeds: str  # visible | hidden | all (the default)
    cells: list[str]
    path: str  # absolute
    source: str  # how the verdicts name the code ("lesson1.ipynb"); default: this notebook
    function: str  # the learner's own name for the exercise's function (a notebook's check())
    timeout: float  # seconds per exercise; default: the checker's
    memory_mb: int | None  # the terminal's --memory-mb: a checker per limit
    notebook: str  # the kernel's notebook: its host records the verdict there, in a learner workspace
    json: bool  # the terminal host's rendering: --json, else the table for `console`
    console: ConsoleInfo


class CheckReply(TypedDict, total=False):
    """The service's answer: verdicts, {skipped}, or {problem} (for a GradtutorError, with its exit code).

    A request naming one exercise gets its verdict flat (id, status, message, cause, rows: what check()
    shows); every verdict reply has `statuses` and `exit_code` (what `gradtutor check` records and exits
    with). The terminal's host adds `output`, the text it drew; {crash} is that host's own failure.
    """

    id: str
    status: str  # a Status
    message: str
    cause: str | None  # a Cause
    rows: list[dict]
    visible_only: bool  # checked on the visible inputs alone: this service has no hidden ones (outside a course)
    note: str  # graded on the package's public hidden inputs: nbgrader in a course with no secret
    statuses: dict[str, str]  # exercise id -> Status, for every exercise checked
    exit_code: int
    skipped: str  # a kernel's hidden-inputs check outside a course: the one line the cell prints instead
    problem: str  # a malformed request, or a GradtutorError's one line
    output: str  # the terminal host's: the table (or --json) `gradtutor check` prints
    crash: str  # the terminal host failed unexpectedly: the CLI checks in-process instead


class DaemonStop(TypedDict, total=False):
    """`gradtutor`'s request that its warm checker exit ({"stop": true}), and the reply ({"stopped": true})."""

    stop: bool
    stopped: bool


class ExplainResult(TypedDict, total=False):
    """What `gradtutor explain`'s child (and its fix re-run) writes on its pipe, as one JSON object."""

    findings: list[dict]  # gradtutor.evidence.Finding, as JSON
    script_exit: int  # the script's exit code (130 after Ctrl-C); the parent puts the child's own here
    gradient_calls: int
    unobserved: list[dict]  # call sites whose gradients were never seen (gradtutor.evidence.report)
    exact: list[dict]  # all-zero gradients shown to be the true slope (gradtutor.evidence.exact_zeros)
    died: bool  # the parent's: the child wrote nothing readable
    # the fix re-run's (gradtutor.explain.fix.rerun), by line of the patched copy:
    gradients: dict[str, list]  # what each gradient call's sources got: ok, none, nonfinite, zero, traced
    central: dict[str, float]  # the central-difference cross-check's error
    compiled: dict[str, dict]  # {"steps", "codes"} seen in compiled steps


class NotebookVerdict(TypedDict):
    """What check() leaves in a notebook cell's output (under protocol.VERDICT_MIME) for the classroom report."""

    lesson: str
    exercise: str
    status: str  # a Status
    cause: str | None  # a Cause
    message: str


class GradingJob(TypedDict):
    """The classroom pool asks one grading process to autograde one student's submission."""

    assignment: str
    student: str
    force: bool


class CourseKit(TypedDict):
    """What a Dask worker needs of the course to autograde a lesson with no shared filesystem (bytes as base64).

    The gradebook is the instructor's copy with every student removed: it holds the assignment
    (its cells, points and due date) and no one's grades.
    """

    digest: str  # of everything below: a worker keeps one course folder per kit
    assignment: str
    course_id: str
    timeout: float  # seconds one submission may take in all (`gradtutor grade --timeout`)
    config: str  # nbgrader_config.py
    gradebook: str
    source: dict[str, str]  # path under source/<assignment>/ -> bytes
    lang: str  # the instructor's language (gradtutor.messages): the worker words its problems in it


class RemoteJob(TypedDict):
    """One student's submission, sent to a Dask worker's grading host."""

    kit: CourseKit
    student: str
    files: dict[str, str]  # path under submitted/<student>/<assignment>/ -> bytes (timestamp.txt too)


class GradebookRows(TypedDict):
    """What nbgrader's autograde wrote in a worker's gradebook for one submitted notebook."""

    late_penalty: float | None
    grades: dict[str, list]  # grade_id -> [auto_score, needs_manual_grade]
    comments: dict[str, str | None]  # grade_id -> auto_comment


class RemoteGrade(TypedDict, total=False):
    """A worker's answer: the result line's data, the autograded folder, and the gradebook rows to write."""

    result: dict  # a SubmissionResult as JSON (gradtutor.classroom.grading.results)
    files: dict[str, str]  # path under autograded/<student>/<assignment>/ -> bytes
    timestamp: str | None  # the submission's, ISO 8601
    notebooks: dict[str, GradebookRows]  # empty when nbgrader never got as far as the gradebook
    fence: list[str]  # the network fence layers that held on the worker (gradtutor.isolation.network)
    worker: str  # the Dask worker's address
