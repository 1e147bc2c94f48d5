"""Does TensorFlow still behave the way lesson 2 says it does?

Each test re-runs one statement of solutions/lesson2/lesson2.ipynb (the prose,
the printed numbers, the "Check your understanding" answers), so a TensorFlow
or Keras upgrade that changes it fails here instead of leaving the lesson wrong.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf

NON_PERSISTENT = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"


def seed_model():
    """The question's model and input, seeded as in the notebook."""
    keras.utils.set_random_seed(0)
    input_ = keras.Input(shape=(28, 28))
    flat = keras.layers.Flatten()(input_)
    output = keras.layers.Dense(10, activation="softmax")(flat)
    model = keras.Model(input_, output)
    rng = np.random.default_rng(0)
    inp = tf.Variable(rng.random((1, 28, 28)), dtype=tf.float32, name="input")
    return model, inp


def regressor_data():
    """Section 3's regressor and data, seeded as in the notebook."""
    keras.utils.set_random_seed(0)
    regressor = keras.Sequential([
        keras.Input(shape=(4,)),
        keras.layers.Dense(8, activation="tanh"),
        keras.layers.Dense(2),
    ])
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(5, 4)), dtype=tf.float32)
    y = tf.constant(rng.normal(size=(5, 2)), dtype=tf.float32)
    return regressor, x, y


def max_abs(t):
    return float(tf.reduce_max(tf.abs(t)))


# --- The symptom, on the question's model -------------------------------------
def test_seed_slice_in_gradient_line_is_none():
    """The question's tape (persistent, watched) with result[:, 0] in the g.gradient line: None."""
    model, inp = seed_model()
    with tf.GradientTape(persistent=True) as g:
        g.watch(inp)
        result = model(inp, training=False)
    assert g.gradient(result[:, 0], inp) is None


def test_seed_slice_inside_gives_a_real_gradient():
    """'shape: (1, 28, 28)', max |d result[:, 0] / d inp| 'about 0.0099'."""
    model, inp = seed_model()
    with tf.GradientTape(persistent=True) as g:
        g.watch(inp)
        result = model(inp, training=False)
        first_class = result[:, 0]
    grad_first = g.gradient(first_class, inp)
    assert tuple(grad_first.shape) == (1, 28, 28)
    assert max_abs(grad_first) == pytest.approx(0.0099, abs=0.00005)
    # The plot's other panel: the whole softmax output has gradient (about) 0 (printed 0.0 here).
    assert max_abs(g.gradient(result, inp)) <= 1e-7


