# source: https://github.com/tensorflow/tensorflow/issues/7786 ("embedding_lookup has a gradient … It returns an IndexedSlices"; a Keras Embedding trained in a @tf.function step)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(8)
model = keras.Sequential([keras.Input((5,), dtype="int32"), keras.layers.Embedding(40, 6),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(0.01)


@tf.function
def train_step(tokens, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(tokens) - y))
    grads = tape.gradient(loss, model.trainable_variables)  # the table's gradient: IndexedSlices, rows looked up only
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


tokens = tf.random.uniform((16, 5), maxval=40, dtype=tf.int32)
for step in range(3):
    loss = train_step(tokens, tf.ones((16, 1)))
print(float(loss))
