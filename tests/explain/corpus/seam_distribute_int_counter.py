# source: https://github.com/tensorflow/recommenders/issues/138 (a model under MirroredStrategy that keeps an int32 counter among its variables: "The dtype of the source tensor must be floating ... got tf.int32", "Gradients do not exist for variables ['counter:0']"; here a custom loop, strategy.run in a @tf.function over experimental_distribute_dataset)
# expect: cause=integer-path line=14
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])


class Scorer(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.random.normal((4, 1), seed=3))
        # how many batches were scored: a tf.Variable is trainable by default, so it is among trainable_variables
        self.counter = tf.Variable(0)

    def __call__(self, x):
        self.counter.assign_add(1)
        return tf.matmul(x, self.w)


with strategy.scope():
    model = Scorer()
    optimizer = tf.keras.optimizers.SGD(0.1)
rng = np.random.default_rng(9)
features = rng.normal(size=(16, 4)).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((features, features[:, :1])).batch(8)
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    return loss, [g is None for g in grads]


@tf.function
def distributed_step(x, y):
    loss, missing = strategy.run(step_fn, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None), missing


for x, y in dist_dataset:
    print(distributed_step(x, y))
