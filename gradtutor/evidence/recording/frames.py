"""Where user code is: the first frame of the call stack outside Python, TensorFlow, Keras and gradtutor."""
from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import threading

# the package's root (gradtutor/evidence/recording/frames.py → gradtutor/): every gradtutor frame is ours, not the
# user's — the checker's wrappers in gradtutor/isolation as much as the recorder here
_GRADTUTOR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    found |= {p for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    return tuple(sorted(os.path.abspath(p) + os.sep for p in found if p)) + (_GRADTUTOR,)


_PREFIXES = _library_prefixes()
_IS_USER: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """Code the user wrote: a script, a module of theirs, a notebook cell (not Python's, a library's or ours)."""
    known = _IS_USER.get(filename)
    if known is None:
        if filename.startswith("<"):  # <ipython-input-…>, <cell …>, <stdin>, <string>; not <frozen …>
            known = not filename.startswith("<frozen")
        else:
            known = not os.path.abspath(filename).startswith(_PREFIXES) and "__autograph_generated" not in filename
        _IS_USER[filename] = known
    return known


def user_frame(depth: int = 2):
    """(filename, line) of the innermost user frame, or None when the stack holds no user code.

    A frame of code autograph converted (a `tf.function` being traced) counts as the user's
    line it was converted from."""
    frame = sys._getframe(depth)
    is_user = _IS_USER
    while frame is not None:
        code = frame.f_code
        known = is_user.get(code.co_filename)
        if known is None:
            known = is_user_file(code.co_filename)
        if known:
            return (code.co_filename, frame.f_lineno)
        if GENERATED in code.co_filename:
            origin = converted_from(code.co_filename, frame.f_lineno)
            if origin is not None and is_user_file(origin[0]):
                return origin
        frame = frame.f_back
    return OUTSIDE[0]


GENERATED = "__autograph_generated"
# the user's line a look into the program after it ended stands for (fit's last step, run again on the rows fit was
# given: graph_replay.replay), when no user code is on the stack; None otherwise
OUTSIDE: list = [None]


def converted_from(filename: str, line: int):
    """The (file, line) autograph converted a generated line from: the source map autograph pushes on
    TensorFlow's per-thread stack while it runs converted code (the map its own error messages use). A
    replica function of tf.distribute runs in a thread of its own, converted in the caller's thread: then
    another thread's map has the line."""
    try:
        from tensorflow.python.util import tf_stack

        stacks = tf_stack._source_mapper_stacks
        mine = stacks.get(threading.get_ident())
        for stack in ([mine] if mine else []) + [s for s in list(stacks.values()) if s is not mine]:
            origin = stack[-1].get_effective_source_map().get((filename, line))
            if origin is not None:
                return (origin[0], _realigned(stack, origin[0], origin[1]))
    except Exception:  # noqa: BLE001 - TensorFlow's internals changed: the frame is not mapped
        return None
    return None


def _realigned(stack, filename: str, line: int) -> int:
    """The line autograph's map names, moved down to where its own copy of the line's text really is: autograph
    reads a function's source back from its tokens, which drop a backslash continuation's line break, so every
    line after one is mapped a line too high (`loss = a \\ + b` then `tape.gradient(…)` named at `+ b`)."""
    import linecache

    said = next((origin.source_code_line for mapper in reversed(stack)
                 for loc, origin in (getattr(mapper, "_source_map", None) or {}).items()
                 if origin.loc.filename == filename and origin.loc.lineno == line), None)
    if not said or not said.strip() or linecache.getline(filename, line).strip() == said.strip():
        return line
    for below in range(line + 1, line + 1 + MAX_CONTINUED):
        if linecache.getline(filename, below).strip() == said.strip():
            return below
    return line


MAX_CONTINUED = 20  # the backslash continuations looked past above a mapped line


def user_frame_object(depth: int = 2):
    """The innermost user frame object itself (to read its names), or None."""
    frame = sys._getframe(depth)
    while frame is not None and not is_user_file(frame.f_code.co_filename) \
            and GENERATED not in frame.f_code.co_filename:  # autograph's copy keeps the user's names
        frame = frame.f_back
    return frame


def where(frame) -> dict | None:
    """{file, line, code} of a (filename, line) pair, for a report."""
    if frame is None:
        return None
    filename, line = frame
    return {"file": filename, "line": line, "code": linecache.getline(filename, line).strip()}


def raised_at(error: BaseException):
    """(file, line) of the innermost frame of the user's code the exception passed through, or None. Inside a
    tf.function, autograph's translated stack (the error's metadata) has the user's lines its code was converted from,
    innermost first (it prints them the other way round): a helper's line, not the step's line that called it."""
    translated = getattr(getattr(error, "ag_error_metadata", None), "translated_stack", None) or ()
    mapped = [(frame.filename, frame.lineno) for frame in translated
              if getattr(frame, "filename", None) and is_user_file(frame.filename)]
    if mapped:
        return mapped[0]
    found = None
    trace = error.__traceback__
    while trace is not None:
        if is_user_file(trace.tb_frame.f_code.co_filename):
            found = (trace.tb_frame.f_code.co_filename, trace.tb_lineno)
        trace = trace.tb_next
    return found