def test_loss_after_the_block_is_none_inside_is_not():
    """'loss after the block: None'; inside, max |grad| about 0.11 (printed 0.1103...)."""
    model, inp = seed_model()
    target = tf.constant([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        result = model(inp, training=False)
    loss = keras.losses.categorical_crossentropy(target, result)
    assert tape.gradient(loss, inp) is None
    with tf.GradientTape() as tape:
        result = model(inp, training=False)
        loss = keras.losses.categorical_crossentropy(target, result)
    assert max_abs(tape.gradient(loss, inp)) == pytest.approx(0.1103, abs=0.0005)


# --- 1. The tape records only what runs inside it ----------------------------
def test_minimal_slice_after_block_is_none():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = x**2
    first = y[0]
    assert tape.gradient(first, x) is None
    # The notebook opens a fresh tape next: even a None answer used this one up.
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(first, x)


def test_slice_is_a_strided_slice_op():
    """'The slice y[0] is an operation too (TensorFlow calls it StridedSlice)'."""
    graph = tf.function(lambda v: v[0]).get_concrete_function(tf.TensorSpec([3], tf.float32)).graph
    assert "StridedSlice" in [op.type for op in graph.get_operations()]


def test_unconnected_zero_hides_the_bug():
    """'[0. 0. 0.]' with UnconnectedGradients.ZERO, although the true slope is 2."""
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = x**2
    first = y[0]
    got = tape.gradient(first, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(got.numpy(), [0.0, 0.0, 0.0])


def test_slice_inside_gives_two_zero_zero():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = x**2
        first = y[0]
    np.testing.assert_array_equal(tape.gradient(first, x).numpy(), [2.0, 0.0, 0.0])


def test_first_class_gradient_as_asked_is_none():
    model, inp = seed_model()

    def first_class_gradient_as_asked(model, inp):
        with tf.GradientTape(persistent=True) as g:
            g.watch(inp)
            result = model(inp, training=False)
        return g.gradient(result[:, 0], inp)

    assert first_class_gradient_as_asked(model, inp) is None


# --- 2. persistent=True ------------------------------------------------------
def test_second_gradient_call_raises_runtime_error():
    """First call prints [2. 0. 0.]; the second raises RuntimeError with the quoted message."""
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = x**2
        first, last = y[0], y[-1]
    np.testing.assert_array_equal(tape.gradient(first, x).numpy(), [2.0, 0.0, 0.0])
    with pytest.raises(RuntimeError) as caught:
        tape.gradient(last, x)
    assert str(caught.value) == NON_PERSISTENT


def test_persistent_tape_gives_both():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x**2
        first, last = y[0], y[-1]
    np.testing.assert_array_equal(tape.gradient(first, x).numpy(), [2.0, 0.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(last, x).numpy(), [0.0, 0.0, 6.0])
    del tape


def test_persistent_does_not_record_after_the_block():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x**2
    assert tape.gradient(y[0], x) is None


def test_list_of_targets_is_the_gradient_of_the_sum():
    """'[2. 0. 6.]', one tensor; a list of sources gives one gradient per source."""
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x**2
        first, last = y[0], y[-1]
        w, b = tf.Variable(2.0), tf.Variable(1.0)
        loss = w * first + b
    got = tape.gradient([first, last], x)
    assert isinstance(got, tf.Tensor)
    np.testing.assert_array_equal(got.numpy(), [2.0, 0.0, 6.0])
    per_source = tape.gradient(loss, [w, b])
    assert isinstance(per_source, list) and len(per_source) == 2


# --- 3. Leaving TensorFlow inside the tape ----------------------------------
def test_predict_returns_ndarray_and_gradient_is_none():
    """'ndarray -> None'."""
    regressor, x, y = regressor_data()
    with tf.GradientTape() as tape:
        tape.watch(x)
        pred = regressor.predict(x, verbose=0)
        loss = tf.reduce_mean(tf.square(pred - y))
    assert type(pred).__name__ == "ndarray"
    assert tape.gradient(loss, x) is None


def test_np_square_and_numpy_give_none():
    """'np.square: None', '.numpy():  None'; np.square of a tensor returns an ndarray."""
    regressor, x, y = regressor_data()
    assert isinstance(np.square(regressor(x) - y), np.ndarray)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_mean(np.square(regressor(x) - y))
    assert tape.gradient(loss, x) is None
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_mean(tf.square(regressor(x).numpy() - y))
    assert tape.gradient(loss, x) is None


def test_numpy_target_raises_attribute_error_about_id():
    """"<class 'numpy.float32'>", then AttributeError: 'numpy.float32' object has no attribute '_id'."""
    regressor, x, y = regressor_data()
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = np.mean(tf.square(regressor(x) - y))
    assert type(loss) is np.float32
    with pytest.raises(AttributeError, match="'numpy.float32' object has no attribute '_id'"):
        tape.gradient(loss, x)


def test_fix_model_call_and_tf_ops():
    """'EagerTensor -> (5, 4)'; max |d loss / d x| printed 0.1236...."""
    regressor, x, y = regressor_data()
    with tf.GradientTape() as tape:
        tape.watch(x)
        pred = regressor(x, training=False)
        loss = tf.reduce_mean(tf.square(pred - y))
    grad_x = tape.gradient(loss, x)
    assert type(pred).__name__ == "EagerTensor"
    assert tuple(grad_x.shape) == (5, 4)
    assert max_abs(grad_x) == pytest.approx(0.1237, abs=0.0005)


def test_input_gradient_as_written_is_none():
    regressor, x, y = regressor_data()

    def input_gradient_as_written(model, x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            pred = model.predict(x, verbose=0)
            loss = tf.reduce_mean(np.square(pred - y))
        return tape.gradient(loss, x)

    assert input_gradient_as_written(regressor, x, y) is None


# --- Check your understanding -------------------------------------------------
def test_q1_reduce_mean_after_the_block_is_none_and_loss_is_batch_times():
    """Q1: total = reduce_mean(loss) after the block gives None; the gradient of the
    per-example loss vector is the batch size times that of the mean."""
    regressor, x, y = regressor_data()
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss = keras.losses.mean_squared_error(y, regressor(x))
        inside_total = tf.reduce_mean(loss)
    total = tf.reduce_mean(loss)
    assert tape.gradient(total, x) is None
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(),
                               x.shape[0] * tape.gradient(inside_total, x).numpy(), rtol=1e-5, atol=1e-7)


def test_q2_labels_made_outside_are_fine():
    regressor, x, y = regressor_data()  # y was made before any tape
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_mean(tf.square(regressor(x) - y))
    assert tape.gradient(loss, x) is not None


def test_q3_one_tape_per_target_also_works():
    """Q3: the other way out is one forward pass and one tape per target."""
    x = tf.Variable([1.0, 2.0, 3.0])
    grads = []
    for k in (0, -1):
        with tf.GradientTape() as tape:
            target = (x**2)[k]
        grads.append(tape.gradient(target, x).numpy())
    np.testing.assert_array_equal(grads, [[2.0, 0.0, 0.0], [0.0, 0.0, 6.0]])


def test_q4_float_in_the_middle_gives_none():
    """Q4: float(...) on the way leaves TensorFlow, like .numpy()."""
    regressor, x, y = regressor_data()
    with tf.GradientTape() as tape:
        tape.watch(x)
        scale = float(tf.reduce_mean(regressor(x)))
        loss = tf.square(tf.constant(scale))
    assert tape.gradient(loss, x) is None
