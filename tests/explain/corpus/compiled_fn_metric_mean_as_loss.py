# source: https://programmerteach.com/p/a-summary-of-this-article-keras-target-loss-function-and-metrics-function (state_metric_mean_as_loss.py compiled: keras.metrics.Mean, a running mean kept in variables, used as the loss of a @tf.function train step)
# expect: cause=state-breaks-path line=19
import keras
import tensorflow as tf

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.1)
mean_loss = keras.metrics.Mean()
x = tf.random.normal((16, 5))
y = tf.random.normal((16, 1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.square(model(x, training=True) - y)
        # the running mean over every batch so far, read back from the metric's variables
        loss = mean_loss(per_example)
    grads = tape.gradient(loss, model.trainable_variables)
    return [g is None for g in grads]


for step in range(2):
    print(train_step(x, y))
