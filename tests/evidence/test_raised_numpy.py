"""A NumPy call given a tensor of a function being traced raises (TensorFlow's "Cannot convert a symbolic
tf.Tensor … to a numpy array", or a SymbolicTensor without `.numpy()`): the program's own exception is the finding,
leaves-tensorflow at the user's innermost line it passed through (gradtutor.evidence.reading.raised.note), which
inside a tf.function is the first of autograph's translated frames: they are kept innermost first."""
from __future__ import annotations

import importlib.util
import random
import sys

import pytest

pytestmark = pytest.mark.tf

HELPERS = {
    "abs": "def target(x):\n    y = x * 2.0\n    return np.abs(y)\n",
    "multiply": "def target(x):\n    y = x - 1.0\n    return np.multiply(y, 3.0)\n",
    "numpy": "def target(x):\n    y = x + 1.0\n    return y.numpy()\n",
}


def _load(tmp_path, helper: str):
    """A user's module: a helper that leaves TensorFlow on its third line, called from a tf.function on line 11."""
    source = ("import numpy as np\nimport tensorflow as tf\n\n" + helper +
              "\n\n@tf.function\ndef step(x):\n    return tf.reduce_sum(target(x))\n")
    assert source.splitlines()[10].strip() == "return tf.reduce_sum(target(x))"
    path = tmp_path / f"user_{random.randrange(10**6)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module, str(path)


@pytest.mark.parametrize("kind", sorted(HELPERS))
def test_a_numpy_step_in_a_traced_helper_is_leaves_tensorflow_at_the_helpers_line(tmp_path, kind):
    import tensorflow as tf

    from gradtutor.evidence import Record
    from gradtutor.evidence.reading import raised
    from gradtutor.evidence.recording.frames import raised_at

    module, path = _load(tmp_path, HELPERS[kind])
    with pytest.raises(Exception) as caught:
        module.step(tf.random.uniform((random.randint(1, 4), random.randint(1, 4))))
    assert raised_at(caught.value) == (path, 6)  # the helper's line, not the step's call of it (line 11)
    record = Record()
    raised.note(record, caught.value)
    [finding] = record.findings
    assert (finding["cause"], finding["broke_at"]["line"]) == ("leaves-tensorflow", 6)
    assert finding["facts"]["refused"] == ("symbolic_numpy_method" if kind == "numpy" else "symbolic_to_numpy")


def test_an_error_that_is_no_numpy_call_is_no_refusal(tmp_path):
    import tensorflow as tf

    from gradtutor.evidence import Record
    from gradtutor.evidence.reading import raised

    module, _ = _load(tmp_path, "def target(x):\n    y = x * 2.0\n    return tf.reshape(y, (-1, 7, 5))\n")
    with pytest.raises(Exception) as caught:
        module.step(tf.random.uniform((random.randint(1, 4), 3)))
    record = Record()
    raised.note(record, caught.value)
    assert record.findings == []
