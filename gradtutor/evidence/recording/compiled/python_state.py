"""Python values a traced step read, frozen into its graph: noted when the function is traced, compared after.

A `tf.function`'s Python runs only while it is traced: a Python number or bool its own code reads from a
global, a closure cell or an attribute of its `self` becomes a constant of the graph. TensorFlow keys its
traces on the arguments, not on those names, so when the program later changes one (a loss weight of 0.0
switched to 1.0 after a warm-up, a flag set on the trainer) the compiled step goes on with the value it was
traced with. `traced` notes, for each trace, the few such names, their values and the line that reads each;
`called` runs on every later call (the hot path: one lookup and one comparison a name, and nothing once a
change was seen) and keeps the first value that differs from the traced one.

A Keras model (a layer, a tf.Module, a tf.Variable) the function's code reads by name is frozen alike: the graph
holds the weights of the object it was traced with, so a model built anew under the same name (one per trial) is
never used nor trained by the compiled step; such a read is noted with the object, compared by identity.

A `tf.Variable` the function is given as an argument and also reads by name (`grad_wrt(mu)` whose body reads the
global `mu`) is one input of its trace: TensorFlow keys the trace on the argument's shape and dtype, not on which
variable it is, so a later call with another variable (`grad_wrt(sigma)`) runs the same graph with `sigma` in
every place the code read `mu`. Such names are noted too (`aliases`), and the first call given another variable
there (`swapped`, with that call's line). A Python value the code reads and also changes (`self.step += 1`, a global
counter) changes only while the function is traced: such reads are noted too (`written`, with the changing line).
The reading (reading.unexplained and reading.subtle) concludes from these
notes; nothing here decides what they mean.
"""
from __future__ import annotations

import dis
import inspect

from gradtutor.evidence import fit_data
from gradtutor.evidence.recording.frames import is_user_file, user_frame

TENSORS = ("EagerTensor", "SymbolicTensor", "Tensor")  # a value the graph captured (or one its trace made, noted after)
MAX_READS = 16  # a step reading more Python scalars than this is noted by its first ones only (the cost of a call)


class Read:
    """One Python scalar a traced function read: where from (a namespace dict, or an object's attribute). `held`: an
    object holding trainable weights (a Keras model or layer, a tf.Module, a tf.Variable), compared by identity."""

    __slots__ = ("holder", "name", "kind", "value", "line", "held")

    def __init__(self, holder, name, kind, value, line):
        self.holder, self.name, self.kind, self.value, self.line = holder, name, kind, value, line
        self.held = not _scalar(value)

    def now(self):
        if self.kind == "global":
            return self.holder.get(self.name, self.value)
        if self.kind == "closure":
            return self.holder.cell_contents if _filled(self.holder) else self.value
        return getattr(self.holder, self.name, self.value)


class Traced:
    """A function's reads as its latest trace saw them, and each one's first change since: name -> (read, now)."""

    __slots__ = ("file", "first", "last", "reads", "changed", "aliases", "swapped", "draws", "calls", "indirect",
                 "inner", "at", "written")

    def __init__(self, file, first, last, reads, aliases=(), draws=()):
        self.file, self.first, self.last, self.reads = file, first, last, reads
        self.changed: dict = {}
        self.aliases = aliases  # (argument position or keyword, the Read of the same variable by name)
        self.swapped: dict = {}  # name -> (its Read, the other variable given, (file, line) of that call)
        self.draws = list(draws)  # (np.random.rand, line): a random draw its Python made once, when traced
        self.calls = 0  # calls since, that ran the graph with that draw
        self.indirect: set = set()  # names read by a function the step's code hands to an optimizer (not its own)
        self.inner: list = []  # a Keras step's: the reads of the program's own code it runs (_keras_step_reads)
        self.at = None  # (file, line) of the fit call that runs this code (an inner one's), where it is said
        self.written: dict = {}  # name -> line: a value it reads that its own Python changes (run only when traced)


def after_call(record, function, traced_now: bool, args=(), kwargs=None) -> None:
    """After each call of `function` from Python (traced.Tracing.call): a new trace's reads, or a check of the old."""
    if traced_now:
        traced(record, function, args, kwargs or {})
    elif record.python_state:
        called(record, function, args, kwargs or {})


def traced(record, function, args=(), kwargs=None) -> None:
    """`function` was traced by this call: its reads now (a new trace sees the values of now)."""
    try:
        noted = _reads(function, args, kwargs or {})
    except Exception:  # noqa: BLE001 - a function whose code cannot be read is not looked into
        noted = None
    inner = _keras_step_reads(record, function)
    if inner:
        noted = noted or Traced("", 0, 0, [])
        noted.inner = inner
    if noted is None:
        record.python_state.pop(id(function), None)
    else:
        record.python_state[id(function)] = noted


