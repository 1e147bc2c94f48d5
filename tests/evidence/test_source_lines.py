"""The line that dropped a value (gradtutor.evidence.source_lines.overwritten_after): the next statement of the same
block that assigns the name again without reading it, and never one after the value was read."""
from __future__ import annotations

import linecache
import random

import pytest

from gradtutor.evidence.source_lines import call_after_block, carries, overwritten_after, swapped_loss_parameters

pytestmark = pytest.mark.unit


def _at(tmp_path, text: str, name: str = "model.py"):
    path = tmp_path / name
    path.write_text(text)
    linecache.checkcache(str(path))
    return str(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_reassignment_that_drops_the_value_is_named(tmp_path, seed):
    rng = random.Random(seed)
    name = rng.choice(["out", "h", "hidden", "x2"])
    between = rng.randint(0, 3)  # statements that leave the name alone
    lines = ["def call(self, x):", f"    {name} = self.a(x)", f"    {name} = self.b({name})"]
    lines += [f"    unrelated_{i} = {i}" for i in range(between)]
    lines += [f"    {name} = self.c(x)", f"    return {name}"]
    file = _at(tmp_path, "\n".join(lines) + "\n")
    assert overwritten_after((file, 3)) == (file, 4 + between)
    assert overwritten_after((file, 2)) is None  # read on the next line: used


def test_a_value_read_first_or_added_to_is_not_dropped(tmp_path):
    file = _at(tmp_path, "def f(x):\n    y = x * 2\n    print(y)\n    y = x\n    z = x * 3\n    z += 1\n    return y + z\n")
    assert overwritten_after((file, 2)) is None  # printed before it was replaced
    assert overwritten_after((file, 5)) is None  # z += 1 reads it
    assert overwritten_after(None) is None and overwritten_after((str(tmp_path / "gone.py"), 3)) is None


LOSS = """import keras


def {name}({first}, {second}):
    return -keras.ops.sum(keras.ops.log({first}) * {second}, axis=-1)


model = keras.Sequential([keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", {given})
"""


@pytest.mark.parametrize("seed", range(4))
def test_a_keras_loss_with_its_parameters_named_the_other_way_round_is_found_at_its_def(tmp_path, seed):
    rng = random.Random(seed)
    name = rng.choice(["policy_loss", "my_loss", "custom"])
    first, second = rng.choice(["y_pred", "pred", "output", "logits"]), rng.choice(["y_true", "labels", "target"])
    given = rng.choice([f"loss={name}", f"loss=[{name}]", f'loss={{"out": {name}}}'])
    file = _at(tmp_path, LOSS.format(name=name, first=first, second=second, given=given), f"loss{seed}.py")
    assert swapped_loss_parameters((file, 5)) == (file, 4)


def test_keras_order_a_loss_not_given_to_keras_or_a_line_that_reads_the_labels_is_not(tmp_path):
    right = _at(tmp_path, LOSS.format(name="f", first="y_true", second="y_pred", given="loss=f"), "right.py")
    assert swapped_loss_parameters((right, 5)) is None
    unused = _at(tmp_path, LOSS.format(name="f", first="y_pred", second="y_true", given="loss='mse'"), "unused.py")
    assert swapped_loss_parameters((unused, 5)) is None
    labels_line = _at(tmp_path, LOSS.format(name="f", first="y_pred", second="y_true", given="loss=f").replace(
        "keras.ops.log(y_pred) * y_true", "y_true * 2.0"), "labels.py")
    assert swapped_loss_parameters((labels_line, 5)) is None


@pytest.mark.parametrize("seed", range(4))
def test_an_op_outside_the_tape_in_a_function_is_said_at_the_call_that_ran_it(tmp_path, seed):
    """A kernel matrix computed once at the module's level (before the step that records) is said at its call, which
    is the line to move; a call between the block and the gradient call is preferred, as it is the one that ran."""
    rng = random.Random(seed)
    name = rng.choice(["kernel", "matern32", "build_k"])
    padding = ["x = 1"] * rng.randint(0, 3)
    lines = [f"def {name}(a):", "    r = a * 2", "    return r", *padding, f"K = {name}(3)",
             "def step():", "    with tape:", "        loss = K * 2", "    return tape.gradient(loss, w)"]
    file = _at(tmp_path, "\n".join(lines) + "\n")
    call, block = 4 + len(padding), 6 + len(padding)
    assert call_after_block((file, 2), (file, block), (file, block + 2)) == (file, call)
    lines[-1:] = [f"    again = {name}(4)", "    return tape.gradient(loss + again, w)"]
    file = _at(tmp_path, "\n".join(lines) + "\n", "other.py")
    assert call_after_block((file, 2), (file, block), (file, block + 3)) == (file, block + 2)


def test_an_op_outside_the_tape_in_a_models_call_is_said_at_the_call_of_the_model(tmp_path):
    """`out = model(X)` before the `with` block: the ops of the model's `call` ran there, which is the line to move."""
    name = random.choice(["model", "vae", "net"])
    lines = ["class VAE:", "    def call(self, x):", "        h = x * 2", "        return h", f"{name} = VAE()",
             f"out = {name}(3)", "with tape:", "    loss = out * 2", "grads = tape.gradient(loss, w)"]
    file = _at(tmp_path, "\n".join(lines) + "\n")
    assert call_after_block((file, 3), (file, 7), (file, 9)) == (file, 6)


@pytest.mark.parametrize("seed", range(4))
def test_a_value_that_left_tensorflow_reaches_only_the_lines_its_names_reach(tmp_path, seed):
    """`pred = model(x).numpy()`, then `err = pred - y` (NumPy), then the loss of `err`: it comes back there; a copy kept
    to compare later, or a print, carries it nowhere; a list it was appended to carries it; a `return` is not known."""
    rng = random.Random(seed)
    pred, err, kept = rng.sample(["pred", "p", "out", "err", "diff", "before", "snap"], 3)
    padding = [f"note_{i} = {i}" for i in range(rng.randint(0, 3))]
    lines = [f"{pred} = model(x).numpy()", *padding, f"{err} = {pred} - y", f"{kept} = w.numpy().copy()",
             "print(float(w.numpy()))", "losses.append(loss.numpy())", f"loss = tf.reduce_mean({err} ** 2)",
             "total = tf.reduce_mean(losses)", "def f():", "    return w.numpy()"]
    file = _at(tmp_path, "\n".join(lines) + "\n", f"carries_{seed}.py")
    at = {text.split(" ")[0]: index + 1 for index, text in enumerate(lines)}
    assert carries((file, at[pred]), (file, at["loss"])) is True  # through err
    assert carries((file, at[pred]), (file, at[pred])) is True
    assert carries((file, at[kept]), (file, at["loss"])) is False
    assert carries((file, at["print(float(w.numpy()))"]), (file, at["loss"])) is False
    assert carries((file, at["losses.append(loss.numpy())"]), (file, at["total"])) is True
    assert carries((file, len(lines)), (file, len(lines) + 1)) is None  # returned: where it goes is not known here
    assert carries((file, at["loss"]), (file, at[pred])) is None and carries(None, (file, 1)) is None
