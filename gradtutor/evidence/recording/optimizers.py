"""Keras 3, watched: its optimizer ("No gradients provided for any variable", "Gradients do not exist for variables"),
and its layers' `trainable = False` (watch_freezing, at the end).

Keras 3 (keras/src/optimizers/base_optimizer.py) checks gradients in one place: `BaseOptimizer.apply` calls
`_filter_empty_gradients`, which drops the None gradients, raises ValueError when none is left and otherwise only
warns. `apply_gradients` first unzips its pairs, so an empty variable list fails there ("not enough values to
unpack"). Both methods are wrapped while recording; the finding is added before Keras raises or warns, so a script
that catches the error is still told why. The cause is not guessed at the optimizer: each None came from a tape call
that was already analysed (checks.py remembers, per source variable, the cause it found), so the finding repeats that
tape's evidence with the line where its path broke.
"""
from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.util
import sys
import weakref

from gradtutor.evidence import fit_data
from gradtutor.evidence.recording import rebinding
from gradtutor.evidence.recording.compiled import unfrozen
from gradtutor.evidence.recording.frames import user_frame
from gradtutor.protocol import Cause, Symptom


def patch_when_loaded(record) -> None:
    """Patch once Keras is loaded: a script that imports keras first starts the recording (its import of
    TensorFlow) while Keras is half-imported, so the patch waits for the first gradient or tf.function call."""
    keras = sys.modules.get("keras")
    if record.keras_pending and keras is not None and not getattr(keras.__spec__, "_initializing", False):
        record.keras_pending = False
        patch(record)


def patch(record) -> None:
    """Wrap Keras 3's optimizer, if Keras 3 is loaded (importing TensorFlow loads it; tf-keras is not watched)."""
    if "keras" not in sys.modules:
        return
    try:
        from keras.src.optimizers.base_optimizer import BaseOptimizer
    except ImportError:  # Keras 2 as `keras`, or no Keras at all
        return
    saved = {name: BaseOptimizer.__dict__.get(name) for name in ("_filter_empty_gradients", "apply_gradients")}
    if None in saved.values():
        return
    record.originals.append((BaseOptimizer, saved))

    def filter_empty(optimizer, grads, variables):
        grads = list(grads)
        variables = list(variables)
        missing = [v for g, v in zip(grads, variables) if g is None]
        if missing:
            _safely(_report_missing, record, missing, len(missing) == len(grads))
        return saved["_filter_empty_gradients"](optimizer, grads, variables)

    def apply_gradients(optimizer, grads_and_vars, *args, **kwargs):
        pairs = list(grads_and_vars)  # a zip is consumed once: keep the pairs to pass on
        if not pairs:
            _safely(_report_empty, record)
        return saved["apply_gradients"](optimizer, pairs, *args, **kwargs)

    BaseOptimizer._filter_empty_gradients = functools.wraps(saved["_filter_empty_gradients"])(filter_empty)
    BaseOptimizer.apply_gradients = functools.wraps(saved["apply_gradients"])(apply_gradients)
    _patch_trainer(record)


def _patch_trainer(record) -> None:
    """Keras 3's TensorFlow train_step asks for no gradient at all when the model has no trainable weights
    (bare tf.Variables it does not track): it only warns. That warning is watched, in that module alone."""
    try:
        from keras.src.backend.tensorflow import trainer
    except ImportError:
        return
    record.originals.append((trainer, {"warnings": trainer.warnings}))
    trainer.warnings = _TrainerWarnings(record, trainer.warnings)


