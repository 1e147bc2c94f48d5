"""A NaN born at fit's first step, looked into on the rows fit was given (gradtutor.evidence.fit_data):
the finding names the op that made it, and the model, its optimizer and its metrics are left as the program left them
(a notebook's kernel goes on with them). Sizes, data and which step is the first bad one are drawn."""
from __future__ import annotations

import contextlib
import inspect

import numpy as np
import pytest

pytestmark = pytest.mark.tf


def _net():
    import keras
    import tensorflow as tf

    class Net(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                pred = self(x, training=True)
                loss = tf.reduce_sum(y * tf.square(pred - y)) / tf.reduce_sum(y)  # no positive: 0 / 0
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    return Net


def _same(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_fits_first_bad_step_is_run_again_on_its_rows_and_the_model_is_left_as_it_was(seed):
    import keras

    from gradtutor.evidence import recording, report

    rng = np.random.default_rng(seed)
    rows, features, units = int(rng.integers(8, 65)), int(rng.integers(2, 9)), int(rng.integers(2, 9))
    keras.utils.set_random_seed(int(rng.integers(2**31)))
    inputs = keras.Input((features,))
    model = _net()(inputs, keras.layers.Dense(1, activation="sigmoid")(keras.layers.Dense(units, "relu")(inputs)))
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    x = rng.normal(size=(rows, features)).astype("float32")
    epochs = int(rng.integers(1, 4))  # its first step is bad; the steps after it are handed its NaN weights
    with recording() as record:
        model.fit(x, np.zeros((rows, 1), "float32"), batch_size=rows, epochs=epochs, verbose=0)
        left = [np.array(v) for v in (*model.variables, *model.optimizer.variables)]
    found, _ = report(record)
    division = next(number for number, text in enumerate(inspect.getsourcelines(_net)[0], inspect.getsourcelines(_net)[1])
                    if "/ tf.reduce_sum(y)" in text)
    assert [(f["cause"], (f["broke_at"] or {}).get("line")) for f in found][:1] == [("non-finite", division)]
    # run again at once, on the kept rows from the first weights (not the next step, handed the NaN weights)
    assert found[0]["facts"]["rerun"] == "kept_first" and found[0]["facts"]["first_step"] == "1"
    assert _same(left, [np.array(v) for v in (*model.variables, *model.optimizer.variables)])
    assert np.isnan(left[0]).all()  # the program's own step made them NaN; the look into it did not undo that


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_a_pipeline_of_known_size_gives_its_first_batch_after_the_program_and_a_generator_nothing(seed):
    """fit on a shuffled tf.data pipeline made from arrays: its first batch is read after the program, so fit's own
    epochs see the order they would have (the weights trained under the recording are those trained without it); a
    pipeline of a Python generator is never run again, so nothing of it is kept."""
    import keras
    import tensorflow as tf

    from gradtutor.evidence import fit_data, recording

    rng = np.random.default_rng(seed)
    rows, features, batch = int(rng.integers(8, 80)), int(rng.integers(1, 6)), int(rng.integers(2, 16))
    x, y = rng.normal(size=(rows, features)).astype("float32"), rng.normal(size=(rows, 1)).astype("float32")
    order = int(rng.integers(2**31))
    ran = []

    def generate():
        ran.append(1)
        yield from zip(x, y)

    def trained(make, recorded):
        keras.utils.set_random_seed(order)
        data = make()  # made anew: a shuffle's own seed moves on at each iteration
        model = keras.Sequential([keras.Input((features,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        with recording() if recorded else contextlib.nullcontext() as record:
            model.fit(data, epochs=2, verbose=0)
        return model, record

    def shuffled():
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(rows, seed=order).batch(batch)

    plain, _ = trained(shuffled, False)
    model, record = trained(shuffled, True)
    assert all(np.array_equal(a, b) for a, b in zip(plain.get_weights(), model.get_weights()))
    first_x, first_y = fit_data.first_rows(record.trained[id(model)])
    assert first_x.shape == (min(batch, rows), features) and first_y.shape == (min(batch, rows), 1)
    assert {tuple(row) for row in first_x} <= {tuple(row) for row in x}
    signature = (tf.TensorSpec((features,)), tf.TensorSpec((1,)))
    ran.clear()
    model, record = trained(lambda: tf.data.Dataset.from_generator(generate, output_signature=signature).batch(batch),
                            True)
    assert id(model) not in record.trained and len(ran) == 2  # fit's own two epochs, and no run more


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_what_the_look_after_the_program_finds_is_said_at_the_fit_call(seed, tmp_path):
    """Keras's own train_step asks for the gradients, so when fit's only step is run again after a script ended no
    line of the user's is on the stack: its findings are said at the line that called fit, never at no line at all.
    The script is run by `gradtutor explain` itself (in-process, the test's own lines would be on the stack)."""
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(seed)
    rows, features = int(rng.integers(4, 40)), int(rng.integers(1, 6))
    script = tmp_path / "train.py"
    script.write_text(
        "import keras\nimport numpy as np\n"
        f"x = np.random.default_rng({int(rng.integers(2**31))}).normal(size=({rows}, {features})).astype('float32')\n"
        f"x[{int(rng.integers(rows))}, {int(rng.integers(features))}] = np.nan  # one value of the data is NaN\n"
        f"model = keras.Sequential([keras.Input(({features},)), keras.layers.Dense(1)])\n"
        "model.compile(optimizer='sgd', loss='mse')\n"
        f"model.fit(x, np.zeros(({rows}, 1), 'float32'), batch_size={rows}, epochs=1, verbose=0)\n")
    ran = subprocess.run([sys.executable, "-m", "gradtutor", "explain", "--json", script.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    found = json.loads(ran.stdout.strip().splitlines()[-1])["findings"]
    assert found and {f["line"] for f in found} == {7}, [(f["file"], f["line"], f["cause"]) for f in found]


@pytest.mark.parametrize("given", ["list", "dict"])
def test_a_model_of_several_inputs_has_its_first_bad_step_run_again_on_its_rows(given):
    """fit given a list (or a dict) of arrays, one per input (keras-yolo3's model of three inputs): its rows are
    kept as that structure, and the first bad step is run again on them."""
    import keras

    from gradtutor.evidence import recording, report

    rng = np.random.default_rng()
    rows = int(rng.integers(8, 33))
    keras.utils.set_random_seed(int(rng.integers(2**31)))
    first, second = keras.Input((3,), name="first"), keras.Input((2,), name="second")
    joined = keras.layers.Concatenate()([keras.layers.Dense(4, "relu")(first), second])
    model = _net()([first, second], keras.layers.Dense(1, activation="sigmoid")(joined))
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    arrays = [rng.normal(size=(rows, 3)).astype("float32"), rng.normal(size=(rows, 2)).astype("float32")]
    x = arrays if given == "list" else {"first": arrays[0], "second": arrays[1]}
    with recording() as record:
        model.fit(x, np.zeros((rows, 1), "float32"), batch_size=rows, epochs=1, verbose=0)
    found, _ = report(record)
    assert [f["cause"] for f in found][:1] == ["non-finite"]
    assert found[0]["facts"]["rerun"] == "kept_first"


@pytest.mark.parametrize("seed", range(4))
def test_the_rows_kept_are_no_more_than_the_first_batch_fit_was_asked_for(seed):
    """A loss that depends on which rows share a batch (a triplet loss with no positive pair in a batch of 8
    distinct labels) is seen by the replay only on the first step's rows: at most the batch fit was given."""
    from gradtutor.evidence import fit_data

    rng = np.random.default_rng(seed)
    rows, batch = int(rng.integers(40, 300)), int(rng.integers(2, 40))
    x, y = rng.normal(size=(rows, 3)), rng.normal(size=(rows, 1))
    kept_x, kept_y = fit_data._first(x, y, batch)
    assert len(kept_x) == len(kept_y) == min(batch, rows) and np.array_equal(kept_x, x[:batch])
    assert len(fit_data._first(x, y)[0]) == min(rows, 256)  # train_on_batch: the batch it is given, whole
