"""What the user's source says around a line the recording named (linecache holds a notebook cell's source too).

An op's frame is the innermost line of the user's code that ran it; the line to change is sometimes another one,
which only the source shows:
- `call_after_block`: the body of `f` for `tape.gradient(f(x), x)` written after the tape's `with` block is right
  where it stands; what ran too late is the call of `f`.
- `overwritten_after`: a value computed from the source at `output = layer3(output)`, then `output = layer4(x)` on
  a later line that assigns the same name without reading it: that line dropped it.
- `refused_return`: a gradient function tf.custom_gradient refused for what it returned (one gradient too many or
  too few): the line to change is its `return`, not its `def`.
- `swapped_loss_parameters`: a loss function given to Keras (`loss=policy_loss`) whose parameters are named
  `(y_pred, y_true)`: Keras calls a loss as loss(y_true, y_pred), so the one it calls y_pred holds the labels.
- `carries`: can a value that left TensorFlow at one line come back at a later one, by the names the code assigns?
"""
from __future__ import annotations

import ast
import functools
import linecache


def _tree(file: str):
    try:
        return ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return None


def call_after_block(frame, with_frame, gradient_frame):
    """The (file, line) of the first call, after the tape's `with` block and up to its gradient call, of the
    function whose body holds `frame`; else of its last call before the block (a kernel matrix computed once at the
    module's level, then read by the step that records); else `frame` itself."""
    if not frame or not with_frame or frame[0] != with_frame[0]:
        return frame
    tree = _tree(frame[0])
    if tree is None:
        return frame
    function = _innermost_function(tree, frame[1])
    block = next((node for node in ast.walk(tree) if isinstance(node, ast.With) and node.lineno == with_frame[1]),
                 None)
    if function is None or block is None or function.lineno <= block.lineno <= function.end_lineno:
        return frame  # the op ran in the function that holds the tape: its own line is the one to move
    last = gradient_frame[1] if gradient_frame and gradient_frame[0] == frame[0] else None
    called = {function.name} | _instances(tree, function)  # a model's `call`: the calls of its instances, model(x)
    named = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and _called_name(node.func) in called
             and not function.lineno <= node.lineno <= function.end_lineno]
    after = sorted(line for line in named if line > block.end_lineno and (last is None or line <= last))
    before = sorted(line for line in named if line < block.lineno)
    return (frame[0], after[0]) if after else (frame[0], before[-1]) if before else frame


def _instances(tree, function) -> set[str]:
    """For a class's `call` or `__call__`, the names the module binds to instances of that class (`model = VAE()`),
    which call it as `model(x)`; else none."""
    owner = _class_of(tree, function)
    if owner is None or function.name not in ("call", "__call__"):
        return set()
    return {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and _called_name(node.value.func) == owner.name for target in node.targets if isinstance(target, ast.Name)}


def made_in_setup(frame) -> bool:
    """Is the line in a class's `build` or `__init__` (a layer making its weights), where a weight its call never
    reads was made? There the making says more than the loss that does not read it."""
    tree = _tree(frame[0]) if frame else None
    function = _innermost_function(tree, frame[1]) if tree is not None else None
    return function is not None and function.name in ("build", "__init__") and _class_of(tree, function) is not None


def _class_of(tree, function):
    """The class whose method the function is, or None."""
    return next((node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and function in node.body), None)


def _innermost_function(tree, line: int):
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
            if found is None or node.lineno >= found.lineno:
                found = node
    return found


def _called_name(func) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def overwritten_after(frame):
    """(file, line) of the statement that assigns again, without reading it, the one name the statement at `frame`
    assigned (in the same block, before anything reads the name); None when there is none or it was read first."""
    tree = _tree(frame[0]) if frame else None
    if tree is None:
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            if statement.lineno == frame[1] and isinstance(statement, ast.Assign) and _one_name(statement):
                return _reassigned(frame[0], _one_name(statement), body[index + 1:])
    return None


def _one_name(statement) -> str | None:
    targets = statement.targets
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None


def _reassigned(file: str, name: str, later: list):
    for statement in later:
        mentions = [n for n in ast.walk(statement) if isinstance(n, ast.Name) and n.id == name]
        reads = any(isinstance(n.ctx, ast.Load) for n in mentions)
        if isinstance(statement, ast.Assign) and _one_name(statement) == name and not reads:
            return file, statement.lineno
        if mentions:
            return None  # read (or bound another way) first: the value was used
    return None


