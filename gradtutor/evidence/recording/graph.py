"""What ran: every eager op with the tensors that fed it, where each tensor was made and where one left TensorFlow.

One `Graph` is filled by TensorFlow's eager op callback (framework/op_callbacks.py), which sees each op's inputs and
outputs. Tensors are known by `id()` checked against a weak reference (an id is reused once its tensor dies); each
node points to the op that made it, and each op to its input nodes, so a target's history can be walked back after
the tensors themselves are gone. Values are kept only for the few op types an analysis reads (ReLU, sigmoid, sqrt,
…) and only while a tape records.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import sys
import weakref
from threading import get_ident

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.recording.frames import is_user_file, user_frame

LOG_SIZE = 100_000  # ops remembered (a few hundred training steps of a small model)
KEPT_VALUES = 2_000  # ops whose values are kept: the most recent ones only, so memory stays bounded
# every op run under a tape keeps its tensors a little longer (the latest KEPT_VALUES of them), so the finite-
SWEEP_EVERY = 20_000  # difference probe (probe.py) can run the ops after a suspect one again from a moved value

WRITES = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"})
# numpy functions that return positions, not values: what left TensorFlow into one of them has no slope to lose
INDICES = frozenset({"np.argmax", "np.argmin", "np.argsort", "np.nanargmax", "np.nanargmin", "np.argpartition"})
RECENT_EXITS = 50  # log entries looked back through for the exit a numpy index function took at the same line
# ops whose name scope is kept: the Keras layer that ran them (an activation; a cast, an Embedding's of its floats)
SCOPED = opfacts.SATURATING | opfacts.RELUS | {"Cast"}
FINGERPRINTED = 1 << 20  # elements of a variable's first value hashed; a larger one is known by its tensor only


def fingerprint(node, tensor):
    """What a variable was made from: its value's bytes (w0 converted again is the same value), else the tensor."""
    try:
        if tensor.shape.num_elements() <= FINGERPRINTED:
            return (tuple(tensor.shape), tensor.dtype.name, hash(tensor._numpy().tobytes()))
    except Exception:  # noqa: BLE001 - a resource or a value that cannot be read: known by its node
        pass
    return node


class Op:
    """One op that ran (or a step gradtutor adds: 'gradient', an exit from TensorFlow)."""

    __slots__ = ("__weakref__", "attrs", "frame", "inputs", "outputs", "scope", "seq", "tapes", "type", "values")

    def __init__(self, seq, op_type, inputs, frame, attrs=None):
        self.seq, self.type, self.inputs, self.frame, self.attrs = seq, op_type, inputs, frame, attrs
        self.scope = None  # an activation's name scope when it ran ("sequential/dense_1/"): the Keras layer that ran it
        self.outputs = ()
        self.values = None  # (inputs, outputs) tensors, for the most recent ops run under a tape
        self.tapes = ()  # the tapes recording when it ran


class Node:
    """A tensor: the op that made it (None for a constant, a numpy conversion or a variable made before)."""

    __slots__ = ("__weakref__", "dtype", "frame", "op", "ref", "seq", "shape")

    def __init__(self, op, tensor, seq, frame):
        self.op, self.seq, self.frame = op, seq, frame
        self.ref = weakref.ref(tensor)
        self.dtype = tensor.dtype
        try:
            self.shape = tensor._shape_tuple()  # an eager tensor's shape, without building a TensorShape
        except (AttributeError, ValueError):
            self.shape = None

    @property
    def is_resource(self) -> bool:
        """A handle to state (a variable, an iterator); a dataset's `variant` is data."""
        return self.dtype.name == "resource"

    @property
    def is_integer(self) -> bool:
        return self.dtype.is_integer or self.dtype.is_bool


class Exit:
    """A tensor's value left TensorFlow: `.numpy()`, `np.asarray`, `float()`, `int()`. `into`: the numpy function with
    no slope (np.argmax, …) the same line then gave it to, if one (instrument._Indices)."""

    __slots__ = ("frame", "into", "kind", "node", "seq")

    def __init__(self, seq, node, frame, kind):
        self.seq, self.node, self.frame, self.kind = seq, node, frame, kind
        self.into = kind if kind in INDICES else None


