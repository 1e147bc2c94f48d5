# source: https://errorcanon.top/errors/tensorflow/optimizer-nan-loss/zh.md (a loss divided by the number of positive samples is NaN for a batch without any: fit's only step makes NaN weights)
# expect: cause=non-finite line=14
import numpy as np
import tensorflow as tf
import keras


class Net(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            num_pos = tf.reduce_sum(y)
            loss = tf.reduce_sum(y * tf.square(pred - y)) / num_pos
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


np.random.seed(0)
tf.random.set_seed(0)
inp = keras.Input((6,))
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Dense(8, activation="relu")(inp))
model = Net(inp, out)
model.compile(optimizer=keras.optimizers.Adam(1e-3))
X = np.random.randn(64, 6).astype("float32")
Y = np.zeros((64, 1), dtype="float32")  # a batch without any positive sample
hist = model.fit(X, Y, epochs=1, batch_size=64, verbose=0)
print("loss:", hist.history["loss"])
print("NaN weights:", any(np.isnan(w).any() for w in model.get_weights()))
