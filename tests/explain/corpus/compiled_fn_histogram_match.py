# source: https://github.com/tensorflow/tensorflow/issues/14894 (nograd_histogram_match.py compiled: two histograms by tf.histogram_fixed_width compared with l2_loss, the step a @tf.function that applies the gradients: "No gradients provided for any variable")
# expect: cause=no-gradient-op line=15
import tensorflow as tf

input1 = tf.Variable([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
input2 = tf.constant([2.0, 3.0, 4.0, 6.0, 8.0, 9.0])
values_range = tf.constant([0.0, 10.0])
optimizer = tf.keras.optimizers.Adam(0.001)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        # counts of values per bin: a count does not change when a value moves a little
        source_hist = tf.histogram_fixed_width(input1, values_range, 11)
        template_hist = tf.histogram_fixed_width(input2, values_range, 11)
        loss = 2 * tf.nn.l2_loss(tf.cast(source_hist - template_hist, tf.float32))
    grads = tape.gradient(loss, [input1])
    optimizer.apply_gradients(zip(grads, [input1]))  # every gradient is None: Keras raises
    return loss


print(train_step())
