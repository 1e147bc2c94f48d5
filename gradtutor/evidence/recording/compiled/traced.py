"""Compiled code, analysed where it is decided: when a `tf.function` is traced, and by cheap checks after.

A `tape.gradient` inside a `tf.function` (a custom training step, Keras's `Model.fit`, a
`train_step` override, a nested function, `jit_compile=True` too) is differentiated when the
function is traced: a None gradient is known then. While recording, TensorFlow's op callback
is also called for every op added to a graph being traced (framework/op_callbacks.py passes
the graph); `Tracing.op` puts those ops into the same `Graph` the eager ops go to, with the
same frames (autograph's generated lines mapped back to the user's, frames.py), so the same
analysis (analysis.py, paths.py) finds the same cause and break line as for eager code, once
per trace. Every later call runs compiled.

What only values show (a gradient all zero, tiny or NaN/inf) is watched in the graph, every step
(monitors.py: a couple of reductions per gradient, the worst code and the step it first got that bad
kept in small variables). Python reads them lazily (`FunctionState.due`): a read is an eager op and a
copy out of the device, which on a small step costs more than the checks. When a code got worse, the
function's next call runs eagerly under the full eager recording, and what it finds is reported with
the step the symptom first appeared at (`facts["first_step"]`), exact however late it is read. A
symptom gone by the replayed call is not explained, but it was observed: the monitors' codes go into
the record's observations at every read.

Everything here is reached through `Graph.traced` and `instrument`; nothing is printed.
"""
from __future__ import annotations

import functools

from gradtutor.evidence.recording import sampling
from gradtutor.evidence.recording.compiled import monitors, python_state
from gradtutor.evidence.recording.frames import raised_at, user_frame

CALLS = ("PartitionedCall", "StatefulPartitionedCall")  # the one op a function call runs as


