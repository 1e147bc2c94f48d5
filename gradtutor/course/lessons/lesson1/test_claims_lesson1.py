"""Does TensorFlow still behave the way lesson 1 says it does?

Each test re-runs one statement of solutions/lesson1/lesson1.ipynb (the prose,
the printed numbers, the "Check your understanding" answers), so a TensorFlow
or Keras upgrade that changes it fails here instead of leaving the lesson wrong.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf


def seed_model():
    """The notebook's opening model and input batch (same seed, same sizes): a frozen first layer, then a head."""
    keras.utils.set_random_seed(0)
    frozen = keras.layers.Dense(16, activation="relu", trainable=False, name="frozen")
    model = keras.Sequential([keras.Input(shape=(4,)), frozen, keras.layers.Dense(1, name="head")], name="model")
    x_batch = tf.convert_to_tensor(np.random.normal(size=(8, 4)).astype(np.float32))
    return model, frozen, x_batch


# --- The symptom ------------------------------------------------------------
def test_input_gradient_is_none_without_watch():
    """'prediction: (8, 1)' and 'd prediction / d x_batch: None'."""
    model, _, x_batch = seed_model()
    with tf.GradientTape() as tape:
        prediction = model(x_batch)
    assert tuple(prediction.shape) == (8, 1)
    assert tape.gradient(prediction, x_batch) is None


def test_input_gradient_both_fixes_agree_exactly():
    """Fix 1 (tape.watch) and fix 2 (tf.Variable): shape (8, 4), max |difference| 0.0;
    the frozen layer's weights are among the watched variables (section 4)."""
    model, frozen, x_batch = seed_model()
    with tf.GradientTape() as tape:
        tape.watch(x_batch)
        prediction = model(x_batch)
    grad_watch = tape.gradient(prediction, x_batch)
    x_var = tf.Variable(x_batch, name="x_var")
    assert x_var.trainable  # "a new tf.Variable is trainable by default"
    with tf.GradientTape() as tape:
        prediction = model(x_var)
    grad_var = tape.gradient(prediction, x_var)
    watched = [v.name for v in tape.watched_variables()]
    assert tuple(grad_watch.shape) == (8, 4)
    assert float(tf.reduce_max(tf.abs(grad_watch - grad_var))) == 0.0
    assert float(tf.reduce_max(tf.abs(grad_watch))) > 0.1  # a real gradient, not ~0
    assert frozen.trainable is False
    assert any(v is frozen.kernel.value for v in tape.watched_variables())
    assert "model/frozen/kernel:0" in watched  # the name the notebook prints
    assert "x_var:0" in watched


def test_input_as_a_non_trainable_variable_gives_none():
    """Question 5: tf.Variable(x_batch, trainable=False) would give None again."""
    model, _, x_batch = seed_model()
    x_frozen = tf.Variable(x_batch, trainable=False)
    with tf.GradientTape() as tape:
        prediction = model(x_frozen)
    assert tape.gradient(prediction, x_frozen) is None


# --- 1. tf.constant ---------------------------------------------------------
def test_constant_is_not_watched():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x**3)
    assert tape.gradient(y, x) is None


def test_watched_constant_gives_three_x_squared():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x**3)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 12.0, 27.0])


def test_watch_after_the_computation_is_too_late():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x**3)
        tape.watch(x)
    assert tape.gradient(y, x) is None


# --- 2. numpy arrays ---------------------------------------------------------
X_NP = np.array([0.5, 1.0, 2.0], dtype=np.float32)


def test_gradient_with_respect_to_numpy_raises_attribute_error():
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(X_NP) * X_NP)
    with pytest.raises(AttributeError, match="_id"):
        tape.gradient(y, X_NP)


def test_watch_numpy_raises_value_error():
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="ndarray"):
            tape.watch(X_NP)


def test_watching_a_copy_while_computing_from_numpy_gives_none():
    x_tf = tf.convert_to_tensor(X_NP)
    with tf.GradientTape() as tape:
        tape.watch(x_tf)
        y = tf.reduce_sum(tf.sin(X_NP) * X_NP)
    assert tape.gradient(y, x_tf) is None


def test_watching_a_second_conversion_gives_none():
    x_tf = tf.convert_to_tensor(X_NP)
    with tf.GradientTape() as tape:
        tape.watch(tf.convert_to_tensor(X_NP))
        y = tf.reduce_sum(tf.sin(x_tf) * x_tf)
    assert tape.gradient(y, x_tf) is None


def test_convert_once_then_watch_gives_sin_plus_x_cos():
    """Printed: [0.9182168 1.3817732 0.07700372] (float32; 'about' in the last digits)."""
    x = tf.convert_to_tensor(X_NP)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(x) * x)
    x64 = X_NP.astype(np.float64)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.sin(x64) + x64 * np.cos(x64), rtol=1e-5)