def _keras_step_reads(record, function) -> list[Traced]:
    """For Keras's train function (fit's, train_on_batch's), the program's own code it runs when traced: the loss given
    to compile (its `call`, or the function), the model's `call` and `train_step` where the program defines them. What
    they read from `self` (an annealing weight a callback sets) is frozen into the step alike, said at the fit line."""
    model, at = fit_data.trained_model(function), user_frame(3)  # traced within fit: the fit line is on the stack
    if model is None or at is None:
        return []
    found = []
    loss = getattr(model, "loss", None)
    for code in (getattr(loss, "call", None), getattr(loss, "fn", None), loss if inspect.isfunction(loss) else None,
                 getattr(model, "call", None), getattr(model, "train_step", None)):
        filename = getattr(getattr(inspect.unwrap(code), "__code__", None), "co_filename", None) if code else None
        if filename is None or not is_user_file(filename):
            continue
        try:
            noted = _reads(code)
        except Exception:  # noqa: BLE001 - code that cannot be read is not looked into
            continue
        if noted is not None and noted.reads:
            noted.at = (at[0], at[1])
            found.append(noted)
    return found


def called(record, function, args=(), kwargs=None) -> None:
    """`function` ran its compiled graph: each name it read at trace time that has changed since is noted, once,
    and the first call given another variable where the trace's argument was also read by name."""
    noted = record.python_state.get(id(function))
    if noted is None:
        return
    noted.calls += 1
    for key, read in noted.aliases:
        if isinstance(key, int):
            given = args[key] if key < len(args) else read.value
        else:
            given = (kwargs or {}).get(key, read.value)
        if given is not read.value and read.name not in noted.swapped and _variable(given):
            noted.swapped[read.name] = (read, given, user_frame(3))
    for one in (noted, *noted.inner):
        _changes(one)


def _changes(noted: Traced) -> None:
    """Each read of `noted` whose value is another now, noted once (its first new value)."""
    if len(noted.changed) == len(noted.reads):
        return
    for read in noted.reads:
        try:
            now = read.now()
            if now is not read.value and read.name not in noted.changed and \
                    (read.held or type(now) is not type(read.value) or bool(now != read.value)):
                noted.changed[read.name] = (read, now)
        except Exception:  # noqa: BLE001 - a property that raises now: the user's call must not, so it is not noted
            continue


def _reads(function, args=(), kwargs=None) -> Traced | None:
    """The Python scalars the function's own code reads from its globals, closure and `self`, with their lines, and
    the variables among its arguments (`args`, `kwargs`: this trace's) that it also reads by name."""
    python = inspect.unwrap(getattr(function, "_python_function", None) or function)
    owner = getattr(python, "__self__", None)  # a method: TensorFlow binds it to a holder of a weak reference
    if owner is not None:
        owner = getattr(owner, "weakrefself_target__", lambda: owner)()
        python = python.__func__
    code = getattr(python, "__code__", None)
    if code is None:
        return None
    cells = {name: cell for name, cell in zip(code.co_freevars, python.__closure__ or ()) if _filled(cell)}
    reads, seen, previous, line = [], set(), None, code.co_firstlineno
    given = {id(value): key for key, value in [*enumerate(args), *(kwargs or {}).items()] if _variable(value)}
    aliases: list = []
    this = code.co_varnames[0] if owner is not None and code.co_argcount else None
    # source: the random module (or generator) named just before, awaiting what it draws; held: an object just read
    draws, source, held = [], None, None
    indirect: list = []
    written: dict = {}
    tensors: list = []  # (`self.x = self.x - lr * g` in the step: rebound only while traced, every call reads the first)
    for instruction in dis.get_instructions(code):
        line = instruction.positions.lineno or line if instruction.positions else line
        name = instruction.argval
        source, draw = _draw(source, instruction.opname, name, python.__globals__)
        if draw and len(draws) < MAX_READS:
            draws.append((draw, line))
        read = None
        if instruction.opname == "LOAD_GLOBAL" and name not in seen and name in python.__globals__:
            read = Read(python.__globals__, name, "global", python.__globals__[name], line)
            rate = _rate_function(read.value)  # an optimizer's learning rate given as a function: run when traced
            indirect += [one for one in (rate and _reads(rate) or Traced("", 0, 0, [])).reads if _scalar(one.value)]
        elif instruction.opname == "LOAD_DEREF" and name not in seen and name in cells:
            read = Read(cells[name], name, "closure", cells[name].cell_contents, line)
        elif instruction.opname == "LOAD_ATTR" and this and previous in (("LOAD_FAST", this), ("LOAD_DEREF", this)) \
                and name not in seen:  # (`self` is a cell when a comprehension in the method reads it too)
            read = Read(owner, name, "attribute", getattr(owner, name, None), line)
        elif instruction.opname == "LOAD_ATTR" and held is not None and name not in seen:  # self.a.b: a's b
            read = Read(held, name, "attribute", getattr(held, name, None), line)
        # an object of the program's read by name (a callback the loss was given, a global config): its own numbers
        # are read through it, one deep
        held = read.value if read is not None and _plain(read.value) else None
        if instruction.opname in ("STORE_ATTR", "STORE_GLOBAL") and len(written) < MAX_READS:  # `self.step += 1`
            written.setdefault(name, line)
        previous = (instruction.opname, name)
        if read is not None and id(read.value) in given and name not in seen:
            seen.add(name)
            aliases.append((given[id(read.value)], read))
        elif read is not None and (_scalar(read.value) or _trains(read.value)) and len(reads) < MAX_READS:
            seen.add(name)
            reads.append(read)
        elif read is not None and type(read.value).__name__ in TENSORS and len(tensors) < MAX_READS:
            seen.add(name)  # a tensor the graph captured: noted only if the function's own Python rebinds it (below)
            tensors.append(read)
    lines = [found.positions.lineno for found in dis.get_instructions(code)
             if found.positions and found.positions.lineno]
    reads += [one for one in indirect if one.name not in seen][:max(0, MAX_READS - len(reads))]
    reads += [one for one in tensors if one.name in written][:max(0, MAX_READS - len(reads))]
    if not (reads or aliases or draws):
        return None
    noted = Traced(code.co_filename, code.co_firstlineno, max(lines, default=code.co_firstlineno), reads, aliases, draws)
    noted.indirect = {one.name for one in indirect}
    noted.written = {read.name: written[read.name] for read in reads if read.name in written
                     and (not read.held or read in tensors)}
    return noted


