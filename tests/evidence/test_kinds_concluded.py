"""Causes concluded from what was recorded: a Python value frozen into a traced step, a variable argument the traced
step also read by name and was later given another variable in its place, a custom gradient function TensorFlow
refused, float16 gradients that underflowed.

No TensorFlow: the recording's notes are made from plain Python objects standing in for what TensorFlow offers
(a function with `_python_function`, an exception raised from code compiled under TensorFlow's file name), and
the record is the few fields gradtutor.evidence.reading.unexplained reads.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

from gradtutor.evidence import observations as seen
from gradtutor.evidence.reading import subtle, unexplained
from gradtutor.evidence.recording.compiled import python_state
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

SEEDS = range(4)
TF_FILE = "/site-packages/" + seen.CUSTOM_GRADIENT_MODULE


def _record(**fields):
    return types.SimpleNamespace(**{"findings": [], "observations": seen.Observations(), "excused": {},
                                    "script_error": None, "gradient_calls": 1, "zero_probes": {}, "underflows": {},
                                    "python_state": {}, **fields})


def _zeros(record, frame, count=2, dtype="float16"):
    site = record.observations.called("gradient", frame)
    gradient = types.SimpleNamespace(_numpy=lambda: np.zeros(3, dtype), dtype=types.SimpleNamespace(name=dtype))
    record.observations.gradients(site, [gradient] * count, True)
    return site


def _step_module(weight):
    """A module namespace with a traced step reading a global `weight`, and the step as tf.function shows it."""
    namespace = {"weight": weight}
    exec(compile("def step(x):\n    y = x * 2\n    return y * weight\n", "train.py", "exec"), namespace)
    return namespace, types.SimpleNamespace(_python_function=namespace["step"])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_zero_weight_changed_after_the_trace_is_frozen_python_state_at_the_line_reading_it(seed):
    rng = np.random.default_rng(seed)
    namespace, function = _step_module(0.0)
    record = _record()
    python_state.after_call(record, function, True)  # traced with weight = 0.0
    namespace["weight"] = float(rng.uniform(0.1, 2.0))
    python_state.after_call(record, function, False)  # ran compiled: the graph still has 0.0
    _zeros(record, ("train.py", 3), dtype="float32")
    [finding] = unexplained.findings(record)
    assert finding["cause"] == Cause.FROZEN_PYTHON_STATE and finding["broke_at"]["line"] == 3
    assert finding["facts"]["name"] == "weight" and finding["facts"]["traced"] == "0.0"


def _counting_step(start):
    """A Keras-style model whose traced step reads a Python step counter and adds one to it (bayesflow's warm-up)."""
    namespace = {}
    exec(compile("class Model:\n    def __init__(self, start):\n        self.step = start\n"
                 "    def train_step(self, x):\n        weight = 1.0 if self.step >= 3 else 0.0\n"
                 "        y = x * weight\n        self.step += 1\n        return y\n", "train.py", "exec"), namespace)
    model = namespace["Model"](start)
    return model, types.SimpleNamespace(_python_function=model.train_step)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_python_counter_the_step_changes_and_reads_is_frozen_state_at_the_line_changing_it(seed):
    """`self.step += 1` runs only while the step is traced: in the calls since, the read of it never moved on."""
    rng = np.random.default_rng(seed)
    model, function = _counting_step(int(rng.integers(0, 3)))
    record = _record()
    function._python_function(1.0)  # the trace runs the Python once: the counter moves by one
    python_state.after_call(record, function, True)
    for _ in range(int(rng.integers(1, 6))):
        python_state.after_call(record, function, False)  # the graph ran: the counter stays where the trace left it
    _zeros(record, ("train.py", 6), dtype="float32")
    [finding] = unexplained.findings(record)
    assert finding["cause"] == Cause.FROZEN_PYTHON_STATE and finding["broke_at"]["line"] == 7
    assert finding["facts"]["name"] == "step" and finding["facts"]["how"] == "written"


def test_a_counter_in_a_step_never_called_since_its_trace_is_no_frozen_state():
    model, function = _counting_step(0)
    record = _record()
    python_state.after_call(record, function, True)
    _zeros(record, ("train.py", 6), dtype="float32")
    assert [f["cause"] for f in unexplained.findings(record)] == [Cause.NOT_KNOWN]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_changed_by_retracing_or_from_a_nonzero_one_is_no_frozen_state(seed):
    rng = np.random.default_rng(seed)
    namespace, function = _step_module(float(rng.uniform(0.1, 2.0)))
    record = _record()
    python_state.after_call(record, function, True)
    namespace["weight"] = 0.5 + float(rng.uniform(0.1, 2.0))  # nonzero to nonzero: not what makes a zero gradient
    python_state.after_call(record, function, False)
    _zeros(record, ("train.py", 3), dtype="float32")
    assert [f["cause"] for f in unexplained.findings(record)] == [Cause.NOT_KNOWN]
    namespace, function = _step_module(0.0)
    record = _record()
    python_state.after_call(record, function, True)
    namespace["weight"] = 1.0
    python_state.after_call(record, function, True)  # traced again: the graph has the new value
    _zeros(record, ("train.py", 3), dtype="float32")
    assert [f["cause"] for f in unexplained.findings(record)] == [Cause.NOT_KNOWN]


def _fine(record, frame):
    site = record.observations.called("gradient", frame)
    gradient = types.SimpleNamespace(_numpy=lambda: np.ones(3, "float32"), dtype=types.SimpleNamespace(name="float32"))
    record.observations.gradients(site, [gradient], True)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_changed_after_the_trace_is_frozen_state_though_the_gradients_look_fine(seed):
    rng = np.random.default_rng(seed)
    traced, now = [float(value) for value in rng.uniform(0.0, 2.0, 2)]
    namespace, function = _step_module(traced)
    record = _record()
    python_state.after_call(record, function, True)
    _fine(record, ("train.py", 3))  # the gradient asked at the line that reads the weight
    assert subtle.stale_reads(record, []) == []  # nothing changed: the graph is the code
    namespace["weight"] = now
    python_state.after_call(record, function, False)
    [finding] = subtle.stale_reads(record, [])
    assert finding["cause"] == Cause.FROZEN_PYTHON_STATE and finding["broke_at"]["line"] == 3
    assert finding["facts"]["traced"] == repr(traced) and finding["facts"]["now"] == repr(now)
    assert subtle.stale_reads(record, [finding]) == []  # said once
    record = _record(python_state=record.python_state)
    _fine(record, ("train.py", 2))  # a gradient asked before the line that reads it does not depend on it
    assert subtle.stale_reads(record, []) == []


DRAWS = ("np.random.rand(3)", "rng.normal(size=3)", "random.random()", "numpy.random.uniform(0, 1, 3)")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_draw_made_in_python_when_traced_is_frozen_state_once_the_graph_runs_again(seed):
    """np.random in a tf.function runs once, at the trace: every later call has the same mask (the TF guide's
    warning; a dropout mask that never changes)."""
    import random

    rng = np.random.default_rng(seed)
    draw = str(rng.choice(DRAWS))
    namespace = {"np": np, "numpy": np, "random": random, "rng": np.random.default_rng(seed)}
    exec(compile(f"def step(x):\n    np.random.seed(1)\n    keep = {draw}\n    return x * keep\n", "drop.py", "exec"),
         namespace)
    function, record = types.SimpleNamespace(_python_function=namespace["step"]), _record()
    python_state.after_call(record, function, True)  # traced: the draw is made now, once
    _fine(record, ("drop.py", 4))
    assert subtle.stale_reads(record, []) == []  # the graph has run once, with the draw made for it
    python_state.after_call(record, function, False)
    [finding] = subtle.stale_reads(record, [])
    assert finding["facts"]["how"] == "draw" and finding["broke_at"]["line"] == 3 and draw.startswith(
        finding["facts"]["name"])
    python_state.after_call(record, function, True)  # traced again: a new draw
    assert subtle.stale_reads(record, []) == []


class Variable:
    """What the recording asks of a tf.Variable argument: a handle, assign and a dtype."""

    def __init__(self, name):
        self.name, self.handle, self.dtype = name, object(), "float32"

    def assign(self, value):
        return value


def _aliasing_module(rng):
    """A traced step reading one of a few variables by name, as tensorflow#57365's gradient_for(mu) reads mu."""
    names = [f"v{i}" for i in range(int(rng.integers(2, 5)))]
    namespace = {name: Variable(f"{name}:0") for name in names}
    read = str(rng.choice(names))
    exec(compile(f"def step(wrt):\n    y = {read} * 2\n    return y + wrt\n", "fit.py", "exec"), namespace)
    other = str(rng.choice([name for name in names if name != read]))  # a variable it does not read by name
    return namespace, types.SimpleNamespace(_python_function=namespace["step"]), read, other


@pytest.mark.parametrize("seed", SEEDS)
def test_a_variable_argument_read_by_name_then_given_another_is_frozen_state_at_the_read(seed):
    namespace, function, read, other = _aliasing_module(np.random.default_rng(seed))
    record = _record()
    python_state.after_call(record, function, True, (namespace[read],))  # traced with the variable it reads
    python_state.after_call(record, function, False, (namespace[read],))  # the same variable again: one input
    assert subtle.swapped_variables(record) == []
    python_state.after_call(record, function, False, (namespace[other],))  # another, the same trace
    [finding] = subtle.swapped_variables(record)
    assert finding["cause"] == Cause.FROZEN_PYTHON_STATE and finding["broke_at"]["line"] == 2
    assert finding["facts"] == {"how": "alias", "name": read, "given": other}


@pytest.mark.parametrize("seed", SEEDS)
def test_another_variable_is_no_finding_when_traced_again_or_not_read_by_name(seed):
    namespace, function, read, other = _aliasing_module(np.random.default_rng(seed))
    record = _record()
    python_state.after_call(record, function, True, (namespace[read],))
    python_state.after_call(record, function, True, (namespace[other],))  # traced again for it: its own graph
    assert subtle.swapped_variables(record) == []
    record = _record()
    python_state.after_call(record, function, True, (namespace[other],))  # traced with one it does not read
    python_state.after_call(record, function, False, (namespace[read],))
    assert subtle.swapped_variables(record) == [] and record.python_state == {}


@pytest.mark.parametrize("seed", SEEDS)
def test_float16_zeros_below_a_target_under_the_dtype_range_are_underflow_at_the_target_line(seed):
    rng = np.random.default_rng(seed)
    record = _record()
    line = int(rng.integers(5, 200))
    site = _zeros(record, ("a.py", line))
    for index, _ in site.bad():
        record.underflows[(("a.py", line), index)] = (float(rng.uniform(1e-8, 6e-5)), ("a.py", line - 2), "float16")
    [finding] = unexplained.findings(record)
    assert finding["cause"] == Cause.UNDERFLOW and finding["broke_at"]["line"] == line - 2
    record.underflows.popitem()  # one of the zero gradients without that evidence: not known
    assert [f["cause"] for f in unexplained.findings(record)] == [Cause.NOT_KNOWN]


def _raise_from_tensorflow(grad_fn, inside: bool):
    """An error raised by TensorFlow's custom_gradient module itself (inside=False) or by the user's grad_fn it
    called (inside=True), with `grad_fn` at hand as TensorFlow's frame has it."""
    namespace = {}
    exec(compile("def check(grad_fn, inside):\n    if inside:\n        grad_fn(1.0)\n"
                 "    raise ValueError('custom_gradient function expected to return 2 gradients')\n",
                 TF_FILE, "exec"), namespace)
    try:
        namespace["check"](grad_fn, inside)
    except Exception as error:  # noqa: BLE001 - the error under test
        return error
    raise AssertionError("nothing raised")


def test_an_error_tensorflow_raised_about_a_grad_fn_names_its_def_line():
    namespace = {}
    exec(compile("def grad(dy):\n    return undefined_name\n", "model.py", "exec"), namespace)
    error = _raise_from_tensorflow(namespace["grad"], inside=False)
    assert seen.refused_grad_fn(error) == ("model.py", 1)
    record = _record()
    record.observations.raised(record.observations.called("gradient", ("model.py", 9)), error)
    [finding] = unexplained.findings(record)
    assert finding["cause"] == Cause.CUSTOM_GRADIENT_SIGNATURE and finding["broke_at"]["file"] == "model.py"
    # an error of the user's own grad_fn body is no refusal of its signature
    assert seen.refused_grad_fn(_raise_from_tensorflow(namespace["grad"], inside=True)) is None