def test_numpy_inside_the_tape_keeps_only_sin():
    x = tf.convert_to_tensor(X_NP)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(np.sin(x.numpy()) * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.sin(X_NP), rtol=1e-6)


# --- 3. non-trainable tf.Variable --------------------------------------------
def frozen_and_trainable():
    return (tf.Variable([1.0, 2.0, 3.0], trainable=False, name="w"),
            tf.Variable([0.5, 0.5, 0.5], name="b"))


def test_non_trainable_variable_is_not_watched():
    w, b = frozen_and_trainable()
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w**2 + b**2)
    dw, db = tape.gradient(y, [w, b])
    assert dw is None
    np.testing.assert_array_equal(db.numpy(), [1.0, 1.0, 1.0])
    assert [v.name for v in tape.watched_variables()] == ["b:0"]


def test_watching_the_non_trainable_variable_fixes_it():
    w, b = frozen_and_trainable()
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = tf.reduce_sum(w**2 + b**2)
    dw, db = tape.gradient(y, [w, b])
    np.testing.assert_array_equal(dw.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(db.numpy(), [1.0, 1.0, 1.0])


def test_watch_accessed_variables_false_turns_automatic_watching_off():
    w, b = frozen_and_trainable()
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = tf.reduce_sum(w**2 + b**2)
    dw, db = tape.gradient(y, [w, b])
    np.testing.assert_array_equal(dw.numpy(), [2.0, 4.0, 6.0])
    assert db is None


def test_question_1_trainable_variable_unwatched_when_automatic_watching_is_off():
    x = tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_tf_variable_trainable_flag_cannot_be_changed():
    w, _ = frozen_and_trainable()
    with pytest.raises(AttributeError):
        w.trainable = True


# --- 4. Keras 3 variables ----------------------------------------------------
def test_keras_variable_wraps_a_tf_variable():
    kv = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    assert not isinstance(kv, tf.Variable)
    assert isinstance(kv.value, tf.Variable)
    assert kv.value.trainable is False


def test_non_trainable_keras_variable_is_not_watched():
    kv = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(kv**3)
    assert tape.gradient(y, kv) is None


def test_watching_a_keras_variable_raises_value_error():
    kv = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="of type 'Variable', not tf.Tensor or tf.Variable"):
            tape.watch(kv)


def test_watching_value_gives_the_gradient_for_kv_and_kv_value():
    kv = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(kv.value)
        y = tf.reduce_sum(kv**3)
    by_wrapper, by_value = tape.gradient(y, kv), tape.gradient(y, kv.value)
    del tape
    assert isinstance(by_wrapper, tf.Tensor) and isinstance(by_value, tf.Tensor)
    np.testing.assert_array_equal(by_wrapper.numpy(), [3.0, 12.0, 27.0])
    np.testing.assert_array_equal(by_value.numpy(), [3.0, 12.0, 27.0])


def test_trainable_keras_variable_is_watched_automatically():
    kv = keras.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(kv**3)
    np.testing.assert_array_equal(tape.gradient(y, kv).numpy(), [3.0, 12.0, 27.0])


def test_making_a_keras_variable_trainable_later_does_not_start_the_tape():
    kv2 = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    kv2.trainable = True
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(kv2**3)
    assert kv2.trainable is True
    assert tape.gradient(y, kv2) is None
    assert tape.watched_variables() == ()


def test_frozen_layer_weights_are_still_watched():
    """'layer.trainable = False -> gradient shape: (3, 2)'; question 3."""
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    layer.trainable = False
    assert layer.trainable_weights == []  # what freezing does change
    assert layer.kernel.trainable is False
    assert isinstance(layer.kernel, keras.Variable)  # add_weight makes keras.Variables
    assert layer.kernel.value.trainable is True  # the inner flag, fixed at creation
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(tf.ones((4, 3))) ** 2)
    grad = tape.gradient(y, layer.kernel)
    assert grad is not None and tuple(grad.shape) == (3, 2)


# --- 5. None or zero ----------------------------------------------------------
def test_unconnected_gradients_zero_returns_zeros():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x**3)
    grad = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0, 0.0])


def test_unconnected_zero_fails_for_a_keras_variable_source_but_not_its_value():
    kv = keras.Variable([1.0, 2.0, 3.0], trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(kv * 2.0)
    with pytest.raises(AttributeError, match="_type_enum"):
        tape.gradient(y, kv, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    grad = tape.gradient(y, kv.value, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    del tape
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0, 0.0])


def test_question_4_a_zero_slope_is_zeros_not_none():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * 0.0)
    grad = tape.gradient(y, x)
    assert grad is not None
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0, 0.0])


def test_non_persistent_tape_gives_one_gradient_call():
    """Used by a diagnosis of exercise 3: a second tape.gradient call raises RuntimeError."""
    w, b = frozen_and_trainable()
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = tf.reduce_sum(w**2 + b**2)
    tape.gradient(y, w)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, b)
