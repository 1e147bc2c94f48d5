# source: https://github.com/peteryuX/retinaface-tf2/issues/6 (nograd_argsort_hard_negatives.py, in a tf.function step)
# expect: cause=no-gradient-op line=16
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4)])
x = tf.random.normal((8, 6))
labels = tf.constant([0, 1, 2, 3, 0, 1, 2, 3])


@tf.function
def step(x, labels):
    with tf.GradientTape() as tape:
        loss_class = keras.losses.sparse_categorical_crossentropy(labels, model(x), from_logits=True)
        # the rank of each example's loss, to keep the hardest three: ranks are indices
        rank = tf.argsort(tf.argsort(loss_class, direction="DESCENDING"))
        hard = tf.cast(rank < 3, tf.float32)
        loss = tf.reduce_sum(hard * tf.cast(rank, tf.float32)) / 3.0
    return tape.gradient(loss, model.trainable_variables)


for _ in range(2):
    print([g is None for g in step(x, labels)])