class Graph:
    def __init__(self):
        self.seq = self.paused = self.training = 0  # training: Keras training calls running (fit_data.py)
        self.off = False  # eager ops not recorded now: a step between sampled tapes (sampling.py)
        # nodes of: tensors the user's own tf.constant / convert_to_tensor made; the rows gradtutor gives a step it runs
        # again (data, not values back); a tf.custom_gradient function's outputs (their gradient is its own choice)
        self.converted, self.fed, self.custom = weakref.WeakSet(), weakref.WeakSet(), weakref.WeakSet()
        self.nodes: dict[int, Node] = {}
        self.log: collections.deque = collections.deque(maxlen=LOG_SIZE)
        self.recording_tapes: list = []  # TapeInfo of the tapes recording now (began, ended), in any thread
        self.tapes_thread = None  # the thread all of them record in (None: none, or several threads)
        # ops run in a thread other than the recording tapes': TensorFlow's tape stack is per thread, so none of those
        self.elsewhere: weakref.WeakSet = weakref.WeakSet()  # tapes saw them (a tf.distribute replica's step)
        self.kept: collections.deque = collections.deque()  # KEEP_VALUES ops holding values, oldest first
        self.replayable: collections.deque = collections.deque()  # other ops holding values, oldest first
        self._since_sweep = 0
        self.traced = None  # what records the ops of traced graphs (traced.Tracing), when one is installed
        self.listeners: list = []  # op(...) of the record's listeners: every eager op recorded
        self.last_exit = 0  # the op count at the latest exit: a gradient call looks for re-entries only after one
        self.integer_exits = collections.deque(maxlen=256)  # integers an op made that left TensorFlow (cuts.py)
        # a variable's handle node -> a fingerprint of the value it was made from, and how often it was written since:
        # a variable made again at one line from the same value after the last one was updated restarts training
        self.first_value: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.updates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.layers_made: list = []  # (a Keras layer's weak reference, the user's line that made it): optimizers.py
        self.scope_name = None  # () -> the name scope ops run in now (instrument.py sets TensorFlow's)

    @contextlib.contextmanager
    def pausing(self):
        """gradtutor's own ops (a check, a read, a copy): not the program's, so not recorded."""
        self.paused += 1
        try:
            yield
        finally:
            self.paused -= 1

    # ---------------------------------------------------------------- tapes
    def began(self, info) -> None:
        """A tape (or a forward accumulator) began recording in this thread."""
        info.thread = get_ident()
        self.recording_tapes.append(info)
        self._threads_changed()

    def ended(self, info) -> None:
        if info in self.recording_tapes:
            self.recording_tapes.remove(info)
            self._threads_changed()

    def _threads_changed(self) -> None:
        threads = {info.thread for info in self.recording_tapes}
        self.tapes_thread = threads.pop() if len(threads) == 1 else None

    def tapes_here(self) -> tuple:
        """The tapes recording in the calling thread (the one every op of a plain script runs in: no filtering)."""
        tapes = self.recording_tapes
        if not tapes:
            return ()
        me = get_ident()
        return tuple(tapes) if self.tapes_thread == me else tuple(t for t in tapes if t.thread == me)

    def layer_of(self, op, scope=None):
        """(name, the user's line that made it) of the Keras layer whose call ran this op (the last part of its name
        scope, or of `scope`: a traced op's), or None: run in the user's own code, or by a layer not known."""
        name = (scope or op.scope or "").rstrip("/").rsplit("/", 1)[-1] or None
        frame = next((made for layer, made in self.layers_made if name and getattr(layer(), "name", None) == name),
                     None)
        return (name, frame) if frame is not None and frame != op.frame else None

    # ---------------------------------------------------------------- nodes
    def node_of(self, tensor, frame=None) -> Node:
        node = self.nodes.get(id(tensor))
        if node is None or node.ref() is not tensor:
            node = Node(None, tensor, self.seq, frame)
            self.nodes[id(tensor)] = node
        return node

    def known(self, tensor) -> Node | None:
        node = self.nodes.get(id(tensor))
        return node if node is not None and node.ref() is tensor else None

    # ---------------------------------------------------------------- the op callback
    def callback(self, op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if graph is not None:  # an op added to a graph being traced (tf.function): traced.py
            if self.traced is not None and not self.paused:
                self.traced.op(self, op_type, inputs, outputs, graph)
            return
        if self.paused or self.off:
            return
        for listen in self.listeners:  # the learner's ops, not gradtutor's own reads or a gradient's backward pass
            listen(op_type, inputs, attrs, outputs, op_name, graph)
        self.seq += 1
        seq = self.seq
        frame = user_frame()
        if type(op_type) is bytes:
            op_type = op_type.decode()
        op = Op(seq, op_type, tuple(self.node_of(t, frame) for t in inputs), frame, attrs)
        nodes = self.nodes
        outs = []
        for tensor in outputs:
            node = Node(op, tensor, seq, frame)
            nodes[id(tensor)] = node
            outs.append(node)
        op.outputs = tuple(outs)
        tapes = self.recording_tapes
        if tapes:  # tapes_here, inline: this runs for every eager op
            me = get_ident()
            tapes = tuple(tapes) if self.tapes_thread == me else tuple(t for t in tapes if t.thread == me)
        if tapes:
            op.tapes = tapes
            op.values = (tuple(inputs), tuple(outputs))
            kept = self.kept if op_type in opfacts.KEEP_VALUES else self.replayable
            if op_type in SCOPED and self.scope_name is not None:
                op.scope = self.scope_name()
            kept.append(op)
            if len(kept) > KEPT_VALUES:
                kept.popleft().values = None
        elif self.recording_tapes:
            self.elsewhere.add(op)
        self.log.append(op)
        if op_type in WRITES and op.inputs:
            self._written(op, inputs)
        self._since_sweep += 1
        if self._since_sweep > SWEEP_EVERY:
            self._sweep()
        return

    def _written(self, op, inputs) -> None:
        handle = op.inputs[0]
        if op.type == "AssignVariableOp" and handle not in self.first_value and len(inputs) > 1:
            self.first_value[handle] = fingerprint(op.inputs[1], inputs[1])
        else:
            self.updates[handle] = self.updates.get(handle, 0) + 1

    def _sweep(self) -> None:
        self._since_sweep = 0
        self.nodes = {key: node for key, node in self.nodes.items() if node.ref() is not None}

    def add_step(self, op_type, inputs, outputs, frame, input_nodes=None) -> Op:
        """A step gradtutor adds itself (a gradient call), or a traced graph's op: outputs depend on inputs (tensors or nodes)."""
        self.seq += 1
        if input_nodes is None:
            input_nodes = tuple(self.node_of(t, frame) for t in inputs)
        op = Op(self.seq, op_type, tuple(input_nodes), frame)
        op.tapes = self.tapes_here()
        outs = []
        for tensor in outputs:
            node = Node(op, tensor, self.seq, frame)
            self.nodes[id(tensor)] = node
            outs.append(node)
        op.outputs = tuple(outs)
        self.log.append(op)
        return op

    def went_into(self, frame, name: str) -> None:
        """A numpy index function ran at the user's line `frame`: the values that left TensorFlow there went into it."""
        for index, item in enumerate(reversed(self.log)):
            if index >= RECENT_EXITS:
                return
            if isinstance(item, Exit) and item.frame == frame and item.into is None:
                item.into = name

    def exit(self, tensor, kind: str, by: str | None = None) -> None:
        """Note that a tensor's value left TensorFlow (integers, indices and not a path, apart: integer_exits); while
        Keras trains, only when the program's code (file `by`) took it: Keras's logs are no values of the program's."""
        if self.paused or self.off or tensor.dtype.is_bool or self.training and not is_user_file(
                by or sys._getframe(2).f_code.co_filename):
            return
        if tensor.dtype.is_integer:  # kept apart when an op recorded here made them (an argmax's tokens)
            node = self.known(tensor)
            if node is not None and node.op is not None:
                self.integer_exits.append(Exit(self.seq, node, user_frame(3), kind))
            return
        frame = user_frame(3)
        self.seq += 1
        self.last_exit = self.seq
        self.log.append(Exit(self.seq, self.node_of(tensor, frame), frame, kind))


# Where the user's code made a tensor that no op made. Eagerly, tf.constant(...) and tf.convert_to_tensor(...) of a
# numpy array or a Python value make a tensor without running an op, so the op callback first meets it when an op
# reads it and would place it at that reading line. A source never watched was made by such a conversion more
# often than not (`t = tf.constant(x)` before the tape): the line to quote is the one that made it, so each of these
# conversions the user's code calls itself places its new tensor at that line (a tensor that already had a node,
# tf.convert_to_tensor(t) of a tensor, keeps its own). A conversion a library makes for the user (tf_keras calls
# tf.convert_to_tensor inside its layers) is left alone: only a call from the user's own code places its tensor.
CONVERSIONS = ("constant", "convert_to_tensor")


def patch_conversions(record) -> None:
    import tensorflow as tf

    record.originals.append((tf, {name: getattr(tf, name) for name in CONVERSIONS}))
    graph = record.graph

    def placing(convert):
        def placed(*args, **kwargs):
            made = convert(*args, **kwargs)
            caller = sys._getframe(1).f_code.co_filename, sys._getframe(1).f_lineno
            # the user's own call only: a library converting inside a layer the user called made no tensor of theirs
            if is_user_file(caller[0]) and not (record.busy or graph.paused or graph.off) and tf.executing_eagerly() \
                    and graph.known(made) is None:
                graph.converted.add(graph.node_of(made, caller))
            return made

        return functools.wraps(convert)(placed)

    for name in CONVERSIONS:
        setattr(tf, name, placing(getattr(tf, name)))
