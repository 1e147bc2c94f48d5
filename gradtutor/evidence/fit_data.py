"""What Keras's fit and train_on_batch were given: the model, the first rows of its arrays, the weights it started with.

Kept once per model, at its first fit or train_on_batch on arrays (a list or dict of them for a model of several
inputs) or on a tf.data pipeline of known size (its first batch; not a generator), while recording. Two readings use them after the program has
run: flat_layers.py runs the model on the rows again to see which activations sit flat, and `step_again` gives the
compiled-step recording (traced.py) a way to look into a symptom of fit's last step, which no later call ran again:
Keras's train_step, run once more eagerly on the kept rows, from the weights the model started with when the
symptom appeared at the first step (a NaN born at fit's only step is then seen being made, not only handed on).
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, NamedTuple

import numpy as np

from gradtutor.evidence.recording.frames import user_frame

KEPT_MODELS, KEPT_ELEMENTS = 8, 1 << 22  # the models kept, and at most this many numbers of each one's inputs
KEPT_WEIGHTS = 1 << 25  # a model with more numbers in its weights keeps no copy of them
TRAINER = "keras.src.backend.tensorflow.trainer"


class Trained(NamedTuple):
    model: Any
    call: str  # "fit" or "train_on_batch"
    frame: tuple | None  # the user's line that called it
    x: Any  # the first rows of its inputs and targets: arrays, or lists or dicts of them (None: taken from `data`)
    y: Any
    weights: list | None  # the model's weights before that call (None: too large to copy)
    data: Any = None  # a tf.data pipeline of known size, whose first batch is taken only after the program
    nonfinite: dict | None = None  # the arrays it was given hold NaN or inf: {part, rows, first} (nonfinite_rows)


FIT_BATCH = 32  # fit's batch size when it is given none


def first_rows(kept: Trained) -> tuple[Any, Any]:
    """The rows kept, or the first batch of the pipeline, taken now: after the program, so that a new iteration of
    it (a shuffle's seed moves on at each) changes nothing the program saw. Each is an array, or the list, tuple or
    dict of arrays a model of several inputs (or outputs) was given."""
    if kept.data is None:
        return kept.x, kept.y
    x, y = (_arrays(part) for part in next(iter(kept.data.take(1))))
    return _first(x, y)


def rows(data) -> int:
    """How many rows an array, or each array of a model's several inputs, holds."""
    import tensorflow as tf

    return len(tf.nest.flatten(data)[0])


def _arrays(data):
    """An array, or a list, tuple or dict of arrays with one number of rows, as NumPy; None when it is not one."""
    import tensorflow as tf

    leaves = tf.nest.flatten(data)
    if not leaves or not all(hasattr(a, "shape") and hasattr(a, "dtype") for a in leaves):
        return None
    arrays = tf.nest.map_structure(np.asarray, data)
    lengths = {len(a) if a.ndim else None for a in tf.nest.flatten(arrays)}
    return arrays if len(lengths) == 1 and None not in lengths else None


def _first(x, y, batch: int | None = None):
    """The first rows of x and y (as many as KEPT_ELEMENTS numbers of x allow, at most 256, and no more than the
    step's batch: a loss that depends on which rows share a batch, a mean over a batch's positives, sees the first
    step's), copied."""
    import tensorflow as tf

    size = sum(a[:1].size for a in tf.nest.flatten(x))
    count = max(1, min(256, batch or 256, KEPT_ELEMENTS // max(1, size)))
    return tuple(tf.nest.map_structure(lambda a: a[:count].copy(), part) for part in (x, y))


def watch(record) -> None:
    """While recording: Keras 3's fit and train_on_batch keep what they are first given. Called when the recording
    starts if Keras's trainer is loaded, else when the first Keras layer or model is made (recording/optimizers.py):
    the trainer is loaded by then, and a script's own `import keras` may come after the recording starts."""
    if record.training_watched:
        return
    record.training_watched = True
    try:
        from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
    except ImportError:  # Keras 2, or no Keras 3 trainer: nothing kept, nothing looked into
        return
    saved = {name: TensorFlowTrainer.__dict__[name] for name in ("fit", "train_on_batch")
             if name in TensorFlowTrainer.__dict__}
    record.originals.append((TensorFlowTrainer, saved))
    for name, method in saved.items():
        setattr(TensorFlowTrainer, name, _keeping(record, name, method))


def _keeping(record, name, method):
    def keep(model, x, y, batch):
        weights = [np.array(w) for w in model.get_weights()] if model.built and \
            model.count_params() <= KEPT_WEIGHTS else None
        if y is None and _finite_dataset(x):  # a tf.data pipeline of (x, y) batches: its first batch, taken later
            record.trained[id(model)] = Trained(model, name, user_frame(), None, None, weights, x)
            return
        x, y = _arrays(x), _arrays(y)  # a model of several inputs is given a list (or a dict) of arrays
        if x is None or y is None or rows(x) != rows(y):
            return
        record.trained[id(model)] = Trained(model, name, user_frame(), *_first(x, y, batch), weights,
                                            nonfinite=nonfinite_rows(x, y))

    @functools.wraps(method)
    def train(model, x=None, y=None, *args, **kwargs):
        if id(model) not in record.trained and len(record.trained) < KEPT_MODELS:
            # what could not be kept is only not looked into; the weights read are gradtutor's reads, not the user's
            with contextlib.suppress(Exception), record.graph.pausing():
                batch = (kwargs.get("batch_size", args[0] if args else None) or FIT_BATCH) if name == "fit" else None
                keep(model, x, y, batch)
        record.graph.training += 1
        try:
            return method(model, x, y, *args, **kwargs)
        finally:
            record.graph.training -= 1

    return train


def nonfinite_rows(x, y) -> dict | None:
    """Where the arrays fit was given hold NaN or inf, read once when fit is called (one pass over float arrays):
    {part: "x" or "y", rows: how many of its rows hold one, first: the first such row}; None when all are finite.
    A NaN in the data reaches the gradients of the step that trains on its row, with no op seen making it."""
    for part, data in (("x", x), ("y", y)):
        bad = None
        for array in data.values() if isinstance(data, dict) else data if isinstance(data, (list, tuple)) else [data]:
            if array.dtype.kind in "fc" and array.ndim:
                rows_bad = ~np.isfinite(array).reshape(len(array), -1).all(axis=1)
                bad = rows_bad if bad is None else bad | rows_bad
        if bad is not None and bad.any():
            return {"part": part, "rows": int(bad.sum()), "first": int(np.argmax(bad))}
    return None


def _finite_dataset(data) -> bool:
    """A tf.data.Dataset of (inputs, targets) whose size TensorFlow knows without running it (from arrays, batched,
    shuffled, repeated): taking a batch of it again runs no Python of the program's (a generator's dataset has no
    known size)."""
    import tensorflow as tf

    if not isinstance(data, tf.data.Dataset) or not isinstance(data.element_spec, tuple) or len(data.element_spec) != 2:
        return False
    size = int(data.cardinality())
    return size != int(tf.data.UNKNOWN_CARDINALITY) and size != 0


def step_again(record, function, first: int):
    """For a compiled function that is a kept model's train function: a call that runs its train_step eagerly on the
    kept rows (from the weights it started with, if the symptom was first seen at step 1), or None."""
    kept = model_of(record, function)
    if kept is None or not hasattr(kept.model, "train_step"):
        return None

    given = first_rows(kept)

    def run():
        import tensorflow as tf

        model, graph = kept.model, record.graph
        state = [*model.variables, *getattr(model.optimizer, "variables", ()),
                 *(v for metric in model.metrics for v in metric.variables)]
        with graph.pausing():  # gradtutor's own reads and writes: no value of the program's left TensorFlow here
            saved = [v.numpy() for v in state]
            data = tuple(tf.nest.map_structure(tf.constant, part) for part in given)
        graph.fed.update(graph.node_of(t, kept.frame) for t in tf.nest.flatten(data))
        try:
            if first == 1 and kept.weights is not None:
                model.set_weights(kept.weights)
            return model.train_step(data)
        finally:  # the model, its optimizer and metrics as the program left them (a notebook goes on with them)
            with graph.pausing():
                for variable, value in zip(state, saved):
                    variable.assign(value)

    run.at = kept.frame  # the line that called fit, the user's line for what the run finds (graph_replay.replay)
    return run


def model_of(record, function) -> Trained | None:
    """The kept model whose training step this compiled function is (trained_model), or None."""
    model = trained_model(function, lambda value: id(value) in record.trained)
    kept = record.trained.get(id(model)) if model is not None else None
    return kept if kept is not None and kept.model is model else None


def trained_model(function, wanted=lambda value: hasattr(value, "train_step") and hasattr(value, "optimizer")):
    """The Keras model whose training step this compiled function is: Keras makes it from a closure over the model
    (TensorFlowTrainer._make_function), found among the closures of its Python function, a few deep."""
    found = [getattr(function, "_python_function", None)]
    for inner in found:  # grows as it is read
        if len(found) > 16:
            break
        for cell in getattr(inner, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # a cell not filled yet
                continue
            if wanted(value):
                return value
            if callable(value) and getattr(value, "__closure__", None):
                found.append(value)
    return None
