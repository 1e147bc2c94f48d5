# source: https://github.com/peteryuX/retinaface-tf2/issues/6 (hard negative mining: the loss kept as argsort ranks)
# expect: cause=no-gradient-op line=14
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4)])
x = tf.random.normal((8, 6))
labels = tf.constant([0, 1, 2, 3, 0, 1, 2, 3])
optimizer = keras.optimizers.SGD(0.1)
for step in range(2):
    with tf.GradientTape() as tape:
        loss_class = keras.losses.sparse_categorical_crossentropy(labels, model(x), from_logits=True)
        # the rank of each example's loss, to keep the hardest three: ranks are indices
        rank = tf.argsort(tf.argsort(loss_class, direction="DESCENDING"))
        hard = tf.cast(rank < 3, tf.float32)
        loss = tf.reduce_sum(hard * tf.cast(rank, tf.float32)) / 3.0
    grads = tape.gradient(loss, model.trainable_variables)
    print(step, [g is None for g in grads])