class _TrainerWarnings:
    """The `warnings` module as Keras's trainer sees it: its "no trainable weights" warning adds a finding."""

    def __init__(self, record, real):
        self._record, self._real = record, real

    def warn(self, message, *args, **kwargs):
        if "does not have any trainable weights" in str(message):
            _safely(_report_untrained, self._record, sys._getframe(1).f_locals.get("loss"))
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # still Keras's line, not this one
        return self._real.warn(message, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _report_untrained(record, loss) -> None:
    """fit's loss reads variables, but the model lists none as trainable: point at the first one made."""
    node = record.graph.known(loss) if loss is not None else None
    read = record.reader.variables_read([node]) if node is not None else []
    if not read or read[0].frame is None:
        return
    # weights a `layer.trainable = False` froze before Keras made this training step (a GAN's discriminator frozen
    # for the combined model, then trained on its own): that line, not the first variable's
    frozen = [record.frozen[id(node.ref())] for node in read if node.ref() is not None and id(node.ref()) in record.frozen]
    record.add("fit", user_frame(4), [], Cause.NOT_USED, frozen[0] if frozen else read[0].frame, Symptom.ERROR,
               {"keras": "The model does not have any trainable weights", "variables_read_by_target": len(read),
                **({"why": "frozen"} if frozen else {})})


def _safely(report, *args) -> None:
    """A report that fails must not change what the user's script does: Keras goes on as it would."""
    with contextlib.suppress(Exception):  # the evidence is lost, the script is not
        report(*args)


def _report_missing(record, variables, everything: bool) -> None:
    """None gradients reached the optimizer: name them, with the cause their tape call found."""
    from gradtutor.evidence.recording.tapes import tf_object

    frame = user_frame(4)
    found = next((record.none_sources[id(tf_object(v))] for v in variables
                  if record.none_sources.get(id(tf_object(v))) is not None), None)
    if found is None:  # these None did not come from a tape call we saw: no evidence of a cause, only of None
        seen = record.observations
        seen.gradients(seen.called("apply_gradients", frame), [None] * len(variables), False)
        return
    cause, broke_frame, facts = found
    symptom, names = Symptom.ERROR if everything else Symptom.NONE, [_variable_name(v) for v in variables]
    record.add("apply_gradients", frame, names, cause, broke_frame, symptom,
               dict(facts, keras="No gradients provided for any variable" if everything
                    else "Gradients do not exist for variables"))


def _report_empty(record) -> None:
    """apply_gradients got no pairs: the variable list given to the tape was empty."""
    last = record.last_call
    if last is None or last["sources"]:
        return
    frozen = next((f for f in record.findings if f["_key"] == record.no_sources and f["facts"].get("why") == "frozen"),
                  None)
    if frozen is not None:  # the tape call's finding names the line that froze them: the optimizer adds no cause
        frozen["facts"]["keras"] = "apply_gradients got an empty list"
        return
    frame = user_frame(4)
    read = record.reader.variables_read(last["targets"])
    broke = read[0].frame if read and read[0].frame else last["frame"]
    # the empty list reached the optimizer: that finding, not the tape call's, says what happened
    record.findings[:] = [f for f in record.findings if f["_key"] != record.no_sources]
    record.add("apply_gradients", frame, [], Cause.NOT_USED, broke, Symptom.ERROR,
               {"keras": "apply_gradients got an empty list", "variables_read_by_target": len(read)})


def _variable_name(variable) -> str:
    return str(getattr(variable, "path", None) or getattr(variable, "name", None) or "a variable").split(":")[0]


# ---------------------------------------------------------------- a layer's `trainable = False`
LAYER_MODULE = "keras.src.layers.layer"


def watch_freezing(record) -> None:
    """Where a Keras layer was frozen: `layer.trainable = False` at the user's line, for each weight it held then.

    Keras 3 keeps a frozen layer's weights out of `trainable_variables`, so a loop that asks the tape for them gets
    an empty list and nothing trains; the line to change is the one that froze the layer, not the one that built it
    (reading.checks names it). Keras's layer module may be imported after the recording starts (a script's own
    `import keras`): then a finder on sys.meta_path patches it as it loads."""
    if fit_data.TRAINER in sys.modules:  # Keras's trainer loaded already (a notebook's cell): fit is watched now
        fit_data.watch(record)
    module = sys.modules.get(LAYER_MODULE)
    if module is not None:
        _patch_layer(record, module)
        return
    finder = _Finder(record)
    sys.meta_path.insert(0, finder)
    record.originals.append((_Removal(finder), {"finder": True}))


def _patch_layer(record, module) -> None:
    layer_class = getattr(module, "Layer", None)
    _note_construction(record, layer_class)
    rebinding.patch_class(record, layer_class)  # `layer.kernel = 0.5`: a weight replaced by a plain value
    trainable = getattr(layer_class, "__dict__", {}).get("trainable")
    if not isinstance(trainable, property) or trainable.fset is None:
        return
    record.originals.append((layer_class, {"trainable": trainable}))

    def set_trainable(layer, value):
        try:
            was_frozen = unfrozen.frozen_weights(layer) if value else []
        except Exception:  # noqa: BLE001 - a layer whose weights cannot be listed is only unseen
            was_frozen = []
        trainable.fset(layer, value)
        try:
            _note(record, layer, bool(value))
            unfrozen.note(record, was_frozen, user_frame())
        except Exception:  # noqa: BLE001 - a layer whose weights cannot be listed is only unseen
            pass

    layer_class.trainable = property(trainable.fget, set_trainable, trainable.fdel, trainable.__doc__)


MADE_LAYERS = 4096  # construction lines kept: a program making layers in a loop keeps its first ones


def _note_construction(record, layer_class) -> None:
    """The user's line that made each of Keras's own layers (`Dense(16, activation="relu")`): an activation such a
    layer runs is Keras's code, whose only user line is the model's call, while the line that chose the activation,
    the initialiser or the scale is the layer's own (reading.analysis names it). A layer the user wrote runs its
    activation in the user's own code, so its ops already name their line. `__new__` is wrapped, not `__init__`:
    Keras reads `__init__`'s signature to make a layer's config."""
    new = layer_class.__dict__.get("__new__")
    if not isinstance(new, staticmethod):
        return
    record.originals.append((layer_class, {"__new__": new}))
    made, create = record.graph.layers_made, new.__func__

    @functools.wraps(create)
    def __new__(cls, *args, **kwargs):
        layer = create(cls, *args, **kwargs)
        if cls.__module__.startswith("keras.") and len(made) < MADE_LAYERS:
            made.append((weakref.ref(layer), user_frame()))
        if not record.training_watched:  # Keras's trainer is loaded with its Model class, before any model is made
            fit_data.watch(record)
        return layer

    layer_class.__new__ = staticmethod(__new__)


def _note(record, layer, trainable: bool) -> None:
    """Every weight of the layer (its sublayers' too) -> the user's line that froze it; unfreezing forgets it."""
    frame = user_frame()
    for weight in layer.weights:
        handle = getattr(weight, "handle", None)
        if handle is None:
            continue
        if trainable:
            record.frozen.pop(id(handle), None)
        elif frame is not None:
            record.frozen[id(handle)] = frame


class _Finder(importlib.abc.MetaPathFinder):
    """Finds Keras's layer module as the import system would, and patches it once it has run."""

    def __init__(self, record):
        self.record, self.busy = record, False

    def find_spec(self, name, path, target=None):
        if name != LAYER_MODULE or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return None
        run = loader.exec_module
        record = self.record

        def exec_module(module):
            run(module)
            _patch_layer(record, module)

        loader.exec_module = exec_module
        return spec


class _Removal:
    """What uninstall sets back (record.originals: every patch is undone by a setattr): takes the finder out."""

    def __init__(self, finder):
        self.__dict__["finder"] = finder

    def __setattr__(self, name, value):
        if self.__dict__["finder"] in sys.meta_path:
            sys.meta_path.remove(self.__dict__["finder"])
