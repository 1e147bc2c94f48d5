"""Do TensorFlow and Keras still behave the way lesson 6 says? Each test re-runs one statement of
solutions/lesson6/lesson6.ipynb, so an upgrade that changes it fails here instead of leaving the lesson wrong."""
import os
import subprocess
import sys
import warnings

import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf


def keras_warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught]


class MemoryLayer(keras.layers.Layer):  # the symptom: the question's memory layer
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.controller = keras.layers.Dense(units, name="controller")
        self.head = keras.layers.Dense(1, name="head")

    def build(self, input_shape):
        self.controller.build(input_shape)
        self.head.build((None, self.units))
        self.memory = self.add_weight(shape=(1, self.units), initializer="zeros", trainable=False, name="memory")

    def call(self, x):
        self.memory.assign(tf.tanh(self.controller(x))[-1:])
        return self.head(self.memory) + 0.0 * x[:, :1]


class FixedMemoryLayer(MemoryLayer):
    def call(self, x):
        self.memory.assign(value := tf.tanh(self.controller(x))[-1:])
        return self.head(value) + 0.0 * x[:, :1]


def one_step(layer_class):
    keras.utils.set_random_seed(0)
    x_demo, y_demo = tf.random.normal((8, 3)), tf.random.normal((8, 1))
    layer = layer_class(4)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((layer(x_demo) - y_demo) ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    said = keras_warnings(lambda: keras.optimizers.SGD(0.1).apply_gradients(zip(grads, layer.trainable_variables)))
    return layer, grads, said


def test_an_assign_in_the_forward_pass_leaves_the_controller_without_gradients_and_keras_only_warns():
    layer, grads, said = one_step(MemoryLayer)
    paths = [v.path.split("/", 1)[1] for v in layer.trainable_variables]
    assert paths == ["controller/kernel", "controller/bias", "head/kernel", "head/bias"]
    assert grads[0] is None and grads[1] is None
    assert tuple(grads[2].shape) == (4, 1) and tuple(grads[3].shape) == (1,)
    assert len(said) == 1 and said[0].startswith("Gradients do not exist for variables [")
    assert "controller/kernel" in said[0] and "controller/bias" in said[0] and "head" not in said[0]
    _, grads, said = one_step(FixedMemoryLayer)  # the fix: a tensor on the path, the assign off it
    assert [tuple(g.shape) for g in grads] == [(3, 4), (4,), (4, 1), (1,)] and said == []


# --- 1. w = w - lr * g ------------------------------------------------------------------
def test_rebinding_gives_none_on_step_two_then_type_error():
    w = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    kinds, grads = [], []
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'float' and 'NoneType'"):
        for _ in range(3):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum((w * x) ** 2)
            dw = tape.gradient(loss, w)
            kinds.append(type(w).__name__)
            grads.append(dw)
            w = w - 0.01 * dw
    assert kinds == ["ResourceVariable", "EagerTensor"]
    np.testing.assert_array_equal(grads[0].numpy(), [18.0, 64.0])
    assert grads[1] is None


def test_assign_sub_keeps_the_variable_and_every_gradient():
    w = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    printed = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((w * x) ** 2)
        dw = tape.gradient(loss, w)
        assert type(w).__name__ == "ResourceVariable"
        printed.append(dw.numpy())
        w.assign_sub(0.01 * dw)
    np.testing.assert_allclose(printed, [[18.0, 64.0], [14.76, 43.52], [12.1032, 29.593601]], rtol=1e-6)


def test_minus_equals_raises_on_a_tf_variable_and_silently_makes_a_tensor_of_a_keras_variable():
    w = tf.Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="variable -= value"):
        w -= 0.01 * tf.constant([18.0, 64.0])
    kv = keras.Variable([1.0, 2.0])
    same = kv
    kv -= 0.01 * tf.constant([18.0, 64.0])
    assert type(kv).__name__ == "EagerTensor"
    np.testing.assert_array_equal(same.numpy(), [1.0, 2.0])


