# source: https://github.com/peteryuX/retinaface-tf2/issues/6 (nograd_argsort_hard_negatives.py, as a custom train_step under fit)
# expect: cause=no-gradient-op line=15
import keras
import numpy as np
import tensorflow as tf


class Ranker(keras.Model):
    def train_step(self, data):
        x, labels = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss_class = keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
            # the rank of each example's loss, to keep the hardest three: ranks are indices
            rank = tf.argsort(tf.argsort(loss_class, direction="DESCENDING"))
            loss = tf.reduce_sum(tf.cast(rank < 3, tf.float32) * tf.cast(rank, tf.float32)) / 3.0
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


inputs = keras.Input((6,))
model = Ranker(inputs, keras.layers.Dense(4)(inputs))
model.compile(optimizer="sgd")
try:
    model.fit(np.random.rand(16, 6).astype("float32"), np.random.randint(0, 4, 16), epochs=1, batch_size=8, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