class Tracing:
    def __init__(self, record):
        self.record = record
        self.functions: dict[int, monitors.FunctionState] = {}
        self.keep: list = []  # the functions themselves, so their ids stay theirs
        self.current: monitors.FunctionState | None = None
        self.depth = 0
        self.traced_calls: dict[int, int] = {}  # id(FuncGraph) -> tape calls traced into it during this call
        self.captured: dict[int, tuple[int, dict]] = {}  # id(FuncGraph) -> (captures seen, internal id -> external)

    # ------------------------------------------------------------ ops added to a traced graph
    def op(self, graph, op_type, inputs, outputs, func_graph) -> None:
        frame = user_frame()
        if type(op_type) is bytes:
            op_type = op_type.decode()
        graph.add_step(op_type, (), outputs, frame, [self._node(graph, t, frame) for t in inputs])

    def _node(self, graph, tensor, frame):
        """A graph's placeholder for a captured value (a variable's handle, an outer tensor) is that value."""
        seen = 0
        while seen < 8:  # a function nested in a function captures the outer one's placeholder
            external = self._external(tensor)
            if external is None:
                break
            tensor, seen = external, seen + 1
        return graph.node_of(tensor, frame)

    def _external(self, tensor):
        func_graph = getattr(tensor, "graph", None)
        captures = getattr(func_graph, "function_captures", None)
        if captures is None:
            return None
        internal = captures.by_val_internal
        known = self.captured.get(id(func_graph))
        if known is None or known[0] != len(internal):
            external = captures.by_val_external
            known = (len(internal), {id(t): external[key] for key, t in internal.items() if key in external})
            self.captured[id(func_graph)] = known
        return known[1].get(id(tensor))

    # ------------------------------------------------------------ gradients a trace returns
    def watch_gradients(self, frame, results) -> None:
        """Add the in-graph checks for the gradients a traced tape.gradient returns (worst code per gradient, and
        the step it first reached it at)."""
        from tensorflow.python.framework import ops

        here = ops.get_default_graph()
        self.traced_calls[id(here)] = self.traced_calls.get(id(here), 0) + 1
        state = self.current
        floats = [(i, g) for i, g in enumerate(results) if g is not None and monitors.is_float(g)]
        if state is None or not floats:
            return
        import tensorflow as tf

        graph = self.record.graph
        graph.paused += 1
        try:
            step = self._count(tf, state, here)
            monitor = monitors.Monitor.checking(tf, floats, len(results), step, frame)
        except Exception:  # noqa: BLE001 - no check for this call; the user's function is unchanged
            return
        finally:
            graph.paused -= 1
        state.monitors.append(monitor)

    def _count(self, tf, state, here):
        """The function's step number in the graph being traced: one increment in the function's outermost graph
        (once, however many gradient calls and nested functions it traces), read where the gradients are."""
        from tensorflow.python.framework import func_graph, ops

        if state.counter is None:
            with ops.init_scope():  # the calls before this one, this one counted by its graph
                state.counter = monitors.variable(tf, [], "steps", state.calls - 1)
        top = here
        while isinstance(getattr(top, "outer_graph", None), func_graph.FuncGraph):
            top = top.outer_graph
        if id(top) not in state.counted:
            state.counted.add(id(top))
            with top.as_default():
                state.counter.assign_add(1)
        return state.counter.read_value()

    # ------------------------------------------------------------ calls from Python
    def call(self, function, call, args, kwargs):
        if self.depth:  # a function called by a function (or during an eager replay): part of that call
            result = call(function, *args, **kwargs)
            self._link_nested(result)
            return result
        if self.record.keras_pending:  # before Model.fit's train function is traced
            from gradtutor.evidence.recording import optimizers

            optimizers.patch_when_loaded(self.record)
        state = self.functions.get(id(function))
        if state is None:
            state = self.functions[id(function)] = monitors.FunctionState()
            self.keep.append(function)
        state.calls += 1
        state.counted.clear()
        self.depth, self.current = self.depth + 1, state
        asked, before, traces = self.record.gradient_calls, self.record.graph.seq, _traces(function)
        self.traced_calls.clear()
        try:
            if state.replay_from is not None and _can_run_eagerly(function):
                return self._replay(function, call, args, kwargs, state)
            try:
                result = call(function, *args, **kwargs)
            except Exception as error:  # tracing or running it raised, perhaps before any gradient was asked for
                observations = self.record.observations
                observations.raised(observations.called("trace", user_frame()), error, raised_at(error))
                raise
            python_state.after_call(self.record, function, _traces(function) != traces)  # Python frozen in it
            if self.record.graph.recording_tapes and _traces(function) != traces:  # traced by this call
                self._link_eager_call(function, args, kwargs, result, before)
            return result
        finally:
            self.depth, self.current = self.depth - 1, None
            if self.record.gradient_calls > asked:  # traced (perhaps twice) or run eagerly: its tape calls were seen
                state.per_call = max(self.traced_calls.values(), default=self.record.gradient_calls - asked)
            else:  # run compiled: the same tape calls, checked in the graph
                self.record.gradient_calls += state.per_call
            if state.monitors and state.due():
                self._check(state)

    def _link_nested(self, result) -> None:
        """A function called inside a trace becomes one call op, which reaches no op callback: its outputs are
        linked to the inner graph's outputs and the inner graph's inputs to the call's inputs, so a path (and
        a cut) inside the inner function is seen as if its ops were inline."""
        import tensorflow as tf

        graph = self.record.graph
        for output in tf.nest.flatten(result):
            op = getattr(output, "op", None)
            if op is None or op.type not in CALLS \
                    or graph.known(output) is not None:
                continue
            try:
                inner = op.graph._get_function(op.get_attr("f").name).graph
            except Exception:  # noqa: BLE001 - not a function TensorFlow keeps a graph of: the output stays unlinked
                continue
            for placeholder, given in zip(inner.inputs, op.inputs):
                node = graph.known(placeholder)
                if node is not None and node.op is not None and node.op.type == "Placeholder":
                    node.op.type, node.op.inputs = "Identity", (self._node(graph, given, node.frame),)
            frame = user_frame()
            for outer, inner_output in zip(op.outputs, inner.outputs):
                if graph.known(outer) is None:
                    graph.add_step("Identity", [inner_output], [outer], frame)

    def _link_eager_call(self, function, args, kwargs, result, before) -> None:
        """Called eagerly under a tape, a function runs as one call op, whose gradient is the traced graph's: when it
        was traced in this very call (its ops recorded under this tape), the call op is linked through the graph
        as in `_link_nested`, so a cut inside the function is seen at its own line, not at the call."""
        import tensorflow as tf

        graph = self.record.graph
        nodes = [graph.known(t) for t in tf.nest.flatten(result) if tf.is_tensor(t)]
        op = next((n.op for n in nodes if n is not None and n.op is not None and _is_call(n.op.type)), None)
        if op is None:
            return
        try:
            inner = function.get_concrete_function(*args, **kwargs).graph
        except Exception:  # noqa: BLE001 - no graph to look into: the call op stays one step
            return
        outputs = [graph.known(t) for t in inner.outputs]
        if not outputs or any(n is None or n.seq <= before for n in outputs):
            return  # traced before this call: its ops were recorded under other tapes
        for placeholder, given in zip(inner.inputs, op.inputs):
            node = graph.known(placeholder)
            if node is not None and node.op is not None and node.op.type == "Placeholder":
                node.op.type, node.op.inputs = "Identity", (given,)
        op.type, op.inputs = "IdentityN", tuple(outputs)

    def _replay(self, function, call, args, kwargs, state):
        """Run this one call eagerly, under the eager recording: its findings say the step they first appeared at."""
        import tensorflow as tf

        record, first = self.record, state.replay_from
        state.replay_from = None
        before = {id(finding) for finding in record.findings}
        eager = tf.config.functions_run_eagerly()
        tf.config.run_functions_eagerly(True)
        record.replaying = True
        was_off = record.graph.off
        sampling.set_live(record, True)  # an eager loop between its sampled tapes: this call is recorded
        try:
            return call(function, *args, **kwargs)
        finally:
            record.replaying = False
            sampling.set_live(record, not was_off)
            tf.config.run_functions_eagerly(eager)
            for finding in record.findings:
                if id(finding) not in before:
                    finding["facts"]["first_step"] = str(first)

    def _check(self, state) -> None:
        """Read the monitors: every step since the last read was checked in the graph; a code worse than known
        makes the next call a replay, said to show the step the code first got that bad."""
        state.read_at = state.calls
        graph = self.record.graph
        graph.paused += 1
        try:
            for monitor in state.monitors:
                try:
                    codes = monitor.codes.numpy().tolist()
                except Exception:  # noqa: BLE001 - a monitor that cannot be read (a device gone) says nothing
                    continue
                observations = self.record.observations  # every step's gradients, seen (observations.py)
                observations.codes(observations.site("compiled", monitor.frame), codes)
                worse = [i for i, (code, old) in enumerate(zip(codes, monitor.known)) if code > old]
                if not worse:
                    continue
                monitor.known = [max(code, old) for code, old in zip(codes, monitor.known)]
                if state.replay_from is None and not self.record.every_step:  # a checked call runs once
                    state.replay_from = self._first_step(state, monitor, worse)
        finally:
            graph.paused -= 1

    @staticmethod
    def _first_step(state, monitor, worse) -> int:
        """The call at which these gradients first got worse: the graph's count then, shifted by how far it is
        behind the calls now (a replayed call runs no graph; a concrete function called directly runs no
        Python), so only the steps since the symptom need be counted by the graph alike."""
        try:
            steps, counted = monitor.steps.numpy().tolist(), int(state.counter.numpy())
        except Exception:  # noqa: BLE001 - not readable: the step of this read
            return state.calls
        return min(steps[i] for i in worse) + state.calls - counted

    def flush(self) -> None:
        """The recording ends: what the monitors saw since their last read goes into the observations."""
        for state in self.functions.values():
            if state.monitors and state.read_at < state.calls:
                self._check(state)


def _traces(function) -> int | None:
    try:
        return function.experimental_get_tracing_count()
    except Exception:  # noqa: BLE001 - a Function without the count: its calls are not looked into
        return None


def _is_call(op_type: str) -> bool:
    """The op a function call runs as: a call op, or under a tape the function's forward half (__forward_f_12)."""
    return op_type in CALLS or op_type.startswith(("__forward_", "__inference_"))


def _can_run_eagerly(function) -> bool:
    """tf.gradients works only in a graph: a function that calls it is never run eagerly."""
    code = getattr(getattr(function, "_python_function", None), "__code__", None)
    return code is not None and "gradients" not in code.co_names


def patch(record) -> None:
    """Every `tf.function` call from Python goes through `Tracing.call` while recording."""
    from tensorflow.python.eager.polymorphic_function import polymorphic_function

    tracing = record.graph.traced = Tracing(record)
    function_class = polymorphic_function.Function
    call = function_class.__call__
    record.originals.append((function_class, {"__call__": call}))

    @functools.wraps(call)
    def __call__(function, *args, **kwargs):
        return tracing.call(function, call, args, kwargs)

    function_class.__call__ = __call__
