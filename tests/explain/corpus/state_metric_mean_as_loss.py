# source: https://programmerteach.com/p/a-summary-of-this-article-keras-target-loss-function-and-metrics-function (keras.metrics.Mean is a stateful function that keeps a running mean, not a loss; here it is used as the loss of a custom loop)
# expect: cause=state-breaks-path line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.1)
mean_loss = keras.metrics.Mean()
x = tf.random.normal((16, 5))
y = tf.random.normal((16, 1))
for step in range(2):
    with tf.GradientTape() as tape:
        per_example = tf.square(model(x) - y)
        loss = mean_loss(per_example)  # the running mean over every batch so far, read back from the metric's variables
    grads = tape.gradient(loss, model.trainable_variables)
    print([g is None for g in grads])