PREDICTION = ("pred", "output", "logit", "prob")  # how a loss's parameter for the model's output is named
LABEL = ("true", "label", "target")  # and the one for the labels


def swapped_loss_parameters(frame):
    """(file, the `def` line) when the line at `frame` reads the first parameter of a function that the file gives
    Keras as a loss (`loss=` of compile, or compile's second argument) and whose first two parameters are named the
    other way round from Keras's call, loss(y_true, y_pred); else None."""
    tree = _tree(frame[0]) if frame else None
    function = _innermost_function(tree, frame[1]) if tree is not None else None
    parameters = [a.arg for a in function.args.args if a.arg != "self"][:2] if function is not None else []
    if len(parameters) < 2 or not (_named(parameters[0], PREDICTION) and _named(parameters[1], LABEL)):
        return None
    reads = any(isinstance(n, ast.Name) and n.id == parameters[0] and getattr(n, "lineno", None) == frame[1]
                for n in ast.walk(function))
    return (frame[0], function.lineno) if reads and _given_as_loss(tree, function.name) else None


def _named(name: str, words) -> bool:
    return any(word in name.lower() for word in words)


def _given_as_loss(tree, name: str) -> bool:
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and _called_name(call.func) == "compile":
            given = [k.value for k in call.keywords if k.arg == "loss"] + call.args[1:2]
            if any(isinstance(n, ast.Name) and n.id == name for value in given for n in ast.walk(value)):
                return True
    return False


def refused_return(frame, error: str | None):
    """The (file, line) of the last `return` of the gradient function defined at `frame` (its `def`, or its first
    decorator) when TensorFlow's error is about what it returned; else `frame`."""
    if not frame or "return" not in (error or "").lower():
        return frame
    tree = _tree(frame[0])
    function = next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and min([node.lineno] + [d.lineno for d in node.decorator_list]) == frame[1]), None) if tree else None
    returns = [node.lineno for node in ast.walk(function) if isinstance(node, ast.Return)
               and _innermost_function(function, node.lineno) is function] if function else []
    return (frame[0], max(returns)) if returns else frame


def carries(left, back) -> bool | None:
    return _carries(tuple(left) if left else None, tuple(back) if back else None)


@functools.lru_cache(maxsize=4096)  # asked for many ops of one line pair (paths.descendants); a file does not change
def _carries(left, back) -> bool | None:
    """Can the value that left TensorFlow at `left` (file, line) be what a constant first seen at `back` was made from:
    the same line, or a later one that reads a name the statement at `left` assigned (or one assigned from it on the
    lines between)? False when the statement at `left` assigns names and none reaches `back` (a copy kept for a
    print, `before = w.numpy().copy()`); None when the source cannot say (another file, an earlier line: a loop's next
    pass, a statement that assigns nothing: a `return`)."""
    if left is None or back is None or left[0] != back[0] or back[1] < left[1]:
        return None
    if left[1] == back[1]:
        return True
    tree = _tree(left[0])
    simple = sorted((s for s in ast.walk(tree) if isinstance(s, ast.stmt) and not hasattr(s, "body")),
                    key=lambda s: s.lineno) if tree is not None else []
    start = next((s for s in simple if s.lineno <= left[1] <= s.end_lineno), None)
    carried = _assigned(start) if start is not None else set()
    if not carried:  # a call whose value is dropped (print(w.numpy())) carries it nowhere; a `return` somewhere
        return False if isinstance(start, ast.Expr) else None
    for statement in simple:
        if statement.lineno <= start.end_lineno or statement.lineno > back[1]:
            continue
        read = {ast.unparse(n) for n in ast.walk(statement) if isinstance(n, (ast.Name, ast.Attribute))
                and isinstance(n.ctx, ast.Load)}
        if read & carried:
            if statement.lineno <= back[1] <= statement.end_lineno:
                return True
            carried |= _assigned(statement)
    return False


def _assigned(statement) -> set[str]:
    """The names and attributes (`self.cache`) a simple statement assigns, or the object a method call on it may
    change (`losses.append(loss.numpy())`)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
            isinstance(statement.value.func, ast.Attribute):
        return {ast.unparse(statement.value.func.value)}
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AugAssign, ast.AnnAssign)) else []
    return {ast.unparse(n) for t in targets for n in ast.walk(t) if isinstance(n, (ast.Name, ast.Attribute))
            and isinstance(n.ctx, ast.Store)}
