# source: https://newbetuts.com/42918446-how-to-add-an-attention-mechanism-in-keras (softmax_attention_one_unit_fit.py with its own attention in a @tf.function step: tf.nn.softmax of the (batch, steps, 1) scores runs over the last axis, one value, and is 1 everywhere)
# expect: cause=softmax-sum line=23
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(6)
steps = 10
encoder = keras.layers.GRU(8, return_sequences=True)
scorer = keras.layers.Dense(1)
head = keras.layers.Dense(1)
optimizer = keras.optimizers.Adam(1e-2)
x = tf.constant(np.random.normal(size=(64, steps, 3)).astype("float32"))
y = tf.constant((np.random.uniform(size=(64, 1)) > 0.5).astype("float32"))
encoder(x), scorer(tf.zeros((1, steps, 8))), head(tf.zeros((1, 8)))  # built before the step reads their weights


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        hidden = encoder(x)
        scores = tf.tanh(scorer(hidden))
        weights = tf.nn.softmax(scores)
        context = tf.reduce_sum(hidden * weights, axis=1)
        loss = tf.reduce_mean(keras.losses.binary_crossentropy(y, tf.sigmoid(head(context))))
    variables = encoder.trainable_variables + scorer.trainable_variables + head.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss, grads


for step in range(3):
    loss, grads = train_step(x, y)
    print(step, float(loss), [float(tf.reduce_max(tf.abs(g))) for g in grads[-4:-2]])