def test_plain_sgd_is_an_in_place_assign_sub():
    v = tf.Variable([1.0, 2.0])
    same = v
    keras.optimizers.SGD(0.1).apply_gradients([(tf.constant([3.0, -4.0]), v)])
    assert v is same
    np.testing.assert_allclose(v.numpy(), [0.7, 2.4], rtol=1e-6)


# --- 2. variables made anew on every step -------------------------------------------------
def test_a_variable_created_inside_the_tape_is_watched():
    with tf.GradientTape() as tape:
        z = tf.Variable(2.0)
        y = z * z
    assert float(tape.gradient(y, z)) == 4.0


def fit(make_inside, steps=40, lr=0.1):
    keras.utils.set_random_seed(1)
    x_fit = tf.random.normal((32, 3))
    y_fit = x_fit @ tf.constant([[1.0], [-2.0], [0.5]]) + 0.3
    w_start = np.zeros((3, 1), np.float32)
    w, b = tf.Variable(w_start), tf.Variable(0.0)
    losses = []
    for _ in range(steps):
        if make_inside:
            w, b = tf.Variable(w_start), tf.Variable(0.0)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x_fit @ w + b - y_fit) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        assert dw is not None and db is not None  # "no None, no warning, no error"
        w.assign_sub(lr * dw)
        b.assign_sub(lr * db)
        losses.append(float(loss))
    return losses


def test_variables_made_inside_the_loop_never_train():
    """Printed: step 1 5.04 for both; step 40 about 1e-5 (made once) vs 5.04 (made each step)."""
    made_once, made_each_step = fit(False), fit(True)
    assert made_once[0] == made_each_step[0]
    assert round(made_once[0], 2) == 5.04
    assert made_each_step == [made_each_step[0]] * 40
    assert made_once[-1] < 1e-3
    assert all(a >= b for a, b in zip(made_once, made_once[1:]))


def test_add_weight_in_call_is_refused_once_the_layer_is_built():
    class WeightInCall(keras.layers.Layer):
        def call(self, x):
            w = self.add_weight(shape=(x.shape[-1], 1), initializer="ones")
            return x @ w

    with pytest.raises(ValueError, match="You cannot add new elements of state"):
        WeightInCall()(tf.ones((2, 3)))


def test_a_tf_variable_made_in_call_has_a_gradient_but_is_not_tracked():
    class TfVariableInCall(keras.layers.Layer):
        def call(self, x):
            self.w = tf.Variable(tf.ones((x.shape[-1], 1)))
            return x @ self.w

    layer = TfVariableInCall()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.ones((2, 3))))
    first = layer.w
    assert tuple(tape.gradient(loss, layer.w).shape) == (3, 1)
    assert layer.trainable_variables == []
    layer(tf.ones((2, 3)))
    assert layer.w is not first  # rebuilt on every call


# --- 3. Keras 3 tracking --------------------------------------------------------------------
class BareScale(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[2.0]], name="w")

    def call(self, x):
        return x @ self.w


def test_a_bare_tf_variable_is_not_tracked_and_the_optimizer_gets_nothing():
    layer = BareScale()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.ones((4, 1))) ** 2)
    assert layer.trainable_variables == [] and layer.weights == []
    grads = tape.gradient(loss, layer.trainable_variables)
    assert grads == []
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 0\)"):
        keras.optimizers.SGD(0.1).apply_gradients(zip(grads, layer.trainable_variables))
    with tf.GradientTape() as tape:  # check your understanding 3: the tape itself watches layer.w
        loss = tf.reduce_sum(layer(tf.ones((4, 1))) ** 2)
    np.testing.assert_array_equal(tape.gradient(loss, layer.w).numpy(), [[16.0]])


def test_in_a_bigger_model_the_bare_variable_silently_never_changes():
    scale = BareScale()
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1), scale])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones((4, 1))) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    said = keras_warnings(lambda: keras.optimizers.SGD(0.1).apply_gradients(zip(grads, model.trainable_variables)))
    assert len(grads) == 2 and said == [] and scale.w.numpy().tolist() == [[2.0]]