RANDOM_MODULES = ("numpy.random", "random")
NOT_DRAWS = frozenset({"seed", "get_state", "set_state", "getstate", "setstate", "default_rng", "Generator",
                       "RandomState", "SeedSequence", "PCG64"})


def _draw(source, opname, name, namespace):
    """One step of reading `np.random.rand(...)`, `random.random()` or `rng.normal(...)` (a numpy Generator made
    outside) in the bytecode: (what is awaiting its attribute now, the draw's name once one is complete)."""
    if opname == "LOAD_GLOBAL":
        value = namespace.get(name)
        module = getattr(value, "__name__", None) if inspect.ismodule(value) else None
        if module == "numpy" or module in RANDOM_MODULES:
            return (name, module), None
        kind = type(value).__module__ or ""
        return ((name, "numpy.random") if kind.startswith("numpy.random") or kind == "random" and
                not inspect.isclass(value) else None), None
    if opname in ("LOAD_ATTR", "LOAD_METHOD") and source is not None:
        shown, module = source
        if module == "numpy":
            return ((f"{shown}.{name}", "numpy.random") if name == "random" else None), None
        return None, (f"{shown}.{name}" if name not in NOT_DRAWS else None)
    return None, None


def _rate_function(value):
    """The Python function a Keras optimizer was given as its learning rate (`SGD(learning_rate=lr_fn)`): the
    optimizer calls it while the step is traced, so what it reads is frozen as the step's own reads are."""
    rate = getattr(value, "_learning_rate", None) if hasattr(value, "apply_gradients") else None
    return rate if inspect.isfunction(rate) else None


def _plain(value) -> bool:
    """An object of the program's own class (a callback, a config): not a number, a module, a class or a model."""
    file = getattr(inspect.getmodule(type(value)), "__file__", None)
    return not (file is None or not is_user_file(file) or _scalar(value) or inspect.ismodule(value)
                or inspect.isclass(value) or inspect.isroutine(value) or _variable(value)
                or hasattr(value, "trainable_variables"))


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # an empty cell (a name assigned after the function was made)
        return False
    return True


def _variable(value) -> bool:
    """A tf.Variable (or a Keras variable): TensorFlow feeds its handle to the trace, whichever variable it is."""
    return hasattr(value, "handle") and hasattr(value, "assign") and hasattr(value, "dtype")


def _trains(value) -> bool:
    """An object whose trainable weights a step reads by name (a model built anew per trial, rebound to the same
    name, leaves the traced step training the old one): a Keras model or layer, a tf.Module, a tf.Variable."""
    if _variable(value):
        return bool(getattr(value, "trainable", False))
    if inspect.isclass(value) or inspect.ismodule(value) or not hasattr(value, "trainable_variables"):
        return False
    try:
        return bool(value.trainable_variables)
    except Exception:  # noqa: BLE001 - a layer not built yet, a property that raises: not noted
        return False


def _scalar(value) -> bool:
    """A Python number or bool (or a numpy scalar): what tracing turns into a constant of the graph."""
    import numpy as np

    return isinstance(value, (bool, int, float, np.generic)) and getattr(value, "ndim", 0) == 0
