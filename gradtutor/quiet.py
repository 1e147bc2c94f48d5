"""Keep TensorFlow quiet: import this before TensorFlow.

TensorFlow writes start-up lines to stderr (absl's "All log messages before
absl::InitializeLog()", the CUDA probe) even with TF_CPP_MIN_LOG_LEVEL=3, and
nbgrader scores a test cell that shows any stderr output as 0. So this module
sets the variables TensorFlow reads, then imports TensorFlow itself with the
process's stderr pointed at /dev/null, and puts stderr back afterwards.
"""
import os
import sys

# 3 = errors only, for TF's C++ logging; oneDNN's notice is separate.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# No GPU here, and probing for CUDA is what prints the "could not find cuda" lines.
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")


def _import_tensorflow_silently() -> None:
    if "tensorflow" in sys.modules:
        return
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError):
        pass
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)  # the file descriptor: TF's C++ logging bypasses sys.stderr
        import tensorflow  # noqa: F401
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


_import_tensorflow_silently()