def test_keras_2_tracked_a_bare_tf_variable():
    """'Keras 2 tracked it': tf-keras (TF_USE_LEGACY_KERAS=1) lists the variable."""
    script = ("import tensorflow as tf\n"
              "class Bare(tf.keras.layers.Layer):\n"
              "    def __init__(self):\n        super().__init__(); self.w = tf.Variable([[2.0]], name='w')\n"
              "    def call(self, x):\n        return x @ self.w\n"
              "layer = Bare(); layer(tf.ones((1, 1))); print('TRACKED', [v.name for v in layer.trainable_variables])\n")
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "TRACKED ['w:0']" in done.stdout


def test_add_weight_is_tracked_and_constant_takes_an_array():
    class TrackedScale(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 1), initializer=keras.initializers.Constant(2.0), name="w")

        def call(self, x):
            return x @ self.w

    layer = TrackedScale()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.ones((4, 1))) ** 2)
    assert [v.path.split("/")[-1] for v in layer.trainable_variables] == ["w"]
    assert [g.numpy().tolist() for g in tape.gradient(loss, layer.trainable_variables)] == [[[16.0]]]
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(keras.initializers.Constant(values)(shape=(2, 3), dtype="float32"), values)

    class KV(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = keras.Variable([[1.0]], name="w")

    assert [v.name for v in KV().trainable_variables] == ["w"]  # a keras.Variable attribute is tracked


# --- 4. a model read before it is built ------------------------------------------------------
def test_an_unbuilt_model_has_no_variables_and_a_list_read_early_stays_empty():
    model = keras.Sequential([keras.layers.Dense(2)])
    variables = model.trainable_variables
    assert model.built is False and variables == []
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones((3, 4))) ** 2)
    assert tape.gradient(loss, variables) == []
    assert [v.path.split("/")[-1] for v in model.trainable_variables] == ["kernel", "bias"]


# --- 5. None in zip(grads, variables) ------------------------------------------------------------
def test_some_none_only_warns_and_trains_the_rest_all_none_raises():
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        loss = 3.0 * a
    grads = tape.gradient(loss, [a, b])
    assert float(grads[0]) == 3.0 and grads[1] is None
    said = keras_warnings(lambda: keras.optimizers.SGD(0.1).apply_gradients(zip(grads, [a, b])))
    assert len(said) == 1 and said[0].startswith("Gradients do not exist for variables ['b:0']")
    assert a.numpy() == pytest.approx(0.7) and b.numpy() == 2.0
    with pytest.raises(ValueError, match=r"^No gradients provided for any variable\.$"):  # all None: an error
        keras.optimizers.SGD(0.1).apply_gradients(zip([None, None], [a, b]))


def test_the_unused_head_gets_none_and_zero_fill_needs_the_inner_variables():
    keras.utils.set_random_seed(2)
    inputs = keras.Input(shape=(3,))
    trunk = keras.layers.Dense(4, activation="tanh", name="trunk")(inputs)
    model = keras.Model(inputs, [keras.layers.Dense(1, name="main")(trunk), keras.layers.Dense(2, name="aux")(trunk)])
    x, y = tf.random.normal((5, 3)), tf.random.normal((5, 1))
    with tf.GradientTape(persistent=True) as tape:
        main, _ = model(x)
        loss = tf.reduce_mean((main - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    assert [g is None for g in grads] == [False, False, False, False, True, True]
    assert model.trainable_variables[0].dtype == "float32" and isinstance(model.trainable_variables[0].dtype, str)
    with pytest.raises(AttributeError, match="'str' object has no attribute '_type_enum'"):
        tape.gradient(loss, model.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    filled = tape.gradient(loss, [v.value for v in model.trainable_variables],
                           unconnected_gradients=tf.UnconnectedGradients.ZERO)
    del tape
    assert [tuple(g.shape) for g in filled] == [(3, 4), (4,), (4, 1), (1,), (4, 2), (2,)]
    assert float(tf.reduce_max(tf.abs(filled[4]))) == 0.0 and float(tf.reduce_max(tf.abs(filled[5]))) == 0.0
    assert all(float(tf.reduce_max(tf.abs(g))) > 0.1 for g in filled[:4])
