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
(monitors.py: one reduction per gradient, kept per step in a small ring). Python reads them lazily
(`FunctionState.due`): a read is an eager op and a copy out of the device, which on a small step costs
more than the checks. When a code got worse, the function's next call runs eagerly under the full eager
recording, and what it finds is reported with
the step the symptom first appeared at (`facts["first_step"]`), exact however late it is read. A
symptom gone by the replayed call is not explained, but it was observed: the monitors' codes go into
the record's observations at every read.

Everything here is reached through `Graph.traced` and `instrument`; nothing is printed.
"""
from __future__ import annotations

import functools

from gradtutor.evidence import fit_data
from gradtutor.evidence.recording import optimizers, sampling
from gradtutor.evidence.recording.compiled import graph_replay, links, monitors, python_state, snapshot
from gradtutor.evidence.recording.compiled.unfrozen import traces
from gradtutor.evidence.recording.frames import raised_at, user_frame

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
        step = graph.add_step(op_type, (), outputs, frame, [self.node_of(graph, t, frame) for t in inputs])
        if op_type in links.LOOPS and outputs:
            links.link_while(graph, step, outputs[0].op)
        read = self.outermost(inputs[0]) if op_type == "ReadVariableOp" and inputs and self.current else None
        if read is not None:
            self.current.reads.add(id(read))
        if self.current is None or self.current.handles is None:
            return
        if snapshot.has_effects(op_type):  # effects a second run would repeat: never run twice (snapshot.py)
            self.current.handles = None
        elif read is not None:
            self._reads(read, outputs[0].dtype)

    def _reads(self, handle, dtype) -> None:
        """The function being traced reads a captured variable: its value is kept from before a call (snapshot.py)."""
        state = self.current
        if getattr(handle, "graph", None) is not None:
            return  # not an eager handle (a variable made in the function itself)
        known, state.handles[id(handle)] = id(handle) in state.handles, (handle, dtype)
        if state.snapshot is not None and (not known or state.snapshot.unread(handle)):
            with self.record.graph.pausing():
                state.snapshot.add(handle, dtype)

    def outermost(self, tensor):
        """A graph's placeholder for a captured value (a variable's handle, an outer tensor) is that value."""
        seen = 0
        while seen < 8:  # a function nested in a function captures the outer one's placeholder
            external = self._external(tensor)
            if external is None:
                break
            tensor, seen = external, seen + 1
        return tensor

    def node_of(self, graph, tensor, frame):  # the node of what a placeholder stands for
        return graph.node_of(self.outermost(tensor), frame)

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
        """Add the in-graph check of the gradients a traced tape.gradient returns (their sums, per step)."""
        from tensorflow.python.framework import ops

        here = ops.get_default_graph()
        self.traced_calls[id(here)] = self.traced_calls.get(id(here), 0) + 1
        state = self.current
        floats = [(i, g) for i, g in enumerate(results) if g is not None and monitors.is_float(g)]
        if state is None or not floats:
            return
        import tensorflow as tf

        try:
            with self.record.graph.pausing():
                step, start = self._count(tf, state, here)
                monitor = monitors.Monitor.checking(tf, floats, len(results), step, frame, start)
        except Exception:  # noqa: BLE001 - no check for this call; the user's function is unchanged
            return
        state.monitors.append(monitor)

    def _count(self, tf, state, here):
        """The function's step number in the graph being traced: one increment in the function's outermost graph
        (once, however many gradient calls and nested functions it traces), read where the gradients are; and the
        count before this call."""
        from tensorflow.python.framework import func_graph, ops

        with ops.init_scope():  # the calls before this one, this one counted by its graph
            if state.counter is None:  # an int32 scalar: the ring's row index without a cast or a reshape
                state.counter = monitors.variable(tf, [], "steps", state.calls - 1, "int32")
            start = int(state.counter.numpy())  # this trace's graph has not run yet
        top = here
        while isinstance(getattr(top, "outer_graph", None), func_graph.FuncGraph):
            top = top.outer_graph
        if id(top) not in state.counted:
            state.counted.add(id(top))
            with top.as_default():
                state.counter.assign_add(1, read_value=False)
        return tf.raw_ops.ReadVariableOp(resource=state.counter.handle, dtype=tf.int32), start

    # ------------------------------------------------------------ calls from Python
    def call(self, function, call, args, kwargs):
        if self.depth:  # a function called by a function (or during an eager replay): part of that call
            result = call(function, *args, **kwargs)
            links.link_nested(self, result)
            return result
        if self.record.keras_pending:  # before Model.fit's train function is traced
            optimizers.patch_when_loaded(self.record)
        state = self.functions.get(id(function))
        if state is None:
            state = self.functions[id(function)] = monitors.FunctionState()
            self.keep.append(function)
        state.calls += 1
        state.counted.clear()
        self.depth, self.current = self.depth + 1, state
        asked, before, traced = self.record.gradient_calls, self.record.graph.seq, traces(function)
        self.traced_calls.clear()
        try:
            if state.replay_from is not None and _can_run_eagerly(function):
                if not graph_replay.beside(self, function, call, args, kwargs, state):
                    return graph_replay.replay(self, function, call, args, kwargs, state)
            quiet = sampling.unlogged_call(self.record, state.calls)
            if state.calls <= monitors.DENSE_READS:  # (after a step every line costs: the caches are cold)
                self._keep_values(state, function, args, kwargs)
            try:
                result = call(function, *args, **kwargs)
            except Exception as error:  # tracing or running it raised, perhaps before any gradient was asked for
                observations = self.record.observations
                observations.raised(observations.called("trace", user_frame()), error, raised_at(error))
                raise
            finally:
                self.record.graph.off = self.record.graph.off and not quiet
            retraced = traces(function) != traced
            if retraced or self.record.python_state:  # Python frozen in it
                python_state.after_call(self.record, function, retraced, args, kwargs)
            if retraced and self.record.graph.recording_tapes:  # traced by this call
                links.link_eager_call(self, function, args, kwargs, result, before)
            return result
        finally:
            self.depth, self.current = self.depth - 1, None
            if self.record.gradient_calls > asked:  # traced (perhaps twice) or run eagerly: its tape calls were seen
                state.per_call = max(self.traced_calls.values(), default=self.record.gradient_calls - asked)
            else:  # run compiled: the same tape calls, checked in the graph
                self.record.gradient_calls += state.per_call
            if state.monitors and state.due():
                self._check(state)
            kept, state.snapshot = state.snapshot, None
            if kept is not None and state.handles is not None and state.replay_from == state.calls:
                graph_replay.from_kept(self, function, call, args, kwargs, state, kept)
            elif state.replay_from == 1:  # fit's first step (its batch is not an argument): its rows and first weights
                run = fit_data.step_again(self.record, function, 1)
                if run:
                    run.kind = "kept_first"
                    graph_replay.quietly(self, function, None, (), {}, state, run=run)

    def _keep_values(self, state, function, args, kwargs) -> None:
        """One of a function's first calls, with arguments a second run reads alike: keep its variables' values."""
        state.snapshot = None
        if state.handles is not None and _can_run_eagerly(function) and snapshot.replayable(args, kwargs):
            try:
                with self.record.graph.pausing():
                    state.snapshot = snapshot.take(state.handles)
            except Exception:  # noqa: BLE001 - a variable that cannot be read: the step is replayed at the next call
                state.snapshot = None

    def _check(self, state, every=False) -> None:
        """Read the monitors: every step since the last read was checked in the graph; a code worse than known
        makes the next call a replay, said to show the step the code first got that bad."""
        state.read_at, idle_too = state.calls, state.reading_idle(every)
        with self.record.graph.pausing():
            try:
                now = int(monitors.value(state.counter, "int32"))
            except Exception:  # noqa: BLE001 - a count that cannot be read (a device gone): nothing is read
                return
            for monitor in (m for m in state.monitors if idle_too or not m.idle):
                try:
                    read = monitor.read(now, state.calls - now)
                except Exception:  # noqa: BLE001 - a monitor that cannot be read (a device gone) says nothing
                    continue
                if read is None:  # no step since the last read ran this trace
                    continue
                codes, firsts = read
                observations = self.record.observations  # every step's gradients, seen (observations.py)
                site = observations.site("compiled", monitor.frame)
                site.calls = max(site.calls, state.calls)  # calls seen: every call checked in the graph, not its traces
                observations.codes(site, codes)
                observations.grown(site, monitor.growth)
                worse = [i for i, (code, old) in enumerate(zip(codes, monitor.known)) if code > old]
                if not worse:
                    continue
                monitor.known = [max(code, old) for code, old in zip(codes, monitor.known)]
                if state.replay_from is None and not self.record.every_step:  # a checked call runs once
                    state.replay_from = state.first_call([firsts[i] for i in worse], now)

    def flush(self) -> None:
        """The recording ends: what the monitors saw since their last read goes into the observations."""
        for state in self.functions.values():
            if state.monitors and state.read_at < state.calls:
                self._check(state, every=True)
        for function in self.keep:  # a symptom of fit's last step, which no later call ran again: its kept rows
            state = self.functions[id(function)]
            run = state.replay_from is not None and fit_data.step_again(self.record, function, state.replay_from)
            if run:
                graph_replay.quietly(self, function, None, (), {}, state, run=run)


def _can_run_eagerly(function) -> bool:
    """A Python function to run (tf.gradients in it is answered by a tape then: graph_replay.py)."""
    return getattr(getattr(function, "_python_function", None), "__code__", None) is not None


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
